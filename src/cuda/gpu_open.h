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
/* Frees what the session holds (nothing on the device once it is lost) and
 * unloads the driver. */
void kc_gpu_close(kc_gpu *gpu);
#endif
