/* test_arith_bound.c — tolerances derived from a declared arithmetic
 * (issue 25; kcontract.h kc_arith, src/core/arith_bound.h): the unit
 * roundoffs, Higham's gamma_n and the operations counted (any order,
 * pairwise, further roundings), the bound's figures for each output and
 * arithmetic dtype and which declaration wins, the registry's refusals of
 * malformed declarations naming the value, and the fixture contracts run
 * through the fake driver (tests/fixtures/fake_acc_contracts.c): a correct
 * float32 dot product FAILs a hand-set tight tolerance and PASSes the derived
 * bound, while controls that are wrong stay RED under it, each failure line
 * naming its bound and where it came from; a magnitude a device reference
 * leaves unwritten fails. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith_bound.h"
#include "case.h"
#include "registry.h"
#include "support/item_lines.h"
#include "support/run_output.h"
#include "support/spawn.h"

/* |a - b| within a few ulps of b. */
static int near(double a, double b) { return fabs(a - b) <= 4 * 0x1p-52 * fabs(b); }

Test(arith_bound, unit_roundoffs_are_half_an_ulp_at_one)
{
    cr_expect_eq(kc_unit_roundoff(KC_F64), 0x1p-53);
    cr_expect_eq(kc_unit_roundoff(KC_F32), 0x1p-24);
    cr_expect_eq(kc_unit_roundoff(KC_F16), 0x1p-11);
    cr_expect_eq(kc_unit_roundoff(KC_BF16), 0x1p-8);
    cr_expect_eq(kc_unit_roundoff(KC_E4M3), 0x1p-4);
    cr_expect_eq(kc_unit_roundoff(KC_I32), 0.0);
}

/* gamma_n = n u / (1 - n u); for u = 2^-p that is n / (2^p - n). */
Test(arith_bound, gamma_matches_highams_definition_and_is_undefined_from_n_u_1)
{
    cr_expect(near(kc_gamma(1, 0x1p-24), 1.0 / (16777216.0 - 1)), "%.17g", kc_gamma(1, 0x1p-24));
    cr_expect(near(kc_gamma(768, 0x1p-24), 768.0 / (16777216.0 - 768)), "%.17g", kc_gamma(768, 0x1p-24));
    cr_expect(fabs(kc_gamma(768, 0x1p-24) - 4.57784627592e-05) < 1e-15, "the trial's K: %.12g", kc_gamma(768, 0x1p-24));
    cr_expect(near(kc_gamma(2047, 0x1p-11), 2047.0), "f16: 2047 u = 1 - u: %.17g", kc_gamma(2047, 0x1p-11));
    cr_expect(isnan(kc_gamma(2048, 0x1p-11)), "f16: 2048 u = 1: undefined");
    cr_expect(near(kc_gamma(255, 0x1p-8), 255.0), "bf16: %.17g", kc_gamma(255, 0x1p-8));
    cr_expect(isnan(kc_gamma(256, 0x1p-8)), "bf16: 256 u = 1: undefined");
    cr_expect(isnan(kc_gamma(-1, 0x1p-24)));
    cr_expect_eq(kc_gamma(0, 0x1p-24), 0.0);
}

/* 512 threads of 8 fmaf terms each, then two 5-level shuffle trees */
static int64_t k_depth(const kc_shape *s) { return (s->d[1] + 511) / 512 + 10; }

Test(arith_bound, operations_counted_any_order_pairwise_and_roundings)
{
    kc_arith any = { .acc = KC_F32 }, pw = { .acc = KC_F32, .order = KC_SUM_PAIRWISE };
    cr_expect_eq(kc_arith_ops(&any, 768, 0), 768);
    cr_expect_eq(kc_arith_ops(&pw, 1, 0), 1);        /* ceil(log2 1) + 1 */
    cr_expect_eq(kc_arith_ops(&pw, 2, 0), 2);
    cr_expect_eq(kc_arith_ops(&pw, 768, 0), 11);     /* ceil(log2 768) = 10 */
    cr_expect_eq(kc_arith_ops(&pw, 1024, 0), 11);
    cr_expect_eq(kc_arith_ops(&pw, 1025, 0), 12);
    kc_arith chain = { .acc = KC_F32, .roundings = 3 }, both = { .acc = KC_F32, .order = KC_SUM_PAIRWISE, .roundings = 4 };
    cr_expect_eq(kc_arith_ops(&chain, 0, 0), 3);     /* no sum: the chain alone */
    cr_expect_eq(kc_arith_ops(&both, 4096, 0), 13 + 4);
    kc_arith deep = { .acc = KC_F32, .depth = k_depth, .roundings = 8 };
    cr_expect_eq(kc_arith_ops(&deep, 4096, 18), 18 + 8, "a declared depth replaces the order's count");
    cr_expect_eq(kc_arith_ops(&deep, 0, 0), 8, "no sum: roundings only");
}

static void ref_noop(const kc_ref *r) { (void)r; }
static int64_t k_of(const kc_shape *s) { return s->d[1]; }
static const kc_shape shapes[] = { { "model.8x768", KC_SHAPE_MODEL, { 8, 768 } }, { 0 } };

/* A contract with one output of `out` (argument 0) and an input. */
static kc_contract with_output(kc_dtype out, kc_arith m)
{
    kc_contract c = {
        .name = "t.bound", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
        .dims = { "rows", "k" }, .shapes = shapes,
        .args = { KC_BUFFER("out", out, KC_OUT, kc_count_d0), KC_BUFFER("x", KC_F32, KC_IN, kc_count_d0d1) },
    };
    c.args[0].arith = m;
    return c;
}

Test(arith_bound, the_bound_of_f32_accumulation_for_bf16_f16_and_f32_outputs)
{
    const double g = 768.0 / (16777216.0 - 768);
    kc_contract c = with_output(KC_BF16, (kc_arith){ .acc = KC_F32, .terms_dim = "k" });
    kc_bound b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.source, KC_BOUND_DERIVED);
    cr_expect_eq(b.n, 768);
    cr_expect_eq(b.terms, 768);
    cr_expect(near(b.tol.rtol, g + 0x1p-8 * (1 + g)), "bf16 rtol %.17g", b.tol.rtol);
    cr_expect(near(b.tol.atol, 0x1p-134 + 768 * 0x1p-150), "bf16 atol %.17g", b.tol.atol);
    cr_expect_eq(b.mag, 0);
    cr_expect_str_eq(b.why, "γ_768 of f32 (768 terms, any order) + ½ ulp of bf16, on |ref|: the error model of out");

    c = with_output(KC_F16, (kc_arith){ .acc = KC_F32, .terms = k_of, .roundings = 2 });
    b = kc_bound_for(&c, 0, &shapes[0]);
    const double g2 = 770.0 / (16777216.0 - 770);
    cr_expect_eq(b.n, 770);
    cr_expect(near(b.tol.rtol, g2 + 0x1p-11 * (1 + g2)), "f16 rtol %.17g", b.tol.rtol);
    cr_expect(near(b.tol.atol, 0x1p-25 + 770 * 0x1p-150), "f16 atol %.17g", b.tol.atol);
    cr_expect_str_eq(b.why, "γ_770 of f32 (768 terms, any order, + 2 roundings) + ½ ulp of f16, on |ref|: the error model of out");

    /* f32 output of f32 arithmetic: no rounding after the last operation */
    c = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms_dim = "k", .magnitude = KC_MAG_REFERENCE });
    b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.mag, 1);
    cr_expect_eq(b.tol.rtol, 0.0);
    cr_expect(near(b.mtol, g), "mtol %.17g", b.mtol);
    cr_expect_str_eq(b.why, "γ_768 of f32 (768 terms, any order), on the reference's magnitude: the error model of out");

    /* bf16 output, magnitude: the store's rounding on |ref|, gamma (1 + u_o) on M */
    c = with_output(KC_BF16, (kc_arith){ .acc = KC_F32, .terms_dim = "k", .magnitude = KC_MAG_REFERENCE });
    b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.tol.rtol, 0x1p-8);
    cr_expect(near(b.mtol, g * (1 + 0x1p-8)), "mtol %.17g", b.mtol);

    /* a kernel's own reduction: its depth, then a chain of roundings */
    c = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms_dim = "k", .depth = k_depth, .roundings = 8 });
    b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.depth, 12);
    cr_expect_eq(b.n, 20);
    cr_expect(near(b.tol.rtol, 20.0 / (16777216.0 - 20)), "depth rtol %.17g", b.tol.rtol);
    cr_expect_str_eq(b.why, "γ_20 of f32 (768 terms, depth 12, + 8 roundings), on |ref|: the error model of out");

    /* f16 arithmetic stored as f32: the store is exact */
    c = with_output(KC_F32, (kc_arith){ .acc = KC_F16, .terms_dim = "k", .order = KC_SUM_PAIRWISE });
    b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.n, 11);
    cr_expect(near(b.tol.rtol, 11.0 / (2048.0 - 11)), "f16 pairwise rtol %.17g", b.tol.rtol);
    cr_expect_str_eq(b.why, "γ_11 of f16 (768 terms, pairwise), on |ref|: the error model of out");
}

Test(arith_bound, which_declaration_holds_hand_set_first_then_the_outputs_then_the_contracts)
{
    kc_contract c = with_output(KC_F32, (kc_arith){ 0 });
    kc_bound b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.source, KC_BOUND_DEFAULT);
    cr_expect_eq(b.tol.rtol, 1.3e-6);
    cr_expect_str_eq(b.why, "the dtype default for f32 (torch.testing)");

    c.arith = (kc_arith){ .acc = KC_F32, .terms_dim = "k" };
    b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.source, KC_BOUND_DERIVED);
    cr_expect(strstr(b.why, ": the contract's error model"), "%s", b.why);

    c.tol = (kc_tol){ 1e-4, 1e-5, "the contract's own" };
    c.arith = (kc_arith){ 0 };
    c.args[0].arith = (kc_arith){ .acc = KC_F32, .terms_dim = "k", .order = KC_SUM_PAIRWISE };
    b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.source, KC_BOUND_DERIVED, "the output's arithmetic beats the contract's tolerance");
    cr_expect_eq(b.n, 11);

    c.args[0].tol = (kc_tol){ 2e-3, 0, "the output's own, by hand" };
    b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.source, KC_BOUND_HAND);
    cr_expect_eq(b.tol.rtol, 2e-3);
    cr_expect_str_eq(b.why, "a hand-set tolerance: the output's own, by hand");

    c.args[0].tol = (kc_tol){ 0 };
    c.args[0].arith = (kc_arith){ 0 };
    b = kc_bound_for(&c, 0, &shapes[0]);
    cr_expect_eq(b.source, KC_BOUND_HAND);
    cr_expect_str_eq(b.why, "the contract's hand-set tolerance: the contract's own");
}

/* The memory plan counts the magnitudes: a second float64 per output
 * element, on the host and on the device, where the bound asks for them. */
Test(arith_bound, the_memory_plan_counts_the_magnitudes)
{
    kc_contract rel = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms_dim = "k" });
    kc_contract mag = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms_dim = "k", .magnitude = KC_MAG_REFERENCE });
    size_t h0, g0, h1, g1;
    kc_case_memory(&rel, &shapes[0], KC_REF_HOST, &h0, &g0);
    kc_case_memory(&mag, &shapes[0], KC_REF_HOST, &h1, &g1);
    cr_expect_eq(h1 - h0, 8 * sizeof(double), "host: 8 magnitudes more (%zu, %zu)", h0, h1);
    cr_expect_eq(g1 - g0, 8 * sizeof(double), "device: 8 magnitudes more (%zu, %zu)", g0, g1);
}

/* ---- the registry's refusals ---- */

static int64_t zero_terms(const kc_shape *s) { return s->d[1] - 768; }   /* 0 on model.8x768 */
static int64_t zero_depth(const kc_shape *s) { (void)s; return 0; }
static const kc_shape f16_shapes[] = { { "model.4x2048", KC_SHAPE_MODEL, { 4, 2048 } }, { "edge.1x7", KC_SHAPE_EDGE, { 1, 7 } }, { 0 } };

Test(arith_bound, the_registry_refuses_malformed_declarations_naming_the_value)
{
    static kc_contract zero, overflow, unknown_dim, both, input, integer, int_acc, shallow;
    zero = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms = zero_terms });
    zero.name = "bad.zero_terms";
    overflow = with_output(KC_F16, (kc_arith){ .acc = KC_F16, .terms_dim = "k" });
    overflow.name = "bad.f16_overflow";
    overflow.shapes = f16_shapes;
    unknown_dim = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms_dim = "cols" });
    unknown_dim.name = "bad.dim";
    both = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms_dim = "k" });
    both.name = "bad.both";
    both.args[0].tol = (kc_tol){ 1e-5, 0, "by hand" };
    input = with_output(KC_F32, (kc_arith){ 0 });
    input.name = "bad.input";
    input.args[1].arith = (kc_arith){ .acc = KC_F32, .terms_dim = "k" };
    integer = with_output(KC_I32, (kc_arith){ .acc = KC_F32, .terms_dim = "k" });
    integer.name = "bad.integer";
    int_acc = with_output(KC_F32, (kc_arith){ .acc = KC_I32, .terms_dim = "k" });
    int_acc.name = "bad.int_acc";
    shallow = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms_dim = "k", .depth = zero_depth });
    shallow.name = "bad.depth";
    kc_contract *all[] = { &zero, &overflow, &unknown_dim, &both, &input, &integer, &int_acc, &shallow };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) kc_register_contract(all[i], KC_ABI_VERSION, sizeof(kc_contract));
    char err[16384];
    kc_item *items = NULL;
    int n = kc_registry_items(&items, err, sizeof err);
    free(items);
    cr_expect_eq(n, -8, "expected 8 problems, got %d:\n%s", n, err);
    cr_expect(strstr(err, "contract bad.depth, output out: error model (kc_arith): depth 0 on shape model.8x768 (K = 768): expected 1 .. K + 63"), "%s", err);
    cr_expect(strstr(err, "contract bad.zero_terms, output out: error model (kc_arith): terms K = 0 on shape model.8x768: a sum has at least one term (K >= 1)"), "%s", err);
    cr_expect(strstr(err, "contract bad.f16_overflow, output out: error model (kc_arith): n u = 2048 x 0.000488281 = 1 >= 1 on shape model.4x2048 (K = 2048): gamma_n is undefined, f16 cannot bound 2048 operations"), "%s", err);
    cr_expect(!strstr(err, "edge.1x7"), "K = 7 in f16 is defined: %s", err);
    cr_expect(strstr(err, "contract bad.dim, output out: error model (kc_arith): terms_dim \"cols\" is none of the contract's dims (its dims: d[0] rows, d[1] k)\n"), "%s", err);
    cr_expect(strstr(err, "contract bad.both, output out: both a hand-set tolerance and an arithmetic to derive one from: give one"), "%s", err);
    cr_expect(strstr(err, "contract bad.input: input x declares an arithmetic (kc_arith): only outputs have an error bound"), "%s", err);
    cr_expect(strstr(err, "contract bad.integer, output out: error model (kc_arith): an arithmetic for an output of i32: integer outputs compare exactly"), "%s", err);
    cr_expect(strstr(err, "contract bad.int_acc, output out: error model (kc_arith): arithmetic dtype i32 (7) is no floating type (expected f64, f32, f16, bf16 or e4m3)"), "%s", err);
}

/* An unknown terms_dim is refused listing the dims the contract has, and
 * offering the near ones: another case, a typo. */
Test(arith_bound, an_unknown_terms_dim_lists_the_contracts_dims)
{
    char why[800];
    kc_contract c = with_output(KC_F32, (kc_arith){ .acc = KC_F32, .terms_dim = "K" });
    cr_expect_eq(kc_arith_check(&c, &c.args[0].arith, KC_F32, NULL, why, sizeof why), 1);
    cr_expect_str_eq(why, "terms_dim \"K\" is none of the contract's dims (its dims: d[0] rows, d[1] k); did you mean 'k'?");
    c.args[0].arith.terms_dim = "rowz";
    cr_expect_eq(kc_arith_check(&c, &c.args[0].arith, KC_F32, NULL, why, sizeof why), 1);
    cr_expect_str_eq(why, "terms_dim \"rowz\" is none of the contract's dims (its dims: d[0] rows, d[1] k); did you mean 'rows'?");
    c.dims[0] = c.dims[1] = NULL;
    c.args[0].arith.terms_dim = "k";
    cr_expect_eq(kc_arith_check(&c, &c.args[0].arith, KC_F32, NULL, why, sizeof why), 1);
    cr_expect_str_eq(why, "terms_dim \"k\" is none of the contract's dims (its dims: none, .dims is empty)");
}

/* ---- end to end, through the fake driver ---- */


Test(arith_bound, a_float32_dot_product_fails_a_tight_hand_set_bound_and_passes_the_derived_one, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeacc.*", "--exclude", "*:limits", NULL }, NULL, 30);
    /* the calibration miss: rounding of a correct kernel, not a bug */
    kc_expect_item(p.out, "FAIL", "fakeacc.dot_tight.f32",
                   KC_TEXTS("gate 3 (accuracy): shape model.64x768 (rows=64, k=768)",
                            " by a hand-set tolerance: eleven f32 ulps, guessed by hand (rtol 1.3e-06, atol 0); "));
    kc_expect_item(p.out, "PASS", "fakeacc.dot.f32", KC_TEXTS("gates 1-4 on 8 cases"));
    kc_expect_item(p.out, "PASS", "fakeacc.dot.bf16", KC_TEXTS("gates 1-4 on 8 cases"));
    kc_expect_item(p.out, "PASS", "fakeacc.sumsq.f32", KC_TEXTS("gates 1-4 on 8 cases"));
    /* wrong kernels stay RED under the derived bound, and say which bound */
    kc_expect_item(p.out, "RED", "fakeacc.dot.f32:control.drop_last_term",
                   KC_TEXTS("caught by gate 3 (accuracy; planted for gate 3): shape model.64x768",
                            " by γ_768 of f32 (768 terms, any order), on the reference's magnitude: the error model of out (rtol 0, atol ",
                            " x magnitude ", " elements out of tolerance"));
    kc_expect_item(p.out, "RED", "fakeacc.dot.bf16:control.drop_last_term",
                   KC_TEXTS(" by γ_768 of f32 (768 terms, any order) + ½ ulp of bf16, on the reference's magnitude: the contract's error model (rtol 0.00390625, atol "));
    kc_expect_item(p.out, "RED", "fakeacc.sumsq.f32:control.serial_sum",
                   KC_TEXTS(" by γ_11 of f32 (768 terms, pairwise), on |ref|: the error model of out (rtol 6.55652e-07, atol "));
    /* a device reference that leaves the magnitudes NaN fails every element, saying so */
    kc_expect_item(p.out, "FAIL", "fakeacc.dot_nomag.f32",
                   KC_TEXTS("gate 3 (accuracy): shape model.64x768", " > allowed nan by γ_768 of f32", " x magnitude nan); 64 of 64 elements out of tolerance; 8 of 8 cases failed"));
    cr_expect(strstr(p.out, "SUMMARY 5 kernels: 3 pass gates 1-4, 2 fail, 0 known findings; 3 controls: 3 red as planted, 0 missed"),
              "%s", p.out);
    cr_expect_eq(p.status, 1, "the tight contract fails the run: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
}

/* --reference both: the device reference's magnitudes are checked against
 * the host reference's like its values (kc_dref.mag, kc_ref.mag). */
Test(arith_bound, reference_both_compares_the_magnitudes_too, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeacc.dot.f32", "fakeacc.dot_nomag.f32", "--exclude", "*:limits",
                                         "--reference", "both", NULL }, NULL, 30);
    kc_expect_item(p.out, "PASS", "fakeacc.dot.f32", KC_TEXTS("gates 1-4 on 8 cases"));
    kc_expect_item(p.out, "FAIL", "fakeacc.dot_nomag.f32",
                   KC_TEXTS("internal error: shape model.64x768 (rows=64, k=768), dist uniform: the device reference fake_dot_ref_nomag disagrees with the host reference: the magnitude of out[0] device ",
                            "; 64 of 64 elements differ"));
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
}
