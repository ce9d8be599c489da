/* guarded_alloc.c — owns guarded device buffers (guarded_alloc.h): the
 * session's table of their reservations and mappings, under a lock, and
 * their making and freeing through the driver's virtual memory management. */
#include "guarded_alloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progname.h"

/* One guarded buffer: its reservation (gaps included), its mapping and
 * the allocation handle behind it; handle 0: a pool buffer (no gaps). */
typedef struct kc_guarded {
    CUdeviceptr ptr, base;
    size_t mapped, reserved;
    CUmemGenericAllocationHandle handle;
} kc_guarded;

struct kc_guard {
    pthread_mutex_t mu;
    CUmemAllocationProp prop;
    CUmemAccessDesc access;
    size_t gran;                /* the device's minimum allocation granularity */
    kc_guarded *v;              /* the buffers given out */
    int n, cap;
    kc_guarded *kept;           /* freed ones still mapped, for the next (KC_GUARD_KEEP) */
    int nkept, capkept;
    size_t kept_bytes;
    long ungapped;              /* buffers given from the pool: no address space for their gaps */
};

int kc_guard_setup(kc_cuda *cu, CUdevice d)
{
    cu->guard = NULL;
    if (!cu->MemAddressReserve || !cu->MemAddressFree || !cu->MemCreate || !cu->MemRelease || !cu->MemMap ||
        !cu->MemUnmap || !cu->MemSetAccess || !cu->MemGetAllocationGranularity)
        return 0;
    int vmm = 0;
    if (cu->DeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d) != CUDA_SUCCESS || !vmm)
        return 0;
    struct kc_guard *g = calloc(1, sizeof *g);
    if (!g) return -1;
    g->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    g->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    g->prop.location.id = d;
    g->access.location = g->prop.location;
    g->access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (cu->MemGetAllocationGranularity(&g->gran, &g->prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS ||
        !g->gran) {
        free(g);
        return 0;
    }
    pthread_mutex_init(&g->mu, NULL);
    cu->guard = g;
    cu->guard_alloc = kc_guard_alloc;
    cu->guard_free = kc_guard_free;
    cu->guard_gran = g->gran;
    return 1;
}

/* Appends b to v[0..*n) (*cap its room); -1 out of host memory. Called
 * under the lock. */
static int push(kc_guarded **v, int *n, int *cap, const kc_guarded *b)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 64;
        kc_guarded *w = realloc(*v, (size_t)c * sizeof *w);
        if (!w) return -1;
        *v = w;
        *cap = c;
    }
    (*v)[(*n)++] = *b;
    return 0;
}

static int record(struct kc_guard *g, const kc_guarded *b) { return push(&g->v, &g->n, &g->cap, b); }

/* A kept buffer of at least `mapped` bytes and at most twice that, the
 * smallest, taken out of the kept list and recorded as given out into *b:
 * 1, or 0 none (or out of host memory). Called under the lock. */
static int take_kept(struct kc_guard *g, size_t mapped, kc_guarded *b)
{
    int best = -1;
    for (int i = 0; i < g->nkept; i++)
        if (g->kept[i].mapped >= mapped && g->kept[i].mapped / 2 <= mapped &&
            (best < 0 || g->kept[i].mapped < g->kept[best].mapped))
            best = i;
    if (best < 0 || record(g, &g->kept[best])) return 0;
    *b = g->kept[best];
    g->kept_bytes -= b->mapped;
    g->kept[best] = g->kept[--g->nkept];
    return 1;
}

/* Undoes what is made of b (mapping, handle, reservation), in reverse. */
static void unmake(const kc_cuda *cu, const kc_guarded *b, int mapped)
{
    if (!b->handle) {
        cu->MemFreeAsync(b->ptr, CU_STREAM_PER_THREAD);
        return;
    }
    if (mapped) cu->MemUnmap(b->ptr, b->mapped);
    cu->MemRelease(b->handle);
    cu->MemAddressFree(b->base, b->reserved);
}

/* Unmaps and releases every kept buffer (out of device memory: what they
 * hold goes back to the device); 1 when there was any. */
static int drop_kept(const kc_cuda *cu, struct kc_guard *g)
{
    pthread_mutex_lock(&g->mu);
    kc_guarded *kept = g->kept;
    int n = g->nkept;
    g->kept = NULL;
    g->nkept = g->capkept = 0;
    g->kept_bytes = 0;
    pthread_mutex_unlock(&g->mu);
    for (int i = 0; i < n; i++) unmake(cu, &kept[i], 1);
    free(kept);
    return n > 0;
}

/* A new guarded buffer b (b->mapped and b->reserved set): reserved,
 * created, mapped and made accessible; each step undone when a later one
 * fails. Returns the driver's result. */
static CUresult make(const kc_cuda *cu, const struct kc_guard *g, kc_guarded *b)
{
    CUresult r = cu->MemAddressReserve(&b->base, b->reserved, g->gran, 0, 0);
    if (r != CUDA_SUCCESS) return r;
    b->ptr = b->base + KC_GUARD_GAP;
    if ((r = cu->MemCreate(&b->handle, b->mapped, &g->prop, 0)) != CUDA_SUCCESS) {
        cu->MemAddressFree(b->base, b->reserved);
        return r;
    }
    if ((r = cu->MemMap(b->ptr, b->mapped, 0, b->handle, 0)) != CUDA_SUCCESS) {
        unmake(cu, b, 0);
        return r;
    }
    if ((r = cu->MemSetAccess(b->ptr, b->mapped, &g->access, 1)) != CUDA_SUCCESS) unmake(cu, b, 1);
    return r;
}

CUresult kc_guard_alloc(const kc_cuda *cu, CUdeviceptr *p, size_t n)
{
    struct kc_guard *g = cu->guard;
    kc_guarded b = { 0 };
    *p = 0;
    b.mapped = (n + g->gran - 1) / g->gran * g->gran;
    b.reserved = b.mapped + 2 * KC_GUARD_GAP;
    pthread_mutex_lock(&g->mu);
    int reused = take_kept(g, b.mapped, &b);
    pthread_mutex_unlock(&g->mu);
    if (reused) {
        *p = b.ptr;
        return CUDA_SUCCESS;
    }
    CUresult r = make(cu, g, &b);
    if (r == CUDA_ERROR_OUT_OF_MEMORY && drop_kept(cu, g)) {     /* what is kept goes back first, then once more */
        b.base = 0;
        r = make(cu, g, &b);
    }
    if (r == CUDA_ERROR_OUT_OF_MEMORY && !b.base) {
        /* No address space for the gaps (the reservation failed): a pool
         * buffer, said the first time and counted. */
        b = (kc_guarded){ .mapped = n };
        r = cu->MemAllocAsync(&b.ptr, n, CU_STREAM_PER_THREAD);
        if (r == CUDA_ERROR_OUT_OF_MEMORY) {
            cu->MemPoolTrimTo(cu->pool, 0);
            r = cu->MemAllocAsync(&b.ptr, n, CU_STREAM_PER_THREAD);
        }
        if (r != CUDA_SUCCESS) return r;
        pthread_mutex_lock(&g->mu);
        int first = g->ungapped++ == 0;
        int oom = record(g, &b);
        pthread_mutex_unlock(&g->mu);
        if (first)
            kc_say(stderr, "a device buffer of %zu bytes got no unmapped gaps around it (the address space for them "
                   "could not be reserved): a write far past it could land in another buffer; the worker counts "
                   "such buffers at its end\n", n);
        if (oom) {
            unmake(cu, &b, 0);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        *p = b.ptr;
        return CUDA_SUCCESS;
    }
    if (r != CUDA_SUCCESS) return r;
    pthread_mutex_lock(&g->mu);
    int oom = record(g, &b);
    pthread_mutex_unlock(&g->mu);
    if (oom) {
        unmake(cu, &b, 1);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *p = b.ptr;
    return CUDA_SUCCESS;
}

CUresult kc_guard_free(const kc_cuda *cu, CUdeviceptr p)
{
    struct kc_guard *g = cu->guard;
    kc_guarded b;
    int found = 0;
    pthread_mutex_lock(&g->mu);
    for (int i = 0; i < g->n && !found; i++)
        if (g->v[i].ptr == p) {
            b = g->v[i];
            g->v[i] = g->v[--g->n];
            found = 1;
        }
    pthread_mutex_unlock(&g->mu);
    if (!found) return CUDA_ERROR_INVALID_VALUE;
    if (b.handle) kc_cuda_sync(cu, NULL);      /* the stream's work that may use it (a pool buffer waits in order) */
    int keep = 0;
    if (b.handle && b.mapped <= KC_GUARD_KEEP) {
        pthread_mutex_lock(&g->mu);
        keep = g->kept_bytes + b.mapped <= KC_GUARD_KEEP && push(&g->kept, &g->nkept, &g->capkept, &b) == 0;
        if (keep) g->kept_bytes += b.mapped;
        pthread_mutex_unlock(&g->mu);
    }
    if (!keep) unmake(cu, &b, 1);
    return CUDA_SUCCESS;
}

size_t kc_guard_kept_bytes(const kc_cuda *cu)
{
    struct kc_guard *g = cu->guard;
    if (!g) return 0;
    pthread_mutex_lock(&g->mu);
    size_t n = g->kept_bytes;
    pthread_mutex_unlock(&g->mu);
    return n;
}

void kc_guard_close(kc_cuda *cu, int lost)
{
    struct kc_guard *g = cu->guard;
    if (!g) return;
    for (int i = 0; !lost && i < g->n; i++) unmake(cu, &g->v[i], 1);
    for (int i = 0; !lost && i < g->nkept; i++) unmake(cu, &g->kept[i], 1);
    if (g->ungapped)
        kc_say(stderr, "%ld device buffer%s of this worker's lanes had no unmapped gaps around them (the address "
               "space for them could not be reserved): a write far past one could land in another buffer\n",
               g->ungapped, g->ungapped == 1 ? "" : "s");
    cu->guard_gran = 0;
    pthread_mutex_destroy(&g->mu);
    free(g->v);
    free(g->kept);
    free(g);
    cu->guard = NULL;
    cu->guard_alloc = NULL;
    cu->guard_free = NULL;
}
