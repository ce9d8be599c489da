/* test_tolerance.c — gate 3's comparison: the assert_close rule at its exact
 * boundary, NaN/inf/signed-zero/subnormal semantics, integer exactness, the
 * choice of tolerance, and worst-element selection. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "dtype.h"
#include "tolerance.h"

static const kc_tol T = { 1e-3, 1e-5, "test" };

Test(tolerance, defaults) {
    kc_tol f32 = kc_tol_default(KC_F32), f16 = kc_tol_default(KC_F16), bf = kc_tol_default(KC_BF16);
    cr_assert_eq(f32.rtol, 1.3e-6);
    cr_assert_eq(f32.atol, 1e-5);
    cr_assert_eq(f16.rtol, 1e-3);
    cr_assert_eq(f16.atol, 1e-5);
    cr_assert_eq(bf.rtol, 1.6e-2);
    cr_assert_eq(bf.atol, 1e-5);
    cr_assert_eq(kc_tol_default(KC_I32).rtol, 0);
    cr_assert_eq(kc_tol_default(KC_I32).atol, 0);
    cr_assert_not_null(f32.reason);
}

Test(tolerance, exact_boundary) {
    /* Values chosen so atol + rtol*|ref| is computed exactly in binary. */
    kc_tol t = { 0x1p-10, 0x1p-12, "exact" };
    double ref = 4.0, allowed = 0x1p-12 + 0x1p-10 * 4.0;   /* 0x1.08p-8 */
    cr_assert(kc_close(ref + allowed, ref, t));              /* on the boundary: inside */
    cr_assert(kc_close(ref - allowed, ref, t));
    cr_assert_not(kc_close(nextafter(ref + allowed, INFINITY), ref, t));   /* just outside */
    cr_assert_not(kc_close(nextafter(ref - allowed, -INFINITY), ref, t));
    cr_assert(kc_close(nextafter(ref + allowed, 0), ref, t));              /* just inside */
    /* The relative part scales with |ref|, not |out|. */
    cr_assert(kc_close(-4.0 - allowed, -4.0, t));
    cr_assert_not(kc_close(-4.0 - allowed * 1.0001, -4.0, t));
}

Test(tolerance, nan_and_inf) {
    cr_assert(kc_close(NAN, NAN, T));
    cr_assert(kc_close(-NAN, NAN, T));
    cr_assert_not(kc_close(0.0, NAN, T));
    cr_assert_not(kc_close(INFINITY, NAN, T));
    cr_assert_not(kc_close(NAN, 1.0, T));
    cr_assert_not(kc_close(NAN, INFINITY, T));
    cr_assert(kc_close(INFINITY, INFINITY, T));
    cr_assert(kc_close(-INFINITY, -INFINITY, T));
    cr_assert_not(kc_close(-INFINITY, INFINITY, T));
    cr_assert_not(kc_close(1e308, INFINITY, T));
    cr_assert_not(kc_close(INFINITY, 1e308, T));                 /* finite ref, inf out */
    cr_assert_not(kc_close(INFINITY, 65504.0, (kc_tol){ 1e9, 1e9, "huge" }));
}

Test(tolerance, signed_zero_and_subnormals) {
    kc_tol exact = { 0, 0, "exact" };
    cr_assert(kc_close(-0.0, 0.0, exact));
    cr_assert(kc_close(0.0, -0.0, exact));
    cr_assert(kc_close(0x1p-1074, 0x1p-1074, exact));
    cr_assert_not(kc_close(0x1p-1073, 0x1p-1074, exact));
    /* A subnormal is an ordinary value: within atol of zero. */
    cr_assert(kc_close(0x1p-1060, 0.0, T));
    cr_assert(kc_close(kc_f16_to_double(0x0001), 0.0, T));   /* 2^-24 < atol 1e-5 */
    kc_tol tiny = { 0, 0x1p-1070, "tiny" };
    cr_assert(kc_close(0x1p-1070, 0.0, tiny));
    cr_assert_not(kc_close(0x1p-1069, 0.0, tiny));
}

Test(tolerance, compare_counts_and_worst) {
    float out[6] = { 1.0f, 2.0f, 3.01f, 4.0f, 5.1f, 6.0f };
    double ref[6] = { 1.0, 2.0005, 3.0, 4.0, 5.0, 6.0 };
    kc_compare r;
    size_t bad = kc_compare_output(KC_F32, out, ref, 6, T, &r);
    cr_assert_eq(bad, 2);
    cr_assert_eq(r.bad, 2);
    cr_assert_eq(r.count, 6);
    /* err/allowed: idx2 0.01/0.00301 = 3.3; idx4 0.1/0.00501 = 20: idx4 is worst. */
    cr_assert_eq(r.worst, 4);
    cr_assert_eq(r.out, (double)5.1f);
    cr_assert_eq(r.ref, 5.0);
    cr_assert(fabs(r.err - ((double)5.1f - 5.0)) < 1e-15);
    cr_assert(fabs(r.allowed - (1e-5 + 1e-3 * 5.0)) < 1e-15);
}

Test(tolerance, worst_is_by_ratio_not_absolute_error) {
    double out[2] = { 1000.5, 0.01 }, ref[2] = { 1000.0, 0.0 };
    kc_compare r;
    /* idx0: err 0.5, allowed 1.00001 (ratio ~0.5); idx1: err 0.01, allowed 1e-5 (ratio 1000). */
    kc_compare_output(KC_F64, out, ref, 2, T, &r);
    cr_assert_eq(r.worst, 1);
    cr_assert_eq(r.bad, 1);
}

Test(tolerance, nan_inf_mismatch_beats_any_finite_error) {
    double out[5] = { 1e30, 1.0, NAN, INFINITY, NAN }, ref[5] = { 0.0, 1.0, 2.0, 3.0, NAN };
    kc_compare r;
    size_t bad = kc_compare_output(KC_F64, out, ref, 5, T, &r);
    cr_assert_eq(bad, 3);
    cr_assert_eq(r.worst, 2);             /* the first NaN/inf mismatch */
    cr_assert(isnan(r.out));
    cr_assert_eq(r.ref, 2.0);
    cr_assert(isinf(r.err));
    /* Matching specials are fine. */
    double o2[3] = { NAN, -INFINITY, 1.0 }, r2[3] = { NAN, -INFINITY, 1.0 };
    cr_assert_eq(kc_compare_output(KC_F64, o2, r2, 3, T, &r), 0);
    cr_assert_eq(r.err, 0.0);
}

Test(tolerance, narrow_outputs_are_decoded) {
    uint16_t h[3] = { kc_double_to_f16(1.0), kc_double_to_f16(-0.0), 0x7c00 };
    double ref[3] = { 1.0005, 0.0, INFINITY };
    kc_compare r;
    cr_assert_eq(kc_compare_output(KC_F16, h, ref, 3, kc_tol_default(KC_F16), &r), 0);
    uint16_t b[1] = { kc_double_to_bf16(1.0) };
    double rb[1] = { 1.02 };
    cr_assert_eq(kc_compare_output(KC_BF16, b, rb, 1, kc_tol_default(KC_BF16), &r), 1);
}

Test(tolerance, integers_exact) {
    int32_t out[3] = { 5, -7, 100 };
    double ref[3] = { 5, -7, 101 };
    kc_compare r;
    /* Even a generous tolerance does not loosen integer comparison. */
    cr_assert_eq(kc_compare_output(KC_I32, out, ref, 3, (kc_tol){ 0.5, 5, "loose" }, &r), 1);
    cr_assert_eq(r.worst, 2);
    uint8_t u[2] = { 0, 255 };
    double ru[2] = { 0, 255 };
    cr_assert_eq(kc_compare_output(KC_U8, u, ru, 2, kc_tol_default(KC_U8), NULL), 0);
}

Test(tolerance, empty_output) {
    kc_compare r;
    cr_assert_eq(kc_compare_output(KC_F32, NULL, NULL, 0, T, &r), 0);
    cr_assert_eq(r.count, 0);
    cr_assert_eq(r.bad, 0);
}

Test(tolerance, tol_for_precedence) {
    kc_contract c;
    memset(&c, 0, sizeof c);
    c.args[0] = (kc_arg)KC_BUFFER("x", KC_F16, KC_IN, NULL);
    c.args[1] = (kc_arg)KC_BUFFER("y", KC_BF16, KC_OUT, NULL);
    kc_tol d = kc_tol_for(&c, 1);
    cr_assert_eq(d.rtol, 1.6e-2);                        /* dtype default */
    c.tol = (kc_tol){ 2e-2, 1e-4, "contract: accumulates in f16" };
    cr_assert_eq(kc_tol_for(&c, 1).rtol, 2e-2);          /* contract's */
    c.args[1].tol = (kc_tol){ 5e-2, 1e-3, "arg: exp approximation" };
    cr_assert_eq(kc_tol_for(&c, 1).rtol, 5e-2);          /* argument's */
    cr_assert_str_eq(kc_tol_for(&c, 1).reason, "arg: exp approximation");
    /* A tolerance without a reason is no override. */
    c.args[1].tol = (kc_tol){ 9, 9, NULL };
    cr_assert_eq(kc_tol_for(&c, 1).rtol, 2e-2);
}
