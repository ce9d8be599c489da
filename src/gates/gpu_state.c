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

void kc_gpu_watch_before(kc_gpu_watch *w, kc_gpu *gpu)
{
    w->before_mib = gpu->ready ? listed_mib(w, gpu) : -1;
    if (w->base_mib < 0) w->base_mib = w->before_mib;
}

int kc_gpu_watch_after(kc_gpu_watch *w, kc_gpu *gpu, char *what, size_t cap)
{
    if (cap) what[0] = 0;
    if (!gpu->ready || gpu->lost) return KC_GPU_LEFT_NOTHING;      /* a lost context is replaced anyway */
    CUresult r = gpu->cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
        const char *s = NULL;
        if (gpu->cu.GetErrorString) gpu->cu.GetErrorString(r, &s);
        snprintf(what, cap, "an error pending in its CUDA context: %s (%s)", kc_cuda_error_name(&gpu->cu, r),
                 s ? s : "no description");
        return KC_GPU_LEFT_ERROR;
    }
    long after = listed_mib(w, gpu), before = w->before_mib;
    if (after < 0 || before < 0) return KC_GPU_LEFT_NOTHING;
    if (after - before > KC_GPU_LEAK_MIB) {
        snprintf(what, cap, "it left GPU memory allocated: this %s holds %ld MiB on its device after it, %ld MiB before "
                 "it (NVML; more than %d MiB more)", w->also_held ? "worker" : "process", after, before, KC_GPU_LEAK_MIB);
        return KC_GPU_LEFT_MEMORY;
    }
    /* Not in a worker with lanes: they keep a copy of each module they ran
     * (module_cache.h) and grow the process's memory by design, by an
     * amount nothing here measures. */
    if (!w->also_held && w->base_mib >= 0 && after - w->base_mib > KC_GPU_GROWN_MIB) {
        snprintf(what, cap, "it left GPU memory allocated: this process holds %ld MiB on its device after it, %ld MiB "
                 "when its first GPU item started (NVML; more than %d MiB more)", after, w->base_mib, KC_GPU_GROWN_MIB);
        return KC_GPU_LEFT_MEMORY;
    }
    return KC_GPU_LEFT_NOTHING;
}
