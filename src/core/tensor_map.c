/* tensor_map.c — a tensor map argument's layout checked against
 * cuTensorMapEncodeTiled's rules and its buffer (tensor_map.h). The rules
 * are the ones the CUDA 13.0 driver API documents for the encoder. */
#include "tensor_map.h"

#include <stdarg.h>
#include <stdio.h>

#include "dtype.h"
#include "strbuf.h"

int kc_tmap_cu_dtype(kc_dtype t)
{
    /* CUtensorMapDataType: UINT8 0, UINT16 1, UINT32 2, INT32 3, UINT64 4,
     * INT64 5, FLOAT16 6, FLOAT32 7, FLOAT64 8, BFLOAT16 9 */
    switch (t) {
    case KC_U8: case KC_I8: case KC_E4M3: return 0;
    case KC_U16: case KC_I16: return 1;
    case KC_U32: return 2;
    case KC_I32: return 3;
    case KC_U64: return 4;
    case KC_I64: return 5;
    case KC_F16: return 6;
    case KC_F32: return 7;
    case KC_F64: return 8;
    case KC_BF16: return 9;
    default: return -1;
    }
}

void kc_tmap_strides(const kc_tensor_map *m, size_t es, uint64_t out[KC_TMAP_MAX_RANK - 1])
{
    uint64_t prev = es;
    for (int i = 0; i + 1 < KC_TMAP_MAX_RANK; i++) {
        out[i] = 0;
        if (i + 1 >= m->rank) continue;
        uint64_t packed = 0;
        if (__builtin_mul_overflow(prev, m->dims[i], &packed)) packed = UINT64_MAX;
        out[i] = m->strides[i] ? m->strides[i] : packed;
        prev = out[i];
    }
}

uint64_t kc_tmap_extent(const kc_tensor_map *m, size_t es)
{
    uint64_t st[KC_TMAP_MAX_RANK - 1], end = es, t;
    kc_tmap_strides(m, es, st);
    for (int i = 0; i < m->rank && i < KC_TMAP_MAX_RANK; i++) {
        if (!m->dims[i]) return 0;
        if (__builtin_mul_overflow(m->dims[i] - 1, i ? st[i - 1] : es, &t) || __builtin_add_overflow(end, t, &end))
            return UINT64_MAX;
    }
    return end;
}

static void list_u64(kc_strbuf *b, const char *name, const uint64_t *v, int n)
{
    kc_sb_printf(b, ", %s ", name);
    for (int i = 0; i < n; i++) kc_sb_printf(b, "%s%llu", i ? "x" : "", (unsigned long long)v[i]);
}

void kc_tmap_describe(const kc_tensor_map *m, size_t es, char *buf, size_t cap)
{
    static const char *swz[] = { "none", "32B", "64B", "128B" };
    kc_strbuf b;
    kc_sb_init(&b, buf, cap);
    const int r = m->rank < 1 ? 1 : m->rank > KC_TMAP_MAX_RANK ? KC_TMAP_MAX_RANK : m->rank;
    uint64_t st[KC_TMAP_MAX_RANK - 1], box[KC_TMAP_MAX_RANK];
    kc_tmap_strides(m, es, st);
    for (int i = 0; i < r; i++) box[i] = m->box[i];
    kc_sb_printf(&b, "rank %d", m->rank);
    list_u64(&b, "dims", m->dims, r);
    if (r > 1) list_u64(&b, "strides", st, r - 1);
    if (r > 1) kc_sb_printf(&b, " bytes");
    list_u64(&b, "box", box, r);
    if (m->swizzle >= 0 && m->swizzle <= 3) kc_sb_printf(&b, ", swizzle %s", swz[m->swizzle]);
    else kc_sb_printf(&b, ", swizzle %d", m->swizzle);
    if (m->interleave) kc_sb_printf(&b, ", interleave %dB", m->interleave == 1 ? 16 : 32);
}

/* One rule broken: its text into why. Returns 1. */
static int broken(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int broken(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return 1;
}

/* The rules on the enums and the per-dim fields. */
static int check_fields(const kc_tensor_map *m, kc_dtype t, size_t es, char *why, size_t cap)
{
    if (m->rank < 1 || m->rank > KC_TMAP_MAX_RANK) return broken(why, cap, "rank %d is not 1..5", m->rank);
    if (m->interleave < 0 || m->interleave > 2) return broken(why, cap, "interleave %d is not 0..2", m->interleave);
    if (m->interleave && m->rank < 3) return broken(why, cap, "interleave needs rank 3 or more, not %d", m->rank);
    if (m->swizzle < 0 || m->swizzle > 6) return broken(why, cap, "swizzle %d is not 0..6", m->swizzle);
    if (m->interleave == 2 && m->swizzle != 1) return broken(why, cap, "32-byte interleave needs the 32B swizzle, not %d", m->swizzle);
    if (m->l2_promotion < 0 || m->l2_promotion > 3) return broken(why, cap, "l2_promotion %d is not 0..3", m->l2_promotion);
    if (m->oob_fill < 0 || m->oob_fill > 1) return broken(why, cap, "oob_fill %d is not 0..1", m->oob_fill);
    if (m->oob_fill && !kc_dtype_is_float(t)) return broken(why, cap, "a NaN out-of-bounds fill needs a floating dtype, not %s", kc_dtype_name(t));
    for (int i = 0; i < m->rank; i++) {
        if (m->dims[i] < 1 || m->dims[i] > ((uint64_t)1 << 32))
            return broken(why, cap, "dims[%d] = %llu is not 1..2^32", i, (unsigned long long)m->dims[i]);
        if (m->box[i] < 1 || m->box[i] > 256) return broken(why, cap, "box[%d] = %u is not 1..256", i, m->box[i]);
        if (m->elem_strides[i] > 8) return broken(why, cap, "elem_strides[%d] = %u is not 1..8", i, m->elem_strides[i]);
    }
    const uint64_t inner = (uint64_t)m->box[0] * es;
    if (!m->interleave && inner % 16)
        return broken(why, cap, "box[0] = %u elements of %zu bytes is %llu bytes, not a multiple of 16", m->box[0], es,
                      (unsigned long long)inner);
    static const unsigned span[] = { 0, 32, 64, 128, 128, 128, 128 };
    if (!m->interleave && m->swizzle && inner > span[m->swizzle])
        return broken(why, cap, "box[0] = %u elements is %llu bytes, more than the swizzle's span of %u", m->box[0],
                      (unsigned long long)inner, span[m->swizzle]);
    return 0;
}

int kc_tmap_check(const kc_tensor_map *m, kc_dtype t, uint64_t address, uint64_t bytes, char *why, size_t cap)
{
    const size_t es = kc_dtype_size(t);
    if (kc_tmap_cu_dtype(t) < 0) return broken(why, cap, "its buffer has no dtype a tensor map takes");
    if (check_fields(m, t, es, why, cap)) return 1;
    const unsigned align = m->interleave == 2 ? 32 : 16;
    uint64_t st[KC_TMAP_MAX_RANK - 1], below = es * m->dims[0];
    kc_tmap_strides(m, es, st);
    for (int i = 0; i + 1 < m->rank; i++) {
        if (st[i] % align || st[i] >= ((uint64_t)1 << 40))
            return broken(why, cap, "the stride of dim %d is %llu bytes: not a multiple of %u below 2^40", i + 1,
                          (unsigned long long)st[i], align);
        if (st[i] < below)
            return broken(why, cap, "the stride of dim %d is %llu bytes, less than the %llu bytes dim %d spans", i + 1,
                          (unsigned long long)st[i], (unsigned long long)below, i);
        below = st[i] * m->dims[i + 1];
    }
    if (address % align)
        return broken(why, cap, "its global address 0x%llx (element 0 of its buffer, after the offset) is not %u-byte aligned",
                      (unsigned long long)address, align);
    const uint64_t extent = kc_tmap_extent(m, es);
    if (extent > bytes)
        return broken(why, cap, "it reaches %llu bytes from its address, past the %llu bytes of its buffer: the tensor memory accelerator would read or write outside the buffer",
                      (unsigned long long)extent, (unsigned long long)bytes);
    return 0;
}
