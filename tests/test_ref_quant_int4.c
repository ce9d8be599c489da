/* test_ref_quant_int4.c — the int4 group-quantized contracts' float64
 * reference on hand-computed inputs: nibble order (even k low nibble), the odd-K
 * padding nibble ignored, per-row zero points and scales, and a partial last
 * group (K = 34, G = 32) with two token rows. */
#include <criterion/criterion.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

static void q4_setup(kc_ref *r, kc_shape *s, uint16_t *x, uint8_t *qw, uint16_t *sc, uint8_t *z, double *y)
{
    memset(r, 0, sizeof *r);
    const int64_t M = s->d[0], N = s->d[1], K = s->d[2], G = s->d[3], ng = (K + G - 1) / G;
    r->shape = s; r->nargs = 9;
    r->dtype[0] = KC_F32; r->count[0] = (size_t)(M * N); r->out[0] = y;
    r->host[1] = x; r->dtype[1] = KC_F16; r->count[1] = (size_t)(M * K);
    r->host[2] = qw; r->dtype[2] = KC_U8; r->count[2] = (size_t)(N * ((K + 1) / 2));
    r->host[3] = sc; r->dtype[3] = KC_F16; r->count[3] = (size_t)(N * ng);
    r->host[4] = z; r->dtype[4] = KC_U8; r->count[4] = (size_t)(N * ng);
    r->dtype[5] = KC_I32; r->scalar[5] = (double)M;
    r->dtype[6] = KC_I32; r->scalar[6] = (double)N;
    r->dtype[7] = KC_I32; r->scalar[7] = (double)K;
    r->dtype[8] = KC_I32; r->scalar[8] = (double)G;
}

/* N = 2, K = 3 (odd: 2 bytes per row, the high nibble of byte 1 is padding).
 * Row 0: bytes 0x21 0xF3 -> q = 1, 2, 3 (padding 0xF); z = 1, s = 0.5
 *   -> w = 0, 0.5, 1.    Row 1: bytes 0x54 0xA6 -> q = 4, 5, 6; z = 8, s = 2
 *   -> w = -8, -6, -4.   x = [1, 2, 4] -> y = [5, -36]. */
Test(ref_quant_int4, nibbles_zeros_scales_g32)
{
    const kc_contract *c = kc_registry_find_contract("quant_int4.gemv.g32");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 2, 3, 32 } };
    uint16_t x[3] = { 0x3c00, 0x4000, 0x4400 };      /* 1, 2, 4 */
    uint8_t qw[4] = { 0x21, 0xF3, 0x54, 0xA6 };
    uint16_t sc[2] = { 0x3800, 0x4000 };              /* 0.5, 2 */
    uint8_t z[2] = { 1, 8 };
    double y[2] = { 0, 0 };
    kc_ref r;
    q4_setup(&r, &s, x, qw, sc, z, y);
    c->reference(&r);
    cr_expect_eq(y[0], 5.0, "y[0] = %g", y[0]);
    cr_expect_eq(y[1], -36.0, "y[1] = %g", y[1]);
}

/* M = 2, N = 1, K = 34, G = 32: two groups, the second holding 2 elements.
 * Every nibble 9 (bytes 0x99); group 0: z = 1, s = 0.25 -> w = 2; group 1:
 * z = 5, s = 1 -> w = 4. x row 0 all 1, row 1 all 2:
 * y[0] = 32*2 + 2*4 = 72, y[1] = 144. */
Test(ref_quant_int4, partial_last_group_two_rows)
{
    const kc_contract *c = kc_registry_find_contract("quant_int4.gemm.g32");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 2, 1, 34, 32 } };
    uint16_t x[68];
    for (int i = 0; i < 34; i++) { x[i] = 0x3c00; x[34 + i] = 0x4000; }
    uint8_t qw[17];
    memset(qw, 0x99, sizeof qw);
    uint16_t sc[2] = { 0x3400, 0x3c00 };              /* 0.25, 1 */
    uint8_t z[2] = { 1, 5 };
    double y[2] = { 0, 0 };
    kc_ref r;
    q4_setup(&r, &s, x, qw, sc, z, y);
    c->reference(&r);
    cr_expect_eq(y[0], 72.0, "y[0] = %g", y[0]);
    cr_expect_eq(y[1], 144.0, "y[1] = %g", y[1]);
}

/* G = 128, K = 130: the group boundary at 128 (not 32). q = 3 everywhere
 * (bytes 0x33), z = [0, 3], s = [1, 1]: w = 3 for k < 128, 0 after; x = 1:
 * y = 384. */
Test(ref_quant_int4, group_128_boundary)
{
    const kc_contract *c = kc_registry_find_contract("quant_int4.gemv.g128");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 1, 130, 128 } };
    uint16_t x[130];
    for (int i = 0; i < 130; i++) x[i] = 0x3c00;
    uint8_t qw[65];
    memset(qw, 0x33, sizeof qw);
    uint16_t sc[2] = { 0x3c00, 0x3c00 };
    uint8_t z[2] = { 0, 3 };
    double y[1] = { 0 };
    kc_ref r;
    q4_setup(&r, &s, x, qw, sc, z, y);
    c->reference(&r);
    cr_expect_eq(y[0], 384.0, "y = %g", y[0]);
}
