/* dtype.c — owns element types: sizes, names, and the exact conversions
 * between every kc_dtype and double.
 *
 * Narrowing to f16, bf16 and E4M3 works on the bits of the double and rounds
 * once, to nearest with ties to even, directly from the double (never through
 * float, which would round twice). f16 and bf16 overflow to +-inf; E4M3 (OCP
 * e4m3fn: bias 7, no infinities, max 448, NaN = S.1111.111) saturates to
 * +-448, infinities included, like __nv_cvt_float_to_fp8(..., __NV_SATFINITE).
 * Widening is exact. Integers are stored truncated toward zero and saturated;
 * NaN stores as 0. Loading an I64 beyond 2^53 is the one inexact case (double
 * has 53 bits of precision). */
#include <math.h>
#include <string.h>
#include "dtype.h"

size_t kc_dtype_size(kc_dtype t) {
    switch (t) {
    case KC_F64: case KC_I64: return 8;
    case KC_F32: case KC_I32: case KC_U32: return 4;
    case KC_F16: case KC_BF16: return 2;
    case KC_E4M3: case KC_I8: case KC_U8: return 1;
    default: return 0;
    }
}

const char *kc_dtype_name(kc_dtype t) {
    switch (t) {
    case KC_F64: return "f64";
    case KC_F32: return "f32";
    case KC_F16: return "f16";
    case KC_BF16: return "bf16";
    case KC_E4M3: return "e4m3";
    case KC_I64: return "i64";
    case KC_I32: return "i32";
    case KC_U32: return "u32";
    case KC_I8: return "i8";
    case KC_U8: return "u8";
    default: return "none";
    }
}

int kc_dtype_is_float(kc_dtype t) {
    return t == KC_F64 || t == KC_F32 || t == KC_F16 || t == KC_BF16 || t == KC_E4M3;
}

static uint64_t dbits(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static double bitsd(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }

/* The magnitude bits (exponent and mantissa, no sign) of a finite double
 * rounded to a binary format with `mbits` mantissa bits and exponent bias
 * `bias`, RNE. The result may exceed the format's largest finite encoding:
 * the caller decides between inf and saturation. A rounding carry out of the
 * mantissa lands in the exponent field, which is exactly the next binade. */
static uint64_t round_magnitude(uint64_t mag, int mbits, int bias) {
    int e = (int)(mag >> 52);
    if (e == 0) return 0;                  /* double subnormal: < 2^-1022, rounds to 0 everywhere */
    uint64_t sig = (mag & 0xfffffffffffffULL) | (1ULL << 52);
    int te = e - 1023 + bias;              /* biased exponent in the target */
    int shift = 52 - mbits + (te >= 1 ? 0 : 1 - te);
    if (shift > 54) return 0;              /* below half the smallest subnormal */
    /* RNE without branches: add half an ulp less one, plus the kept lsb
     * (which turns an exact tie into a carry only when the lsb is odd). */
    uint64_t q = (sig + ((1ULL << (shift - 1)) - 1) + ((sig >> shift) & 1)) >> shift;
    if (te < 1) return q;                  /* subnormal (q == 2^mbits is the smallest normal) */
    return ((uint64_t)(te - 1) << mbits) + q;
}

uint16_t kc_double_to_f16(double x) {
    uint64_t u = dbits(x);
    uint16_t sign = (uint16_t)((u >> 48) & 0x8000);
    uint64_t mag = u & 0x7fffffffffffffffULL;
    if (mag > 0x7ff0000000000000ULL) return 0x7e00;
    if (mag == 0x7ff0000000000000ULL) return sign | 0x7c00;
    uint64_t r = round_magnitude(mag, 10, 15);
    if (r >= 0x7c00) return sign | 0x7c00;
    return sign | (uint16_t)r;
}

double kc_f16_to_double(uint16_t h) {
    uint64_t sign = (uint64_t)(h & 0x8000) << 48;
    unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f)
        return bitsd(sign | 0x7ff0000000000000ULL | ((uint64_t)m << 42));
    if (e == 0) {
        double v = (double)m * 0x1p-24;
        return (h & 0x8000) ? -v : v;
    }
    return bitsd(sign | ((uint64_t)(e - 15 + 1023) << 52) | ((uint64_t)m << 42));
}

uint16_t kc_double_to_bf16(double x) {
    uint64_t u = dbits(x);
    uint16_t sign = (uint16_t)((u >> 48) & 0x8000);
    uint64_t mag = u & 0x7fffffffffffffffULL;
    if (mag > 0x7ff0000000000000ULL) return 0x7fc0;
    if (mag == 0x7ff0000000000000ULL) return sign | 0x7f80;
    uint64_t r = round_magnitude(mag, 7, 127);
    if (r >= 0x7f80) return sign | 0x7f80;
    return sign | (uint16_t)r;
}

double kc_bf16_to_double(uint16_t b) {
    uint32_t w = (uint32_t)b << 16;
    float f;
    memcpy(&f, &w, 4);
    return (double)f;
}

uint8_t kc_double_to_e4m3(double x) {
    uint64_t u = dbits(x);
    uint8_t sign = (uint8_t)((u >> 56) & 0x80);
    uint64_t mag = u & 0x7fffffffffffffffULL;
    if (mag > 0x7ff0000000000000ULL) return 0x7f;
    if (mag == 0x7ff0000000000000ULL) return sign | 0x7e;
    uint64_t r = round_magnitude(mag, 3, 7);
    if (r > 0x7e) return sign | 0x7e;      /* 0x7f is NaN: saturate to 448 */
    return sign | (uint8_t)r;
}

double kc_e4m3_to_double(uint8_t v) {
    unsigned e = (v >> 3) & 0xf, m = v & 7;
    double r;
    if (e == 0xf && m == 7) return (v & 0x80) ? -NAN : NAN;
    if (e == 0) r = (double)m * 0x1p-9;
    else r = ldexp(1.0 + (double)m / 8.0, (int)e - 7);
    return (v & 0x80) ? -r : r;
}

float kc_double_to_f32(double x) { return (float)x; }

/* Integer stores: NaN -> 0, truncation toward zero, saturation at the ends.
 * The bounds are compared as doubles; lo and hi are exact in double for
 * every type here except i64's hi (2^63 - 1 rounds to 2^63, hence >=). */
static int64_t to_int(double x, double lo, double hi, int64_t ilo, int64_t ihi) {
    if (isnan(x)) return 0;
    if (x <= lo) return ilo;
    if (x >= hi) return ihi;
    return (int64_t)x;
}

static int64_t to_i64(double x) {
    if (isnan(x)) return 0;
    if (x >= 0x1p63) return INT64_MAX;
    if (x <= -0x1p63) return INT64_MIN;
    return (int64_t)x;
}

double kc_load(kc_dtype t, const void *data, size_t i) {
    switch (t) {
    case KC_F64: return ((const double *)data)[i];
    case KC_F32: return (double)((const float *)data)[i];
    case KC_F16: return kc_f16_to_double(((const uint16_t *)data)[i]);
    case KC_BF16: return kc_bf16_to_double(((const uint16_t *)data)[i]);
    case KC_E4M3: return kc_e4m3_to_double(((const uint8_t *)data)[i]);
    case KC_I64: return (double)((const int64_t *)data)[i];
    case KC_I32: return (double)((const int32_t *)data)[i];
    case KC_U32: return (double)((const uint32_t *)data)[i];
    case KC_I8: return (double)((const int8_t *)data)[i];
    case KC_U8: return (double)((const uint8_t *)data)[i];
    default: return 0.0;
    }
}

void kc_store(kc_dtype t, void *data, size_t i, double x) {
    switch (t) {
    case KC_F64: ((double *)data)[i] = x; break;
    case KC_F32: ((float *)data)[i] = kc_double_to_f32(x); break;
    case KC_F16: ((uint16_t *)data)[i] = kc_double_to_f16(x); break;
    case KC_BF16: ((uint16_t *)data)[i] = kc_double_to_bf16(x); break;
    case KC_E4M3: ((uint8_t *)data)[i] = kc_double_to_e4m3(x); break;
    case KC_I64: ((int64_t *)data)[i] = to_i64(x); break;
    case KC_I32: ((int32_t *)data)[i] = (int32_t)to_int(x, INT32_MIN, INT32_MAX, INT32_MIN, INT32_MAX); break;
    case KC_U32: ((uint32_t *)data)[i] = (uint32_t)to_int(x, 0, UINT32_MAX, 0, UINT32_MAX); break;
    case KC_I8: ((int8_t *)data)[i] = (int8_t)to_int(x, INT8_MIN, INT8_MAX, INT8_MIN, INT8_MAX); break;
    case KC_U8: ((uint8_t *)data)[i] = (uint8_t)to_int(x, 0, UINT8_MAX, 0, UINT8_MAX); break;
    default: break;
    }
}
