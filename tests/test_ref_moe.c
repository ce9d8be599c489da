/* test_ref_moe.c — the MoE routing references: top-k gating (softmax and sigmoid,
 * ties, renormalization) and vLLM-style block alignment with padding. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

static void run_gate(const char *name, int64_t E, int64_t K, int renorm, const float *x, double *ids, double *w)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s not registered", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, E, K, renorm } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 7;
    r.dtype[0] = KC_I32; r.count[0] = (size_t)K; r.out[0] = ids;
    r.dtype[1] = KC_F32; r.count[1] = (size_t)K; r.out[1] = w;
    r.host[2] = x; r.dtype[2] = KC_F32; r.count[2] = (size_t)E;
    r.dtype[3] = KC_I32; r.scalar[3] = 1;
    r.dtype[4] = KC_I32; r.scalar[4] = (double)E;
    r.dtype[5] = KC_I32; r.scalar[5] = (double)K;
    r.dtype[6] = KC_I32; r.scalar[6] = renorm;
    c->reference(&r);
}

Test(ref_moe, softmax_topk_ties_and_renorm)
{
    const float x[4] = { 1, 3, 3, 0 };
    double ids[2], w[2];
    run_gate("moe.topk_softmax.f32", 4, 2, 1, x, ids, w);
    cr_expect_eq(ids[0], 1.0); cr_expect_eq(ids[1], 2.0);
    cr_expect(fabs(w[0] - 0.5) < 1e-15 && fabs(w[1] - 0.5) < 1e-15, "w = %g %g", w[0], w[1]);
    run_gate("moe.topk_softmax.f32", 4, 2, 0, x, ids, w);
    const double p = exp(3.0) / (exp(1.0) + 2 * exp(3.0) + 1.0);
    cr_expect(fabs(w[0] - p) < 1e-15 && fabs(w[1] - p) < 1e-15, "w = %g %g, want %g", w[0], w[1], p);
}

Test(ref_moe, sigmoid_topk)
{
    const float x[4] = { 0, 2, -1, 2 };
    double ids[2], w[2];
    run_gate("moe.topk_sigmoid.f32", 4, 2, 0, x, ids, w);
    cr_expect_eq(ids[0], 1.0); cr_expect_eq(ids[1], 3.0);
    const double sg = 1.0 / (1.0 + exp(-2.0));
    cr_expect(fabs(w[0] - sg) < 1e-15 && fabs(w[1] - sg) < 1e-15);
    run_gate("moe.topk_sigmoid.f32", 4, 2, 1, x, ids, w);
    cr_expect(fabs(w[0] - 0.5) < 1e-15 && fabs(w[1] - 0.5) < 1e-15);
}

Test(ref_moe, align_block_size_pads_with_the_skip_value)
{
    const kc_contract *c = kc_registry_find_contract("moe.align_block_size");
    cr_assert_not_null(c);
    /* tokens 3, E 3, k 2, B 2: flat ids 0:e0 1:e1 2:e1 3:e2 4:e0 5:e1 -> counts 2, 3, 1, padded 2, 4, 2 */
    kc_shape s = { "test", KC_SHAPE_EDGE, { 3, 3, 2, 2 } };
    const int32_t topk_ids[6] = { 0, 1, 1, 2, 0, 1 };
    double sorted[9], experts[5], post[1];
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 8;
    r.dtype[0] = KC_I32; r.count[0] = 9; r.out[0] = sorted;     /* numel + E * (B - 1) = 9 */
    r.dtype[1] = KC_I32; r.count[1] = 5; r.out[1] = experts;    /* ceil(9 / 2) */
    r.dtype[2] = KC_I32; r.count[2] = 1; r.out[2] = post;
    r.host[3] = topk_ids; r.dtype[3] = KC_I32; r.count[3] = 6;
    r.dtype[4] = KC_I32; r.scalar[4] = 6;
    r.dtype[5] = KC_I32; r.scalar[5] = 3;
    r.dtype[6] = KC_I32; r.scalar[6] = 2;
    r.dtype[7] = KC_I32; r.scalar[7] = 9;
    c->reference(&r);
    const double want_sorted[9] = { 0, 4, 1, 2, 5, 6, 3, 6, 6 }, want_experts[5] = { 0, 1, 1, 2, -1 };
    for (int i = 0; i < 9; i++) cr_expect_eq(sorted[i], want_sorted[i], "sorted[%d] = %g", i, sorted[i]);
    for (int i = 0; i < 5; i++) cr_expect_eq(experts[i], want_experts[i], "experts[%d] = %g", i, experts[i]);
    cr_expect_eq(post[0], 8.0, "num_tokens_post_padded = %g", post[0]);
    cr_assert_not_null(kc_registry_find_contract("moe.topk_softmax.bf16"));
}
