/* test_ref_embedding.c — the embedding contracts' reference: gathered rows, zeros for out-of-range ids. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "kcontract.h"
#include "registry.h"

Test(ref_embedding, gather_rows_and_zero_invalid_ids)
{
    const kc_contract *c = kc_registry_find_contract("embedding.f16");
    cr_assert_not_null(c);
    kc_shape s = { "test", KC_SHAPE_EDGE, { 4, 3, 2 } };   /* tokens 4, vocab 3, hidden 2 */
    /* f16 table rows: [1, 2], [3, 4], [-1, 0.5] */
    const uint16_t table[6] = { 0x3c00, 0x4000, 0x4200, 0x4400, 0xbc00, 0x3800 };
    const int32_t ids[4] = { 2, 0, -1, 3 };
    double out[8];
    kc_ref r;
    memset(&r, 0, sizeof r);
    r.shape = &s; r.nargs = 6;
    r.dtype[0] = KC_F16; r.count[0] = 8; r.out[0] = out;
    r.host[1] = table; r.dtype[1] = KC_F16; r.count[1] = 6;
    r.host[2] = ids; r.dtype[2] = KC_I32; r.count[2] = 4;
    r.dtype[3] = KC_I32; r.scalar[3] = 4;
    r.dtype[4] = KC_I32; r.scalar[4] = 3;
    r.dtype[5] = KC_I32; r.scalar[5] = 2;
    c->reference(&r);
    const double want[8] = { -1, 0.5, 1, 2, 0, 0, 0, 0 };
    for (int i = 0; i < 8; i++) cr_expect_eq(out[i], want[i], "out[%d] = %g", i, out[i]);
    cr_assert_not_null(kc_registry_find_contract("embedding.bf16"));
}
