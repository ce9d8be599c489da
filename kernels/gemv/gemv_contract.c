/* gemv_contract.c — contracts for kernels/gemv/gemv.cu.
 *
 * y[m, n] = sum_k W[n, k] * x[m, k]: W row-major [N, K] and x [M, ldx] (row
 * stride ldx >= K, e.g. x rows taken from a wider activation buffer) in f16 or
 * bf16, f32 accumulation, y [M, N] in f32 (so the accuracy gate sees the
 * accumulation error itself, not a final half rounding).
 * Shape dims: d[0] M (batch rows of x, 1..8), d[1] N, d[2] K, d[3] ldx.
 * gemv.<t>: M = 1 (decode); gemv.batch.<t>: M = 2..8, some with ldx > K. */
#include <stdlib.h>
#include <stdint.h>
#include <math.h>
#include "kcontract.h"
#include "dtype.h"

enum { GV_Y = 0, GV_W = 1, GV_X = 2, GV_M = 3, GV_N = 4, GV_K = 5, GV_LDX = 6 };

static size_t gv_y_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1]); }
static size_t gv_w_count(const kc_shape *s) { return (size_t)(s->d[1] * s->d[2]); }
static size_t gv_x_count(const kc_shape *s) { return (size_t)((s->d[0] - 1) * s->d[3] + s->d[2]); }
static double gv_m(const kc_shape *s) { return (double)s->d[0]; }
static double gv_n(const kc_shape *s) { return (double)s->d[1]; }
static double gv_k(const kc_shape *s) { return (double)s->d[2]; }
static double gv_ldx(const kc_shape *s) { return (double)s->d[3]; }

/* 4 warps per block, one output row n per warp; grid = ceil(N/4) tiles. */
static void gemv_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[1] + 3) / 4); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 128; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* float64 reference. Both inputs are 16-bit types, decoded exactly through a
 * 65536-entry table (the same values kc_ref_in gives, but fast enough for the
 * 525M-term lm head); f16*f16 and bf16*bf16 products are exact in double.
 * Rows n of W (columns of y) are independent: chunks of them run on the
 * harness's threads (kc_parallel_for), each y element the same k-order sum.
 * Its CUDA twin gemv_ref (kernels/gemv/gemv_ref.cu, the default reference
 * grid) sums in the same order: bitwise equal. */
typedef struct gv_ref_job {
    const kc_ref *r;
    const double *tab;   /* 16-bit code -> value */
    const double *xd;    /* x decoded, [M, K] */
} gv_ref_job;

/* y[m][n] for every m and n in [begin, end). */
static void gemv_ref_rows(void *ctx, size_t begin, size_t end)
{
    const gv_ref_job *j = ctx;
    const kc_ref *r = j->r;
    const int64_t M = r->shape->d[0], N = r->shape->d[1], K = r->shape->d[2];
    const uint16_t *W = r->host[GV_W];
    double *wrow = malloc((size_t)K * sizeof *wrow);
    if (!wrow) abort();
    for (int64_t n = (int64_t)begin; n < (int64_t)end; n++) {
        const uint16_t *wr = W + n * K;
        for (int64_t k = 0; k < K; k++) wrow[k] = j->tab[wr[k]];
        for (int64_t m = 0; m < M; m++) {
            const double *xm = j->xd + m * K;
            double acc = 0;
            for (int64_t k = 0; k < K; k++) acc += wrow[k] * xm[k];
            r->out[GV_Y][m * N + n] = acc;
        }
    }
    free(wrow);
}

static void gemv_reference(const kc_ref *r)
{
    const int64_t M = r->shape->d[0], N = r->shape->d[1], K = r->shape->d[2], ldx = r->shape->d[3];
    const kc_dtype dt = r->dtype[GV_W];
    double *tab = malloc(65536 * sizeof *tab);
    double *xd = malloc((size_t)(M * K) * sizeof *xd);
    if (!tab || !xd) abort();
    for (uint32_t h = 0; h < 65536; h++)
        tab[h] = dt == KC_F16 ? kc_f16_to_double((uint16_t)h) : kc_bf16_to_double((uint16_t)h);
    const uint16_t *X = r->host[GV_X];
    for (int64_t m = 0; m < M; m++)
        for (int64_t k = 0; k < K; k++) xd[m * K + k] = tab[X[m * ldx + k]];
    gv_ref_job j = { .r = r, .tab = tab, .xd = xd };
    /* rows of W per chunk: at least 2^18 decodes and multiply-adds */
    kc_parallel_for((size_t)N, (size_t)(262144 / ((M + 1) * K + 1)) + 1, gemv_ref_rows, &j);
    free(tab); free(xd);
}

static const kc_shape gemv_shapes[] = {
    { "llama3-8b.q_proj", KC_SHAPE_MODEL, { 1, 4096, 4096, 4096 } },
    { "llama3-8b.kv_proj", KC_SHAPE_MODEL, { 1, 1024, 4096, 4096 } },
    { "llama3-8b.up_proj", KC_SHAPE_MODEL, { 1, 14336, 4096, 4096 } },
    { "llama3-8b.down_proj", KC_SHAPE_MODEL, { 1, 4096, 14336, 14336 } },
    { "qwen2.5-7b.q_proj", KC_SHAPE_MODEL, { 1, 3584, 3584, 3584 } },
    { "qwen2.5-7b.kv_proj", KC_SHAPE_MODEL, { 1, 512, 3584, 3584 } },
    { "qwen2.5-7b.up_proj", KC_SHAPE_MODEL, { 1, 18944, 3584, 3584 } },
    { "qwen2.5-7b.down_proj", KC_SHAPE_MODEL, { 1, 3584, 18944, 18944 } },
    { "edge.n1.k1", KC_SHAPE_EDGE, { 1, 1, 1, 1 } },
    { "edge.n33.k31", KC_SHAPE_EDGE, { 1, 33, 31, 31 } },
    { "edge.n33.k33", KC_SHAPE_EDGE, { 1, 33, 33, 33 } },
    { "edge.n1.k1023", KC_SHAPE_EDGE, { 1, 1, 1023, 1023 } },
    { "edge.n33.k1023", KC_SHAPE_EDGE, { 1, 33, 1023, 1023 } },
    { "edge.n1023.k33", KC_SHAPE_EDGE, { 1, 1023, 33, 33 } },
    { "llama3-8b.lm_head", KC_SHAPE_LARGE, { 1, 128256, 4096, 4096 } },
    { 0 }
};

static const kc_shape gemv_batch_shapes[] = {
    { "llama3-8b.q_proj.m8", KC_SHAPE_MODEL, { 8, 4096, 4096, 4096 } },
    /* x = the first half of a fused gate_up activation row (stride 2*14336) */
    { "llama3-8b.down_proj.m4.ldx28672", KC_SHAPE_MODEL, { 4, 4096, 14336, 28672 } },
    { "qwen2.5-7b.up_proj.m3", KC_SHAPE_MODEL, { 3, 18944, 3584, 3584 } },
    { "qwen2.5-7b.kv_proj.m7.ldx4608", KC_SHAPE_MODEL, { 7, 512, 3584, 4608 } },
    { "edge.m2.n33.k33.ldx40", KC_SHAPE_EDGE, { 2, 33, 33, 40 } },
    { "edge.m5.n33.k31", KC_SHAPE_EDGE, { 5, 33, 31, 31 } },
    { "edge.m8.n1.k1023.ldx1024", KC_SHAPE_EDGE, { 8, 1, 1023, 1024 } },
    { "edge.m7.n1023.k1.ldx3", KC_SHAPE_EDGE, { 7, 1023, 1, 3 } },
    { "qwen2.5-7b.lm_head.m4", KC_SHAPE_LARGE, { 4, 152064, 3584, 3584 } },
    { 0 }
};

/* f32 accumulation: each lane sums K/32 fused products in sequence, then a
 * 5-level shuffle tree. With N(0,1) inputs and K = 18944 the partial sums reach
 * ~25 (lanes) / ~140 (tree), rounding errors ~2^-24 of those, random-signed:
 * typical |error| ~1e-4, observed max a few 1e-4 over all rows. The worst-case
 * bound log2(K) * 2^-24 * sum|w*x| is ~1e-2 at K = 18944; atol 4e-3 sits
 * between (about 10x the expected maximum) and still fails half-precision
 * accumulation (errors ~0.1 at K = 4096). */
#define GEMV_TOL ((kc_tol){ 1e-5, 4e-3, "f32 accumulation of K <= 18944 products of N(0,1) values: typical error ~1e-4 (sequential per-lane sums of K/32 terms + shuffle tree), worst-case log2(K)*2^-24*sum|w*x| ~1e-2; atol 4e-3" })
#define GEMV_BUDGET { .max_regs = 96, .max_smem = 0, .max_local = 0, .min_blocks_per_sm = 4 }
#define GEMV_CONTROLS_COMMON \
    { "skip_tail", 3, "scalar tail skipped: the last K % 8 elements of rows not ending on a 16-byte boundary are dropped (K = 31/33/1023)" }, \
    { "half_accum", 3, "dot product accumulated in half precision: loses bits as the partial sums grow (K >= 3584)" }, \
    { "tiles_floor", 2, "row-tile count rounded down (a grid one block short): the last N % 4 output rows are never written (N = 1, 33, 1023)" }

#define GEMV_CONTRACT(id_, name_, sym_, dt_, shapes_, ...) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "gemv", .symbol = sym_, \
    .dims = { "M", "N", "K", "ldx" }, \
    .args = { \
        KC_BUFFER("y", KC_F32, KC_OUT, gv_y_count), \
        KC_BUFFER("W", dt_, KC_IN, gv_w_count), \
        KC_BUFFER("x", dt_, KC_IN, gv_x_count), \
        KC_SCALAR("M", KC_I32, gv_m), \
        KC_SCALAR("N", KC_I32, gv_n), \
        KC_SCALAR("K", KC_I32, gv_k), \
        KC_SCALAR("ldx", KC_I64, gv_ldx), \
    }, \
    .launch = gemv_launch, .shapes = shapes_, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = gemv_reference, .tol = GEMV_TOL, .budget = GEMV_BUDGET, \
    .device_reference = { .module = "gemv_ref", .symbol = "gemv_ref" }, \
    .controls = { GEMV_CONTROLS_COMMON, __VA_ARGS__ }, \
}

#define GEMV_STRIDE_CONTROL { "x_stride_assumed_k", 3, "assumes x rows are contiguous (stride K) instead of ldx: batch rows m >= 1 read the wrong activations" }

GEMV_CONTRACT(gemv_f16, "gemv.f16", "gemv_f16", KC_F16, gemv_shapes, { 0 });
GEMV_CONTRACT(gemv_bf16, "gemv.bf16", "gemv_bf16", KC_BF16, gemv_shapes, { 0 });
GEMV_CONTRACT(gemv_batch_f16, "gemv.batch.f16", "gemv_f16", KC_F16, gemv_batch_shapes, GEMV_STRIDE_CONTROL);
GEMV_CONTRACT(gemv_batch_bf16, "gemv.batch.bf16", "gemv_bf16", KC_BF16, gemv_batch_shapes, GEMV_STRIDE_CONTROL);
