/* gpu_open.c — opens a process's GPU session (gpu_open.h): the driver, the
 * device and its primary context, then the session's parts (the harness
 * module, the input cache), and closes them again. */
#include "gpu_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "devmem.h"
#include "guarded_alloc.h"
#include "harness.h"
#include "inputs.h"
#include "module_cache.h"

/* The wait names and their flags, in the order an error lists them. */
static const struct { const char *name; unsigned flags; } waits[] = {
    { "block", CU_CTX_SCHED_BLOCKING_SYNC }, { "spin", CU_CTX_SCHED_SPIN },
    { "yield", CU_CTX_SCHED_YIELD }, { "auto", CU_CTX_SCHED_AUTO },
};

/* The process's wait when KC_CUDA_SCHED is unset (kc_gpu_set_wait). */
static const char *default_wait = "block";

/* The index of wait v in waits; -1 with why naming it (what: where it came
 * from) and the ones expected. */
static int wait_index(const char *what, const char *v, char *why, size_t cap)
{
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++)
        if (strcmp(v, waits[i].name) == 0) return (int)i;
    snprintf(why, cap, "%s='%s': expected block, spin, yield or auto", what, v);
    return -1;
}

int kc_gpu_set_wait(const char *wait, char *why, size_t cap)
{
    int i = wait_index("--gpu-wait", wait, why, cap);
    if (i < 0) return -1;
    default_wait = waits[i].name;
    return 0;
}

int kc_gpu_sched_flags(unsigned *flags, char *why, size_t cap)
{
    const char *v = getenv("KC_CUDA_SCHED");
    int i = v && *v ? wait_index("KC_CUDA_SCHED", v, why, cap) : wait_index("--gpu-wait", default_wait, why, cap);
    if (i < 0) return -1;
    *flags = waits[i].flags;
    return 0;
}

int kc_gpu_open(kc_gpu *gpu, int ordinal)
{
    return kc_gpu_open_streams(gpu, ordinal, 0);
}

int kc_gpu_open_streams(kc_gpu *gpu, int ordinal, int per_thread)
{
    memset(gpu, 0, sizeof *gpu);
    unsigned sched;
    if (kc_gpu_sched_flags(&sched, gpu->why, sizeof gpu->why)) return -1;
    int lr = kc_cuda_load_streams(&gpu->cu, NULL, per_thread, gpu->why, sizeof gpu->why);
    if (lr) {
        gpu->broken = lr == KC_CUDA_BROKEN;     /* a run's probe refuses it; met first here, after the probe */
        return 1;
    }
    int n = 0;
    if (gpu->cu.DeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
        snprintf(gpu->why, sizeof gpu->why, "the driver sees no CUDA device");
        return 1;
    }
    if (kc_device_query(&gpu->cu, ordinal, &gpu->dev, gpu->why, sizeof gpu->why)) return -1;
    CUresult r;
    if ((r = gpu->cu.DeviceGet(&gpu->cudev, ordinal)) != CUDA_SUCCESS ||
        (r = gpu->cu.DevicePrimaryCtxSetFlags(gpu->cudev, sched)) != CUDA_SUCCESS ||
        (r = gpu->cu.DevicePrimaryCtxRetain(&gpu->ctx, gpu->cudev)) != CUDA_SUCCESS ||
        (r = gpu->cu.CtxSetCurrent(gpu->ctx)) != CUDA_SUCCESS) {
        snprintf(gpu->why, sizeof gpu->why, "cannot create a context on device %d: %s", ordinal,
                 kc_cuda_error_name(&gpu->cu, r));
        gpu->broken = 1;        /* the device is there */
        return 1;
    }
    /* Stream-ordered allocation, off where the driver or device lacks pools;
     * on it, guarded buffers, off where they lack virtual memory management. */
    if (per_thread && kc_cuda_stream_alloc_setup(&gpu->cu, gpu->cudev) && kc_guard_setup(&gpu->cu, gpu->cudev) < 0) {
        snprintf(gpu->why, sizeof gpu->why, "out of host memory for the guarded buffers' table");
        gpu->cu.DevicePrimaryCtxRelease(gpu->cudev);
        return 1;
    }
    gpu->share_modules = per_thread != 0;
    if (!(gpu->h = calloc(1, sizeof *gpu->h))) {
        snprintf(gpu->why, sizeof gpu->why, "out of host memory for the harness module");
        kc_guard_close(&gpu->cu, 0);
        gpu->cu.DevicePrimaryCtxRelease(gpu->cudev);
        return 1;
    }
    if (kc_harness_open(&gpu->cu, &gpu->dev, gpu->h, gpu->why, sizeof gpu->why)) {
        free(gpu->h);
        gpu->h = NULL;
        kc_guard_close(&gpu->cu, 0);
        gpu->cu.DevicePrimaryCtxRelease(gpu->cudev);
        return 1;
    }
    gpu->inputs = kc_inputs_new(KC_INPUT_CACHE_BYTES);
    if (!gpu->inputs) {
        snprintf(gpu->why, sizeof gpu->why, "out of host memory for the input cache");
        kc_harness_close(&gpu->cu, gpu->h, 0);
        free(gpu->h);
        gpu->h = NULL;
        kc_guard_close(&gpu->cu, 0);
        gpu->cu.DevicePrimaryCtxRelease(gpu->cudev);
        return 1;
    }
    gpu->ready = 1;
    return 0;
}

void kc_gpu_close(kc_gpu *gpu)
{
    if (gpu->ready) {
        kc_devmem_release(gpu);
        kc_inputs_free(gpu, gpu->inputs);
        kc_harness_close(&gpu->cu, gpu->h, gpu->lost);
        free(gpu->h);
        gpu->h = NULL;
        kc_module_cache_close(gpu);
        kc_guard_close(&gpu->cu, gpu->lost);
        if (!gpu->lost) kc_cuda_trim(&gpu->cu);     /* the pool's kept memory back to the device */
        if (!gpu->lost) gpu->cu.DevicePrimaryCtxRelease(gpu->cudev);
    }
    kc_cuda_unload(&gpu->cu);
    gpu->ready = 0;
}

int kc_gpu_open_lane(kc_gpu *lane, const kc_gpu *base, size_t input_budget)
{
    memset(lane, 0, sizeof *lane);
    if (!base->ready) {
        snprintf(lane->why, sizeof lane->why, "no GPU session to open a lane on (%.400s)", base->why);
        return 1;
    }
    lane->cu = base->cu;                /* the same driver table: no load of its own */
    lane->dev = base->dev;
    lane->cudev = base->cudev;
    lane->ctx = base->ctx;
    lane->share_modules = base->share_modules;
    lane->smem_poison_off = base->smem_poison_off;
    CUresult r = lane->cu.CtxSetCurrent(lane->ctx);
    if (r != CUDA_SUCCESS) {
        snprintf(lane->why, sizeof lane->why, "cannot make the context current on a lane's thread: %s",
                 kc_cuda_error_name(&lane->cu, r));
        kc_gpu_lost_if_sticky(lane, r);
        return 1;
    }
    if (!(lane->h = calloc(1, sizeof *lane->h))) {
        snprintf(lane->why, sizeof lane->why, "out of host memory for a lane's harness module");
        return 1;
    }
    if (kc_harness_open(&lane->cu, &lane->dev, lane->h, lane->why, sizeof lane->why)) {
        free(lane->h);
        lane->h = NULL;
        return 1;
    }
    if (!(lane->inputs = kc_inputs_new(input_budget))) {
        snprintf(lane->why, sizeof lane->why, "out of host memory for a lane's input cache");
        kc_harness_close(&lane->cu, lane->h, 0);
        free(lane->h);
        lane->h = NULL;
        return 1;
    }
    lane->ready = 1;
    return 0;
}

void kc_gpu_close_lane(kc_gpu *lane)
{
    if (lane->ready) {
        kc_devmem_release(lane);
        kc_inputs_free(lane, lane->inputs);
        kc_harness_close(&lane->cu, lane->h, lane->lost);
        free(lane->h);
        lane->h = NULL;
    }
    lane->ready = 0;                    /* the driver and the context stay the base session's */
}
