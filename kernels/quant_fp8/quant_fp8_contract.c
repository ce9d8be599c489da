/* quant_fp8_contract.c — contracts for kernels/quant_fp8/quant_fp8.cu.
 *
 * quant_fp8.tensor.<t>: dynamic per-tensor e4m3 quantization of an
 * activation tensor [tokens, hidden] (<t> f16 or bf16) in one cooperative
 * kernel (kc_launch.cooperative: grid-wide syncs):
 *   scale = max(f32(amax / 448), f32(1 / 229376)),  amax = max |x|
 *   q[i]  = e4m3_satfinite(f32(x[i] * f32(1 / scale)))
 * Arguments: q (OUT, e4m3, n), scale (OUT, f32, 1), x (IN, n), n (i64).
 * The reference does the kernel's f32 arithmetic exactly (a product of a
 * 16-bit float and an f32 is exact in double, and double then f32 rounding
 * of a quotient of f32s is the f32 quotient): outputs must be bitwise equal.
 * Its device twin is quant_fp8_ref.cu (bitwise equal to it).
 * Shapes: d[0] tokens, d[1] hidden; n = tokens x hidden. */
#include <math.h>
#include <stdint.h>
#include "kcontract.h"

enum { QF_Q = 0, QF_SCALE = 1, QF_X = 2, QF_N = 3 };

static size_t qf_count_one(const kc_shape *s) { (void)s; return 1; }
static int64_t qf_n(const kc_shape *s) { return s->d[0] * s->d[1]; }

/* Cooperative: every block resident at once; at most 2 blocks of 256 threads
 * per SM (the kernel's __launch_bounds__(256) and 33 floats of shared memory
 * fit many more), fewer when n is small. */
static void qf_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    int64_t n = qf_n(s), want = (n + 255) / 256, cap = 2 * (int64_t)(dev->sm_count > 0 ? dev->sm_count : 1);
    if (want < 1) want = 1;
    l->grid[0] = (unsigned)(want < cap ? want : cap); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
    l->cooperative = 1;
}

typedef struct qf_job {
    const kc_ref *r;
    double inv;
} qf_job;

static void qf_rows(void *ctx, size_t begin, size_t end)
{
    const qf_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        double v = (double)kc_double_to_f32(kc_ref_in(j->r, QF_X, i) * j->inv);
        j->r->out[QF_Q][i] = kc_e4m3_to_double(kc_double_to_e4m3(v));
    }
}

static void qf_reference(const kc_ref *r)
{
    const size_t n = r->count[QF_X];
    double amax = 0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(kc_ref_in(r, QF_X, i));
        if (a > amax) amax = a;
    }
    double s = (double)kc_double_to_f32(amax / 448.0), floor_s = (double)kc_double_to_f32(1.0 / 229376.0);
    if (s < floor_s) s = floor_s;
    qf_job j = { r, (double)kc_double_to_f32(1.0 / s) };
    kc_parallel_for(n, 1 << 16, qf_rows, &j);
    r->out[QF_SCALE][0] = s;
}

static const kc_shape qf_shapes[] = {
    { "llama3-8b.act.t1", KC_SHAPE_MODEL, { 1, 4096 } },
    { "llama3-8b.act.t128", KC_SHAPE_MODEL, { 128, 4096 } },
    { "llama3-8b.mlp.t128", KC_SHAPE_MODEL, { 128, 14336 } },
    { "mixtral-8x7b.act.t512", KC_SHAPE_MODEL, { 512, 4096 } },
    { "edge.t1.h1", KC_SHAPE_EDGE, { 1, 1 } },
    { "edge.t1.h31", KC_SHAPE_EDGE, { 1, 31 } },
    { "edge.t3.h33", KC_SHAPE_EDGE, { 3, 33 } },
    { "edge.t1.h1023", KC_SHAPE_EDGE, { 1, 1023 } },
    { "edge.t7.h5000", KC_SHAPE_EDGE, { 7, 5000 } },
    { "large.t8192.h8192", KC_SHAPE_LARGE, { 8192, 8192 } },
    { 0 }
};

#define QF_BITWISE ((kc_tol){ 0, 0, "bitwise: the reference does the kernel's f32 arithmetic and e4m3 rounding exactly" })

#define QF_CONTRACT(id_, name_, sym_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "quant_fp8", .symbol = sym_, \
    .dims = { "tokens", "hidden" }, \
    .args = { \
        KC_BUFFER("q", KC_E4M3, KC_OUT, kc_count_d0d1), \
        KC_BUFFER("scale", KC_F32, KC_OUT, qf_count_one), \
        KC_BUFFER("x", dt_, KC_IN, kc_count_d0d1), \
        KC_SCALAR_INT("n", KC_I64, qf_n), \
    }, \
    .launch = qf_launch, .shapes = qf_shapes, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_LARGE, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = qf_reference, .tol = QF_BITWISE, \
    .device_reference = { .module = "quant_fp8_ref", .symbol = "quant_fp8_tensor_ref", .launch = qf_launch }, \
    .budget = { .max_regs = 40, .max_smem = 256, .max_local = 0, .min_blocks_per_sm = 2 }, \
    .controls = { \
        { "no_grid_sync", 3, "no grid sync between the blocks' atomicMax into the amax slot and reading it: a block " \
          "reads a partial maximum and quantizes its elements with a scale too large, saturating them" }, \
        { "amax_signed", 3, "the maximum of x instead of |x|: a tensor whose largest magnitude is negative gets too " \
          "small an amax, and its most negative elements saturate at -448" }, \
        { "scale_not_inverted", 3, "the scale output holds the quantization multiplier 1/scale, not the dequant scale " \
          "the consumer multiplies by" }, \
    }, \
}

QF_CONTRACT(quant_fp8_tensor_bf16, "quant_fp8.tensor.bf16", "quant_fp8_tensor_bf16", KC_BF16);
QF_CONTRACT(quant_fp8_tensor_f16, "quant_fp8.tensor.f16", "quant_fp8_tensor_f16", KC_F16);
