// rmsnorm.cu — RMSNorm over the last dim of [tokens, hidden], one block per token:
//   y = x / sqrt(mean(x^2) + eps) * w          (rmsnorm_<t>)
// and vLLM's fused_add_rms_norm (fused_add_rmsnorm_<t>), in place on both buffers:
//   residual <- T(x + residual)   (computed in f32, stored as T)
//   x        <- T(residual' / sqrt(mean(residual'^2) + eps) * w)
// where residual' is the stored (rounded) value, so the output is exactly the
// rmsnorm of the residual the next layer sees. Sum of squares in f32; the block
// size is any multiple of 32 up to 1024 (not necessarily a power of two).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float ld_f(const float* p) { return *p; }
__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ float rnd(float v, float*) { return v; }
__device__ __forceinline__ float rnd(float v, __half*) { return __half2float(__float2half_rn(v)); }
__device__ __forceinline__ float rnd(float v, __nv_bfloat16*) { return __bfloat162float(__float2bfloat16_rn(v)); }
__device__ __forceinline__ void st_f(float* p, float v) { *p = v; }
__device__ __forceinline__ void st_f(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void st_f(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

#ifdef KC_CONTROL_half_accum
// BUG: per-thread sum of squares accumulated in half precision (overflows past 65504).
typedef __half acc_t;
__device__ __forceinline__ acc_t acc_add(acc_t a, float v) { return __hadd(a, __float2half_rn(v * v)); }
__device__ __forceinline__ float acc_get(acc_t a) { return __half2float(a); }
__device__ __forceinline__ acc_t acc_zero() { return __float2half_rn(0.f); }
#else
typedef float acc_t;
__device__ __forceinline__ acc_t acc_add(acc_t a, float v) { return fmaf(v, v, a); }
__device__ __forceinline__ float acc_get(acc_t a) { return a; }
__device__ __forceinline__ acc_t acc_zero() { return 0.f; }
#endif

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

// Sum over the block; every thread gets the same value. red has 33 slots.
__device__ __forceinline__ float block_sum(float v, float* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nw = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    if (lane == 0) red[warp] = v;
#ifndef KC_CONTROL_missing_sync_partials
    // (the control drops this barrier: warp 0 reads the other warps' slots right after writing its own)
    __syncthreads();
#endif
#ifdef KC_CONTROL_pow2_reduce
    // BUG: tree over the warp slots assumes nw is a power of two (drops slots otherwise).
    for (int s = nw / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    return red[0];
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
__device__ __forceinline__ void rmsnorm_row(T* __restrict__ out, const T* __restrict__ in,
                                            const T* __restrict__ w, float eps, int hidden) {
    __shared__ float red[33];
    const size_t base = (size_t)blockIdx.x * (size_t)hidden;
    const T* x = in + base;
    acc_t ss = acc_zero();
#ifdef KC_CONTROL_vector_tail_overread
    // BUG: the sum of squares walks hidden rounded up to the 8-element vector width and masks the
    // lanes past the row by multiplying them by 0 (a branch-free tail) instead of not loading them.
    // Inside the buffer a masked lane reads the next row: finite, times 0, no effect. Past the last
    // row's end (hidden % 8 != 0: 1, 31, 33, 1023) it reads the guard band: the old guard byte 0xCB
    // is a finite value there (f16 -15.6, bf16 and f32 about -2.7e7, squares finite), so 0 x it = 0
    // and every output was exact; the read canary 0xFF is NaN, 0 x NaN = NaN, and the last token's
    // outputs become NaN: gate 3 fails on them, the only gate that can see this read.
    const int hv = (hidden + 7) & ~7;
    for (int j = threadIdx.x; j < hv; j += blockDim.x) ss = acc_add(ss, ld_f(x + j) * (j < hidden ? 1.f : 0.f));
#else
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) ss = acc_add(ss, ld_f(x + j));
#endif
    const float tot = block_sum(acc_get(ss), red);
#ifdef KC_CONTROL_eps_per_sum
    // BUG: eps added to the sum of squares before the division by hidden: the effective epsilon is
    // eps / hidden. Random rows have mean squares >= ~0.3 >> eps, so rinv moves by
    // eps (1 - 1/hidden) / (2 mean(x^2)) <= 1.5e-5 relative (a lean of ~0.02 f16 ulp, inside the
    // 1/32 slack), and hidden = 1 is unchanged; f16 DENORMAL rows (mean square ~1.2e-9 << eps) get
    // rinv = 1/sqrt(1.2e-9 + eps/hidden) ~ 16000 instead of ~316: outputs 25-50x too large, past
    // atol 1e-5 on about half the elements. Only the boundary distribution reaches it.
    const float rinv = rsqrtf((tot + eps) / (float)hidden);
#else
    const float rinv = rsqrtf(tot / (float)hidden + eps);
#endif
    for (int j = threadIdx.x; j < hidden; j += blockDim.x)
        st_f(out + base + j, ld_f(x + j) * rinv * ld_f(w + j));
}

template <class T>
__device__ __forceinline__ void fused_add_rmsnorm_row(T* __restrict__ x, T* __restrict__ residual,
                                                      const T* __restrict__ w, float eps, int hidden) {
    __shared__ float red[33];
    const size_t base = (size_t)blockIdx.x * (size_t)hidden;
    T* xr = x + base;
    T* rr = residual + base;
    acc_t ss = acc_zero();
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
        float z = rnd(ld_f(xr + j) + ld_f(rr + j), (T*)nullptr);
        st_f(rr + j, z);
        ss = acc_add(ss, z);
    }
    const float tot = block_sum(acc_get(ss), red);
    const float rinv = rsqrtf(tot / (float)hidden + eps);
    // Same thread-to-element mapping as the first loop: each thread rereads
    // only the residual entries it wrote itself.
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
#ifdef KC_CONTROL_reread_updated_residual
        // BUG: recomputes x + residual after residual was already updated in place (x + (x + r)).
        float z = rnd(ld_f(xr + j) + ld_f(rr + j), (T*)nullptr);
#else
        float z = ld_f(rr + j);
#endif
        st_f(xr + j, z * rinv * ld_f(w + j));
    }
}

#define RMS_BOUNDS __launch_bounds__(1024)
extern "C" __global__ void RMS_BOUNDS rmsnorm_f32(float* __restrict__ out, const float* __restrict__ x, const float* __restrict__ w, float eps, int hidden) { rmsnorm_row(out, x, w, eps, hidden); }
extern "C" __global__ void RMS_BOUNDS rmsnorm_f16(__half* __restrict__ out, const __half* __restrict__ x, const __half* __restrict__ w, float eps, int hidden) { rmsnorm_row(out, x, w, eps, hidden); }
extern "C" __global__ void RMS_BOUNDS rmsnorm_bf16(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w, float eps, int hidden) { rmsnorm_row(out, x, w, eps, hidden); }
extern "C" __global__ void RMS_BOUNDS fused_add_rmsnorm_f32(float* __restrict__ x, float* __restrict__ residual, const float* __restrict__ w, float eps, int hidden) { fused_add_rmsnorm_row(x, residual, w, eps, hidden); }
extern "C" __global__ void RMS_BOUNDS fused_add_rmsnorm_f16(__half* __restrict__ x, __half* __restrict__ residual, const __half* __restrict__ w, float eps, int hidden) { fused_add_rmsnorm_row(x, residual, w, eps, hidden); }
extern "C" __global__ void RMS_BOUNDS fused_add_rmsnorm_bf16(__nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ residual, const __nv_bfloat16* __restrict__ w, float eps, int hidden) { fused_add_rmsnorm_row(x, residual, w, eps, hidden); }
