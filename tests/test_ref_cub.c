/* test_ref_cub.c — the CUB contracts' float64 (or exact integer) references on
 * hand-computed inputs: sums, inclusive and exclusive scans, the stable
 * descending pairs sort (ties, -0.0 equal to +0.0, NaN and infinities at the
 * ends) and the ascending u32 keys sort; and the integer generators keep clear
 * of gate 2's poison (0xFFFFFFFF). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fill.h"
#include "kcontract.h"
#include "registry.h"

static const kc_contract *find(const char *name)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s not registered", name);
    return c;
}

/* A contract with args (out, in, n): runs its reference on in[0..n). */
static void run_unary(const char *name, kc_dtype dt, const void *in, size_t n, double *out, size_t nout)
{
    const kc_contract *c = find(name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { (int64_t)n } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 3;
    r.dtype[0] = dt; r.count[0] = nout; r.out[0] = out;
    r.host[1] = in; r.dtype[1] = dt; r.count[1] = n;
    r.dtype[2] = KC_I32; r.scalar[2] = (double)n;
    c->reference(&r);
}

Test(ref_cub, reduce_sum_f32)
{
    const float in[4] = { 1.0f, 2.0f, 3.5f, -0.25f };
    double out[1] = { -999 };
    run_unary("cub.reduce_sum.f32", KC_F32, in, 4, out, 1);
    cr_expect_eq(out[0], 6.25);
}

Test(ref_cub, reduce_sum_f32_is_float64_not_float32)
{
    /* 2^24 + 1 + 1: float32 sequential sums lose both ones, float64 keeps them. */
    const float in[3] = { 16777216.0f, 1.0f, 1.0f };
    double out[1];
    run_unary("cub.reduce_sum.f32", KC_F32, in, 3, out, 1);
    cr_expect_eq(out[0], 16777218.0);
}

Test(ref_cub, reduce_sum_i32_and_wrap)
{
    const int32_t in[3] = { 7, 0, 63 };
    double out[1];
    run_unary("cub.reduce_sum.i32", KC_I32, in, 3, out, 1);
    cr_expect_eq(out[0], 70);
    const int32_t big[2] = { INT32_MAX, 1 };   /* wraps as the device's int add does */
    run_unary("cub.reduce_sum.i32", KC_I32, big, 2, out, 1);
    cr_expect_eq(out[0], (double)INT32_MIN);
}

Test(ref_cub, scans_i32_inclusive_and_exclusive)
{
    const int32_t in[5] = { 3, 0, 5, 1, 63 };
    double out[5];
    run_unary("cub.scan_incl.i32", KC_I32, in, 5, out, 5);
    const double incl[5] = { 3, 3, 8, 9, 72 };
    for (int i = 0; i < 5; i++) cr_expect_eq(out[i], incl[i], "incl out[%d] = %g", i, out[i]);
    run_unary("cub.scan_excl.i32", KC_I32, in, 5, out, 5);
    const double excl[5] = { 0, 3, 3, 8, 9 };
    for (int i = 0; i < 5; i++) cr_expect_eq(out[i], excl[i], "excl out[%d] = %g", i, out[i]);
}

Test(ref_cub, scan_incl_f32)
{
    const float in[4] = { 0.5f, -1.0f, 0.25f, 2.0f };
    double out[4];
    run_unary("cub.scan_incl.f32", KC_F32, in, 4, out, 4);
    const double want[4] = { 0.5, -0.5, -0.25, 1.75 };
    for (int i = 0; i < 4; i++) cr_expect_eq(out[i], want[i], "out[%d] = %g", i, out[i]);
    cr_expect_not_null(find("cub.scan_incl.f32")->nondeterministic);
    cr_expect_null(find("cub.reduce_sum.f32")->nondeterministic, "DeviceReduce is run-to-run deterministic: gate 4 stays");
}

static void run_sort_pairs(const float *keys, size_t n, double *kout, double *vout)
{
    const kc_contract *c = find("cub.sort_pairs_desc.f32");
    int32_t vals[16];
    for (size_t i = 0; i < n; i++) vals[i] = (int32_t)i;
    kc_shape s = { "test", KC_SHAPE_EDGE, { (int64_t)n } };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 5;
    r.dtype[0] = KC_F32; r.count[0] = n; r.out[0] = kout;
    r.dtype[1] = KC_I32; r.count[1] = n; r.out[1] = vout;
    r.host[2] = keys; r.dtype[2] = KC_F32; r.count[2] = n;
    r.host[3] = vals; r.dtype[3] = KC_I32; r.count[3] = n;
    r.dtype[4] = KC_I32; r.scalar[4] = (double)n;
    c->reference(&r);
}

Test(ref_cub, sort_pairs_desc_is_stable_and_zeros_are_equal)
{
    /* index:              0     1      2     3     4     5 */
    const float keys[6] = { 1.0f, -0.0f, 3.0f, 0.0f, 1.0f, -2.0f };
    double k[6], v[6];
    run_sort_pairs(keys, 6, k, v);
    /* 3 (2), then the tie 1 (0), 1 (4) in input order, then -0.0 (1) and +0.0 (3)
     * as equals in input order, then -2 (5). */
    const double wk[6] = { 3, 1, 1, -0.0, 0.0, -2 }, wv[6] = { 2, 0, 4, 1, 3, 5 };
    for (int i = 0; i < 6; i++) {
        cr_expect_eq(k[i], wk[i], "keys_out[%d] = %g", i, k[i]);
        cr_expect_eq(v[i], wv[i], "vals_out[%d] = %g", i, v[i]);
    }
    cr_expect(signbit(k[3]) && !signbit(k[4]), "keys keep their own sign: %g %g", k[3], k[4]);
}

Test(ref_cub, sort_pairs_desc_puts_nan_and_inf_at_the_ends)
{
    const float keys[5] = { -INFINITY, 0.5f, NAN, INFINITY, -NAN };
    double k[5], v[5];
    run_sort_pairs(keys, 5, k, v);
    /* radix order: +NaN above +inf, -NaN below -inf */
    const double wv[5] = { 2, 3, 1, 0, 4 };
    for (int i = 0; i < 5; i++) cr_expect_eq(v[i], wv[i], "vals_out[%d] = %g", i, v[i]);
    cr_expect(isnan(k[0]) && k[1] == INFINITY && k[2] == 0.5 && k[3] == -INFINITY && isnan(k[4]));
}

Test(ref_cub, sort_keys_u32_ascending)
{
    const uint32_t in[6] = { 5, 0xFFFFFFFEu, 0, 5, 7, 0x80000000u };
    double out[6];
    run_unary("cub.sort_keys.u32", KC_U32, in, 6, out, 6);
    const double want[6] = { 0, 5, 5, 7, 2147483648.0, 4294967294.0 };
    for (int i = 0; i < 6; i++) cr_expect_eq(out[i], want[i], "out[%d] = %.0f", i, out[i]);
}

/* Fills argument `arg` of `name` for n elements with the contract's generator. */
static void *gen_of(const char *name, int arg, size_t n)
{
    const kc_contract *c = find(name);
    const kc_arg *a = &c->args[arg];
    cr_assert_not_null(a->gen, "%s: %s has no generator", name, a->name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { (int64_t)n } };
    void *data = malloc(n * 4);
    cr_assert_not_null(data);
    kc_gen g = { .shape = &s, .dist = KC_UNIFORM, .dtype = a->dtype, .data = data, .count = n };
    kc_fill(&g, 42, a->gen);
    return data;
}

Test(ref_cub, integer_inputs_stay_clear_of_the_poison)
{
    const size_t n = 1 << 20;
    const char *counted[] = { "cub.reduce_sum.i32", "cub.scan_incl.i32", "cub.scan_excl.i32" };
    for (int c = 0; c < 3; c++) {
        int32_t *in = gen_of(counted[c], 1, n);
        int seen63 = 0;
        for (size_t i = 0; i < n; i++) {
            cr_assert(in[i] >= 0 && in[i] <= 63, "%s: in[%zu] = %d", counted[c], i, in[i]);
            seen63 |= in[i] == 63;
        }
        cr_expect(seen63, "%s: counts reach 63", counted[c]);
        free(in);
    }
    /* the largest shape's sum stays below 2^31: no prefix is negative or wraps */
    const kc_contract *sc = find("cub.scan_incl.i32");
    int64_t most = 0;
    for (const kc_shape *s = sc->shapes; s->name; s++) most = s->d[0] > most ? s->d[0] : most;
    cr_expect_lt(63 * most, (int64_t)INT32_MAX);
    uint32_t *keys = gen_of("cub.sort_keys.u32", 1, n);
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++) {
        cr_assert_neq(keys[i], 0xFFFFFFFFu, "keys_in[%zu] is the poison", i);
        top = keys[i] > top ? keys[i] : top;
    }
    cr_expect_gt(top, 0xFF000000u, "keys use the top byte (end_bit_short must matter)");
    free(keys);
}
