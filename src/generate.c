/* generate.c — owns the generator API of kcontract.h: the xoshiro256**
 * stream (kc_rand_*), kc_gen_put, and the built-in distributions of
 * kc_gen_default.
 *
 * Everything draws only from g->rng, so a buffer's contents are a pure
 * function of the seed the runner derived (seed.c). kc_rand_normal has no
 * cached second value for the same reason; kc_gen_default's normal stream
 * uses both values of a pair of draws internally (it is one call, so it
 * stays a pure function of the state it starts from).
 *
 * The fill loops run over billions of elements for the large shapes, so the
 * dtype is decided once per buffer: fill_float() is forced inline with a
 * constant dtype, and the compiler folds put() to one conversion. */
#include <math.h>
#include <string.h>
#include "dtype.h"
#include "kcontract.h"

#define INLINE static inline __attribute__((always_inline))

INLINE uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** 1.0 (Blackman and Vigna). */
INLINE uint64_t next(uint64_t s[4]) {
    uint64_t r = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* The top 53 bits as a double in [0, 1). */
INLINE double unit53(uint64_t r) { return (double)(r >> 11) * 0x1p-53; }

/* One draw of approximately N(0, 1) without libm, so a buffer is bit-identical
 * on every machine whatever its libm (glibc's log/sin/cos are not guaranteed
 * correctly rounded, and the GPU hosts run another glibc than CI): the sum of
 * sixteen uniform 16-bit integers from four 64-bit draws, standardised by the
 * Irwin-Hall mean 16*(2^16-1)/2 and deviation sqrt(16*(2^32-1)/12). Integer
 * sums and one IEEE division: exact and portable. Tails end at +-6.93. */
INLINE double normal1(uint64_t s[4]) {
    uint64_t sum = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t r = next(s);
        sum += (r & 0xFFFF) + ((r >> 16) & 0xFFFF) + ((r >> 32) & 0xFFFF) + (r >> 48);
    }
    const double mean = 16.0 * 65535.0 / 2.0;
    const double sd = 75674.45447441297;   /* sqrt(16 * (2^32 - 1) / 12), to the nearest double */
    return ((double)sum - mean) / sd;
}

/* Two normal draws (the streams below hand out both). */
INLINE double normal_pair(uint64_t s[4], double *second) {
    double a = normal1(s);
    *second = normal1(s);
    return a;
}

uint64_t kc_rand_u64(kc_gen *g) { return next(g->rng); }

double kc_rand_uniform(kc_gen *g, double lo, double hi) {
    double v = lo + (hi - lo) * unit53(next(g->rng));
    if (v >= hi && hi > lo) v = nextafter(hi, lo);   /* rounding must not reach hi */
    return v;
}

double kc_rand_normal(kc_gen *g) {
    return normal1(g->rng);
}

/* Lemire's multiply-and-reject: unbiased in [0, range). */
INLINE uint64_t below(uint64_t s[4], uint64_t range) {
    unsigned __int128 m = (unsigned __int128)next(s) * range;
    uint64_t l = (uint64_t)m;
    if (l < range) {
        uint64_t t = -range % range;
        while (l < t) {
            m = (unsigned __int128)next(s) * range;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

int64_t kc_rand_int(kc_gen *g, int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1;
    if (range == 0) return (int64_t)next(g->rng);      /* the full 64-bit range */
    return (int64_t)((uint64_t)lo + below(g->rng, range));
}

void kc_gen_put(kc_gen *g, size_t i, double x) { kc_store(g->dtype, g->data, i, x); }

/* A normal stream that hands out both values of each pair. */
typedef struct nstream { uint64_t *s; double spare; int has; } nstream;

INLINE double nnext(nstream *n) {
    if (n->has) { n->has = 0; return n->spare; }
    n->has = 1;
    return normal_pair(n->s, &n->spare);
}

/* The LARGE scale L per dtype (kcontract.h, kc_dist). */
static double large_scale(kc_dtype t) {
    switch (t) {
    case KC_F16: return 1024.0;
    case KC_E4M3: return 256.0;
    default: return 0x1p20;
    }
}

INLINE void put(kc_dtype t, void *data, size_t i, double x) {
    switch (t) {
    case KC_F64: ((double *)data)[i] = x; break;
    case KC_F32: ((float *)data)[i] = (float)x; break;
    case KC_F16: ((uint16_t *)data)[i] = kc_double_to_f16(x); break;
    case KC_BF16: ((uint16_t *)data)[i] = kc_double_to_bf16(x); break;
    case KC_E4M3: ((uint8_t *)data)[i] = kc_double_to_e4m3(x); break;
    default: break;
    }
}

/* Runs of -inf with lengths 1..256, alternating with runs of normal values
 * of the same length law: about half the elements are masked. E4M3 has no
 * -inf and stores -448 (saturation). */
INLINE void fill_masked(kc_dtype t, void *data, size_t n, uint64_t s[4]) {
    nstream ns = { s, 0.0, 0 };
    uint64_t r = next(s);
    int masked = (int)(r & 1);
    size_t left = 1 + ((r >> 8) & 255);
    for (size_t i = 0; i < n; i++) {
        if (left == 0) {
            masked = !masked;
            left = 1 + ((next(s) >> 8) & 255);
        }
        left--;
        put(t, data, i, masked ? -INFINITY : nnext(&ns));
    }
}

INLINE void fill_float(kc_dtype t, kc_dist dist, void *data, size_t n, uint64_t s[4]) {
    nstream ns = { s, 0.0, 0 };
    double half = large_scale(t) / 2;
    switch (dist) {
    case KC_UNIFORM:
        for (size_t i = 0; i < n; i++)
            put(t, data, i, 2.0 * unit53(next(s)) - 1.0);
        break;
    case KC_LARGE:
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next(s);
            double m = half + half * unit53(r);          /* [L/2, L) */
            put(t, data, i, (r & 3) == 0 ? -m : m);      /* negative with p = 1/4 */
        }
        break;
    case KC_ZEROS_MIXED:
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next(s);
            if (r & 1) put(t, data, i, (r & 2) ? -0.0 : 0.0);
            else put(t, data, i, nnext(&ns));
        }
        break;
    case KC_SPECIALS:
        for (size_t i = 0; i < n; i++) {
            uint64_t k = ((next(s) >> 32) * 100) >> 32;  /* 0..99 */
            double x = k == 0 ? INFINITY : k == 1 ? -INFINITY : k == 2 ? NAN : nnext(&ns);
            put(t, data, i, x);                          /* E4M3: +-inf saturate to +-448 */
        }
        break;
    case KC_MASKED:
        fill_masked(t, data, n, s);
        break;
    case KC_NORMAL:
    default:
        for (size_t i = 0; i + 1 < n; i += 2) {
            double b, a = normal_pair(s, &b);
            put(t, data, i, a);
            put(t, data, i + 1, b);
        }
        if (n & 1) put(t, data, n - 1, nnext(&ns));
        break;
    }
}

/* Integers, whatever the distribution: uniform in [lo, hi]. */
#define FILL_INT(T, lo, hi) do { \
        T *p_ = g->data; \
        uint64_t range_ = (uint64_t)((int64_t)(hi) - (int64_t)(lo)) + 1; \
        for (size_t i_ = 0; i_ < g->count; i_++) \
            p_[i_] = (T)((int64_t)(lo) + (int64_t)below(s, range_)); \
    } while (0)

void kc_gen_default(kc_gen *g) {
    uint64_t s[4];
    memcpy(s, g->rng, sizeof s);   /* a local copy stays in registers */
    switch (g->dtype) {
    case KC_F64: fill_float(KC_F64, g->dist, g->data, g->count, s); break;
    case KC_F32: fill_float(KC_F32, g->dist, g->data, g->count, s); break;
    case KC_F16: fill_float(KC_F16, g->dist, g->data, g->count, s); break;
    case KC_BF16: fill_float(KC_BF16, g->dist, g->data, g->count, s); break;
    case KC_E4M3: fill_float(KC_E4M3, g->dist, g->data, g->count, s); break;
    case KC_I64: FILL_INT(int64_t, -1000, 1000); break;
    case KC_I32: FILL_INT(int32_t, -1000, 1000); break;
    case KC_U32: FILL_INT(uint32_t, 0, 1000); break;
    case KC_I8: FILL_INT(int8_t, -128, 127); break;
    case KC_U8: FILL_INT(uint8_t, 0, 255); break;
    default: break;
    }
    memcpy(g->rng, s, sizeof s);
}
