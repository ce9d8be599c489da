/* harness.c — owns the host end of the harness module (harness.h): loading
 * kernels/harness/harness.cu's fatbin, choosing each check's grid, launching,
 * reading back the per-block partial results and folding them in order. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_rules.h"
#include "dtype.h"
#include "fatbin.h"
#include "gpu.h"

/* The partial results are read into a buffer sized for the larger kind. */
#define PART_BYTES (sizeof(kc_cmp_part) > sizeof(kc_count_part) ? sizeof(kc_cmp_part) : sizeof(kc_count_part))

/* Defined by the object that embeds the harness's image (the build gives it
 * KC_EMBED_ANCHOR): referring to it links that object in from libkcontract.a,
 * where nothing else would pull a self-registering object out. */
extern const int kc_embedded_harness;

const char *const kc_harness_kernel_names[KC_HARNESS_KERNELS] = {
    "kc_smem_poison", "kc_gen_fill", "kc_check_bytes", "kc_check_unwritten", "kc_check_differs", "kc_check_close",
};

int kc_harness_open(kc_cuda *cu, const kc_device *dev, kc_harness *h, char *why, size_t cap)
{
    (void)*(const volatile int *)&kc_embedded_harness;
    memset(h, 0, sizeof *h);
    h->sm_count = dev->sm_count > 0 ? dev->sm_count : 1;
    h->smem_optin = dev->smem_per_block_optin;
    h->smem_default = dev->smem_per_block;
    const kc_fatbin *fb = kc_fatbin_find("harness", NULL);
    if (!fb) {
        snprintf(why, cap, "the harness module (kernels/harness/harness.cu) is not embedded in this binary");
        return 1;
    }
    CUresult r = cu->ModuleLoadData(&h->mod, fb->start);
    if (r != CUDA_SUCCESS) {
        snprintf(why, cap, "the harness module (sm_90 + compute_90 PTX) does not load on device %d (%s, cc %d.%d): %s",
                 dev->ordinal, dev->name, dev->cc_major, dev->cc_minor, kc_cuda_error_name(cu, r));
        h->mod = NULL;
        return 1;
    }
    CUfunction *fns[KC_HARNESS_KERNELS] = { &h->poison, &h->gen, &h->bytes, &h->unwritten, &h->differs, &h->close };
    for (int i = 0; i < KC_HARNESS_KERNELS; i++)
        if ((r = cu->ModuleGetFunction(fns[i], h->mod, kc_harness_kernel_names[i])) != CUDA_SUCCESS) {
            snprintf(why, cap, "the harness module lacks %s: %s", kc_harness_kernel_names[i], kc_cuda_error_name(cu, r));
            goto fail;
        }
    if ((r = cu->MemAlloc(&h->parts, KC_HARNESS_MAX_BLOCKS * PART_BYTES)) != CUDA_SUCCESS) {
        snprintf(why, cap, "cannot allocate the harness's result buffer: %s", kc_cuda_error_name(cu, r));
        h->parts = 0;
        goto fail;
    }
    if ((r = cu->MemAlloc(&h->batch_parts, KC_BATCH_PARTS * sizeof(kc_count_part))) != CUDA_SUCCESS) {
        snprintf(why, cap, "cannot allocate the harness's batch result buffer: %s", kc_cuda_error_name(cu, r));
        h->batch_parts = 0;
        goto fail;
    }
    h->poison_smem = (int)h->smem_optin;
    if (cu->FuncSetAttribute(h->poison, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, h->poison_smem) != CUDA_SUCCESS)
        h->poison_smem = (int)h->smem_default;
    h->host_pinned = cu->MemAllocHost && cu->MemFreeHost &&
                     cu->MemAllocHost(&h->host_parts, KC_HARNESS_MAX_BLOCKS * PART_BYTES) == CUDA_SUCCESS;
    if (h->host_pinned && cu->MemAllocHost(&h->host_batch_parts, KC_BATCH_PARTS * sizeof(kc_count_part)) != CUDA_SUCCESS) {
        cu->MemFreeHost(h->host_parts);
        h->host_parts = NULL;
        h->host_pinned = 0;
    }
    if (!h->host_pinned && (!(h->host_parts = malloc(KC_HARNESS_MAX_BLOCKS * PART_BYTES)) ||
                            !(h->host_batch_parts = malloc(KC_BATCH_PARTS * sizeof(kc_count_part))))) {
        snprintf(why, cap, "out of host memory for the harness's results");
        goto fail;
    }
    return 0;
fail:
    kc_harness_close(cu, h, 0);
    return 1;
}

void kc_harness_close(kc_cuda *cu, kc_harness *h, int lost)
{
    if (!lost) {
        if (h->parts) cu->MemFree(h->parts);
        if (h->batch_parts) cu->MemFree(h->batch_parts);
        if (h->mod) cu->ModuleUnload(h->mod);
    }
    if (h->host_pinned) {     /* host memory: freed even in a lost context (the driver may refuse: then it stays) */
        cu->MemFreeHost(h->host_parts);
        cu->MemFreeHost(h->host_batch_parts);
    } else {
        free(h->host_parts);
        free(h->host_batch_parts);
    }
    memset(h, 0, sizeof *h);
}

/* Blocks for a check over n items: about 8 items a thread, at most
 * KC_HARNESS_MAX_BLOCKS, at least one. */
static unsigned check_blocks(size_t n)
{
    size_t per = (size_t)KC_HARNESS_THREADS * 8, b = (n + per - 1) / per;
    return b < 1 ? 1 : b > KC_HARNESS_MAX_BLOCKS ? KC_HARNESS_MAX_BLOCKS : (unsigned)b;
}

static CUresult launch(kc_gpu *gpu, CUfunction f, unsigned blocks, unsigned smem, void **params)
{
    return gpu->cu.LaunchKernel(f, blocks, 1, 1, KC_HARNESS_THREADS, 1, 1, smem, NULL, params, NULL);
}

CUresult kc_dev_poison_smem(kc_gpu *gpu, unsigned pattern)
{
    kc_harness *h = gpu->h;
    if (gpu->smem_poison_off) return CUDA_SUCCESS;
    int bytes = h->poison_smem;     /* set on the function once, at kc_harness_open */
    unsigned words = (unsigned)bytes / 4;
    void *params[] = { &words, &pattern };
    return gpu->cu.LaunchKernel(h->poison, (unsigned)h->sm_count * 2, 1, 1, 1024, 1, 1, (unsigned)bytes, NULL, params,
                                NULL);
}

CUresult kc_dev_fill_stream(kc_gpu *gpu, CUdeviceptr dst, kc_dtype t, kc_dist d, uint64_t key, size_t count,
                            const kc_stream_range *range)
{
    if (!count) return CUDA_SUCCESS;
    int dtype = (int)t, dist = (int)d, ranged = range && range->on;
    double lo = ranged ? range->lo : 0, hi = ranged ? range->hi : 0;
    unsigned long long k = key, n = count;
    size_t want = (count + KC_HARNESS_THREADS - 1) / KC_HARNESS_THREADS, cap = (size_t)gpu->h->sm_count * 16;
    void *params[] = { &dst, &dtype, &dist, &k, &n, &ranged, &lo, &hi };
    return gpu->cu.LaunchKernel(gpu->h->gen, (unsigned)(want < cap ? want : cap), 1, 1, KC_HARNESS_THREADS, 1, 1, 0, NULL,
                                params, NULL);
}

/* Takes a slot of `blocks` partials in b; -1 when the batch is full. */
static int batch_slot(kc_check_batch *b, unsigned blocks, size_t none_as)
{
    if (b->r != CUDA_SUCCESS) return -1;
    if (b->n == KC_BATCH_MAX_CHECKS || b->used + blocks > KC_BATCH_PARTS) {
        b->r = CUDA_ERROR_INVALID_VALUE;    /* the caller queued more than KC_BATCH_MAX_CHECKS */
        return -1;
    }
    int s = b->n++;
    b->off[s] = b->used;
    b->blocks[s] = blocks;
    b->none_as[s] = none_as;
    b->used += blocks;
    return s;
}

/* Launches f over `blocks` with params whose last entry is the partials'
 * pointer, set here to slot s's; records a failure in b. */
static int batch_launch(kc_gpu *gpu, kc_check_batch *b, int s, CUfunction f, void **params, CUdeviceptr *parts)
{
    if (s < 0) return -1;
    *parts = gpu->h->batch_parts + (CUdeviceptr)b->off[s] * sizeof(kc_count_part);
    CUresult r = launch(gpu, f, b->blocks[s], 0, params);
    if (r != CUDA_SUCCESS) {
        b->r = r;
        return -1;
    }
    return s;
}

void kc_batch_begin(kc_check_batch *b)
{
    b->n = 0;
    b->used = 0;
    b->r = CUDA_SUCCESS;
}

int kc_batch_count_not(kc_gpu *gpu, kc_check_batch *b, CUdeviceptr p, size_t n, uint8_t expect)
{
    unsigned blocks = check_blocks(n), e = expect;
    unsigned long long nn = n;
    CUdeviceptr parts = 0;
    void *params[] = { &p, &nn, &e, &parts };
    return batch_launch(gpu, b, batch_slot(b, blocks, n), gpu->h->bytes, params, &parts);
}

int kc_batch_count_unwritten(kc_gpu *gpu, kc_check_batch *b, CUdeviceptr a, CUdeviceptr pb_buf, size_t count,
                             size_t esize, uint8_t pa, uint8_t pb)
{
    unsigned blocks = check_blocks(count), es = (unsigned)esize, ua = pa, ub = pb;
    unsigned long long nn = count;
    CUdeviceptr parts = 0;
    void *params[] = { &a, &pb_buf, &nn, &es, &ua, &ub, &parts };
    return batch_launch(gpu, b, batch_slot(b, blocks, count), gpu->h->unwritten, params, &parts);
}

int kc_batch_count_differs(kc_gpu *gpu, kc_check_batch *b, CUdeviceptr a, CUdeviceptr bb, size_t count, size_t esize)
{
    unsigned blocks = check_blocks(count), es = (unsigned)esize;
    unsigned long long nn = count;
    CUdeviceptr parts = 0;
    void *params[] = { &a, &bb, &nn, &es, &parts };
    return batch_launch(gpu, b, batch_slot(b, blocks, count), gpu->h->differs, params, &parts);
}

CUresult kc_batch_finish(kc_gpu *gpu, kc_check_batch *b)
{
    if (b->r != CUDA_SUCCESS) return b->r;
    if (!b->used) return CUDA_SUCCESS;
    CUresult r = gpu->cu.MemcpyDtoH(gpu->h->host_batch_parts, gpu->h->batch_parts, b->used * sizeof(kc_count_part));
    if (r != CUDA_SUCCESS) return b->r = r;
    const kc_count_part *p = gpu->h->host_batch_parts;
    for (int s = 0; s < b->n; s++) {
        kc_count_part all = { 0, KC_NO_INDEX };
        for (unsigned i = 0; i < b->blocks[s]; i++) kc_count_fold(&all, &p[b->off[s] + i]);
        b->count[s] = (size_t)all.n;
        b->first[s] = all.first == KC_NO_INDEX ? b->none_as[s] : (size_t)all.first;
    }
    return CUDA_SUCCESS;
}

/* One check as a batch of one. */
static CUresult single(kc_gpu *gpu, kc_check_batch *b, int s, size_t *n, size_t *first)
{
    CUresult r = kc_batch_finish(gpu, b);
    if (r != CUDA_SUCCESS) return r;
    *n = b->count[s];
    *first = b->first[s];
    return CUDA_SUCCESS;
}

CUresult kc_dev_count_not(kc_gpu *gpu, CUdeviceptr p, size_t n, uint8_t expect, size_t *count, size_t *first)
{
    kc_check_batch b;
    kc_batch_begin(&b);
    return single(gpu, &b, kc_batch_count_not(gpu, &b, p, n, expect), count, first);
}

CUresult kc_dev_count_unwritten(kc_gpu *gpu, CUdeviceptr a, CUdeviceptr b, size_t count, size_t esize, uint8_t pa,
                                uint8_t pb, size_t *n, size_t *first)
{
    kc_check_batch bt;
    kc_batch_begin(&bt);
    return single(gpu, &bt, kc_batch_count_unwritten(gpu, &bt, a, b, count, esize, pa, pb), n, first);
}

CUresult kc_dev_count_differs(kc_gpu *gpu, CUdeviceptr a, CUdeviceptr b, size_t count, size_t esize, size_t *n,
                              size_t *first)
{
    kc_check_batch bt;
    kc_batch_begin(&bt);
    return single(gpu, &bt, kc_batch_count_differs(gpu, &bt, a, b, count, esize), n, first);
}

CUresult kc_dev_compare(kc_gpu *gpu, CUdeviceptr out, kc_dtype t, CUdeviceptr ref, size_t n, kc_tol tol,
                        kc_compare *res)
{
    return kc_dev_compare_mag(gpu, out, t, ref, 0, n, tol, 0.0, res);
}

CUresult kc_dev_compare_mag(kc_gpu *gpu, CUdeviceptr out, kc_dtype t, CUdeviceptr ref, CUdeviceptr mag, size_t n,
                            kc_tol tol, double mtol, kc_compare *res)
{
    if (!kc_dtype_is_float(t)) {
        tol.atol = tol.rtol = mtol = 0.0;
        mag = 0;
    }
    unsigned blocks = check_blocks(n);
    int dtype = (int)t;
    unsigned long long nn = n;
    void *params[] = { &out, &dtype, &ref, &nn, &tol.rtol, &tol.atol, &mag, &mtol, &gpu->h->parts };
    CUresult r = launch(gpu, gpu->h->close, blocks, 0, params);
    if (r == CUDA_SUCCESS) r = gpu->cu.MemcpyDtoH(gpu->h->host_parts, gpu->h->parts, blocks * sizeof(kc_cmp_part));
    if (r != CUDA_SUCCESS) return r;
    const kc_cmp_part *p = gpu->h->host_parts;
    kc_cmp_part all = kc_cmp_empty();
    for (unsigned b = 0; b < blocks; b++) kc_cmp_fold(&all, &p[b]);
    kc_compare_from_part(&all, n, tol, res);
    return CUDA_SUCCESS;
}

CUresult kc_dev_read_value(kc_gpu *gpu, CUdeviceptr p, kc_dtype t, size_t i, double *v)
{
    unsigned char e[8] = { 0 };
    size_t es = kc_dtype_size(t);
    CUresult r = gpu->cu.MemcpyDtoH(e, p + i * es, es);
    *v = r == CUDA_SUCCESS ? kc_load(t, e, 0) : 0.0;
    return r;
}
