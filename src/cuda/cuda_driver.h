/* cuda_driver.h — the CUDA driver API, loaded at run time from libcuda.so.1
 * (dlopen + cuGetProcAddress), so kcontract builds and starts on a machine
 * with no GPU and no driver. Types come from the toolkit's cuda.h; no symbol
 * of libcuda is linked. */
#ifndef KC_CUDA_DRIVER_H
#define KC_CUDA_DRIVER_H
#include <stddef.h>
#include <cuda.h>

typedef struct kc_cuda {
    void *lib;                    /* dlopen handle */
    int driver_version;           /* e.g. 13000 */
    /* 1: the entry points that take a stream were resolved with the
     * per-thread default stream (kc_cuda_load_streams): stream 0 in a launch
     * or a copy is the calling thread's own stream, which synchronizes with
     * no other thread's; 0: the legacy default stream, one for the context. */
    int per_thread;
    /* 1: kc_cuda_alloc/kc_cuda_free allocate stream-ordered on the calling
     * thread's per-thread stream from the device's default memory pool
     * (kc_cuda_stream_alloc_setup: a per-thread table whose driver and
     * device have memory pools); 0: cuMemAlloc/cuMemFree, as always. Set
     * once, before any allocation: memory of one kind is never freed as the
     * other. */
    int stream_alloc;
    CUmemoryPool pool;            /* the default pool, with stream_alloc */
    /* Non-NULL: kc_cuda_alloc/kc_cuda_free give guarded buffers (unmapped
     * address space around each), on top of stream_alloc, through the two
     * functions below; all three set by kc_guard_setup (guarded_alloc.h).
     * The session's, shared by its lanes' copies of the table. */
    struct kc_guard *guard;
    CUresult (*guard_alloc)(const struct kc_cuda *, CUdeviceptr *, size_t);
    CUresult (*guard_free)(const struct kc_cuda *, CUdeviceptr);
    size_t guard_gran;            /* a guarded buffer's mapping is a multiple of this (kc_cuda_alloc_bytes) */
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*DeviceTotalMem)(size_t *, CUdevice);
    CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);   /* "0000:3B:00.0", for NVML (nvml.h) */
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*DevicePrimaryCtxSetFlags)(CUdevice, unsigned);   /* CU_CTX_SCHED_*: how a synchronizing host thread waits */
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemGetInfo)(size_t *, size_t *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*MemsetD32)(CUdeviceptr, unsigned, size_t);    /* count of 32-bit words */
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);   /* a module variable (launch.h) */
    CUresult (*FuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
    CUresult (*FuncSetAttribute)(CUfunction, CUfunction_attribute, int);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
    /* A launch with attributes (cluster dims, cooperative, programmatic
     * stream serialization): the launch path's (gates/launch.h). */
    CUresult (*LaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
    /* How many clusters of a launch's config can be active at once on the
     * device (0: one cluster does not fit). */
    CUresult (*OccupancyMaxActiveClusters)(int *, CUfunction, const CUlaunchConfig *);
    CUresult (*StreamCreate)(CUstream *, unsigned);     /* CU_STREAM_NON_BLOCKING: the sanitizer's target (sanitize_target.h) */
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*StreamSynchronize)(CUstream);    /* kc_cuda_sync's, per-thread table */
    CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*GetErrorString)(CUresult, const char **);
    /* Optional, NULL where the driver lacks them (before CUDA 11.2):
     * stream-ordered allocation (kc_cuda_alloc). cuMemFree waits for the
     * whole device, so threads of one context freeing per item waited on
     * each other's kernels (docs/receipts/2026-12-02-h200-inflight-lanes);
     * cuMemFreeAsync returns the memory in the stream's order and waits
     * for nothing. The two that take a stream are their per-thread
     * variants (_ptsz) in a per-thread table. */
    CUresult (*MemAllocAsync)(CUdeviceptr *, size_t, CUstream);
    CUresult (*MemFreeAsync)(CUdeviceptr, CUstream);
    CUresult (*DeviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
    CUresult (*MemPoolSetAttribute)(CUmemoryPool, CUmemPool_attribute, void *);
    CUresult (*MemPoolTrimTo)(CUmemoryPool, size_t);
    /* Optional, NULL where the driver lacks them (before CUDA 10.2): virtual
     * memory management, for guarded buffers (guarded_alloc.h). */
    CUresult (*MemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*MemAddressFree)(CUdeviceptr, size_t);
    CUresult (*MemCreate)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
    CUresult (*MemRelease)(CUmemGenericAllocationHandle);
    CUresult (*MemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*MemUnmap)(CUdeviceptr, size_t);
    CUresult (*MemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*MemGetAllocationGranularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
    /* Optional, NULL where the library lacks them: page-locked host memory,
     * which cuMemcpyDtoH fills without the driver's staging copy (the
     * harness's check results: harness.c). */
    CUresult (*MemAllocHost)(void **, size_t);
    CUresult (*MemFreeHost)(void *);
    /* Optional, NULL where the driver lacks it (before CUDA 12.4): the
     * offset and size of a kernel's parameter i (CUDA_ERROR_INVALID_VALUE
     * past its last). */
    CUresult (*FuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
    /* Optional, NULL where the library lacks them: the context's limits
     * (malloc heap, printf FIFO, ...), which an item may change for every
     * later item in the context (gpu_state.h). */
    CUresult (*CtxGetLimit)(size_t *, CUlimit);
    CUresult (*CtxSetLimit)(CUlimit, size_t);
    /* Optional, NULL where the driver lacks it (before CUDA 12.0): a tensor
     * map argument's encoder (gates/params.c). */
    CUresult (*TensorMapEncodeTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
} kc_cuda;

/* Why dlopen(lib) failed, dlerr its dlerror(), into buf: "LIB not found
 * (dlopen: ...)" when there is no such file (a path that does not exist; a
 * bare name the loader's search did not find), else "LIB cannot be loaded as
 * WHAT (dlopen: ...)" (a file that exists but is no loadable library of this
 * machine: KC_LIBCUDA=/etc/passwd). what: "the CUDA driver library", ... */
void kc_dlopen_why(const char *lib, const char *what, const char *dlerr, char *buf, size_t cap);

/* Holds the library that environment variable `var` (KC_LIBCUDA, KC_LIBNVML)
 * names to what it takes, before anything runs: unset, empty, "none" (no
 * library: a machine without a driver, asked for) or a bare name the loader
 * searches for (ld.so(8); kc_cuda_load refuses it when not found) pass; a
 * path must be a regular file that starts as an ELF object does. A path that
 * is not there is a broken setup, not a machine without a GPU: a CI that
 * takes exit 3 for "no GPU" must not read it as one. what: "the CUDA driver
 * library". 0; or -1 with "VAR=VALUE: REASON (expected ...)" in why. */
int kc_lib_setting_check(const char *var, const char *what, char *why, size_t cap);

/* kc_cuda_load's failures: a machine without a GPU (libcuda.so.1 not found,
 * KC_LIBCUDA=none, cuInit's CUDA_ERROR_NO_DEVICE or the toolkit's stub
 * library's CUDA_ERROR_STUB_LIBRARY): its GPU items SKIP, exit 3; or a driver
 * that is there and does not work, or one named (KC_LIBCUDA) that is not
 * found (a library that does not load or lacks an entry point, any other
 * cuInit error): the run is refused, exit 2 (jobs.c),
 * so a CI that accepts 3 for "no GPU" does not take a broken GPU machine
 * for one. */
#define KC_CUDA_ABSENT (-1)
#define KC_CUDA_BROKEN (-2)

/* Loads the driver (lib: NULL for "libcuda.so.1", or the KC_LIBCUDA environment
 * variable when set; "none" loads nothing and fails, as with no driver) and
 * calls cuInit(0). Returns 0, or -1 with the reason in
 * err ("libcuda.so.1 not found (dlopen: ...)", "/etc/passwd cannot be loaded
 * as the CUDA driver library (dlopen: ...)", "cuInit failed:
 * CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)", ...):
 * KC_CUDA_ABSENT or KC_CUDA_BROKEN, above. */
int kc_cuda_load(kc_cuda *cu, const char *lib, char *err, size_t errcap);
/* kc_cuda_load, with the per-thread default stream when per_thread: each
 * entry point that takes a stream is resolved through cuGetProcAddress with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (the _ptsz/_ptds variants:
 * cuLaunchKernel, cuLaunchKernelEx, cuMemcpyHtoD/DtoH/DtoD, cuMemsetD8,
 * cuStreamSynchronize), or, where the library has no cuGetProcAddress (the
 * fake driver), by those variants' exported names: a library lacking one
 * is an error naming it, never the legacy entry in its place. For host
 * threads that share one context and must not wait on each other's work
 * (issue 23, part 1: docs/receipts/2026-12-02-h200-inflight). Returns as
 * kc_cuda_load. */
int kc_cuda_load_streams(kc_cuda *cu, const char *lib, int per_thread, char *err, size_t errcap);
/* Waits for the calling thread's work on the GPU, launched on `stream`
 * (NULL: the default stream): with the legacy table cuCtxSynchronize,
 * whatever the stream (every stream of the context: today's behaviour);
 * with a per-thread table cuStreamSynchronize of that stream, or of
 * CU_STREAM_PER_THREAD for NULL (this thread's work only: no wait on
 * another thread's items; a sticky error is still seen, being the
 * context's). Returns the driver's result. */
CUresult kc_cuda_sync(const kc_cuda *cu, CUstream stream);
/* Function f's attribute a set to v, calling cuFuncSetAttribute only when
 * cuFuncGetAttribute reads another value: the set waits for work on the
 * context (on the H200, 6 ms a call on average beside 16 lanes' streams,
 * 60% of their item time: docs/receipts/2026-12-03-h200-lanes). Returns the
 * driver's result (the set's, or a failing get's set). */
CUresult kc_cuda_func_set(const kc_cuda *cu, CUfunction f, CUfunction_attribute a, int v);
/* Turns stream-ordered allocation on (cu->stream_alloc) for the context
 * current on the calling thread, on device d, when cu is a per-thread table
 * and the driver has the entry points above and d supports memory pools
 * (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED): the default pool keeps what
 * is freed (release threshold UINT64_MAX: handing it back to the device at
 * every synchronization costs what cuMemFree did) and never makes one
 * thread's stream wait on another's to reuse a block
 * (REUSE_ALLOW_INTERNAL_DEPENDENCIES 0: threads' items stay independent).
 * Returns 1 when on, 0 when left off (a legacy table, an older driver, a
 * device without pools, a pool attribute refused: cuMemAlloc then, as
 * always). Call before the first allocation. */
int kc_cuda_stream_alloc_setup(kc_cuda *cu, CUdevice d);
/* n bytes of device memory for the calling thread's work into *p:
 * cuMemAllocAsync on its per-thread stream with cu->stream_alloc (on
 * CUDA_ERROR_OUT_OF_MEMORY the pool's unused memory is given back to the
 * device, cuMemPoolTrimTo, and the allocation tried once more), else
 * cuMemAlloc. Returns the driver's result (*p 0 on failure). */
CUresult kc_cuda_alloc(const kc_cuda *cu, CUdeviceptr *p, size_t n);
/* The device memory a buffer of n bytes from kc_cuda_alloc holds: n rounded
 * up to the allocation granularity for a guarded buffer (2 MiB on the
 * H200), else n. What a cache of buffers charges against its budget. */
size_t kc_cuda_alloc_bytes(const kc_cuda *cu, size_t n);
/* Frees p from kc_cuda_alloc on the same table (0 is ignored): in the
 * calling thread's stream order with cu->stream_alloc, else cuMemFree. */
CUresult kc_cuda_free(const kc_cuda *cu, CUdeviceptr p);
/* Gives the pool's memory that no allocation holds back to the device
 * (cuMemPoolTrimTo 0), with cu->stream_alloc; nothing otherwise. Before a
 * look at the device's free memory (cuMemGetInfo counts the pool's kept
 * memory as used) and at a session's end. */
void kc_cuda_trim(const kc_cuda *cu);
void kc_cuda_unload(kc_cuda *cu);
/* "CUDA_ERROR_ILLEGAL_ADDRESS" for r (or "error 123 (no CUresult the driver
 * names)" when unknown). */
const char *kc_cuda_error_name(const kc_cuda *cu, CUresult r);
/* Whether the driver names r: a library built on the CUDA runtime may return
 * a cudaError_t code that no CUresult has. */
int kc_cuda_error_named(const kc_cuda *cu, CUresult r);
/* Nonzero for errors after which the context is unusable (sticky errors:
 * illegal address, misaligned address, illegal instruction, launch failure,
 * hardware stack error, assert, ...); measured on an H200: resetting the
 * primary context did not recover, a fresh process did. */
int kc_cuda_error_is_sticky(CUresult r);
#endif
