/* harness_suite.c — the harness's own GPU suites, checking on the device what
 * the host tests (tests/test_generate.c, test_tolerance.c, test_guard.c) pin
 * on the host: that the GPU computes the same thing.
 *   gpu.harness.streams.<dtype>  the device's built-in stream equals the
 *                        host's bit for bit, for every distribution and the
 *                        ranged stream, over 2^20 + 4099 elements (MASKED
 *                        segments, odd tails); one suite a dtype, so that the
 *                        work queue spreads them (issue 23: as one suite it
 *                        took 19.5 s under --jobs 8 on an H200 and bounded
 *                        the run's wall);
 *   gpu.harness.checks   the device checks (guard bytes, poison, bitwise
 *                        difference, gate 3's tolerance scan) give the same
 *                        counts, first indices and worst element as the
 *                        host scans, on buffers with planted faults, at sizes
 *                        of one block and of many. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "gen_stream.h"
#include "gpu.h"
#include "guard.h"
#include "harness.h"
#include "kcontract.h"
#include "seed.h"
#include "suite.h"
#include "tolerance.h"


static const kc_dtype ALL[] = { KC_F64, KC_F32, KC_F16, KC_BF16, KC_E4M3, KC_I64, KC_I32, KC_U32, KC_I8, KC_U8 };
#define NALL (sizeof ALL / sizeof ALL[0])

/* A device buffer of n bytes with its host twin, or a failure. */
typedef struct pair {
    CUdeviceptr d;
    unsigned char *h;
    size_t n;
} pair;

static int pair_alloc(kc_suite_ctx *ctx, kc_gpu *g, pair *p, size_t n)
{
    p->n = n;
    p->h = malloc(n ? n : 1);
    CUresult r = g->cu.MemAlloc(&p->d, n ? n : 1);
    if (!p->h || r != CUDA_SUCCESS) {
        free(p->h);
        p->h = NULL;
        return kc_suite_fail(ctx, "allocating %zu bytes failed: %s", n, kc_cuda_error_name(&g->cu, r));
    }
    return 0;
}

static void pair_free(kc_gpu *g, pair *p)
{
    if (p->d && !g->lost) g->cu.MemFree(p->d);
    free(p->h);
    memset(p, 0, sizeof *p);
}

static int upload(kc_suite_ctx *ctx, kc_gpu *g, pair *p)
{
    CUresult r = g->cu.MemcpyHtoD(p->d, p->h, p->n);
    return r == CUDA_SUCCESS ? 0 : kc_suite_fail(ctx, "upload failed: %s", kc_cuda_error_name(&g->cu, r));
}

/* The host's stream into host[begin, end), on the harness's threads
 * (element i depends on the key and i alone: gen_stream.h). */
typedef struct host_stream {
    kc_dtype dt;
    kc_dist d;
    int ranged;
    uint64_t key;
    kc_stream_range range;
    unsigned char *host;
} host_stream;

static void host_stream_chunk(void *ctx, size_t begin, size_t end)
{
    const host_stream *h = ctx;
    for (size_t i = begin; i < end; i++)
        if (h->ranged) kc_stream_put_range(h->dt, h->key, h->host, i, h->range.lo, h->range.hi);
        else kc_stream_put(h->dt, h->d, h->key, h->host, i);
}

/* The device's streams of dtype dt (one of ALL, whose index is in the keys)
 * against the host's, every distribution and the ranged stream: 0, or 1
 * with a failure naming the dtype, distribution, key, element and both
 * values. */
static int streams_of(kc_suite_ctx *ctx, kc_dtype dt)
{
    size_t t = 0;
    while (t < NALL && ALL[t] != dt) t++;
    if (t == NALL) return kc_suite_fail(ctx, "dtype %s is not among the stream suite's", kc_dtype_name(dt));
    kc_gpu *g = kc_suite_gpu(ctx);
    if (!g) return kc_suite_fail(ctx, "no GPU session");
    int failed = 0;
    /* Two passes of the fill's full grid (16 blocks an SM, grid-stride:
     * harness.c) and an off-tile tail, so every thread makes more than one
     * step: 1.08M elements on 132 SMs. */
    const size_t STREAM_N = (size_t)g->h->sm_count * 16 * KC_HARNESS_THREADS * 2 + 4099;
    for (kc_dist d = KC_UNIFORM; d <= KC_DIST_COUNT && !failed; d++) {   /* KC_DIST_COUNT: the ranged stream */
        size_t es = kc_dtype_size(ALL[t]), bytes = STREAM_N * es;
        uint64_t key = 0x9E3779B97F4A7C15ULL * (t + 1) + (uint64_t)d;
        pair p;
        if (pair_alloc(ctx, g, &p, bytes)) return 1;
        unsigned char *host = malloc(bytes);
        int ranged = d == KC_DIST_COUNT;
        kc_stream_range range = { ranged, kc_dtype_is_float(ALL[t]) ? -0.75 : 3, kc_dtype_is_float(ALL[t]) ? 2.5 : 99 };
        CUresult r = kc_dev_fill_stream(g, p.d, ALL[t], ranged ? KC_UNIFORM : d, key, STREAM_N, &range);
        if (r == CUDA_SUCCESS) r = g->cu.MemcpyDtoH(p.h, p.d, bytes);
        if (!host || r != CUDA_SUCCESS) {
            failed = kc_suite_fail(ctx, "%s %s: generating on the device failed: %s", kc_dtype_name(ALL[t]),
                                   ranged ? "ranged" : kc_dist_name(d), host ? kc_cuda_error_name(&g->cu, r) : "out of host memory");
        } else {
            host_stream hs = { ALL[t], d, ranged, key, range, host };
            kc_parallel_for(STREAM_N, (size_t)1 << 16, host_stream_chunk, &hs);   /* was 0.4-0.8 s a dtype on one thread */
            for (size_t i = 0; i < STREAM_N && !failed; i++)
                if (memcmp(host + i * es, p.h + i * es, es))
                    failed = kc_suite_fail(ctx, "%s %s key %016llx: element %zu is %.17g on the device, %.17g on the host (of %zu)",
                                           kc_dtype_name(ALL[t]), ranged ? "ranged" : kc_dist_name(d), (unsigned long long)key, i,
                                           kc_load(ALL[t], p.h, i), kc_load(ALL[t], host, i), STREAM_N);
        }
        free(host);
        pair_free(g, &p);
    }
    return failed;
}

/* One suite a dtype. */
KC_SUITE(suite_harness_streams_f64, "gpu.harness.streams.f64", 1) { return streams_of(ctx, KC_F64); }
KC_SUITE(suite_harness_streams_f32, "gpu.harness.streams.f32", 1) { return streams_of(ctx, KC_F32); }
KC_SUITE(suite_harness_streams_f16, "gpu.harness.streams.f16", 1) { return streams_of(ctx, KC_F16); }
KC_SUITE(suite_harness_streams_bf16, "gpu.harness.streams.bf16", 1) { return streams_of(ctx, KC_BF16); }
KC_SUITE(suite_harness_streams_e4m3, "gpu.harness.streams.e4m3", 1) { return streams_of(ctx, KC_E4M3); }
KC_SUITE(suite_harness_streams_i64, "gpu.harness.streams.i64", 1) { return streams_of(ctx, KC_I64); }
KC_SUITE(suite_harness_streams_i32, "gpu.harness.streams.i32", 1) { return streams_of(ctx, KC_I32); }
KC_SUITE(suite_harness_streams_u32, "gpu.harness.streams.u32", 1) { return streams_of(ctx, KC_U32); }
KC_SUITE(suite_harness_streams_i8, "gpu.harness.streams.i8", 1) { return streams_of(ctx, KC_I8); }
KC_SUITE(suite_harness_streams_u8, "gpu.harness.streams.u8", 1) { return streams_of(ctx, KC_U8); }

/* Counts n, first from the device against the host's; fails naming what. */
static int same_count(kc_suite_ctx *ctx, const char *what, size_t n, size_t dn, size_t hn, size_t df, size_t hf)
{
    if (dn == hn && df == hf) return 0;
    return kc_suite_fail(ctx, "%s over %zu elements: the device counts %zu (first %zu), the host %zu (first %zu)", what, n,
                         dn, df, hn, hf);
}

/* Elements [begin, end) of the checks' float64 reference (the normal stream
 * of key 7) and of the two f32 outputs rounded from it. */
typedef struct checks_init {
    double *ref;
    float *out, *other;
} checks_init;

static void checks_init_chunk(void *ctx, size_t begin, size_t end)
{
    const checks_init *c = ctx;
    for (size_t i = begin; i < end; i++) {
        c->ref[i] = kc_stream_float(KC_F64, KC_NORMAL, 7, i);
        c->out[i] = c->other[i] = (float)c->ref[i];
    }
}

/* One round of the checks over n elements of f32 output against a float64
 * reference, with faults planted at the given indices. */
static int checks_at(kc_suite_ctx *ctx, kc_gpu *g, size_t n)
{
    pair out, other, ref, guard;
    int failed = 0;
    if (pair_alloc(ctx, g, &out, n * 4) || pair_alloc(ctx, g, &other, n * 4) || pair_alloc(ctx, g, &ref, n * 8) ||
        pair_alloc(ctx, g, &guard, KC_GUARD_BYTES))
        return 1;
    float *o = (float *)out.h, *o2 = (float *)other.h;
    double *rf = (double *)ref.h;
    checks_init ci = { rf, o, o2 };
    kc_parallel_for(n, (size_t)1 << 16, checks_init_chunk, &ci);  /* 2^24 + 5 elements at the largest size */
    size_t plant[4] = { n / 3, n / 2, n - 1, n / 7 };
    for (int k = 0; k < 4 && n > 8; k++) o[plant[k]] = (float)(rf[plant[k]] * (1.0 + 0.01 * (k + 1)));
    if (n > 8) {
        o2[n / 4] = nextafterf(o2[n / 4], INFINITY);               /* one bit differs */
        memset(&o2[n / 6], 0xFF, 4);                               /* poison left */
    }
    memset(guard.h, KC_CANARY, KC_GUARD_BYTES);
    guard.h[777] = 0;
    guard.h[KC_GUARD_BYTES - 1] = 1;
    if (upload(ctx, g, &out) || upload(ctx, g, &other) || upload(ctx, g, &guard)) return 1;
    kc_tol tol = kc_tol_default(KC_F32);
    CUresult r = CUDA_SUCCESS;
    for (int round = 0; round < 2 && !failed; round++) {   /* finite errors only, then a NaN reference too */
        if (round && n > 8) rf[n / 5] = NAN;
        kc_compare dc, hc;
        if (upload(ctx, g, &ref)) return 1;
        r = kc_dev_compare(g, out.d, KC_F32, ref.d, n, tol, &dc);
        kc_compare_output(KC_F32, out.h, rf, n, tol, &hc);
        if (r != CUDA_SUCCESS) failed = kc_suite_fail(ctx, "kc_check_close failed: %s", kc_cuda_error_name(&g->cu, r));
        else if (dc.bad != hc.bad || dc.worst != hc.worst || memcmp(&dc.out, &hc.out, 8) || memcmp(&dc.ref, &hc.ref, 8) ||
                 memcmp(&dc.err, &hc.err, 8) || memcmp(&dc.allowed, &hc.allowed, 8))
            failed = kc_suite_fail(ctx, "tolerance scan over %zu elements: device %zu bad, worst [%zu] %.17g vs %.17g (err %.17g, allowed %.17g); host %zu bad, worst [%zu] %.17g vs %.17g (err %.17g, allowed %.17g)",
                                   n, dc.bad, dc.worst, dc.out, dc.ref, dc.err, dc.allowed, hc.bad, hc.worst, hc.out,
                                   hc.ref, hc.err, hc.allowed);
    }
    size_t dn = 0, df = 0, hn, hf;
    if (!failed && (r = kc_dev_count_differs(g, out.d, other.d, n, 4, &dn, &df)) == CUDA_SUCCESS) {
        hn = kc_bitwise_diff(out.h, other.h, n, 4, &hf);
        failed = same_count(ctx, "bitwise difference", n, dn, hn, df, hf);
    }
    if (!failed && (r = kc_dev_count_unwritten(g, other.d, 0, n, 4, 0xFF, 0, &dn, &df)) == CUDA_SUCCESS) {
        hn = kc_poison_count(other.h, n, 4, 0xFF, &hf);
        failed = same_count(ctx, "poison count", n, dn, hn, df, hf);
    }
    if (!failed && (r = kc_dev_count_unwritten(g, other.d, out.d, n, 4, 0xFF, 0xFF, &dn, &df)) == CUDA_SUCCESS) {
        hn = kc_poison_count2(other.h, out.h, n, 4, 0xFF, 0xFF, &hf);
        failed = same_count(ctx, "poison in two launches", n, dn, hn, df, hf);
    }
    if (!failed && (r = kc_dev_count_not(g, guard.d, KC_GUARD_BYTES, KC_CANARY, &dn, &df)) == CUDA_SUCCESS &&
        (df != 777 || dn != 2))
        failed = kc_suite_fail(ctx, "guard band: the device found %zu damaged bytes, first %zu; planted 2, first 777", dn, df);
    if (!failed && r != CUDA_SUCCESS) failed = kc_suite_fail(ctx, "a check kernel failed: %s", kc_cuda_error_name(&g->cu, r));
    pair_free(g, &out);
    pair_free(g, &other);
    pair_free(g, &ref);
    pair_free(g, &guard);
    return failed;
}

KC_SUITE(suite_harness_checks, "gpu.harness.checks", 1)
{
    kc_gpu *g = kc_suite_gpu(ctx);
    if (!g) return kc_suite_fail(ctx, "no GPU session");
    static const size_t sizes[] = { 1, 33, 2048, 100003, ((size_t)1 << 24) + 5 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (checks_at(ctx, g, sizes[i])) return 1;
    return 0;
}
