/* test_ref_attention_decode.c — the attn_decode contracts' float64 reference on
 * a two-page sequence scattered over a four-page cache, NHD and HND. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "dtype.h"
#include "registry.h"

#define HD 128
/* batch 1, q_heads 2, kv_heads 2 (G = 1), page_size 2, max_len 3, num_pages 4:
 * the sequence's 3 tokens sit in pages 3 (tokens 0, 1) and 1 (token 2). */
static const int32_t bt[2] = { 3, 1 };
static const int32_t lens[1] = { 3 };

static size_t cache_off(int hnd, size_t page, size_t slot, size_t h)
{
    return hnd ? ((page * 2 + h) * 2 + slot) * HD : ((page * 2 + slot) * 2 + h) * HD;
}

static void run_decode(const char *name, int hnd, double *out)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 2, 2, 2, 3, 4 } };
    static uint16_t q[2 * HD], K[4 * 2 * 2 * HD], V[4 * 2 * 2 * HD];
    const uint16_t junk = kc_double_to_f16(100.0), zero = kc_double_to_f16(0.0);
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) K[i] = V[i] = junk;   /* wrong reads show */
    for (size_t i = 0; i < 2 * HD; i++) q[i] = zero;
    q[HD + 0] = kc_double_to_f16(2.0);                 /* head 1: q = 2 e0; head 0: q = 0 */
    /* keys (element 0) and values (elements 0 and 1 = 2x) per token t and head h */
    const double k1[3] = { 0, 0, 1 }, v0[3] = { 1, 2, 6 }, v1[3] = { 4, 4, 10 };
    for (size_t t = 0; t < 3; t++)
        for (size_t h = 0; h < 2; h++) {
            const size_t o = cache_off(hnd, (size_t)bt[t / 2], t % 2, h);
            for (size_t d = 0; d < HD; d++) K[o + d] = V[o + d] = zero;
            K[o] = kc_double_to_f16(h ? k1[t] : 5.0);   /* head 0's keys do not matter: q = 0 */
            V[o] = kc_double_to_f16(h ? v1[t] : v0[t]);
            V[o + 1] = kc_double_to_f16(2 * (h ? v1[t] : v0[t]));
        }
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.dist = KC_NORMAL; r.nargs = 11;
    r.dtype[0] = KC_F16; r.count[0] = 2 * HD; r.out[0] = out;
    r.host[1] = q; r.dtype[1] = KC_F16; r.count[1] = 2 * HD;
    r.host[2] = K; r.dtype[2] = KC_F16; r.count[2] = sizeof K / sizeof K[0];
    r.host[3] = V; r.dtype[3] = KC_F16; r.count[3] = sizeof V / sizeof V[0];
    r.host[4] = bt; r.dtype[4] = KC_I32; r.count[4] = 2;
    r.host[5] = lens; r.dtype[5] = KC_I32; r.count[5] = 1;
    r.dtype[6] = KC_I32; r.scalar[6] = 2;
    r.dtype[7] = KC_I32; r.scalar[7] = 2;
    r.dtype[8] = KC_I32; r.scalar[8] = 2;
    r.dtype[9] = KC_I32; r.scalar[9] = 2;
    r.dtype[10] = KC_F32; r.scalar[10] = 1.0 / sqrt(128.0);
    c->reference(&r);
}

static void check(const double *out)
{
    /* head 0: q = 0, uniform weights: the mean of v = (1 + 2 + 6) / 3 = 3 */
    cr_assert(fabs(out[0] - 3.0) < 1e-12, "out[0][0] = %.17g", out[0]);
    cr_assert(fabs(out[1] - 6.0) < 1e-12, "out[0][1] = %.17g", out[1]);
    cr_assert_eq(out[2], 0.0);
    /* head 1: scores 0, 0, 2 * scale (scale = 1/sqrt(128) as an f32) */
    const double w = exp(2.0 * (double)(float)(1.0 / sqrt(128.0)));
    const double want = (4 + 4 + 10 * w) / (2 + w);
    cr_assert(fabs(out[HD] - want) < 1e-12, "out[1][0] = %.17g, want %.17g", out[HD], want);
    cr_assert(fabs(out[HD + 1] - 2 * want) < 1e-12, "out[1][1] = %.17g", out[HD + 1]);
    cr_assert(fabs(want - 6.2422080) < 1e-6, "want = %g", want);
    cr_assert_eq(out[HD + 5], 0.0);
}

Test(ref_attention_decode, nhd_scattered_pages)
{
    static double out[2 * HD];
    run_decode("attn_decode.nhd.f16", 0, out);
    check(out);
}

Test(ref_attention_decode, hnd_scattered_pages)
{
    static double out[2 * HD];
    run_decode("attn_decode.hnd.f16", 1, out);
    check(out);
}
