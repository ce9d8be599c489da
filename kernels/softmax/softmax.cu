// softmax.cu — row softmax over [rows, cols]: one block per row, f32 math,
// one-pass online softmax (running max m and sum s rescaled as m grows) per
// thread, combined with warp shuffles and then across warps through shared
// memory; a second pass writes exp(x - m) / s.
// Semantics: entries equal to -inf give exactly 0; a row whose entries are all
// -inf gives NaN everywhere (as torch.softmax does). Block sizes need not be a
// power of two (the contract launches 96/192/320/640 threads on some shapes).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math.h>

#define SOFTMAX_MAX_THREADS 640

__device__ __forceinline__ float ld_f(const float* p) { return *p; }
__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st_f(float* p, float v) { *p = v; }
__device__ __forceinline__ void st_f(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void st_f(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

// Merges partial (m2, s2) into (m, s).
__device__ __forceinline__ void sm_combine(float& m, float& s, float m2, float s2) {
    float mn = fmaxf(m, m2);
#ifdef KC_CONTROL_neg_inf_combine
    // BUG: no guard for two empty (-inf max) partials: exp(-inf - -inf) = NaN.
    s = s * expf(m - mn) + s2 * expf(m2 - mn);
#else
    if (mn != -INFINITY) s = s * expf(m - mn) + s2 * expf(m2 - mn);
#endif
    m = mn;
}

template <class T>
__device__ __forceinline__ void softmax_row(T* __restrict__ out, const T* __restrict__ in, int rows, int cols) {
    __shared__ float red_m[32], red_s[32];
    __shared__ float bc_m, bc_s;
    const int row = blockIdx.x;
    if (row >= rows) return;
    const T* x = in + (size_t)row * (size_t)cols;
    T* y = out + (size_t)row * (size_t)cols;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int nw = (blockDim.x + 31) >> 5;

    float m = -INFINITY, s = 0.f;
    for (int j = tid; j < cols; j += blockDim.x) {
        float v = ld_f(x + j);
        if (v > m) { s = s * expf(m - v) + 1.f; m = v; }
        else if (v != -INFINITY) s += expf(v - m);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        float m2 = __shfl_down_sync(0xffffffffu, m, off);
        float s2 = __shfl_down_sync(0xffffffffu, s, off);
        sm_combine(m, s, m2, s2);
    }
    if (lane == 0) { red_m[warp] = m; red_s[warp] = s; }
    __syncthreads();
    if (warp == 0) {
#ifdef KC_CONTROL_unwritten_smem_slots
        // BUG: reads all 32 partial slots although only nw warps wrote theirs.
        m = red_m[lane]; s = red_s[lane]; (void)nw;
#else
        m = lane < nw ? red_m[lane] : -INFINITY;
        s = lane < nw ? red_s[lane] : 0.f;
#endif
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            float m2 = __shfl_down_sync(0xffffffffu, m, off);
            float s2 = __shfl_down_sync(0xffffffffu, s, off);
            sm_combine(m, s, m2, s2);
        }
        if (lane == 0) { bc_m = m; bc_s = s; }
    }
#ifndef KC_CONTROL_missing_sync_broadcast
    // (the control drops this barrier: warps 1.. read bc_m/bc_s before warp 0 wrote them)
    __syncthreads();
#endif
    const float mm = bc_m, inv = 1.f / bc_s;   // all -inf row: mm=-inf, inv=inf -> NaN
    for (int j = tid; j < cols; j += blockDim.x) {
        float v = ld_f(x + j);
        st_f(y + j, expf(v - mm) * inv);
    }
}

extern "C" __global__ void __launch_bounds__(SOFTMAX_MAX_THREADS)
softmax_f32(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) { softmax_row(out, in, rows, cols); }
extern "C" __global__ void __launch_bounds__(SOFTMAX_MAX_THREADS)
softmax_f16(__half* __restrict__ out, const __half* __restrict__ in, int rows, int cols) { softmax_row(out, in, rows, cols); }
extern "C" __global__ void __launch_bounds__(SOFTMAX_MAX_THREADS)
softmax_bf16(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ in, int rows, int cols) { softmax_row(out, in, rows, cols); }
