/* cuda_driver.c — loads libcuda.so.1 with dlopen and resolves the driver API
 * entry points through cuGetProcAddress (versioned, so cuMemAlloc resolves to
 * the _v2 ABI that cuda.h declares), with the legacy or the per-thread
 * default stream (cuda_driver.h). */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The ABI version asked of cuGetProcAddress. Not CUDA_VERSION: from 13.0 the
 * plain name "cuCtxSynchronize" resolves to cuCtxSynchronize_v2(CUcontext),
 * while the prototypes this file calls through are the 12.x ones (seen on an
 * H200 with driver 580: every launch then failed with
 * CUDA_ERROR_CONTEXT_IS_DESTROYED). */
#define KC_CUDA_ABI_VERSION 12000

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* Resolves name at ABI version `version` (0: KC_CUDA_ABI_VERSION) into
 * *slot, with the per-thread default stream when per_thread (the driver's
 * table then gives the _ptsz/_ptds variant where the entry point has one;
 * without cuGetProcAddress, dlsym of `ptname`, the variant's exported name,
 * NULL for an entry point that does not take the default stream). 0; or -1
 * with why in err, unless `optional`, which leaves the slot NULL and returns
 * 0 (an entry point newer than the driver). */
static int resolve(get_proc_fn gp, void *lib, const char *libname, const char *name, const char *ptname, int per_thread,
                   int version, int optional, void **slot, char *err, size_t errcap)
{
    CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SUCCESS;
    cuuint64_t flags = per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : CU_GET_PROC_ADDRESS_DEFAULT;
    if (!version) version = KC_CUDA_ABI_VERSION;
    *slot = NULL;
    if (gp && gp(name, slot, version, flags, &q) == CUDA_SUCCESS && *slot)
        return 0;
    *slot = NULL;
    if (gp && optional) return 0;   /* the driver's table says it has none at that version: a plain dlsym might find another ABI */
    const char *sym = per_thread && ptname ? ptname : name;    /* never the legacy stream's entry in its place */
    *slot = dlsym(lib, sym);
    if (*slot || optional) return 0;
    /* the library loaded, by the name it was given (KC_LIBCUDA's path, not
     * always libcuda.so.1): a KC_LIBCUDA naming another library reads so */
    snprintf(err, errcap, "%s lacks %s (not the CUDA driver library, or a driver older than CUDA %d.%d?)", libname,
             sym, version / 1000, version % 1000 / 10);
    return -1;
}

void kc_dlopen_why(const char *lib, const char *what, const char *dlerr, char *buf, size_t cap)
{
    struct stat st;
    const char *e = dlerr ? dlerr : "unknown error";
    /* a path names one file; a bare name is searched for (ld.so(8)), and the
     * loader then says whether it found none */
    int missing = strchr(lib, '/') ? stat(lib, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)
                                   : strstr(e, "No such file or directory") != NULL;
    if (missing) snprintf(buf, cap, "%s not found (dlopen: %s)", lib, e);
    else snprintf(buf, cap, "%s cannot be loaded as %s (dlopen: %s)", lib, what, e);
}

int kc_lib_setting_check(const char *var, const char *what, char *why, size_t cap)
{
    const char *v = getenv(var);
    if (!v || !*v || strcmp(v, "none") == 0 || !strchr(v, '/')) return 0;
    struct stat st;
    const char *bad = NULL;
    char magic[4] = { 0 };
    if (stat(v, &st) != 0) bad = strerror(errno);
    else if (!S_ISREG(st.st_mode)) bad = "not a regular file";
    else {
        FILE *f = fopen(v, "rb");
        if (!f) bad = strerror(errno);
        else {
            if (fread(magic, 1, sizeof magic, f) != sizeof magic || memcmp(magic, "\x7f" "ELF", 4) != 0)
                bad = "not an ELF shared library";
            fclose(f);
        }
    }
    if (!bad) return 0;
    snprintf(why, cap, "%s=%s: %s (expected the path of %s, a library name the loader searches for, or none for "
             "no library; unset: the default)", var, v, bad, what);
    return -1;
}

int kc_cuda_load(kc_cuda *cu, const char *lib, char *err, size_t errcap)
{
    return kc_cuda_load_streams(cu, lib, 0, err, errcap);
}

int kc_cuda_load_streams(kc_cuda *cu, const char *lib, int per_thread, char *err, size_t errcap)
{
    memset(cu, 0, sizeof *cu);
    cu->per_thread = per_thread != 0;
    if (!lib) lib = getenv("KC_LIBCUDA");
    const int named = lib && *lib;     /* by KC_LIBCUDA or the caller: its absence is a broken setting */
    if (!named) lib = "libcuda.so.1";
    if (strcmp(lib, "none") == 0) {     /* a machine without a driver, asked for */
        snprintf(err, errcap, "KC_LIBCUDA=none: no CUDA driver loaded");
        return KC_CUDA_ABSENT;
    }
    /* RTLD_NODELETE: dlclose leaves the driver mapped until the process
     * exits (libcuda's threads and atexit handlers outlive a context), and
     * LeakSanitizer can still name its frames (tools/lsan.supp). */
    cu->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!cu->lib) {
        kc_dlopen_why(lib, "the CUDA driver library", dlerror(), err, errcap);
        return !named && strstr(err, " not found (dlopen: ") ? KC_CUDA_ABSENT : KC_CUDA_BROKEN;
    }
    int rc = KC_CUDA_BROKEN;
    get_proc_fn gp = (get_proc_fn)dlsym(cu->lib, "cuGetProcAddress_v2");
    /* version 0: KC_CUDA_ABI_VERSION; optional: NULL when absent; ptname:
     * the per-thread default stream's variant as libcuda exports it (cuda.h's
     * __CUDA_API_PTDS/__CUDA_API_PTSZ names), for the entry points that
     * take the default stream, used only by a per-thread table */
    struct { const char *name, *ptname; void **slot; int version, optional; } t[] = {
#define E(f) { "cu" #f, NULL, (void **)&cu->f, 0, 0 }
#define P(f, pt) { "cu" #f, pt, (void **)&cu->f, 0, 0 }
        E(Init), E(DriverGetVersion), E(DeviceGetCount), E(DeviceGet), E(DeviceGetName),
        E(DeviceGetAttribute), E(DeviceTotalMem), E(DeviceGetPCIBusId), E(DevicePrimaryCtxRetain),
        E(DevicePrimaryCtxRelease), E(DevicePrimaryCtxSetFlags), E(CtxSetCurrent), E(CtxSynchronize), E(MemGetInfo),
        E(MemAlloc), E(MemFree), P(MemcpyHtoD, "cuMemcpyHtoD_v2_ptds"), P(MemcpyDtoH, "cuMemcpyDtoH_v2_ptds"),
        P(MemcpyDtoD, "cuMemcpyDtoD_v2_ptds"), P(MemsetD8, "cuMemsetD8_v2_ptds"),
        P(MemsetD32, "cuMemsetD32_v2_ptds"), E(ModuleLoadData),
        E(ModuleUnload), E(ModuleGetFunction), E(ModuleGetGlobal), E(FuncGetAttribute), E(FuncSetAttribute),
        P(LaunchKernel, "cuLaunchKernel_ptsz"), P(LaunchKernelEx, "cuLaunchKernelEx_ptsz"), E(StreamCreate),
        E(StreamDestroy), P(StreamSynchronize, "cuStreamSynchronize_ptsz"), E(OccupancyMaxActiveBlocksPerMultiprocessor),
        E(OccupancyMaxActiveClusters), E(GetErrorName), E(GetErrorString),
        { "cuFuncGetParamInfo", NULL, (void **)&cu->FuncGetParamInfo, 12040, 1 },   /* CUDA 12.4 */
        { "cuTensorMapEncodeTiled", NULL, (void **)&cu->TensorMapEncodeTiled, 12000, 1 },
        { "cuMemAllocAsync", "cuMemAllocAsync_ptsz", (void **)&cu->MemAllocAsync, 11020, 1 },   /* CUDA 11.2 */
        { "cuMemFreeAsync", "cuMemFreeAsync_ptsz", (void **)&cu->MemFreeAsync, 11020, 1 },
        { "cuDeviceGetDefaultMemPool", NULL, (void **)&cu->DeviceGetDefaultMemPool, 11020, 1 },
        { "cuMemPoolSetAttribute", NULL, (void **)&cu->MemPoolSetAttribute, 11020, 1 },
        { "cuMemPoolTrimTo", NULL, (void **)&cu->MemPoolTrimTo, 11020, 1 },
        { "cuMemAddressReserve", NULL, (void **)&cu->MemAddressReserve, 10020, 1 },     /* CUDA 10.2 */
        { "cuMemAddressFree", NULL, (void **)&cu->MemAddressFree, 10020, 1 },
        { "cuMemCreate", NULL, (void **)&cu->MemCreate, 10020, 1 },
        { "cuMemRelease", NULL, (void **)&cu->MemRelease, 10020, 1 },
        { "cuMemMap", NULL, (void **)&cu->MemMap, 10020, 1 },
        { "cuMemUnmap", NULL, (void **)&cu->MemUnmap, 10020, 1 },
        { "cuMemSetAccess", NULL, (void **)&cu->MemSetAccess, 10020, 1 },
        { "cuMemGetAllocationGranularity", NULL, (void **)&cu->MemGetAllocationGranularity, 10020, 1 },
        { "cuCtxGetLimit", NULL, (void **)&cu->CtxGetLimit, 0, 1 },
        { "cuCtxSetLimit", NULL, (void **)&cu->CtxSetLimit, 0, 1 },
        { "cuMemAllocHost", NULL, (void **)&cu->MemAllocHost, 0, 1 },
        { "cuMemFreeHost", NULL, (void **)&cu->MemFreeHost, 0, 1 },
#undef P
#undef E
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (resolve(gp, cu->lib, lib, t[i].name, t[i].ptname, cu->per_thread, t[i].version, t[i].optional, t[i].slot, err,
                    errcap))
            goto fail;
    CUresult r = cu->Init(0);
    if (r != CUDA_SUCCESS) {
        const char *s = NULL;
        if (cu->GetErrorString(r, &s) != CUDA_SUCCESS) s = NULL;
        if (r == CUDA_ERROR_STUB_LIBRARY)   /* the stub names none of its errors: say what it is */
            snprintf(err, errcap, "cuInit failed: CUDA_ERROR_STUB_LIBRARY (%d): %s is the CUDA toolkit's stub "
                     "library (for linking on a build machine), with no driver behind it", (int)r, lib);
        else if (s)
            snprintf(err, errcap, "cuInit failed: %s (%s)", kc_cuda_error_name(cu, r), s);
        else
            snprintf(err, errcap, "cuInit failed: %s", kc_cuda_error_name(cu, r));
        /* no device, or the toolkit's stub library (a build machine): a
         * machine without a GPU; any other error is a driver that is there
         * and does not work (a driver and kernel module that do not match,
         * CUDA_ERROR_UNKNOWN after an upgrade without a reboot, ...) */
        if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_STUB_LIBRARY) rc = KC_CUDA_ABSENT;
        goto fail;
    }
    cu->DriverGetVersion(&cu->driver_version);
    return 0;
fail:
    dlclose(cu->lib);
    cu->lib = NULL;
    return rc;
}

CUresult kc_cuda_sync(const kc_cuda *cu, CUstream stream)
{
    if (!cu->per_thread) return cu->CtxSynchronize();
    return cu->StreamSynchronize(stream ? stream : CU_STREAM_PER_THREAD);
}

CUresult kc_cuda_func_set(const kc_cuda *cu, CUfunction f, CUfunction_attribute a, int v)
{
    int now;
    if (cu->FuncGetAttribute && cu->FuncGetAttribute(&now, a, f) == CUDA_SUCCESS && now == v) return CUDA_SUCCESS;
    return cu->FuncSetAttribute(f, a, v);
}

int kc_cuda_stream_alloc_setup(kc_cuda *cu, CUdevice d)
{
    cu->stream_alloc = 0;
    cu->pool = NULL;
    if (!cu->per_thread || !cu->MemAllocAsync || !cu->MemFreeAsync || !cu->DeviceGetDefaultMemPool ||
        !cu->MemPoolSetAttribute || !cu->MemPoolTrimTo)
        return 0;
    int pools = 0;
    if (cu->DeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, d) != CUDA_SUCCESS || !pools) return 0;
    CUmemoryPool pool;
    cuuint64_t keep = UINT64_MAX;
    int deps = 0;
    if (cu->DeviceGetDefaultMemPool(&pool, d) != CUDA_SUCCESS ||
        cu->MemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != CUDA_SUCCESS ||
        cu->MemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &deps) != CUDA_SUCCESS)
        return 0;
    cu->pool = pool;
    cu->stream_alloc = 1;
    return 1;
}

CUresult kc_cuda_alloc(const kc_cuda *cu, CUdeviceptr *p, size_t n)
{
    CUresult r;
    if (cu->guard) {
        r = cu->guard_alloc(cu, p, n);
    } else if (!cu->stream_alloc) {
        r = cu->MemAlloc(p, n);
    } else {
        r = cu->MemAllocAsync(p, n, CU_STREAM_PER_THREAD);
        if (r == CUDA_ERROR_OUT_OF_MEMORY) {     /* what other threads freed is still the pool's */
            cu->MemPoolTrimTo(cu->pool, 0);
            r = cu->MemAllocAsync(p, n, CU_STREAM_PER_THREAD);
        }
    }
    if (r != CUDA_SUCCESS) *p = 0;
    return r;
}

size_t kc_cuda_alloc_bytes(const kc_cuda *cu, size_t n)
{
    if (!cu->guard || !cu->guard_gran) return n;
    return (n + cu->guard_gran - 1) / cu->guard_gran * cu->guard_gran;
}

CUresult kc_cuda_free(const kc_cuda *cu, CUdeviceptr p)
{
    if (!p) return CUDA_SUCCESS;
    if (cu->guard) return cu->guard_free(cu, p);
    return cu->stream_alloc ? cu->MemFreeAsync(p, CU_STREAM_PER_THREAD) : cu->MemFree(p);
}

void kc_cuda_trim(const kc_cuda *cu)
{
    if (cu->stream_alloc) cu->MemPoolTrimTo(cu->pool, 0);
}

void kc_cuda_unload(kc_cuda *cu)
{
    if (cu->lib) dlclose(cu->lib);
    memset(cu, 0, sizeof *cu);
}

int kc_cuda_error_named(const kc_cuda *cu, CUresult r)
{
    const char *s = NULL;
    return cu && cu->GetErrorName && cu->GetErrorName(r, &s) == CUDA_SUCCESS && s;
}

const char *kc_cuda_error_name(const kc_cuda *cu, CUresult r)
{
    static __thread char buf[64];
    const char *s = NULL;
    if (cu && cu->GetErrorName && cu->GetErrorName(r, &s) == CUDA_SUCCESS && s) return s;
    snprintf(buf, sizeof buf, "error %d (no CUresult the driver names)", (int)r);
    return buf;
}

int kc_cuda_error_is_sticky(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return 1;
    default:
        return 0;
    }
}
