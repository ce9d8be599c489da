/* gpu_state.c — owns the check of what a GPU item leaves in its process's
 * CUDA context: a pending error, device memory still allocated (gpu_state.h). */
#include "gpu_state.h"
#include "inputs.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nvml.h"

void kc_gpu_watch_init(kc_gpu_watch *w)
{
    memset(w, 0, sizeof *w);
    w->pid = (long)getpid();
    w->base_mib = w->before_mib = -1;
}

/* The process's NVML memory in MiB less what the harness keeps on purpose
 * (the inputs it made, kept for later items: inputs.h; a worker's lanes'
 * caches and kept buffers: also_held), -1 when NVML is absent or does not
 * list it. */
static long listed_mib(kc_gpu_watch *w, kc_gpu *gpu)
{
    if (!w->bus[0]) {
        if (gpu->cu.DeviceGetPCIBusId(w->bus, (int)sizeof w->bus, gpu->cudev) != CUDA_SUCCESS || !w->bus[0])
            snprintf(w->bus, sizeof w->bus, "-");
    }
    if (strcmp(w->bus, "-") == 0) return -1;
    int listed = 0;
    long mib = kc_nvml_pid_mib_listed(w->bus, w->pid, &listed, NULL, 0);
    size_t held = kc_inputs_held(gpu->inputs) + (w->also_held ? w->also_held(w->also_held_ctx) : 0);
    return listed ? mib - (long)(held >> 20) : -1;
}

/* The limits compared, with their names on an item's line; not the stack
 * size, which the driver raises by itself (gpu_state.h). */
static const struct { CUlimit limit; const char *name, *unit; } watched[KC_GPU_WATCH_LIMITS] = {
    { CU_LIMIT_MALLOC_HEAP_SIZE, "malloc heap size", " bytes" },
    { CU_LIMIT_PRINTF_FIFO_SIZE, "printf FIFO size", " bytes" },
    { CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, "device runtime sync depth", "" },
    { CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, "device runtime pending launch count", "" },
    { CU_LIMIT_MAX_L2_FETCH_GRANULARITY, "maximum L2 fetch granularity", " bytes" },
    { CU_LIMIT_PERSISTING_L2_CACHE_SIZE, "persisting L2 cache size", " bytes" },
};

/* The limits as they are at the first GPU item, those the driver has. */
static void take_limits(kc_gpu_watch *w, kc_gpu *gpu)
{
    if (w->limits_taken || !gpu->ready || !gpu->cu.CtxGetLimit || !gpu->cu.CtxSetLimit) return;
    w->limits_taken = 1;
    for (int i = 0; i < KC_GPU_WATCH_LIMITS; i++)
        if (gpu->cu.CtxGetLimit(&w->base_limit[i], watched[i].limit) == CUDA_SUCCESS) w->limits_known |= 1u << i;
}

void kc_gpu_watch_before(kc_gpu_watch *w, kc_gpu *gpu)
{
    take_limits(w, gpu);
    if (gpu->ready && !gpu->lost) kc_cuda_trim(&gpu->cu);   /* as after it (kc_gpu_watch_after): both figures without the pool's */
    w->before_mib = gpu->ready ? listed_mib(w, gpu) : -1;
    if (w->base_mib < 0) w->base_mib = w->before_mib;
}

int kc_gpu_watch_limits(kc_gpu_watch *w, kc_gpu *gpu, int by_item, char *what, size_t cap)
{
    char none[1];
    if (!cap) what = none, cap = 1;
    what[0] = 0;
    take_limits(w, gpu);
    int found = KC_GPU_LEFT_NOTHING;
    for (int i = 0; i < KC_GPU_WATCH_LIMITS; i++) {
        size_t now, back;
        if (!(w->limits_known & (1u << i)) || gpu->cu.CtxGetLimit(&now, watched[i].limit) != CUDA_SUCCESS ||
            now == w->base_limit[i])
            continue;
        CUresult r = gpu->cu.CtxSetLimit(watched[i].limit, w->base_limit[i]);
        if (r == CUDA_SUCCESS && (gpu->cu.CtxGetLimit(&back, watched[i].limit) != CUDA_SUCCESS ||
                                  back != w->base_limit[i]))
            r = CUDA_ERROR_INVALID_VALUE;       /* the driver "is free to modify the requested value" */
        size_t len = strlen(what);
        snprintf(what + len, cap - len, by_item ? "%sit changed the CUDA context's %s limit from %zu to %zu%s"
                                                : "%sthe CUDA context's %s limit was changed from %zu to %zu%s",
                 len ? "; " : "", watched[i].name, w->base_limit[i], now, watched[i].unit);
        len = strlen(what);
        if (r == CUDA_SUCCESS)
            snprintf(what + len, cap - len, " (set back)");
        else
            snprintf(what + len, cap - len, ", which could not be set back (%s)", kc_cuda_error_name(&gpu->cu, r));
        if (r != CUDA_SUCCESS) found = KC_GPU_LEFT_MEMORY;
        else if (found == KC_GPU_LEFT_NOTHING) found = KC_GPU_LEFT_LIMITS;
    }
    return found;
}

/* Memory left by the item (gpu_state.h): 1 with what filled, else 0. */
static int memory_left(kc_gpu_watch *w, kc_gpu *gpu, char *what, size_t cap)
{
    long after = listed_mib(w, gpu), before = w->before_mib;
    if (after < 0 || before < 0) return 0;
    if (after - before > KC_GPU_LEAK_MIB) {
        snprintf(what, cap, "it left GPU memory allocated: this process holds %ld MiB on its device after it, %ld MiB "
                 "before it (NVML; more than %d MiB more)", after, before, KC_GPU_LEAK_MIB);
        return 1;
    }
    /* Not in a worker with lanes: they keep a copy of each module they ran
     * (module_cache.h) and grow the process's memory by design, by an
     * amount nothing here measures. */
    if (!w->also_held && w->base_mib >= 0 && after - w->base_mib > KC_GPU_GROWN_MIB) {
        snprintf(what, cap, "it left GPU memory allocated: this process holds %ld MiB on its device after it, %ld MiB "
                 "when its first GPU item started (NVML; more than %d MiB more)", after, w->base_mib, KC_GPU_GROWN_MIB);
        return 1;
    }
    return 0;
}

int kc_gpu_watch_after(kc_gpu_watch *w, kc_gpu *gpu, char *what, size_t cap)
{
    char none[1];
    if (!cap) what = none, cap = 1;
    what[0] = 0;
    if (!gpu->ready || gpu->lost) return KC_GPU_LEFT_NOTHING;      /* a lost context is replaced anyway */
    CUresult r = gpu->cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
        const char *s = NULL;
        if (gpu->cu.GetErrorString) gpu->cu.GetErrorString(r, &s);
        snprintf(what, cap, "an error pending in its CUDA context: %s (%s)", kc_cuda_error_name(&gpu->cu, r),
                 s ? s : "no description");
        return KC_GPU_LEFT_ERROR;
    }
    int limits = kc_gpu_watch_limits(w, gpu, 1, what, cap);
    /* What the stream-ordered pool (a worker with lanes: cuda_driver.h)
     * keeps of the buffers the item freed is the pool's, not left by the
     * item: back to the device before NVML is asked, as each lane's item
     * does (worker_lanes.c); the context is idle, just synchronized. (The
     * 88 MiB a cuBLAS item adds on the H200 are not the pool's: they stayed
     * with this in, docs/receipts/2026-12-05-h200-host-time.) */
    kc_cuda_trim(&gpu->cu);
    char mem[400];
    int memory = memory_left(w, gpu, mem, sizeof mem);
    if (memory) {
        size_t len = strlen(what);
        snprintf(what + len, cap - len, "%s%s", len ? "; " : "", mem);
        return KC_GPU_LEFT_MEMORY;
    }
    return limits;
}
