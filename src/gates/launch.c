/* launch.c — the launch path of an item's kernel: its function loaded
 * (module and symbol from the embedded fatbin, or a library's entry), and
 * gate 1 for one launch of a case: the geometry checked against the
 * function and the device, the launch, and the synchronize after it. */
#include "launch.h"

#include <stdio.h>

#include "fatbin.h"
#include "harness.h"
#include "hostlib.h"

/* Gate 1 for a library kernel: calls its entry with the arguments a kernel
 * would get, then synchronizes the context as after a launch. No geometry to
 * check: the library picks its own. */
static int host_launch(kc_gpu *gpu, kc_case *k, int set, int gate)
{
    kc_params p;
    kc_make_params(k, set, &p);
    if (!k->exact) kc_dev_poison_smem(gpu);
    CUresult r = (CUresult)k->entry(p.params, k->s, &gpu->dev);
    int returned = r != CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) r = gpu->cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
        const char *lost = kc_case_lost_if_sticky(gpu, k, r), *name = kc_cuda_error_name(&gpu->cu, r);
        /* a library built on the CUDA runtime may return a cudaError_t with no CUresult twin */
        int unnamed = returned && !kc_cuda_error_named(&gpu->cu, r);
        return kc_case_fail(k, gate, "library call %s (lib%s.so) %s: %s%s%s", k->c->entry, k->c->library,
                            returned ? "returned" : "then synchronize failed", name,
                            unnamed ? ": the CUDA runtime's cudaError_t of that code? (cudaGetErrorName names it)" : "",
                            lost);
    }
    return 0;
}

/* Gate 1 for one launch: checks the geometry against the function and device,
 * launches on `stream` and, with sync, synchronizes the context. Returns 0 or
 * the gate (failure in k->why). */
int kc_case_launch_on(kc_gpu *gpu, CUfunction f, kc_case *k, int set, int gate, CUstream stream, int sync)
{
    if (k->entry) return host_launch(gpu, k, set, gate);
    kc_launch l = { { 1, 1, 1 }, { 1, 1, 1 }, 0 };
    k->c->launch(k->s, &gpu->dev, &l);
    unsigned threads = l.block[0] * l.block[1] * l.block[2];
    int maxthreads = 0, statics = 0;
    CUresult ar = gpu->cu.FuncGetAttribute(&maxthreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    if (ar == CUDA_SUCCESS) ar = gpu->cu.FuncGetAttribute(&statics, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    if (ar != CUDA_SUCCESS)     /* a sticky error: an earlier launch's fault (launch_together) */
        return kc_case_cuda_failed(gpu, k, ar, "cuFuncGetAttribute", "before the launch");
    if (!l.grid[0] || !l.grid[1] || !l.grid[2] || !threads)
        return kc_case_fail(k, gate, "empty launch: grid %ux%ux%u, block %ux%ux%u", l.grid[0], l.grid[1], l.grid[2],
                            l.block[0], l.block[1], l.block[2]);
    if ((int)threads > maxthreads)
        return kc_case_fail(k, gate, "block of %u threads > %d the function allows (registers or __launch_bounds__)",
                            threads, maxthreads);
    if ((size_t)statics + l.smem > gpu->dev.smem_per_block_optin)
        return kc_case_fail(k, gate, "shared memory %d static + %u dynamic bytes > %zu the device allows per block",
                            statics, l.smem, gpu->dev.smem_per_block_optin);
    if ((size_t)statics + l.smem > gpu->dev.smem_per_block) {
        CUresult r = gpu->cu.FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l.smem);
        if (kc_cuda_error_is_sticky(r))     /* an earlier launch's fault (launch_together) */
            return kc_case_cuda_failed(gpu, k, r, "cuFuncSetAttribute", "before the launch");
        if (r != CUDA_SUCCESS)
            return kc_case_fail(k, gate, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %u): %s", l.smem,
                                kc_cuda_error_name(&gpu->cu, r));
    }
    kc_params p;
    kc_make_params(k, set, &p);
    if (!k->exact) kc_dev_poison_smem(gpu);
    CUresult r = gpu->cu.LaunchKernel(f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                                      l.smem, stream, p.params, NULL);
    if (r == CUDA_SUCCESS && sync) r = gpu->cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
        const char *lost = kc_case_lost_if_sticky(gpu, k, r);
        return kc_case_fail(k, gate, "launch grid %ux%ux%u block %ux%ux%u smem %u failed: %s%s", l.grid[0], l.grid[1],
                            l.grid[2], l.block[0], l.block[1], l.block[2], l.smem, kc_cuda_error_name(&gpu->cu, r),
                            lost);
    }
    return 0;
}

/* kc_case_launch_on the default stream, synchronized: every gate's launch. */
int kc_case_launch(kc_gpu *gpu, CUfunction f, kc_case *k, int set, int gate)
{
    return kc_case_launch_on(gpu, f, k, set, gate, NULL, 1);
}

int kc_load_function(kc_gpu *gpu, const kc_contract *c, const char *control, CUmodule *mod, CUfunction *fn,
                     kc_host_entry *entry, char *why, size_t cap)
{
    *entry = NULL;
    if (c->library) {
        char e[900];
        if (!kc_hostlib_load(c->library, control, c->entry, entry, e, sizeof e)) return 0;
        snprintf(why, cap, "gate 1 (launch and fit): %s", e);
        return 1;
    }
    const kc_fatbin *fb = kc_fatbin_find(c->module, control);
    if (!fb) {
        snprintf(why, cap, "gate 1 (launch and fit): module %s%s%s is not embedded in this binary", c->module,
                 control ? "@" : "", control ? control : "");
        return 1;
    }
    CUresult r = gpu->cu.ModuleLoadData(mod, fb->start);
    if (r != CUDA_SUCCESS) {
        snprintf(why, cap, "gate 1 (launch and fit): loading module %s%s%s failed: %s (fatbin for sm_90 + compute_90 PTX; device is cc %d.%d)",
                 c->module, control ? "@" : "", control ? control : "", kc_cuda_error_name(&gpu->cu, r),
                 gpu->dev.cc_major, gpu->dev.cc_minor);
        return 1;
    }
    r = gpu->cu.ModuleGetFunction(fn, *mod, c->symbol);
    if (r != CUDA_SUCCESS) {
        snprintf(why, cap, "gate 1 (launch and fit): function %s not found in module %s: %s", c->symbol, c->module,
                 kc_cuda_error_name(&gpu->cu, r));
        gpu->cu.ModuleUnload(*mod);
        *mod = NULL;
        return 1;
    }
    return 0;
}
