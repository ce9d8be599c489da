/* test_ref_attention_prefill.c — the attn_prefill contracts' float64 reference
 * on two packed sequences (lengths 2 and 1), head_dim 64 (scale 1/8, exact). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "dtype.h"
#include "registry.h"

#define D 64

static void run_prefill(const char *name, kc_dtype dt, double *out)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s", name);
    /* head_dim 64, 1 q head, 1 kv head, sequences of 2 and 1 tokens */
    kc_shape s = { "test", KC_SHAPE_EDGE, { D, 1, 1, 2, 1 } };
    uint16_t q[3 * D], k[3 * D], v[3 * D];
    const int32_t cu[3] = { 0, 2, 3 };
    uint16_t (*enc)(double) = dt == KC_F16 ? kc_double_to_f16 : kc_double_to_bf16;
    for (int i = 0; i < 3 * D; i++) q[i] = k[i] = v[i] = enc(0.0);
    /* token 1 (sequence 0) scores key 0 at 0 and key 1 at 1 * scale = 1/8;
     * token 2 (sequence 1) has a huge score against token 1's key, which it
     * must not see (another sequence). */
    q[1 * D] = enc(1.0);
    k[1 * D] = enc(1.0);
    q[2 * D] = enc(64.0);
    k[2 * D] = enc(-1.0);
    v[0 * D] = enc(1.0); v[0 * D + 3] = enc(-2.0);
    v[1 * D] = enc(3.0); v[1 * D + 3] = enc(4.0);
    v[2 * D] = enc(7.0);
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.dist = KC_NORMAL; r.nargs = 8;
    r.dtype[0] = dt; r.count[0] = 3 * D; r.out[0] = out;
    r.host[1] = q; r.dtype[1] = dt; r.count[1] = 3 * D;
    r.host[2] = k; r.dtype[2] = dt; r.count[2] = 3 * D;
    r.host[3] = v; r.dtype[3] = dt; r.count[3] = 3 * D;
    r.host[4] = cu; r.dtype[4] = KC_I32; r.count[4] = 3;
    r.dtype[5] = KC_I32; r.scalar[5] = 1;
    r.dtype[6] = KC_I32; r.scalar[6] = 1;
    r.dtype[7] = KC_F32; r.scalar[7] = 0.125;
    c->reference(&r);
}

static void check(const double *out)
{
    /* token 0 sees only itself (causal): v0 exactly */
    cr_assert_eq(out[0], 1.0, "out[0][0] = %.17g", out[0]);
    cr_assert_eq(out[3], -2.0, "out[0][3] = %.17g", out[3]);
    cr_assert_eq(out[1], 0.0);
    /* token 1: weights 1 and e^(1/8) on v0 and v1 */
    const double w = exp(0.125);
    cr_assert(fabs(out[D] - (1 + 3 * w) / (1 + w)) < 1e-14, "out[1][0] = %.17g", out[D]);
    cr_assert(fabs(out[D + 3] - (-2 + 4 * w) / (1 + w)) < 1e-14, "out[1][3] = %.17g", out[D + 3]);
    cr_assert(fabs(out[D] - 2.0624) < 1e-4, "out[1][0] = %.17g", out[D]);
    /* token 2 starts sequence 1: only its own key and value */
    cr_assert_eq(out[2 * D], 7.0, "out[2][0] = %.17g", out[2 * D]);
    cr_assert_eq(out[2 * D + 3], 0.0);
}

Test(ref_attention_prefill, two_sequences_f16)
{
    double out[3 * D];
    run_prefill("attn_prefill.d64.f16", KC_F16, out);
    check(out);
}

Test(ref_attention_prefill, two_sequences_bf16)
{
    double out[3 * D];
    run_prefill("attn_prefill.d64.bf16", KC_BF16, out);
    check(out);
}
