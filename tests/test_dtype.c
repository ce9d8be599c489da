/* test_dtype.c — element types: sizes and names, the exact narrow-float
 * conversions on hand-picked bit patterns (extremes, subnormals, ties to
 * even, overflow, NaN, -0), exhaustive round trips, and integer stores. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "dtype.h"

static uint64_t bits_of(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }

Test(dtype, sizes_and_names) {
    cr_assert_eq(kc_dtype_size(KC_F64), 8);
    cr_assert_eq(kc_dtype_size(KC_I64), 8);
    cr_assert_eq(kc_dtype_size(KC_F32), 4);
    cr_assert_eq(kc_dtype_size(KC_U32), 4);
    cr_assert_eq(kc_dtype_size(KC_BF16), 2);
    cr_assert_eq(kc_dtype_size(KC_F16), 2);
    cr_assert_eq(kc_dtype_size(KC_E4M3), 1);
    cr_assert_eq(kc_dtype_size(KC_U8), 1);
    cr_assert_eq(kc_dtype_size(KC_I16), 2);
    cr_assert_eq(kc_dtype_size(KC_U16), 2);
    cr_assert_eq(kc_dtype_size(KC_U64), 8);
    cr_assert_str_eq(kc_dtype_name(KC_I16), "i16");
    cr_assert_str_eq(kc_dtype_name(KC_U16), "u16");
    cr_assert_str_eq(kc_dtype_name(KC_U64), "u64");
    cr_assert_not(kc_dtype_is_float(KC_U64));
    cr_assert_eq(kc_dtype_size(KC_DTYPE_NONE), 0);
    cr_assert_str_eq(kc_dtype_name(KC_BF16), "bf16");
    cr_assert_str_eq(kc_dtype_name(KC_E4M3), "e4m3");
    cr_assert_str_eq(kc_dtype_name(KC_I8), "i8");
    cr_assert(kc_dtype_is_float(KC_E4M3));
    cr_assert(kc_dtype_is_float(KC_F64));
    cr_assert_not(kc_dtype_is_float(KC_I32));
    cr_assert_not(kc_dtype_is_float(KC_DTYPE_NONE));
}

Test(dtype, f16_special_patterns) {
    cr_assert_eq(kc_double_to_f16(1.0), 0x3c00);
    cr_assert_eq(kc_double_to_f16(-2.0), 0xc000);
    cr_assert_eq(kc_double_to_f16(65504.0), 0x7bff);              /* max */
    cr_assert_eq(kc_double_to_f16(0x1p-14), 0x0400);              /* min normal */
    cr_assert_eq(kc_double_to_f16(0x1p-24), 0x0001);              /* min subnormal */
    cr_assert_eq(kc_double_to_f16(1023 * 0x1p-24), 0x03ff);       /* max subnormal */
    cr_assert_eq(kc_double_to_f16(-0.0), 0x8000);
    cr_assert_eq(kc_double_to_f16(0.0), 0x0000);
    cr_assert_eq(kc_double_to_f16(INFINITY), 0x7c00);
    cr_assert_eq(kc_double_to_f16(-INFINITY), 0xfc00);
    cr_assert_eq(kc_double_to_f16(NAN), 0x7e00);
    cr_assert_eq(kc_double_to_f16(1e-300), 0x0000);
    cr_assert_eq(kc_double_to_f16(-1e-300), 0x8000);
    cr_assert_eq(kc_double_to_f16(4.9e-324), 0x0000);             /* double subnormal */
}

Test(dtype, f16_ties_to_even_and_overflow) {
    cr_assert_eq(kc_double_to_f16(1.0 + 0x1p-11), 0x3c00);        /* tie -> even 1.0 */
    cr_assert_eq(kc_double_to_f16(1.0 + 3 * 0x1p-11), 0x3c02);    /* tie -> even up */
    cr_assert_eq(kc_double_to_f16(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
    cr_assert_eq(kc_double_to_f16(1.0 + 0x1p-11 - 0x1p-40), 0x3c00);
    cr_assert_eq(kc_double_to_f16(0x1p-25), 0x0000);              /* half min subnormal: tie to 0 */
    cr_assert_eq(kc_double_to_f16(0x1p-25 + 0x1p-60), 0x0001);
    cr_assert_eq(kc_double_to_f16(3 * 0x1p-25), 0x0002);          /* 1.5 quanta -> 2 */
    cr_assert_eq(kc_double_to_f16(1023.5 * 0x1p-24), 0x0400);     /* subnormal rounds into normal */
    cr_assert_eq(kc_double_to_f16(2047.5 * 0x1p-24), 0x0800);       /* tie carries into the next binade */
    cr_assert_eq(kc_double_to_f16(2046.5 * 0x1p-24), 0x07fe);       /* tie -> even mantissa */
    cr_assert_eq(kc_double_to_f16(65519.0), 0x7bff);              /* below the halfway point */
    cr_assert_eq(kc_double_to_f16(65520.0), 0x7c00);              /* max + half ulp: tie -> inf */
    cr_assert_eq(kc_double_to_f16(-65520.0), 0xfc00);
    cr_assert_eq(kc_double_to_f16(1e10), 0x7c00);
}

Test(dtype, f16_decode) {
    cr_assert_eq(kc_f16_to_double(0x7bff), 65504.0);
    cr_assert_eq(kc_f16_to_double(0x0001), 0x1p-24);
    cr_assert_eq(kc_f16_to_double(0x03ff), 1023 * 0x1p-24);
    cr_assert_eq(kc_f16_to_double(0x3555), 0x1.554p-2);
    cr_assert_eq(kc_f16_to_double(0xfc00), -INFINITY);
    cr_assert(isnan(kc_f16_to_double(0x7e00)));
    cr_assert(isnan(kc_f16_to_double(0xfc01)));
    double nz = kc_f16_to_double(0x8000);
    cr_assert(nz == 0.0 && signbit(nz));
    cr_assert(signbit(kc_f16_to_double(0x8001)));
}

Test(dtype, f16_round_trip_all) {
    for (unsigned h = 0; h < 0x10000; h++) {
        double d = kc_f16_to_double((uint16_t)h);
        if (isnan(d)) continue;
        cr_assert_eq(kc_double_to_f16(d), h, "f16 0x%04x", h);
    }
}

#ifdef __FLT16_MAX__
/* The compiler's own double -> _Float16 conversion rounds once, RNE: an oracle. */
Test(dtype, f16_matches_compiler_on_random_doubles) {
    uint64_t s = 12345;
    for (int i = 0; i < 200000; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        /* exponents around the f16 range, random 52-bit mantissas */
        int e = (int)((s >> 58) % 48) - 30;
        double d = ldexp(1.0 + (double)(s >> 12) * 0x1p-52, e);
        if (s & 1) d = -d;
        volatile double vd = d;
        _Float16 h = (_Float16)vd;
        uint16_t want;
        memcpy(&want, &h, 2);
        cr_assert_eq(kc_double_to_f16(d), want, "x=%a", d);
    }
}
#endif

Test(dtype, bf16_patterns) {
    cr_assert_eq(kc_double_to_bf16(1.0), 0x3f80);
    cr_assert_eq(kc_double_to_bf16(-1.0), 0xbf80);
    cr_assert_eq(kc_double_to_bf16(0x1.fep127), 0x7f7f);          /* max */
    cr_assert_eq(kc_double_to_bf16(0x1p-126), 0x0080);            /* min normal */
    cr_assert_eq(kc_double_to_bf16(0x1p-133), 0x0001);            /* min subnormal */
    cr_assert_eq(kc_double_to_bf16(0x1p-134), 0x0000);            /* tie -> 0 */
    cr_assert_eq(kc_double_to_bf16(3 * 0x1p-134), 0x0002);
    cr_assert_eq(kc_double_to_bf16(-0.0), 0x8000);
    cr_assert_eq(kc_double_to_bf16(1.0 + 0x1p-8), 0x3f80);        /* tie -> even */
    cr_assert_eq(kc_double_to_bf16(1.0 + 3 * 0x1p-8), 0x3f82);
    /* Rounding through float first would give 0x3f80 here (double rounding). */
    cr_assert_eq(kc_double_to_bf16(1.0 + 0x1p-8 + 0x1p-30), 0x3f81);
    cr_assert_eq(kc_double_to_bf16(0x1.ffp127), 0x7f80);          /* max + half ulp -> inf */
    cr_assert_eq(kc_double_to_bf16(0x1.fefffffp127), 0x7f7f);
    cr_assert_eq(kc_double_to_bf16(1e300), 0x7f80);
    cr_assert_eq(kc_double_to_bf16(-INFINITY), 0xff80);
    cr_assert_eq(kc_double_to_bf16(NAN), 0x7fc0);
    cr_assert_eq(kc_bf16_to_double(0x7f7f), 0x1.fep127);
    cr_assert_eq(kc_bf16_to_double(0x0001), 0x1p-133);
    cr_assert(isnan(kc_bf16_to_double(0x7fc0)));
    cr_assert(signbit(kc_bf16_to_double(0x8000)));
}

Test(dtype, bf16_round_trip_all) {
    for (unsigned b = 0; b < 0x10000; b++) {
        double d = kc_bf16_to_double((uint16_t)b);
        if (isnan(d)) continue;
        cr_assert_eq(kc_double_to_bf16(d), b, "bf16 0x%04x", b);
    }
}

Test(dtype, e4m3_patterns) {
    cr_assert_eq(kc_double_to_e4m3(1.0), 0x38);
    cr_assert_eq(kc_double_to_e4m3(448.0), 0x7e);                 /* max */
    cr_assert_eq(kc_double_to_e4m3(-448.0), 0xfe);
    cr_assert_eq(kc_double_to_e4m3(464.0), 0x7e);                 /* saturates, never NaN */
    cr_assert_eq(kc_double_to_e4m3(1e9), 0x7e);
    cr_assert_eq(kc_double_to_e4m3(INFINITY), 0x7e);
    cr_assert_eq(kc_double_to_e4m3(-INFINITY), 0xfe);
    cr_assert_eq(kc_double_to_e4m3(NAN), 0x7f);
    cr_assert_eq(kc_double_to_e4m3(0x1p-6), 0x08);                /* min normal */
    cr_assert_eq(kc_double_to_e4m3(0x1p-9), 0x01);                /* min subnormal */
    cr_assert_eq(kc_double_to_e4m3(0x1p-10), 0x00);               /* tie -> 0 */
    cr_assert_eq(kc_double_to_e4m3(3 * 0x1p-10), 0x02);           /* tie -> even */
    cr_assert_eq(kc_double_to_e4m3(1.0625), 0x38);                /* 1 + 1/16: tie -> 1.0 */
    cr_assert_eq(kc_double_to_e4m3(1.1875), 0x3a);                /* 1 + 3/16: tie -> 1.25 */
    cr_assert_eq(kc_double_to_e4m3(1.0625 + 1e-9), 0x39);
    cr_assert_eq(kc_double_to_e4m3(-0.0), 0x80);
    cr_assert_eq(kc_double_to_e4m3(7.5 * 0x1p-9), 0x08);          /* subnormal rounds into normal */
    cr_assert_eq(kc_e4m3_to_double(0x7e), 448.0);
    cr_assert_eq(kc_e4m3_to_double(0xfe), -448.0);
    cr_assert_eq(kc_e4m3_to_double(0x01), 0x1p-9);
    cr_assert_eq(kc_e4m3_to_double(0x07), 7 * 0x1p-9);
    cr_assert_eq(kc_e4m3_to_double(0x78), 256.0);                 /* S.1111.000 is finite */
    cr_assert(isnan(kc_e4m3_to_double(0x7f)));
    cr_assert(isnan(kc_e4m3_to_double(0xff)));
}

Test(dtype, e4m3_round_trip_all) {
    for (unsigned v = 0; v < 0x100; v++) {
        double d = kc_e4m3_to_double((uint8_t)v);
        if (isnan(d)) continue;
        cr_assert_eq(kc_double_to_e4m3(d), v, "e4m3 0x%02x", v);
    }
}

Test(dtype, integer_stores_truncate_and_saturate) {
    int8_t i8[6];
    kc_store(KC_I8, i8, 0, 200.0);
    kc_store(KC_I8, i8, 1, -200.0);
    kc_store(KC_I8, i8, 2, 3.9);
    kc_store(KC_I8, i8, 3, -3.9);
    kc_store(KC_I8, i8, 4, NAN);
    kc_store(KC_I8, i8, 5, -INFINITY);
    cr_assert_eq(i8[0], 127);
    cr_assert_eq(i8[1], -128);
    cr_assert_eq(i8[2], 3);
    cr_assert_eq(i8[3], -3);
    cr_assert_eq(i8[4], 0);
    cr_assert_eq(i8[5], -128);
    uint8_t u8[2];
    kc_store(KC_U8, u8, 0, -5.0);
    kc_store(KC_U8, u8, 1, 255.99);
    cr_assert_eq(u8[0], 0);
    cr_assert_eq(u8[1], 255);
    uint32_t u32[3];
    kc_store(KC_U32, u32, 0, 4e9);
    kc_store(KC_U32, u32, 1, 5e9);
    kc_store(KC_U32, u32, 2, -0.5);
    cr_assert_eq(u32[0], 4000000000u);
    cr_assert_eq(u32[1], UINT32_MAX);
    cr_assert_eq(u32[2], 0);
    int32_t i32[2];
    kc_store(KC_I32, i32, 0, INFINITY);
    kc_store(KC_I32, i32, 1, -2147483648.9);
    cr_assert_eq(i32[0], INT32_MAX);
    cr_assert_eq(i32[1], INT32_MIN);
    int64_t i64[4];
    kc_store(KC_I64, i64, 0, 1e19);
    kc_store(KC_I64, i64, 1, -1e19);
    kc_store(KC_I64, i64, 2, -0x1p62);
    kc_store(KC_I64, i64, 3, NAN);
    cr_assert_eq(i64[0], INT64_MAX);
    cr_assert_eq(i64[1], INT64_MIN);
    cr_assert_eq(i64[2], -(INT64_C(1) << 62));
    cr_assert_eq(i64[3], 0);
    int16_t i16[3];
    kc_store(KC_I16, i16, 0, 40000.0);
    kc_store(KC_I16, i16, 1, -40000.0);
    kc_store(KC_I16, i16, 2, -7.9);
    cr_assert_eq(i16[0], INT16_MAX);
    cr_assert_eq(i16[1], INT16_MIN);
    cr_assert_eq(i16[2], -7);
    uint16_t u16[2];
    kc_store(KC_U16, u16, 0, 70000.0);
    kc_store(KC_U16, u16, 1, -1.0);
    cr_assert_eq(u16[0], UINT16_MAX);
    cr_assert_eq(u16[1], 0);
    uint64_t u64[4];
    kc_store(KC_U64, u64, 0, 0x1p64);
    kc_store(KC_U64, u64, 1, -3.0);
    kc_store(KC_U64, u64, 2, 0x1p63);      /* beyond int64: exact, not saturated at INT64_MAX */
    kc_store(KC_U64, u64, 3, NAN);
    cr_assert_eq(u64[0], UINT64_MAX);
    cr_assert_eq(u64[1], 0);
    cr_assert_eq(u64[2], UINT64_C(1) << 63);
    cr_assert_eq(u64[3], 0);
    cr_assert_eq(kc_load(KC_U64, u64, 2), 0x1p63);
}

Test(dtype, load_store_every_dtype) {
    const kc_dtype all[] = { KC_F64, KC_F32, KC_F16, KC_BF16, KC_E4M3,
                             KC_I64, KC_I32, KC_U32, KC_I8, KC_U8, KC_I16, KC_U16, KC_U64 };
    for (size_t t = 0; t < sizeof all / sizeof all[0]; t++) {
        unsigned char buf[64];
        memset(buf, 0xAA, sizeof buf);
        double x = kc_dtype_is_float(all[t]) ? -2.5 : 7.0;
        if (all[t] == KC_U32 || all[t] == KC_U8 || all[t] == KC_U16 || all[t] == KC_U64) x = 200.0;
        kc_store(all[t], buf, 3, x);
        cr_assert_eq(kc_load(all[t], buf, 3), x, "%s", kc_dtype_name(all[t]));
        /* neighbours untouched */
        size_t sz = kc_dtype_size(all[t]);
        cr_assert_eq(buf[3 * sz - 1], 0xAA);
        cr_assert_eq(buf[4 * sz], 0xAA);
    }
    float f = 0;
    kc_store(KC_F32, &f, 0, 0.1);
    cr_assert_eq(f, 0.1f);
    cr_assert_eq(bits_of(kc_load(KC_F32, &f, 0)), bits_of((double)0.1f));
    cr_assert_eq(kc_double_to_f32(1e300), INFINITY);
}
