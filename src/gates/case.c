/* case.c — one (shape, distribution) case of a contract as the gates run it:
 * its sizes and scalars, its pristine inputs (inputs.h), its guarded buffer
 * sets (uploaded, poisoned, freed), the parameters a launch gets, the
 * failure it records (gate, shape, distribution and what failed), and the
 * figures of a case that memory plans and the sanitizer's shapes read
 * (kc_case_memory, kc_shape_describe). The gates (launch.c, gate2.c,
 * gate3.c, gate4.c) and the items (gates.c, limits_item.c, sanitize_target.c)
 * work on it. */
#include "case.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith_bound.h"
#include "devmem.h"
#include "dtype.h"
#include "guard.h"
#include "harness.h"
#include "hostmem.h"
#include "inputs.h"
#include "seed.h"

const char *kc_gate_name[] = { "internal", "launch and fit", "bounds and writes", "accuracy", "determinism",
                               "sanitizer" };

/* ---- descriptions ------------------------------------------------------- */

void kc_shape_describe(const kc_contract *c, const kc_shape *s, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "%s (", s->name);
    int first = 1;
    for (int d = 0; d < KC_MAX_DIMS && c->dims[d] && n < cap; d++) {
        n += (size_t)snprintf(buf + n, cap - n, "%s%s=%lld", first ? "" : ", ", c->dims[d], (long long)s->d[d]);
        first = 0;
    }
    if (n < cap) snprintf(buf + n, cap - n, ")");
}

int kc_arg_owns_buffer(const kc_arg *ar)
{
    return ar->kind == KC_ARG_BUFFER && !ar->of;
}

int kc_arg_index(const kc_contract *c, const char *name)
{
    for (int a = 0; name && a < KC_MAX_ARGS && c->args[a].kind != KC_ARG_END; a++)
        if (c->args[a].name && strcmp(c->args[a].name, name) == 0) return a;
    return -1;
}

CUdeviceptr kc_case_data(const kc_case *k, int set, int a)
{
    const int o = k->owner[a];
    if (o < 0 || !k->dev[set][o]) return 0;
    CUdeviceptr p = k->dev[set][o] + k->front[o];
    const kc_arg *ar = &k->c->args[a];
    if (a != o && ar->kind == KC_ARG_BUFFER) p += ar->offset * kc_dtype_size(k->c->args[o].dtype);
    return p;
}

int kc_nargs_of(const kc_contract *c)
{
    int n = 0;
    while (n < KC_MAX_ARGS && c->args[n].kind != KC_ARG_END) n++;
    return n;
}

/* a*b + c, saturating at SIZE_MAX: a memory plan over-counts, never wraps. */
size_t kc_mul_add_sat(size_t a, size_t b, size_t c)
{
    size_t p;
    if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, &p)) return SIZE_MAX;
    return p;
}

int kc_uses_host_reference(const kc_contract *c, kc_ref_mode mode)
{
    return mode != KC_REF_DEVICE || !c->device_reference.symbol;
}

int kc_uses_device_reference(const kc_contract *c, kc_ref_mode mode)
{
    return mode != KC_REF_HOST && c->device_reference.symbol;
}

/* Whether argument ar's generator runs on the host for some case of shape
 * s: it has one, and gen_on names a distribution the shape runs (a large
 * shape runs the contract's first alone), or is 0 (every one). */
static int generated_on_host(const kc_contract *c, const kc_arg *ar, const kc_shape *s)
{
    if (!ar->gen || !ar->gen_on) return ar->gen != NULL;
    kc_dist dists[KC_MAX_DISTS + 2];
    const int nd = kc_dists_of(c, dists), runs = s->cls == KC_SHAPE_LARGE ? 1 : nd;
    for (int d = 0; d < runs; d++)
        if (ar->gen_on & KC_DIST_BIT(dists[d])) return 1;
    return 0;
}

void kc_case_memory(const kc_contract *c, const kc_shape *s, kc_ref_mode mode, size_t *host_bytes, size_t *gpu_bytes)
{
    size_t h = 0, g = 0, guards = 2 * (size_t)KC_GUARD_BYTES;
    int host_ref = kc_uses_host_reference(c, mode), dev_ref = kc_uses_device_reference(c, mode);
    for (int a = 0; a < kc_nargs_of(c); a++) {
        const kc_arg *ar = &c->args[a];
        if (!kc_arg_owns_buffer(ar)) continue;
        size_t cnt = ar->count(s), b = kc_mul_add_sat(kc_mul_add_sat(cnt, 1, ar->offset), kc_dtype_size(ar->dtype), 0);
        size_t f64 = kc_mul_add_sat(cnt, sizeof(double), 0);
        g = kc_mul_add_sat(kc_mul_add_sat(b, 1, guards), 2, g);           /* two guarded sets (gate 4) */
        if (ar->role != KC_OUT) {
            g = kc_mul_add_sat(b, 1, g);                               /* the pristine input */
            if (host_ref || generated_on_host(c, ar, s))       /* generated on, or downloaded to, the host */
                h = kc_mul_add_sat(kc_hostmem_bytes(b), 1, h);
        }
        if (ar->role != KC_IN) {
            /* with the magnitudes of a derived bound (arith_bound.h), twice */
            const size_t per = kc_bound_for(c, a, s).mag ? 2 : 1;
            g = kc_mul_add_sat(f64, per * (size_t)(host_ref + dev_ref), g);  /* the reference(s) on the device */
            if (host_ref) h = kc_mul_add_sat(kc_hostmem_bytes(f64), per, h);   /* the host reference */
        }
    }
    *host_bytes = h;
    *gpu_bytes = g;
}

int kc_case_fail(kc_case *k, int gate, const char *fmt, ...)
{
    char sh[256];
    kc_shape_describe(k->c, k->s, sh, sizeof sh);
    int p = gate == KC_INTERNAL ? snprintf(k->why, sizeof k->why, "internal error: ")
                                : snprintf(k->why, sizeof k->why, "gate %d (%s): ", gate, kc_gate_name[gate]);
    k->body = (size_t)p;
    int n = p + snprintf(k->why + p, sizeof k->why - (size_t)p, "shape %s, dist %s: ", sh, kc_dist_name(k->dist));
    if (k->block_size && n >= 2 && (size_t)n < sizeof k->why)    /* the launch variant: "..., dist normal, block 128: " */
        n = n - 2 + snprintf(k->why + n - 2, sizeof k->why - (size_t)n + 2, ", block %u: ", k->block_size);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof k->why) vsnprintf(k->why + n, sizeof k->why - (size_t)n, fmt, ap);
    va_end(ap);
    return gate == KC_INTERNAL ? -1 : gate;
}

const char *kc_case_lost_if_sticky(kc_gpu *gpu, kc_case *k, CUresult r)
{
    k->sticky = kc_gpu_lost_if_sticky(gpu, r);
    return k->sticky ? " (the CUDA context is now unusable)" : "";
}

/* A CUDA call of the harness failed while checking: a sticky error is the
 * kernel's fault surfacing late (gate 1, the context is lost), anything else
 * the harness's (internal: never a catch). */
int kc_case_cuda_failed(kc_gpu *gpu, kc_case *k, CUresult r, const char *what, const char *name)
{
    const char *lost = kc_case_lost_if_sticky(gpu, k, r);
    return kc_case_fail(k, k->sticky ? 1 : KC_INTERNAL, "%s %s failed: %s%s", what, name, kc_cuda_error_name(&gpu->cu, r),
                        lost);
}

static void free_dev(kc_gpu *gpu, CUdeviceptr *p)
{
    kc_devmem_free(gpu, *p);
    *p = 0;
}

void kc_case_free_set(kc_gpu *gpu, kc_case *k, int set)
{
    for (int a = 0; a < k->nargs; a++) {
        if (k->exact && k->dev[set][a] && !gpu->lost) gpu->cu.MemFree(k->dev[set][a]);   /* never the reuse pool's */
        if (k->exact) k->dev[set][a] = 0;
        free_dev(gpu, &k->dev[set][a]);
    }
}

void kc_case_free(kc_gpu *gpu, kc_case *k)
{
    kc_case_free_set(gpu, k, 0);
    kc_case_free_set(gpu, k, 1);
    for (int a = 0; a < k->nargs; a++) {
        free_dev(gpu, &k->ref[a]);
        free_dev(gpu, &k->dref[a]);
        free_dev(gpu, &k->mag[a]);
        free_dev(gpu, &k->dmag[a]);
    }
    kc_inputs_unpin(gpu, gpu->inputs);
}

/* Sizes, scalars and the pristine device inputs of the case. */
int kc_case_prepare(kc_gpu *gpu, kc_case *k)
{
    const kc_contract *c = k->c;
    k->nargs = kc_nargs_of(c);
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &c->args[a];
        k->owner[a] = kc_arg_owns_buffer(ar) ? a : ar->of ? kc_arg_index(c, ar->of) : -1;
        if (ar->kind == KC_ARG_SCALAR) {
            k->scalar[a] = ar->ivalue ? (double)ar->ivalue(k->s) : ar->value(k->s);
            continue;
        }
        if (ar->kind == KC_ARG_PTR_ARRAY) k->count[a] = ar->count(k->s);
        if (!kc_arg_owns_buffer(ar)) continue;
        k->count[a] = ar->count(k->s);
        k->bytes[a] = kc_mul_add_sat(k->count[a], kc_dtype_size(ar->dtype), 0);
        k->front[a] = kc_mul_add_sat(ar->offset, kc_dtype_size(ar->dtype), k->exact ? 0 : KC_GUARD_BYTES);
        if (k->bytes[a] == SIZE_MAX || kc_mul_add_sat(k->count[a], sizeof(double), 0) == SIZE_MAX ||
            kc_mul_add_sat(k->bytes[a], 1, k->front[a]) == SIZE_MAX)
            return kc_case_fail(k, KC_INTERNAL, "buffer %s: %zu elements overflow a byte size", ar->name, k->count[a]);
        if (ar->role == KC_OUT) continue;
        char why[256] = "";
        CUresult r = kc_inputs_get(gpu, c, k->s, k->dist, k->seed, a, k->count[a], &k->in[a], k->time, why, sizeof why);
        if (r == CUDA_ERROR_UNKNOWN && why[0]) return kc_case_fail(k, KC_INTERNAL, "input %s: %s", ar->name, why);
        if (r != CUDA_SUCCESS) {
            /* The harness's failure (e.g. CUDA_ERROR_OUT_OF_MEMORY beside other
             * processes), not the kernel's: an internal error, so a control can
             * never count as caught by it. */
            kc_case_lost_if_sticky(gpu, k, r);
            return kc_case_fail(k, KC_INTERNAL, "making input %s (%zu elements) on the device failed: %s", ar->name,
                                k->count[a], kc_cuda_error_name(&gpu->cu, r));
        }
    }
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &c->args[a];
        const int o = k->owner[a];
        if (ar->kind == KC_ARG_PTR_ARRAY && o >= 0 && (k->count[a] ? k->count[o] % k->count[a] : k->count[o] != 0))
            return kc_case_fail(k, KC_INTERNAL, "pointer array %s: the %zu elements of %s do not split into %zu equal slices",
                                ar->name, k->count[o], ar->of, k->count[a]);
        /* an alias points into its buffer, never past it: past the guard band no check would see its writes */
        if (ar->kind == KC_ARG_BUFFER && ar->of && o >= 0 && ar->offset && ar->offset >= k->count[o])
            return kc_case_fail(k, KC_INTERNAL, "alias %s: offset %zu elements is not inside %s's %zu elements",
                                ar->name, ar->offset, ar->of, k->count[o]);
    }
    return 0;
}

/* The byte argument a's guard bands hold: NaN bytes around floating inputs
 * (read canaries, guard.h), the canary elsewhere. */
uint8_t kc_case_guard_byte(const kc_arg *ar)
{
    return ar->role != KC_OUT && kc_dtype_is_float(ar->dtype) ? KC_READ_CANARY : KC_CANARY;
}

/* Entry i of the table of pointer array argument a in set `set`: the device
 * address of slice i of the buffer it points into (consecutive equal slices). */
CUdeviceptr kc_case_ptr_entry(const kc_case *k, int set, int a, size_t i)
{
    const int o = k->owner[a];
    const size_t n = k->count[a], slice = n ? k->count[o] / n : 0, es = kc_dtype_size(k->c->args[o].dtype);
    return kc_case_data(k, set, o) + i * slice * es;
}

/* The table of a pointer array argument a in set `set`: count(shape)
 * device pointers (kc_case_ptr_entry) in a device allocation of their own
 * (k->dev[set][a]), followed, but in exact mode, by a guard band of
 * KC_CANARY: gate 2 checks that the kernel wrote neither the table nor past
 * it. */
static CUresult upload_ptr_array(kc_gpu *gpu, kc_case *k, int set, int a)
{
    const size_t n = k->count[a], bytes = n * sizeof(CUdeviceptr);
    if (!n) return CUDA_SUCCESS;
    CUdeviceptr *table = calloc(n, sizeof *table);
    if (!table) return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++) table[i] = kc_case_ptr_entry(k, set, a, i);
    CUresult r = k->exact ? gpu->cu.MemAlloc(&k->dev[set][a], bytes)
                          : kc_devmem_alloc(gpu, &k->dev[set][a], bytes + KC_GUARD_BYTES);
    if (r != CUDA_SUCCESS) k->dev[set][a] = 0;
    else r = gpu->cu.MemcpyHtoD(k->dev[set][a], table, bytes);
    if (r == CUDA_SUCCESS && !k->exact) r = gpu->cu.MemsetD8(k->dev[set][a] + bytes, KC_CANARY, KC_GUARD_BYTES);
    free(table);
    return r;
}

/* Buffer a of set `set` in exact mode: one cuMemAlloc of exactly its offset
 * and its bytes, so that a byte past it is outside any allocation. */
static CUresult upload_exact(kc_gpu *gpu, kc_case *k, int set, int a)
{
    const size_t f = k->front[a], b = k->bytes[a];
    if (!b && !f) return CUDA_SUCCESS;
    CUresult r = gpu->cu.MemAlloc(&k->dev[set][a], f + b);
    if (r != CUDA_SUCCESS) {
        k->dev[set][a] = 0;
        return r;
    }
    if (k->c->args[a].role != KC_OUT && b) r = gpu->cu.MemcpyDtoD(k->dev[set][a] + f, k->in[a], b);
    return r;
}

/* Buffer a of set `set` with its guard bands: the front band (and the
 * elements before its offset) and the band past its end hold the guard
 * byte, the outputs `poison`, the inputs their pristine copy. */
static CUresult upload_guarded(kc_gpu *gpu, kc_case *k, int set, int a, uint8_t poison)
{
    const kc_arg *ar = &k->c->args[a];
    const size_t g = KC_GUARD_BYTES, f = k->front[a], b = k->bytes[a];
    CUresult r = kc_devmem_alloc(gpu, &k->dev[set][a], f + b + g);
    if (r != CUDA_SUCCESS) {
        k->dev[set][a] = 0;
        return r;
    }
    const CUdeviceptr base = k->dev[set][a];
    if ((r = gpu->cu.MemsetD8(base, kc_case_guard_byte(ar), f)) != CUDA_SUCCESS) return r;
    if ((r = gpu->cu.MemsetD8(base + f + b, kc_case_guard_byte(ar), g)) != CUDA_SUCCESS) return r;
    if (!b) return CUDA_SUCCESS;
    if (ar->role == KC_OUT) return gpu->cu.MemsetD8(base + f, poison, b);
    return gpu->cu.MemcpyDtoD(base + f, k->in[a], b);
}

/* Allocates buffer set `set` with guard bands, poisons its outputs and copies
 * the pristine inputs into it (on the device, at HBM bandwidth); then the
 * tables of its pointer arrays. */
CUresult kc_case_upload(kc_gpu *gpu, kc_case *k, int set, uint8_t poison)
{
    CUresult r = CUDA_SUCCESS;
    for (int a = 0; a < k->nargs && r == CUDA_SUCCESS; a++)
        if (kc_arg_owns_buffer(&k->c->args[a]))
            r = k->exact ? upload_exact(gpu, k, set, a) : upload_guarded(gpu, k, set, a, poison);
    for (int a = 0; a < k->nargs && r == CUDA_SUCCESS; a++)
        if (k->c->args[a].kind == KC_ARG_PTR_ARRAY) r = upload_ptr_array(gpu, k, set, a);
    return r;
}

/* Element i of buffer a of set `set` (0 for the first launch's), or of its
 * pristine input (set -1), as a double for a failure line. */
double kc_case_value_at(kc_gpu *gpu, kc_case *k, int set, int a, size_t i)
{
    double v = 0;
    CUdeviceptr p = set < 0 ? k->in[a] : kc_case_data(k, set, a);
    kc_dev_read_value(gpu, p, k->c->args[a].dtype, i, &v);
    return v;
}

void kc_value_str(kc_dtype t, double v, char *buf, size_t cap)
{
    if (kc_dtype_is_float(t)) snprintf(buf, cap, "%.9g", v);
    else snprintf(buf, cap, "%.0f", v);
}

int kc_dists_of(const kc_contract *c, kc_dist *out)
{
    int n = 0;
    while (n < KC_MAX_DISTS && c->dists[n]) {
        out[n] = c->dists[n];
        n++;
    }
    if (!n) {
        out[0] = KC_UNIFORM;
        out[1] = KC_NORMAL;
        n = 2;
    }
    return n;
}
