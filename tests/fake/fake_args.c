/* fake_args.c — the fake driver's part for the argument kinds of Hopper
 * kernels (issue 22): cuTensorMapEncodeTiled (the 128-byte map records its
 * layout; an emulated tensor-memory-accelerator load reads a box through
 * it and fills the elements outside the map's dims with zeros, as the
 * hardware does, never touching memory there) and the emulated kernels that
 * take tensor maps, parameter structs, scalars of every dtype, an in-place
 * alias at an offset and a pointer array. Their parameter sizes are in
 * fake_kernels.c's kernel table (cuFuncGetParamInfo, fake_cuda_module.c). */
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"
#include "kcontract_dtype.h"

/* What the fake writes into a CUtensorMap. */
typedef struct fake_tmap {
    uint32_t magic;                 /* FAKE_TMAP_MAGIC */
    int dtype, rank;
    uint64_t addr;
    uint64_t dims[5], strides[4];
    uint32_t box[5];
} fake_tmap;
#define FAKE_TMAP_MAGIC 0x4B43544Du   /* "KCTM" */

_Static_assert(sizeof(fake_tmap) <= sizeof(CUtensorMap), "a fake map fits a CUtensorMap");

/* The encoder's documented rules the harness must already have checked
 * (a refusal here means it did not): alignment of the map and the address,
 * rank, strides, box. */
CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType t, cuuint32_t rank, void *addr,
                                const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                const cuuint32_t *es, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
    (void)es; (void)il; (void)sw; (void)l2; (void)oob;
    if (!map || (uintptr_t)map % 64 || (uintptr_t)addr % 16 || rank < 1 || rank > 5 || t > CU_TENSOR_MAP_DATA_TYPE_BFLOAT16)
        return CUDA_ERROR_INVALID_VALUE;
    fake_tmap m = { FAKE_TMAP_MAGIC, (int)t, (int)rank, (uint64_t)(uintptr_t)addr, { 0 }, { 0 }, { 0 } };
    for (cuuint32_t i = 0; i < rank; i++) {
        if (!dims[i] || !box[i] || box[i] > 256) return CUDA_ERROR_INVALID_VALUE;
        if (i + 1 < rank && strides[i] % 16) return CUDA_ERROR_INVALID_VALUE;
        m.dims[i] = dims[i];
        m.box[i] = box[i];
        if (i + 1 < rank) m.strides[i] = strides[i];
    }
    memset(map, 0, sizeof *map);
    memcpy(map, &m, sizeof m);
    return CUDA_SUCCESS;
}

/* The map a kernel's parameter i holds, or NULL when it is no fake map
 * (the kernel then faults, as one given garbage would). */
static const fake_tmap *map_param(const launch *l, int i)
{
    const fake_tmap *m = (const fake_tmap *)l->p[i];
    return m->magic == FAKE_TMAP_MAGIC && m->rank == 2 && m->dtype == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ? m : NULL;
}

/* An emulated 2-D load of the box at (c0 columns, c1 rows) into dst: an
 * element outside the map's dims is zero. */
static void tma_load_2d(const fake_tmap *m, long long c0, long long c1, float *dst)
{
    for (uint32_t r = 0; r < m->box[1]; r++)
        for (uint32_t c = 0; c < m->box[0]; c++) {
            long long x = c0 + c, y = c1 + r;
            int inside = x >= 0 && y >= 0 && (uint64_t)x < m->dims[0] && (uint64_t)y < m->dims[1];
            dst[r * m->box[0] + c] = inside ? *(const float *)(uintptr_t)(m->addr + (uint64_t)y * m->strides[0] + (uint64_t)x * 4) : 0.0f;
        }
}

/* fake_tmap_copy_f32(const CUtensorMap src, float *out, long long rows, long long cols):
 * out = src, loaded box by box through the map. Controls: box_off_by_one
 * (each box one element to the right: gate 3), store_whole_box (the last
 * row's boxes stored whole, past cols and so past the buffer: gate 2). */
CUresult fake_tmap_copy(const launch *l)
{
    const fake_tmap *m = map_param(l, 0);
    if (!m) return CUDA_ERROR_ILLEGAL_ADDRESS;
    float *out = PTR(float, 1);
    long long rows = I64(2), cols = I64(3);
    float *tile = malloc((size_t)m->box[0] * m->box[1] * sizeof *tile);
    if (!tile) return CUDA_ERROR_OUT_OF_MEMORY;
    const int shift = strcmp(l->control, "box_off_by_one") == 0, whole = strcmp(l->control, "store_whole_box") == 0;
    for (long long r0 = 0; r0 < rows; r0 += m->box[1])
        for (long long c0 = 0; c0 < cols; c0 += m->box[0]) {
            tma_load_2d(m, c0 + shift, r0, tile);
            for (uint32_t r = 0; r < m->box[1] && r0 + r < rows; r++)
                for (uint32_t c = 0; c < m->box[0] && (whole && r0 + r == rows - 1 ? 1 : c0 + c < cols); c++)
                    out[(r0 + r) * cols + c0 + c] = tile[r * m->box[0] + c];
        }
    free(tile);
    return CUDA_SUCCESS;
}

/* fake_struct_axpy_f32(struct { float *y; const float *x; float a; long long n; } p):
 * y = a x + y, everything read out of the struct (32 bytes). Control
 * x_field_is_y (x read from y's field: gate 3). */
CUresult fake_struct_axpy(const launch *l)
{
    const unsigned char *s = l->p[0];
    float *y, *x, a;
    long long n;
    memcpy(&y, s, 8);
    memcpy(&x, s + (strcmp(l->control, "x_field_is_y") == 0 ? 0 : 8), 8);
    memcpy(&a, s + 16, 4);
    memcpy(&n, s + 24, 8);
    if ((unsigned long long)n > l->threads) n = (long long)l->threads;
    for (long long i = 0; i < n; i++) y[i] = a * x[i] + y[i];
    return CUDA_SUCCESS;
}

/* fake_scalars_f64(double *out, __half h, __nv_bfloat16 b, double d, short s,
 * unsigned short us, unsigned long long u, signed char c, unsigned char uc):
 * out[0..7] = each scalar as a double (u exactly where a double holds it). */
CUresult fake_scalars(const launch *l)
{
    double *out = PTR(double, 0);
    uint16_t h, b, us;
    int16_t s;
    double d;
    uint64_t u;
    int8_t c;
    uint8_t uc;
    memcpy(&h, l->p[1], 2);
    memcpy(&b, l->p[2], 2);
    memcpy(&d, l->p[3], 8);
    memcpy(&s, l->p[4], 2);
    memcpy(&us, l->p[5], 2);
    memcpy(&u, l->p[6], 8);
    memcpy(&c, l->p[7], 1);
    memcpy(&uc, l->p[8], 1);
    out[0] = kc_cvt_f16_to_double(h);
    out[1] = kc_cvt_bf16_to_double(b);
    out[2] = d;
    out[3] = s;
    out[4] = us;
    out[5] = (double)u;
    out[6] = c;
    out[7] = uc;
    return CUDA_SUCCESS;
}

/* fake_inplace_scale_f32(float *xo, const float *xi, float a, long long n):
 * xo = a xi, in place where xo and xi are one buffer. Control write_before
 * (xo[-1] written: the element before the buffer's offset: gate 2). */
CUresult fake_inplace_scale(const launch *l)
{
    float *xo = PTR(float, 0);
    const float *xi = PTR(const float, 1);
    float a = F32(2);
    long long n = I64(3);
    if ((unsigned long long)n > l->threads) n = (long long)l->threads;
    for (long long i = 0; i < n; i++) xo[i] = a * xi[i];
    if (strcmp(l->control, "write_before") == 0) xo[-1] = 0.0f;
    return CUDA_SUCCESS;
}

/* fake_grouped_copy_f32(const float *const *src, float *dst, long long groups, long long per):
 * dst[g per + i] = src[g][i]. Controls next_group (group g read from the
 * pointer of group g + 1, wrapping: gate 3), table_written (the last
 * group's pointer advanced by one element after its copy, as a kernel that
 * walks its table's pointers in place: gate 2) and table_overrun (a
 * pointer stored one entry past the table: gate 2). */
CUresult fake_grouped_copy(const launch *l)
{
    const float **src = PTR(const float *, 0);
    float *dst = PTR(float, 1);
    long long groups = I64(2), per = I64(3);
    const int next = strcmp(l->control, "next_group") == 0;
    for (long long g = 0; g < groups; g++)
        for (long long i = 0; i < per; i++) dst[g * per + i] = src[next ? (g + 1) % groups : g][i];
    if (groups && strcmp(l->control, "table_written") == 0) src[groups - 1]++;
    if (strcmp(l->control, "table_overrun") == 0) src[groups] = src[0];
    return CUDA_SUCCESS;
}
