// gemv.cu — y[m, n] = sum_k W[n, k] * x[m, k] for a small batch M (1..8):
// W row-major [N, K] (f16 or bf16), x [M, ldx] (same dtype, row stride ldx >= K),
// y [M, N] f32, f32 accumulation. One warp per output row n (all M batch rows
// at once), 4 warps per block, blocks loop over row tiles. Each W row is read
// as an unaligned head (< 8 elements), 16-byte vectors (8 elements), and a
// scalar tail when K is not a multiple of 8 (rows then start at varying
// alignments). Lane partials are summed with a fixed shuffle tree (deterministic).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#define GEMV_WARPS 4
#define GEMV_MAX_M 8

__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(__ldg(p)); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(__ldg(p)); }
__device__ __forceinline__ float elem_f(const __half* v, int i) { return __half2float(v[i]); }
__device__ __forceinline__ float elem_f(const __nv_bfloat16* v, int i) { return __bfloat162float(v[i]); }

#ifdef KC_CONTROL_half_accum
// BUG: per-lane accumulators kept in half precision (loses bits as the sum grows).
struct acc_t { __half v; };
__device__ __forceinline__ void acc_zero(acc_t& a) { a.v = __float2half_rn(0.f); }
__device__ __forceinline__ void acc_fma(acc_t& a, float w, float x) { a.v = __hfma(__float2half_rn(w), __float2half_rn(x), a.v); }
__device__ __forceinline__ float acc_get(const acc_t& a) { return __half2float(a.v); }
#else
struct acc_t { float v; };
__device__ __forceinline__ void acc_zero(acc_t& a) { a.v = 0.f; }
__device__ __forceinline__ void acc_fma(acc_t& a, float w, float x) { a.v = fmaf(w, x, a.v); }
__device__ __forceinline__ float acc_get(const acc_t& a) { return a.v; }
#endif

template <class T>
__device__ __forceinline__ void gemv_impl(float* __restrict__ y, const T* __restrict__ W, const T* __restrict__ x,
                                          int M, int N, int K, long long ldx) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#ifdef KC_CONTROL_tiles_floor
    // BUG: tile count rounded down (a grid one block short): the last N % 4 rows are never computed.
    const long long ntiles = (long long)N / GEMV_WARPS;
#else
    const long long ntiles = ((long long)N + GEMV_WARPS - 1) / GEMV_WARPS;
#endif
#ifdef KC_CONTROL_x_stride_assumed_k
    // BUG: assumes x rows are contiguous (row stride K) instead of ldx.
    const size_t xs = (size_t)K;
#else
    const size_t xs = (size_t)ldx;
#endif
    (void)ldx;
    for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const long long n = tile * GEMV_WARPS + warp;
        if (n >= N) continue;   // warp-uniform; no block barriers in this kernel
        acc_t acc[GEMV_MAX_M];
#pragma unroll
        for (int m = 0; m < GEMV_MAX_M; m++) acc_zero(acc[m]);

        // Element range of row n in W: [s, e); aligned 8-element vectors in [a, b).
        const size_t s = (size_t)n * (size_t)K, e = s + (size_t)K;
        size_t a = (s + 7) & ~(size_t)7;
        if (a > e) a = e;
        size_t b = e & ~(size_t)7;
        if (b < a) b = a;
        // head: s .. a (< 8 elements)
        for (size_t i = s + lane; i < a; i += 32) {
            const float w = ld_f(W + i);
            const size_t k = i - s;
#pragma unroll
            for (int m = 0; m < GEMV_MAX_M; m++) if (m < M) acc_fma(acc[m], w, ld_f(x + m * xs + k));
        }
        // body: 16-byte vectors of W
        const uint4* Wv = reinterpret_cast<const uint4*>(W);
        for (size_t v = a / 8 + lane; v < b / 8; v += 32) {
            const uint4 raw = __ldg(Wv + v);
            const T* wv = reinterpret_cast<const T*>(&raw);
            const size_t k0 = v * 8 - s;
#pragma unroll
            for (int m = 0; m < GEMV_MAX_M; m++) {
                if (m < M) {
                    const T* xm = x + m * xs + k0;
#pragma unroll
                    for (int j = 0; j < 8; j++) acc_fma(acc[m], elem_f(wv, j), ld_f(xm + j));
                }
            }
        }
#ifndef KC_CONTROL_skip_tail
        // tail: b .. e (< 8 elements; the control skips it when K is not a multiple of 8)
        for (size_t i = b + lane; i < e; i += 32) {
            const float w = ld_f(W + i);
            const size_t k = i - s;
#pragma unroll
            for (int m = 0; m < GEMV_MAX_M; m++) if (m < M) acc_fma(acc[m], w, ld_f(x + m * xs + k));
        }
#endif
#pragma unroll
        for (int m = 0; m < GEMV_MAX_M; m++) {
            if (m < M) {
                float p = acc_get(acc[m]);
#pragma unroll
                for (int off = 16; off > 0; off >>= 1) p += __shfl_down_sync(0xffffffffu, p, off);
                if (lane == 0) y[(size_t)m * (size_t)N + (size_t)n] = p;
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(GEMV_WARPS * 32)
gemv_f16(float* __restrict__ y, const __half* __restrict__ W, const __half* __restrict__ x, int M, int N, int K, long long ldx)
{ gemv_impl(y, W, x, M, N, K, ldx); }
extern "C" __global__ void __launch_bounds__(GEMV_WARPS * 32)
gemv_bf16(float* __restrict__ y, const __nv_bfloat16* __restrict__ W, const __nv_bfloat16* __restrict__ x, int M, int N, int K, long long ldx)
{ gemv_impl(y, W, x, M, N, K, ldx); }
