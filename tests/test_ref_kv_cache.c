/* test_ref_kv_cache.c — the kv_cache contracts' float64 reference: a copy of
 * the caches with the new rows at their slots, padding skipped, NHD and HND. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "kcontract.h"
#include "dtype.h"
#include "registry.h"

/* tokens 3, kv_heads 2, head_dim 8, page_size 2, num_pages 3 */
#define NC (3 * 2 * 2 * 8)
#define NN (3 * 2 * 8)

static void run_kv(const char *name, double *kout, double *vout)
{
    const kc_contract *c = kc_registry_find_contract(name);
    cr_assert_not_null(c, "contract %s", name);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 3, 2, 8, 2, 3, 0 } };
    uint16_t kc[NC], vc[NC], k[NN], v[NN];
    for (int i = 0; i < NC; i++) { kc[i] = kc_double_to_f16(5.0); vc[i] = kc_double_to_f16(-5.0); }
    for (int i = 0; i < NN; i++) { k[i] = kc_double_to_f16(i + 1); v[i] = kc_double_to_f16(-(i + 1)); }
    /* token 0 -> slot 5 (page 2, position 1), token 1 padding, token 2 -> slot 0 */
    const int64_t slots[3] = { 5, -1, 0 };
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.dist = KC_NORMAL; r.nargs = 8;
    r.host[0] = kc; r.dtype[0] = KC_F16; r.count[0] = NC; r.out[0] = kout;
    r.host[1] = vc; r.dtype[1] = KC_F16; r.count[1] = NC; r.out[1] = vout;
    r.host[2] = k; r.dtype[2] = KC_F16; r.count[2] = NN;
    r.host[3] = v; r.dtype[3] = KC_F16; r.count[3] = NN;
    r.host[4] = slots; r.dtype[4] = KC_I64; r.count[4] = 3;
    r.dtype[5] = KC_I32; r.scalar[5] = 2;
    r.dtype[6] = KC_I32; r.scalar[6] = 8;
    r.dtype[7] = KC_I32; r.scalar[7] = 2;
    for (int i = 0; i < NC; i++) kout[i] = vout[i] = NAN;
    c->reference(&r);
}

/* The 8-element rows (page, position, head) that must hold token rows; all else
 * keeps the cache's 5 / -5. */
static void check(const double *kout, const double *vout, const int rows_t0[2], const int rows_t2[2])
{
    int written[NC / 8] = { 0 };
    for (int h = 0; h < 2; h++) {
        written[rows_t0[h]] = written[rows_t2[h]] = 1;
        for (int d = 0; d < 8; d++) {
            /* token 0 row h: values 1 + h*8 + d; token 2: 1 + 32 + h*8 + d */
            cr_assert_eq(kout[rows_t0[h] * 8 + d], 1.0 + h * 8 + d, "k row %d d %d = %g", rows_t0[h], d, kout[rows_t0[h] * 8 + d]);
            cr_assert_eq(vout[rows_t0[h] * 8 + d], -(1.0 + h * 8 + d));
            cr_assert_eq(kout[rows_t2[h] * 8 + d], 33.0 + h * 8 + d, "k row %d d %d = %g", rows_t2[h], d, kout[rows_t2[h] * 8 + d]);
            cr_assert_eq(vout[rows_t2[h] * 8 + d], -(33.0 + h * 8 + d));
        }
    }
    for (int row = 0; row < NC / 8; row++) {
        if (written[row]) continue;
        for (int d = 0; d < 8; d++) {
            cr_assert_eq(kout[row * 8 + d], 5.0, "untouched k row %d d %d = %g", row, d, kout[row * 8 + d]);
            cr_assert_eq(vout[row * 8 + d], -5.0);
        }
    }
}

Test(ref_kv_cache, nhd)
{
    double kout[NC], vout[NC];
    run_kv("kv_cache.nhd.f16", kout, vout);
    /* NHD row = (page * 2 + pos) * 2 + h: token 0 -> 10, 11; token 2 -> 0, 1 */
    const int t0[2] = { 10, 11 }, t2[2] = { 0, 1 };
    check(kout, vout, t0, t2);
}

Test(ref_kv_cache, hnd)
{
    double kout[NC], vout[NC];
    run_kv("kv_cache.hnd.f16", kout, vout);
    /* HND row = (page * 2 + h) * 2 + pos: token 0 -> 9, 11; token 2 -> 0, 2 */
    const int t0[2] = { 9, 11 }, t2[2] = { 0, 2 };
    check(kout, vout, t0, t2);
}
