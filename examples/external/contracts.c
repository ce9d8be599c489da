/* contracts.c — the example's contracts: one module kernel (kernels/scale.cu,
 * two controls) and one library kernel (kernels/libex_double.cu). The
 * references read arguments by name (kc_ref_in_named), so reordering .args
 * cannot silently feed them the wrong buffer. */
#include "kcontract.h"

static const kc_shape shapes[] = {
    { "model.hidden.4096", KC_SHAPE_MODEL, { 4096 } },
    { "edge.1", KC_SHAPE_EDGE, { 1 } },
    { "edge.33", KC_SHAPE_EDGE, { 33 } },
    { "large.1e6", KC_SHAPE_LARGE, { 1000000 } },
    { 0 }
};

static double a_value(const kc_shape *s) { (void)s; return 0.75; }
static int64_t n_value(const kc_shape *s) { return s->d[0]; }

static void one_per_thread(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    (void)dev;
    l->block[0] = 256;
    l->grid[0] = (unsigned)((s->d[0] + 255) / 256);
}

static void scale_ref(const kc_ref *r)
{
    double a = r->scalar[kc_ref_arg(r, "a")];
    double *y = kc_ref_out_named(r, "y");
    for (size_t i = 0; i < r->count[0]; i++) y[i] = a * kc_ref_in_named(r, "x", i);
}

KC_CONTRACT(ex_scale_f32) {
    .name = "ex.scale.f32", .module = "scale", .symbol = "ex_scale_f32",
    .dims = { "n" },
    .args = {
        KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0),
        KC_BUFFER("x", KC_F32, KC_IN, kc_count_d0),
        KC_SCALAR("a", KC_F32, a_value),
        KC_SCALAR_INT("n", KC_I64, n_value),
    },
    .launch = one_per_thread,
    .shapes = shapes,
    .reference = scale_ref,
    .budget = { .max_regs = 32, .max_local = 0 },
    .controls = {
        { "tail_skip", 2, "the last element never written" },
        { "wrong_scale", 3, "one element 1% off" },
    },
};

static void double_ref(const kc_ref *r)
{
    double *y = kc_ref_out_named(r, "y");
    for (size_t i = 0; i < r->count[0]; i++) y[i] = 2.0 * kc_ref_in_named(r, "x", i);
}

KC_CONTRACT(ex_double_f32) {
    .name = "ex.double.f32", .library = "ex_double", .entry = "ex_double_f32",
    .dims = { "n" },
    .args = {
        KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0),
        KC_BUFFER("x", KC_F32, KC_IN, kc_count_d0),
        KC_SCALAR_INT("n", KC_I64, n_value),
    },
    .shapes = shapes,
    .reference = double_ref,
    .controls = {
        { "skip_last", 2, "the last element left unwritten" },
    },
};
