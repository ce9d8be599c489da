/* inputs.c — owns the per-process cache of pristine device inputs
 * (inputs.h): making an input (the GPU's built-in stream, or a contract's
 * generator on the host with the GPU's stream behind kc_gen_default),
 * finding it again, pinning it for a case, and evicting the least recently
 * used entries over the budget. */
#include "inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "fill.h"
#include "gpu.h"
#include "harness.h"
#include "hostmem.h"
#include "seed.h"

typedef struct entry {
    uint64_t seed;             /* the case seed; 0 for a table (the same for every case of a shape) */
    uint64_t dims;             /* hash of the shape's dims (a generator may read any of them) */
    int arg;
    kc_dtype dtype;
    size_t count, bytes;
    size_t charge;             /* the device memory it holds (kc_cuda_alloc_bytes): what the budget counts */
    void (*gen)(kc_gen *);
    CUdeviceptr ptr;
    uint64_t used;             /* tick of the last use */
    int pinned;
} entry;

struct kc_inputs {
    entry *v;
    int n, cap;
    size_t budget, held;
    uint64_t tick;
};

kc_inputs *kc_inputs_new(size_t budget)
{
    kc_inputs *in = calloc(1, sizeof *in);
    if (in) in->budget = budget;
    return in;
}

static void drop(kc_gpu *gpu, kc_inputs *in, int i)
{
    if (in->v[i].ptr && !gpu->lost) kc_cuda_free(&gpu->cu, in->v[i].ptr);
    in->held -= in->v[i].charge;
    in->v[i] = in->v[--in->n];
}

void kc_inputs_free(kc_gpu *gpu, kc_inputs *in)
{
    if (!in) return;
    while (in->n) drop(gpu, in, in->n - 1);
    free(in->v);
    free(in);
}

size_t kc_inputs_held(const kc_inputs *in) { return in ? in->held : 0; }

void kc_inputs_unpin(kc_gpu *gpu, kc_inputs *in)
{
    for (int i = 0; i < in->n; i++) in->v[i].pinned = 0;
    while (in->held > in->budget && in->n) {
        int lru = 0;
        for (int i = 1; i < in->n; i++)
            if (in->v[i].used < in->v[lru].used) lru = i;
        drop(gpu, in, lru);
    }
}

/* kc_gen_default's source for the buffer a custom generator was handed: the
 * GPU writes the stream into the pristine device buffer, which is then
 * downloaded (the generator may change it; the upload afterwards replaces
 * the device copy). */
typedef struct stream_ctx {
    kc_gpu *gpu;
    CUdeviceptr dst;
    size_t bytes;
} stream_ctx;

static int fill_from_gpu(kc_gen_source *src)
{
    stream_ctx *x = src->ctx;
    if (kc_dev_fill_stream(x->gpu, x->dst, src->dtype, src->dist, src->key, src->count, NULL) != CUDA_SUCCESS) return -1;
    return x->gpu->cu.MemcpyDtoH(src->data, x->dst, x->bytes) == CUDA_SUCCESS ? 0 : -1;
}

/* Makes entry e's contents for argument ar: the built-in or ranged stream
 * on the GPU, or the contract's generator on the host, uploaded. */
static CUresult make(kc_gpu *gpu, const kc_contract *c, const kc_shape *s, kc_dist dist, const kc_arg *ar, entry *e,
                     kc_time_split *stats, char *why, size_t cap)
{
    uint64_t key = kc_buffer_key(e->seed, e->arg);
    if (!e->gen) {
        kc_stream_range range = { 0, 0, 0 };
        if (ar->range) {
            range.on = 1;
            ar->range(s, &range.lo, &range.hi);
        }
        stats->inputs_made_gpu++;
        return kc_dev_fill_stream(gpu, e->ptr, e->dtype, dist, key, e->count, &range);
    }
    void *host = kc_hostmem_alloc(e->bytes, 1);      /* a generator starts from zeroed memory */
    if (!host) {
        snprintf(why, cap, "out of host memory for the generated input (%zu bytes)", e->bytes);
        return CUDA_ERROR_UNKNOWN;
    }
    stream_ctx x = { gpu, e->ptr, e->bytes };
    kc_gen_source src = { host, e->count, e->dtype, dist, key, fill_from_gpu, &x };
    kc_gen g = { .shape = s, .dist = dist, .dtype = e->dtype, .data = host, .count = e->count, .harness = &src,
                .user = c->user };
    kc_fill(&g, key, e->gen);
    stats->inputs_made_host++;
    if (ar->table && !kc_gen_drew_nothing(&g, key)) {
        kc_hostmem_free(host);
        snprintf(why, cap, "the contract's table generator (KC_BUFFER_TABLE) drew from kc_rand_*: a table depends on the "
                 "shape alone (a generator that draws is KC_BUFFER_GEN, or KC_BUFFER_GEN_ON for some distributions)");
        return CUDA_ERROR_UNKNOWN;
    }
    CUresult r = gpu->cu.MemcpyHtoD(e->ptr, host, e->bytes);
    kc_hostmem_free(host);
    return r;
}

CUresult kc_inputs_get(kc_gpu *gpu, const kc_contract *c, const kc_shape *s, kc_dist dist, uint64_t case_seed, int a,
                       size_t count, CUdeviceptr *out, kc_time_split *stats, char *why, size_t cap)
{
    kc_inputs *in = gpu->inputs;
    const kc_arg *ar = &c->args[a];
    void (*gen)(kc_gen *) = kc_arg_gen_for(ar, dist);    /* NULL: the built-in stream, on the GPU */
    uint64_t dims = kc_fnv1a64(s->d, sizeof s->d, KC_FNV_OFFSET);
    if (ar->table) case_seed = 0;           /* one table per shape, whatever the case */
    in->tick++;
    for (int i = 0; i < in->n; i++) {
        entry *e = &in->v[i];
        if (e->seed == case_seed && e->dims == dims && e->arg == a && e->dtype == ar->dtype && e->count == count && e->gen == gen) {
            e->used = in->tick;
            e->pinned = 1;
            stats->inputs_reused++;
            *out = e->ptr;
            return CUDA_SUCCESS;
        }
    }
    if (in->n == in->cap) {
        int cap2 = in->cap ? 2 * in->cap : 64;
        entry *v = realloc(in->v, (size_t)cap2 * sizeof *v);
        if (!v) {
            snprintf(why, cap, "out of host memory for the input cache");
            return CUDA_ERROR_UNKNOWN;
        }
        in->v = v;
        in->cap = cap2;
    }
    entry e = { .seed = case_seed, .dims = dims, .arg = a, .dtype = ar->dtype, .count = count, .gen = gen,
                .bytes = count * kc_dtype_size(ar->dtype), .used = in->tick, .pinned = 1 };
    e.charge = kc_cuda_alloc_bytes(&gpu->cu, e.bytes ? e.bytes : 1);
    /* Room first: evict unpinned entries while the new one would overflow. */
    while (in->held + e.charge > in->budget) {
        int lru = -1;
        for (int i = 0; i < in->n; i++)
            if (!in->v[i].pinned && (lru < 0 || in->v[i].used < in->v[lru].used)) lru = i;
        if (lru < 0) break;
        drop(gpu, in, lru);
    }
    CUresult r = kc_cuda_alloc(&gpu->cu, &e.ptr, e.bytes ? e.bytes : 1);   /* stream-ordered in a lane */
    if (r != CUDA_SUCCESS) return r;
    in->v[in->n++] = e;
    in->held += e.charge;
    entry *ne = &in->v[in->n - 1];
    if ((r = make(gpu, c, s, dist, ar, ne, stats, why, cap)) != CUDA_SUCCESS) {
        kc_gpu_lost_if_sticky(gpu, r);
        drop(gpu, in, in->n - 1);            /* half-made: never found again */
        return r;
    }
    *out = ne->ptr;
    return CUDA_SUCCESS;
}
