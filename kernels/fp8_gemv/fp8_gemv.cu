// fp8_gemv.cu — FP8 (e4m3fn) weight GEMV with 128x128 block scales (DeepSeek-V3 style):
//   y[m, n] = sum_k x[m, k] * W[n, k] * S[n / 128, k / 128]
// W [N, K] e4m3fn bytes, row-major; S f32 [ceil(N/128), ceil(K/128)], row-major
// (one scale per 128x128 block of W: the dequantized weight is W * S);
// x [M, K] f16 or bf16 (M = 1..8 batch rows); y [M, N] f32; f32 accumulation.
// Decoding uses cuda_fp8.h (__nv_cvt_fp8_to_halfraw, e4m3 -> f16 is exact).
//
// One warp per output row n (8 warps per block, grid = ceil(N/8)). For each
// 128-wide K block kb a lane takes 4 consecutive elements (a 4-byte load of W
// when K % 4 == 0, so every row is 4-byte aligned; byte loads otherwise, with
// k >= K skipped), forms p = sum w*x (exact products: 4 x 11 significant bits),
// and adds s * p into its f32 accumulator (one fma). Lane partials are summed
// with a fixed shuffle tree: bitwise deterministic.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#define FP8_WARPS 8
#define FP8_MAX_M 8
#define FP8_BLOCK 128

__device__ __forceinline__ float fp8_e4m3_to_f(unsigned b)
{
    const __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)b, __NV_E4M3);
    return __half2float(__half(h));
}
__device__ __forceinline__ float fp8_ld_x(const __half* p) { return __half2float(__ldg(p)); }
__device__ __forceinline__ float fp8_ld_x(const __nv_bfloat16* p) { return __bfloat162float(__ldg(p)); }

template <class T>
__device__ __forceinline__ void fp8_gemv_impl(float* __restrict__ y, const uint8_t* __restrict__ W,
                                              const float* __restrict__ S, const T* __restrict__ x,
                                              int M, int N, int K)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int n = blockIdx.x * FP8_WARPS + warp;
    if (n >= N) return;   // warp-uniform; no block barriers in this kernel
    const int nkb = (K + FP8_BLOCK - 1) / FP8_BLOCK;
#ifdef KC_CONTROL_scale_stride_floor
    // BUG: the scale tensor's row stride computed as K/128 (floor): when K % 128 != 0
    // every row block after the first reads its scales shifted by nb blocks.
    const int sstride = K / FP8_BLOCK;
#else
    const int sstride = nkb;
#endif
#ifdef KC_CONTROL_scale_nblocks_floor
    // BUG: the row-block count taken as N/128 (floor) and the row block clamped into it:
    // rows of a partial last row block use the previous block's scales (N < 128: row
    // block -1, read from before the start of S).
    const int nnb_full = N / FP8_BLOCK;
    const int nb = min(n / FP8_BLOCK, nnb_full - 1);
#else
    const int nb = n / FP8_BLOCK;
#endif
#ifdef KC_CONTROL_k_tail_skipped
    // BUG: only whole 128-wide K blocks are walked: the tail K % 128 is skipped.
    const int kbs = K / FP8_BLOCK;
#else
    const int kbs = nkb;
#endif
    const bool vec = (K & 3) == 0;
    const uint8_t* row = W + (long long)n * K;

    float acc[FP8_MAX_M];
#pragma unroll
    for (int m = 0; m < FP8_MAX_M; m++) acc[m] = 0.f;

    for (int kb = 0; kb < kbs; kb++) {
#ifdef KC_CONTROL_scale_swapped
        // BUG: row block and column block swapped when indexing S.
        const int nnb = (N + FP8_BLOCK - 1) / FP8_BLOCK;
        const float s = __ldg(S + (long long)kb * nnb + nb);
        (void)sstride;
#else
        const float s = __ldg(S + (long long)nb * sstride + kb);
#endif
        const int k = kb * FP8_BLOCK + lane * 4;
        if (k >= K) continue;
        float w[4];
        if (vec) {   // K % 4 == 0: k + 4 <= K and the 4 bytes are 4-byte aligned
            const unsigned raw = __ldg(reinterpret_cast<const unsigned*>(row + k));
#pragma unroll
            for (int j = 0; j < 4; j++) w[j] = fp8_e4m3_to_f((raw >> (8 * j)) & 0xffu);
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++) w[j] = k + j < K ? fp8_e4m3_to_f(__ldg(row + k + j)) : 0.f;
        }
#pragma unroll
        for (int m = 0; m < FP8_MAX_M; m++) {
            if (m < M) {
                const T* xm = x + (long long)m * K + k;
                float p = w[0] * fp8_ld_x(xm);
#pragma unroll
                for (int j = 1; j < 4; j++)
                    if (k + j < K) p = fmaf(w[j], fp8_ld_x(xm + j), p);
                acc[m] = fmaf(s, p, acc[m]);
            }
        }
    }
#pragma unroll
    for (int m = 0; m < FP8_MAX_M; m++) {
        if (m < M) {
            float p = acc[m];
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) p += __shfl_down_sync(0xffffffffu, p, off);
            if (lane == 0) y[(long long)m * N + n] = p;
        }
    }
}

extern "C" __global__ void __launch_bounds__(FP8_WARPS * 32)
fp8_gemv_f16(float* __restrict__ y, const uint8_t* __restrict__ W, const float* __restrict__ S,
             const __half* __restrict__ x, int M, int N, int K)
{ fp8_gemv_impl(y, W, S, x, M, N, K); }

extern "C" __global__ void __launch_bounds__(FP8_WARPS * 32)
fp8_gemv_bf16(float* __restrict__ y, const uint8_t* __restrict__ W, const float* __restrict__ S,
              const __nv_bfloat16* __restrict__ x, int M, int N, int K)
{ fp8_gemv_impl(y, W, S, x, M, N, K); }
