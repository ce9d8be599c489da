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
 *     What a worker's stream-ordered pool keeps is given back to the device
 *     first (cuMemPoolTrimTo).
 *     Compared only when NVML lists the process both times (not where NVML is
 *     absent, or in another PID namespace). The driver's own figure
 *     (cuMemGetInfo) is not used: it is the device's, shared with every other
 *     process on it;
 *   - a limit of the context changed (cuCtxSetLimit, the runtime's
 *     cudaDeviceSetLimit): the malloc heap size, printf FIFO size, device
 *     runtime sync depth and pending launch count, maximum L2 fetch
 *     granularity and persisting L2 cache size, compared after the item with
 *     their values at the process's first GPU item. A larger heap set by one
 *     item lets a later item's device-side malloc succeed where in a fresh
 *     process it fails, so each is set back and named on the item's line,
 *     its verdict standing; one the driver will not set back (the heap size
 *     once a kernel that uses malloc has run, the printf FIFO once one that
 *     uses printf has) replaces the process
 *     (KC_LOST_GPU_STATE). The stack size is not compared: the driver raises
 *     it by itself for each launch that needs more (cuCtxSetLimit's
 *     documentation, CUDA 13.0 cuda.h). */
#ifndef KC_GPU_STATE_H
#define KC_GPU_STATE_H
#include <stddef.h>
#include "gpu.h"

#define KC_GPU_LEAK_MIB 64          /* one item may leave at most this much more allocated ... */
#define KC_GPU_GROWN_MIB 512        /* ... and all of them this much above the first item's start */

#define KC_GPU_WATCH_LIMITS 6     /* the limits compared (gpu_state.c, watched[]) */

/* What kc_gpu_watch_after found: nothing; an error pending (LEAK, the
 * process replaced); memory left or a limit that could not be set back
 * (named, the process replaced); limits changed and set back (named,
 * nothing else). */
enum { KC_GPU_LEFT_NOTHING = 0, KC_GPU_LEFT_ERROR, KC_GPU_LEFT_MEMORY, KC_GPU_LEFT_LIMITS };

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
    int limits_taken;           /* base_limit read (at the first GPU item) */
    unsigned limits_known;      /* bit i: limit i read then (the driver has it) */
    size_t base_limit[KC_GPU_WATCH_LIMITS];
} kc_gpu_watch;

/* An empty watch for this process. */
void kc_gpu_watch_init(kc_gpu_watch *w);
/* Before a GPU item on gpu (ready): notes the process's NVML memory. */
void kc_gpu_watch_before(kc_gpu_watch *w, kc_gpu *gpu);
/* After it: KC_GPU_LEFT_ERROR with "an error pending in its CUDA context:
 * CUDA_ERROR_... (...)" in what; KC_GPU_LEFT_MEMORY with "it left GPU
 * memory allocated: this process holds 600 MiB on its device after it, 64
 * MiB before it (NVML; ...)", or with a
 * limit that could not be set back (kc_gpu_watch_limits), in what;
 * KC_GPU_LEFT_LIMITS with the limits set back in what; else
 * KC_GPU_LEFT_NOTHING. An error is checked first: with one, memory figures
 * mean nothing; limits come before memory in what. */
int kc_gpu_watch_after(kc_gpu_watch *w, kc_gpu *gpu, char *what, size_t cap);
/* The context's limits against their values at the first GPU item, each
 * changed one set back: KC_GPU_LEFT_NOTHING; KC_GPU_LEFT_LIMITS with "it
 * changed the CUDA context's malloc heap size limit from 8388608 to
 * 67108864 bytes (set back)" in what (by_item 0, when which item changed
 * it is not known: "the CUDA context's malloc heap size limit was changed
 * from ..."); KC_GPU_LEFT_MEMORY when one could not be set back ("...,
 * which could not be set back (CUDA_ERROR_...)"). Part of
 * kc_gpu_watch_after; also called by a worker with lanes when an item in
 * flight is over (worker_lanes.c). A limit raised and lowered again within
 * one item is not seen. */
int kc_gpu_watch_limits(kc_gpu_watch *w, kc_gpu *gpu, int by_item, char *what, size_t cap);
#endif
