/* gpu_open.h — opening and closing a process's GPU session (gpu.h) with
 * its parts (harness.h, inputs.h, devmem.h): above them, as the parts work
 * on the session gpu.h defines. */
#ifndef KC_GPU_OPEN_H
#define KC_GPU_OPEN_H
#include <stddef.h>
#include "gpu.h"

/* Loads the driver, makes device `ordinal`'s primary context current and
 * loads the harness module. Returns 0; 1 when there is no usable driver or
 * device, or the harness module does not load on it (gpu->why says why; GPU
 * items are then SKIP, or fail where gpu->broken: a driver that is there and
 * does not work, a context that cannot be made on the device); -1 when
 * `ordinal` does not exist (bad usage). */
int kc_gpu_open(kc_gpu *gpu, int ordinal);

/* kc_gpu_open with the per-thread default stream when per_thread
 * (kc_cuda_load_streams): the base session of threads that run items side
 * by side (kc_gpu_open_lane). */
int kc_gpu_open_streams(kc_gpu *gpu, int ordinal, int per_thread);
/* A lane: a view of the open session `base` for one host thread, opened on
 * that thread. It shares base's driver table, device and context (made
 * current on the calling thread) and has its own harness module and result
 * buffers, input cache (input_budget device bytes, inputs.h) and kept case
 * buffers (devmem.h), so threads on lanes of one base run items with no
 * shared mutable session state. A sticky error marks only the lane that
 * met it lost, but the context is every lane's: the caller treats any lane
 * lost as all lost. Returns 0, or 1 with lane->why (base not ready, the
 * harness module or host memory). Close it with kc_gpu_close_lane on the
 * same thread before kc_gpu_close(base). */
int kc_gpu_open_lane(kc_gpu *lane, const kc_gpu *base, size_t input_budget);
/* Frees what the lane holds (nothing on the device once lost); the driver
 * and the context stay base's. */
void kc_gpu_close_lane(kc_gpu *lane);
/* How a host thread that waits for the device waits: KC_CUDA_SCHED when
 * set (the user's choice), else the process's wait (kc_gpu_set_wait; block
 * unless set). block sleeps until the device interrupts, spin polls, yield
 * polls and yields, auto is the driver's choice (spin while there are fewer
 * active contexts than cores). Workers sharing one GPU spend most of an item
 * waiting, and polling keeps a host core busy per worker doing nothing (on an
 * H200 --jobs 8 with the driver's default used 7.6 cores:
 * docs/receipts/2026-12-01-h200-device-pipeline.md); a run of one worker
 * with one item in flight loses a wake-up at every wait instead (H200, the
 * serial gates 1-4 run: 40.9-44.4 s blocking, 37.2-40.7 s spinning, 38.3-38.7 s
 * yielding: docs/receipts/2026-12-04-h200-wait-modes). Sets *flags to CU_CTX_SCHED_*;
 * -1 with why naming the value and the ones expected. */
int kc_gpu_sched_flags(unsigned *flags, char *why, size_t cap);
/* Sets the process's wait when KC_CUDA_SCHED is unset: "block", "spin",
 * "yield" or "auto" (--gpu-wait, which a run's parent gives its worker:
 * yield for a run of one worker with one item in flight, run/queue_workers.c).
 * Called once at start-up, before the GPU is opened. 0; -1 with why naming
 * the value and the ones expected. */
int kc_gpu_set_wait(const char *wait, char *why, size_t cap);
/* Frees what the session holds (nothing on the device once it is lost) and
 * unloads the driver. */
void kc_gpu_close(kc_gpu *gpu);
#endif
