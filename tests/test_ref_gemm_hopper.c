/* test_ref_gemm_hopper.c — gemm_hopper.fp8's float64 reference on hand-made
 * tensors (e4m3 codes decoded by hand; the [M, ceil(K/128)] activation and
 * [ceil(N/128), ceil(K/128)] weight scale layouts on a 129x129 weight, three
 * of its four scale blocks partial), and its scale generator's promise: at
 * most 8 significant bits, so the reference's products are exact. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

enum { C_ = 0, A_ = 1, B_ = 2, TMA_ = 3, TMB_ = 4, SA_ = 5, SB_ = 6 };

static void gh_setup(kc_ref *r, const kc_shape *s, uint8_t *A, uint8_t *B, float *SA, float *SB, double *C)
{
    memset(r, 0, sizeof *r);
    const int64_t M = s->d[0], N = s->d[1], K = s->d[2], nkb = (K + 127) / 128;
    r->shape = s; r->nargs = 10;
    r->dtype[C_] = KC_F32; r->count[C_] = (size_t)(M * N); r->out[C_] = C;
    r->host[A_] = A; r->dtype[A_] = KC_E4M3; r->count[A_] = (size_t)(M * K);
    r->host[B_] = B; r->dtype[B_] = KC_E4M3; r->count[B_] = (size_t)(N * K);
    r->host[TMA_] = A; r->dtype[TMA_] = KC_E4M3; r->count[TMA_] = (size_t)(M * K);   /* a map sees its buffer */
    r->host[TMB_] = B; r->dtype[TMB_] = KC_E4M3; r->count[TMB_] = (size_t)(N * K);
    r->host[SA_] = SA; r->dtype[SA_] = KC_F32; r->count[SA_] = (size_t)(M * nkb);
    r->host[SB_] = SB; r->dtype[SB_] = KC_F32; r->count[SB_] = (size_t)(((N + 127) / 128) * nkb);
    for (int a = 7; a < 10; a++) { r->dtype[a] = KC_I32; r->scalar[a] = (double)s->d[a - 7]; r->iscalar[a] = s->d[a - 7]; }
}

/* e4m3 (bias 7): 0x38 = 1, 0x40 = 2, 0x30 = 0.5, 0xB8 = -1, 0x3C = 1.5.
 * A = [1, 2, 0.5] with scale 0.5; B = [[-1, 1.5, 2], [1, 1, 1]] with scale 2:
 * C = 0.5 * 2 * [-1 + 3 + 1, 1 + 2 + 0.5] = [3, 3.5]. */
Test(ref_gemm_hopper, one_block_decodes_and_scales)
{
    const kc_contract *c = kc_registry_find_contract("gemm_hopper.fp8");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 2, 3 } };
    uint8_t A[3] = { 0x38, 0x40, 0x30 }, B[6] = { 0xB8, 0x3C, 0x40, 0x38, 0x38, 0x38 };
    float SA[1] = { 0.5f }, SB[1] = { 2.0f };
    double C[2] = { 0, 0 };
    kc_ref r;
    gh_setup(&r, &s, A, B, SA, SB, C);
    c->reference(&r);
    cr_expect_eq(C[0], 3.0, "C[0][0] = %g, want 3", C[0]);
    cr_expect_eq(C[1], 3.5, "C[0][1] = %g, want 3.5", C[1]);
}

/* M = 2, N = K = 129, every A and B element 1.0: C[m][n] = 128 SA[m][0]
 * SB[n/128][0] + SA[m][1] SB[n/128][1]. SA = [[1, 2], [3, 4]] (row m), SB =
 * [[1, 0.5], [0.25, 2]] (row block): m 0: 129 (n < 128), 36 (n = 128);
 * m 1: 386, 104. */
Test(ref_gemm_hopper, scale_layouts_per_row_and_per_block)
{
    const kc_contract *c = kc_registry_find_contract("gemm_hopper.fp8");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 2, 129, 129 } };
    uint8_t *A = malloc(2 * 129), *B = malloc(129 * 129);
    double *C = malloc(2 * 129 * sizeof *C);
    cr_assert(A && B && C);
    memset(A, 0x38, 2 * 129);
    memset(B, 0x38, 129 * 129);
    float SA[4] = { 1, 2, 3, 4 }, SB[4] = { 1, 0.5f, 0.25f, 2 };
    kc_ref r;
    gh_setup(&r, &s, A, B, SA, SB, C);
    c->reference(&r);
    const double want[2][2] = { { 129, 36 }, { 386, 104 } };
    for (int m = 0; m < 2; m++)
        for (int n = 0; n < 129; n++)
            cr_expect_eq(C[m * 129 + n], want[m][n == 128], "C[%d][%d] = %g, want %g", m, n, C[m * 129 + n],
                         want[m][n == 128]);
    free(A); free(B); free(C);
}

/* The scale buffers' generator: every value i / 128 with i in [32, 255] (8
 * significant bits at most), and both ends of the range drawn in 4096 values. */
Test(ref_gemm_hopper, scales_have_eight_significant_bits)
{
    const kc_contract *c = kc_registry_find_contract("gemm_hopper.fp8");
    cr_assert_not_null(c);
    cr_assert_str_eq(c->args[SA_].name, "SA");
    cr_assert_not_null(c->args[SA_].gen);
    float v[4096];
    kc_gen g;
    memset(&g, 0, sizeof g);
    g.dtype = KC_F32; g.data = v; g.count = 4096;
    g.rng[0] = 1; g.rng[1] = 2; g.rng[2] = 3; g.rng[3] = 4;
    c->args[SA_].gen(&g);
    int lo = 0, hi = 0;
    for (int i = 0; i < 4096; i++) {
        const double x = (double)v[i] * 128.0;
        cr_assert(x == floor(x) && x >= 32 && x <= 255, "scale %d = %.9g: want i / 128 with i in [32, 255]", i, (double)v[i]);
        lo |= x == 32;
        hi |= x == 255;
    }
    cr_expect(lo && hi, "4096 scales should reach both ends, 0.25 and 255/128 (lo %d, hi %d)", lo, hi);
}
