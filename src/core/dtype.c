/* dtype.c — owns element types: sizes and names, and the exported
 * conversions between every kc_dtype and double. The conversions themselves
 * are the inline functions of include/kcontract_dtype.h, which the device
 * code (generator, checks, references) compiles too, so host and device
 * round identically; the rules are written there. */
#include <string.h>
#include "dtype.h"
#include "kcontract_dtype.h"

size_t kc_dtype_size(kc_dtype t) {
    switch (t) {
    case KC_F64: case KC_I64: case KC_U64: return 8;
    case KC_F32: case KC_I32: case KC_U32: return 4;
    case KC_F16: case KC_BF16: case KC_I16: case KC_U16: return 2;
    case KC_E4M3: case KC_I8: case KC_U8: return 1;
    default: return 0;
    }
}

const char *kc_dtype_name(kc_dtype t) {
    switch (t) {
    case KC_F64: return "f64";
    case KC_F32: return "f32";
    case KC_F16: return "f16";
    case KC_BF16: return "bf16";
    case KC_E4M3: return "e4m3";
    case KC_I64: return "i64";
    case KC_I32: return "i32";
    case KC_U32: return "u32";
    case KC_I8: return "i8";
    case KC_U8: return "u8";
    case KC_I16: return "i16";
    case KC_U16: return "u16";
    case KC_U64: return "u64";
    default: return "none";
    }
}

int kc_dtype_is_float(kc_dtype t) {
    return t == KC_F64 || t == KC_F32 || t == KC_F16 || t == KC_BF16 || t == KC_E4M3;
}

uint16_t kc_double_to_f16(double x) { return kc_cvt_double_to_f16(x); }
double kc_f16_to_double(uint16_t h) { return kc_cvt_f16_to_double(h); }
uint16_t kc_double_to_bf16(double x) { return kc_cvt_double_to_bf16(x); }
double kc_bf16_to_double(uint16_t b) { return kc_cvt_bf16_to_double(b); }
uint8_t kc_double_to_e4m3(double x) { return kc_cvt_double_to_e4m3(x); }
double kc_e4m3_to_double(uint8_t v) { return kc_cvt_e4m3_to_double(v); }
float kc_double_to_f32(double x) { return (float)x; }
double kc_load(kc_dtype t, const void *data, size_t i) { return kc_cvt_load(t, data, i); }
void kc_store(kc_dtype t, void *data, size_t i, double x) { kc_cvt_store(t, data, i, x); }
