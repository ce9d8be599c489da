/* gpu.h — one process's GPU session: the driver, the device, its primary
 * context, and its parts, each its own module's: the harness's own module
 * (harness.h), the cache of generated inputs (inputs.h) and the case
 * buffers kept between cases (devmem.h). Opened once per process at its
 * first GPU item, closed at its end (gpu_open.h, above the parts); a sticky
 * CUDA error marks it lost (the process is replaced). The parts work on the
 * session, so this header includes none of theirs. */
#ifndef KC_GPU_H
#define KC_GPU_H
#include "cuda_driver.h"
#include "kcontract.h"

struct kc_harness;
struct kc_inputs;
struct kc_devmem;

typedef struct kc_gpu {
    kc_cuda cu;
    int ready;                  /* driver loaded, context current, harness loaded */
    char why[512];              /* why not ready ("libcuda.so.1 not found ...") */
    /* not ready, yet not a machine without a GPU: a driver that is there and
     * does not work (KC_CUDA_BROKEN, cuda_driver.h), a device whose context
     * cannot be made (kc_gpu_open) */
    int broken;
    kc_device dev;
    CUdevice cudev;
    CUcontext ctx;
    struct kc_harness *h;       /* the harness module: generator, checks, smem poison (harness.h) */
    struct kc_inputs *inputs;   /* generated inputs kept on the device between items */
    struct kc_devmem *devmem;   /* case buffers kept for the item's next case (devmem.h) */
    int lost;                   /* a sticky error made the context unusable */
    /* 1: module copies are kept across items and shared by the lanes
     * (module_cache.h), set for a per-thread session; 0: each item loads
     * and unloads its modules (a legacy session, as always) */
    int share_modules;
    /* 1: kc_dev_poison_smem does nothing. Only bench/inflight_items.c sets
     * it, to measure what the whole-GPU poison costs lanes; kcontract's
     * gates always poison. */
    int smem_poison_off;
} kc_gpu;

/* A CUDA result met in this session: a sticky error (kc_cuda_error_is_sticky)
 * makes the context unusable from now on, so it marks the session lost (the
 * process is replaced before its next GPU item). Returns whether r was
 * sticky. */
int kc_gpu_lost_if_sticky(kc_gpu *gpu, CUresult r);
#endif
