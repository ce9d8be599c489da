/* test_ref_reduction.c — the float64 references of reduce_sum.* and
 * reduce_max.* on tiny hand-made rows, and the launch's block sizes. */
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

/* args: 0 x [rows*cols], 1 out [rows] f32, 2 rows, 3 cols */
static void run_ref(const kc_contract *c, int64_t rows, int64_t cols, kc_dtype t, const void *x, double *out)
{
    kc_shape sh = { "t", KC_SHAPE_EDGE, { rows, cols } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &sh; r.nargs = 4;
    r.host[0] = x; r.dtype[0] = t; r.count[0] = (size_t)(rows * cols);
    r.dtype[1] = KC_F32; r.count[1] = (size_t)rows; r.out[1] = out;
    r.dtype[2] = KC_I64; r.scalar[2] = (double)rows;
    r.dtype[3] = KC_I64; r.scalar[3] = (double)cols;
    c->reference(&r);
}

Test(ref_reduction, sum_f32_rows)
{
    const float x[6] = { 1, 2, 3, 4, 5, 6 };
    double out[2] = { 0, 0 };
    run_ref(need("reduce_sum.f32"), 1, 3, KC_F32, x, out);
    cr_assert_eq(out[0], 6.0, "sum {1,2,3} gave %g", out[0]);
    run_ref(need("reduce_sum.f32"), 2, 3, KC_F32, x, out);
    cr_assert_eq(out[0], 6.0);
    cr_assert_eq(out[1], 15.0, "sum {4,5,6} gave %g", out[1]);
}

Test(ref_reduction, sum_f32_inf_nan)
{
    const float x[6] = { INFINITY, 1, -INFINITY, INFINITY, 2, 3 };
    double out[2] = { 0, 0 };
    run_ref(need("reduce_sum.f32"), 2, 3, KC_F32, x, out);
    cr_assert(isnan(out[0]), "+inf and -inf in one row must sum to NaN, got %g", out[0]);
    cr_assert(isinf(out[1]) && out[1] > 0, "+inf with finite values must be +inf, got %g", out[1]);
}

Test(ref_reduction, sum_f16_exact_decode)
{
    /* 1.0, 2^-24 (smallest subnormal), -2^-14 (smallest normal) */
    const uint16_t x[3] = { 0x3C00, 0x0001, 0x8400 };
    double out[1] = { 0 };
    run_ref(need("reduce_sum.f16"), 1, 3, KC_F16, x, out);
    cr_assert_eq(out[0], 1.0 + 0x1p-24 - 0x1p-14, "got %.17g", out[0]);
}

Test(ref_reduction, sum_bf16)
{
    const uint16_t x[4] = { 0x3F80, 0xC040, 0x4120, 0x3E80 };  /* 1, -3, 10, 0.25 */
    double out[1] = { 0 };
    run_ref(need("reduce_sum.bf16"), 1, 4, KC_BF16, x, out);
    cr_assert_eq(out[0], 8.25, "got %.17g", out[0]);
}

Test(ref_reduction, max_f32_and_nan)
{
    const float x[9] = { -INFINITY, -3, -1,   2, NAN, 7,   -0.5f, -0.25f, -8 };
    double out[3] = { 0, 0, 0 };
    run_ref(need("reduce_max.f32"), 3, 3, KC_F32, x, out);
    cr_assert_eq(out[0], -1.0, "max {-inf,-3,-1} gave %g", out[0]);
    cr_assert(isnan(out[1]), "max over a row with NaN must be NaN (torch.amax), got %g", out[1]);
    cr_assert_eq(out[2], -0.25, "max {-0.5,-0.25,-8} gave %g", out[2]);
}

Test(ref_reduction, max_f16_bf16)
{
    const uint16_t h[4] = { 0xC000, 0x3555, 0x7E00, 0x3C00 };  /* -2, 0.333..., NaN, 1 */
    double out[2] = { 0, 0 };
    run_ref(need("reduce_max.f16"), 2, 2, KC_F16, h, out);
    cr_assert_eq(out[0], 0x1.554p-2, "got %.17g", out[0]);
    cr_assert(isnan(out[1]), "f16 NaN must propagate, got %g", out[1]);
    const uint16_t b[3] = { 0xFF80, 0xC2C8, 0xC2CA };  /* -inf, -100, -101 */
    run_ref(need("reduce_max.bf16"), 1, 3, KC_BF16, b, out);
    cr_assert_eq(out[0], -100.0, "got %g", out[0]);
}

/* The launch must give non-power-of-two blocks on some shapes (the pow2_block
 * control depends on it) and stay within 1024 threads. */
Test(ref_reduction, launch_block_sizes)
{
    const kc_contract *c = need("reduce_sum.f32");
    kc_device dev;
    memset(&dev, 0, sizeof dev);
    dev.sm_count = 132;
    const struct { int64_t rows, cols; unsigned threads; } cases[] = {
        { 4096, 128, 96 }, { 128, 3584, 448 }, { 3, 4097, 544 }, { 7, 4096, 512 }, { 1, 152064, 1024 }, { 1, 1, 96 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kc_shape sh = { "t", KC_SHAPE_EDGE, { cases[i].rows, cases[i].cols } };
        kc_launch l;
        memset(&l, 0, sizeof l);
        c->launch(&sh, &dev, &l);
        cr_assert_eq(l.block[0], cases[i].threads, "cols %lld: %u threads", (long long)cases[i].cols, l.block[0]);
        cr_assert_eq(l.grid[0], (unsigned)cases[i].rows);
    }
}

/* Exactly one contract carries the shape past 2^31 elements. */
Test(ref_reduction, one_wide_shape)
{
    const kc_contract *c = need("reduce_sum.f16");
    int found = 0;
    for (const kc_shape *s = c->shapes; s->name; s++)
        if (s->cls == KC_SHAPE_LARGE && s->d[0] * s->d[1] > (1LL << 31))
            found++;
    cr_assert_eq(found, 1);
}
