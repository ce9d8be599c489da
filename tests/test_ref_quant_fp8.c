/* test_ref_quant_fp8.c — the quant_fp8 contracts' reference on hand-made
 * tensors: the dequant scale (amax / 448, floored at 1/229376), e4m3 values
 * rounded to nearest even and saturated, a negative amax, and zeros. */
#include <criterion/criterion.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

/* Runs quant_fp8.tensor.bf16's reference on x[0..n) (as bf16 values). */
static void quantize(const double *xv, int n, double *q, double *scale)
{
    const kc_contract *c = kc_registry_find_contract("quant_fp8.tensor.bf16");
    cr_assert_not_null(c);
    uint16_t x[16];
    for (int i = 0; i < n; i++) x[i] = kc_double_to_bf16(xv[i]);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, n } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 4;
    r.dtype[0] = KC_E4M3; r.count[0] = (size_t)n; r.out[0] = q;
    r.dtype[1] = KC_F32; r.count[1] = 1; r.out[1] = scale;
    r.host[2] = x; r.dtype[2] = KC_BF16; r.count[2] = (size_t)n;
    r.dtype[3] = KC_I64; r.iscalar[3] = n; r.scalar[3] = n;
    c->reference(&r);
}

Test(ref_quant_fp8, amax_maps_to_448_and_values_round_to_e4m3)
{
    double x[4] = { 1.0, -2.0, 0.5, 0.3 }, q[4], sc;
    quantize(x, 4, q, &sc);
    cr_assert_eq(sc, (double)(float)(2.0 / 448.0), "scale %.9g", sc);   /* amax |-2| */
    cr_assert_eq(q[1], -448.0, "the largest magnitude maps to -448: %g", q[1]);
    cr_assert_eq(q[0], 224.0, "%g", q[0]);
    cr_assert_eq(q[2], 112.0, "%g", q[2]);
    /* 0.30078125 (bf16 of 0.3) x 224 = 67.375: e4m3 has 8 values per binade
     * [64, 128) (step 8): RNE gives 64 */
    cr_assert_eq(q[3], 64.0, "%g", q[3]);
}

Test(ref_quant_fp8, zeros_take_the_floor_scale)
{
    double x[3] = { 0.0, -0.0, 0.0 }, q[3] = { 9, 9, 9 }, sc;
    quantize(x, 3, q, &sc);
    cr_assert_eq(sc, (double)(float)(1.0 / 229376.0), "scale %.9g", sc);
    for (int i = 0; i < 3; i++) cr_assert_eq(q[i], 0.0, "q[%d] = %g", i, q[i]);
}
