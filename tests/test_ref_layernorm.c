/* test_ref_layernorm.c — the layernorm contracts' reference on a hand-computed row. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

static void run_ln(const char *name, int64_t tokens, int64_t hidden, const float *x, const float *w, const float *b,
                   double eps, double *out)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s not registered", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { tokens, hidden, 5 } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 6;
    r.dtype[0] = KC_F32; r.count[0] = (size_t)(tokens * hidden); r.out[0] = out;
    r.host[1] = x; r.dtype[1] = KC_F32; r.count[1] = (size_t)(tokens * hidden);
    r.host[2] = w; r.dtype[2] = KC_F32; r.count[2] = (size_t)hidden;
    r.host[3] = b; r.dtype[3] = KC_F32; r.count[3] = (size_t)hidden;
    r.dtype[4] = KC_F32; r.scalar[4] = eps;
    r.dtype[5] = KC_I32; r.scalar[5] = (double)hidden;
    c->reference(&r);
}

Test(ref_layernorm, four_values_weight_and_bias)
{
    /* mean 2.5, var (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25 */
    const float x[4] = { 1, 2, 3, 4 }, w[4] = { 1, 1, 2, 1 }, b[4] = { 0, 0, 0, 1 };
    double y[4];
    run_ln("layernorm.f32", 1, 4, x, w, b, 0.0, y);
    const double s = sqrt(1.25);
    const double want[4] = { -1.5 / s, -0.5 / s, 2 * 0.5 / s, 1.5 / s + 1 };
    for (int i = 0; i < 4; i++) cr_expect(fabs(y[i] - want[i]) < 1e-15, "y[%d] = %.17g want %.17g", i, y[i], want[i]);
}

Test(ref_layernorm, large_offset_is_exact_and_eps_is_the_f32_value)
{
    /* x = 1000 + [-1, 1]: mean 1000, var 1; eps 1e-5 as the kernel's f32 */
    const float x[2] = { 999, 1001 }, w[2] = { 1, 1 }, b[2] = { 0.5f, 0 };
    double y[2];
    run_ln("layernorm.f32", 1, 2, x, w, b, 1e-5, y);
    const double rinv = 1.0 / sqrt(1.0 + (double)1e-5f);
    cr_expect(fabs(y[0] - (-rinv + 0.5)) < 1e-15, "y[0] = %.17g", y[0]);
    cr_expect(fabs(y[1] - rinv) < 1e-15, "y[1] = %.17g", y[1]);
}

Test(ref_layernorm, constant_row_gives_the_bias)
{
    const float x[6] = { 7, 7, 7, -2, -2, -2 }, w[3] = { 3, 3, 3 }, b[3] = { 0.25f, -1, 0 };
    double y[6];
    run_ln("layernorm.f32", 2, 3, x, w, b, 1e-5, y);
    for (int t = 0; t < 2; t++)
        for (int j = 0; j < 3; j++) cr_expect_eq(y[t * 3 + j], (double)b[j], "y[%d][%d] = %g", t, j, y[t * 3 + j]);
    cr_assert_not_null(kc_registry_find_contract("layernorm.f16"));
    cr_assert_not_null(kc_registry_find_contract("layernorm.bf16"));
}
