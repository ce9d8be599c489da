/* gpu_state.h — what a GPU item leaves in the CUDA context of the process
 * that ran it (issue 13), checked after each GPU item by item_run.c, in a
 * serial run and in a work-queue worker alike:
 *
 *   - an error pending in the context: cuCtxSynchronize after the item
 *     returns one that the item's own checks never saw (work launched and not
 *     waited for, e.g. by a GPU suite or a library). The context is unusable:
 *     the item is LEAK (if it would have passed; item_run.h) and the process
 *     is replaced (KC_LOST_CONTEXT);
 *   - device memory that stays allocated: the process's memory on its device
 *     as NVML reports it (per process, the device found by PCI bus id:
 *     nvml.h), less the generated inputs the harness keeps on purpose for
 *     later items (inputs.h), compared after the item with before it. More than
 *     KC_GPU_LEAK_MIB more after one item, or KC_GPU_GROWN_MIB more than when
 *     the process's first GPU item started, is named on the item's line and
 *     the process is replaced (KC_LOST_GPU_STATE). The verdict stands: a
 *     kernel under test allocates nothing, and the driver's lazy reservations
 *     (local memory resized for a kernel) and a library's handle cache grow
 *     too; what must not happen is a worker carrying that memory into the
 *     next item, whose memory admission counts each worker at its overhead.
 *     Compared only when NVML lists the process both times (not where NVML is
 *     absent, or in another PID namespace). The driver's own figure
 *     (cuMemGetInfo) is not used: it is the device's, shared with every other
 *     process on it. */
#ifndef KC_GPU_STATE_H
#define KC_GPU_STATE_H
#include <stddef.h>
#include "gpu.h"

#define KC_GPU_LEAK_MIB 64          /* one item may leave at most this much more allocated ... */
#define KC_GPU_GROWN_MIB 512        /* ... and all of them this much above the first item's start */

/* What kc_gpu_watch_after found. */
enum { KC_GPU_LEFT_NOTHING = 0, KC_GPU_LEFT_ERROR, KC_GPU_LEFT_MEMORY };

/* One process's watch over its context, across its items. */
typedef struct kc_gpu_watch {
    char bus[32];               /* the device's PCI bus id; "" until asked, "-" when unknown */
    long pid;                   /* this process */
    long base_mib;              /* NVML memory at the start of its first listed GPU item; -1 none yet */
    long before_mib;            /* at the start of the current item; -1 unknown or not listed */
    /* A worker with lanes (worker_lanes.c) watches only the items it runs
     * alone, with nothing in flight, and its lanes keep memory on purpose
     * between those items (their input caches, freed guarded buffers):
     * also_held(also_held_ctx) gives those bytes, left out like the
     * watched session's own inputs. Its growth since base_mib is not
     * compared (KC_GPU_GROWN_MIB): its lanes also keep a copy of each
     * module they ran, which nothing measures. NULL: a process of one item
     * at a time. */
    size_t (*also_held)(void *ctx);
    void *also_held_ctx;
} kc_gpu_watch;

/* An empty watch for this process. */
void kc_gpu_watch_init(kc_gpu_watch *w);
/* Before a GPU item on gpu (ready): notes the process's NVML memory. */
void kc_gpu_watch_before(kc_gpu_watch *w, kc_gpu *gpu);
/* After it: KC_GPU_LEFT_ERROR with "an error pending in its CUDA context:
 * CUDA_ERROR_... (...)" in what, KC_GPU_LEFT_MEMORY with "it left GPU
 * memory allocated: this process holds 600 MiB on its device after it, 64
 * MiB before it (NVML; ...)" in what ("this worker" with also_held), else
 * KC_GPU_LEFT_NOTHING. An error is checked first: with one, memory figures
 * mean nothing. */
int kc_gpu_watch_after(kc_gpu_watch *w, kc_gpu *gpu, char *what, size_t cap);
#endif
