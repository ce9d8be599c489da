/* test_ref_pdl.c — the pdl.token_quant_fp8 contracts' reference on hand-made
 * rows: each row's own dequant scale (its amax / 448, floored at 1/229376),
 * its values rounded to nearest even e4m3 and saturated, a row of zeros,
 * and rows that do not share their scale. */
#include <criterion/criterion.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

/* Runs pdl.token_quant_fp8.bf16's reference on x[rows][cols] (as bf16 values). */
static void quantize(const double *xv, int rows, int cols, double *q, double *scale)
{
    const kc_contract *c = kc_registry_find_contract("pdl.token_quant_fp8.bf16");
    cr_assert_not_null(c);
    uint16_t x[16];
    cr_assert_leq(rows * cols, 16);
    for (int i = 0; i < rows * cols; i++) x[i] = kc_double_to_bf16(xv[i]);
    kc_shape s = { "test", KC_SHAPE_EDGE, { rows, cols } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 5;
    r.dtype[0] = KC_E4M3; r.count[0] = (size_t)(rows * cols); r.out[0] = q;
    r.dtype[1] = KC_F32; r.count[1] = (size_t)rows; r.out[1] = scale;
    r.host[2] = x; r.dtype[2] = KC_BF16; r.count[2] = (size_t)(rows * cols);
    r.dtype[3] = KC_I64; r.iscalar[3] = rows; r.scalar[3] = rows;
    r.dtype[4] = KC_I64; r.iscalar[4] = cols; r.scalar[4] = cols;
    c->reference(&r);
}

Test(ref_pdl, each_row_has_its_own_scale)
{
    /* row 0 as quant_fp8's tensor test; row 1 a tenth of it: its own amax
     * maps to 448 too, where a per-tensor scale would leave it at 44.8 */
    double x[8] = { 1.0, -2.0, 0.5, 0.3, 0.1, -0.2, 0.05, 0.03 }, q[8], sc[2];
    quantize(x, 2, 4, q, sc);
    cr_assert_eq(sc[0], (double)(float)(2.0 / 448.0), "scale[0] %.9g", sc[0]);
    cr_assert_eq(q[1], -448.0, "row 0's largest magnitude maps to -448: %g", q[1]);
    cr_assert_eq(q[0], 224.0, "%g", q[0]);
    cr_assert_eq(q[2], 112.0, "%g", q[2]);
    cr_assert_eq(q[3], 64.0, "0.30078125 x 224 = 67.375 rounds to 64 (step 8 in [64, 128)): %g", q[3]);
    double amax1 = (double)kc_bf16_to_double(kc_double_to_bf16(0.2));
    cr_assert_eq(sc[1], (double)(float)(amax1 / 448.0), "scale[1] %.9g", sc[1]);
    cr_assert_eq(q[5], -448.0, "row 1's largest magnitude maps to -448 with its own scale: %g", q[5]);
}

Test(ref_pdl, a_row_of_zeros_takes_the_floor_scale_beside_another)
{
    double x[6] = { 0.0, -0.0, 0.0, 3.0, 1.5, -3.0 }, q[6] = { 9, 9, 9, 9, 9, 9 }, sc[2];
    quantize(x, 2, 3, q, sc);
    cr_assert_eq(sc[0], (double)(float)(1.0 / 229376.0), "scale %.9g", sc[0]);
    for (int i = 0; i < 3; i++) cr_assert_eq(q[i], 0.0, "q[%d] = %g", i, q[i]);
    cr_assert_eq(sc[1], (double)(float)(3.0 / 448.0), "scale %.9g", sc[1]);
    cr_assert_eq(q[3], 448.0, "%g", q[3]);
    cr_assert_eq(q[4], 224.0, "%g", q[4]);
    cr_assert_eq(q[5], -448.0, "%g", q[5]);
}
