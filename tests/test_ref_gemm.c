/* test_ref_gemm.c — the gemm contracts' float64 reference: a hand-computed
 * 2x3 product (NT layout: B stored [N, K]) in f16 and bf16, and the threaded
 * path (N not a multiple of the 16-column blocks or the 4-column sweeps)
 * against a plain triple loop on small integers (exact in double). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"
#include "dtype.h"

static void gemm_ref_setup(kc_ref *r, kc_shape *s, kc_dtype dt, uint16_t *A, uint16_t *B, double *C)
{
    memset(r, 0, sizeof *r);
    const int64_t M = s->d[0], N = s->d[1], K = s->d[2];
    r->shape = s; r->nargs = 6;
    r->dtype[0] = KC_F32; r->count[0] = (size_t)(M * N); r->out[0] = C;
    r->host[1] = A; r->dtype[1] = dt; r->count[1] = (size_t)(M * K);
    r->host[2] = B; r->dtype[2] = dt; r->count[2] = (size_t)(N * K);
    r->dtype[3] = KC_I32; r->scalar[3] = (double)M;
    r->dtype[4] = KC_I32; r->scalar[4] = (double)N;
    r->dtype[5] = KC_I32; r->scalar[5] = (double)K;
}

/* A = [[1, 2], [3, -1]], B = [[1, 0], [0.5, 2], [-1, 4]] (rows are output
 * columns): C = A * B^T = [[1, 4.5, 7], [3, -0.5, -7]]. */
static void two_by_three(const char *name, kc_dtype dt)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "%s", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 2, 3, 2 } };
    const double a[4] = { 1, 2, 3, -1 }, b[6] = { 1, 0, 0.5, 2, -1, 4 };
    uint16_t A[4], B[6];
    for (int i = 0; i < 4; i++) A[i] = dt == KC_F16 ? kc_double_to_f16(a[i]) : kc_double_to_bf16(a[i]);
    for (int i = 0; i < 6; i++) B[i] = dt == KC_F16 ? kc_double_to_f16(b[i]) : kc_double_to_bf16(b[i]);
    double C[6];
    for (int i = 0; i < 6; i++) C[i] = -999;
    kc_ref r;
    gemm_ref_setup(&r, &s, dt, A, B, C);
    c->reference(&r);
    const double want[6] = { 1, 4.5, 7, 3, -0.5, -7 };
    for (int i = 0; i < 6; i++) cr_expect_eq(C[i], want[i], "%s: C[%d] = %g, want %g", name, i, C[i], want[i]);
}

Test(ref_gemm, two_by_three_f16) { two_by_three("gemm.64x64.f16", KC_F16); }
Test(ref_gemm, two_by_three_bf16) { two_by_three("gemm.128x128.bf16", KC_BF16); }

/* f16 bit patterns checked by hand: 1 = 0x3c00, -1 = 0xbc00, 0.5 = 0x3800. */
Test(ref_gemm, f16_bits_one_by_one)
{
    const kc_contract *c = kc_registry_find_contract("gemm.128x128.f16");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 1, 3 } };
    uint16_t A[3] = { 0x3c00, 0xbc00, 0x3800 }, B[3] = { 0x3800, 0x3c00, 0xbc00 };  /* 0.5 - 1 - 0.5 */
    double C[1] = { 0 };
    kc_ref r;
    gemm_ref_setup(&r, &s, KC_F16, A, B, C);
    c->reference(&r);
    cr_expect_eq(C[0], -1.0, "C = %g", C[0]);
}

/* M = 40, N = 300, K = 3000: 3.6e7 multiply-adds over 2 x 2 tiles of C (32
 * rows by 256 columns, both last tiles partial), run on several threads.
 * Entries are integers in [-8, 8], so every sum is exact and the result must
 * equal the plain loop bit for bit whatever the split. */
Test(ref_gemm, threaded_matches_plain_loop)
{
    const kc_contract *c = kc_registry_find_contract("gemm.64x64.bf16");
    cr_assert_not_null(c);
    const int64_t M = 40, N = 300, K = 3000;
    kc_shape s = { "test", KC_SHAPE_EDGE, { M, N, K } };
    uint16_t *A = malloc((size_t)(M * K) * 2), *B = malloc((size_t)(N * K) * 2);
    double *C = malloc((size_t)(M * N) * sizeof *C);
    cr_assert(A && B && C);
    uint32_t x = 12345;
    for (int64_t i = 0; i < M * K; i++) { x = x * 1664525u + 1013904223u; A[i] = kc_double_to_bf16((double)((int)(x >> 24) % 17 - 8)); }
    for (int64_t i = 0; i < N * K; i++) { x = x * 1664525u + 1013904223u; B[i] = kc_double_to_bf16((double)((int)(x >> 24) % 17 - 8)); }
    for (int64_t i = 0; i < M * N; i++) C[i] = -1e300;
    kc_ref r;
    gemm_ref_setup(&r, &s, KC_BF16, A, B, C);
    c->reference(&r);
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double acc = 0;
            for (int64_t k = 0; k < K; k++) acc += kc_bf16_to_double(A[m * K + k]) * kc_bf16_to_double(B[n * K + k]);
            cr_assert_eq(C[m * N + n], acc, "C[%lld][%lld] = %g, want %g", (long long)m, (long long)n, C[m * N + n], acc);
        }
    free(A); free(B); free(C);
}
