/* params.c — the parameters a launch of a case gets: each argument as the
 * kernel's parameter of its place (params.h), and their sizes checked
 * against the kernel's own. By-value arguments live in one aligned arena of
 * the kc_params, so a launch needs no allocation. */
#include "params.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "kcontract_dtype.h"
#include "tensor_map.h"

/* n bytes at alignment al in p's arena, zeroed; NULL when it is full. */
static void *arena(kc_params *p, size_t n, size_t al)
{
    size_t at = (p->used + al - 1) / al * al;
    if (at + n > sizeof p->by_value) return NULL;
    p->used = at + n;
    memset(p->by_value + at, 0, n);
    return p->by_value + at;
}

/* A scalar of dtype t at dst: integers exactly from iv where the contract
 * gives ivalue (past 2^53 too), else from the double v, rounded as
 * kc_store rounds (floats RNE, integers truncated and saturated). */
static void put_scalar(void *dst, kc_dtype t, int exact, long long iv, double v)
{
    if (exact && t == KC_I64) memcpy(dst, &iv, 8);
    else if (exact && t == KC_U64) memcpy(dst, &iv, 8);    /* the same 64 bits */
    else kc_cvt_store(t, dst, 0, exact ? (double)iv : v);
}

/* Encodes the tensor map argument a (its layout over its buffer's data in
 * set `set`) into dst (128 bytes, 64-byte aligned). 0, or the gate. */
static int encode_tensor_map(kc_gpu *gpu, kc_case *k, int set, int a, int gate, void *dst)
{
    const kc_arg *ar = &k->c->args[a];
    const int o = k->owner[a];
    const kc_dtype t = k->c->args[o].dtype;
    const size_t es = kc_dtype_size(t);
    kc_tensor_map m;
    memset(&m, 0, sizeof m);
    ar->tensor_map(k->s, &m);
    char why[400], desc[300];
    const CUdeviceptr data = kc_case_data(k, set, a);
    kc_tmap_describe(&m, es, desc, sizeof desc);
    if (kc_tmap_check(&m, t, data, k->bytes[o], why, sizeof why))
        return kc_case_fail(k, gate, "tensor map %s over %s (%s, %zu elements of %s): %s", ar->name, ar->of, desc,
                            k->count[o], kc_dtype_name(t), why);
    if (!gpu->cu.TensorMapEncodeTiled)
        return kc_case_fail(k, gate, "tensor map %s: the driver has no cuTensorMapEncodeTiled (CUDA 12.0 and later)",
                            ar->name);
    cuuint64_t dims[KC_TMAP_MAX_RANK], st[KC_TMAP_MAX_RANK - 1];
    cuuint32_t box[KC_TMAP_MAX_RANK], es_[KC_TMAP_MAX_RANK];
    uint64_t strides[KC_TMAP_MAX_RANK - 1];
    kc_tmap_strides(&m, es, strides);
    for (int i = 0; i < m.rank; i++) {
        dims[i] = m.dims[i];
        box[i] = m.box[i];
        es_[i] = m.elem_strides[i] ? m.elem_strides[i] : 1;
        if (i + 1 < m.rank) st[i] = strides[i];
    }
    CUresult r = gpu->cu.TensorMapEncodeTiled((CUtensorMap *)dst, (CUtensorMapDataType)kc_tmap_cu_dtype(t),
                                              (cuuint32_t)m.rank, (void *)(uintptr_t)data, dims, st, box, es_,
                                              (CUtensorMapInterleave)m.interleave, (CUtensorMapSwizzle)m.swizzle,
                                              (CUtensorMapL2promotion)m.l2_promotion,
                                              (CUtensorMapFloatOOBfill)m.oob_fill);
    if (r != CUDA_SUCCESS) {
        const char *lost = kc_case_lost_if_sticky(gpu, k, r);
        return kc_case_fail(k, k->sticky ? 1 : gate, "tensor map %s over %s (%s): cuTensorMapEncodeTiled refused it: %s%s",
                            ar->name, ar->of, desc, kc_cuda_error_name(&gpu->cu, r), lost);
    }
    return 0;
}

/* The device pointer argument a passes in set `set`: a buffer's data (an
 * alias's with its offset), a pointer array's table. */
static CUdeviceptr pointer_of(const kc_case *k, int set, int a)
{
    if (k->c->args[a].kind == KC_ARG_PTR_ARRAY) return k->dev[set][a];
    return kc_case_data(k, set, a);
}

/* The parameter struct argument a, laid out by its layout, at dst. */
static int fill_struct(kc_gpu *gpu, kc_case *k, int set, int a, int gate, unsigned char *dst)
{
    const kc_param_struct *L = k->c->args[a].layout;
    for (int i = 0; i < KC_MAX_FIELDS && L->fields[i].name; i++) {
        const kc_field *f = &L->fields[i];
        if (!f->arg) {
            const long long iv = f->ivalue ? (long long)f->ivalue(k->s) : 0;
            put_scalar(dst + f->offset, f->dtype, f->ivalue != NULL, iv, f->value ? f->value(k->s) : 0);
            continue;
        }
        const int b = kc_arg_index(k->c, f->arg);
        if (k->c->args[b].kind == KC_ARG_TENSOR_MAP) {
            _Alignas(64) unsigned char map[sizeof(CUtensorMap)];
            int g = encode_tensor_map(gpu, k, set, b, gate, map);
            if (g) return g;
            memcpy(dst + f->offset, map, sizeof map);
            continue;
        }
        const CUdeviceptr ptr = pointer_of(k, set, b);
        memcpy(dst + f->offset, &ptr, sizeof ptr);
    }
    return 0;
}

/* Argument a's value into p (arg[a], size[a]). 0, or the gate. */
static int make_one(kc_gpu *gpu, kc_case *k, int set, int a, int gate, kc_params *p)
{
    const kc_arg *ar = &k->c->args[a];
    void *v = NULL;
    switch (ar->kind) {
    case KC_ARG_BUFFER:
    case KC_ARG_PTR_ARRAY:
        p->ptr[a] = pointer_of(k, set, a);
        p->arg[a] = &p->ptr[a];
        p->size[a] = sizeof(CUdeviceptr);
        return 0;
    case KC_ARG_SCALAR: {
        const size_t n = kc_dtype_size(ar->dtype);
        if (!(v = arena(p, n, n))) break;
        put_scalar(v, ar->dtype, ar->ivalue != NULL, ar->ivalue ? (long long)ar->ivalue(k->s) : 0, k->scalar[a]);
        p->arg[a] = v;
        p->size[a] = n;
        return 0;
    }
    case KC_ARG_TENSOR_MAP:
        if (!(v = arena(p, sizeof(CUtensorMap), 64))) break;
        p->arg[a] = v;
        p->size[a] = sizeof(CUtensorMap);
        return encode_tensor_map(gpu, k, set, a, gate, v);
    case KC_ARG_STRUCT:
        if (!(v = arena(p, ar->layout->size, ar->layout->align))) break;
        p->arg[a] = v;
        p->size[a] = ar->layout->size;
        return fill_struct(gpu, k, set, a, gate, v);
    default:
        break;
    }
    return kc_case_fail(k, KC_INTERNAL, "argument %s: its value does not fit the %d bytes of by-value parameters",
                        ar->name, KC_PARAM_BYTES);
}

int kc_make_params(kc_gpu *gpu, kc_case *k, int set, int gate, kc_params *p)
{
    p->used = 0;
    p->nparams = 0;
    for (int a = 0; a < k->nargs; a++) {
        p->arg[a] = NULL;
        p->size[a] = 0;
        const kc_arg *ar = &k->c->args[a];
        int g = make_one(gpu, k, set, a, gate, p);
        if (g) return g;
        if (ar->kind == KC_ARG_BUFFER && ar->carried) {
            p->arg[a] = NULL;
            continue;
        }
        p->index[p->nparams] = a;
        p->params[p->nparams++] = p->arg[a];
    }
    return 0;
}

/* What argument a is, for a failure line: "a pointer", "a tensor map",
 * "an f16 scalar", "a struct". */
static const char *what_is(const kc_arg *ar, char *buf, size_t cap)
{
    switch (ar->kind) {
    case KC_ARG_SCALAR: snprintf(buf, cap, "a scalar (%s)", kc_dtype_name(ar->dtype)); break;
    case KC_ARG_TENSOR_MAP: snprintf(buf, cap, "a tensor map (CUtensorMap)"); break;
    case KC_ARG_STRUCT: snprintf(buf, cap, "a parameter struct"); break;
    case KC_ARG_PTR_ARRAY: snprintf(buf, cap, "a pointer array's device pointer"); break;
    default: snprintf(buf, cap, "a device pointer"); break;
    }
    return buf;
}

int kc_params_pick(const kc_params *p, const kc_contract *c, const int *args, int n, void **out, int *index)
{
    int m = 0;
    for (int j = 0; j < n; j++) {
        const kc_arg *ar = &c->args[args[j]];
        if (ar->kind == KC_ARG_BUFFER && ar->carried) continue;
        index[m] = args[j];
        out[m++] = p->arg[args[j]];
    }
    return m;
}

int kc_check_param_sizes(kc_gpu *gpu, CUfunction f, kc_case *k, const kc_params *p, const int *index, int n, int gate,
                         const char *who)
{
    if (!gpu->cu.FuncGetParamInfo) return 0;
    char what[64];
    for (int j = 0; j <= n; j++) {
        size_t off = 0, size = 0;
        CUresult r = gpu->cu.FuncGetParamInfo(f, (size_t)j, &off, &size);
        if (j == n) {
            if (r == CUDA_SUCCESS)
                return kc_case_fail(k, gate, "%sthe kernel takes more parameters than the contract's %d: parameter %d is %zu bytes at offset %zu (cuFuncGetParamInfo)",
                                    who, n, j, size, off);
            break;
        }
        if (r == CUDA_ERROR_INVALID_VALUE)
            return kc_case_fail(k, gate, "%sthe kernel takes %d parameters, the contract passes %d (cuFuncGetParamInfo)",
                                who, j, n);
        if (kc_cuda_error_is_sticky(r)) return kc_case_cuda_failed(gpu, k, r, "cuFuncGetParamInfo", "before the launch");
        if (r != CUDA_SUCCESS) return 0;    /* not supported for this function: nothing to check */
        const kc_arg *ar = &k->c->args[index[j]];
        if (size != p->size[index[j]])
            return kc_case_fail(k, gate, "%sargument %s (parameter %d): the kernel's parameter is %zu bytes, the contract passes %s of %zu bytes (cuFuncGetParamInfo)",
                                who, ar->name, j, size, what_is(ar, what, sizeof what), p->size[index[j]]);
    }
    return 0;
}
