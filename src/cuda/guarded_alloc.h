/* guarded_alloc.h — device buffers with unmapped address space around
 * them, for a worker whose lanes run items side by side (--inflight K > 1).
 *
 * Why: the lanes' stream-ordered pool (cuMemAllocAsync) packs every
 * buffer of the process into its own address range, so a write far past a
 * buffer (a 32-bit offset that wrapped) lands in another buffer, the item's
 * own or a neighbour's, where cuMemAlloc's placement, a serial run's, left
 * the address unmapped and the launch faulted. Measured on an H200
 * (docs/receipts/2026-12-04-h200-neighbours): the four
 * kv_cache.*:control.slot_offset_i32 controls were RED by gate 3 in every
 * worker with lanes, alone in it too, and by gate 1 with one item at a
 * time; kv_cache kernels beside them FAILed. Each guarded buffer gets its
 * own address reservation (cuMemAddressReserve) of KC_GUARD_GAP bytes
 * unmapped on either side of its mapping (cuMemCreate, cuMemMap,
 * cuMemSetAccess; the CUDA driver API's virtual memory management, CUDA
 * 10.2), so such a write faults as it does serially.
 *
 * A session's guard is shared by its lanes (each lane's driver table is a
 * copy of the session's and points at it), under a lock. */
#ifndef KC_GUARDED_ALLOC_H
#define KC_GUARDED_ALLOC_H
#include <stddef.h>
#include "cuda_driver.h"

/* Unmapped bytes on either side of a guarded buffer. A 32-bit element
 * index that wrapped reaches 2^31 elements either way when signed, 2^32 - 1
 * forward when unsigned: 32 GiB covers a signed one into elements of up to
 * 16 bytes (float4, 8 halves) and an unsigned one into elements of up to 8
 * (double, int64); an unsigned one into 16-byte elements reaches 64 GiB
 * forward and may pass it, as may any 64-bit offset gone wrong. It was 8
 * GiB (a signed index into 4-byte elements). Only address space: each
 * buffer reserves its mapping and twice this, per process; x86-64's 47-bit
 * user space (128 TiB) holds at most about 2000 such reservations, less
 * what the driver reserves for itself, and a buffer whose gaps find no
 * room comes from the pool instead, said and counted (kc_guard_alloc). */
#define KC_GUARD_GAP ((size_t)32 << 30)
/* Freed guarded buffers a session keeps mapped, their gaps unmapped, for
 * later buffers of the same size (up to twice it), in bytes: making and
 * unmapping each buffer cost the kernel time of its calls (on the H200
 * every item under --jobs 4 --inflight 4 took 48.8 and 50.2 s against
 * 43.8 and 47.2 s with the pool, its processes' system time 74-77 s
 * against 58-60 s). Small, because every worker with lanes is charged it in
 * the memory plan whether it keeps that much or not (plan.h,
 * kc_plan_gpu_per_worker). */
#define KC_GUARD_KEEP ((size_t)256 << 20)

/* Turns guarded allocation on for cu (kc_cuda_alloc and kc_cuda_free call
 * kc_guard_alloc and kc_guard_free through cu's guard_alloc and guard_free,
 * so that cuda_driver.c needs nothing of this module): on device d, when the driver has the virtual memory management entry
 * points and d supports them (CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_
 * SUPPORTED). Returns 1 when on, 0 when left off (then cu allocates as
 * before), -1 out of host memory. Call before the first allocation. */
int kc_guard_setup(kc_cuda *cu, CUdevice d);
/* n bytes (n >= 1) in a guarded buffer into *p: a kept one (kc_guard_free)
 * of at least n bytes and at most twice, or a new one, its mapping rounded
 * up to the device's allocation granularity, KC_GUARD_GAP unmapped either
 * side. Out of device memory, the kept ones are given back and it tries
 * once more. When the address space for the gaps cannot be reserved
 * (CUDA_ERROR_OUT_OF_MEMORY from cuMemAddressReserve), a buffer of the
 * stream-ordered pool instead, said on stderr the first time and counted
 * (kc_guard_close). Returns the driver's result (*p 0 on failure). */
CUresult kc_guard_alloc(const kc_cuda *cu, CUdeviceptr *p, size_t n);
/* Frees buffer p of kc_guard_alloc once the calling thread's work on its
 * stream is done (what it launched may still use p): kept mapped for a
 * later buffer while the session keeps less than KC_GUARD_KEEP bytes so,
 * else unmapped, released, its reservation freed. CUDA_ERROR_INVALID_VALUE
 * for an address it did not give. */
CUresult kc_guard_free(const kc_cuda *cu, CUdeviceptr p);
/* Bytes of freed buffers cu's guard keeps mapped (kc_guard_free; at most
 * KC_GUARD_KEEP), 0 when cu has no guard: memory the process holds on
 * purpose, which its GPU-memory watch leaves out (gpu_state.h). */
size_t kc_guard_kept_bytes(const kc_cuda *cu);
/* The session ends (lost: its context is lost, nothing is freed on the
 * device): the buffers still held and the ones kept are freed, a line on stderr says how many
 * buffers had no gaps (the address space ran out), and cu's guard is off. */
void kc_guard_close(kc_cuda *cu, int lost);
#endif
