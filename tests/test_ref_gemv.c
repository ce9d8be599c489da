/* test_ref_gemv.c — the gemv contracts' float64 reference on a 2x3 matrix. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

/* f16 bit patterns */
#define H_0 0x0000
#define H_1 0x3c00
#define H_2 0x4000
#define H_3 0x4200
#define H_4 0x4400
#define H_HALF 0x3800
#define H_M1 0xbc00

Test(ref_gemv, two_by_three_f16)
{
    const kc_contract *c = kc_registry_find_contract("gemv.f16");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 2, 3, 3 } };
    /* W = [[1, 2, 3], [4, -1, 0.5]], x = [1, 2, 4] -> y = [17, 4] */
    uint16_t W[6] = { H_1, H_2, H_3, H_4, H_M1, H_HALF };
    uint16_t x[3] = { H_1, H_2, H_4 };
    double y[2] = { 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 7;
    r.dtype[0] = KC_F32; r.count[0] = 2; r.out[0] = y;
    r.host[1] = W; r.dtype[1] = KC_F16; r.count[1] = 6;
    r.host[2] = x; r.dtype[2] = KC_F16; r.count[2] = 3;
    r.dtype[3] = KC_I32; r.scalar[3] = 1;
    r.dtype[4] = KC_I32; r.scalar[4] = 2;
    r.dtype[5] = KC_I32; r.scalar[5] = 3;
    r.dtype[6] = KC_I64; r.scalar[6] = 3;
    c->reference(&r);
    cr_assert_eq(y[0], 17.0, "y[0] = %g", y[0]);
    cr_assert_eq(y[1], 4.0, "y[1] = %g", y[1]);
}

Test(ref_gemv, batch_with_row_stride_bf16)
{
    const kc_contract *c = kc_registry_find_contract("gemv.batch.bf16");
    cr_assert_not_null(c);
    /* M = 2, N = 2, K = 3, ldx = 4: x row 1 starts at element 4 (element 3 is padding) */
    kc_shape s = { "test", KC_SHAPE_EDGE, { 2, 2, 3, 4 } };
    /* bf16 bits: 1 = 0x3f80, 2 = 0x4000, 3 = 0x4040, -1 = 0xbf80, 100 = 0x42c8 */
    uint16_t W[6] = { 0x3f80, 0x4000, 0x4040, 0xbf80, 0x3f80, 0x3f80 };  /* [[1,2,3],[-1,1,1]] */
    uint16_t x[7] = { 0x3f80, 0x3f80, 0x3f80, 0x42c8, 0x4000, 0x0000, 0xbf80 };
    double y[4] = { 0, 0, 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 7;
    r.dtype[0] = KC_F32; r.count[0] = 4; r.out[0] = y;
    r.host[1] = W; r.dtype[1] = KC_BF16; r.count[1] = 6;
    r.host[2] = x; r.dtype[2] = KC_BF16; r.count[2] = 7;
    r.dtype[3] = KC_I32; r.scalar[3] = 2;
    r.dtype[4] = KC_I32; r.scalar[4] = 2;
    r.dtype[5] = KC_I32; r.scalar[5] = 3;
    r.dtype[6] = KC_I64; r.scalar[6] = 4;
    c->reference(&r);
    /* x0 = [1,1,1]: y[0][0] = 6, y[0][1] = 1; x1 = [2,0,-1]: y[1][0] = -1, y[1][1] = -3 */
    cr_assert_eq(y[0], 6.0, "y = %g", y[0]);
    cr_assert_eq(y[1], 1.0, "y = %g", y[1]);
    cr_assert_eq(y[2], -1.0, "y = %g", y[2]);
    cr_assert_eq(y[3], -3.0, "y = %g", y[3]);
}
