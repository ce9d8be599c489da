/* rmsnorm_contract.c — contracts for kernels/rmsnorm/rmsnorm.cu.
 *
 * rmsnorm.<t>:           out = x / sqrt(mean(x^2) + eps) * w     (x, w IN; out OUT)
 * fused_add_rmsnorm.<t>: vLLM's fused_add_rms_norm, in place on both buffers:
 *     residual <- T(float(x + residual))                          (INOUT)
 *     x        <- T(residual' / sqrt(mean(residual'^2) + eps) * w) (INOUT)
 *   residual' is the stored (rounded) residual: the output is exactly the
 *   rmsnorm of what the next layer's residual holds.
 * x, w, residual share one dtype (f32 / f16 / bf16); the sum of squares is f32.
 * Shape: d[0] tokens, d[1] hidden, d[2] = k with eps = 10^-k (5 for Llama 3,
 * 6 for Qwen2.5).
 *
 * Domain: the kernel squares in f32, so |x| must stay below ~1e19. LARGE is
 * generated here as |x| in [512, 1024] (positive with p = 3/4; the f16 L of the
 * built-in LARGE) for every dtype, so f32/bf16 LARGE stays in that domain. */
#include <math.h>
#include "kcontract.h"
#include "dtype.h"
#include "kcontract_rowfold.h"

/* LARGE (gen_on): row r of hidden (d1) elements, each uniform in [512, 1024)
 * in magnitude, positive with probability 3/4. */
static void rms_large_row(kc_gen *g, size_t r)
{
    const size_t hidden = (size_t)g->shape->d[1];
    for (size_t i = r * hidden; i < (r + 1) * hidden && i < g->count; i++) {
        double mag = kc_rand_uniform(g, 512.0, 1024.0);
        kc_gen_put(g, i, kc_rand_uniform(g, 0.0, 1.0) < 0.75 ? mag : -mag);
    }
}
static void rms_gen(kc_gen *g)
{
    const size_t hidden = (size_t)g->shape->d[1];
    kc_gen_rows(g, (g->count + hidden - 1) / hidden, rms_large_row);
}

static double rms_eps(const kc_shape *s) { return pow(10.0, -(double)s->d[2]); }

/* One block per token; threads = ceil(hidden/8) rounded up to a warp, in
 * [32, 1024]: 448 (Qwen 3584) and 640 (5120) are not powers of two. */
static int64_t rms_threads(const kc_shape *s)
{
    int64_t t = ((s->d[1] + 7) / 8 + 31) / 32 * 32;
    if (t < 32) t = 32;
    if (t > 1024) t = 1024;
    return t;
}
static void rms_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    const int64_t t = rms_threads(s);
    l->grid[0] = (unsigned)s->d[0]; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = (unsigned)t; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* The value the kernel stores for x + r: f32 add (RNE), then RNE to dtype t. */
static double rms_round(kc_dtype t, double v)
{
    v = (double)kc_double_to_f32(v);
    if (t == KC_F16) return kc_f16_to_double(kc_double_to_f16(v));
    if (t == KC_BF16) return kc_bf16_to_double(kc_double_to_bf16(v));
    return v;
}

enum { RN_OUT = 0, RN_X = 1, RN_W = 2, RN_EPS = 3 };

/* Tokens are independent: both references run chunks of at least 64K
 * elements on the harness's threads (kc_parallel_for; ctx the kc_ref). */
static void rms_parallel_rows(const kc_ref *r, void (*rows_fn)(void *ctx, size_t begin, size_t end))
{
    const int64_t tokens = r->shape->d[0], hidden = r->shape->d[1];
    kc_parallel_for((size_t)tokens, (size_t)(65536 / (hidden > 0 ? hidden : 1)) + 1, rows_fn, (void *)r);
}

/* Tokens [begin, end) of the rmsnorm reference. */
static void rmsnorm_rows(void *ctx, size_t begin, size_t end)
{
    const kc_ref *r = ctx;
    const int64_t hidden = r->shape->d[1];
    const double eps = r->scalar[RN_EPS];
    for (int64_t t = (int64_t)begin; t < (int64_t)end; t++) {
        size_t base = (size_t)(t * hidden);
        double ss = 0;
        for (int64_t j = 0; j < hidden; j++) {
            double v = kc_ref_in(r, RN_X, base + (size_t)j);
            ss += v * v;
        }
        double rinv = 1.0 / sqrt(ss / (double)hidden + eps);
        for (int64_t j = 0; j < hidden; j++)
            r->out[RN_OUT][base + (size_t)j] =
                kc_ref_in(r, RN_X, base + (size_t)j) * rinv * kc_ref_in(r, RN_W, (size_t)j);
    }
}

static void rmsnorm_reference(const kc_ref *r) { rms_parallel_rows(r, rmsnorm_rows); }

enum { FR_X = 0, FR_RES = 1, FR_W = 2, FR_EPS = 3 };

/* Tokens [begin, end) of the fused add + rmsnorm reference. */
static void fused_add_rmsnorm_rows(void *ctx, size_t begin, size_t end)
{
    const kc_ref *r = ctx;
    const int64_t hidden = r->shape->d[1];
    const double eps = r->scalar[FR_EPS];
    const kc_dtype dt = r->dtype[FR_X];
    double *y = r->out[FR_X], *res = r->out[FR_RES];
    for (int64_t t = (int64_t)begin; t < (int64_t)end; t++) {
        size_t base = (size_t)(t * hidden);
        double ss = 0;
        for (int64_t j = 0; j < hidden; j++) {
            size_t i = base + (size_t)j;
            double z = rms_round(dt, kc_ref_in(r, FR_X, i) + kc_ref_in(r, FR_RES, i));
            res[i] = z;
            ss += z * z;
        }
        double rinv = 1.0 / sqrt(ss / (double)hidden + eps);
        for (int64_t j = 0; j < hidden; j++) {
            size_t i = base + (size_t)j;
            y[i] = res[i] * rinv * kc_ref_in(r, FR_W, (size_t)j);
        }
    }
}

static void fused_add_rmsnorm_reference(const kc_ref *r) { rms_parallel_rows(r, fused_add_rmsnorm_rows); }

/* Both device references (rmsnorm_ref.cu: rmsnorm_ref, fused_add_rmsnorm_ref)
 * do the same float64 arithmetic, one lane walking each token in the host's
 * order: bitwise. */
static void rms_ref_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    kc_rowfold_launch(s->d[0], dev, l);
}

static const kc_shape rms_shapes[] = {
    { "llama3-8b.hidden.t1", KC_SHAPE_MODEL, { 1, 4096, 5 } },
    { "llama3-8b.hidden.t7", KC_SHAPE_MODEL, { 7, 4096, 5 } },
    { "llama3-8b.hidden.t128", KC_SHAPE_MODEL, { 128, 4096, 5 } },
    { "qwen2.5-7b.hidden.t7", KC_SHAPE_MODEL, { 7, 3584, 6 } },      /* 448 threads */
    { "qwen2.5-7b.hidden.t128", KC_SHAPE_MODEL, { 128, 3584, 6 } },  /* 448 threads */
    { "edge.t3.h1", KC_SHAPE_EDGE, { 3, 1, 5 } },
    { "edge.t7.h31", KC_SHAPE_EDGE, { 7, 31, 5 } },
    { "edge.t33.h33", KC_SHAPE_EDGE, { 33, 33, 6 } },
    { "edge.t5.h1023", KC_SHAPE_EDGE, { 5, 1023, 5 } },
    { "edge.t33.h768", KC_SHAPE_EDGE, { 33, 768, 6 } },              /* 96 threads */
    { "edge.t3.h5120", KC_SHAPE_EDGE, { 3, 5120, 5 } },              /* 640 threads */
    { "large.t16384.h4096", KC_SHAPE_LARGE, { 16384, 4096, 5 } },
    { 0 }
};

#define RMS_CONTROLS_COMMON \
    { "half_accum", 3, "sum of squares accumulated in half precision: overflows to inf on LARGE inputs (x^2 > 65504), output 0" }, \
    { "pow2_reduce", 3, "block reduction tree over warp partials assumes a power-of-two warp count: drops partials with 448/640/96-thread blocks" }, \
    { "missing_sync_partials", 3, "missing __syncthreads between warps writing their partial sums to shared memory and warp 0 reading them (poisoned or stale slots)" }

/* rmsnorm.<t> only (planted in rmsnorm_row; fused_add_rmsnorm reads its row
 * with its own loop). The last token's row ends at x's end only there; on
 * shapes with hidden % 8 == 0 nothing is read past a row. */
#define RMS_CONTROL_TAIL_OVERREAD \
    { "vector_tail_overread", 3, "the sum of squares walks hidden rounded up to 8 and masks the lanes past the row by " \
      "multiplying them by 0: on hidden 1, 31, 33, 1023 the last token reads up to 7 elements past the end of x. Under " \
      "the old guard byte 0xCB those are finite (f16 -15.6, bf16/f32 ~-2.7e7) and 0 x finite = 0, so the outputs were " \
      "exact and gates 1-4 passed; the read canary 0xFF is NaN and 0 x NaN = NaN: the last token's outputs are NaN " \
      "where the reference is finite (gate 3, every distribution)" }

/* f16 only: bf16 and f32 subnormals square to 0 in f32 and their outputs
 * (~1e-36) stay under atol whatever rinv is. Host emulation of rmsnorm.f16:
 * every random distribution and shape passes (worst err/allowed 0.49; the
 * UNIFORM rows' mean e*sign(ref) moves from -0.001 to +0.021 ulp, allowed
 * 0.034 at t128), DENORMAL fails on every model shape (half the elements,
 * worst err/allowed ~6-9). */
#define RMS_CONTROL_EPS_PER_SUM \
    { "eps_per_sum", 3, "eps added to the sum of squares before the division by hidden (rsqrt((sum + eps) / hidden)): " \
      "the effective epsilon is eps / hidden. Random rows have mean squares >> eps (rinv moves <= 1.5e-5 relative, " \
      "hidden 1 not at all): within tolerance and the error model; f16 DENORMAL rows (mean square ~1.2e-9 << eps) " \
      "get rinv ~16000 instead of ~316, outputs 25-50x too large: only the boundary distribution reaches it (gate 3)" }

#define RMS_TOL_F32 ((kc_tol){ 4e-6, 1e-5, "f32 sum of up to 4096 squares (up to 18 sequential per thread, then 2 shuffle trees) plus rsqrtf (2 ulp): relative error up to ~3e-6, above the default 1.3e-6" })

/* The depth of rmsnorm_row's sum of squares (rmsnorm.cu): each of
 * rms_threads' threads adds ceil(hidden / threads) squares with fmaf (one
 * rounding each), then block_sum's two 5-level butterflies (the warp's
 * lanes, then the warps' slots). */
static int64_t rms_depth(const kc_shape *s)
{
    const int64_t t = rms_threads(s);
    return (s->d[1] + t - 1) / t + 10;
}

/* rmsnorm.f32's bound, derived (kcontract.h, kc_arith): the squares are of
 * one sign, so the error is relative to |ref| (Higham §4.2: gamma_depth on
 * the sum), and after the sum 9 more relative roundings in f32: eps stored
 * as f32, / hidden, + eps (two positives), rsqrtf (2 ulp: 4 u, as 4
 * roundings), x * rinv, * w; the square root halves the sum's relative
 * error, counted whole. n = 8 + 10 + 9 = 27 at hidden 4096 (512 threads):
 * rtol 1.6e-6, tighter than the hand-set 4e-6 it replaced and sound.
 * tests/test_control_margins.c emulates the kernel's order against it and
 * its controls outside it. */
#define RMS_ARITH_F32 ((kc_arith){ .acc = KC_F32, .terms_dim = "hidden", .depth = rms_depth, .roundings = 9 })
#define RMS_ARITH_NONE ((kc_arith){ 0 })
#define RMS_TOL_DEFAULT ((kc_tol){ 0, 0, 0 })
#define RMS_BUDGET { .max_regs = 32, .max_smem = 512, .max_local = 0, .min_blocks_per_sm = 2 }

#define RMSNORM_CONTRACT(id_, name_, sym_, dt_, tol_, arith_, ...) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "rmsnorm", .symbol = sym_, \
    .dims = { "tokens", "hidden", "eps_exp10" }, \
    .args = { \
        KC_BUFFER("out", dt_, KC_OUT, kc_count_d0d1), \
        KC_BUFFER_GEN_ON("x", dt_, KC_IN, kc_count_d0d1, rms_gen, KC_DIST_BIT(KC_LARGE)), \
        KC_BUFFER_GEN_ON("w", dt_, KC_IN, kc_count_d1, rms_gen, KC_DIST_BIT(KC_LARGE)), \
        KC_SCALAR("eps", KC_F32, rms_eps), \
        KC_SCALAR_DIM("hidden", KC_I32, 1), \
    }, \
    .launch = rms_launch, .shapes = rms_shapes, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_LARGE, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = rmsnorm_reference, .tol = tol_, .arith = arith_, .budget = RMS_BUDGET, \
    .device_reference = { .module = "rmsnorm_ref", .symbol = "rmsnorm_ref", .launch = rms_ref_launch }, \
    .controls = { RMS_CONTROLS_COMMON, RMS_CONTROL_TAIL_OVERREAD, __VA_ARGS__ }, \
}

#define FUSED_CONTRACT(id_, name_, sym_, dt_, tol_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "rmsnorm", .symbol = sym_, \
    .dims = { "tokens", "hidden", "eps_exp10" }, \
    .args = { \
        KC_BUFFER_GEN_ON("x", dt_, KC_INOUT, kc_count_d0d1, rms_gen, KC_DIST_BIT(KC_LARGE)), \
        KC_BUFFER_GEN_ON("residual", dt_, KC_INOUT, kc_count_d0d1, rms_gen, KC_DIST_BIT(KC_LARGE)), \
        KC_BUFFER_GEN_ON("w", dt_, KC_IN, kc_count_d1, rms_gen, KC_DIST_BIT(KC_LARGE)), \
        KC_SCALAR("eps", KC_F32, rms_eps), \
        KC_SCALAR_DIM("hidden", KC_I32, 1), \
    }, \
    .launch = rms_launch, .shapes = rms_shapes, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_LARGE, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = fused_add_rmsnorm_reference, .tol = tol_, .budget = RMS_BUDGET, \
    .device_reference = { .module = "rmsnorm_ref", .symbol = "fused_add_rmsnorm_ref", .launch = rms_ref_launch }, \
    .controls = { RMS_CONTROLS_COMMON, \
        { "reread_updated_residual", 3, "in-place hazard: second pass recomputes x + residual after residual was already overwritten with x + residual" } }, \
}

RMSNORM_CONTRACT(rmsnorm_f32, "rmsnorm.f32", "rmsnorm_f32", KC_F32, RMS_TOL_DEFAULT, RMS_ARITH_F32, { 0 });
RMSNORM_CONTRACT(rmsnorm_f16, "rmsnorm.f16", "rmsnorm_f16", KC_F16, RMS_TOL_DEFAULT, RMS_ARITH_NONE, RMS_CONTROL_EPS_PER_SUM);
RMSNORM_CONTRACT(rmsnorm_bf16, "rmsnorm.bf16", "rmsnorm_bf16", KC_BF16, RMS_TOL_DEFAULT, RMS_ARITH_NONE, { 0 });
FUSED_CONTRACT(fused_add_rmsnorm_f32, "fused_add_rmsnorm.f32", "fused_add_rmsnorm_f32", KC_F32, RMS_TOL_F32);
FUSED_CONTRACT(fused_add_rmsnorm_f16, "fused_add_rmsnorm.f16", "fused_add_rmsnorm_f16", KC_F16, RMS_TOL_DEFAULT);
FUSED_CONTRACT(fused_add_rmsnorm_bf16, "fused_add_rmsnorm.bf16", "fused_add_rmsnorm_bf16", KC_BF16, RMS_TOL_DEFAULT);

/* rmsnorm_cluster.<t> (rmsnorm_cluster.cu): the same rmsnorm of long rows,
 * one thread block cluster of C blocks per token (d[3] = C), the partial sums
 * combined through distributed shared memory; launched with cluster dims
 * (C, 1, 1) through cuLaunchKernelEx, C = 16 with the non-portable cluster
 * size. Shapes cover C = 2, 3, 4, 8 and 16, and hidden sizes C does not divide
 * (slices of unequal length, a block with an empty slice at hidden 1). The
 * reference and the device reference are rmsnorm.<t>'s. */
static void rmsc_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    const int64_t c = s->d[3] > 0 ? s->d[3] : 1, chunk = (s->d[1] + c - 1) / c;
    int64_t t = ((chunk + 7) / 8 + 31) / 32 * 32;
    if (t < 32) t = 32;
    if (t > 1024) t = 1024;
    (void)dev;
    l->grid[0] = (unsigned)c; l->grid[1] = (unsigned)s->d[0]; l->grid[2] = 1;
    l->block[0] = (unsigned)t; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
    l->cluster[0] = (unsigned)c; l->cluster[1] = 1; l->cluster[2] = 1;
    l->nonportable_cluster = c > 8;
}

static const kc_shape rmsc_shapes[] = {
    { "llama3-70b.hidden.t1.c8", KC_SHAPE_MODEL, { 1, 8192, 5, 8 } },
    { "llama3-70b.hidden.t16.c8", KC_SHAPE_MODEL, { 16, 8192, 5, 8 } },
    { "qwen2.5-72b.hidden.t7.c4", KC_SHAPE_MODEL, { 7, 8192, 6, 4 } },
    { "llama3-405b.hidden.t1.c16", KC_SHAPE_MODEL, { 1, 16384, 5, 16 } },
    { "llama3-405b.hidden.t8.c16", KC_SHAPE_MODEL, { 8, 16384, 5, 16 } },
    { "edge.t3.h1.c2", KC_SHAPE_EDGE, { 3, 1, 5, 2 } },
    { "edge.t7.h31.c4", KC_SHAPE_EDGE, { 7, 31, 5, 4 } },
    { "edge.t5.h33.c8", KC_SHAPE_EDGE, { 5, 33, 6, 8 } },
    { "edge.t33.h5000.c3", KC_SHAPE_EDGE, { 33, 5000, 5, 3 } },
    { "edge.t2.h1023.c16", KC_SHAPE_EDGE, { 2, 1023, 5, 16 } },
    { "large.t2048.h16384.c16", KC_SHAPE_LARGE, { 2048, 16384, 5, 16 } },
    { 0 }
};

#define RMSC_CONTRACT(id_, name_, sym_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "rmsnorm_cluster", .symbol = sym_, \
    .dims = { "tokens", "hidden", "eps_exp10", "cluster" }, \
    .args = { \
        KC_BUFFER("out", dt_, KC_OUT, kc_count_d0d1), \
        KC_BUFFER_GEN_ON("x", dt_, KC_IN, kc_count_d0d1, rms_gen, KC_DIST_BIT(KC_LARGE)), \
        KC_BUFFER_GEN_ON("w", dt_, KC_IN, kc_count_d1, rms_gen, KC_DIST_BIT(KC_LARGE)), \
        KC_SCALAR("eps", KC_F32, rms_eps), \
        KC_SCALAR_DIM("hidden", KC_I32, 1), \
    }, \
    .launch = rmsc_launch, .shapes = rmsc_shapes, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_LARGE, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = rmsnorm_reference, .tol = RMS_TOL_DEFAULT, \
    .budget = { .max_regs = 40, .max_smem = 512, .max_local = 0, .min_blocks_per_sm = 1 }, \
    .device_reference = { .module = "rmsnorm_ref", .symbol = "rmsnorm_ref", .launch = rms_ref_launch }, \
    .controls = { \
        { "slice_floor", 2, "each block's slice is hidden / C rounded down: when C does not divide hidden the last " \
          "hidden % C elements of every row are in no block's slice, never summed nor written (edge shapes)" }, \
        { "own_partial_only", 3, "the distributed shared memory loop maps the block's own rank instead of each " \
          "peer's: the total is C times its own partial, every block of the cluster its own wrong 1/rms" }, \
        { "peer_read_before_sync", 3, "the peers' partial sums are read without the cluster barrier after they are " \
          "stored: a peer that has not stored yet gives its shared memory's poison or a stale value" }, \
    }, \
}

RMSC_CONTRACT(rmsnorm_cluster_f16, "rmsnorm_cluster.f16", "rmsnorm_cluster_f16", KC_F16);
RMSC_CONTRACT(rmsnorm_cluster_bf16, "rmsnorm_cluster.bf16", "rmsnorm_cluster_bf16", KC_BF16);
