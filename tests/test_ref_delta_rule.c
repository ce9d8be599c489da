/* test_ref_delta_rule.c — the gated delta rule reference on a 2x2 state, checked
 * against S' = alpha S (I - beta k k^T) + beta v k^T worked by hand. */
#include <criterion/criterion.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

Test(ref_delta_rule, one_step_2x2)
{
    const kc_contract *c = kc_registry_find_contract("delta_rule.f32");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 1, 2, 2 } };
    /* H = S^T = I, k = e0, q = e1, v = [2, 3], alpha = beta = 0.5:
     * S' = 0.5 diag(0.5, 1) + 0.5 [[2, 0], [3, 0]] = [[1.25, 0], [1.5, 0.5]]
     * H' = S'^T = [[1.25, 1.5], [0, 0.5]], o = S' q = [0, 0.5] */
    const float S[4] = { 1, 0, 0, 1 }, q[2] = { 0, 1 }, k[2] = { 1, 0 }, v[2] = { 2, 3 };
    const float alpha[1] = { 0.5f }, beta[1] = { 0.5f };
    double o[2], Sn[4];
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 10;
    r.dtype[0] = KC_F32; r.count[0] = 2; r.out[0] = o;
    r.host[1] = S; r.dtype[1] = KC_F32; r.count[1] = 4; r.out[1] = Sn;
    r.host[2] = q; r.dtype[2] = KC_F32; r.count[2] = 2;
    r.host[3] = k; r.dtype[3] = KC_F32; r.count[3] = 2;
    r.host[4] = v; r.dtype[4] = KC_F32; r.count[4] = 2;
    r.host[5] = alpha; r.dtype[5] = KC_F32; r.count[5] = 1;
    r.host[6] = beta; r.dtype[6] = KC_F32; r.count[6] = 1;
    r.dtype[7] = KC_I32; r.scalar[7] = 1;
    r.dtype[8] = KC_I32; r.scalar[8] = 2;
    r.dtype[9] = KC_I32; r.scalar[9] = 2;
    c->reference(&r);
    const double want_S[4] = { 1.25, 1.5, 0, 0.5 };
    for (int i = 0; i < 4; i++) cr_expect_eq(Sn[i], want_S[i], "S'[%d] = %g", i, Sn[i]);
    cr_expect_eq(o[0], 0.0, "o[0] = %g", o[0]);
    cr_expect_eq(o[1], 0.5, "o[1] = %g", o[1]);
    cr_assert_not_null(kc_registry_find_contract("delta_rule.bf16"));
}
