// quant_fp8.cu — dynamic per-tensor FP8 (e4m3) quantization of an activation
// tensor in ONE cooperative kernel with grid-wide syncs (sm_90):
//   amax  = max |x|                                  (the whole tensor)
//   scale = max(amax / 448, 1 / (448 * 512))         (f32; the dequant scale,
//            floored as vLLM's dynamic_scaled_fp8_quant does, so a tensor of
//            zeros or subnormals gets a finite multiplier)
//   q[i]  = e4m3_satfinite(x[i] * (1 / scale))       (f32 product, RNE)
// and scale is written out for the consumer (y = q * scale).
// The usual form is two kernels (an amax reduction, then the quantization);
// a cooperative launch (kc_launch.cooperative) makes every block resident at
// once, so the grid can sync twice inside one kernel instead:
//   1. block 0 zeroes the amax slot (the scale output, as bits); grid sync;
//   2. each block reduces max |x| over its grid-stride elements and
//      atomicMax-es it into the slot (non-negative floats order as their
//      bits, so the result is the same whatever the order); grid sync;
//   3. every block reads amax, quantizes its elements; grid sync (no block
//      may still read the slot); block 0 stores the dequant scale over it.
// Grid: at most 2 blocks of 256 threads per SM (the launch sizes it), so
// every block fits at once; grid-stride loops cover any n.
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace cg = cooperative_groups;

__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

// Max over the block (a multiple of 32 threads); every thread gets it.
__device__ __forceinline__ float block_max(float v, float* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    v = warp_max(v);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float p = lane < nw ? red[lane] : 0.f;
        p = warp_max(p);
        if (lane == 0) red[32] = p;
    }
    __syncthreads();
    return red[32];
}

template <class T>
__device__ __forceinline__ void quant_fp8_tensor(__nv_fp8_storage_t* __restrict__ q, float* __restrict__ scale,
                                                 const T* __restrict__ x, long long n) {
    __shared__ float red[33];
    cg::grid_group grid = cg::this_grid();
    unsigned* slot = reinterpret_cast<unsigned*>(scale);
    const long long stride = (long long)grid.size();
    if (grid.thread_rank() == 0) *slot = 0u;      // +0.0f
    grid.sync();
    float m = 0.f;
    for (long long i = (long long)grid.thread_rank(); i < n; i += stride) {
#ifdef KC_CONTROL_amax_signed
        // BUG: the maximum of x, not of |x|: a tensor whose largest magnitude is
        // negative gets a scale too small for it, and those elements saturate (gate 3).
        m = fmaxf(m, ld_f(x + i));
#else
        m = fmaxf(m, fabsf(ld_f(x + i)));
#endif
    }
    m = block_max(m, red);
    if (threadIdx.x == 0) atomicMax(slot, __float_as_uint(m));
#ifndef KC_CONTROL_no_grid_sync
    // (the control drops this grid sync: a block reads the slot before every
    // block has added its maximum, and quantizes with a smaller amax)
    grid.sync();
#endif
    const float amax = __uint_as_float(*(volatile unsigned*)slot);
    const float s = fmaxf(amax / 448.f, 1.f / (448.f * 512.f));
    const float inv = 1.f / s;
    for (long long i = (long long)grid.thread_rank(); i < n; i += stride)
        q[i] = __nv_cvt_float_to_fp8(ld_f(x + i) * inv, __NV_SATFINITE, __NV_E4M3);
    grid.sync();
#ifdef KC_CONTROL_scale_not_inverted
    // BUG: stores the quantization multiplier 1/scale instead of the dequant
    // scale the consumer multiplies by (gate 3 on the scale output).
    if (grid.thread_rank() == 0) *scale = inv;
#else
    if (grid.thread_rank() == 0) *scale = s;
#endif
}

#define QF8_BOUNDS __launch_bounds__(256)
extern "C" __global__ void QF8_BOUNDS quant_fp8_tensor_bf16(__nv_fp8_storage_t* __restrict__ q, float* __restrict__ scale,
                                                            const __nv_bfloat16* __restrict__ x, long long n)
{ quant_fp8_tensor(q, scale, x, n); }
extern "C" __global__ void QF8_BOUNDS quant_fp8_tensor_f16(__nv_fp8_storage_t* __restrict__ q, float* __restrict__ scale,
                                                           const __half* __restrict__ x, long long n)
{ quant_fp8_tensor(q, scale, x, n); }
