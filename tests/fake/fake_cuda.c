/* fake_cuda.c — a stand-in for libcuda.so.1 (built as build/libfake_cuda.so,
 * loaded through KC_LIBCUDA) so the gates, the controls, the limit checks and
 * the handling of sticky CUDA errors run on a machine without a GPU, through
 * the real binary (build/kcontract-fixture and tests/fixtures/fake_*contracts.c).
 * This file is the device and its context: cuInit, the device's attributes,
 * the primary context, its limits, synchronization, and the error names.
 * The rest of the driver: memory in fake_cuda_mem.c, modules and functions
 * in fake_cuda_module.c, occupancy and launches in fake_cuda_launch.c,
 * streams in fake_cuda_stream.c (what they share: fake_cuda_state.h); the
 * emulated kernels in fake_kernels.c, fake_args.c and fake_acc.c (what they
 * share: fake_cuda.h).
 *
 * One device, "kcontract fake GPU": compute capability 9.0, 4 SMs, 48 KiB
 * default / 227 KiB opt-in shared memory per block, 1024 threads per block.
 * Device memory is host memory: a device pointer is a host address, copies and
 * memsets are memcpy and memset. A module image is the text
 * "KCFAKE <module> <control or ->" (the Makefile writes one per module and
 * control of tests/fixtures/fake_kernels.list); its functions are the
 * host-emulated kernels of fake_kernels.c, which honour the control the
 * image names.
 * A kernel may fault (CUDA_ERROR_ILLEGAL_ADDRESS): the launch returns success
 * and from then on every context call returns the error, as a real poisoned
 * context does. cuGetProcAddress is deliberately absent: the harness resolves
 * the plain names with dlsym. cuFuncGetParamInfo knows the parameter sizes
 * of the kernels whose table entry lists them (CUDA_ERROR_NOT_SUPPORTED for
 * the others, which the harness then does not check).
 *
 * Launches with attributes (cuLaunchKernelEx): cluster dims, cooperative,
 * programmatic stream serialization. The device is one GPC of its 4 SMs: a
 * cluster's blocks share it, so cuOccupancyMaxActiveClusters is blocks per
 * SM x 4 / cluster size, 0 for a cluster above 8 blocks without the
 * function's NON_PORTABLE_CLUSTER_SIZE_ALLOWED or above 16 with it; a
 * cooperative grid must fit blocks per SM x 4. cuLaunchKernelEx refuses a
 * cluster that does not divide the grid or does not fit
 * (CUDA_ERROR_INVALID_CLUSTER_SIZE) and a cooperative grid that does not
 * fit (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE). With KC_FAKE_LAUNCH_LOG
 * set, every launch of a kernel under test (not the harness's, not a
 * reference's) appends one line to that file: its symbol, control, entry
 * point, geometry, attributes and stream (tests/test_gates_fake_driver.c reads
 * them). A programmatic launch's dependent (fake_pdl_scale_f32) that does
 * not wait reads its producer's output before it was written.
 *
 * The harness's own module ("KCFAKE harness -") is emulated too (fake_kernels.c): its
 * generator and checks run the same host-and-device rules the CUDA module
 * compiles (src/core/gen_stream.h, src/core/check_rules.h), writing the whole result
 * into the first block's partial and empty partials into the rest, so the
 * harness's folding is exercised. Module "fake_ref" holds device references
 * of the fake contracts, one of them deliberately off by an ulp.
 * KC_FAKE_CTX_RETAIN_S: seconds cuDevicePrimaryCtxRetain takes, and
 * KC_FAKE_CTX_TEARDOWN_S: seconds a process that initialized the driver
 * takes to unload it or exit (a real context's creation and teardown take a
 * fraction of one), for the tests of what a worker started ahead saves
 * (tests/test_queue.c). KC_FAKE_COMPUTE_MODE: the device's compute mode
 * (CU_COMPUTEMODE_*, default 0: DEFAULT). KC_FAKE_FAULT_S: seconds
 * fake_copy_f16's planted fault takes before its launch returns it.
 * KC_FAKE_WATCHDOG: the size of the kc_watchdog_ns variable every module of a
 * kernel under test has (cuModuleGetGlobal; 8 as kcontract_watchdog.cuh
 * declares it; "fail": cuModuleGetGlobal fails with CUDA_ERROR_INVALID_CONTEXT;
 * "lost": with CUDA_ERROR_ILLEGAL_ADDRESS, sticky from then on),
 * whose value at each launch the launch log then gives;
 * KC_FAKE_WATCHDOG_NS its value at load (default 250 ms, the header's);
 * KC_FAKE_LOAD_LOST=<module>: loading that module fails with
 * CUDA_ERROR_ILLEGAL_ADDRESS, sticky from then on (an earlier fault that
 * the load is the first call to see).
 * KC_FAKE_CUINIT_ERROR=N: cuInit fails with CUresult N in every process;
 * KC_FAKE_CUINIT_ERROR_WORKER=N only in a run's worker (a process given
 * --worker): a driver that stopped working after the parent's probe found
 * the device. KC_FAKE_CUINIT_HANG=<file>: cuInit writes its pid to the file
 * and never returns (a driver load that hangs). KC_FAKE_WORKER_GPU_LOST=
 * <file>:<n>: each worker's first cuInit appends its pid to the file, and
 * from the (n+1)-th worker on cuInit fails there with CUDA_ERROR_NO_DEVICE
 * (a GPU lost after n workers opened it: the driver sees none, while the
 * run's probe found it; its items are SKIP, no GPU).
 *
 * Threads: host threads of one process may share the context (issue 23,
 * part 1): the context's state (initialized, the sticky and late faults,
 * the launch count, a function's attributes) is atomic and the stream table
 * is locked, so no call sees another's half-done update. The per-thread
 * default stream's entry points are exported under libcuda's names
 * (cuLaunchKernel_ptsz, cuMemcpyHtoD_v2_ptds, ..., cuStreamSynchronize_ptsz,
 * the ones kc_cuda_load_streams asks for, cuMemAllocAsync_ptsz and
 * cuMemFreeAsync_ptsz among them): they act as the legacy ones
 * (every launch runs at once, in order) and a launch through them on stream
 * 0, or on CU_STREAM_PER_THREAD by either entry, logs stream=per-thread. */
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_cuda.h"
#include "fake_cuda_state.h"

struct CUctx_st { int unused; };

static struct CUctx_st the_ctx;
_Atomic int initialized;
_Atomic(CUresult) fake_sticky;             /* set by a faulting kernel: the context is unusable */
_Atomic(CUresult) fake_late;               /* a fault the host sees at its next cuCtxSynchronize or cuFuncSetAttribute
                                            * (the kernel still ran when the calls between came) */
_Atomic unsigned long long fake_launches;  /* of the fake kernels under test (not the harness's or references) */

/* ---- the driver API ---- */

/* Whether this process was given --worker (its /proc/self/cmdline). */
static int is_worker(void)
{
    char buf[8192];
    FILE *f = fopen("/proc/self/cmdline", "re");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
        if (strcmp(buf + i, "--worker") == 0) return 1;
    return 0;
}

/* KC_FAKE_WORKER_GPU_LOST (above): whether this worker comes after the
 * first n, decided once per process. */
static int worker_gpu_lost(void)
{
    static int decided = -1;
    const char *spec = getenv("KC_FAKE_WORKER_GPU_LOST"), *colon = spec ? strrchr(spec, ':') : NULL;
    if (!colon || !is_worker()) return 0;
    if (decided >= 0) return decided;
    char path[512];
    snprintf(path, sizeof path, "%.*s", (int)(colon - spec), spec);
    FILE *f = fopen(path, "a+");
    if (!f) return decided = 0;
    fprintf(f, "%d\n", (int)getpid());
    fflush(f);
    rewind(f);
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF) lines += c == '\n';
    fclose(f);
    return decided = lines > atoi(colon + 1);
}

CUresult cuInit(unsigned flags)
{
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    if (worker_gpu_lost()) return CUDA_ERROR_NO_DEVICE;
    const char *fail = getenv("KC_FAKE_CUINIT_ERROR");     /* set: cuInit fails with that CUresult (a number) */
    if (fail && *fail) return (CUresult)atoi(fail);
    const char *wfail = getenv("KC_FAKE_CUINIT_ERROR_WORKER");     /* the same, in a worker only */
    if (wfail && *wfail && is_worker()) return (CUresult)atoi(wfail);
    const char *hang = getenv("KC_FAKE_CUINIT_HANG");   /* set: cuInit writes its pid there and never returns */
    if (hang && *hang) {
        FILE *f = fopen(hang, "w");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
        for (;;) pause();
    }
    initialized = 1;
    return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED; }
CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *d = 0;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "kcontract fake GPU");
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = SMS; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = SMEM_DEFAULT; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = SMEM_OPTIN; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = SMEM_PER_SM; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *v = REGS_PER_SM; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *v = BLOCKS_PER_SM; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *v = 1; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: *v = !(getenv("KC_FAKE_NO_VMM") && *getenv("KC_FAKE_NO_VMM")); break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: *v = getenv("KC_FAKE_COMPUTE_MODE") ? atoi(getenv("KC_FAKE_COMPUTE_MODE")) : 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice d) { *bytes = TOTAL_MEM; return d == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }
CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
    snprintf(bus, (size_t)len, "0000:3B:00.0");
    return d == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    CONTEXT_CALL();
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    const char *slow = getenv("KC_FAKE_CTX_RETAIN_S");
    if (slow && atof(slow) > 0) usleep((useconds_t)(atof(slow) * 1e6));
    *c = &the_ctx;
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice d) { CONTEXT_CALL(); return d == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

/* A process that initialized the driver, unloading it or exiting: its
 * context's teardown (KC_FAKE_CTX_TEARDOWN_S seconds). */
__attribute__((destructor)) static void fake_teardown(void)
{
    const char *slow = getenv("KC_FAKE_CTX_TEARDOWN_S");
    if (initialized && slow && atof(slow) > 0) usleep((useconds_t)(atof(slow) * 1e6));
}
/* KC_FAKE_SCHED_LOG=<file>: each process that sets its context's flags
 * appends "sched pid=<pid> flags=<flags>" to it (tests/test_gates_fake.c:
 * how a worker waits for the GPU). */
CUresult cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned flags)
{
    CONTEXT_CALL();
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    const char *log = getenv("KC_FAKE_SCHED_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "sched pid=%ld flags=%u\n", (long)getpid(), flags);
        fclose(f);
    }
    return (flags & ~(unsigned)CU_CTX_SCHED_MASK) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuCtxSetCurrent(CUcontext c) { CONTEXT_CALL(); return !c || c == &the_ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }
/* A kernel's fault that the calls after its launch did not see yet
 * (`late`) becomes the context's, once (taken atomically: threads). */
void see_late(void)
{
    CUresult l = atomic_exchange(&fake_late, CUDA_SUCCESS);
    if (l) fake_sticky = l;
}
CUresult cuCtxSynchronize(void)
{
    CONTEXT_CALL();
    see_late();
    return fake_sticky;
}
/* The context's limits, as the real driver keeps them: its defaults until
 * set. KC_FAKE_LIMITS_STICK=1: a limit once changed cannot be set again
 * (as the real malloc heap size after a kernel that uses malloc:
 * CUDA_ERROR_INVALID_VALUE), for the watch's restore that fails. */
static size_t limits[] = { 1024, 1 << 20, 8 << 20, 2, 2048, 64, 0 };
static int limit_changed[sizeof limits / sizeof limits[0]];
static pthread_mutex_t limits_mu = PTHREAD_MUTEX_INITIALIZER;

CUresult cuCtxGetLimit(size_t *v, CUlimit l)
{
    CONTEXT_CALL();
    if (!v || (unsigned)l >= sizeof limits / sizeof limits[0]) return CUDA_ERROR_INVALID_VALUE;
    if (l == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH) return CUDA_ERROR_UNSUPPORTED_LIMIT;      /* compute capability 9.0 */
    pthread_mutex_lock(&limits_mu);
    *v = limits[l];
    pthread_mutex_unlock(&limits_mu);
    return CUDA_SUCCESS;
}
CUresult cuCtxSetLimit(CUlimit l, size_t v)
{
    CONTEXT_CALL();
    if ((unsigned)l >= sizeof limits / sizeof limits[0]) return CUDA_ERROR_INVALID_VALUE;
    if (l == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH) return CUDA_ERROR_UNSUPPORTED_LIMIT;
    const char *stick = getenv("KC_FAKE_LIMITS_STICK");
    pthread_mutex_lock(&limits_mu);
    CUresult r = CUDA_SUCCESS;
    if (stick && *stick == '1' && limit_changed[l]) r = CUDA_ERROR_INVALID_VALUE;
    else {
        limit_changed[l] = 1;
        limits[l] = v;
    }
    pthread_mutex_unlock(&limits_mu);
    return r;
}

static const struct { CUresult r; const char *name, *text; } errors[] = {
    { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
    { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
    { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
    { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
    { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
    { CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
    { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
    { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
    { CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
    { CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered" },
    { CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
      "too many blocks in cooperative launch" },
    { CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE", "invalid cluster size" },
};
static CUresult error_lookup(CUresult r, const char **s, int text)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].r == r) {
            *s = text ? errors[i].text : errors[i].name;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGetErrorName(CUresult r, const char **s) { return error_lookup(r, s, 0); }
CUresult cuGetErrorString(CUresult r, const char **s) { return error_lookup(r, s, 1); }
