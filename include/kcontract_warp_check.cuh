/* kcontract_warp_check.cuh — the warp-mask check build: every warp-level
 * primitive a kernel calls (__shfl*_sync, __ballot_sync, __any_sync,
 * __all_sync, __match_any_sync, __syncwarp) first checks its mask, and traps
 * when the call is undefined behaviour by the CUDA C++ Programming Guide ("Warp Shuffle
 * Functions", "Synchronization Functions"):
 *   - the calling thread's own lane is not in the mask ("each calling thread
 *     must have its own bit set in the mask");
 *   - the mask names a lane that does not exist: past the last thread of a
 *     partial last warp of the block (a block whose thread count is not a
 *     multiple of 32), which can never arrive.
 * Such calls give the expected values on today's GPUs (an H200 ran them
 * clean, and compute-sanitizer's synccheck passed a planted one), so no
 * value gate sees them; the next architecture or compiler need not. Gate 1
 * sees the trap (docs/gates.md). What it cannot see: a named lane that
 * exists but exited early or never reaches the call (that needs the run's
 * control flow).
 *
 * Pre-included into every kernel module by kcontract.mk (KC_WARP_CHECK;
 * empty it to build without). The headers that declare these primitives
 * (and their half and bfloat16 overloads) are included first; headers a
 * kernel includes after this one (cooperative_groups, CUB) have their calls
 * checked too. Not cooperative_groups itself: its reduce.h brings libcu++'s
 * namespace-scope objects, ten bytes of device variables named after the
 * translation unit, into every module (so no mutant's code would equal its
 * original's, and no module could be kept loaded: module_cache.h). Cost: a
 * lane read, two compares and a branch per call. */
#ifndef KCONTRACT_WARP_CHECK_CUH
#define KCONTRACT_WARP_CHECK_CUH
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

/* The threads of the calling thread's warp that exist: 32, or fewer in the
 * last warp of a block whose thread count is not a multiple of 32 (threads
 * are numbered x fastest, then y, then z: the Programming Guide's "Thread
 * Hierarchy"). */
__device__ __forceinline__ unsigned kc_warp_threads(void)
{
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned n = blockDim.x * blockDim.y * blockDim.z;
    unsigned left = n - (tid & ~31u);
    return left < 32u ? left : 32u;
}

/* Returns mask, after trapping when it is undefined for the calling thread.
 * Only a trap: a printf would give every kernel a local-memory buffer, which
 * the :limits items count (budgets of 0 B local). compute-sanitizer, on the
 * rerun command, names the trapping line (the modules carry -lineinfo). */
__device__ __forceinline__ unsigned kc_warp_mask_check(unsigned mask)
{
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    unsigned live = kc_warp_threads();
    if (!((mask >> lane) & 1u) || (live < 32u && (mask >> live) != 0u)) __trap();
    return mask;
}

/* __syncwarp's mask has a default (all lanes). */
__device__ __forceinline__ void kc_syncwarp_checked(unsigned mask = 0xffffffffu)
{
    __syncwarp(kc_warp_mask_check(mask));
}

/* A function-like macro is not expanded again inside its own expansion, so
 * each inner name is CUDA's. */
#define __shfl_sync(m, ...) __shfl_sync(kc_warp_mask_check(m), __VA_ARGS__)
#define __shfl_up_sync(m, ...) __shfl_up_sync(kc_warp_mask_check(m), __VA_ARGS__)
#define __shfl_down_sync(m, ...) __shfl_down_sync(kc_warp_mask_check(m), __VA_ARGS__)
#define __shfl_xor_sync(m, ...) __shfl_xor_sync(kc_warp_mask_check(m), __VA_ARGS__)
#define __ballot_sync(m, ...) __ballot_sync(kc_warp_mask_check(m), __VA_ARGS__)
#define __any_sync(m, ...) __any_sync(kc_warp_mask_check(m), __VA_ARGS__)
#define __all_sync(m, ...) __all_sync(kc_warp_mask_check(m), __VA_ARGS__)
#define __match_any_sync(m, ...) __match_any_sync(kc_warp_mask_check(m), __VA_ARGS__)
#define __syncwarp(...) kc_syncwarp_checked(__VA_ARGS__)
#endif
#endif
