/* test_ref_fp8_gemv.c — the FP8 block-scaled GEMV contracts' float64 reference:
 * e4m3 bit patterns decoded by hand, and the [ceil(N/128), ceil(K/128)]
 * row-major scale layout on a 129x129 weight (four blocks, three of them partial). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

static void f8_setup(kc_ref *r, kc_shape *s, kc_dtype xt, uint8_t *W, float *S, uint16_t *x, double *y)
{
    memset(r, 0, sizeof *r);
    const int64_t M = s->d[0], N = s->d[1], K = s->d[2];
    r->shape = s; r->nargs = 7;
    r->dtype[0] = KC_F32; r->count[0] = (size_t)(M * N); r->out[0] = y;
    r->host[1] = W; r->dtype[1] = KC_E4M3; r->count[1] = (size_t)(N * K);
    r->host[2] = S; r->dtype[2] = KC_F32; r->count[2] = (size_t)(((N + 127) / 128) * ((K + 127) / 128));
    r->host[3] = x; r->dtype[3] = xt; r->count[3] = (size_t)(M * K);
    r->dtype[4] = KC_I32; r->scalar[4] = (double)M;
    r->dtype[5] = KC_I32; r->scalar[5] = (double)N;
    r->dtype[6] = KC_I32; r->scalar[6] = (double)K;
}

/* e4m3 (bias 7): 0x38 = 1, 0x40 = 2, 0x30 = 0.5, 0xB8 = -1, 0x3C = 1.5.
 * W = [[1, 2, 0.5], [-1, 1.5, 2]], one block with scale 0.5, x = [1, 2, 4]:
 * y = 0.5 * [7, 10] = [3.5, 5]. */
Test(ref_fp8_gemv, two_rows_one_block_f16)
{
    const kc_contract *c = kc_registry_find_contract("fp8_gemv.f16");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 2, 3 } };
    uint8_t W[6] = { 0x38, 0x40, 0x30, 0xB8, 0x3C, 0x40 };
    float S[1] = { 0.5f };
    uint16_t x[3] = { 0x3c00, 0x4000, 0x4400 };      /* f16 1, 2, 4 */
    double y[2] = { 0, 0 };
    kc_ref r;
    f8_setup(&r, &s, KC_F16, W, S, x, y);
    c->reference(&r);
    cr_expect_eq(y[0], 3.5, "y[0] = %g", y[0]);
    cr_expect_eq(y[1], 5.0, "y[1] = %g", y[1]);
}

/* N = K = 129: scale blocks (nb, kb) in {0,1}^2, S = [[1, 2], [3, 4]] (row
 * block major). W all 1.0 (0x38); two batch rows, x0 = 1 and x1 = -2 (bf16):
 * rows n < 128: 128*1 + 1*2 = 130; row 128: 128*3 + 1*4 = 388; x1 gives -2x. */
Test(ref_fp8_gemv, block_scale_layout_bf16)
{
    const kc_contract *c = kc_registry_find_contract("fp8_gemv.bf16");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 2, 129, 129 } };
    uint8_t *W = malloc(129 * 129);
    cr_assert_not_null(W);
    memset(W, 0x38, 129 * 129);
    float S[4] = { 1, 2, 3, 4 };
    uint16_t x[258];
    for (int i = 0; i < 129; i++) { x[i] = 0x3f80; x[129 + i] = 0xc000; }   /* bf16 1, -2 */
    double y[258];
    kc_ref r;
    f8_setup(&r, &s, KC_BF16, W, S, x, y);
    c->reference(&r);
    for (int n = 0; n < 129; n++) {
        const double want = n < 128 ? 130.0 : 388.0;
        cr_expect_eq(y[n], want, "y[0][%d] = %g, want %g", n, y[n], want);
        cr_expect_eq(y[129 + n], -2 * want, "y[1][%d] = %g, want %g", n, y[129 + n], -2 * want);
    }
    free(W);
}
