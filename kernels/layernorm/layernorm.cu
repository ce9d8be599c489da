// layernorm.cu — LayerNorm over the last dim of [tokens, hidden], one block per token:
//   y = (x - mean) / sqrt(var + eps) * w + b        (biased variance, as torch)
// f32 math, deterministic shifted two-pass: with x0 = the row's first element,
//   pass 1: dmean = sum(x - x0) / hidden            (mean = x0 + dmean, never rounded)
//   pass 2: var   = sum(((x - x0) - dmean)^2) / hidden
//   pass 3: y     = ((x - x0) - dmean) * rsqrt(var + eps) * w + b
// Shifting by x0 keeps rows with a large common offset (x = 1000 + N(0,1))
// free of cancellation. Block sizes are any multiple of 32 up to 1024 (448 and
// 640 threads on Qwen/5120 rows: not powers of two).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float ld_f(const float* p) { return *p; }
__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st_f(float* p, float v) { *p = v; }
__device__ __forceinline__ void st_f(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void st_f(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

// Sum over the block in a fixed order; every thread gets the same value. red has 33 slots.
__device__ __forceinline__ float block_sum(float v, float* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nw = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    if (lane == 0) red[warp] = v;
    __syncthreads();
#ifdef KC_CONTROL_pow2_reduce
    // BUG: tree over the warp partials assumes a power-of-two warp count (drops partials with 14/20/3 warps)
    for (int s = nw / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float r = red[0];
    __syncthreads();
    return r;
#else
    if (warp == 0) {
        float p = lane < nw ? red[lane] : 0.f;
        p = warp_sum(p);
        if (lane == 0) red[32] = p;
    }
    __syncthreads();
    return red[32];
#endif
}

template <class T>
__device__ __forceinline__ void layernorm_row(T* __restrict__ out, const T* __restrict__ in, const T* __restrict__ w,
                                              const T* __restrict__ b, float eps, int hidden) {
    __shared__ float red[33];
    const size_t base = (size_t)blockIdx.x * (size_t)hidden;
    const T* x = in + base;
    T* y = out + base;
    const float x0 = ld_f(x);
    const float inv_n = 1.f / (float)hidden;
    float s = 0.f;
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) s += ld_f(x + j) - x0;
    const float dmean = block_sum(s, red) * inv_n;
#ifdef KC_CONTROL_naive_variance
    // BUG: var = E[x^2] - mean^2 in f32: catastrophic cancellation when |mean| >> std (x = 1000 + N(0,1))
    const float mean = x0 + dmean;
    float sq = 0.f;
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) { const float v = ld_f(x + j); sq = fmaf(v, v, sq); }
    const float var = fmaxf(block_sum(sq, red) * inv_n - mean * mean, 0.f);
#define LN_CENTER(v) ((v) - mean)
#else
    float ss = 0.f;
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
        const float d = (ld_f(x + j) - x0) - dmean;
        ss = fmaf(d, d, ss);
    }
    const float var = block_sum(ss, red) * inv_n;
#define LN_CENTER(v) (((v) - x0) - dmean)
#endif
    const float rinv = rsqrtf(var + eps);
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
        const float d = LN_CENTER(ld_f(x + j));
#ifdef KC_CONTROL_bias_ignored
        // BUG: the bias is never added
        st_f(y + j, d * rinv * ld_f(w + j));
#else
        st_f(y + j, fmaf(d * rinv, ld_f(w + j), ld_f(b + j)));
#endif
    }
#undef LN_CENTER
}

extern "C" __global__ void __launch_bounds__(1024)
layernorm_f32(float* __restrict__ out, const float* __restrict__ in, const float* __restrict__ w, const float* __restrict__ b, float eps, int hidden)
{ layernorm_row(out, in, w, b, eps, hidden); }
extern "C" __global__ void __launch_bounds__(1024)
layernorm_f16(__half* __restrict__ out, const __half* __restrict__ in, const __half* __restrict__ w, const __half* __restrict__ b, float eps, int hidden)
{ layernorm_row(out, in, w, b, eps, hidden); }
extern "C" __global__ void __launch_bounds__(1024)
layernorm_bf16(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ in, const __nv_bfloat16* __restrict__ w, const __nv_bfloat16* __restrict__ b, float eps, int hidden)
{ layernorm_row(out, in, w, b, eps, hidden); }
