/* gpu.h — one process's GPU session: the driver, the device, its primary
 * context, the harness's own module (harness.h) and the cache of generated
 * inputs (inputs.h). Opened once per process at its first GPU item, closed
 * at its end; a sticky CUDA error marks it lost (the process is replaced). */
#ifndef KC_GPU_H
#define KC_GPU_H
#include "cuda_driver.h"
#include "harness.h"
#include "kcontract.h"

struct kc_inputs;
struct kc_devmem;

typedef struct kc_gpu {
    kc_cuda cu;
    int ready;                  /* driver loaded, context current, harness loaded */
    char why[512];              /* why not ready ("libcuda.so.1 not found ...") */
    kc_device dev;
    CUdevice cudev;
    CUcontext ctx;
    kc_harness h;               /* the harness module: generator, checks, smem poison */
    struct kc_inputs *inputs;   /* generated inputs kept on the device between items */
    struct kc_devmem *devmem;   /* case buffers kept for the item's next case (devmem.h) */
    int lost;                   /* a sticky error made the context unusable */
} kc_gpu;

/* Loads the driver, makes device `ordinal`'s primary context current and
 * loads the harness module. Returns 0; 1 when there is no usable driver or
 * device, or the harness module does not load on it (gpu->why says why; GPU
 * items are then SKIP); -1 when `ordinal` does not exist (bad usage). */
int kc_gpu_open(kc_gpu *gpu, int ordinal);

/* How a host thread that waits for the device waits, from KC_CUDA_SCHED:
 * block (the default: sleeps until the device interrupts), spin, yield, or
 * auto (the driver's choice: spin while there are fewer active contexts than
 * cores). Workers sharing one GPU spend most of an item waiting; polling
 * keeps a host core busy per worker doing nothing (on an H200 --jobs 8 with
 * the driver's default used 7.6 cores: docs/receipts/2026-12-01-h200-device-
 * pipeline.md). Sets *flags to CU_CTX_SCHED_*; -1 with why naming the value
 * and the ones expected. */
int kc_gpu_sched_flags(unsigned *flags, char *why, size_t cap);
/* A CUDA result met in this session: a sticky error (kc_cuda_error_is_sticky)
 * makes the context unusable from now on, so it marks the session lost (the
 * process is replaced before its next GPU item). Returns whether r was
 * sticky. */
int kc_gpu_lost_if_sticky(kc_gpu *gpu, CUresult r);
/* Frees what the session holds (nothing on the device once it is lost) and
 * unloads the driver. */
void kc_gpu_close(kc_gpu *gpu);
#endif
