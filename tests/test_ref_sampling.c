/* test_ref_sampling.c — the sampling contracts' float64 references on hand-made rows:
 * ties to the lowest index, NaN rows, all-masked rows, -1 padding, top-p prefixes. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

/* Runs `name`'s reference: out0/out1 are the outputs (args 0 and 1; out1 may be NULL). */
static void run_ref(const char *name, int64_t rows, int64_t vocab, int64_t d2, const float *logits, int logits_arg,
                    double *out0, size_t n0, double *out1, size_t n1)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s not registered", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { rows, vocab, d2 } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.dist = KC_NORMAL; r.nargs = logits_arg + 4;
    r.dtype[0] = KC_I32; r.count[0] = n0; r.out[0] = out0;
    if (out1) { r.dtype[1] = KC_F32; r.count[1] = n1; r.out[1] = out1; }
    r.host[logits_arg] = logits; r.dtype[logits_arg] = KC_F32; r.count[logits_arg] = (size_t)(rows * vocab);
    r.dtype[logits_arg + 1] = KC_I32; r.scalar[logits_arg + 1] = (double)rows;
    r.dtype[logits_arg + 2] = KC_I32; r.scalar[logits_arg + 2] = (double)vocab;
    r.dtype[logits_arg + 3] = KC_I32; r.scalar[logits_arg + 3] = (double)d2;
    c->reference(&r);
}

Test(ref_sampling, argmax_ties_nan_and_masked_rows)
{
    const float x[16] = { 1, 3, 3, -INFINITY,            /* tie: lowest index 1 */
                          NAN, 5, 0, 0,                  /* NaN row: -1 */
                          -INFINITY, -INFINITY, -INFINITY, -INFINITY,  /* all masked: -1 */
                          -0.0f, 0.0f, -1, INFINITY };   /* +inf is the largest */
    double out[4] = { 9, 9, 9, 9 };
    run_ref("sampling.argmax.f32", 4, 4, 0, x, 1, out, 4, NULL, 0);
    cr_expect_eq(out[0], 1.0, "out[0] = %g", out[0]);
    cr_expect_eq(out[1], -1.0, "out[1] = %g", out[1]);
    cr_expect_eq(out[2], -1.0, "out[2] = %g", out[2]);
    cr_expect_eq(out[3], 3.0, "out[3] = %g", out[3]);
}

Test(ref_sampling, argmax_signed_zeros_tie)
{
    const float x[3] = { -1, -0.0f, 0.0f };   /* -0 == +0: the lower index 1 wins */
    double out[1] = { 9 };
    run_ref("sampling.argmax.f32", 1, 3, 0, x, 1, out, 1, NULL, 0);
    cr_expect_eq(out[0], 1.0, "out = %g", out[0]);
}

Test(ref_sampling, topk_order_ties_and_padding)
{
    const float x[10] = { 2, 5, 5, -INFINITY, 1,
                          0, NAN, 1, 2, 3 };
    double ids[10], vals[10];
    run_ref("sampling.topk.f32", 2, 5, 5, x, 2, ids, 10, vals, 10);
    const double want_ids[5] = { 1, 2, 0, 4, -1 }, want_vals[5] = { 5, 5, 2, 1, -INFINITY };
    for (int q = 0; q < 5; q++) {
        cr_expect_eq(ids[q], want_ids[q], "ids[%d] = %g", q, ids[q]);
        cr_expect_eq(vals[q], want_vals[q], "vals[%d] = %g", q, vals[q]);
        cr_expect_eq(ids[5 + q], -1.0, "NaN row ids[%d] = %g", q, ids[5 + q]);
        cr_expect(isnan(vals[5 + q]), "NaN row vals[%d] = %g", q, vals[5 + q]);
    }
}

/* Runs sampling.topp.f32 on one row of 4 with p_permille: len and the masked row. */
static void topp1(const float *x, int p, double *len, double *out)
{
    const kc_contract *c = kc_registry_find_contract("sampling.topp.f32");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 4, p } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 6;
    r.dtype[0] = KC_I32; r.count[0] = 1; r.out[0] = len;
    r.dtype[1] = KC_F32; r.count[1] = 4; r.out[1] = out;
    r.host[2] = x; r.dtype[2] = KC_F32; r.count[2] = 4;
    r.dtype[3] = KC_I32; r.scalar[3] = 1;
    r.dtype[4] = KC_I32; r.scalar[4] = 4;
    r.dtype[5] = KC_I32; r.scalar[5] = p;
    c->reference(&r);
}

Test(ref_sampling, topp_prefix_and_tie_order)
{
    /* weights e^-1, 1, 0, e^-1: Z = 1 + 2/e = 1.7358 */
    const float x[4] = { 0, 1, -INFINITY, 0 };
    double len, out[4];
    topp1(x, 500, &len, out);             /* 0.868: the maximum alone */
    cr_expect_eq(len, 1.0, "len = %g", len);
    cr_expect_eq(out[1], 1.0);
    cr_expect_eq(out[0], -INFINITY);
    cr_expect_eq(out[3], -INFINITY);
    topp1(x, 700, &len, out);             /* 1.215: the max, then the lower-index tie (index 0, not 3) */
    cr_expect_eq(len, 2.0, "len = %g", len);
    cr_expect_eq(out[0], 0.0);
    cr_expect_eq(out[1], 1.0);
    cr_expect_eq(out[2], -INFINITY);
    cr_expect_eq(out[3], -INFINITY);
    topp1(x, 900, &len, out);             /* 1.562: all three finite entries */
    cr_expect_eq(len, 3.0, "len = %g", len);
    cr_expect_eq(out[3], 0.0);
    cr_expect_eq(out[2], -INFINITY);
}

Test(ref_sampling, topp_inf_nan_and_masked_rows)
{
    const float inf_row[4] = { INFINITY, 0, INFINITY, INFINITY };   /* three equal shares */
    double len, out[4];
    topp1(inf_row, 500, &len, out);
    cr_expect_eq(len, 2.0, "len = %g", len);
    cr_expect_eq(out[0], INFINITY);
    cr_expect_eq(out[1], -INFINITY);
    cr_expect_eq(out[2], INFINITY);
    cr_expect_eq(out[3], -INFINITY);
    const float nan_row[4] = { 0, NAN, 1, 2 };
    topp1(nan_row, 900, &len, out);
    cr_expect_eq(len, -1.0);
    for (int j = 0; j < 4; j++) cr_expect(isnan(out[j]), "out[%d] = %g", j, out[j]);
    const float masked[4] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY };
    topp1(masked, 900, &len, out);
    cr_expect_eq(len, -1.0);
    for (int j = 0; j < 4; j++) cr_expect_eq(out[j], -INFINITY);
}

Test(ref_sampling, all_dtypes_registered)
{
    const char *names[] = { "sampling.argmax.f16", "sampling.argmax.bf16", "sampling.topk.f16", "sampling.topk.bf16",
                            "sampling.topp.f16", "sampling.topp.bf16" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) cr_expect_not_null(kc_registry_find_contract(names[i]), "%s", names[i]);
}
