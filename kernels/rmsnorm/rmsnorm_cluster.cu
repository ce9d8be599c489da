// rmsnorm_cluster.cu — RMSNorm of long rows split across a thread block
// cluster (sm_90): y = x / sqrt(mean(x^2) + eps) * w over [tokens, hidden],
// one cluster of C blocks per token (grid (C, tokens), cluster (C, 1, 1)).
// Block `rank` of the cluster squares and sums its slice of the row
// [rank * chunk, min(hidden, (rank + 1) * chunk)), chunk = ceil(hidden / C),
// publishes the sum in its shared memory, and after the cluster barrier every
// block reads the C partial sums through distributed shared memory
// (cluster.map_shared_rank), in rank order, so every block of the cluster
// computes the same total and the same 1/rms; then each normalizes its slice.
// A second cluster barrier keeps every block resident until its peers have
// read its partial (a block's shared memory is gone once it exits).
//
// Why: a row of 8192 or 16384 (Llama 3 70B / 405B hidden) in one block of
// 1024 threads leaves most SMs idle at small token counts; a cluster spreads
// the row over C SMs and combines the partials without a second kernel or a
// trip through global memory. C up to 8 is portable; 16 needs the
// non-portable cluster size (kc_launch.nonportable_cluster).
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st_f(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void st_f(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

// Sum over the block (any multiple of 32 threads up to 1024); every thread
// gets the same value. red has 33 slots.
__device__ __forceinline__ float block_sum(float v, float* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nw = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float p = lane < nw ? red[lane] : 0.f;
        p = warp_sum(p);
        if (lane == 0) red[32] = p;
    }
    __syncthreads();
    return red[32];
}

template <class T>
__device__ __forceinline__ void rmsnorm_cluster_row(T* __restrict__ out, const T* __restrict__ in,
                                                    const T* __restrict__ w, float eps, int hidden) {
    __shared__ float red[33];
    __shared__ float partial;      // this block's sum of squares, read by the cluster's blocks
    cg::cluster_group cluster = cg::this_cluster();
    const int nblocks = (int)cluster.num_blocks();
    const int rank = (int)cluster.block_rank();
    const size_t base = (size_t)blockIdx.y * (size_t)hidden;
    const T* x = in + base;
#ifdef KC_CONTROL_slice_floor
    // BUG: the slice is hidden / C rounded down: when C does not divide hidden the
    // last hidden % C elements of every row are in no block's slice. They are
    // neither summed nor written (gate 2: outputs never written).
    const int chunk = hidden / nblocks;
#else
    const int chunk = (hidden + nblocks - 1) / nblocks;
#endif
    const int lo = rank * chunk;
    const int hi = min(hidden, lo + chunk);
    float ss = 0.f;
    for (int j = lo + (int)threadIdx.x; j < hi; j += (int)blockDim.x) {
        const float v = ld_f(x + j);
        ss = fmaf(v, v, ss);
    }
    ss = block_sum(ss, red);
    if (threadIdx.x == 0) partial = ss;
#ifndef KC_CONTROL_peer_read_before_sync
    // (the control reads the peers' partials without this barrier: a peer that
    // has not stored its sum yet still holds the poison or an earlier block's value)
    cluster.sync();
#endif
    float tot = 0.f;
    for (int r = 0; r < nblocks; r++) {
#ifdef KC_CONTROL_own_partial_only
        // BUG: the peer loop maps this block's own rank instead of r: the total is
        // C times this block's partial, and each block of the cluster gets its own
        // 1/rms (gate 3).
        tot += *cluster.map_shared_rank(&partial, rank);
#else
        tot += *cluster.map_shared_rank(&partial, r);
#endif
    }
    const float rinv = rsqrtf(tot / (float)hidden + eps);
    for (int j = lo + (int)threadIdx.x; j < hi; j += (int)blockDim.x)
        st_f(out + base + j, ld_f(x + j) * rinv * ld_f(w + j));
    // No block leaves while a peer may still read its partial.
    cluster.sync();
}

#define RMSC_BOUNDS __launch_bounds__(1024)
extern "C" __global__ void RMSC_BOUNDS rmsnorm_cluster_f16(__half* __restrict__ out, const __half* __restrict__ x,
                                                           const __half* __restrict__ w, float eps, int hidden)
{ rmsnorm_cluster_row(out, x, w, eps, hidden); }
extern "C" __global__ void RMSC_BOUNDS rmsnorm_cluster_bf16(__nv_bfloat16* __restrict__ out,
                                                            const __nv_bfloat16* __restrict__ x,
                                                            const __nv_bfloat16* __restrict__ w, float eps, int hidden)
{ rmsnorm_cluster_row(out, x, w, eps, hidden); }
