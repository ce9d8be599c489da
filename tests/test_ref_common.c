/* test_ref_common.c — the library's common references (kc_ref_layernorm,
 * kc_ref_rmsnorm, kc_ref_softmax, kc_ref_gemm, kc_ref_gelu,
 * kc_ref_cross_entropy) checked against the bundled contracts' own
 * references on the same inputs, bit for bit, and against closed forms
 * where no bundled contract computes the operation. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

/* A case of contract c on shape s, built as the harness builds it: each
 * argument's name, dtype, count and scalar from the contract; IN and INOUT
 * buffers filled with normal-ish values (every `ninf_every`-th row of the
 * first input all -inf, every 3rd row with a few -inf, when ninf_every > 0);
 * two sets of outputs, one for the contract's reference and one for the
 * common one. */
typedef struct ref_case {
    kc_ref r, mine;
    void *host[KC_MAX_ARGS];
} ref_case;

static uint64_t lcg(uint64_t *st) { return *st = *st * 6364136223846793005ull + 1442695040888963407ull; }
static double draw(uint64_t *st)   /* sum of 4 uniforms, centred: ~N(0, 1/3) scaled */
{
    double s = 0;
    for (int i = 0; i < 4; i++) s += (double)(lcg(st) >> 11) / 9007199254740992.0;
    return (s - 2.0) * 1.7;
}

static void build(ref_case *k, const kc_contract *c, const kc_shape *s, int64_t cols, int ninf_every)
{
    memset(k, 0, sizeof *k);
    uint64_t st = 12345;
    kc_ref *r = &k->r;
    r->shape = s;
    r->user = c->user;
    int first_in = -1;
    for (int a = 0; a < KC_MAX_ARGS && c->args[a].kind != KC_ARG_END; a++) {
        const kc_arg *ar = &c->args[a];
        r->nargs = a + 1;
        r->name[a] = ar->name;
        r->dtype[a] = ar->dtype;
        if (ar->kind == KC_ARG_SCALAR) {
            r->scalar[a] = ar->ivalue ? (double)ar->ivalue(s) : ar->value(s);
            r->iscalar[a] = ar->ivalue ? ar->ivalue(s) : (int64_t)r->scalar[a];
            continue;
        }
        cr_assert_eq(ar->kind, KC_ARG_BUFFER, "%s: argument %s is no buffer", c->name, ar->name);
        r->count[a] = ar->count(s);
        if (ar->role != KC_OUT) {
            k->host[a] = calloc(r->count[a] + 1, kc_dtype_size(ar->dtype));
            cr_assert_not_null(k->host[a]);
            const int fill_inf = first_in < 0 && ninf_every > 0;
            if (first_in < 0) first_in = a;
            for (size_t i = 0; i < r->count[a]; i++) {
                double v = draw(&st);
                const size_t row = cols ? i / (size_t)cols : 0;
                if (fill_inf && (row % (size_t)ninf_every == 0 || (row % 3 == 1 && i % 5 == 0))) v = -INFINITY;
                kc_store(ar->dtype, k->host[a], i, v);
            }
            r->host[a] = k->host[a];
        }
        if (ar->role != KC_IN) r->out[a] = calloc(r->count[a] + 1, sizeof(double));
    }
    k->mine = *r;
    for (int a = 0; a < r->nargs; a++)
        if (r->out[a]) k->mine.out[a] = calloc(r->count[a] + 1, sizeof(double));
}

/* The contract's own reference, then every output of both sets compared
 * bit for bit (NaN matching NaN). */
static void expect_same_bits(ref_case *k, const kc_contract *c)
{
    c->reference(&k->r);
    for (int a = 0; a < k->r.nargs; a++) {
        if (!k->r.out[a]) continue;
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < k->r.count[a]; i++) {
            const double x = k->r.out[a][i], y = k->mine.out[a][i];
            if (memcmp(&x, &y, sizeof x) && !(isnan(x) && isnan(y))) {
                if (!bad++) first = i;
            }
        }
        cr_expect_eq(bad, 0, "%s shape %s: output %s: %zu of %zu elements differ, first [%zu] contract %.17g common %.17g",
                     c->name, k->r.shape->name, k->r.name[a], bad, k->r.count[a], first, k->r.out[a][first],
                     k->mine.out[a][first]);
    }
}

static void done(ref_case *k)
{
    for (int a = 0; a < KC_MAX_ARGS; a++) {
        free(k->host[a]);
        free(k->r.out[a]);
        free(k->mine.out[a]);
    }
}

static const kc_contract *find(const char *name)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s is not registered in the test binary", name);
    return c;
}

Test(ref_common, layernorm_matches_the_bundled_contracts_bitwise)
{
    static const char *const names[] = { "layernorm.f32", "layernorm.f16", "layernorm.bf16" };
    static const kc_shape shapes[] = { { "t7.h33", KC_SHAPE_EDGE, { 7, 33, 5 } },
                                       { "t3.h1", KC_SHAPE_EDGE, { 3, 1, 6 } },
                                       { "t5.h768", KC_SHAPE_EDGE, { 5, 768, 5 } } };
    for (int n = 0; n < 3; n++)
        for (int i = 0; i < 3; i++) {
            const kc_contract *c = find(names[n]);
            ref_case k;
            build(&k, c, &shapes[i], 0, 0);
            /* the kernel gets eps as an f32 scalar: the contract's reference uses that value */
            kc_ref_layernorm(&k.mine, "out", "x", "w", "b", (size_t)shapes[i].d[1],
                             (double)kc_double_to_f32(k.r.scalar[kc_ref_arg(&k.r, "eps")]));
            expect_same_bits(&k, c);
            done(&k);
        }
}

Test(ref_common, rmsnorm_matches_the_bundled_contracts_bitwise)
{
    static const char *const names[] = { "rmsnorm.f32", "rmsnorm.f16", "rmsnorm.bf16" };
    static const kc_shape shapes[] = { { "t7.h31", KC_SHAPE_EDGE, { 7, 31, 5 } },
                                       { "t2.h4096", KC_SHAPE_EDGE, { 2, 4096, 6 } } };
    for (int n = 0; n < 3; n++)
        for (int i = 0; i < 2; i++) {
            const kc_contract *c = find(names[n]);
            ref_case k;
            build(&k, c, &shapes[i], 0, 0);
            kc_ref_rmsnorm(&k.mine, "out", "x", "w", (size_t)shapes[i].d[1], k.r.scalar[kc_ref_arg(&k.r, "eps")]);
            expect_same_bits(&k, c);
            done(&k);
        }
}

/* With rows all -inf (NaN, the stated convention) and rows with some -inf
 * entries (exact zeros there). */
Test(ref_common, softmax_matches_the_bundled_contracts_bitwise_with_inf_rows)
{
    static const char *const names[] = { "softmax.f32", "softmax.f16", "softmax.bf16" };
    static const kc_shape shapes[] = { { "r9.c33", KC_SHAPE_EDGE, { 9, 33 } }, { "r4.c1000", KC_SHAPE_EDGE, { 4, 1000 } } };
    for (int n = 0; n < 3; n++)
        for (int i = 0; i < 2; i++) {
            const kc_contract *c = find(names[n]);
            ref_case k;
            build(&k, c, &shapes[i], shapes[i].d[1], 4);
            kc_ref_softmax(&k.mine, "out", "in", (size_t)shapes[i].d[1]);
            expect_same_bits(&k, c);
            const double *y = k.mine.out[0];
            cr_expect(isnan(y[0]) && isnan(y[shapes[i].d[1] - 1]), "%s: row 0 is all -inf: NaN expected, got %g", names[n], y[0]);
            const size_t j = ((size_t)shapes[i].d[1] + 4) / 5 * 5;     /* row 1's first -inf entry */
            cr_expect_eq(y[j], 0.0, "%s: entry %zu (row 1) is -inf: exact 0 expected, got %g", names[n], j, y[j]);
            done(&k);
        }
}

Test(ref_common, gemm_by_names_matches_the_bundled_nt_reference_bitwise)
{
    static const char *const names[] = { "gemm.64x64.f16", "gemm.64x64.bf16" };
    static const kc_shape shapes[] = { { "m33.n17.k40", KC_SHAPE_EDGE, { 33, 17, 40 } },
                                       { "m1.n300.k64", KC_SHAPE_EDGE, { 1, 300, 64 } } };
    for (int n = 0; n < 2; n++)
        for (int i = 0; i < 2; i++) {
            const kc_contract *c = find(names[n]);
            ref_case k;
            build(&k, c, &shapes[i], 0, 0);
            kc_ref_gemm(&k.mine, &(kc_gemm_spec){ .c = "C", .a = "A", .b = "B", .m = shapes[i].d[0],
                                                  .n = shapes[i].d[1], .k = shapes[i].d[2] });
            expect_same_bits(&k, c);
            done(&k);
        }
}

/* f32 inputs, B as [K, N], a bias: the k-order double sum plus the bias,
 * written out naively, bit for bit (f32 products are exact in double). */
Test(ref_common, gemm_f32_nn_with_bias_is_the_k_order_sum_plus_bias)
{
    enum { M = 5, N = 37, K = 19 };
    static float A[M * K], B[K * N], bias[N];
    uint64_t st = 7;
    for (int i = 0; i < M * K; i++) A[i] = (float)draw(&st);
    for (int i = 0; i < K * N; i++) B[i] = (float)draw(&st);
    for (int i = 0; i < N; i++) bias[i] = (float)draw(&st);
    static double C[M * N];
    kc_shape s = { "m5.n37.k19", KC_SHAPE_EDGE, { M, N, K } };
    kc_ref r = { .shape = &s, .nargs = 4, .name = { "C", "A", "B", "bias" }, .dtype = { KC_F32, KC_F32, KC_F32, KC_F32 },
                 .count = { M * N, M * K, K * N, N }, .host = { NULL, A, B, bias }, .out = { C } };
    kc_ref_gemm(&r, &(kc_gemm_spec){ .c = "C", .a = "A", .b = "B", .bias = "bias", .m = M, .n = N, .k = K, .b_kn = 1 });
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double sum = 0;
            for (int k = 0; k < K; k++) sum += (double)A[m * K + k] * (double)B[k * N + n];
            sum += (double)bias[n];
            cr_expect_eq(C[m * N + n], sum, "C[%d][%d] = %.17g, k-order sum + bias %.17g", m, n, C[m * N + n], sum);
        }
}

static void expect_near(double got, double want, double rel, const char *what)
{
    cr_expect(fabs(got - want) <= rel * fabs(want), "%s = %.17g, expected %.17g (within %g relative)", what, got, want, rel);
}

/* Closed forms: GELU_erf(x) = x Phi(x) (Phi(1) = 0.8413447460685429,
 * Phi(-10) = 7.6198530241605260e-24: no cancellation lost there); the tanh
 * form at 1 from its formula; the limits at +-inf; NaN kept. */
Test(ref_common, gelu_both_forms_against_closed_forms)
{
    expect_near(kc_gelu(1.0, KC_GELU_ERF), 0.8413447460685429, 4e-16, "gelu_erf(1)");
    expect_near(kc_gelu(-1.0, KC_GELU_ERF), -0.15865525393145707, 4e-16, "gelu_erf(-1)");
    expect_near(kc_gelu(-10.0, KC_GELU_ERF), -7.6198530241605260e-23, 1e-14, "gelu_erf(-10)");
    expect_near(kc_gelu(1.0, KC_GELU_TANH), 0.5 * (1 + tanh(sqrt(2 / M_PI) * 1.044715)), 4e-16, "gelu_tanh(1)");
    const double u = sqrt(2 / M_PI) * (-10 + 0.044715 * -1000);   /* 1 + tanh(u) = 2 e^{2u} / (1 + e^{2u}) */
    expect_near(kc_gelu(-10.0, KC_GELU_TANH), -5 * 2 * exp(2 * u) / (1 + exp(2 * u)), 1e-14, "gelu_tanh(-10)");
    cr_expect_eq(kc_gelu(INFINITY, KC_GELU_ERF), INFINITY);
    cr_expect(kc_gelu(-INFINITY, KC_GELU_TANH) == 0 && signbit(kc_gelu(-INFINITY, KC_GELU_TANH)), "gelu(-inf) = -0");
    cr_expect(isnan(kc_gelu(NAN, KC_GELU_ERF)));
    uint16_t x[3] = { kc_double_to_bf16(1.0), kc_double_to_bf16(-1.0), kc_double_to_bf16(0.0) };
    double y[3];
    kc_shape s = { "n3", KC_SHAPE_EDGE, { 3 } };
    kc_ref r = { .shape = &s, .nargs = 2, .name = { "y", "x" }, .dtype = { KC_BF16, KC_BF16 }, .count = { 3, 3 },
                 .host = { NULL, x }, .out = { y } };
    kc_ref_gelu(&r, "y", "x", KC_GELU_ERF);
    cr_expect_eq(y[0], kc_gelu(1.0, KC_GELU_ERF));
    cr_expect_eq(y[1], kc_gelu(-1.0, KC_GELU_ERF));
    cr_expect_eq(y[2], 0.0);
}

/* loss = -log(softmax(x)[t]) (computed through the common softmax), 0 where
 * the target is ignore_index, NaN on a row all -inf. */
Test(ref_common, cross_entropy_is_minus_log_softmax_at_the_target)
{
    enum { R = 4, C = 6 };
    float x[R * C];
    uint64_t st = 99;
    for (int i = 0; i < R * C; i++) x[i] = (float)draw(&st);
    for (int i = 0; i < C; i++) x[3 * C + i] = -INFINITY;
    int32_t t[R] = { 2, 5, -100, 0 };
    double loss[R], p[R * C];
    kc_shape s = { "r4.c6", KC_SHAPE_EDGE, { R, C } };
    kc_ref r = { .shape = &s, .nargs = 4, .name = { "loss", "x", "target", "p" },
                 .dtype = { KC_F64, KC_F32, KC_I32, KC_F64 }, .count = { R, R * C, R, R * C },
                 .host = { NULL, x, t }, .out = { loss, NULL, NULL, p } };
    kc_ref_cross_entropy(&r, "loss", "x", "target", C, -100);
    kc_ref_softmax(&r, "p", "x", C);
    expect_near(loss[0], -log(p[0 * C + 2]), 1e-14, "loss[0]");
    expect_near(loss[1], -log(p[1 * C + 5]), 1e-14, "loss[1]");
    cr_expect_eq(loss[2], 0.0, "ignored row: loss %g", loss[2]);
    cr_expect(isnan(loss[3]), "row all -inf: loss %g, expected NaN", loss[3]);
}

/* A target out of range that is not ignore_index is refused (abort). */
Test(ref_common, cross_entropy_refuses_a_target_out_of_range, .signal = SIGABRT)
{
    float x[4] = { 0, 1, 2, 3 };
    int32_t t[2] = { 1, 2 };
    double loss[2];
    kc_shape s = { "r2.c2", KC_SHAPE_EDGE, { 2, 2 } };
    kc_ref r = { .shape = &s, .nargs = 3, .name = { "loss", "x", "target" }, .dtype = { KC_F64, KC_F32, KC_I32 },
                 .count = { 2, 4, 2 }, .host = { NULL, x, t }, .out = { loss } };
    kc_ref_cross_entropy(&r, "loss", "x", "target", 2, -100);
}

/* cols that do not divide the input are refused, not rounded down. */
Test(ref_common, softmax_refuses_cols_not_dividing_the_input, .signal = SIGABRT)
{
    float x[5] = { 0 };
    double y[5];
    kc_shape s = { "n5", KC_SHAPE_EDGE, { 5 } };
    kc_ref r = { .shape = &s, .nargs = 2, .name = { "y", "x" }, .dtype = { KC_F64, KC_F32 }, .count = { 5, 5 },
                 .host = { NULL, x }, .out = { y } };
    kc_ref_softmax(&r, "y", "x", 2);
}

/* K = 0: every element of C is the empty sum, 0, plus the bias. */
Test(ref_common, gemm_with_k_zero_is_the_bias)
{
    float bias[3] = { 1.5f, -2, 0 };
    double C[6] = { 9, 9, 9, 9, 9, 9 };
    kc_shape s = { "m2.n3.k0", KC_SHAPE_EDGE, { 2, 3, 0 } };
    kc_ref r = { .shape = &s, .nargs = 4, .name = { "C", "A", "B", "bias" }, .dtype = { KC_F32, KC_BF16, KC_BF16, KC_F32 },
                 .count = { 6, 0, 0, 3 }, .host = { NULL, bias, bias, bias }, .out = { C } };
    kc_ref_gemm(&r, &(kc_gemm_spec){ .c = "C", .a = "A", .b = "B", .bias = "bias", .m = 2, .n = 3, .k = 0 });
    for (int i = 0; i < 6; i++) cr_expect_eq(C[i], (double)bias[i % 3], "C[%d] = %g", i, C[i]);
}

/* An output whose count is not M x N is refused (abort), not half written. */
Test(ref_common, gemm_refuses_an_output_of_the_wrong_size, .signal = SIGABRT)
{
    float a[4] = { 0 };
    double C[3];
    kc_shape s = { "m2.n2.k1", KC_SHAPE_EDGE, { 2, 2, 1 } };
    kc_ref r = { .shape = &s, .nargs = 3, .name = { "C", "A", "B" }, .dtype = { KC_F32, KC_F32, KC_F32 },
                 .count = { 3, 2, 2 }, .host = { NULL, a, a }, .out = { C } };
    kc_ref_gemm(&r, &(kc_gemm_spec){ .c = "C", .a = "A", .b = "B", .m = 2, .n = 2, .k = 1 });
}
