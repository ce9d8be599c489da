/* test_ref_scan.c — the scan contracts' references on hand-computed rows. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

static void run_scan(const char *name, int64_t rows, int64_t n, kc_dtype dt, const void *in, double *out, size_t nout)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s not registered", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { rows, n } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 4;
    r.dtype[0] = dt; r.count[0] = nout; r.out[0] = out;
    r.host[1] = in; r.dtype[1] = dt; r.count[1] = (size_t)(rows * n);
    r.dtype[2] = KC_I32; r.scalar[2] = (double)rows;
    r.dtype[3] = KC_I32; r.scalar[3] = (double)n;
    c->reference(&r);
}

Test(ref_scan, inclusive_i32_two_rows)
{
    const int32_t in[8] = { 1, 2, 3, -4, 10, 0, -10, 5 };
    double out[8];
    run_scan("scan.incl.i32", 2, 4, KC_I32, in, out, 8);
    const double want[8] = { 1, 3, 6, 2, 10, 10, 0, 5 };
    for (int i = 0; i < 8; i++) cr_expect_eq(out[i], want[i], "out[%d] = %g", i, out[i]);
}

Test(ref_scan, exclusive_i32_offsets_have_the_total)
{
    const int32_t in[6] = { 3, 0, 2, 1, 1, 4 };   /* two rows of expert counts */
    double out[8];
    run_scan("scan.excl.i32", 2, 3, KC_I32, in, out, 8);
    const double want[8] = { 0, 3, 3, 5, 0, 1, 2, 6 };
    for (int i = 0; i < 8; i++) cr_expect_eq(out[i], want[i], "out[%d] = %g", i, out[i]);
}

Test(ref_scan, i32_wraps_like_the_kernel)
{
    const int32_t in[2] = { INT32_MAX, 1 };
    double out[2];
    run_scan("scan.incl.i32", 1, 2, KC_I32, in, out, 2);
    cr_expect_eq(out[0], (double)INT32_MAX);
    cr_expect_eq(out[1], (double)INT32_MIN, "out[1] = %g", out[1]);
}

Test(ref_scan, f32_inclusive_and_exclusive)
{
    const float in[3] = { 0.5f, 0.25f, -1.0f };
    double incl[3], excl[4];
    run_scan("scan.incl.f32", 1, 3, KC_F32, in, incl, 3);
    run_scan("scan.excl.f32", 1, 3, KC_F32, in, excl, 4);
    cr_expect_eq(incl[0], 0.5); cr_expect_eq(incl[1], 0.75); cr_expect_eq(incl[2], -0.25);
    cr_expect_eq(excl[0], 0.0); cr_expect_eq(excl[1], 0.5); cr_expect_eq(excl[2], 0.75); cr_expect_eq(excl[3], -0.25);
}
