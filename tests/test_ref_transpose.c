/* test_ref_transpose.c — the float64 reference of transpose.* on a 2x3 with
 * a padded input row stride. */
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

Test(ref_transpose, f32_2x3_ld4)
{
    const kc_contract *c = need("transpose.f32");
    kc_shape sh = { "t", KC_SHAPE_EDGE, { 2, 3, 4 } };
    const float in[8] = { 1, 2, 3, 99, 4, 5, 6, 99 };   /* 99: padding, never read */
    double out[6];
    for (int i = 0; i < 6; i++) out[i] = -1;
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 5;
    r.host[0] = in; r.dtype[0] = KC_F32; r.count[0] = 8;
    r.dtype[1] = KC_F32; r.count[1] = 6; r.out[1] = out;
    r.scalar[2] = 2; r.scalar[3] = 3; r.scalar[4] = 4;
    c->reference(&r);
    const double want[6] = { 1, 4, 2, 5, 3, 6 };
    for (int i = 0; i < 6; i++)
        cr_assert_eq(out[i], want[i], "out[%d] = %g, want %g", i, out[i], want[i]);
}

Test(ref_transpose, f16_column_vector)
{
    const kc_contract *c = need("transpose.f16");
    kc_shape sh = { "t", KC_SHAPE_EDGE, { 3, 1, 2 } };
    const uint16_t in[6] = { 0x3C00, 0x7E00, 0xC000, 0x7E00, 0x7C00, 0x7E00 };  /* 1, pad, -2, pad, inf, pad */
    double out[3] = { 0, 0, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 5;
    r.host[0] = in; r.dtype[0] = KC_F16; r.count[0] = 6;
    r.dtype[1] = KC_F16; r.count[1] = 3; r.out[1] = out;
    r.scalar[2] = 3; r.scalar[3] = 1; r.scalar[4] = 2;
    c->reference(&r);
    cr_assert_eq(out[0], 1.0);
    cr_assert_eq(out[1], -2.0, "got %g", out[1]);
    cr_assert(isinf(out[2]) && out[2] > 0, "got %g", out[2]);
}

/* Some shapes must pad the input rows (the ld_eq_cols control depends on it). */
Test(ref_transpose, shapes_have_padded_rows)
{
    const kc_contract *c = need("transpose.f32");
    int padded = 0;
    for (const kc_shape *s = c->shapes; s->name; s++) {
        cr_assert_geq(s->d[2], s->d[1], "%s: ld_in < cols", s->name);
        padded += s->d[2] > s->d[1] && s->d[0] > 1;
    }
    cr_assert_geq(padded, 2);
}

/* Shapes across the reference's 64 x 64 blocks (130 x 97 with ld 101): every
 * element lands where out[c, i] = in[i, c] says, each written once. */
Test(ref_transpose, f32_across_blocks)
{
    const kc_contract *c = need("transpose.f32");
    enum { R = 130, C = 97, LD = 101 };
    kc_shape sh = { "t", KC_SHAPE_EDGE, { R, C, LD } };
    static float in[R * LD];
    static double out[R * C];
    for (int i = 0; i < R * LD; i++) in[i] = (float)i;
    for (int i = 0; i < R * C; i++) out[i] = -1;
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 5;
    r.host[0] = in; r.dtype[0] = KC_F32; r.count[0] = R * LD;
    r.dtype[1] = KC_F32; r.count[1] = R * C; r.out[1] = out;
    r.scalar[2] = R; r.scalar[3] = C; r.scalar[4] = LD;
    c->reference(&r);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            cr_assert_eq(out[j * R + i], (double)(i * LD + j), "out[%d, %d] = %g", j, i, out[j * R + i]);
}
