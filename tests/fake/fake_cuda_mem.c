/* fake_cuda_mem.c — the fake driver's memory (fake_cuda.c says what the
 * library is): device memory as tagged host memory (cuMemAlloc, cuMemFree,
 * cuMemAllocHost, cuMemFreeHost), the default pool's stream-ordered
 * allocations and its attributes, virtual memory management as host address
 * space (reservations, mappings, access), the copies and memsets with their
 * per-thread default stream (_ptds) entry points, cuMemGetInfo, and what the
 * tests read of it (fake_cuda_pool, fake_cuda_vmm, KC_FAKE_POOL_LOG). */
#include <cuda.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_cuda.h"
#include "fake_cuda_state.h"

CUresult cuMemGetInfo(size_t *fr, size_t *total)
{
    CONTEXT_CALL();
    *fr = *total = TOTAL_MEM;
    return CUDA_SUCCESS;
}
/* Device memory: host memory behind a 256-byte header saying how it was
 * allocated (cuMemAlloc, cuMemAllocAsync, or cuMemAllocHost for host
 * memory), so that memory freed the
 * other way than it was allocated (which kcontract never does: cuda_driver.h)
 * is refused with CUDA_ERROR_INVALID_VALUE instead of passing unseen. */
#define MEM_HEADER 256
enum { MEM_PLAIN = 0x4b434d31, MEM_STREAM_ORDERED = 0x4b434d32, MEM_HOST = 0x4b434d33 };
static CUresult mem_alloc(CUdeviceptr *p, size_t bytes, uint32_t kind)
{
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    unsigned char *m = aligned_alloc(256, MEM_HEADER + (bytes + 255) / 256 * 256);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(m, &kind, sizeof kind);
    *p = (CUdeviceptr)(uintptr_t)(m + MEM_HEADER);
    return CUDA_SUCCESS;
}
static CUresult mem_free(CUdeviceptr p, uint32_t kind)
{
    if (!p) return CUDA_SUCCESS;
    unsigned char *m = (unsigned char *)(uintptr_t)p - MEM_HEADER;
    uint32_t k;
    memcpy(&k, m, sizeof k);
    if (k != kind) return CUDA_ERROR_INVALID_VALUE;
    memset(m, 0, sizeof k);
    free(m);
    return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
    CONTEXT_CALL();
    return mem_alloc(p, bytes, MEM_PLAIN);
}
CUresult cuMemFree(CUdeviceptr p) { CONTEXT_CALL(); return mem_free(p, MEM_PLAIN); }

/* Page-locked host memory: the same tagged blocks as device memory, of a
 * kind of its own, so memory cuMemAllocHost did not give is refused as the
 * driver refuses it. Freed even in a lost context (the harness frees it
 * there too). */
CUresult cuMemAllocHost(void **p, size_t bytes)
{
    CONTEXT_CALL();
    CUdeviceptr d;
    CUresult r = mem_alloc(&d, bytes, MEM_HOST);
    if (r == CUDA_SUCCESS) *p = (void *)(uintptr_t)d;
    return r;
}
CUresult cuMemFreeHost(void *p) { return mem_free((CUdeviceptr)(uintptr_t)p, MEM_HOST); }

/* Stream-ordered allocation from the device's one default pool: the fake
 * runs work at once, so memory is allocated and freed when called; the
 * pool's attributes are kept, and fake_cuda_pool says what happened (for
 * tests: allocations live and made, trims, the release threshold and
 * whether internal dependencies are allowed, defaults as the driver's). */
static struct CUmemPoolHandle_st { int unused; } the_pool;
static _Atomic long pool_live, pool_made, pool_trims;
static _Atomic unsigned long long pool_threshold;
static _Atomic int pool_deps = 1;
static CUresult alloc_async(CUdeviceptr *p, size_t bytes, CUstream s)
{
    CONTEXT_CALL();
    if (!special_stream(s) && stream_slot(s) < 0) return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = mem_alloc(p, bytes, MEM_STREAM_ORDERED);
    if (r == CUDA_SUCCESS) {
        pool_live++;
        pool_made++;
    }
    return r;
}
static CUresult free_async(CUdeviceptr p, CUstream s)
{
    CONTEXT_CALL();
    if (!special_stream(s) && stream_slot(s) < 0) return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = mem_free(p, MEM_STREAM_ORDERED);
    if (r == CUDA_SUCCESS && p) pool_live--;
    return r;
}
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t bytes, CUstream s) { return alloc_async(p, bytes, s); }
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t bytes, CUstream s);
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t bytes, CUstream s) { return alloc_async(p, bytes, s); }
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) { return free_async(p, s); }
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) { return free_async(p, s); }
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice d)
{
    CONTEXT_CALL();
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    *pool = &the_pool;
    return CUDA_SUCCESS;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void *v)
{
    CONTEXT_CALL();
    if (pool != &the_pool || !v) return CUDA_ERROR_INVALID_VALUE;
    if (a == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) pool_threshold = *(const cuuint64_t *)v;
    else if (a == CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) pool_deps = *(const int *)v;
    else return CUDA_ERROR_NOT_SUPPORTED;
    return CUDA_SUCCESS;
}
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
    CONTEXT_CALL();
    (void)keep;
    if (pool != &the_pool) return CUDA_ERROR_INVALID_VALUE;
    pool_trims++;
    return CUDA_SUCCESS;
}
/* Virtual memory management, as host address space: a reservation is an
 * inaccessible mapping (PROT_NONE), cuMemMap puts fresh pages in part of
 * it, inaccessible until cuMemSetAccess, cuMemUnmap makes them inaccessible
 * again, so a fake kernel's access outside a mapping faults as the device's
 * does. KC_FAKE_NO_VMM set: the device says it has none; KC_FAKE_RESERVE_FULL
 * set: cuMemAddressReserve finds no address space. fake_cuda_vmm
 * counts reservations and mappings live and made (for tests). */
#define FAKE_GRANULARITY 4096
static _Atomic long vmm_reserved, vmm_mapped, vmm_maps, vmm_handles;
typedef struct fake_mem_handle { size_t bytes; } fake_mem_handle;
CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags o)
{
    CONTEXT_CALL();
    (void)o;
    if (!g || !prop || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop->location.id != 0)
        return CUDA_ERROR_INVALID_VALUE;
    *g = FAKE_GRANULARITY;
    return CUDA_SUCCESS;
}
CUresult cuMemAddressReserve(CUdeviceptr *p, size_t size, size_t align, CUdeviceptr addr, unsigned long long flags)
{
    CONTEXT_CALL();
    if (!p || !size || size % FAKE_GRANULARITY || (align && FAKE_GRANULARITY % align && align % FAKE_GRANULARITY) ||
        addr || flags)
        return CUDA_ERROR_INVALID_VALUE;
    const char *full = getenv("KC_FAKE_RESERVE_FULL");      /* set: no address space left to reserve */
    if (full && *full) return CUDA_ERROR_OUT_OF_MEMORY;
    void *m = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)m;
    vmm_reserved++;
    return CUDA_SUCCESS;
}
CUresult cuMemAddressFree(CUdeviceptr p, size_t size)
{
    CONTEXT_CALL();
    if (!p || munmap((void *)(uintptr_t)p, size)) return CUDA_ERROR_INVALID_VALUE;
    vmm_reserved--;
    return CUDA_SUCCESS;
}
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop, unsigned long long flags)
{
    CONTEXT_CALL();
    if (!h || !size || size % FAKE_GRANULARITY || !prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || flags)
        return CUDA_ERROR_INVALID_VALUE;
    fake_mem_handle *m = malloc(sizeof *m);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    m->bytes = size;
    *h = (CUmemGenericAllocationHandle)(uintptr_t)m;
    vmm_handles++;
    return CUDA_SUCCESS;
}
CUresult cuMemRelease(CUmemGenericAllocationHandle h)
{
    CONTEXT_CALL();
    if (!h) return CUDA_ERROR_INVALID_VALUE;
    free((void *)(uintptr_t)h);
    vmm_handles--;
    return CUDA_SUCCESS;
}
CUresult cuMemMap(CUdeviceptr p, size_t size, size_t offset, CUmemGenericAllocationHandle h, unsigned long long flags)
{
    CONTEXT_CALL();
    const fake_mem_handle *m = (const fake_mem_handle *)(uintptr_t)h;
    if (!p || !m || offset || flags || size != m->bytes) return CUDA_ERROR_INVALID_VALUE;
    if (mmap((void *)(uintptr_t)p, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    vmm_mapped++;
    vmm_maps++;
    return CUDA_SUCCESS;
}
CUresult cuMemSetAccess(CUdeviceptr p, size_t size, const CUmemAccessDesc *d, size_t count)
{
    CONTEXT_CALL();
    if (!p || !d || count != 1 || d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) return CUDA_ERROR_INVALID_VALUE;
    return mprotect((void *)(uintptr_t)p, size, PROT_READ | PROT_WRITE) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
CUresult cuMemUnmap(CUdeviceptr p, size_t size)
{
    CONTEXT_CALL();
    if (!p || mmap((void *)(uintptr_t)p, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
                   0) == MAP_FAILED)
        return CUDA_ERROR_INVALID_VALUE;
    vmm_mapped--;
    return CUDA_SUCCESS;
}
void fake_cuda_vmm(long *reserved, long *mapped, long *maps, long *handles);
void fake_cuda_vmm(long *reserved, long *mapped, long *maps, long *handles)
{
    *reserved = vmm_reserved;
    *mapped = vmm_mapped;
    *maps = vmm_maps;
    *handles = vmm_handles;
}

/* KC_FAKE_POOL_LOG=<file>: at its exit a process that made stream-ordered
 * or guarded allocations appends "pool pid=<pid> made=<n> live=<n>
 * trims=<n> maps=<n> mapped=<n> reserved=<n> handles=<n>" to it
 * (tests/test_inflight_run.c: a worker's lanes give each item's memory back). */
__attribute__((destructor)) static void pool_log(void)
{
    const char *path = getenv("KC_FAKE_POOL_LOG");
    if (!path || !*path || (!pool_made && !vmm_maps)) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "pool pid=%ld made=%ld live=%ld trims=%ld maps=%ld mapped=%ld reserved=%ld handles=%ld\n",
            (long)getpid(), (long)pool_made, (long)pool_live, (long)pool_trims, (long)vmm_maps, (long)vmm_mapped,
            (long)vmm_reserved, (long)vmm_handles);
    fclose(f);
}
void fake_cuda_pool(long *live, long *made, long *trims, unsigned long long *threshold, int *deps);
void fake_cuda_pool(long *live, long *made, long *trims, unsigned long long *threshold, int *deps)
{
    *live = pool_live;
    *made = pool_made;
    *trims = pool_trims;
    *threshold = pool_threshold;
    *deps = pool_deps;
}
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) { CONTEXT_CALL(); memcpy((void *)(uintptr_t)dst, src, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) { CONTEXT_CALL(); memcpy(dst, (const void *)(uintptr_t)src, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) { CONTEXT_CALL(); memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n); return CUDA_SUCCESS; }
CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) { CONTEXT_CALL(); memset((void *)(uintptr_t)dst, v, n); return CUDA_SUCCESS; }
CUresult cuMemsetD32(CUdeviceptr dst, unsigned v, size_t n)
{
    CONTEXT_CALL();
    unsigned *p = (unsigned *)(uintptr_t)dst;
    for (size_t i = 0; i < n; i++) p[i] = v;
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t n) { return cuMemcpyHtoD(dst, src, n); }
CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoH(dst, src, n); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoD(dst, src, n); }
CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char v, size_t n);
CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char v, size_t n) { return cuMemsetD8(dst, v, n); }
CUresult cuMemsetD32_v2_ptds(CUdeviceptr dst, unsigned v, size_t n);
CUresult cuMemsetD32_v2_ptds(CUdeviceptr dst, unsigned v, size_t n) { return cuMemsetD32(dst, v, n); }
