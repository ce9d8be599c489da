/* test_ref_elementwise.c — the float64 references of the elementwise
 * contracts (axpy.*, residual_add.*) on tiny hand-made inputs. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <criterion/criterion.h>
#include "kcontract.h"
#include "registry.h"

static const kc_contract *need(const char *name)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s is not registered", name);
    cr_assert_not_null(c->reference, "%s has no reference", name);
    return c;
}

Test(ref_elementwise, axpy_f32_small)
{
    const kc_contract *c = need("axpy.f32");
    kc_shape sh = { "t", KC_SHAPE_EDGE, { 2 } };
    float x[2] = { 1, 2 }, y[2] = { 3, 4 };
    double out[2] = { -1, -1 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.dist = KC_UNIFORM; r.nargs = 4;
    r.host[0] = x; r.dtype[0] = KC_F32; r.count[0] = 2;
    r.host[1] = y; r.dtype[1] = KC_F32; r.count[1] = 2; r.out[1] = out;
    r.dtype[2] = KC_F32; r.scalar[2] = 2.0;
    r.dtype[3] = KC_I64; r.scalar[3] = 2;
    c->reference(&r);
    cr_assert_eq(out[0], 5.0, "2*1+3 gave %g", out[0]);
    cr_assert_eq(out[1], 8.0, "2*2+4 gave %g", out[1]);
}

Test(ref_elementwise, axpy_f32_specials)
{
    const kc_contract *c = need("axpy.f32");
    kc_shape sh = { "t", KC_SHAPE_EDGE, { 3 } };
    float x[3] = { INFINITY, 1, NAN }, y[3] = { -INFINITY, INFINITY, 0 };
    double out[3] = { 0, 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 4;
    r.host[0] = x; r.dtype[0] = KC_F32; r.count[0] = 3;
    r.host[1] = y; r.dtype[1] = KC_F32; r.count[1] = 3; r.out[1] = out;
    r.scalar[2] = 1.5; r.scalar[3] = 3;
    c->reference(&r);
    cr_assert(isnan(out[0]), "1.5*inf + -inf should be NaN, got %g", out[0]);
    cr_assert(isinf(out[1]) && out[1] > 0, "1.5 + inf should be +inf, got %g", out[1]);
    cr_assert(isnan(out[2]), "NaN input should give NaN, got %g", out[2]);
}

Test(ref_elementwise, axpy_f16_uses_a_and_decodes_f16)
{
    const kc_contract *c = need("axpy.f16");
    kc_shape sh = { "t", KC_SHAPE_EDGE, { 2 } };
    uint16_t x[2] = { 0x3C00, 0xC000 };   /* 1.0, -2.0 */
    uint16_t y[2] = { 0x3800, 0x4200 };   /* 0.5, 3.0 */
    double out[2] = { 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 4;
    r.host[0] = x; r.dtype[0] = KC_F16; r.count[0] = 2;
    r.host[1] = y; r.dtype[1] = KC_F16; r.count[1] = 2; r.out[1] = out;
    r.scalar[2] = -0.8125; r.scalar[3] = 2;
    c->reference(&r);
    cr_assert_eq(out[0], -0.3125, "-0.8125*1 + 0.5 gave %.17g", out[0]);
    cr_assert_eq(out[1], 4.625, "-0.8125*-2 + 3 gave %.17g", out[1]);
}

Test(ref_elementwise, residual_add_bf16)
{
    const kc_contract *c = need("residual_add.bf16");
    kc_shape sh = { "t", KC_SHAPE_EDGE, { 3 } };
    uint16_t x[3] = { 0x3F80, 0xC040, 0x3F00 };    /* 1.0, -3.0, 0.5 */
    uint16_t res[3] = { 0x4000, 0x3F80, 0x3F00 };  /* 2.0, 1.0, 0.5 */
    double out[3] = { 0, 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 4;
    r.dtype[0] = KC_BF16; r.count[0] = 3; r.out[0] = out;
    r.host[1] = x; r.dtype[1] = KC_BF16; r.count[1] = 3;
    r.host[2] = res; r.dtype[2] = KC_BF16; r.count[2] = 3;
    r.scalar[3] = 3;
    c->reference(&r);
    cr_assert_eq(out[0], 3.0, "1+2 gave %g", out[0]);
    cr_assert_eq(out[1], -2.0, "-3+1 gave %g", out[1]);
    cr_assert_eq(out[2], 1.0, "0.5+0.5 gave %g", out[2]);
}

Test(ref_elementwise, residual_add_f16_inf)
{
    const kc_contract *c = need("residual_add.f16");
    kc_shape sh = { "t", KC_SHAPE_EDGE, { 2 } };
    uint16_t x[2] = { 0x7C00, 0x3C00 };    /* +inf, 1.0 */
    uint16_t res[2] = { 0xFC00, 0x0001 };  /* -inf, 2^-24 */
    double out[2] = { 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 4;
    r.dtype[0] = KC_F16; r.count[0] = 2; r.out[0] = out;
    r.host[1] = x; r.dtype[1] = KC_F16; r.count[1] = 2;
    r.host[2] = res; r.dtype[2] = KC_F16; r.count[2] = 2;
    r.scalar[3] = 2;
    c->reference(&r);
    cr_assert(isnan(out[0]), "inf + -inf should be NaN, got %g", out[0]);
    cr_assert_eq(out[1], 1.0 + 0x1p-24, "1 + 2^-24 gave %.17g (the reference must stay in float64)", out[1]);
}

/* The launch covers the tail with at least one block and caps the grid. */
Test(ref_elementwise, launch_geometry)
{
    const kc_contract *c = need("axpy.f16");
    kc_device dev;
    memset(&dev, 0, sizeof dev);
    dev.sm_count = 132;
    kc_shape one = { "t", KC_SHAPE_EDGE, { 1 } }, big = { "b", KC_SHAPE_LARGE, { 8192LL * 14336 } };
    kc_launch l;
    memset(&l, 0, sizeof l);
    c->launch(&one, &dev, &l);
    cr_assert_eq(l.grid[0], 1u);
    cr_assert_eq(l.block[0], 256u);
    c->launch(&big, &dev, &l);
    cr_assert_eq(l.grid[0], 132u * 4u);
    cr_assert_lt((uint64_t)l.grid[0] * l.block[0] * 8u, (uint64_t)big.d[0], "the large shape must need the grid-stride loop");
}
