/* test_error_model.c — gate 3's error statistics and their verdict
 * (error_model.h): the ulp of every dtype, the statistics a scan gathers, the
 * model in force (argument, contract, default by dtype), and the verdict on
 * synthetic outputs: rounded once to nearest passes at any size; a truncating
 * store, a value rounded twice and a bias of a tenth of an ulp fail, within
 * tolerance, naming the test and the figures. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_rules.h"
#include "dtype.h"
#include "error_model.h"
#include "registry.h"
#include "gen_stream.h"
#include "tolerance.h"

Test(error_model, ulp_of_every_float_dtype)
{
    int mb, em;
    cr_assert(kc_rule_ulp_params(KC_BF16, &mb, &em));
    cr_expect_eq(kc_rule_ulp(1.0, mb, em), 0x1p-7);
    cr_expect_eq(kc_rule_ulp(-1.99, mb, em), 0x1p-7);
    cr_expect_eq(kc_rule_ulp(2.0, mb, em), 0x1p-6);
    kc_rule_ulp_params(KC_F16, &mb, &em);
    cr_expect_eq(kc_rule_ulp(1.0, mb, em), 0x1p-10);
    cr_expect_eq(kc_rule_ulp(0.0, mb, em), 0x1p-24, "f16's subnormal spacing at zero");
    cr_expect_eq(kc_rule_ulp(1e-7, mb, em), 0x1p-24);
    kc_rule_ulp_params(KC_F32, &mb, &em);
    cr_expect_eq(kc_rule_ulp(3.0, mb, em), 0x1p-22);
    kc_rule_ulp_params(KC_E4M3, &mb, &em);
    cr_expect_eq(kc_rule_ulp(448.0, mb, em), 32.0);
    kc_rule_ulp_params(KC_F64, &mb, &em);
    cr_expect_eq(kc_rule_ulp(1.0, mb, em), 0x1p-52);
    cr_expect_eq(kc_rule_ulp(0.0, mb, em), 0x1p-1074);
    cr_expect_eq(kc_rule_ulp_params(KC_I32, &mb, &em), 0);
}

/* n bf16 outputs of ref = normal values: rounded by `how` (0 nearest, 1
 * toward zero, 2 twice: to 9 bits then to bf16's 8, 3 nearest of ref + 0.1
 * ulp) and their statistics. */
static kc_err_stats stats_of(size_t n, int how)
{
    double *ref = malloc(n * sizeof *ref);
    uint16_t *out = malloc(n * 2);
    cr_assert(ref && out);
    for (size_t i = 0; i < n; i++) {
        double r = kc_stream_float(KC_F64, KC_NORMAL, 3, i);
        ref[i] = r;
        uint16_t h = kc_double_to_bf16(r);
        int e = r != 0 ? ilogb(r) : 0;      /* ilogb(0) is INT_MIN */
        if (how == 1 && fabs(kc_bf16_to_double(h)) > fabs(r)) h--;
        if (how == 2) h = kc_double_to_bf16((double)(float)ldexp(nearbyint(ldexp(r, 8 - e)), e - 8));
        if (how == 3) h = kc_double_to_bf16(r + 0.1 * ldexp(1.0, e - 7));
        out[i] = h;
    }
    kc_compare cmp;
    kc_compare_output(KC_BF16, out, ref, n, kc_tol_default(KC_BF16), &cmp);
    free(ref);
    free(out);
    return cmp.stats;
}

Test(error_model, rounded_once_passes_at_every_size)
{
    kc_errors m = { KC_ERRORS_ROUNDED, KC_ERRORS_SLACK, "test" };
    char why[512] = "";
    static const size_t sizes[] = { 1, 7, 1000, 1 << 20 };
    for (size_t k = 0; k < 4; k++) {
        kc_err_stats st = stats_of(sizes[k], 0);
        /* near zero (|ref| < atol / rtol) the absolute tolerance governs: left out */
        cr_expect(st.n <= sizes[k] && st.n >= sizes[k] - sizes[k] / 500, "n %zu: %zu in the relative regime", sizes[k], st.n);
        cr_expect_leq(st.max_abs, 0.5);
        cr_expect_eq(st.over_half, 0);
        cr_expect_eq(kc_errors_judge(&m, KC_BF16, &st, why, sizeof why), 0, "n %zu: %s", sizes[k], why);
    }
}

Test(error_model, truncation_double_rounding_and_bias_fail)
{
    kc_errors m = { KC_ERRORS_ROUNDED, KC_ERRORS_SLACK, "test" };
    char why[512];
    kc_err_stats st = stats_of(1 << 16, 1);
    cr_assert_eq(kc_errors_judge(&m, KC_BF16, &st, why, sizeof why), 1);
    cr_expect(strstr(why, "errors lean toward zero: mean e*sign(ref) -0.") && strstr(why, "of bf16 over 65"),
              "%s", why);
    st = stats_of(1 << 16, 2);
    cr_assert_eq(kc_errors_judge(&m, KC_BF16, &st, why, sizeof why), 1, "rounded twice passed");
    cr_expect(strstr(why, "of errors exceed half an ulp") && strstr(why, "rounded twice?"), "%s", why);
    st = stats_of(1 << 16, 3);
    cr_assert_eq(kc_errors_judge(&m, KC_BF16, &st, why, sizeof why), 1, "a 0.1 ulp bias passed");
    cr_expect(strstr(why, "errors lean high: mean 0.") || strstr(why, "errors lean"), "%s", why);
    /* ... and a few elements cannot show a lean beyond chance */
    st = stats_of(4, 1);
    cr_expect_eq(kc_errors_judge(&m, KC_BF16, &st, why, sizeof why), 0, "4 elements: %s", why);
}

Test(error_model, reported_outputs_are_never_judged)
{
    kc_errors m = { KC_ERRORS_REPORTED, 0, "test" };
    char why[512];
    kc_err_stats st = stats_of(1 << 16, 1);
    cr_expect_eq(kc_errors_judge(&m, KC_BF16, &st, why, sizeof why), 0);
}

static size_t cnt(const kc_shape *s) { return (size_t)s->d[0]; }

Test(error_model, model_in_force)
{
    kc_contract c;
    memset(&c, 0, sizeof c);
    c.args[0] = (kc_arg)KC_BUFFER("y", KC_BF16, KC_OUT, cnt);
    c.args[1] = (kc_arg)KC_BUFFER("z", KC_F32, KC_OUT, cnt);
    c.args[2] = (kc_arg)KC_BUFFER("w", KC_F16, KC_OUT, cnt);
    c.args[2].errors = (kc_errors){ KC_ERRORS_REPORTED, 0, "accumulated in its own precision" };
    kc_errors m = kc_errors_for(&c, 0);
    cr_expect_eq(m.kind, KC_ERRORS_ROUNDED, "narrow outputs default to rounded once");
    cr_expect_eq(m.slack, KC_ERRORS_SLACK);
    cr_expect_eq(kc_errors_for(&c, 1).kind, KC_ERRORS_REPORTED, "wide outputs default to reported");
    cr_expect_eq(kc_errors_for(&c, 2).kind, KC_ERRORS_REPORTED, "the argument's override");
    c.errors = (kc_errors){ KC_ERRORS_ROUNDED, 0.25, "f32 elementwise: a few ulps" };
    cr_expect_eq(kc_errors_for(&c, 1).kind, KC_ERRORS_ROUNDED, "the contract's model");
    cr_expect_eq(kc_errors_for(&c, 1).slack, 0.25);
    cr_expect_eq(kc_errors_for(&c, 2).kind, KC_ERRORS_REPORTED, "the argument's beats the contract's");
}

/* A contract may name random distributions whose outputs repeat values:
 * there the statistics are reported, not judged; the boundary distributions
 * are never judged; the model's kind stays the dtype's default. */
Test(error_model, unjudged_distributions)
{
    kc_contract c;
    memset(&c, 0, sizeof c);
    c.args[0] = (kc_arg)KC_BUFFER("y", KC_BF16, KC_OUT, cnt);
    kc_errors m = kc_errors_for(&c, 0);
    cr_expect(kc_errors_judged_on(&m, KC_LARGE));
    cr_expect(kc_errors_judged_on(&m, KC_MASKED));
    cr_expect(!kc_errors_judged_on(&m, KC_CONSTANT), "boundary distributions are never judged");
    cr_expect(!kc_errors_judged_on(&m, KC_ZEROS));
    c.errors = (kc_errors){ .unjudged = { KC_LARGE }, .reason = "coarse inputs repeat outputs" };
    m = kc_errors_for(&c, 0);
    cr_expect_eq(m.kind, KC_ERRORS_ROUNDED, "naming unjudged distributions keeps the dtype's default kind");
    cr_expect(!kc_errors_judged_on(&m, KC_LARGE));
    cr_expect(kc_errors_judged_on(&m, KC_UNIFORM));
    cr_expect_str_eq(m.reason, "coarse inputs repeat outputs");
}

static void no_ref(const kc_ref *r) { (void)r; }
static const kc_shape one_shape[] = { { "s", KC_SHAPE_EDGE, { 4 } }, { 0 } };
static void no_launch(const kc_shape *s, const kc_device *d, kc_launch *l) { (void)s; (void)d; (void)l; }

/* The registry refuses an error model without a reason, and unjudged
 * distributions that are not random ones, naming the contract. */
Test(error_model, registry_checks_the_model)
{
    kc_contract c;
    memset(&c, 0, sizeof c);
    c.name = "t.errors";
    c.module = "softmax";      /* an embedded module */
    c.symbol = "softmax_f32";  /* and a kernel of it */
    c.launch = no_launch;
    c.reference = no_ref;
    c.shapes = one_shape;
    c.args[0] = (kc_arg)KC_BUFFER("y", KC_BF16, KC_OUT, cnt);
    char err[512] = "";
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
    c.errors = (kc_errors){ .unjudged = { KC_LARGE } };
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), -1);
    cr_expect(strstr(err, "t.errors: error model given without a reason"), "%s", err);
    c.errors = (kc_errors){ .unjudged = { KC_CONSTANT }, .reason = "r" };
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), -1);
    cr_expect(strstr(err, "is not a random one"), "%s", err);
    c.errors.unjudged[0] = KC_NORMAL;
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
}

/* Near zero the absolute tolerance governs: an output flushed to zero where
 * the reference is subnormal or tiny is no rounding error (most kernels
 * flush denormals), so those elements stay out of the statistics. */
Test(error_model, flushed_tiny_results_stay_out)
{
    size_t n = 4096;
    double *ref = malloc(n * sizeof *ref);
    uint16_t *out = malloc(n * 2);
    cr_assert(ref && out);
    for (size_t i = 0; i < n; i++) {
        ref[i] = ldexp(1.0 + (double)i / n, -130);       /* bf16 subnormals */
        out[i] = 0;                                      /* flushed */
    }
    kc_compare cmp;
    kc_compare_output(KC_BF16, out, ref, n, kc_tol_default(KC_BF16), &cmp);
    cr_expect_eq(cmp.bad, 0, "within atol");
    cr_expect_eq(cmp.stats.n, 0, "no element in the relative regime: %zu", cmp.stats.n);
    free(ref);
    free(out);
}
