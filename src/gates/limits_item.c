/* limits_item.c — a kernel's :limits item: its resources (registers, shared
 * and local memory) against its budget and the device, its occupancy at
 * the largest shape, and every shape's launch geometry against the
 * device's limits. No case runs. */
#include "limits_item.h"

#include <stdio.h>

#include "launch.h"
#include "strbuf.h"

/* The shape with the largest device footprint: the one whose occupancy the
 * limits item reports. */
static const kc_shape *largest_shape(const kc_contract *c)
{
    const kc_shape *best = c->shapes;
    size_t bestb = 0;
    for (const kc_shape *s = c->shapes; s->name; s++) {
        size_t h, g;
        kc_case_memory(c, s, KC_REF_DEVICE, &h, &g);
        if (g > bestb) {
            bestb = g;
            best = s;
        }
    }
    return best;
}

/* Limit checks: resources against the budget and the device, occupancy at the
 * largest shape, and every shape's launch geometry against the device's limits
 * (the envelope). No case runs here: the kernel item runs every shape through
 * gates 1-4, and running its largest case again cost a quarter of a full run
 * (H200, 2026-11-30) for no new check. */
void kc_run_limits(kc_gpu *gpu, const kc_item *it, kc_item_result *res)
{
    const kc_contract *c = it->contract;
    const kc_budget *b = &c->budget;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    kc_host_entry entry;
    char why[1024];
    if (kc_load_function(gpu, c, NULL, &mod, &fn, &entry, why, sizeof why)) {
        res->state = KC_LIMIT;
        res->limit_problems = 1;
        snprintf(res->msg, sizeof res->msg, "1 problem: %s", why);
        return;
    }
    if (entry) {   /* the registry makes no :limits item for a library kernel */
        res->state = KC_LIMIT;
        res->limit_problems = 1;
        snprintf(res->msg, sizeof res->msg, "1 problem: %s is a library kernel (lib%s.so): no function to measure",
                 c->name, c->library);
        return;
    }
    int regs = 0, statics = 0, local = 0, maxthreads = 0;
    gpu->cu.FuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
    gpu->cu.FuncGetAttribute(&statics, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
    gpu->cu.FuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
    gpu->cu.FuncGetAttribute(&maxthreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn);
    char probs[1800] = "";
    int np = 0;
#define PROBLEM(...) do { np++; kc_strcatf(probs, sizeof probs, "%s", np > 1 ? "; " : ""); kc_strcatf(probs, sizeof probs, __VA_ARGS__); } while (0)
    if (b->max_regs && regs > b->max_regs) PROBLEM("registers %d per thread > budget %d", regs, b->max_regs);
    if (local > b->max_local) PROBLEM("local memory %d bytes per thread > budget %d (spills or stack arrays)", local, b->max_local);
    unsigned maxsmem = 0;
    for (const kc_shape *s = c->shapes; s->name; s++) {
        kc_launch l = { { 1, 1, 1 }, { 1, 1, 1 }, 0 };
        c->launch(s, &gpu->dev, &l);
        unsigned threads = l.block[0] * l.block[1] * l.block[2];
        if (l.smem > maxsmem) maxsmem = l.smem;
        if ((int)threads > maxthreads) PROBLEM("shape %s: block of %u threads > %d allowed", s->name, threads, maxthreads);
        if (l.grid[1] > 65535 || l.grid[2] > 65535) PROBLEM("shape %s: grid %ux%ux%u exceeds 65535 in y or z", s->name, l.grid[0], l.grid[1], l.grid[2]);
        if ((size_t)statics + l.smem > gpu->dev.smem_per_block_optin)
            PROBLEM("shape %s: shared memory %u bytes > device limit %zu", s->name, statics + l.smem, gpu->dev.smem_per_block_optin);
    }
    if (b->max_smem && statics + (int)maxsmem > b->max_smem)
        PROBLEM("shared memory %d static + %u dynamic bytes > budget %d", statics, maxsmem, b->max_smem);
    const kc_shape *big = largest_shape(c);
    kc_launch l = { { 1, 1, 1 }, { 1, 1, 1 }, 0 };
    c->launch(big, &gpu->dev, &l);
    int blocks = 0, want = b->min_blocks_per_sm > 0 ? b->min_blocks_per_sm : 1;
    if ((size_t)statics + l.smem > gpu->dev.smem_per_block)
        gpu->cu.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l.smem);
    gpu->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, (int)(l.block[0] * l.block[1] * l.block[2]), l.smem);
    if (blocks < want)
        PROBLEM("occupancy %d resident block%s per SM (block %u threads, %u bytes dynamic shared memory) < budget %d",
                blocks, blocks == 1 ? "" : "s", l.block[0] * l.block[1] * l.block[2], l.smem, want);
#undef PROBLEM
    int nshapes = 0;
    for (const kc_shape *s = c->shapes; s->name; s++) nshapes++;
    res->limit_problems = np;
    if (np) {
        res->state = KC_LIMIT;
        snprintf(res->msg, sizeof res->msg, "%d problem%s: %s", np, np == 1 ? "" : "s", probs);
    } else {
        res->state = KC_PASS;
        snprintf(res->msg, sizeof res->msg, "%d registers, %d+%u B shared, %d B local, %d blocks/SM at shape %s; %d shape%s within the device's launch limits",
                 regs, statics, maxsmem, local, blocks, big->name, nshapes, nshapes == 1 ? "" : "s");
    }
    if (gpu->lost) res->context_lost = 1;
    if (mod && !gpu->lost) gpu->cu.ModuleUnload(mod);
}
