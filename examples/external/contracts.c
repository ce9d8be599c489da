/* contracts.c — the example's contracts: one module kernel (kernels/scale.cu,
 * two controls), one library kernel (kernels/libex_double.cu), and a
 * third-party kernel contracted without editing its file
 * (third_party/fastsoftmax/fastsoftmax.cu through kernels/vendor_softmax.cu),
 * with controls planted by macros in the wrapper and one by the harness.
 * The references find arguments by name (kc_ref_in_named, kc_ref_arg), so
 * reordering .args cannot silently feed them the wrong buffer. */
#include <math.h>

#include "kcontract.h"

static const kc_shape shapes[] = {          /* real model shapes, edge shapes, one large */
    { "model.hidden.4096", KC_SHAPE_MODEL, { 4096 } },
    { "edge.1", KC_SHAPE_EDGE, { 1 } },
    { "edge.33", KC_SHAPE_EDGE, { 33 } },
    { "large.1e6", KC_SHAPE_LARGE, { 1000000 } },
    { 0 }
};

static double a_value(const kc_shape *s) { (void)s; return 0.75; }

static void one_per_thread(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    (void)dev;
    kc_launch_1d(l, (uint64_t)s->d[0], 256);    /* ceil(n / 256) blocks of 256 threads */
}

/* float64, arguments by name: reordering .args cannot feed it the wrong buffer */
static void scale_ref(const kc_ref *r)
{
    int x = kc_ref_arg(r, "x");             /* looked up once, not per element */
    double a = r->scalar[kc_ref_arg(r, "a")];
    double *y = kc_ref_out_named(r, "y");
    for (size_t i = 0; i < r->count[x]; i++) y[i] = a * kc_ref_in(r, x, i);
}

KC_CONTRACT(ex_scale_f32) {
    .name = "ex.scale.f32", .module = "scale", .symbol = "ex_scale_f32",
    .dims = { "n" },                        /* names the shape's dims in failure lines */
    .args = {                               /* in the kernel's parameter order */
        KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0),
        KC_BUFFER("x", KC_F32, KC_IN, kc_count_d0),
        KC_SCALAR("a", KC_F32, a_value),
        KC_SCALAR_DIM("n", KC_I64, 0),      /* d[0], exactly */
    },
    .launch = one_per_thread,
    .shapes = shapes,
    /* random inputs (NaN and inf among SPECIALS), then the boundary values no random
     * draw reaches: all zeros, one value everywhere, subnormals */
    .dists = { KC_UNIFORM, KC_NORMAL, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .reference = scale_ref,
    .budget = { .max_regs = 32, .max_local = 0, .min_blocks_per_sm = 8 },
    .controls = {                           /* planted bugs, each with the gate that must catch it */
        { "tail_skip", 2, "the last element never written" },
        { "wrong_scale", 3, "one element 1% off" },
    },
};

static void double_ref(const kc_ref *r)
{
    int x = kc_ref_arg(r, "x");
    double *y = kc_ref_out_named(r, "y");
    for (size_t i = 0; i < r->count[x]; i++) y[i] = 2.0 * kc_ref_in(r, x, i);
}

KC_CONTRACT(ex_double_f32) {
    .name = "ex.double.f32", .library = "ex_double", .entry = "ex_double_f32",
    .dims = { "n" },
    .args = {
        KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0),
        KC_BUFFER("x", KC_F32, KC_IN, kc_count_d0),
        KC_SCALAR_DIM("n", KC_I64, 0),      /* d[0], exactly */
    },
    .shapes = shapes,
    .reference = double_ref,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .controls = {
        { "skip_last", 2, "the last element left unwritten" },
        { "short_grid", 2, "the grid rounds n / 256 down: the last partial block never runs" },
    },
};

/* fastsoftmax::softmax_rows<float, 256>(float *y, const float *x, int cols):
 * a row softmax from a file we may not edit (C++ linkage, a template, a
 * main()). kernels/vendor_softmax.cu includes the file, instantiates the
 * template and plants the controls as macros over the CUDA builtins the file
 * calls; the contract names the instantiation by its mangled symbol. */
static kc_shape row_shapes[12] = {                      /* room for the derived edges below */
    { "gpt2.attn.ctx1024", KC_SHAPE_MODEL, { 48, 1024 } },   /* 12 heads x 4 queries over 1024 keys */
    { "edge.1x1", KC_SHAPE_EDGE, { 1, 1 } },
    { "edge.3x33", KC_SHAPE_EDGE, { 3, 33 } },              /* one warp's worth and one more */
    { "edge.2x257", KC_SHAPE_EDGE, { 2, 257 } },            /* one column past the block: thread 0 has two */
    { "large.1024x4096", KC_SHAPE_LARGE, { 1024, 4096 } },
    { 0 }
};
/* And the model shape's off-block column counts, derived: cols 1, 255, 257, 1023
 * and 1025 of 48 rows (BLOCK = 256 columns a pass), named edge.gpt2.attn.ctx1024.d1=<cols>. */
KC_EDGE_SHAPES(row_shapes, 0, .dim = 1, .tile = 256)

static int64_t cols_value(const kc_shape *s) { return s->d[1]; }

static void row_per_block(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    (void)dev;
    l->grid[0] = (unsigned)s->d[0];
    l->block[0] = 256;                  /* the instantiation's BLOCK */
}

static void softmax_ref(const kc_ref *r)
{
    size_t rows = (size_t)r->shape->d[0], cols = (size_t)r->shape->d[1];
    int x = kc_ref_arg(r, "x");         /* once, not per element */
    double *y = kc_ref_out_named(r, "y");
    for (size_t row = 0; row < rows; row++) {
        size_t o = row * cols;
        double m = -INFINITY, sum = 0;
        for (size_t c = 0; c < cols; c++) m = fmax(m, kc_ref_in(r, x, o + c));
        for (size_t c = 0; c < cols; c++) sum += exp(kc_ref_in(r, x, o + c) - m);
        for (size_t c = 0; c < cols; c++) y[o + c] = exp(kc_ref_in(r, x, o + c) - m) / sum;
    }
}

KC_CONTRACT(ex_vendor_softmax_f32) {
    .name = "ex.vendor_softmax.f32", .module = "vendor_softmax",
    .symbol = "_ZN11fastsoftmax12softmax_rowsIfLi256EEEvPT_PKS1_i",   /* softmax_rows<float, 256> */
    .dims = { "rows", "cols" },
    .args = {
        KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0d1),
        KC_BUFFER("x", KC_F32, KC_IN, kc_count_d0d1),
        KC_SCALAR_INT("cols", KC_I32, cols_value),
    },
    .launch = row_per_block,
    .shapes = row_shapes,
    /* with the boundary values: all zeros, constant rows (every output 1/cols), subnormals */
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .reference = softmax_ref,
    .tol = { 4e-6, 1e-9, "expf within 2 ulp, the quotient 1/2 ulp, and the row's float32 sum (up to 16 terms a "
                         "thread, then 8 shuffle and shared-memory levels) up to 12 ulp: ~15 ulp (1.8e-6) at worst; "
                         "atol tightened from 1e-5: a 4096-column row's outputs are 1e-4 and smaller" },
    .budget = { .max_regs = 40, .max_local = 0 },
    .controls = {
        { "no_barrier", 3, "a missing __syncthreads: partials read before they are written" },
        { "no_shuffle", 3, "a warp reduction that never exchanges lanes" },
        /* a patch applied to a copy of the third-party file (controls/sum_off_by_one.patch,
         * PATCHES_vendor_softmax in CMakeLists.txt, KC_PATCHES_vendor_softmax in the Makefile) */
        { "sum_off_by_one", 3, "the row's sum misses its last column (a loop bound off by one)" },
        /* no source change at all: the harness launches the clean build one block short */
        { "short_grid", 2, "a grid one block short: the last row never written", KC_HARNESS_BLOCK_SHORT },
    },
};

/* The contract lint as a host-only suite (host.contracts.lint): every
 * contract above held, without a GPU, to the rules the registry does not
 * refuse at start (two controls, every shape class, launches within CUDA's
 * limits, the boundary distributions, a tolerance that can catch
 * something; docs/writing-a-contract.md, "What every contract must have"). */
KC_CONTRACT_LINT_SUITE();
