/* dtype_suite.c — host-only suites: every float16 and bfloat16 bit pattern
 * converts to double and back unchanged (NaNs stay NaN), the property gate 3's
 * comparisons and every generator rely on. */
#include <math.h>
#include <stdint.h>

#include "dtype.h"
#include "kcontract.h"

static int roundtrip_16(kc_suite_ctx *ctx, kc_dtype t)
{
    for (uint32_t bits = 0; bits <= 0xFFFF; bits++) {
        uint16_t in = (uint16_t)bits, out;
        double x = kc_load(t, &in, 0);
        kc_store(t, &out, 0, x);
        if (isnan(x) ? !isnan(kc_load(t, &out, 0)) : out != in)
            return kc_suite_fail(ctx, "%s 0x%04X -> %.17g -> 0x%04X", kc_dtype_name(t), (unsigned)in, x, (unsigned)out);
    }
    return 0;
}

KC_SUITE(suite_f16_exhaustive, "host.dtype.f16_roundtrip", 0) { return roundtrip_16(ctx, KC_F16); }
KC_SUITE(suite_bf16_exhaustive, "host.dtype.bf16_roundtrip", 0) { return roundtrip_16(ctx, KC_BF16); }

KC_SUITE(suite_e4m3_exhaustive, "host.dtype.e4m3_roundtrip", 0)
{
    for (unsigned bits = 0; bits <= 0xFF; bits++) {
        uint8_t in = (uint8_t)bits, out;
        double x = kc_load(KC_E4M3, &in, 0);
        kc_store(KC_E4M3, &out, 0, x);
        if (isnan(x) ? !isnan(kc_load(KC_E4M3, &out, 0)) : out != in)
            return kc_suite_fail(ctx, "e4m3 0x%02X -> %.17g -> 0x%02X", bits, x, (unsigned)out);
    }
    return 0;
}
