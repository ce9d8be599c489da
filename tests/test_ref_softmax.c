/* test_ref_softmax.c — the softmax contracts' float64 reference on hand-made rows. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

/* Runs contract `name`'s reference on rows x cols f32 input `in`, output into `out`. */
static void run_softmax_ref(const char *name, int64_t rows, int64_t cols, const float *in, double *out)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s not registered", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { rows, cols } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.dist = KC_NORMAL; r.nargs = 4;
    r.host[0] = NULL; r.dtype[0] = KC_F32; r.count[0] = (size_t)(rows * cols); r.out[0] = out;
    r.host[1] = in;   r.dtype[1] = KC_F32; r.count[1] = (size_t)(rows * cols);
    r.dtype[2] = KC_I32; r.scalar[2] = (double)rows;
    r.dtype[3] = KC_I32; r.scalar[3] = (double)cols;
    c->reference(&r);
}

Test(ref_softmax, two_values)
{
    float in[2] = { 0.0f, (float)log(3.0) };
    double out[2] = { -1, -1 };
    run_softmax_ref("softmax.f32", 1, 2, in, out);
    double e1 = exp((double)in[1]);     /* ~3, exactly what the reference sees */
    cr_assert(fabs(out[0] - 1.0 / (1.0 + e1)) < 1e-15, "out[0] = %.17g", out[0]);
    cr_assert(fabs(out[0] - 0.25) < 1e-7, "out[0] = %.17g", out[0]);
    cr_assert(fabs(out[1] - 0.75) < 1e-7, "out[1] = %.17g", out[1]);
}

Test(ref_softmax, masked_entry_is_exact_zero)
{
    float in[2] = { 0.0f, -INFINITY };
    double out[2] = { -1, -1 };
    run_softmax_ref("softmax.f32", 1, 2, in, out);
    cr_assert_eq(out[0], 1.0);
    cr_assert_eq(out[1], 0.0);
    cr_assert(!signbit(out[1]));
}

Test(ref_softmax, all_neg_inf_row_is_nan_and_rows_independent)
{
    float in[6] = { -INFINITY, -INFINITY, -INFINITY, 1.0f, 1.0f, 1.0f };
    double out[6];
    for (int i = 0; i < 6; i++) out[i] = -1;
    run_softmax_ref("softmax.f32", 2, 3, in, out);
    for (int i = 0; i < 3; i++) cr_assert(isnan(out[i]), "out[%d] = %g", i, out[i]);
    for (int i = 3; i < 6; i++) cr_assert(fabs(out[i] - 1.0 / 3.0) < 1e-15, "out[%d] = %g", i, out[i]);
}

Test(ref_softmax, shift_invariant_large_values)
{
    float in[3] = { 1000.0f, 1001.0f, 999.0f };
    double out[3];
    run_softmax_ref("softmax.f32", 1, 3, in, out);
    double s = exp(-1.0) + 1.0 + exp(-2.0);
    cr_assert(fabs(out[0] - exp(-1.0) / s) < 1e-15);
    cr_assert(fabs(out[1] - 1.0 / s) < 1e-15);
    cr_assert(fabs(out[2] - exp(-2.0) / s) < 1e-15);
}

Test(ref_softmax, all_dtypes_registered)
{
    cr_assert_not_null(kc_registry_find_contract("softmax.f16"));
    cr_assert_not_null(kc_registry_find_contract("softmax.bf16"));
}
