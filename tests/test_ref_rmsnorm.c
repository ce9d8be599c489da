/* test_ref_rmsnorm.c — the rmsnorm contracts' float64 references on hand-made rows. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

static const kc_contract *find(const char *name)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s not registered", name);
    return c;
}

Test(ref_rmsnorm, three_four)
{
    const kc_contract *c = find("rmsnorm.f32");
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 2, 5 } };
    float x[2] = { 3, 4 }, w[2] = { 1, 1 };
    double out[2] = { 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 5;
    r.dtype[0] = KC_F32; r.count[0] = 2; r.out[0] = out;
    r.host[1] = x; r.dtype[1] = KC_F32; r.count[1] = 2;
    r.host[2] = w; r.dtype[2] = KC_F32; r.count[2] = 2;
    r.dtype[3] = KC_F32; r.scalar[3] = 0.0;     /* eps = 0 */
    r.dtype[4] = KC_I32; r.scalar[4] = 2;
    c->reference(&r);
    cr_assert(fabs(out[0] - 3 / sqrt(12.5)) < 1e-15, "out[0] = %.17g", out[0]);
    cr_assert(fabs(out[1] - 4 / sqrt(12.5)) < 1e-15, "out[1] = %.17g", out[1]);
}

Test(ref_rmsnorm, eps_and_weight_two_tokens)
{
    const kc_contract *c = find("rmsnorm.f32");
    kc_shape s = { "test", KC_SHAPE_EDGE, { 2, 2, 5 } };
    float x[4] = { 1, 1, 0, 0 }, w[2] = { 2, -0.5f };
    double out[4] = { 0, 0, 9, 9 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 5;
    r.dtype[0] = KC_F32; r.count[0] = 4; r.out[0] = out;
    r.host[1] = x; r.dtype[1] = KC_F32; r.count[1] = 4;
    r.host[2] = w; r.dtype[2] = KC_F32; r.count[2] = 2;
    r.dtype[3] = KC_F32; r.scalar[3] = 0.25;
    r.dtype[4] = KC_I32; r.scalar[4] = 2;
    c->reference(&r);
    /* token 0: mean(x^2) = 1, 1/sqrt(1.25) */
    cr_assert(fabs(out[0] - 2 / sqrt(1.25)) < 1e-15, "out[0] = %.17g", out[0]);
    cr_assert(fabs(out[1] + 0.5 / sqrt(1.25)) < 1e-15, "out[1] = %.17g", out[1]);
    /* token 1: zeros stay zero (eps keeps it finite) */
    cr_assert_eq(out[2], 0.0);
    cr_assert_eq(out[3], 0.0);
}

Test(ref_rmsnorm, fused_add)
{
    const kc_contract *c = find("fused_add_rmsnorm.f32");
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 2, 5 } };
    float x[2] = { 1, 3 }, res[2] = { 2, 1 }, w[2] = { 1, 2 };
    double ox[2] = { 0, 0 }, ores[2] = { 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 5;
    r.host[0] = x; r.dtype[0] = KC_F32; r.count[0] = 2; r.out[0] = ox;
    r.host[1] = res; r.dtype[1] = KC_F32; r.count[1] = 2; r.out[1] = ores;
    r.host[2] = w; r.dtype[2] = KC_F32; r.count[2] = 2;
    r.dtype[3] = KC_F32; r.scalar[3] = 0.0;
    r.dtype[4] = KC_I32; r.scalar[4] = 2;
    c->reference(&r);
    /* residual' = {3, 4}; y = {3, 8} / sqrt(12.5) */
    cr_assert_eq(ores[0], 3.0);
    cr_assert_eq(ores[1], 4.0);
    cr_assert(fabs(ox[0] - 3 / sqrt(12.5)) < 1e-15, "x[0] = %.17g", ox[0]);
    cr_assert(fabs(ox[1] - 8 / sqrt(12.5)) < 1e-15, "x[1] = %.17g", ox[1]);
}

Test(ref_rmsnorm, fused_add_rounds_residual_to_f16)
{
    const kc_contract *c = find("fused_add_rmsnorm.f16");
    kc_shape s = { "test", KC_SHAPE_EDGE, { 1, 1, 5 } };
    /* f16: x = 1.0 (0x3c00), residual = 2^-11 (0x1000): 1 + 2^-11 is a tie, rounds to 1.0 */
    uint16_t x[1] = { 0x3c00 }, res[1] = { 0x1000 }, w[1] = { 0x3c00 };
    double ox[1] = { 0 }, ores[1] = { 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 5;
    r.host[0] = x; r.dtype[0] = KC_F16; r.count[0] = 1; r.out[0] = ox;
    r.host[1] = res; r.dtype[1] = KC_F16; r.count[1] = 1; r.out[1] = ores;
    r.host[2] = w; r.dtype[2] = KC_F16; r.count[2] = 1;
    r.dtype[3] = KC_F32; r.scalar[3] = 0.0;
    r.dtype[4] = KC_I32; r.scalar[4] = 1;
    c->reference(&r);
    cr_assert_eq(ores[0], 1.0, "residual = %.17g", ores[0]);
    cr_assert(fabs(ox[0] - 1.0) < 1e-15, "x = %.17g", ox[0]);
}
