/* kcontract_dtype.h — exact conversions between every element type and
 * double, as inline functions that compile identically as host C (gcc) and
 * CUDA (nvcc, __host__ __device__): the host generator and reference, the
 * device generator and checks, and device references all decode and round
 * through this one definition, so host and device agree bit for bit.
 *
 * Narrowing to f16, bf16 and E4M3 works on the bits of the double and rounds
 * once, to nearest with ties to even, directly from the double (never through
 * float, which would round twice), as CUDA's __double2half does. f16 and bf16
 * overflow to +-inf; E4M3 (OCP e4m3fn: bias 7, no infinities, max 448, NaN =
 * S.1111.111) saturates to +-448, infinities included, like
 * __nv_cvt_float_to_fp8(..., __NV_SATFINITE). Widening is exact. Integers are
 * stored truncated toward zero and saturated; NaN stores as 0. Loading an I64
 * beyond 2^53 is the one inexact case (double has 53 bits of precision).
 *
 * Element types (kc_dtype) are declared in kcontract.h; this header needs
 * only their numeric values, so CUDA sources may include it alone. */
#ifndef KCONTRACT_DTYPE_H
#define KCONTRACT_DTYPE_H
#include <stdint.h>
#include <string.h>
#include "kcontract.h"

#ifdef __CUDACC__
#define KC_HD static __host__ __device__ __forceinline__
#else
#define KC_HD static inline
#endif

KC_HD uint64_t kc_cvt_dbits(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
KC_HD double kc_cvt_bitsd(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
KC_HD int kc_cvt_isnan(double x) { return (kc_cvt_dbits(x) & 0x7fffffffffffffffULL) > 0x7ff0000000000000ULL; }

/* The magnitude bits (exponent and mantissa, no sign) of a finite double
 * rounded to a binary format with `mbits` mantissa bits and exponent bias
 * `bias`, RNE. The result may exceed the format's largest finite encoding:
 * the caller decides between inf and saturation. A rounding carry out of the
 * mantissa lands in the exponent field, which is exactly the next binade. */
KC_HD uint64_t kc_cvt_round_magnitude(uint64_t mag, int mbits, int bias) {
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

/* double -> f16: RNE, overflow to +-inf, NaN -> 0x7e00. */
KC_HD uint16_t kc_cvt_double_to_f16(double x) {
    uint64_t u = kc_cvt_dbits(x);
    uint16_t sign = (uint16_t)((u >> 48) & 0x8000);
    uint64_t mag = u & 0x7fffffffffffffffULL;
    if (mag > 0x7ff0000000000000ULL) return 0x7e00;
    if (mag == 0x7ff0000000000000ULL) return (uint16_t)(sign | 0x7c00);
    uint64_t r = kc_cvt_round_magnitude(mag, 10, 15);
    if (r >= 0x7c00) return (uint16_t)(sign | 0x7c00);
    return (uint16_t)(sign | (uint16_t)r);
}

KC_HD double kc_cvt_f16_to_double(uint16_t h) {
    uint64_t sign = (uint64_t)(h & 0x8000) << 48;
    unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) return kc_cvt_bitsd(sign | 0x7ff0000000000000ULL | ((uint64_t)m << 42));
    if (e == 0) {
        double v = (double)m * 0x1p-24;
        return (h & 0x8000) ? -v : v;
    }
    return kc_cvt_bitsd(sign | ((uint64_t)(e - 15 + 1023) << 52) | ((uint64_t)m << 42));
}

/* double -> bf16: RNE from the double (not via float), overflow to +-inf, NaN -> 0x7fc0. */
KC_HD uint16_t kc_cvt_double_to_bf16(double x) {
    uint64_t u = kc_cvt_dbits(x);
    uint16_t sign = (uint16_t)((u >> 48) & 0x8000);
    uint64_t mag = u & 0x7fffffffffffffffULL;
    if (mag > 0x7ff0000000000000ULL) return 0x7fc0;
    if (mag == 0x7ff0000000000000ULL) return (uint16_t)(sign | 0x7f80);
    uint64_t r = kc_cvt_round_magnitude(mag, 7, 127);
    if (r >= 0x7f80) return (uint16_t)(sign | 0x7f80);
    return (uint16_t)(sign | (uint16_t)r);
}

KC_HD double kc_cvt_bf16_to_double(uint16_t b) {
    uint32_t w = (uint32_t)b << 16;
    float f;
    memcpy(&f, &w, 4);
    return (double)f;
}

/* double -> E4M3: RNE, saturates to +-448 (infinities too), NaN -> 0x7f. */
KC_HD uint8_t kc_cvt_double_to_e4m3(double x) {
    uint64_t u = kc_cvt_dbits(x);
    uint8_t sign = (uint8_t)((u >> 56) & 0x80);
    uint64_t mag = u & 0x7fffffffffffffffULL;
    if (mag > 0x7ff0000000000000ULL) return 0x7f;
    if (mag == 0x7ff0000000000000ULL) return (uint8_t)(sign | 0x7e);
    uint64_t r = kc_cvt_round_magnitude(mag, 3, 7);
    if (r > 0x7e) return (uint8_t)(sign | 0x7e);      /* 0x7f is NaN: saturate to 448 */
    return (uint8_t)(sign | (uint8_t)r);
}

KC_HD double kc_cvt_e4m3_to_double(uint8_t v) {
    uint64_t sign = (uint64_t)(v & 0x80) << 56;
    unsigned e = (v >> 3) & 0xf, m = v & 7;
    if (e == 0xf && m == 7) return kc_cvt_bitsd(sign | 0x7ff8000000000000ULL);
    if (e == 0) {
        double r = (double)m * 0x1p-9;
        return (v & 0x80) ? -r : r;
    }
    return kc_cvt_bitsd(sign | ((uint64_t)(e - 7 + 1023) << 52) | ((uint64_t)m << 49));
}

/* Integer stores: NaN -> 0, truncation toward zero, saturation at the ends.
 * The bounds are compared as doubles; they are exact in double for every
 * type here except i64's (2^63 - 1 rounds to 2^63, hence >=). */
KC_HD int64_t kc_cvt_to_int(double x, double lo, double hi, int64_t ilo, int64_t ihi) {
    if (kc_cvt_isnan(x)) return 0;
    if (x <= lo) return ilo;
    if (x >= hi) return ihi;
    return (int64_t)x;
}

/* x as a u64: NaN 0, saturated to [0, 2^64 - 1], truncated toward zero. */
KC_HD uint64_t kc_cvt_to_u64(double x) {
    if (kc_cvt_isnan(x) || x <= 0) return 0;
    if (x >= 0x1p64) return UINT64_MAX;
    return (uint64_t)x;
}

KC_HD int64_t kc_cvt_to_i64(double x) {
    if (kc_cvt_isnan(x)) return 0;
    if (x >= 0x1p63) return INT64_MAX;
    if (x <= -0x1p63) return INT64_MIN;
    return (int64_t)x;
}

/* The significand bits and smallest normal exponent of a floating dtype
 * (its ulp at x is 2^(max(floor(log2 |x|), emin) - mbits), its smallest
 * subnormal 2^(emin - mbits)); 0 for integers. */
KC_HD int kc_cvt_float_params(kc_dtype t, int *mbits, int *emin) {
    switch (t) {
    case KC_F64: *mbits = 52; *emin = -1022; return 1;
    case KC_F32: *mbits = 23; *emin = -126; return 1;
    case KC_F16: *mbits = 10; *emin = -14; return 1;
    case KC_BF16: *mbits = 7; *emin = -126; return 1;
    case KC_E4M3: *mbits = 3; *emin = -6; return 1;
    default: *mbits = 0; *emin = 0; return 0;
    }
}

/* Element i of an array of dtype t, as a double (exact but for I64 beyond 2^53). */
KC_HD double kc_cvt_load(kc_dtype t, const void *data, size_t i) {
    switch (t) {
    case KC_F64: return ((const double *)data)[i];
    case KC_F32: return (double)((const float *)data)[i];
    case KC_F16: return kc_cvt_f16_to_double(((const uint16_t *)data)[i]);
    case KC_BF16: return kc_cvt_bf16_to_double(((const uint16_t *)data)[i]);
    case KC_E4M3: return kc_cvt_e4m3_to_double(((const uint8_t *)data)[i]);
    case KC_I64: return (double)((const int64_t *)data)[i];
    case KC_I32: return (double)((const int32_t *)data)[i];
    case KC_U32: return (double)((const uint32_t *)data)[i];
    case KC_I8: return (double)((const int8_t *)data)[i];
    case KC_U8: return (double)((const uint8_t *)data)[i];
    case KC_I16: return (double)((const int16_t *)data)[i];
    case KC_U16: return (double)((const uint16_t *)data)[i];
    case KC_U64: return (double)((const uint64_t *)data)[i];
    default: return 0.0;
    }
}

/* Stores x as element i of an array of dtype t (floats RNE; integers
 * truncated toward zero and saturated, NaN as 0). */
KC_HD void kc_cvt_store(kc_dtype t, void *data, size_t i, double x) {
    switch (t) {
    case KC_F64: ((double *)data)[i] = x; break;
    case KC_F32: ((float *)data)[i] = (float)x; break;       /* the C conversion rounds to nearest even */
    case KC_F16: ((uint16_t *)data)[i] = kc_cvt_double_to_f16(x); break;
    case KC_BF16: ((uint16_t *)data)[i] = kc_cvt_double_to_bf16(x); break;
    case KC_E4M3: ((uint8_t *)data)[i] = kc_cvt_double_to_e4m3(x); break;
    case KC_I64: ((int64_t *)data)[i] = kc_cvt_to_i64(x); break;
    case KC_I32: ((int32_t *)data)[i] = (int32_t)kc_cvt_to_int(x, -2147483648.0, 2147483647.0, INT32_MIN, INT32_MAX); break;
    case KC_U32: ((uint32_t *)data)[i] = (uint32_t)kc_cvt_to_int(x, 0.0, 4294967295.0, 0, UINT32_MAX); break;
    case KC_I8: ((int8_t *)data)[i] = (int8_t)kc_cvt_to_int(x, -128.0, 127.0, INT8_MIN, INT8_MAX); break;
    case KC_U8: ((uint8_t *)data)[i] = (uint8_t)kc_cvt_to_int(x, 0.0, 255.0, 0, UINT8_MAX); break;
    case KC_I16: ((int16_t *)data)[i] = (int16_t)kc_cvt_to_int(x, -32768.0, 32767.0, INT16_MIN, INT16_MAX); break;
    case KC_U16: ((uint16_t *)data)[i] = (uint16_t)kc_cvt_to_int(x, 0.0, 65535.0, 0, UINT16_MAX); break;
    case KC_U64: ((uint64_t *)data)[i] = kc_cvt_to_u64(x); break;
    default: break;
    }
}
#endif /* KCONTRACT_DTYPE_H */
