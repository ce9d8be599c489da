/* test_ref_rope.c — the rope contracts' float64 references on a 4-dim head. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

/* One token, one head of dim 4, max_pos 2; position 1 uses cos/sin row 1:
 * pair 0: c0 = 0, s0 = 1 (90 degrees); pair 1: c1 = 0.6, s1 = 0.8. */
static float q_in[4] = { 1, 2, 3, 4 };
static float cosc[4] = { 1, 1, 0.0f, 0.6f };
static float sinc[4] = { 0, 0, 1.0f, 0.8f };

static void run_rope(const char *name, const void *pos, kc_dtype posdt, double out[4])
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s not registered", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 1, 1, 4, 2, 12 } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 6;
    r.host[0] = q_in; r.dtype[0] = KC_F32; r.count[0] = 4; r.out[0] = out;
    r.host[1] = pos; r.dtype[1] = posdt; r.count[1] = 1;
    r.host[2] = cosc; r.dtype[2] = KC_F32; r.count[2] = 4;
    r.host[3] = sinc; r.dtype[3] = KC_F32; r.count[3] = 4;
    r.dtype[4] = KC_I32; r.scalar[4] = 1;
    r.dtype[5] = KC_I32; r.scalar[5] = 4;
    c->reference(&r);
}

static void near(double got, double want)
{
    cr_assert(fabs(got - want) < 1e-6, "got %.17g want %.17g", got, want);
}

Test(ref_rope, neox_rotates_halves)
{
    int64_t pos[1] = { 1 };
    double out[4];
    run_rope("rope.neox.f32", pos, KC_I64, out);
    /* pairs (x0, x2) with (c0, s0) and (x1, x3) with (c1, s1) */
    near(out[0], 1 * 0.0 - 3 * 1.0);     /* -3 */
    near(out[2], 3 * 0.0 + 1 * 1.0);     /*  1 */
    near(out[1], 2 * 0.6 - 4 * 0.8);     /* -2 */
    near(out[3], 4 * 0.6 + 2 * 0.8);     /*  4 */
}

Test(ref_rope, gptj_rotates_interleaved_pairs)
{
    int32_t pos[1] = { 1 };
    double out[4];
    run_rope("rope.gptj.f32", pos, KC_I32, out);
    /* pairs (x0, x1) with (c0, s0) and (x2, x3) with (c1, s1) */
    near(out[0], 1 * 0.0 - 2 * 1.0);     /* -2 */
    near(out[1], 2 * 0.0 + 1 * 1.0);     /*  1 */
    near(out[2], 3 * 0.6 - 4 * 0.8);     /* -1.4 */
    near(out[3], 4 * 0.6 + 3 * 0.8);     /*  4.8 */
}

Test(ref_rope, position_zero_is_identity)
{
    int64_t pos[1] = { 0 };
    double out[4];
    run_rope("rope.neox.f32", pos, KC_I64, out);
    for (int i = 0; i < 4; i++) cr_assert_eq(out[i], (double)q_in[i], "out[%d] = %g", i, out[i]);
}

Test(ref_rope, qk_strided_keeps_gap)
{
    const kc_contract *c = kc_registry_find_contract("rope.neox.qk.f16");
    cr_assert_not_null(c);
    /* 2 tokens, 1 q head, 1 kv head, dim 2, stride 6: q count 6 + 2 = 8 */
    kc_shape s = { "test", KC_SHAPE_EDGE, { 2, 1, 1, 2, 2, 6 } };
    /* f16 bits: 1.0 = 0x3c00, 2.0 = 0x4000 */
    uint16_t q[8] = { 0x3c00, 0x4000, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x4000 };
    uint16_t k[8] = { 0x4000, 0x3c00, 0, 0, 0, 0, 0x4000, 0x3c00 };
    int64_t pos[2] = { 0, 1 };
    float cs[2] = { 1, 0 }, sn[2] = { 0, 1 };   /* pos 1: 90 degrees */
    double oq[8], ok[8];
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 9;
    r.host[0] = q; r.dtype[0] = KC_F16; r.count[0] = 8; r.out[0] = oq;
    r.host[1] = k; r.dtype[1] = KC_F16; r.count[1] = 8; r.out[1] = ok;
    r.host[2] = pos; r.dtype[2] = KC_I64; r.count[2] = 2;
    r.host[3] = cs; r.dtype[3] = KC_F32; r.count[3] = 2;
    r.host[4] = sn; r.dtype[4] = KC_F32; r.count[4] = 2;
    c->reference(&r);
    near(oq[0], 1); near(oq[1], 2);             /* token 0, position 0 */
    near(oq[2], 1); near(oq[5], 1);             /* gap untouched */
    near(oq[6], -2); near(oq[7], 1);            /* token 1 at stride 6, rotated 90 degrees */
    near(ok[6], -1); near(ok[7], 2);
    near(ok[0], 2); near(ok[1], 1);
}
