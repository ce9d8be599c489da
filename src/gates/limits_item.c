/* limits_item.c — a kernel's :limits item: its resources (registers, shared
 * and local memory) against its budget and the device, its occupancy at
 * the largest shape, and every shape's launch geometry against the
 * device's limits, and on sm_90 the register counts its warpgroups ask for
 * with setmaxnreg against the block's pool; for a sequence of kernels
 * (kc_step), each step's, named by its symbol. No case runs. */
#include "limits_item.h"

#include <stdarg.h>
#include <stdio.h>

#include "fatbin.h"
#include "gpu_state.h"
#include "launch.h"
#include "machine_code.h"
#include "module_cache.h"
#include "strbuf.h"

/* The shape with the largest device footprint: the one whose occupancy the
 * limits item reports; with `clustered`, among the shapes whose launch has a
 * cluster (NULL when none has), the one whose cluster figures it reports. */
static const kc_shape *largest_shape(const kc_contract *c, const kc_kernels *K, int step, const kc_device *dev,
                                     int clustered)
{
    const kc_shape *best = clustered ? NULL : c->shapes;
    size_t bestb = 0;
    for (const kc_shape *s = c->shapes; s->name; s++) {
        kc_launch l;
        unsigned cl[3];
        if (clustered && (kc_step_launch(K, step, s, dev, &l), !kc_launch_cluster(&l, cl))) continue;
        size_t h, g;
        kc_case_memory(c, s, KC_REF_DEVICE, &h, &g);
        if (g > bestb || !best) {
            bestb = g;
            best = s;
        }
    }
    return best;
}

/* The problems a limits item found: "; "-separated text and their count;
 * each starts with `who` (the step of a sequence, "" for one kernel). */
typedef struct kc_problems {
    char text[1800];
    int n;
    char who[160];
} kc_problems;

static void problem(kc_problems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(kc_problems *p, const char *fmt, ...)
{
    char one[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(one, sizeof one, fmt, ap);
    va_end(ap);
    kc_strcatf(p->text, sizeof p->text, "%s%s%s", p->n++ ? "; " : "", p->who, one);
}

/* A driver call of the limits item: 1 when r is CUDA_SUCCESS; else 0 with
 * the call, its error and what it leaves unmeasured as a problem (the item
 * cannot pass on figures it did not get), and the session lost when the
 * error is sticky. */
static int measured(kc_gpu *gpu, kc_problems *p, CUresult r, const char *call, const char *unmeasured)
{
    if (r == CUDA_SUCCESS) return 1;
    int sticky = kc_gpu_lost_if_sticky(gpu, r);
    problem(p, "%s failed: %s%s (%s not measured)", call, kc_cuda_error_name(&gpu->cu, r),
            sticky ? ", the CUDA context is now unusable" : "", unmeasured);
    return 0;
}

/* Raises fn's dynamic shared memory limit to l's where the device's default
 * is too small (statics: its static bytes), as a launch must: 1, or 0 with
 * the failure a problem (`what` left unmeasured). */
static int smem_allowed(kc_gpu *gpu, kc_problems *pr, CUfunction fn, int statics, const kc_launch *l, const char *what)
{
    if ((size_t)statics + l->smem <= gpu->dev.smem_per_block) return 1;
    char call[96];
    snprintf(call, sizeof call, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %u)", l->smem);
    return measured(gpu, pr, gpu->cu.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->smem),
                    call, what);
}

/* Resident blocks per SM of l into *blocks: 1, or 0 with the failure a problem. */
static int blocks_per_sm(kc_gpu *gpu, kc_problems *pr, CUfunction fn, int statics, const kc_launch *l, int *blocks,
                         const char *what)
{
    const unsigned threads = l->block[0] * l->block[1] * l->block[2];
    return smem_allowed(gpu, pr, fn, statics, l, what) &&
           measured(gpu, pr, gpu->cu.OccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn, (int)threads, l->smem),
                    "cuOccupancyMaxActiveBlocksPerMultiprocessor", what);
}

/* Active clusters per GPU of l, which has a cluster, into *clusters: 1, or 0
 * with the failure a problem. */
static int clusters_per_gpu(kc_gpu *gpu, kc_problems *pr, CUfunction fn, int statics, const kc_launch *l, int *clusters,
                            const char *what)
{
    return smem_allowed(gpu, pr, fn, statics, l, what) &&
           measured(gpu, pr, kc_launch_max_clusters(&gpu->cu, fn, l, clusters), "cuOccupancyMaxActiveClusters", what);
}

/* Shape s's cluster and cooperative geometry against the device: each grid
 * dim a multiple of the cluster's, one cluster that fits, a cooperative
 * grid resident at once. Problems into pr. */
static void check_cluster_shape(kc_gpu *gpu, kc_problems *pr, CUfunction fn, int statics, const kc_shape *s,
                                const kc_launch *l)
{
    unsigned cl[3];
    const int clustered = kc_launch_cluster(l, cl);
    const unsigned long long blocks = (unsigned long long)l->grid[0] * l->grid[1] * l->grid[2];
    const unsigned long long size = (unsigned long long)cl[0] * cl[1] * cl[2];
    char desc[160], what[220];
    kc_launch_describe(l, desc, sizeof desc);
    snprintf(what, sizeof what, "shape %s's launch %s", s->name, desc);
    if (clustered) {
        if (l->grid[0] % cl[0] || l->grid[1] % cl[1] || l->grid[2] % cl[2]) {
            problem(pr, "shape %s: grid %ux%ux%u is no multiple of cluster %ux%ux%u", s->name, l->grid[0], l->grid[1],
                    l->grid[2], cl[0], cl[1], cl[2]);
            return;
        }
        int clusters = 0;
        if (gpu->lost || !clusters_per_gpu(gpu, pr, fn, statics, l, &clusters, what)) return;
        if (clusters <= 0) {
            problem(pr, "shape %s: a cluster of %llu blocks does not fit (launch %s: 0 active clusters%s)", s->name, size,
                    desc, size > 8 && !l->nonportable_cluster ? ", and above 8 blocks a cluster needs nonportable_cluster" : "");
            return;
        }
        if (l->cooperative && blocks / size > (unsigned long long)clusters)
            problem(pr, "shape %s: cooperative grid of %llu clusters > %d active clusters", s->name, blocks / size,
                    clusters);
    }
    int per_sm = 0;
    if (l->cooperative && !gpu->lost && blocks_per_sm(gpu, pr, fn, statics, l, &per_sm, what) &&
        blocks > (unsigned long long)per_sm * (unsigned long long)gpu->dev.sm_count)
        problem(pr, "shape %s: cooperative grid of %llu blocks > %d blocks/SM x %d SMs resident at once", s->name, blocks,
                per_sm, gpu->dev.sm_count);
}

/* Registers with setmaxnreg in mind: the driver's count (regs) is what each
 * thread starts with, and what the block's pool of regs x threads holds; the
 * warpgroups of a kernel built for sm_90a may hand registers back and take
 * more (setmaxnreg). Reads the counts they ask for from the step's sm_90
 * code in its embedded image (machine_code.h) into fig (" (setmaxnreg:
 * down to 24, up to 240 a thread; 2 of 3 warpgroups can hold 240 at once in
 * the pool of 168 x 384)") and, when not even one warpgroup can hold the
 * largest ask, a problem: that setmaxnreg.inc waits for ever. Where there is
 * no sm_90 code (another device; an image of PTX alone, which the driver
 * compiles; the fake driver's images) there is nothing to read and the
 * figures say nothing of setmaxnreg; a fatbin whose sm_90 code cannot be
 * read is a problem naming why. */
static void setmaxnreg_of_step(kc_gpu *gpu, const kc_contract *c, const kc_kernels *K, int step, int regs,
                               unsigned threads, kc_problems *pr, char *fig, size_t figcap)
{
    const int sm = gpu->dev.cc_major * 10 + gpu->dev.cc_minor;
    const kc_fatbin *fb = c->module ? kc_fatbin_find(c->module, NULL) : NULL;
    if (sm != 90 || !fb) return;
    const unsigned char *elf, *code;
    size_t elf_n, code_n;
    char why[300];
    kc_setmaxnreg s;
    const int found = kc_fatbin_elf(fb->start, (size_t)(fb->end - fb->start), sm, &elf, &elf_n, why, sizeof why);
    if (found == 1) return;
    if (found < 0 || kc_elf_function_code(elf, elf_n, K->step[step].symbol, &code, &code_n, why, sizeof why) ||
        kc_sm90_setmaxnreg(code, code_n, &s, why, sizeof why)) {
        problem(pr, "setmaxnreg: the sm_90 code of %s in module %s could not be read: %s", K->step[step].symbol,
                c->module, why);
        return;
    }
    if (!s.n) return;
    char range[80] = "";
    if (s.dealloc_min) kc_strcatf(range, sizeof range, "down to %d", s.dealloc_min);
    if (s.alloc_max) kc_strcatf(range, sizeof range, "%sup to %d", s.dealloc_min ? ", " : "", s.alloc_max);
    const int holders = kc_setmaxnreg_holders(&s, regs, threads);
    snprintf(fig, figcap, " (setmaxnreg: %s a thread", range);
    if (holders >= 0)
        kc_strcatf(fig, figcap, "; %d of %u warpgroups can hold %d at once in the pool of %d x %u", holders,
                   threads / 128, s.alloc_max, regs, threads);
    kc_strcatf(fig, figcap, ")");
    if (holders == 0)
        problem(pr,
                "setmaxnreg.inc to %d registers a thread is never granted: the block's pool of %d x %u threads "
                "cannot hold one warpgroup at %d while the other %u hold %d (%s), so it waits for ever",
                s.alloc_max, regs, threads, s.alloc_max, threads / 128 - 1,
                s.dealloc_min && s.dealloc_min < regs ? s.dealloc_min : regs,
                s.dealloc_min ? "the least they release to" : "what they start with");
}

/* One step's limit checks (kc_run_limits): problems into pr, its figures
 * ("16 registers, 0+0 B shared, 0 B local, 8 blocks/SM at shape S" and the
 * cluster's) into fig. */
static void limits_of_step(kc_gpu *gpu, const kc_contract *c, const kc_kernels *K, int step, kc_problems *pr,
                           char *fig, size_t figcap)
{
    const kc_budget *b = &c->budget;
    CUfunction fn = K->fn[step];
    int regs = 0, statics = 0, local = 0, maxthreads = 0;
    const int got_regs = measured(gpu, pr, gpu->cu.FuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn),
                                  "cuFuncGetAttribute(NUM_REGS)", "registers");
    const int got_statics =
        !gpu->lost && measured(gpu, pr, gpu->cu.FuncGetAttribute(&statics, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn),
                               "cuFuncGetAttribute(SHARED_SIZE_BYTES)", "static shared memory");
    const int got_local =
        !gpu->lost && measured(gpu, pr, gpu->cu.FuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn),
                               "cuFuncGetAttribute(LOCAL_SIZE_BYTES)", "local memory");
    const int got_threads =
        !gpu->lost && measured(gpu, pr, gpu->cu.FuncGetAttribute(&maxthreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn),
                               "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)", "threads per block");
    if (got_regs && b->max_regs && regs > b->max_regs) problem(pr, "registers %d per thread > budget %d", regs, b->max_regs);
    if (got_local && local > b->max_local)
        problem(pr, "local memory %d bytes per thread > budget %d (spills or stack arrays)", local, b->max_local);
    unsigned maxsmem = 0;
    for (const kc_shape *s = c->shapes; s->name; s++) {
        kc_launch l;
        kc_step_launch(K, step, s, &gpu->dev, &l);
        unsigned threads = l.block[0] * l.block[1] * l.block[2];
        if (l.smem > maxsmem) maxsmem = l.smem;
        if (got_threads && (int)threads > maxthreads)
            problem(pr, "shape %s: block of %u threads > %d allowed", s->name, threads, maxthreads);
        if (l.grid[1] > 65535 || l.grid[2] > 65535)
            problem(pr, "shape %s: grid %ux%ux%u exceeds 65535 in y or z", s->name, l.grid[0], l.grid[1], l.grid[2]);
        const int smem_fits = (size_t)statics + l.smem <= gpu->dev.smem_per_block_optin;
        if (got_statics && !smem_fits)
            problem(pr, "shape %s: shared memory %u bytes > device limit %zu", s->name, statics + l.smem,
                    gpu->dev.smem_per_block_optin);
        unsigned cl[3];
        const int clustered = kc_launch_cluster(&l, cl);
        if ((clustered || l.cooperative) && got_statics && got_threads && smem_fits && threads &&
            (int)threads <= maxthreads)
            check_cluster_shape(gpu, pr, fn, statics, s, &l);
    }
    if (got_statics && b->max_smem && statics + (int)maxsmem > b->max_smem)
        problem(pr, "shared memory %d static + %u dynamic bytes > budget %d", statics, maxsmem, b->max_smem);
    const kc_shape *big = largest_shape(c, K, step, &gpu->dev, 0);
    kc_launch l;
    kc_step_launch(K, step, big, &gpu->dev, &l);
    int blocks = 0, want = b->min_blocks_per_sm > 0 ? b->min_blocks_per_sm : 1;
    const unsigned threads = l.block[0] * l.block[1] * l.block[2];
    const int got_blocks = got_statics && !gpu->lost && blocks_per_sm(gpu, pr, fn, statics, &l, &blocks, "occupancy");
    if (got_blocks && blocks < want)
        problem(pr, "occupancy %d resident block%s per SM (block %u threads, %u bytes dynamic shared memory) < budget %d",
                blocks, blocks == 1 ? "" : "s", threads, l.smem, want);
    /* Clusters: how many of the largest clustered shape's are active at once
     * on the device, and the shared memory one holds. */
    char cluster_figures[300] = "";
    const kc_shape *bigc = got_statics ? largest_shape(c, K, step, &gpu->dev, 1) : NULL;
    if (bigc && !gpu->lost) {
        kc_launch lc;
        kc_step_launch(K, step, bigc, &gpu->dev, &lc);
        unsigned cl[3];
        kc_launch_cluster(&lc, cl);
        int clusters = 0;
        if (clusters_per_gpu(gpu, pr, fn, statics, &lc, &clusters, "active clusters"))
            snprintf(cluster_figures, sizeof cluster_figures,
                     "; cluster %ux%ux%u%s at shape %s: %d active clusters/GPU, %llu B shared/cluster", cl[0], cl[1],
                     cl[2], lc.nonportable_cluster ? " non-portable" : "", bigc->name, clusters,
                     ((unsigned long long)statics + lc.smem) * cl[0] * cl[1] * cl[2]);
    }
    char setmaxnreg_figures[200] = "";
    if (got_regs) setmaxnreg_of_step(gpu, c, K, step, regs, threads, pr, setmaxnreg_figures, sizeof setmaxnreg_figures);
    snprintf(fig, figcap, "%d registers%s, %d+%u B shared, %d B local, %d blocks/SM at shape %s%s", regs,
             setmaxnreg_figures, statics, maxsmem, local, blocks, big->name, cluster_figures);
}

/* The contract's device reference (gate 3's float64 kernel): its local
 * memory a thread, and what the driver reserves for it in the context (the
 * local memory of every thread the GPU holds at once, kept for the
 * context's life). Above KC_GPU_LEAK_MIB that reservation reads as memory
 * the item left allocated (gpu_state.h), and every item of the contract
 * replaces its worker: a problem. Measured: a reference taking kc_dref by
 * reference from an ordinary kernel parameter copies it to 1360 bytes of
 * stack a thread, 150 MiB more on an H200 (kcontract_dref_common.cuh). */
static void limits_of_device_reference(kc_gpu *gpu, const kc_contract *c, kc_problems *pr, char *fig, size_t figcap)
{
    const kc_device_ref *d = &c->device_reference;
    const kc_fatbin *fb = d->module ? kc_fatbin_find(d->module, NULL) : NULL;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    int local = 0, per_sm = 0;
    if (!fb) {
        problem(pr, "device reference %s: module %s is not embedded in this binary", d->symbol, d->module ? d->module : "(none)");
        return;
    }
    if (!measured(gpu, pr, kc_module_take(gpu, fb, &mod), "cuModuleLoadData (device reference)", "its local memory"))
        return;
    if (measured(gpu, pr, kc_module_function(gpu, mod, d->symbol, &fn), "cuModuleGetFunction (device reference)",
                 "its local memory") &&
        measured(gpu, pr, gpu->cu.FuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn),
                 "cuFuncGetAttribute(LOCAL_SIZE_BYTES) (device reference)", "its local memory") &&
        measured(gpu, pr, gpu->cu.DeviceGetAttribute(&per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                                                     gpu->cudev),
                 "cuDeviceGetAttribute(MAX_THREADS_PER_MULTIPROCESSOR)", "the device reference's reservation")) {
        const double mib = (double)local * per_sm * gpu->dev.sm_count / (1024.0 * 1024.0);
        if (local)      /* the usual 0 adds nothing to the line */
            snprintf(fig, figcap, "device reference %s: %d B local (%.0f MiB reserved in the context)", d->symbol, local,
                     mib);
        if (mib > KC_GPU_LEAK_MIB)
            problem(pr, "device reference %s: %d bytes of local memory a thread make the driver reserve %.0f MiB "
                    "(%d threads x %d SMs), more than the %d MiB an item may leave allocated: every item of %s "
                    "would replace its worker (a kc_dref taken by reference from a kernel parameter that is not "
                    "const __grid_constant__ copies it to the stack)", d->symbol, local, mib, per_sm,
                    gpu->dev.sm_count, KC_GPU_LEAK_MIB, c->name);
    }
    kc_module_give(gpu, mod);
}

/* Limit checks: resources against the budget and the device, occupancy at the
 * largest shape, and every shape's launch geometry against the device's limits
 * (the envelope), for each step of a sequence (its problems and figures named
 * by the step's symbol). No case runs here: the kernel item runs every shape
 * through gates 1-4, and running its largest case again cost a quarter of a
 * full run (H200, 2026-11-30) for no new check. Every driver call is checked:
 * one that fails is a problem naming it, and the checks that need its figure
 * are not made. */
void kc_run_limits(kc_gpu *gpu, const kc_item *it, kc_item_result *res)
{
    const kc_contract *c = it->contract;
    kc_kernels K;
    char why[1024];
    if (kc_load_kernels(gpu, c, NULL, &K, why, sizeof why)) {
        res->state = KC_LIMIT;
        res->limit_problems = 1;
        snprintf(res->msg, sizeof res->msg, "1 problem: %s", why);
        if (gpu->lost) res->context_lost = KC_LOST_CONTEXT;    /* an earlier fault, seen first at the load */
        return;
    }
    if (K.entry) {   /* the registry makes no :limits item for a library kernel */
        res->state = KC_LIMIT;
        res->limit_problems = 1;
        snprintf(res->msg, sizeof res->msg, "1 problem: %s is a library kernel (lib%s.so): no function to measure",
                 c->name, c->library);
        return;
    }
    kc_problems pr = { "", 0, "" };
    char figures[1200] = "";
    for (int i = 0; i < K.n && !gpu->lost; i++) {
        char fig[600];
        if (K.n > 1) snprintf(pr.who, sizeof pr.who, "step %s: ", K.step[i].symbol);
        limits_of_step(gpu, c, &K, i, &pr, fig, sizeof fig);
        kc_strcatf(figures, sizeof figures, "%s%s%s", i ? "; " : "", pr.who, fig);
    }
    pr.who[0] = 0;
    if (c->device_reference.symbol && !gpu->lost) {
        char fig[400] = "";
        limits_of_device_reference(gpu, c, &pr, fig, sizeof fig);
        if (fig[0]) kc_strcatf(figures, sizeof figures, "; %s", fig);
    }
    if (kc_module_kept(K.mod)) kc_module_give(gpu, K.mod);     /* a lane's kept copy (module_cache.h) stays loaded */
    else if (!gpu->lost) measured(gpu, &pr, gpu->cu.ModuleUnload(K.mod), "cuModuleUnload", "nothing else");
    K.mod = NULL;
    int nshapes = 0;
    for (const kc_shape *s = c->shapes; s->name; s++) nshapes++;
    res->limit_problems = pr.n;
    if (pr.n) {
        res->state = KC_LIMIT;
        snprintf(res->msg, sizeof res->msg, "%d problem%s: %s", pr.n, pr.n == 1 ? "" : "s", pr.text);
    } else {
        res->state = KC_PASS;
        snprintf(res->msg, sizeof res->msg, "%s; %d shape%s within the device's launch limits", figures, nshapes,
                 nshapes == 1 ? "" : "s");
    }
    if (gpu->lost) res->context_lost = 1;
}
