/* gen_stream.h — the built-in input distributions as pure functions of
 * (key, i): element i of a buffer depends only on the buffer's 64-bit key
 * (the run seed, contract, shape, distribution and argument, seed.c) and on
 * i, never on threads, chunks or launch shape. Compiled as host C (the host
 * generator, generate.c, and the fake driver) and as CUDA (the device
 * generator, kernels/harness/harness.cu): both produce the same bits, which
 * tests/test_generate.c pins on the host and the H200 receipt checks on the
 * device.
 *
 * The counter-based generator is Philox4x32-10 (Salmon, Moraes, Dror, Shaw,
 * "Parallel random numbers: as easy as 1, 2, 3", SC'11), the one cuRAND and
 * PyTorch's CUDA generator use, from Debian's librandom123-dev (the
 * Random123 headers, identical in C and CUDA). A draw is
 *     philox4x32_10(ctr = {lo32(i), hi32(i), j, tag}, key = {lo32(key), hi32(key)})
 * with j the draw's number within the element and tag 0 for values, 1 for
 * the segments of MASKED.
 *
 * Floating distributions (L is 2^10 for F16, 2^8 for E4M3, 2^20 otherwise),
 * with u53(a, b) = the top 53 bits of (a << 32 | b) times 2^-53, in [0, 1):
 *   UNIFORM      2 u53(x0, x1) - 1
 *   NORMAL       Irwin-Hall: the 16 16-bit halves of draws j = 0 and 1 summed,
 *                standardised by their mean 16 (2^16 - 1) / 2 and deviation
 *                sqrt(16 (2^32 - 1) / 12); integer sums and one division, no
 *                libm, so exact everywhere; tails end at +-6.93
 *   LARGE        L/2 + L/2 u53(x0, x1), negative when (x2 & 3) == 0
 *   ZEROS_MIXED  +0 or -0 (x2 & 2) when x2 & 1, else NORMAL from draws 1, 2
 *   SPECIALS     k = (x2 * 100) >> 32: +inf (0), -inf (1), NaN (2), else
 *                NORMAL from draws 1, 2 (E4M3 saturates inf to +-448)
 *   ZEROS        +0;  CONSTANT  NORMAL's element 0, everywhere;
 *   DENORMAL     k 2^(emin - mbits) with k = 1 + floor(u53(x0, x1) (2^mbits - 1)),
 *                negative when x2 & 1: the dtype's subnormals;
 *   NEG_INF      -inf (E4M3 -448);  NAN  NaN;  INT_EXTREMES  NORMAL
 *   MASKED       segments of 256 elements; segment s draws (s, 0, 1) =
 *                (y0, y1, ...): elements before p = y0 & 255 are masked when
 *                y1 & 1, the rest when not; masked elements are -inf (E4M3
 *                -448), the others NORMAL. Runs are 1 to 512 long, about
 *                half the elements masked.
 * Integers, whatever the distribution: uniform in [lo, hi] (I64, I32:
 * [-1000, 1000]; U32: [0, 1000]; I8, U8: their whole range) by Lemire's
 * multiply-and-reject on 64-bit words (x0 x1, then x2 x3, then draw j + 1).
 * Under INT_EXTREMES, integers are one of {MIN, MIN+1, -(2^24+1), -1, 0, 1,
 * 2^24+1, MAX-1, MAX} by k = (x2 * 9) >> 32, saturated to the dtype.
 * A ranged buffer (kc_arg.range) draws every type uniformly from its range
 * whatever the distribution (kc_stream_put_range). */
#ifndef KC_GEN_STREAM_H
#define KC_GEN_STREAM_H
#include <stdint.h>
#include <Random123/philox.h>
#include "kcontract_dtype.h"

#define KC_STREAM_SEGMENT 256u   /* MASKED: elements per segment */

/* One Philox4x32-10 draw for element i, draw j, purpose tag. */
KC_HD philox4x32_ctr_t kc_stream_draw(uint64_t key, uint64_t i, uint32_t j, uint32_t tag) {
    philox4x32_ctr_t c = { { (uint32_t)i, (uint32_t)(i >> 32), j, tag } };
    philox4x32_key_t k = { { (uint32_t)key, (uint32_t)(key >> 32) } };
    return philox4x32_R(10, c, k);
}

/* The top 53 bits of (a << 32 | b) as a double in [0, 1). */
KC_HD double kc_stream_u53(uint32_t a, uint32_t b) {
    uint64_t r = ((uint64_t)a << 32) | b;
    return (double)(r >> 11) * 0x1p-53;
}

/* Irwin-Hall approximation of N(0, 1) from draws j and j + 1 (16 halves). */
KC_HD double kc_stream_normal(uint64_t key, uint64_t i, uint32_t j) {
    uint64_t sum = 0;
    for (uint32_t d = 0; d < 2; d++) {
        philox4x32_ctr_t x = kc_stream_draw(key, i, j + d, 0);
        for (int w = 0; w < 4; w++) sum += (x.v[w] & 0xFFFFu) + (x.v[w] >> 16);
    }
    const double mean = 16.0 * 65535.0 / 2.0;
    const double sd = 75674.45447441297;   /* sqrt(16 * (2^32 - 1) / 12), to the nearest double */
    return ((double)sum - mean) / sd;
}

/* The LARGE scale L of a dtype. */
KC_HD double kc_stream_large_scale(kc_dtype t) {
    return t == KC_F16 ? 1024.0 : t == KC_E4M3 ? 256.0 : 0x1p20;
}

/* Element i of a floating buffer of dtype t under distribution d, before
 * rounding to t. */
KC_HD double kc_stream_float(kc_dtype t, kc_dist d, uint64_t key, uint64_t i) {
    const double inf = kc_cvt_bitsd(0x7ff0000000000000ULL), nan = kc_cvt_bitsd(0x7ff8000000000000ULL);
    philox4x32_ctr_t x;
    switch (d) {
    case KC_UNIFORM:
        x = kc_stream_draw(key, i, 0, 0);
        return 2.0 * kc_stream_u53(x.v[0], x.v[1]) - 1.0;
    case KC_LARGE: {
        const double half = kc_stream_large_scale(t) / 2;
        x = kc_stream_draw(key, i, 0, 0);
        double m = half + half * kc_stream_u53(x.v[0], x.v[1]);   /* [L/2, L): half * u is exact */
        return (x.v[2] & 3u) == 0 ? -m : m;
    }
    case KC_ZEROS_MIXED:
        x = kc_stream_draw(key, i, 0, 0);
        if (x.v[2] & 1u) return (x.v[2] & 2u) ? -0.0 : 0.0;
        return kc_stream_normal(key, i, 1);
    case KC_SPECIALS: {
        x = kc_stream_draw(key, i, 0, 0);
        uint32_t k = (uint32_t)(((uint64_t)x.v[2] * 100u) >> 32);    /* 0..99 */
        if (k == 0) return inf;
        if (k == 1) return -inf;
        if (k == 2) return nan;
        return kc_stream_normal(key, i, 1);
    }
    case KC_ZEROS:
        return 0.0;
    case KC_CONSTANT:
        return kc_stream_normal(key, 0, 0);            /* element 0's normal value, everywhere */
    case KC_DENORMAL: {
        int mbits, emin;
        kc_cvt_float_params(t, &mbits, &emin);
        x = kc_stream_draw(key, i, 0, 0);
        double k = 1.0 + (double)(uint64_t)(kc_stream_u53(x.v[0], x.v[1]) * (double)((1ULL << mbits) - 1));
        double m = k * kc_cvt_bitsd(emin - mbits >= -1022 ? (uint64_t)(emin - mbits + 1023) << 52
                                                          : 1ULL << (emin - mbits + 1074));
        return (x.v[2] & 1u) ? -m : m;                 /* k in [1, 2^mbits): the dtype's subnormals */
    }
    case KC_NEG_INF:
        return -inf;
    case KC_NAN:
        return nan;
    case KC_MASKED: {
        uint64_t seg = i / KC_STREAM_SEGMENT;
        philox4x32_ctr_t y = kc_stream_draw(key, seg, 0, 1);
        uint32_t p = y.v[0] & (KC_STREAM_SEGMENT - 1), q = (uint32_t)(i % KC_STREAM_SEGMENT);
        int masked = (q < p) == ((y.v[1] & 1u) != 0);
        return masked ? -inf : kc_stream_normal(key, i, 0);
    }
    case KC_NORMAL:
    default:
        return kc_stream_normal(key, i, 0);
    }
}

/* floor((hi - lo + 1) * r / 2^64) accepted unless its low part falls below
 * the rejection threshold (Lemire, "Fast random integer generation in an
 * interval", 2019). range == 0 means the full 64-bit range. */
KC_HD int kc_stream_below(uint64_t r, uint64_t range, uint64_t *out) {
    if (range == 0) { *out = r; return 1; }
#ifdef __CUDA_ARCH__
    uint64_t hi = __umul64hi(r, range), lo = r * range;
#else
    unsigned __int128 m = (unsigned __int128)r * range;
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
#endif
    if (lo < range && lo < (0 - range) % range) return 0;
    *out = hi;
    return 1;
}

/* Element i of an integer buffer under INT_EXTREMES: one of the dtype's ends
 * and both sides of 2^24 (saturated to the dtype by the store). */
KC_HD double kc_stream_int_extreme(kc_dtype t, uint64_t key, uint64_t i) {
    double lo, hi;
    switch (t) {
    case KC_I64: lo = -0x1p63; hi = 0x1p63; break;
    case KC_I32: lo = -2147483648.0; hi = 2147483647.0; break;
    case KC_U32: lo = 0; hi = 4294967295.0; break;
    case KC_I8: lo = -128; hi = 127; break;
    case KC_I16: lo = -32768; hi = 32767; break;
    case KC_U16: lo = 0; hi = 65535; break;
    case KC_U64: lo = 0; hi = 0x1p64; break;                    /* stored saturated */
    default: lo = 0; hi = 255; break;
    }
    philox4x32_ctr_t x = kc_stream_draw(key, i, 0, 0);
    switch ((uint32_t)(((uint64_t)x.v[2] * 9u) >> 32)) {       /* 0..8 */
    case 0: return lo;
    case 1: return lo + 1;
    case 2: return -16777217.0;                                 /* stored saturated */
    case 3: return -1.0;
    case 4: return 0.0;
    case 5: return 1.0;
    case 6: return 16777217.0;
    case 7: return hi - 1;
    default: return hi;
    }
}

/* Element i of an integer buffer: uniform in [lo, hi]. */
KC_HD int64_t kc_stream_int(int64_t lo, int64_t hi, uint64_t key, uint64_t i) {
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1, v = 0;
    for (uint32_t j = 0;; j++) {
        philox4x32_ctr_t x = kc_stream_draw(key, i, j, 0);
        if (kc_stream_below(((uint64_t)x.v[0] << 32) | x.v[1], range, &v)) break;
        if (kc_stream_below(((uint64_t)x.v[2] << 32) | x.v[3], range, &v)) break;
    }
    return (int64_t)((uint64_t)lo + v);
}

/* The integer range of a dtype's built-in stream; 0 for floating types. */
KC_HD int kc_stream_int_range(kc_dtype t, int64_t *lo, int64_t *hi) {
    switch (t) {
    case KC_I64: case KC_I32: case KC_I16: *lo = -1000; *hi = 1000; return 1;
    case KC_U32: case KC_U16: case KC_U64: *lo = 0; *hi = 1000; return 1;
    case KC_I8: *lo = -128; *hi = 127; return 1;
    case KC_U8: *lo = 0; *hi = 255; return 1;
    default: return 0;
    }
}

/* The largest double below x (x finite). */
KC_HD double kc_stream_prev(double x) {
    uint64_t b = kc_cvt_dbits(x);
    if ((b << 1) == 0) return kc_cvt_bitsd(0x8000000000000001ULL);   /* +-0: the negative subnormal */
    return kc_cvt_bitsd(x > 0 ? b - 1 : b + 1);
}

/* Element i of a ranged buffer (kc_arg.range): integers uniform in [lo, hi]
 * by kc_stream_int; floats lo + (hi - lo) u53(x0, x1) of draw 0, kept below
 * hi (rounding may reach it), then rounded to t by the store. */
KC_HD void kc_stream_put_range(kc_dtype t, uint64_t key, void *data, uint64_t i, double lo, double hi) {
    int64_t dummy_lo, dummy_hi;
    if (kc_stream_int_range(t, &dummy_lo, &dummy_hi)) {
        kc_cvt_store(t, data, i, (double)kc_stream_int((int64_t)lo, (int64_t)hi, key, i));
        return;
    }
    philox4x32_ctr_t x = kc_stream_draw(key, i, 0, 0);
    double v = lo + (hi - lo) * kc_stream_u53(x.v[0], x.v[1]);
    if (v >= hi && hi > lo) v = kc_stream_prev(hi);
    kc_cvt_store(t, data, i, v);
}

/* Writes element i of the built-in stream of (dtype t, distribution d, key)
 * into data (an array of t). */
KC_HD void kc_stream_put(kc_dtype t, kc_dist d, uint64_t key, void *data, uint64_t i) {
    int64_t lo, hi;
    switch (t) {
    case KC_I64: case KC_I32: case KC_U32: case KC_I8: case KC_U8: case KC_I16: case KC_U16: case KC_U64:
        if (d == KC_INT_EXTREMES) {
            kc_cvt_store(t, data, i, kc_stream_int_extreme(t, key, i));
            return;
        }
        kc_stream_int_range(t, &lo, &hi);
        kc_cvt_store(t, data, i, (double)kc_stream_int(lo, hi, key, i));
        return;
    default:
        kc_cvt_store(t, data, i, kc_stream_float(t, d == KC_INT_EXTREMES ? KC_NORMAL : d, key, i));
        return;
    }
}
#endif /* KC_GEN_STREAM_H */
