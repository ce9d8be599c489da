/* tensor_map.h — the layout of a tensor map argument (kc_tensor_map) checked
 * against the rules of cuTensorMapEncodeTiled (CUDA driver API, "Tensor Map
 * Object Management") and against the buffer it maps, before the driver
 * sees it: every failure names the field, its value and the rule, so a
 * contract's mistake reads as one, not as CUDA_ERROR_INVALID_VALUE. Pure
 * functions: no driver, no device (tensor_map.c). */
#ifndef KC_TENSOR_MAP_H
#define KC_TENSOR_MAP_H
#include <stddef.h>
#include <stdint.h>
#include "kcontract.h"

/* The CUtensorMapDataType value of dtype t (F16 FLOAT16, BF16 BFLOAT16, F32
 * FLOAT32, F64 FLOAT64, I32 INT32, U32 UINT32, I64 INT64, U64 UINT64, I16 and
 * U16 UINT16, I8, U8 and E4M3 UINT8), or -1 for KC_DTYPE_NONE. */
int kc_tmap_cu_dtype(kc_dtype t);

/* The byte strides of dims 1 .. rank-1 into out[0 .. rank-2]: m's, with a 0
 * (packed) resolved to the previous dim's stride times its size; dim 0's
 * stride is the element size es. */
void kc_tmap_strides(const kc_tensor_map *m, size_t es, uint64_t out[KC_TMAP_MAX_RANK - 1]);

/* Bytes from the map's global address to one past the last element it can
 * address: es + sum over dims of (dims[i] - 1) x stride(i). UINT64_MAX on
 * overflow. */
uint64_t kc_tmap_extent(const kc_tensor_map *m, size_t es);

/* "rank 2, dims 4096x1024, strides 8192 bytes, box 64x128, swizzle 128B". */
void kc_tmap_describe(const kc_tensor_map *m, size_t es, char *buf, size_t cap);

/* Checks map m over a buffer of dtype t whose element 0 is at device address
 * `address` and that holds `bytes` bytes from there: the encoder's rules
 * (rank 1..5; dims 1..2^32; strides multiples of 16 (32 with 32-byte
 * interleave) below 2^40 and no smaller than the dim below spans; box
 * 1..256 a dim, box[0] x element size a multiple of 16 without interleave,
 * within the swizzle's span with one; element strides 0..8; the enums in
 * range; a NaN fill only for floating types; the address 16-byte aligned,
 * 32 with 32-byte interleave) and the extent within the buffer. 0; or 1
 * with the first broken rule in why. */
int kc_tmap_check(const kc_tensor_map *m, kc_dtype t, uint64_t address, uint64_t bytes, char *why, size_t cap);
#endif
