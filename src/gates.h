/* gates.h — running one item on the GPU: a kernel through gates 1-4 over every
 * shape and distribution, a control until some gate catches it, or a kernel's
 * limit checks. Results are plain data; runner.c prints them. */
#ifndef KC_GATES_H
#define KC_GATES_H
#include <stddef.h>
#include <stdint.h>
#include "item.h"
#include "cuda_driver.h"

/* One process's GPU: driver, device, primary context, the smem poisoner. */
typedef struct kc_gpu {
    kc_cuda cu;
    int ready;                  /* driver loaded and context current */
    char why[512];              /* why not ready ("libcuda.so.1 not found ...") */
    kc_device dev;
    CUdevice cudev;
    CUcontext ctx;
    CUmodule poison_mod;
    CUfunction poison_fn;
    int lost;                   /* a sticky error made the context unusable */
} kc_gpu;

/* Loads the driver and makes device `ordinal`'s primary context current.
 * Returns 0; 1 when there is no usable driver or device (gpu->why says why;
 * GPU items are then SKIP); -1 when `ordinal` does not exist (bad usage). */
int kc_gpu_open(kc_gpu *gpu, int ordinal);
void kc_gpu_close(kc_gpu *gpu);

typedef struct kc_result {
    kc_state state;
    int gate;                   /* first failing gate (FAIL, RED), 0 if none */
    int limit_problems;         /* limit items */
    int stale;                  /* known findings that did not reproduce */
    int cases, cases_failed;    /* (shape, distribution) pairs run / failed */
    char msg[2048];             /* the line's text after the item name */
    char detail[8192];          /* further lines (indented), may be empty */
    int context_lost;           /* the process must be replaced before the next GPU item */
    kc_time_split time;         /* where the item's time went */
} kc_result;

/* Runs a kernel, control or limit item. seed is --seed. */
void kc_run_gpu_item(kc_gpu *gpu, const kc_item *it, uint64_t seed, kc_result *res);

/* "edge.33 (rows=1, cols=33)" */
void kc_shape_describe(const kc_contract *c, const kc_shape *s, char *buf, size_t cap);
/* Bytes of device and host memory one case of shape s needs (all buffers,
 * guard bands, the determinism relaunch's second set; host inputs, read-backs
 * and the float64 reference), for memory plans. */
void kc_case_memory(const kc_contract *c, const kc_shape *s, size_t *host_bytes, size_t *gpu_bytes);
#endif
