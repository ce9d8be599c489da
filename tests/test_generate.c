/* test_generate.c — the generator API: Philox4x32-10's published known
 * answers, determinism for a seed, difference across seeds, independence of
 * the thread count, pinned buffers (a change of the generators is noticed),
 * the documented properties of each distribution per dtype, and the kc_rand_*
 * helpers. The GPU's copy of the same streams is compared with these bit for
 * bit by the gpu.generator suite (suites/generator_suite.c) on a device. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "dtype.h"
#include "gen_stream.h"
#include "parallel.h"
#include "seed.h"

#define N 100000

static const kc_dtype FLOATS[] = { KC_F64, KC_F32, KC_F16, KC_BF16, KC_E4M3 };
static const kc_dtype ALL[] = { KC_F64, KC_F32, KC_F16, KC_BF16, KC_E4M3,
                                KC_I64, KC_I32, KC_U32, KC_I8, KC_U8, KC_I16, KC_U16, KC_U64 };
#define LEN(a) (sizeof (a) / sizeof (a)[0])

/* Fills a fresh buffer of n elements; the caller frees it. */
static void *fill(kc_dtype t, kc_dist d, size_t n, uint64_t seed) {
    kc_gen g;
    memset(&g, 0, sizeof g);
    void *buf = malloc(n * kc_dtype_size(t) + 1);
    cr_assert_not_null(buf);
    g.dtype = t;
    g.dist = d;
    g.data = buf;
    g.count = n;
    kc_gen_seed(&g, seed);
    kc_gen_default(&g);
    return buf;
}

static double large_l(kc_dtype t) { return t == KC_F16 ? 1024 : t == KC_E4M3 ? 256 : 0x1p20; }

/* The known-answer vectors of Random123's kat_vectors for philox4x32_10. */
Test(generate, philox_known_answers) {
    static const uint32_t ctr[3][4] = { { 0, 0, 0, 0 }, { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff },
                                        { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 } };
    static const uint64_t key[3] = { 0, 0xffffffffffffffffULL, 0x299f31d0a4093822ULL };
    static const uint32_t want[3][4] = { { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
                                         { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
                                         { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } };
    for (int v = 0; v < 3; v++) {
        uint64_t i = ctr[v][0] | (uint64_t)ctr[v][1] << 32;
        philox4x32_ctr_t r = kc_stream_draw(key[v], i, ctr[v][2], ctr[v][3]);
        for (int w = 0; w < 4; w++) cr_assert_eq(r.v[w], want[v][w], "vector %d word %d: %08x", v, w, r.v[w]);
    }
}

/* Element i depends on the key and i only: the same buffer on 1 and 7
 * threads, and element by element through kc_stream_put. */
Test(generate, elements_independent_of_threads) {
    size_t n = 300007;
    for (size_t t = 0; t < LEN(ALL); t++)
        for (kc_dist d = KC_UNIFORM; d < KC_DIST_COUNT; d++) {
            size_t sz = n * kc_dtype_size(ALL[t]);
            kc_parallel_set_threads(1);
            void *a = fill(ALL[t], d, n, 5);
            kc_parallel_set_threads(7);
            void *b = fill(ALL[t], d, n, 5);
            cr_assert_eq(memcmp(a, b, sz), 0, "%s %s", kc_dtype_name(ALL[t]), kc_dist_name(d));
            char *c = calloc(n, kc_dtype_size(ALL[t]));
            cr_assert_not_null(c);
            for (size_t i = 0, es = kc_dtype_size(ALL[t]); i < n; i += 9973) {
                kc_stream_put(ALL[t], d, 5, c, i);
                cr_assert_eq(memcmp(c + i * es, (char *)a + i * es, es), 0, "%s %s element %zu",
                             kc_dtype_name(ALL[t]), kc_dist_name(d), i);
            }
            free(a);
            free(c);
            free(b);
        }
}

/* Boundary distributions whose floating values do not depend on the seed. */
static int seedless(kc_dtype t, kc_dist d)
{
    return kc_dtype_is_float(t) && (d == KC_ZEROS || d == KC_NEG_INF || d == KC_NAN);
}

Test(generate, deterministic_for_a_seed_and_different_across_seeds) {
    for (size_t t = 0; t < LEN(ALL); t++) {
        for (kc_dist d = KC_UNIFORM; d < KC_DIST_COUNT; d++) {
            size_t sz = 4097 * kc_dtype_size(ALL[t]);
            void *a = fill(ALL[t], d, 4097, 99), *b = fill(ALL[t], d, 4097, 99);
            void *c = fill(ALL[t], d, 4097, 100);
            cr_assert_eq(memcmp(a, b, sz), 0, "%s %s", kc_dtype_name(ALL[t]), kc_dist_name(d));
            if (!seedless(ALL[t], d))
                cr_assert_neq(memcmp(a, c, sz), 0, "%s %s", kc_dtype_name(ALL[t]), kc_dist_name(d));
            free(a); free(b); free(c);
        }
    }
}

Test(generate, pinned_buffers) {
    float *u = fill(KC_F32, KC_UNIFORM, 1000, 42);
    cr_assert_eq(kc_fnv1a64(u, 1000 * 4, KC_FNV_OFFSET), 0xb85f1eb1b230bf75ULL);
    uint16_t *l = fill(KC_F16, KC_LARGE, 1000, 42);
    cr_assert_eq(kc_fnv1a64(l, 1000 * 2, KC_FNV_OFFSET), 0x1cabce76b5187c8fULL);
    int32_t *i = fill(KC_I32, KC_NORMAL, 1000, 42);
    cr_assert_eq(kc_fnv1a64(i, 1000 * 4, KC_FNV_OFFSET), 0x89fae06cf9a2fd00ULL);
    free(u); free(l); free(i);
}

Test(generate, uniform_range_and_mean) {
    for (size_t t = 0; t < LEN(FLOATS); t++) {
        void *b = fill(FLOATS[t], KC_UNIFORM, N, 1);
        double sum = 0;
        for (size_t i = 0; i < N; i++) {
            double x = kc_load(FLOATS[t], b, i);
            cr_assert(x >= -1.0 && x <= 1.0, "%s %g", kc_dtype_name(FLOATS[t]), x);
            sum += x;
        }
        cr_assert(fabs(sum / N) < 0.02, "%s mean %g", kc_dtype_name(FLOATS[t]), sum / N);
        free(b);
    }
}

Test(generate, normal_moments) {
    for (size_t t = 0; t < LEN(FLOATS); t++) {
        size_t n = N + 1;   /* odd: the last element comes from a fresh pair */
        void *b = fill(FLOATS[t], KC_NORMAL, n, 2);
        double sum = 0, sq = 0;
        size_t over3 = 0;
        for (size_t i = 0; i < n; i++) {
            double x = kc_load(FLOATS[t], b, i);
            cr_assert(isfinite(x));
            sum += x;
            sq += x * x;
            over3 += fabs(x) > 3;
        }
        double mean = sum / n, var = sq / n - mean * mean;
        cr_assert(fabs(mean) < 0.02, "%s mean %g", kc_dtype_name(FLOATS[t]), mean);
        cr_assert(fabs(var - 1) < 0.05, "%s var %g", kc_dtype_name(FLOATS[t]), var);
        cr_assert(over3 > 100 && over3 < 500, "%s tails %zu", kc_dtype_name(FLOATS[t]), over3);
        free(b);
    }
}

Test(generate, large_magnitudes_and_sign_balance) {
    for (size_t t = 0; t < LEN(FLOATS); t++) {
        double L = large_l(FLOATS[t]);
        void *b = fill(FLOATS[t], KC_LARGE, N, 3);
        size_t neg = 0;
        for (size_t i = 0; i < N; i++) {
            double x = kc_load(FLOATS[t], b, i);
            cr_assert(fabs(x) >= L / 2 && fabs(x) <= L, "%s %g", kc_dtype_name(FLOATS[t]), x);
            neg += x < 0;
        }
        cr_assert(neg > N * 0.23 && neg < N * 0.27, "%s negatives %zu", kc_dtype_name(FLOATS[t]), neg);
        free(b);
    }
}

Test(generate, zeros_mixed_half_signed_zeros) {
    for (size_t t = 0; t < LEN(FLOATS); t++) {
        void *b = fill(FLOATS[t], KC_ZEROS_MIXED, N, 4);
        size_t pz = 0, nz = 0;
        for (size_t i = 0; i < N; i++) {
            double x = kc_load(FLOATS[t], b, i);
            cr_assert(isfinite(x));
            if (x == 0 && signbit(x)) nz++;
            else if (x == 0) pz++;
        }
        cr_assert(pz + nz > N * 0.48 && pz + nz < N * 0.52, "%s zeros %zu", kc_dtype_name(FLOATS[t]), pz + nz);
        cr_assert(pz > N * 0.23 && nz > N * 0.23, "%s +0 %zu -0 %zu", kc_dtype_name(FLOATS[t]), pz, nz);
        free(b);
    }
}

Test(generate, specials_have_inf_and_nan) {
    for (size_t t = 0; t < LEN(FLOATS); t++) {
        kc_dtype dt = FLOATS[t];
        void *b = fill(dt, KC_SPECIALS, N, 5);
        size_t pinf = 0, ninf = 0, nan = 0, finite = 0;
        /* E4M3 has no inf: +-448 stand in for them. */
        double top = dt == KC_E4M3 ? 448.0 : INFINITY;
        for (size_t i = 0; i < N; i++) {
            double x = kc_load(dt, b, i);
            if (isnan(x)) nan++;
            else if (x == top) pinf++;
            else if (x == -top) ninf++;
            else finite++;
        }
        cr_assert(pinf > N * 0.007 && pinf < N * 0.013, "%s +inf %zu", kc_dtype_name(dt), pinf);
        cr_assert(ninf > N * 0.007 && ninf < N * 0.013, "%s -inf %zu", kc_dtype_name(dt), ninf);
        cr_assert(nan > N * 0.007 && nan < N * 0.013, "%s nan %zu", kc_dtype_name(dt), nan);
        cr_assert(finite > N * 0.96);
        free(b);
    }
}

Test(generate, masked_runs_of_minus_inf) {
    for (size_t t = 0; t < LEN(FLOATS); t++) {
        kc_dtype dt = FLOATS[t];
        if (dt == KC_E4M3) continue;   /* no -inf: stored as -448 */
        void *b = fill(dt, KC_MASKED, N, 6);
        size_t masked = 0, run = 0, longest = 0, runs = 0;
        for (size_t i = 0; i < N; i++) {
            double x = kc_load(dt, b, i);
            if (x == -INFINITY) {
                masked++;
                if (run++ == 0) runs++;
                if (run > longest) longest = run;
            } else {
                cr_assert(isfinite(x));
                run = 0;
            }
        }
        cr_assert(masked > N * 0.4 && masked < N * 0.6, "%s masked %zu", kc_dtype_name(dt), masked);
        cr_assert(longest <= 512 && longest > 256, "%s longest %zu", kc_dtype_name(dt), longest);
        cr_assert(runs > 200, "%s runs %zu", kc_dtype_name(dt), runs);
        free(b);
    }
    uint8_t *e = fill(KC_E4M3, KC_MASKED, N, 6);
    size_t m = 0;
    for (size_t i = 0; i < N; i++) m += e[i] == 0xfe;
    cr_assert(m > N * 0.4 && m < N * 0.6);
    free(e);
}

Test(generate, integers_uniform_in_range) {
    struct { kc_dtype t; double lo, hi; } cases[] = {
        { KC_I64, -1000, 1000 }, { KC_I32, -1000, 1000 }, { KC_U32, 0, 1000 },
        { KC_I8, -128, 127 }, { KC_U8, 0, 255 }, { KC_I16, -1000, 1000 }, { KC_U16, 0, 1000 },
        { KC_U64, 0, 1000 },
    };
    for (size_t c = 0; c < LEN(cases); c++) {
        for (kc_dist d = KC_UNIFORM; d < KC_DIST_COUNT; d++) {
            if (d == KC_INT_EXTREMES) continue;   /* its own test below */
            void *b = fill(cases[c].t, d, N, 7);
            double mn = INFINITY, mx = -INFINITY, sum = 0;
            for (size_t i = 0; i < N; i++) {
                double x = kc_load(cases[c].t, b, i);
                mn = fmin(mn, x);
                mx = fmax(mx, x);
                sum += x;
            }
            cr_assert_eq(mn, cases[c].lo, "%s", kc_dtype_name(cases[c].t));
            cr_assert_eq(mx, cases[c].hi, "%s", kc_dtype_name(cases[c].t));
            double mid = (cases[c].lo + cases[c].hi) / 2, span = cases[c].hi - cases[c].lo;
            cr_assert(fabs(sum / N - mid) < span * 0.01);
            free(b);
        }
    }
}

Test(generate, rand_helpers) {
    kc_gen g;
    memset(&g, 0, sizeof g);
    kc_gen_seed(&g, 11);
    int seen[7] = { 0 };
    for (int i = 0; i < 10000; i++) {
        int64_t v = kc_rand_int(&g, -3, 3);
        cr_assert(v >= -3 && v <= 3);
        seen[v + 3]++;
        double u = kc_rand_uniform(&g, 2.0, 5.0);
        cr_assert(u >= 2.0 && u < 5.0);
    }
    for (int i = 0; i < 7; i++) cr_assert(seen[i] > 1200, "value %d seen %d times", i - 3, seen[i]);
    cr_assert_eq(kc_rand_int(&g, 5, 5), 5);
    (void)kc_rand_int(&g, INT64_MIN, INT64_MAX);   /* the full range does not divide by zero */
    /* kc_rand_normal is a pure function of the state: no cached value. */
    kc_gen h = g;
    double a = kc_rand_normal(&g), b = kc_rand_normal(&h);
    cr_assert_eq(a, b);
    cr_assert_eq(memcmp(g.rng, h.rng, sizeof g.rng), 0);
    cr_assert_neq(kc_rand_normal(&g), a);
}

Test(generate, put_rounds_like_store) {
    uint16_t h[2];
    kc_gen g;
    memset(&g, 0, sizeof g);
    g.dtype = KC_F16;
    g.data = h;
    g.count = 2;
    kc_gen_put(&g, 0, 1.0 + 3 * 0x1p-11);
    kc_gen_put(&g, 1, 1e6);
    cr_assert_eq(h[0], 0x3c02);
    cr_assert_eq(h[1], 0x7c00);
    int8_t c;
    g.dtype = KC_I8;
    g.data = &c;
    kc_gen_put(&g, 0, -1e6);
    cr_assert_eq(c, -128);
}

Test(generate, empty_and_tiny_buffers) {
    for (size_t t = 0; t < LEN(ALL); t++) {
        for (kc_dist d = KC_UNIFORM; d < KC_DIST_COUNT; d++) {
            unsigned char guard[32];
            memset(guard, 0x5a, sizeof guard);
            kc_gen g;
            memset(&g, 0, sizeof g);
            g.dtype = ALL[t];
            g.dist = d;
            g.data = guard;
            g.count = 0;
            kc_gen_seed(&g, 1);
            kc_gen_default(&g);
            cr_assert_eq(guard[0], 0x5a);
            g.count = 1;
            kc_gen_default(&g);
            cr_assert_eq(guard[kc_dtype_size(ALL[t])], 0x5a, "%s %s", kc_dtype_name(ALL[t]), kc_dist_name(d));
        }
    }
}

/* Normal draws use no libm (integer Irwin-Hall sum, one IEEE division), so
 * these values are the same on every machine and libc; a change of the
 * generator must change this test too. */
Test(generate, normal_values_pinned_without_libm) {
    kc_gen g = { 0 };
    kc_gen_seed(&g, 42);
    const double want[4] = { -1.1597572867826189, 0.90560282827240846, -0.42867834628353491, 1.1959782284337648 };
    for (int i = 0; i < 4; i++) cr_expect_eq(kc_rand_normal(&g), want[i], "draw %d", i);
}

/* A ranged stream (kc_arg.range) covers exactly [lo, hi] for integers and
 * stays in [lo, hi) for floats, whatever the distribution; it is a pure
 * function of the key and i like the others. */
Test(generate, ranged_streams_stay_in_their_range) {
    size_t n = 200000;
    int32_t *iv = malloc(n * 4);
    uint8_t *bv = malloc(n);
    float *fv = malloc(n * 4);
    cr_assert(iv && bv && fv);
    int seen[16] = { 0 };
    for (size_t i = 0; i < n; i++) {
        kc_stream_put_range(KC_I32, 9, iv, i, 3, 777);
        kc_stream_put_range(KC_U8, 9, bv, i, 0, 15);
        kc_stream_put_range(KC_F32, 9, fv, i, 0.25, 2.0);
        cr_assert(iv[i] >= 3 && iv[i] <= 777, "element %zu: %d", i, iv[i]);
        cr_assert(bv[i] <= 15, "element %zu: %u", i, bv[i]);
        cr_assert(fv[i] >= 0.25f && fv[i] <= 2.0f, "element %zu: %g", i, fv[i]);
        seen[bv[i]]++;
    }
    for (int v = 0; v < 16; v++) cr_expect(seen[v] > (int)(n / 16 * 0.9), "value %d seen %d times", v, seen[v]);
    int lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) { lo |= iv[i] == 3; hi |= iv[i] == 777; }
    cr_expect(lo && hi, "both ends of [3, 777] drawn");
    /* [lo, hi) for floats: a value that rounds up to hi is kept below it */
    cr_expect_eq(kc_stream_prev(1.0), 0x1.fffffffffffffp-1);
    cr_expect_eq(kc_stream_prev(-1.0), -0x1.0000000000001p+0);
    cr_expect(kc_stream_prev(0.0) < 0);
    free(iv);
    free(bv);
    free(fv);
}

/* The boundary distributions: ZEROS all +0, CONSTANT one value, NEG_INF all
 * -inf (E4M3 -448), NAN all NaN, DENORMAL only subnormals of the dtype (both
 * signs), INT_EXTREMES the dtype's ends and both sides of 2^24. */
Test(generate, boundary_distributions) {
    size_t n = 20000;
    for (size_t t = 0; t < LEN(FLOATS); t++) {
        kc_dtype dt = FLOATS[t];
        int mbits, emin;
        kc_cvt_float_params(dt, &mbits, &emin);
        double smallest_normal = ldexp(1.0, emin);
        void *z = fill(dt, KC_ZEROS, n, 1), *c = fill(dt, KC_CONSTANT, n, 1), *ni = fill(dt, KC_NEG_INF, n, 1);
        void *na = fill(dt, KC_NAN, n, 1), *de = fill(dt, KC_DENORMAL, n, 1);
        double c0 = kc_load(dt, c, 0);
        int neg = 0, pos = 0;
        for (size_t i = 0; i < n; i++) {
            double zi = kc_load(dt, z, i), di = kc_load(dt, de, i);
            cr_assert(zi == 0 && !signbit(zi), "%s zeros[%zu] %g", kc_dtype_name(dt), i, zi);
            cr_assert_eq(kc_load(dt, c, i), c0, "%s constant[%zu]", kc_dtype_name(dt), i);
            cr_assert_eq(kc_load(dt, ni, i), dt == KC_E4M3 ? -448.0 : -INFINITY, "%s neg_inf[%zu]", kc_dtype_name(dt), i);
            cr_assert(isnan(kc_load(dt, na, i)), "%s nan[%zu]", kc_dtype_name(dt), i);
            cr_assert(di != 0 && fabs(di) < smallest_normal, "%s denormal[%zu] = %g", kc_dtype_name(dt), i, di);
            neg += di < 0;
            pos += di > 0;
        }
        cr_expect(c0 != 0 && isfinite(c0), "%s constant %g", kc_dtype_name(dt), c0);
        cr_expect(neg > (int)n / 3 && pos > (int)n / 3, "%s denormal signs %d/%d", kc_dtype_name(dt), neg, pos);
        free(z); free(c); free(ni); free(na); free(de);
    }
    int32_t *i32 = fill(KC_I32, KC_INT_EXTREMES, n, 2);
    int seen_min = 0, seen_max = 0, seen_2p24 = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t v = i32[i];
        cr_assert(v == INT32_MIN || v == INT32_MIN + 1 || v == -16777217 || v == -1 || v == 0 || v == 1 ||
                  v == 16777217 || v == INT32_MAX - 1 || v == INT32_MAX, "i32 int_extremes[%zu] = %d", i, v);
        seen_min |= v == INT32_MIN;
        seen_max |= v == INT32_MAX;
        seen_2p24 |= v == 16777217;
    }
    cr_expect(seen_min && seen_max && seen_2p24);
    uint8_t *u8 = fill(KC_U8, KC_INT_EXTREMES, n, 2);
    for (size_t i = 0; i < n; i++) cr_assert(u8[i] <= 1 || u8[i] >= 254, "u8 int_extremes[%zu] = %u", i, u8[i]);
    int16_t *i16 = fill(KC_I16, KC_INT_EXTREMES, n, 2);
    int seen16 = 0;
    for (size_t i = 0; i < n; i++) {
        int16_t v = i16[i];
        cr_assert(v == INT16_MIN || v == INT16_MIN + 1 || v == -1 || v == 0 || v == 1 || v == INT16_MAX - 1 ||
                  v == INT16_MAX, "i16 int_extremes[%zu] = %d", i, v);
        seen16 |= v == INT16_MIN;
    }
    cr_expect(seen16);
    uint64_t *u64 = fill(KC_U64, KC_INT_EXTREMES, n, 2);
    int seen64 = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = u64[i];
        cr_assert(v <= 1 || v == 16777217 || v == UINT64_MAX, "u64 int_extremes[%zu] = %llu", i,
                  (unsigned long long)v);
        seen64 |= v == UINT64_MAX;
    }
    cr_expect(seen64);
    free(i32);
    free(u8);
    free(i16);
    free(u64);
}

/* ---- kc_gen_rows ---------------------------------------------------------- */

#define ROWS 257
#define COLS 1031

/* Row r: COLS normals; row 0 draws `extra` more first (the_rows test). */
static int extra;
static void row_normals(kc_gen *g, size_t r)
{
    if (r == 0)
        for (int i = 0; i < extra; i++) (void)kc_rand_u64(g);
    for (size_t j = 0; j < COLS; j++) kc_gen_put(g, r * COLS + j, kc_rand_normal(g));
}
static void row_table(kc_gen *g, size_t r)
{
    for (size_t j = 0; j < COLS; j++) kc_gen_put(g, r * COLS + j, (double)(r * 3 + j));
}

/* g over n f32 elements at buf (NULL, 0: an empty buffer), seeded from seed. */
static void f32_gen(kc_gen *g, float *buf, size_t n, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->dtype = KC_F32;
    g->dist = KC_NORMAL;
    g->data = buf;
    g->count = n;
    kc_gen_seed(g, seed);
}

/* A fresh f32 buffer of ROWS x COLS by kc_gen_rows(row), from seed; *after
 * is g's kc_rand_* state afterwards. */
static float *rows_fill(void (*row)(kc_gen *, size_t), uint64_t seed, uint64_t after[4])
{
    kc_gen g;
    float *buf = calloc(ROWS * COLS, sizeof *buf);
    cr_assert_not_null(buf);
    f32_gen(&g, buf, ROWS * COLS, seed);
    kc_gen_rows(&g, ROWS, row);
    memcpy(after, g.rng, sizeof g.rng);
    return buf;
}

Test(generate, rows_are_the_same_on_any_thread_count_and_each_its_own_stream) {
    uint64_t s1[4], s7[4], s0[4];
    extra = 0;
    kc_parallel_set_threads(1);
    float *a = rows_fill(row_normals, 5, s1);
    kc_parallel_set_threads(7);
    float *b = rows_fill(row_normals, 5, s7);
    cr_assert_eq(memcmp(a, b, ROWS * COLS * sizeof *a), 0, "kc_gen_rows gave other bits on 7 threads than on 1");
    cr_assert_eq(memcmp(s1, s7, sizeof s1), 0);
    /* Row 0 drawing more leaves every other row as it was. */
    extra = 3;
    float *c = rows_fill(row_normals, 5, s0);
    cr_assert_neq(memcmp(a, c, COLS * sizeof *a), 0, "row 0 did not change when it drew more");
    cr_assert_eq(memcmp(a + COLS, c + COLS, (ROWS - 1) * COLS * sizeof *a), 0, "another row's draws moved rows 1..");
    /* Rows differ from one another, and from another seed's. */
    cr_assert_neq(memcmp(a + COLS, a + 2 * COLS, COLS * sizeof *a), 0, "rows 1 and 2 hold the same values");
    float *d = rows_fill(row_normals, 6, s0);
    cr_assert_neq(memcmp(a + COLS, d + COLS, COLS * sizeof *a), 0, "seeds 5 and 6 gave the same row 1");
    double sum = 0, sq = 0;
    for (size_t i = 0; i < ROWS * COLS; i++) sum += a[i], sq += (double)a[i] * a[i];
    const double n = ROWS * COLS, mean = sum / n, var = sq / n - mean * mean;
    cr_assert(fabs(mean) < 0.01 && fabs(var - 1) < 0.02, "rows' normals: mean %g, variance %g", mean, var);
    free(a); free(b); free(c); free(d);
}

Test(generate, rows_that_draw_make_the_parent_draw_once_and_a_table_does_not) {
    uint64_t after[4];
    kc_gen fresh;
    f32_gen(&fresh, NULL, 0, 9);
    extra = 0;
    float *t = rows_fill(row_table, 9, after);
    cr_assert_eq(memcmp(after, fresh.rng, sizeof after), 0, "rows that drew nothing moved the parent's state");
    cr_assert_eq(t[5 * COLS + 7], 22.0f);
    float *a = rows_fill(row_normals, 9, after);
    (void)kc_rand_u64(&fresh);
    cr_assert_eq(memcmp(after, fresh.rng, sizeof after), 0, "rows that drew did not move the parent by one draw");
    free(t); free(a);
}

static void row_default(kc_gen *g, size_t r) { (void)r; kc_gen_default(g); }

Test(generate, default_on_a_row_aborts, .signal = SIGABRT) {
    uint64_t after[4];
    (void)rows_fill(row_default, 1, after);
}

static void row_nothing(kc_gen *g, size_t r) { (void)g; (void)r; }

Test(generate, no_rows_of_a_buffer_with_elements_aborts, .signal = SIGABRT) {
    float buf[4];
    kc_gen g;
    f32_gen(&g, buf, 4, 1);
    kc_gen_rows(&g, 0, row_nothing);
}

Test(generate, no_rows_of_an_empty_buffer_is_nothing_to_do) {
    kc_gen g, fresh;
    f32_gen(&g, NULL, 0, 1);
    f32_gen(&fresh, NULL, 0, 1);
    kc_gen_rows(&g, 0, row_nothing);
    cr_assert_eq(memcmp(g.rng, fresh.rng, sizeof g.rng), 0, "an empty buffer's rows drew");
}
