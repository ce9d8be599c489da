/* launch.c — the launch path of an item's kernel: its function loaded
 * (module and symbol from the embedded fatbin, or a library's entry); the
 * one launch of a kernel, through cuLaunchKernelEx where it has a cluster,
 * is cooperative or serializes programmatically; and gate 1 for one launch
 * of a case: the geometry checked against the function and the device
 * (clusters and cooperative grids included), the launch, and the
 * synchronize after it. */
#include "launch.h"

#include <stdio.h>
#include <string.h>

#include "fatbin.h"
#include "harness.h"
#include "hostlib.h"
#include "params.h"
#include "strbuf.h"

int kc_launch_cluster(const kc_launch *l, unsigned dims[3])
{
    const int given = l->cluster[0] || l->cluster[1] || l->cluster[2];
    for (int d = 0; d < 3; d++) dims[d] = l->cluster[d] ? l->cluster[d] : 1;
    return given;
}

void kc_launch_describe(const kc_launch *l, char *buf, size_t cap)
{
    unsigned cl[3];
    kc_strbuf b;
    kc_sb_init(&b, buf, cap);
    kc_sb_printf(&b, "grid %ux%ux%u block %ux%ux%u smem %u", l->grid[0], l->grid[1], l->grid[2], l->block[0],
                 l->block[1], l->block[2], l->smem);
    if (kc_launch_cluster(l, cl))
        kc_sb_printf(&b, " cluster %ux%ux%u%s", cl[0], cl[1], cl[2], l->nonportable_cluster ? " non-portable" : "");
    if (l->cooperative) kc_sb_printf(&b, " cooperative");
}

/* The launch config of l on stream, its attributes in at[] (at least 3):
 * the cluster dims, cooperative and programmatic stream serialization, as
 * l and flags ask. */
static CUlaunchConfig config_of(const kc_launch *l, CUstream stream, unsigned flags, CUlaunchAttribute *at)
{
    CUlaunchConfig c = { l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2], l->smem, stream,
                         at, 0 };
    unsigned cl[3];
    memset(at, 0, 3 * sizeof *at);
    if (kc_launch_cluster(l, cl)) {
        at[c.numAttrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        at[c.numAttrs].value.clusterDim.x = cl[0];
        at[c.numAttrs].value.clusterDim.y = cl[1];
        at[c.numAttrs++].value.clusterDim.z = cl[2];
    }
    if (l->cooperative) {
        at[c.numAttrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        at[c.numAttrs++].value.cooperative = 1;
    }
    if (flags & KC_LAUNCH_PROGRAMMATIC) {
        at[c.numAttrs].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        at[c.numAttrs++].value.programmaticStreamSerializationAllowed = 1;
    }
    return c;
}

/* Lets f launch clusters above the portable 8 blocks when l asks for it. */
static CUresult allow_nonportable(const kc_cuda *cu, CUfunction f, const kc_launch *l)
{
    unsigned cl[3];
    if (!l->nonportable_cluster || !kc_launch_cluster(l, cl)) return CUDA_SUCCESS;
    return cu->FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
}

CUresult kc_launch_kernel(const kc_cuda *cu, CUfunction f, const kc_launch *l, CUstream stream, void **params,
                          unsigned flags)
{
    unsigned cl[3];
    if (!kc_launch_cluster(l, cl) && !l->cooperative && !flags)     /* a plain launch, as it always was */
        return cu->LaunchKernel(f, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2], l->smem,
                                stream, params, NULL);
    CUresult r = allow_nonportable(cu, f, l);
    if (r != CUDA_SUCCESS) return r;
    CUlaunchAttribute at[3];
    CUlaunchConfig c = config_of(l, stream, flags, at);
    return cu->LaunchKernelEx(&c, f, params, NULL);
}

CUresult kc_launch_max_clusters(const kc_cuda *cu, CUfunction f, const kc_launch *l, int *clusters)
{
    *clusters = 0;
    CUresult r = allow_nonportable(cu, f, l);
    if (r != CUDA_SUCCESS) return r;
    CUlaunchAttribute at[3];
    kc_launch one = *l;
    one.cooperative = 0;        /* the query is about the cluster: the attributes it takes */
    CUlaunchConfig c = config_of(&one, NULL, 0, at);
    return cu->OccupancyMaxActiveClusters(clusters, f, &c);
}

/* Gate 1 for a library kernel: calls its entry with the arguments a kernel
 * would get, then synchronizes the context as after a launch. No geometry to
 * check: the library picks its own. */
static int host_launch(kc_gpu *gpu, kc_case *k, int set, int gate)
{
    kc_params p;
    int g = kc_make_params(gpu, k, set, gate, &p);
    if (g) return g;
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

/* Gate 1's checks of a launch with a cluster or a cooperative grid (l, of
 * `threads` threads a block), before it is made: each grid dim a multiple
 * of the cluster's, one cluster that fits, every block of a cooperative grid
 * resident at once. 0, or the gate with the failure naming the launch and
 * the numbers. */
static int check_cluster_and_cooperative(kc_gpu *gpu, CUfunction f, kc_case *k, int gate, const kc_launch *l,
                                         unsigned threads)
{
    static const char dim[] = "xyz";
    char desc[160];
    unsigned cl[3];
    const int clustered = kc_launch_cluster(l, cl);
    if (!clustered && !l->cooperative) return 0;
    kc_launch_describe(l, desc, sizeof desc);
    const unsigned long long blocks = (unsigned long long)l->grid[0] * l->grid[1] * l->grid[2];
    const unsigned long long size = (unsigned long long)cl[0] * cl[1] * cl[2];
    int clusters = 0;
    if (clustered) {
        for (int d = 0; d < 3; d++)
            if (l->grid[d] % cl[d])
                return kc_case_fail(k, gate, "launch %s: grid %c %u is no multiple of cluster %c %u (the driver refuses it: CUDA_ERROR_INVALID_CLUSTER_SIZE)",
                                    desc, dim[d], l->grid[d], dim[d], cl[d]);
        CUresult r = kc_launch_max_clusters(&gpu->cu, f, l, &clusters);
        if (kc_cuda_error_is_sticky(r))     /* an earlier launch's fault (launch_together) */
            return kc_case_cuda_failed(gpu, k, r, "cuOccupancyMaxActiveClusters", "before the launch");
        if (r != CUDA_SUCCESS || clusters <= 0) {
            char why[160] = "";
            if (size > 8 && !l->nonportable_cluster)
                snprintf(why, sizeof why, ", and above 8 blocks a cluster needs nonportable_cluster");
            else if (size > 16)
                snprintf(why, sizeof why, ", and 16 blocks is the most a cluster has on sm_90");
            else if (gpu->dev.cc_major < 9)
                snprintf(why, sizeof why, ", and clusters need compute capability 9.0: the device is %d.%d",
                         gpu->dev.cc_major, gpu->dev.cc_minor);
            if (r != CUDA_SUCCESS)
                return kc_case_fail(k, gate, "launch %s: a cluster of %llu blocks does not fit: cuOccupancyMaxActiveClusters failed: %s%s",
                                    desc, size, kc_cuda_error_name(&gpu->cu, r), why);
            return kc_case_fail(k, gate, "launch %s: a cluster of %llu blocks (%u threads, %u bytes dynamic shared memory each) does not fit: 0 active clusters (cuOccupancyMaxActiveClusters)%s",
                                desc, size, threads, l->smem, why);
        }
    }
    if (l->cooperative) {
        int per_sm = 0;
        CUresult r = gpu->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)threads, l->smem);
        if (kc_cuda_error_is_sticky(r))
            return kc_case_cuda_failed(gpu, k, r, "cuOccupancyMaxActiveBlocksPerMultiprocessor", "before the launch");
        if (r != CUDA_SUCCESS)
            return kc_case_fail(k, gate, "launch %s: cuOccupancyMaxActiveBlocksPerMultiprocessor failed: %s",
                                desc, kc_cuda_error_name(&gpu->cu, r));
        const unsigned long long fit = (unsigned long long)per_sm * (unsigned long long)gpu->dev.sm_count;
        if (blocks > fit)
            return kc_case_fail(k, gate, "launch %s: %llu blocks cannot all be resident at once: %d blocks/SM x %d SMs = %llu (the driver refuses it: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)",
                                desc, blocks, per_sm, gpu->dev.sm_count, fit);
        if (clustered && blocks / size > (unsigned long long)clusters)
            return kc_case_fail(k, gate, "launch %s: %llu clusters of %llu blocks cannot all be resident at once: %d active clusters (cuOccupancyMaxActiveClusters)",
                                desc, blocks / size, size, clusters);
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
    int g = check_cluster_and_cooperative(gpu, f, k, gate, &l, threads), checked;
    if (g) return g;
    kc_params p;
    if ((g = kc_make_params(gpu, k, set, gate, &p)) || (g = kc_check_param_sizes(gpu, f, k, &p, gate, &checked)))
        return g;
    if (!k->exact) kc_dev_poison_smem(gpu);
    CUresult r = kc_launch_kernel(&gpu->cu, f, &l, stream, p.params, 0);
    if (r == CUDA_SUCCESS && sync) r = gpu->cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
        const char *lost = kc_case_lost_if_sticky(gpu, k, r);
        char desc[160];
        kc_launch_describe(&l, desc, sizeof desc);
        return kc_case_fail(k, gate, "launch %s failed: %s%s", desc, kc_cuda_error_name(&gpu->cu, r), lost);
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
