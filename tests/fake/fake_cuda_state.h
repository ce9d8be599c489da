/* fake_cuda_state.h — what the fake driver's calls share across the files
 * that define them (fake_cuda.c, fake_cuda_mem.c, fake_cuda_module.c,
 * fake_cuda_launch.c, fake_cuda_stream.c; fake_cuda.h is what its emulated
 * kernels share too): the plain names cuda.h maps to _v2, the device's
 * limits, the module and function handles, whether cuInit ran
 * (CONTEXT_CALL), and the few helpers more than one kind of call needs.
 * Not exported: the library's dynamic symbols stay the driver's entry
 * points and fake_cuda.h's. */
#ifndef KC_FAKE_CUDA_STATE_H
#define KC_FAKE_CUDA_STATE_H
#include <cuda.h>
#include <stdatomic.h>
#include <stddef.h>

#include "fake_cuda.h"

/* cuda.h maps these names to their _v2 ABI; the harness dlsym's the plain
 * names with the _v2 prototypes, so export those. */
#undef cuDeviceTotalMem
#undef cuMemGetInfo
#undef cuMemAlloc
#undef cuMemFree
#undef cuMemcpyHtoD
#undef cuMemcpyDtoH
#undef cuMemcpyDtoD
#undef cuMemsetD8
#undef cuMemsetD32
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxSetFlags
#undef cuLaunchKernel
#undef cuStreamDestroy
#undef cuMemAllocHost
#undef cuModuleGetGlobal

#define TOTAL_MEM ((size_t)16 << 30)
#define SMEM_DEFAULT (48 * 1024)
#define SMEM_OPTIN (227 * 1024)
#define SMEM_PER_SM (228 * 1024)
#define REGS_PER_SM 65536
#define THREADS_PER_SM 2048
#define BLOCKS_PER_SM 32
#define SMS 4

struct CUmod_st;
struct CUfunc_st {
    const struct kernel *k;
    const struct CUmod_st *mod;
    _Atomic int max_dynamic_smem;   /* cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) */
    _Atomic int nonportable;        /* cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED) */
};
struct CUmod_st {
    char module[64], control[64];
    struct CUfunc_st fn[NKERNELS];
    unsigned long long watchdog_ns;     /* its kc_watchdog_ns (KC_FAKE_WATCHDOG), device memory as host memory */
    size_t watchdog_size;               /* 0: the module has none */
};

/* Shared between the library's files, never exported (the harness and the
 * tests see only the driver's names). */
#define FAKE_HIDDEN __attribute__((visibility("hidden")))

/* Set by a successful cuInit: until then every context call fails. */
FAKE_HIDDEN extern _Atomic int initialized;

#define CONTEXT_CALL() do { if (!initialized) return CUDA_ERROR_NOT_INITIALIZED; if (fake_sticky) return fake_sticky; } while (0)

/* A late fault (fake_late) made the context's: cuCtxSynchronize's and
 * cuStreamSynchronize's. */
FAKE_HIDDEN void see_late(void);
/* Stream 0, CU_STREAM_LEGACY or CU_STREAM_PER_THREAD: 1. */
FAKE_HIDDEN int special_stream(CUstream s);
/* A created, live stream's slot; -1 for any other handle. */
FAKE_HIDDEN int stream_slot(CUstream s);
/* A function's registers per thread (its control reg_growth's where the
 * kernel has one). */
FAKE_HIDDEN int regs_of(const struct CUfunc_st *f);
#endif
