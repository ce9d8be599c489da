/* launch.c — the launch path of an item's kernels: their functions loaded
 * (the module from the embedded fatbin and each step's symbol in it, or a
 * library's entry), and the bound of their own hang watchdog raised where
 * the module has one (kcontract_watchdog.cuh); the one launch of a kernel,
 * through cuLaunchKernelEx where it has a cluster, is cooperative or
 * serializes programmatically;
 * and gate 1 for one launch of a case: every step's geometry checked
 * against its function and the device (clusters and cooperative grids
 * included), the steps launched in order on one stream, each with its own
 * parameters, and one synchronize after the last. */
#include "launch.h"

#include <stdio.h>
#include <string.h>

#include "fatbin.h"
#include "harness.h"
#include "hostlib.h"
#include "module_cache.h"
#include "params.h"
#include "runtime_errors.h"
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
    return kc_cuda_func_set(cu, f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
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
    if (!k->exact) kc_dev_poison_smem(gpu, gate == 4 ? KC_SMEM_POISON_RELAUNCH : KC_SMEM_POISON);
    CUresult r = (CUresult)k->entry(p.params, k->s, &gpu->dev);
    int returned = r != CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) r = gpu->cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
        const char *lost = kc_case_lost_if_sticky(gpu, k, r), *name = kc_cuda_error_name(&gpu->cu, r);
        /* a library built on the CUDA runtime may return a cudaError_t with no CUresult twin */
        const char *rt = returned && !kc_cuda_error_named(&gpu->cu, r) ? kc_cuda_runtime_error_name((int)r) : NULL;
        if (rt)
            return kc_case_fail(k, gate, "library call %s (lib%s.so) returned %s (error %d, a cudaError_t of the CUDA runtime)%s",
                                k->c->entry, k->c->library, rt, (int)r, lost);
        return kc_case_fail(k, gate, "library call %s (lib%s.so) %s: %s%s", k->c->entry, k->c->library,
                            returned ? "returned" : "then synchronize failed", name, lost);
    }
    return 0;
}

/* Gate 1's checks of a launch with a cluster or a cooperative grid (l, of
 * `threads` threads a block), before it is made: each grid dim a multiple
 * of the cluster's, one cluster that fits, every block of a cooperative grid
 * resident at once. 0, or the gate with the failure naming the launch (after
 * `who`, the step of a sequence) and the numbers. */
static int check_cluster_and_cooperative(kc_gpu *gpu, CUfunction f, kc_case *k, int gate, const kc_launch *l,
                                         unsigned threads, const char *who)
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
                return kc_case_fail(k, gate, "%slaunch %s: grid %c %u is no multiple of cluster %c %u (the driver refuses it: CUDA_ERROR_INVALID_CLUSTER_SIZE)",
                                    who, desc, dim[d], l->grid[d], dim[d], cl[d]);
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
                return kc_case_fail(k, gate, "%slaunch %s: a cluster of %llu blocks does not fit: cuOccupancyMaxActiveClusters failed: %s%s",
                                    who, desc, size, kc_cuda_error_name(&gpu->cu, r), why);
            return kc_case_fail(k, gate, "%slaunch %s: a cluster of %llu blocks (%u threads, %u bytes dynamic shared memory each) does not fit: 0 active clusters (cuOccupancyMaxActiveClusters)%s",
                                who, desc, size, threads, l->smem, why);
        }
    }
    if (l->cooperative) {
        int per_sm = 0;
        CUresult r = gpu->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)threads, l->smem);
        if (kc_cuda_error_is_sticky(r))
            return kc_case_cuda_failed(gpu, k, r, "cuOccupancyMaxActiveBlocksPerMultiprocessor", "before the launch");
        if (r != CUDA_SUCCESS)
            return kc_case_fail(k, gate, "%slaunch %s: cuOccupancyMaxActiveBlocksPerMultiprocessor failed: %s",
                                who, desc, kc_cuda_error_name(&gpu->cu, r));
        const unsigned long long fit = (unsigned long long)per_sm * (unsigned long long)gpu->dev.sm_count;
        if (blocks > fit)
            return kc_case_fail(k, gate, "%slaunch %s: %llu blocks cannot all be resident at once: %d blocks/SM x %d SMs = %llu (the driver refuses it: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)",
                                who, desc, blocks, per_sm, gpu->dev.sm_count, fit);
        if (clustered && blocks / size > (unsigned long long)clusters)
            return kc_case_fail(k, gate, "%slaunch %s: %llu clusters of %llu blocks cannot all be resident at once: %d active clusters (cuOccupancyMaxActiveClusters)",
                                who, desc, blocks / size, size, clusters);
    }
    return 0;
}

/* Gate 1's checks of one step's launch l of function f (who: the step of a
 * sequence, "" for one kernel), before any step is launched: the geometry
 * against the function and the device, the function's dynamic shared memory
 * limit raised where the launch needs it. 0, or the gate (failure in k->why). */
static int check_launch(kc_gpu *gpu, CUfunction f, kc_case *k, int gate, const kc_launch *l, const char *who)
{
    unsigned threads = l->block[0] * l->block[1] * l->block[2];
    int maxthreads = 0, statics = 0;
    CUresult ar = gpu->cu.FuncGetAttribute(&maxthreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    if (ar == CUDA_SUCCESS) ar = gpu->cu.FuncGetAttribute(&statics, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    if (ar != CUDA_SUCCESS)     /* a sticky error: an earlier launch's fault (launch_together) */
        return kc_case_cuda_failed(gpu, k, ar, "cuFuncGetAttribute", "before the launch");
    if (!l->grid[0] || !l->grid[1] || !l->grid[2] || !threads)
        return kc_case_fail(k, gate, "%sempty launch: grid %ux%ux%u, block %ux%ux%u", who, l->grid[0], l->grid[1],
                            l->grid[2], l->block[0], l->block[1], l->block[2]);
    if ((int)threads > maxthreads)
        return kc_case_fail(k, gate, "%sblock of %u threads > %d the function allows (registers or __launch_bounds__)",
                            who, threads, maxthreads);
    if ((size_t)statics + l->smem > gpu->dev.smem_per_block_optin)
        return kc_case_fail(k, gate, "%sshared memory %d static + %u dynamic bytes > %zu the device allows per block",
                            who, statics, l->smem, gpu->dev.smem_per_block_optin);
    if ((size_t)statics + l->smem > gpu->dev.smem_per_block) {
        CUresult r = kc_cuda_func_set(&gpu->cu, f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->smem);
        if (kc_cuda_error_is_sticky(r))     /* an earlier launch's fault (launch_together) */
            return kc_case_cuda_failed(gpu, k, r, "cuFuncSetAttribute", "before the launch");
        if (r != CUDA_SUCCESS)
            return kc_case_fail(k, gate, "%scuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %u): %s", who, l->smem,
                                kc_cuda_error_name(&gpu->cu, r));
    }
    return check_cluster_and_cooperative(gpu, f, k, gate, l, threads, who);
}

void kc_step_launch(const kc_kernels *K, int i, const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    *l = (kc_launch){ { 1, 1, 1 }, { 1, 1, 1 }, 0 };
    l->block_size = K->block_size;
    K->step[i].launch(s, dev, l);
    if (K->harness_control == KC_HARNESS_BLOCK_SHORT) {    /* planted: the grid one block short */
        unsigned *d = l->grid[0] > 1 ? &l->grid[0] : l->grid[1] > 1 ? &l->grid[1] : &l->grid[2];
        if (*d > 1) (*d)--;
    }
}

/* Gate 1 for one launch: checks every step's geometry against its function
 * and the device, launches the steps in order on `stream` and, with sync,
 * synchronizes the context. Returns 0 or the gate (failure in k->why). */
int kc_case_launch_on(kc_gpu *gpu, const kc_kernels *K, kc_case *k, int set, int gate, CUstream stream, int sync)
{
    if (k->entry) return host_launch(gpu, k, set, gate);
    kc_launch l[KC_MAX_STEPS];
    char who[KC_MAX_STEPS][160], desc[160];
    for (int i = 0; i < K->n; i++) {
        kc_step_launch(K, i, k->s, &gpu->dev, &l[i]);
        kc_step_label(&K->step[i], i, K->n, who[i], sizeof who[i]);
        unsigned threads = l[i].block[0] * l[i].block[1] * l[i].block[2];
        if (K->block_size && threads != K->block_size)
            return kc_case_fail(k, gate, "%sthe launch function made a block of %ux%ux%u = %u threads for the "
                                "block-size variant %u (kc_launch.block_size): it must size the block with it", who[i],
                                l[i].block[0], l[i].block[1], l[i].block[2], threads, K->block_size);
        int g = check_launch(gpu, K->fn[i], k, gate, &l[i], who[i]);
        if (g) return g;
    }
    kc_params p;
    void *sp[KC_MAX_STEPS][KC_MAX_ARGS];    /* each step's parameters: the contract's arguments it names, in its order */
    int si[KC_MAX_STEPS][KC_MAX_ARGS], sn[KC_MAX_STEPS], g = kc_make_params(gpu, k, set, gate, &p);
    if (g) return g;
    for (int i = 0; i < K->n; i++) {
        sn[i] = kc_params_pick(&p, k->c, K->step[i].arg, K->step[i].nargs, sp[i], si[i]);
        if ((g = kc_check_param_sizes(gpu, K->fn[i], k, &p, si[i], sn[i], gate, who[i]))) return g;
    }
    if (!k->exact) kc_dev_poison_smem(gpu, gate == 4 ? KC_SMEM_POISON_RELAUNCH : KC_SMEM_POISON);
    CUresult r = CUDA_SUCCESS;
    int i = 0;
    for (; i < K->n && r == CUDA_SUCCESS; i++)
        r = kc_launch_kernel(&gpu->cu, K->fn[i], &l[i], stream, sp[i], K->step[i].programmatic ? KC_LAUNCH_PROGRAMMATIC : 0);
    const int launch_failed = r != CUDA_SUCCESS;
    if (r == CUDA_SUCCESS && sync) r = kc_cuda_sync(&gpu->cu, stream);   /* the context's, or this thread's stream (cuda_driver.h) */
    if (r == CUDA_SUCCESS) return 0;
    const char *lost = kc_case_lost_if_sticky(gpu, k, r);
    if (launch_failed || K->n == 1) {     /* the launch of step i - 1 was refused, or the one kernel's failed */
        kc_launch_describe(&l[i - 1], desc, sizeof desc);
        return kc_case_fail(k, gate, "%slaunch %s failed: %s%s", who[i - 1], desc, kc_cuda_error_name(&gpu->cu, r), lost);
    }
    char seq[400];
    kc_strbuf b;
    kc_sb_init(&b, seq, sizeof seq);
    for (int j = 0; j < K->n; j++) kc_sb_printf(&b, "%s%s", j ? " then " : "", K->step[j].symbol);
    return kc_case_fail(k, gate, "synchronize after the %d steps' launches (%s) failed: %s%s", K->n, seq,
                        kc_cuda_error_name(&gpu->cu, r), lost);
}

/* kc_case_launch_on the default stream, synchronized: every gate's launch. */
int kc_case_launch(kc_gpu *gpu, const kc_kernels *K, kc_case *k, int set, int gate)
{
    return kc_case_launch_on(gpu, K, k, set, gate, NULL, 1);
}

/* r met loading a module or using it: a sticky error (an earlier launch's
 * fault, seen first here) marks the context lost, and the failure line says
 * so; else "". */
static const char *lost_note(kc_gpu *gpu, CUresult r)
{
    return kc_gpu_lost_if_sticky(gpu, r) ? " (the CUDA context is now unusable)" : "";
}

int kc_load_kernels(kc_gpu *gpu, const kc_contract *c, const char *control, kc_kernels *K, char *why, size_t cap)
{
    memset(K, 0, sizeof *K);
    K->block_size = c->block_sizes[0];
    if (c->library) {
        char e[900];
        if (!kc_hostlib_load(c->library, control, c->entry, &K->entry, &K->release, e, sizeof e)) return 0;
        snprintf(why, cap, "gate 1 (launch and fit): %s", e);
        return 1;
    }
    char err[1024];
    K->n = kc_contract_steps(c, K->step, err, sizeof err);
    if (K->n <= 0) {    /* the registry refuses such a contract: a caller that made one itself */
        snprintf(why, cap, "internal error: contract %s has no kernel to launch: %s", c->name, K->n ? err : "no steps");
        K->n = 0;
        return 1;
    }
    const kc_fatbin *fb = kc_fatbin_find(c->module, control);
    if (!fb) {
        snprintf(why, cap, "gate 1 (launch and fit): module %s%s%s is not embedded in this binary", c->module,
                 control ? "@" : "", control ? control : "");
        return 1;
    }
    CUresult r = kc_module_take(gpu, fb, &K->mod);      /* a kept copy in a lane (module_cache.h) */
    if (r != CUDA_SUCCESS) {
        K->mod = NULL;
        snprintf(why, cap, "gate 1 (launch and fit): loading module %s%s%s failed: %s (fatbin for sm_90 + compute_90 PTX; device is cc %d.%d)%s",
                 c->module, control ? "@" : "", control ? control : "", kc_cuda_error_name(&gpu->cu, r),
                 gpu->dev.cc_major, gpu->dev.cc_minor, lost_note(gpu, r));
        return 1;
    }
    for (int i = 0; i < K->n; i++) {
        r = kc_module_function(gpu, K->mod, K->step[i].symbol, &K->fn[i]);
        if (r == CUDA_SUCCESS) continue;
        char step[64] = "";
        if (K->n > 1) snprintf(step, sizeof step, " (step %d of %d)", i + 1, K->n);
        snprintf(why, cap, "gate 1 (launch and fit): function %s%s %s module %s: %s%s", K->step[i].symbol, step,
                 r == CUDA_ERROR_NOT_FOUND ? "not found in" : "not looked up in", c->module,
                 kc_cuda_error_name(&gpu->cu, r), lost_note(gpu, r));
        kc_unload_kernels(gpu, K);
        return 1;
    }
    return 0;
}

int kc_kernels_set_watchdog(kc_gpu *gpu, const kc_kernels *K, const kc_contract *c, const char *control,
                            unsigned long long ns, unsigned long long *was, char *why, size_t cap)
{
    if (!K->mod) return 0;
    CUdeviceptr p = 0;
    size_t bytes = 0;
    CUresult r = gpu->cu.ModuleGetGlobal(&p, &bytes, K->mod, KC_WATCHDOG_SYMBOL);
    if (r == CUDA_ERROR_NOT_FOUND) return 0;
    const char *at = control ? "@" : "", *ctl = control ? control : "";
    if (r == CUDA_SUCCESS && bytes != sizeof ns) {
        snprintf(why, cap, "module %s%s%s's " KC_WATCHDOG_SYMBOL " is %zu bytes, expected %zu (unsigned long long "
                 "nanoseconds, as kcontract_watchdog.cuh declares it)", c->module, at, ctl, bytes, sizeof ns);
        return -1;
    }
    if (r == CUDA_SUCCESS && kc_module_kept(K->mod)) {
        snprintf(why, cap, "internal error: module %s%s%s is a copy kept across items: its " KC_WATCHDOG_SYMBOL
                 " would keep the value after this one", c->module, at, ctl);
        return -1;
    }
    if (r == CUDA_SUCCESS) r = gpu->cu.MemcpyDtoH(was, p, sizeof *was);
    if (r == CUDA_SUCCESS && *was >= ns) return 0;
    if (r == CUDA_SUCCESS) r = gpu->cu.MemcpyHtoD(p, &ns, sizeof ns);
    if (r == CUDA_SUCCESS) return 1;
    snprintf(why, cap, "setting module %s%s%s's " KC_WATCHDOG_SYMBOL " failed: %s%s", c->module, at, ctl,
             kc_cuda_error_name(&gpu->cu, r), lost_note(gpu, r));
    return -1;
}

int kc_release_library(kc_gpu *gpu, const kc_contract *c, const char *control, const kc_kernels *K, char *why,
                       size_t cap)
{
    if (!K->entry || !K->release || gpu->lost) return 0;
    int r = K->release();
    if (r == 0) return 0;
    char name[600];
    kc_hostlib_name(c->library, control, name, sizeof name);
    snprintf(why, cap, "%s's " KC_HOST_RELEASE " failed: %s%s", name, kc_cuda_error_name(&gpu->cu, (CUresult)r),
             lost_note(gpu, (CUresult)r));
    return -1;
}

void kc_unload_kernels(kc_gpu *gpu, kc_kernels *K)
{
    kc_module_give(gpu, K->mod);       /* unloaded, or a kept copy free again */
    K->mod = NULL;
}
