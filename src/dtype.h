/* dtype.h — element types: sizes, names, and exact conversions between every
 * kc_dtype and double (IEEE round-to-nearest-even when narrowing, as CUDA's
 * __float2half_rn / __float2bfloat16_rn do; E4M3 saturates to +-448 like
 * __nv_cvt_float_to_fp8 with __NV_SATFINITE). */
#ifndef KC_DTYPE_H
#define KC_DTYPE_H
#include <stddef.h>
#include <stdint.h>
#include "kcontract.h"

size_t kc_dtype_size(kc_dtype t);          /* bytes per element; 0 for KC_DTYPE_NONE */
const char *kc_dtype_name(kc_dtype t);     /* "f32", "f16", "bf16", ... */
int kc_dtype_is_float(kc_dtype t);         /* F64 F32 F16 BF16 E4M3 */

double kc_f16_to_double(uint16_t h);
uint16_t kc_double_to_f16(double x);       /* RNE, overflow to +-inf, NaN -> 0x7e00 */
double kc_bf16_to_double(uint16_t b);
uint16_t kc_double_to_bf16(double x);      /* RNE from the double (not via float) */
double kc_e4m3_to_double(uint8_t v);
uint8_t kc_double_to_e4m3(double x);       /* RNE, saturates to +-448, NaN -> 0x7f */
float kc_double_to_f32(double x);          /* RNE (the C cast) */

/* Element i of an array of dtype t, as a double (exact). */
double kc_load(kc_dtype t, const void *data, size_t i);
/* Stores x as element i (floats: RNE; integers: truncate toward zero, saturate). */
void kc_store(kc_dtype t, void *data, size_t i, double x);

#endif
