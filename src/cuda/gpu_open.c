/* gpu_open.c — opens a process's GPU session (gpu_open.h): the driver, the
 * device and its primary context, then the session's parts (the harness
 * module, the input cache), and closes them again. */
#include "gpu_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "devmem.h"
#include "harness.h"
#include "inputs.h"

int kc_gpu_sched_flags(unsigned *flags, char *why, size_t cap)
{
    static const struct { const char *name; unsigned flags; } t[] = {
        { "block", CU_CTX_SCHED_BLOCKING_SYNC }, { "spin", CU_CTX_SCHED_SPIN },
        { "yield", CU_CTX_SCHED_YIELD }, { "auto", CU_CTX_SCHED_AUTO },
    };
    const char *v = getenv("KC_CUDA_SCHED");
    if (!v || !*v) v = "block";
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(v, t[i].name) == 0) {
            *flags = t[i].flags;
            return 0;
        }
    snprintf(why, cap, "KC_CUDA_SCHED='%s': expected block, spin, yield or auto", v);
    return -1;
}

int kc_gpu_open(kc_gpu *gpu, int ordinal)
{
    memset(gpu, 0, sizeof *gpu);
    unsigned sched;
    if (kc_gpu_sched_flags(&sched, gpu->why, sizeof gpu->why)) return -1;
    if (kc_cuda_load(&gpu->cu, NULL, gpu->why, sizeof gpu->why)) return 1;
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
        return 1;
    }
    if (!(gpu->h = calloc(1, sizeof *gpu->h))) {
        snprintf(gpu->why, sizeof gpu->why, "out of host memory for the harness module");
        gpu->cu.DevicePrimaryCtxRelease(gpu->cudev);
        return 1;
    }
    if (kc_harness_open(&gpu->cu, &gpu->dev, gpu->h, gpu->why, sizeof gpu->why)) {
        free(gpu->h);
        gpu->h = NULL;
        gpu->cu.DevicePrimaryCtxRelease(gpu->cudev);
        return 1;
    }
    gpu->inputs = kc_inputs_new(KC_INPUT_CACHE_BYTES);
    if (!gpu->inputs) {
        snprintf(gpu->why, sizeof gpu->why, "out of host memory for the input cache");
        kc_harness_close(&gpu->cu, gpu->h, 0);
        free(gpu->h);
        gpu->h = NULL;
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
        if (!gpu->lost) gpu->cu.DevicePrimaryCtxRelease(gpu->cudev);
    }
    kc_cuda_unload(&gpu->cu);
    gpu->ready = 0;
}
