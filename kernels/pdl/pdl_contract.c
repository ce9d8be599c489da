/* pdl_contract.c — contracts for kernels/pdl/token_quant_pdl.cu: a producer
 * and its dependent under programmatic dependent launch, one contract of two
 * steps (kc_step) each.
 *
 * pdl.token_quant_fp8.<t>: dynamic per-token e4m3 quantization of an
 * activation tensor [tokens, hidden] (<t> f16 or bf16):
 *   step 1 pdl_token_scale_<t>  scale[r] = max(f32(amax_r / 448), f32(1 / 229376)),  amax_r = max |x[r, :]|
 *   step 2 pdl_token_quant_<t>  q[r, c]  = e4m3_satfinite(f32(x[r, c] * f32(1 / scale[r])))
 *          (programmatic: it starts while step 1 runs and waits for it
 *          before reading scale)
 * Arguments: q (OUT, e4m3, tokens x hidden), scale (OUT, f32, tokens), x
 * (IN), tokens (i64), hidden (i64). The reference does the kernels' f32
 * arithmetic exactly (a product of a 16-bit float and an f32 is exact in
 * double, and double then f32 rounding of a quotient of f32s is the f32
 * quotient): both outputs must be bitwise equal; its device twin is
 * pdl_ref.cu (one block a row, bitwise equal to it). Shapes: d[0] tokens,
 * d[1] hidden. */
#include <math.h>
#include <stdint.h>
#include "kcontract.h"

enum { PQ_Q = 0, PQ_SCALE = 1, PQ_X = 2, PQ_ROWS = 3, PQ_COLS = 4 };

static int64_t pq_rows(const kc_shape *s) { return s->d[0]; }
static int64_t pq_cols(const kc_shape *s) { return s->d[1]; }
static size_t pq_count_rows(const kc_shape *s) { return (size_t)s->d[0]; }

/* The producer: a persistent grid of at most 2 blocks of 256 threads per SM
 * (all resident at once, so every block reaches its trigger at the start),
 * each reducing a contiguous slice of ceil(rows / grid) rows. */
static void pq_producer_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    int64_t cap = 2 * (int64_t)(dev->sm_count > 0 ? dev->sm_count : 1), rows = pq_rows(s);
    l->grid[0] = (unsigned)(rows < cap ? rows : cap);
    l->block[0] = 256;
}

/* The dependent: one block of 256 threads a row. */
static void pq_dependent_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    (void)dev;
    l->grid[0] = (unsigned)pq_rows(s);
    l->block[0] = 256;
}

typedef struct pq_job {
    const kc_ref *r;
    size_t cols;
} pq_job;

static void pq_rows_ref(void *ctx, size_t begin, size_t end)
{
    const pq_job *j = ctx;
    const kc_ref *r = j->r;
    const double floor_s = (double)kc_double_to_f32(1.0 / 229376.0);
    for (size_t row = begin; row < end; row++) {
        const size_t base = row * j->cols;
        double amax = 0;
        for (size_t c = 0; c < j->cols; c++) {
            double a = fabs(kc_ref_in(r, PQ_X, base + c));
            if (a > amax) amax = a;
        }
        double s = (double)kc_double_to_f32(amax / 448.0);
        if (s < floor_s) s = floor_s;
        const double inv = (double)kc_double_to_f32(1.0 / s);
        r->out[PQ_SCALE][row] = s;
        for (size_t c = 0; c < j->cols; c++) {
            double v = (double)kc_double_to_f32(kc_ref_in(r, PQ_X, base + c) * inv);
            r->out[PQ_Q][base + c] = kc_e4m3_to_double(kc_double_to_e4m3(v));
        }
    }
}

static void pq_reference(const kc_ref *r)
{
    pq_job j = { r, (size_t)r->iscalar[PQ_COLS] };
    kc_parallel_for((size_t)r->iscalar[PQ_ROWS], 16, pq_rows_ref, &j);
}

/* Real model shapes (tokens x hidden: decode, a prefill chunk, the MLP's
 * intermediate activation); edge shapes off the 256-thread block and the
 * 2048-element prefetch, one with more rows than the producer's grid on an
 * H200 (264 blocks of up to 4 rows); one large. The prefill chunk
 * comes first: a dependent that reads its scale early does so on nearly
 * every launch there (8 rows a producer block; H200: 20 of 20 launches,
 * docs/receipts/2026-12-02-h200-pdl), so the controls are caught on the
 * first launch (gate 3), not first on a relaunch (gate 4), as they would be
 * on a decode shape, where the dependent rarely starts before its one-row
 * producer ends. */
static const kc_shape pq_shapes[] = {
    { "llama3-8b.act.t2048", KC_SHAPE_MODEL, { 2048, 4096 } },
    { "llama3-8b.act.t1", KC_SHAPE_MODEL, { 1, 4096 } },
    { "llama3-8b.act.t128", KC_SHAPE_MODEL, { 128, 4096 } },
    { "llama3-8b.mlp.t128", KC_SHAPE_MODEL, { 128, 14336 } },
    { "llama3-70b.act.t256", KC_SHAPE_MODEL, { 256, 8192 } },
    { "mixtral-8x7b.act.t512", KC_SHAPE_MODEL, { 512, 4096 } },
    { "edge.t1.h1", KC_SHAPE_EDGE, { 1, 1 } },
    { "edge.t1.h31", KC_SHAPE_EDGE, { 1, 31 } },
    { "edge.t3.h33", KC_SHAPE_EDGE, { 3, 33 } },
    { "edge.t1.h2049", KC_SHAPE_EDGE, { 1, 2049 } },
    { "edge.t7.h5000", KC_SHAPE_EDGE, { 7, 5000 } },
    { "edge.t1000.h33", KC_SHAPE_EDGE, { 1000, 33 } },
    { "large.t8192.h8192", KC_SHAPE_LARGE, { 8192, 8192 } },
    { 0 }
};

#define PQ_BITWISE ((kc_tol){ 0, 0, "bitwise: the reference does the kernels' f32 arithmetic and e4m3 rounding exactly" })

#define PQ_CONTRACT(id_, name_, t_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "token_quant_pdl", \
    .dims = { "tokens", "hidden" }, \
    .args = { \
        KC_BUFFER("q", KC_E4M3, KC_OUT, kc_count_d0d1), \
        KC_BUFFER("scale", KC_F32, KC_OUT, pq_count_rows), \
        KC_BUFFER("x", dt_, KC_IN, kc_count_d0d1), \
        KC_SCALAR_INT("tokens", KC_I64, pq_rows), \
        KC_SCALAR_INT("hidden", KC_I64, pq_cols), \
    }, \
    .steps = { \
        { "pdl_token_scale_" t_, { "scale", "x", "tokens", "hidden" }, pq_producer_launch }, \
        { "pdl_token_quant_" t_, { "q", "scale", "x", "tokens", "hidden" }, pq_dependent_launch, .programmatic = 1 }, \
    }, \
    .shapes = pq_shapes, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_LARGE, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = pq_reference, .tol = PQ_BITWISE, \
    .device_reference = { .module = "pdl_ref", .symbol = "pdl_token_quant_ref", .launch = pq_dependent_launch }, \
    .budget = { .max_regs = 48, .max_smem = 256, .max_local = 0, .min_blocks_per_sm = 2 }, \
    .controls = { \
        { "dependent_no_wait", 3, "the dependent has no cudaGridDependencySynchronize(): launched programmatically it " \
          "reads its row's scale before the producer wrote it and quantizes the row with the output's poison" }, \
        { "wait_in_one_thread", 3, "only thread 0 of each dependent block waits (the wait taken for a block-wide " \
          "barrier): the block's other threads read the scale before the producer wrote it" }, \
    }, \
}

PQ_CONTRACT(pdl_token_quant_fp8_bf16, "pdl.token_quant_fp8.bf16", "bf16", KC_BF16);
PQ_CONTRACT(pdl_token_quant_fp8_f16, "pdl.token_quant_fp8.f16", "f16", KC_F16);
