/* test_ref_cublas_gemm.c — the cuBLAS GEMM contracts' float64 reference
 * (kc_ref_gemm_nt, shared with gemm_tc): a hand-computed 2x3 NT product in
 * f16 and bf16, and a 3x2 (M > N) one whose transpose (the mn_swapped
 * control's layout) differs from it; plus the contracts' shape: a library
 * kernel with C, A, B, M, N, K. */
#include <criterion/criterion.h>
#include <string.h>
#include "dtype.h"
#include "kcontract.h"
#include "registry.h"

static void run_ref(const kc_contract *c, kc_dtype dt, int64_t M, int64_t N, int64_t K, const double *a,
                    const double *b, double *C)
{
    kc_shape s = { "test", KC_SHAPE_EDGE, { M, N, K } };
    uint16_t A[16], B[16];
    for (int64_t i = 0; i < M * K; i++) A[i] = dt == KC_F16 ? kc_double_to_f16(a[i]) : kc_double_to_bf16(a[i]);
    for (int64_t i = 0; i < N * K; i++) B[i] = dt == KC_F16 ? kc_double_to_f16(b[i]) : kc_double_to_bf16(b[i]);
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 6;
    r.dtype[0] = KC_F32; r.count[0] = (size_t)(M * N); r.out[0] = C;
    r.host[1] = A; r.dtype[1] = dt; r.count[1] = (size_t)(M * K);
    r.host[2] = B; r.dtype[2] = dt; r.count[2] = (size_t)(N * K);
    r.dtype[3] = KC_I32; r.scalar[3] = (double)M;
    r.dtype[4] = KC_I32; r.scalar[4] = (double)N;
    r.dtype[5] = KC_I32; r.scalar[5] = (double)K;
    c->reference(&r);
}

/* A = [[1, 2], [3, -1]], B = [[1, 0], [0.5, 2], [-1, 4]] (rows are output
 * columns): C = A B^T = [[1, 4.5, 7], [3, -0.5, -7]]. */
static void two_by_three(const char *name, kc_dtype dt)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "%s", name);
    const double a[4] = { 1, 2, 3, -1 }, b[6] = { 1, 0, 0.5, 2, -1, 4 };
    double C[6];
    for (int i = 0; i < 6; i++) C[i] = -999;
    run_ref(c, dt, 2, 3, 2, a, b, C);
    const double want[6] = { 1, 4.5, 7, 3, -0.5, -7 };
    for (int i = 0; i < 6; i++) cr_expect_eq(C[i], want[i], "%s: C[%d] = %g, want %g", name, i, C[i], want[i]);
}

Test(ref_cublas_gemm, two_by_three_f16) { two_by_three("cublas_gemm.f16", KC_F16); }
Test(ref_cublas_gemm, two_by_three_bf16) { two_by_three("cublas_gemm.bf16", KC_BF16); }

/* M = 3, N = 2, K = 1: A = [1, 2, 3]^T, B = [10, -0.25]^T: C = [[10, -0.25],
 * [20, -0.5], [30, -0.75]]; written transposed it would read [10, 20, 30,
 * -0.25, -0.5, -0.75], which gate 3 tells apart. */
Test(ref_cublas_gemm, three_by_two_k1_differs_from_its_transpose)
{
    const kc_contract *c = kc_registry_find_contract("cublas_gemm.f16");
    cr_assert_not_null(c);
    const double a[3] = { 1, 2, 3 }, b[2] = { 10, -0.25 };
    double C[6];
    run_ref(c, KC_F16, 3, 2, 1, a, b, C);
    const double want[6] = { 10, -0.25, 20, -0.5, 30, -0.75 }, transposed[6] = { 10, 20, 30, -0.25, -0.5, -0.75 };
    int differs = 0;
    for (int i = 0; i < 6; i++) {
        cr_expect_eq(C[i], want[i], "C[%d] = %g, want %g", i, C[i], want[i]);
        differs += C[i] != transposed[i];
    }
    cr_expect_gt(differs, 0);
}

Test(ref_cublas_gemm, contracts_are_library_kernels_with_the_gemm_layout)
{
    const char *names[] = { "cublas_gemm.f16", "cublas_gemm.bf16" };
    for (int i = 0; i < 2; i++) {
        const kc_contract *c = kc_registry_find_contract(names[i]);
        cr_assert_not_null(c, "%s", names[i]);
        cr_expect_str_eq(c->library, "kc_cublas");
        cr_expect_null(c->module);
        cr_expect_str_eq(c->args[0].name, "C");
        cr_expect_eq(c->args[0].role, KC_OUT);
        cr_expect_eq(c->args[0].dtype, KC_F32);
        cr_expect_eq(c->args[1].dtype, i ? KC_BF16 : KC_F16);
        cr_expect_eq(c->args[5].kind, KC_ARG_SCALAR);
        int controls = 0;
        while (controls < KC_MAX_CONTROLS && c->controls[controls].name) controls++;
        cr_expect_geq(controls, 3, "%s", names[i]);
        /* the first shape has N = K, where transpose_flipped is a valid call with wrong values */
        cr_expect_eq(c->shapes[0].d[1], c->shapes[0].d[2], "%s: first shape %s", names[i], c->shapes[0].name);
        cr_expect_gt(c->shapes[0].d[0], 1, "%s: mn_swapped needs M > 1 on the first shape", names[i]);
    }
}
