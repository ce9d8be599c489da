// token_quant_pdl.cu — dynamic per-token FP8 (e4m3) quantization of an
// activation tensor [rows (tokens), cols (hidden)] as a producer and its
// dependent under programmatic dependent launch (PDL, sm_90), the pair a
// contract of two steps runs (kc_step; kernels/pdl/pdl_contract.c):
//   producer  pdl_token_scale_<t>: scale[r] = max(amax_r / 448, 1 / (448 * 512))
//             (f32; amax_r = max |x[r, :]|; the dequant scale, floored as
//             vLLM's per-token dynamic quantization does, so a row of zeros
//             gets a finite multiplier)
//   dependent pdl_token_quant_<t>: q[r, c] = e4m3_satfinite(x[r, c] * (1 / scale[r]))
// and the consumer dequantizes with y = q * scale[r].
//
// How the pair overlaps. The producer is a persistent grid (at most 2 blocks
// of 256 threads per SM, each reducing a contiguous slice of rows) that calls
// cudaTriggerProgrammaticLaunchCompletion() (griddepcontrol.launch_dependents)
// as it starts: once every block of it has, the dependent, launched with
// programmatic stream serialization, may start on the SMs' free slots while
// the producer still reduces. The dependent's blocks (one a row) first load
// their row's first 2048 elements of x into registers — x is the producer's
// input, never its output, so that needs no wait — and then call
// cudaGridDependencySynchronize() (griddepcontrol.wait), which returns once
// the producer grid has completed and its writes are visible; only then do
// they read scale. The wait is for the producer's completion, not for its
// trigger, so triggering first is correct: the trigger only says when the
// dependent may be scheduled.
//
// Controls (gate 3: the dependent reads scale before the producer wrote it,
// i.e. the output's poison, and quantizes its row with it):
//   dependent_no_wait   the dependent has no cudaGridDependencySynchronize()
//   wait_in_one_thread  only thread 0 of each block waits (read as if it were a
//                       block-wide barrier, like __syncthreads); the block's
//                       other threads read scale at once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// griddepcontrol needs sm_90: an image for an older architecture (a build
// with another KC_CUDA_ARCH) cannot wait, so there the trigger and the wait
// trap instead (gate 1); the Makefile always adds an sm_90 image.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define PDL_TRIGGER() __trap()
#define PDL_WAIT() __trap()
#else
#define PDL_TRIGGER() cudaTriggerProgrammaticLaunchCompletion()
#define PDL_WAIT() cudaGridDependencySynchronize()
#endif

__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

// Max over the block (a multiple of 32 threads); every thread gets it. Safe
// to call again at once: red[warp] is written only after every thread has
// passed the first barrier of the next call, red[32] after the second.
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
__device__ __forceinline__ void token_scale(float* scale, const T* __restrict__ x, long long rows, long long cols) {
    __shared__ float red[33];
    // The dependent may be scheduled from now on: it waits for this grid's
    // completion before it reads scale (see above).
    PDL_TRIGGER();
    const long long per = (rows + gridDim.x - 1) / gridDim.x, end = min(rows, (blockIdx.x + 1) * per);
    for (long long r = blockIdx.x * per; r < end; r++) {
        const T* xr = x + r * cols;
        float m = 0.f;
        for (long long c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, fabsf(ld_f(xr + c)));
        m = block_max(m, red);
        if (threadIdx.x == 0) scale[r] = fmaxf(m / 448.f, 1.f / (448.f * 512.f));
    }
}

// Elements of a row each thread loads before the wait: 8 x 256 threads covers
// a 2048-wide row (the rest is read after it).
#define PDL_PREFETCH 8

// scale is read through the coherent path (no __restrict__, no __ldg): it is
// written by the producer while this grid may already run.
template <class T>
__device__ __forceinline__ void token_quant(__nv_fp8_storage_t* __restrict__ q, const float* scale,
                                            const T* __restrict__ x, long long rows, long long cols) {
    const long long r = blockIdx.x;
    if (r >= rows) return;
    const T* xr = x + r * cols;
    __nv_fp8_storage_t* qr = q + r * cols;
    float pre[PDL_PREFETCH];
#pragma unroll
    for (int k = 0; k < PDL_PREFETCH; k++) {
        const long long c = threadIdx.x + (long long)k * blockDim.x;
        pre[k] = c < cols ? ld_f(xr + c) : 0.f;
    }
#if defined(KC_CONTROL_dependent_no_wait)
    // BUG: no wait: scale[r] is read while the producer may not have written it.
#elif defined(KC_CONTROL_wait_in_one_thread)
    // BUG: the wait is per thread, not per block: threads 1.. read scale[r] at once.
    if (threadIdx.x == 0) PDL_WAIT();
#else
    PDL_WAIT();
#endif
    const float inv = 1.f / scale[r];
#pragma unroll
    for (int k = 0; k < PDL_PREFETCH; k++) {
        const long long c = threadIdx.x + (long long)k * blockDim.x;
        if (c < cols) qr[c] = __nv_cvt_float_to_fp8(pre[k] * inv, __NV_SATFINITE, __NV_E4M3);
    }
    for (long long c = threadIdx.x + (long long)PDL_PREFETCH * blockDim.x; c < cols; c += blockDim.x)
        qr[c] = __nv_cvt_float_to_fp8(ld_f(xr + c) * inv, __NV_SATFINITE, __NV_E4M3);
}

extern "C" __global__ void __launch_bounds__(256) pdl_token_scale_f16(float* scale, const __half* x, long long rows,
                                                                      long long cols) {
    token_scale(scale, x, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) pdl_token_scale_bf16(float* scale, const __nv_bfloat16* x,
                                                                       long long rows, long long cols) {
    token_scale(scale, x, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) pdl_token_quant_f16(__nv_fp8_storage_t* q, const float* scale,
                                                                      const __half* x, long long rows, long long cols) {
    token_quant(q, scale, x, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) pdl_token_quant_bf16(__nv_fp8_storage_t* q, const float* scale,
                                                                       const __nv_bfloat16* x, long long rows,
                                                                       long long cols) {
    token_quant(q, scale, x, rows, cols);
}
