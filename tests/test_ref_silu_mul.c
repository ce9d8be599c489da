/* test_ref_silu_mul.c — the float64 reference of silu_mul.* (vLLM layout:
 * gate half, then up half of each row). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <criterion/criterion.h>
#include "kcontract.h"
#include "registry.h"

static const kc_contract *need(const char *name)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s is not registered", name);
    cr_assert_not_null(c->reference, "%s has no reference", name);
    return c;
}

/* args: 0 out [tokens*d], 1 x [tokens*2d], 2 tokens, 3 d */
static void run_ref(const kc_contract *c, int64_t tokens, int64_t d, kc_dtype t, const void *x, double *out)
{
    kc_shape sh = { "t", KC_SHAPE_EDGE, { tokens, d } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 4;
    r.dtype[0] = t; r.count[0] = (size_t)(tokens * d); r.out[0] = out;
    r.host[1] = x; r.dtype[1] = t; r.count[1] = (size_t)(tokens * 2 * d);
    r.scalar[2] = (double)tokens; r.scalar[3] = (double)d;
    c->reference(&r);
}

static void near(double got, double want)
{
    cr_assert(fabs(got - want) <= 1e-15 * fabs(want), "got %.17g, want %.17g", got, want);
}

Test(ref_silu_mul, one_element)
{
    const float x[2] = { 1, 2 };
    double out[1] = { 0 };
    run_ref(need("silu_mul.f32"), 1, 1, KC_F32, x, out);
    near(out[0], 1.4621171572600098);   /* silu(1) * 2 */
}

Test(ref_silu_mul, two_tokens_layout)
{
    /* row t = [gate_0, gate_1, up_0, up_1] */
    const float x[8] = { 0, 1, 5, 7,   -1, 2, 3, -2 };
    double out[4] = { 9, 9, 9, 9 };
    run_ref(need("silu_mul.f32"), 2, 2, KC_F32, x, out);
    cr_assert_eq(out[0], 0.0, "silu(0)*5 gave %g", out[0]);
    near(out[1], 5.117410050410034);     /* silu(1) * 7 */
    near(out[2], -0.8068242641099853);   /* silu(-1) * 3 */
    near(out[3], -3.5231883119115293);   /* silu(2) * -2 */
}

Test(ref_silu_mul, f16_and_specials)
{
    /* gate {1, -inf, +inf}, up {2, 1, -1} */
    const uint16_t x[6] = { 0x3C00, 0xFC00, 0x7C00, 0x4000, 0x3C00, 0xBC00 };
    double out[3] = { 0, 0, 0 };
    run_ref(need("silu_mul.f16"), 1, 3, KC_F16, x, out);
    near(out[0], 1.4621171572600098);
    cr_assert(isnan(out[1]), "silu(-inf) = -inf/inf is NaN by the contract's formula, got %g", out[1]);
    cr_assert(isinf(out[2]) && out[2] < 0, "silu(+inf) * -1 should be -inf, got %g", out[2]);
}

Test(ref_silu_mul, bf16)
{
    const uint16_t x[2] = { 0x3F80, 0x4000 };   /* gate 1, up 2 */
    double out[1] = { 0 };
    run_ref(need("silu_mul.bf16"), 1, 1, KC_BF16, x, out);
    near(out[0], 1.4621171572600098);
}
