/* driver_trace.c — the timing wrappers of driver_trace.h. */
#include "driver_trace.h"

#include <stdatomic.h>
#include <stdio.h>

#include "clock.h"

enum { T_LAUNCH, T_LAUNCH_EX, T_HTOD, T_DTOH, T_DTOD, T_MEMSET, T_STREAM_SYNC, T_CTX_SYNC, T_ALLOC_ASYNC,
       T_FREE_ASYNC, T_ALLOC, T_FREE, T_FUNC_SET, T_MOD_LOAD, T_MOD_UNLOAD, T_MOD_FUNC, T_N };
static const char *const names[T_N] = { "cuLaunchKernel", "cuLaunchKernelEx", "cuMemcpyHtoD", "cuMemcpyDtoH",
                                        "cuMemcpyDtoD", "cuMemsetD8", "cuStreamSynchronize", "cuCtxSynchronize",
                                        "cuMemAllocAsync", "cuMemFreeAsync", "cuMemAlloc", "cuMemFree",
                                        "cuFuncSetAttribute", "cuModuleLoadData", "cuModuleUnload",
                                        "cuModuleGetFunction" };
static _Atomic long long calls[T_N], nanos[T_N];
static kc_cuda real;

static void add(int i, double t0)
{
    calls[i]++;
    nanos[i] += (long long)((kc_now_s() - t0) * 1e9);
}

#define TIMED(i, expr)             \
    do {                           \
        double t0_ = kc_now_s();      \
        CUresult r_ = (expr);      \
        add(i, t0_);               \
        return r_;                 \
    } while (0)

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned smem, CUstream s, void **p, void **e)
{
    TIMED(T_LAUNCH, real.LaunchKernel(f, gx, gy, gz, bx, by, bz, smem, s, p, e));
}
static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, void **p, void **e)
{
    TIMED(T_LAUNCH_EX, real.LaunchKernelEx(c, f, p, e));
}
static CUresult htod(CUdeviceptr d, const void *h, size_t n) { TIMED(T_HTOD, real.MemcpyHtoD(d, h, n)); }
static CUresult dtoh(void *h, CUdeviceptr d, size_t n) { TIMED(T_DTOH, real.MemcpyDtoH(h, d, n)); }
static CUresult dtod(CUdeviceptr d, CUdeviceptr s, size_t n) { TIMED(T_DTOD, real.MemcpyDtoD(d, s, n)); }
static CUresult memset8(CUdeviceptr d, unsigned char v, size_t n) { TIMED(T_MEMSET, real.MemsetD8(d, v, n)); }
static CUresult stream_sync(CUstream s) { TIMED(T_STREAM_SYNC, real.StreamSynchronize(s)); }
static CUresult ctx_sync(void) { TIMED(T_CTX_SYNC, real.CtxSynchronize()); }
static CUresult alloc_async(CUdeviceptr *d, size_t n, CUstream s) { TIMED(T_ALLOC_ASYNC, real.MemAllocAsync(d, n, s)); }
static CUresult free_async(CUdeviceptr d, CUstream s) { TIMED(T_FREE_ASYNC, real.MemFreeAsync(d, s)); }
static CUresult alloc(CUdeviceptr *d, size_t n) { TIMED(T_ALLOC, real.MemAlloc(d, n)); }
static CUresult mfree(CUdeviceptr d) { TIMED(T_FREE, real.MemFree(d)); }
static CUresult func_set(CUfunction f, CUfunction_attribute a, int v) { TIMED(T_FUNC_SET, real.FuncSetAttribute(f, a, v)); }
static CUresult mod_load(CUmodule *m, const void *img) { TIMED(T_MOD_LOAD, real.ModuleLoadData(m, img)); }
static CUresult mod_unload(CUmodule m) { TIMED(T_MOD_UNLOAD, real.ModuleUnload(m)); }
static CUresult mod_func(CUfunction *f, CUmodule m, const char *n) { TIMED(T_MOD_FUNC, real.ModuleGetFunction(f, m, n)); }

void kc_trace_wrap(kc_cuda *cu)
{
    real = *cu;
    for (int i = 0; i < T_N; i++) calls[i] = nanos[i] = 0;
#define W(field, fn) \
    if (cu->field) cu->field = fn
    W(LaunchKernel, launch);
    W(LaunchKernelEx, launch_ex);
    W(MemcpyHtoD, htod);
    W(MemcpyDtoH, dtoh);
    W(MemcpyDtoD, dtod);
    W(MemsetD8, memset8);
    W(StreamSynchronize, stream_sync);
    W(CtxSynchronize, ctx_sync);
    W(MemAllocAsync, alloc_async);
    W(MemFreeAsync, free_async);
    W(MemAlloc, alloc);
    W(MemFree, mfree);
    W(FuncSetAttribute, func_set);
    W(ModuleLoadData, mod_load);
    W(ModuleUnload, mod_unload);
    W(ModuleGetFunction, mod_func);
#undef W
}

void kc_trace_print(const char *pass)
{
    for (int i = 0; i < T_N; i++)
        if (calls[i])
            printf("  driver %s: %s calls=%lld s=%.2f mean_us=%.1f\n", pass, names[i], (long long)calls[i],
                   (double)nanos[i] * 1e-9, (double)nanos[i] * 1e-3 / (double)calls[i]);
}
