// quant_int4.cu — int4 group-quantized GEMV / small-M GEMM (weight-only, AWQ/GPTQ style):
//   y[m, n] = sum_k x[m, k] * w[n, k],   w[n, k] = (q[n, k] - z[n, g]) * s[n, g],   g = k / G
// x [M, K] f16; y [M, N] f32; f32 accumulation.
// qweight: u8 [N, KB], KB = ceil(K/2) bytes per row (each row starts on a byte);
//   element k of row n is in byte k/2: even k in the LOW nibble (bits 0-3), odd k
//   in the HIGH nibble (bits 4-7); when K is odd the last byte's high nibble is
//   padding and is ignored.
// scales: f16 [N, ng], zeros: u8 [N, ng] (one zero point per byte, value 0..15),
//   ng = ceil(K/G); G is a multiple of 32 (32 and 128 here); a partial last group
//   (K % G != 0) is an ordinary group.
// The dequantized weight (q - z) * s is exact in f32 (|q - z| <= 15 times an f16),
// and is multiplied into the f32 accumulator with one fma per element.
//
// Block: 8 warps, one output row n per warp (grid.x = ceil(N/8)), MT activation
// rows per block (grid.y = ceil(M/MT)): quant_int4_gemv_f16 MT = 1 (decode, any
// M by grid.y), quant_int4_gemm_f16 MT = 8 (small-M GEMM: each weight read once
// per 8 tokens). K is walked in tiles of 128: the block stages x[m0:m0+MT,
// k0:k0+128] (as f32, zero past K) and, for its 8 rows, the scale and zero of each
// 32-wide sub-chunk of the tile (a 128 tile spans 4 groups of 32, or 1 of 128) in
// shared memory; each lane then dequantizes 4 weights (2 bytes) per tile. Lane
// partials are summed with a fixed shuffle tree: bitwise deterministic.
#include <cuda_fp16.h>
#include <stdint.h>

#define Q4_WARPS 8
#define Q4_TK 128

template <int MT>
__device__ __forceinline__ void q4_impl(float* __restrict__ y, const __half* __restrict__ x,
                                        const uint8_t* __restrict__ qw, const __half* __restrict__ scales,
                                        const uint8_t* __restrict__ zeros, int M, int N, int K, int G)
{
    __shared__ __align__(16) float xs[MT][Q4_TK];
    __shared__ float ss[Q4_WARPS][Q4_TK / 32], zs[Q4_WARPS][Q4_TK / 32];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int n = blockIdx.x * Q4_WARPS + warp;
    const int m0 = blockIdx.y * MT;
    const long long KB = (K + 1) / 2;
    const int ng = (K + G - 1) / G;
#ifdef KC_CONTROL_last_tile_dropped
    // BUG: tile count rounded down: the last K % 128 elements (a partial group) are never read.
    const int ntiles = K / Q4_TK;
#else
    const int ntiles = (K + Q4_TK - 1) / Q4_TK;
#endif
    float acc[MT];
#pragma unroll
    for (int m = 0; m < MT; m++) acc[m] = 0.f;

    for (int t = 0; t < ntiles; t++) {
        const int k0 = t * Q4_TK;
        for (int i = tid; i < MT * Q4_TK; i += Q4_WARPS * 32) {
            const int m = i / Q4_TK, kk = i % Q4_TK;
            xs[m][kk] = (m0 + m < M && k0 + kk < K) ? __half2float(x[(long long)(m0 + m) * K + k0 + kk]) : 0.f;
        }
        if (tid < Q4_WARPS * (Q4_TK / 32)) {
            const int r = tid / (Q4_TK / 32), c = tid % (Q4_TK / 32);
            const int nn = blockIdx.x * Q4_WARPS + r, kc = k0 + 32 * c;
            float s = 0.f, z = 0.f;
            if (nn < N && kc < K) {
#ifdef KC_CONTROL_group_scale_per_tile
                // BUG: the loader copies one quantization group (the tile's first) for the whole
                // 128-wide tile: with G = 32 the tile's 2nd..4th groups get the wrong scale and zero.
                const int g = k0 / G;
#else
                const int g = kc / G;
#endif
                s = __half2float(scales[(long long)nn * ng + g]);
                z = (float)zeros[(long long)nn * ng + g];
            }
            ss[r][c] = s;
            zs[r][c] = z;
        }
        __syncthreads();
        const int k = k0 + lane * 4;
        if (n < N && k < K) {
            const uint8_t* row = qw + (long long)n * KB;
            const long long b = k / 2;
            unsigned b0, b1;
            if ((KB & 1) == 0 && k + 4 <= K) {        // both bytes in the row; 2-byte aligned (KB even, b even)
                const unsigned v = __ldg(reinterpret_cast<const unsigned short*>(row + b));
                b0 = v & 0xffu; b1 = v >> 8;
            } else {
                b0 = __ldg(row + b);
                b1 = k + 2 < K ? __ldg(row + b + 1) : 0u;
            }
#ifdef KC_CONTROL_nibble_swap
            // BUG: nibble order swapped (even k read from the high nibble).
            const unsigned q[4] = { b0 >> 4, b0 & 15u, b1 >> 4, b1 & 15u };
#else
            const unsigned q[4] = { b0 & 15u, b0 >> 4, b1 & 15u, b1 >> 4 };
#endif
            const float s = ss[warp][lane / 8];
#ifdef KC_CONTROL_zero_ignored
            // BUG: zero point ignored (symmetric dequantization of asymmetric weights).
            const float z = 0.f;
#else
            const float z = zs[warp][lane / 8];
#endif
            float w[4];
#pragma unroll
            for (int j = 0; j < 4; j++) w[j] = k + j < K ? ((float)q[j] - z) * s : 0.f;
#pragma unroll
            for (int m = 0; m < MT; m++) {
                const float4 xv = *reinterpret_cast<const float4*>(&xs[m][lane * 4]);
                float a = acc[m];
                a = fmaf(w[0], xv.x, a);
                a = fmaf(w[1], xv.y, a);
                a = fmaf(w[2], xv.z, a);
                a = fmaf(w[3], xv.w, a);
                acc[m] = a;
            }
        }
        __syncthreads();
    }
    if (n >= N) return;   // after the last block barrier
#pragma unroll
    for (int m = 0; m < MT; m++) {
        float p = acc[m];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) p += __shfl_down_sync(0xffffffffu, p, off);
        if (lane == 0 && m0 + m < M) y[(long long)(m0 + m) * N + n] = p;
    }
}

extern "C" __global__ void __launch_bounds__(Q4_WARPS * 32)
quant_int4_gemv_f16(float* __restrict__ y, const __half* __restrict__ x, const uint8_t* __restrict__ qw,
                    const __half* __restrict__ scales, const uint8_t* __restrict__ zeros, int M, int N, int K, int G)
{ q4_impl<1>(y, x, qw, scales, zeros, M, N, K, G); }

extern "C" __global__ void __launch_bounds__(Q4_WARPS * 32)
quant_int4_gemm_f16(float* __restrict__ y, const __half* __restrict__ x, const uint8_t* __restrict__ qw,
                    const __half* __restrict__ scales, const uint8_t* __restrict__ zeros, int M, int N, int K, int G)
{ q4_impl<8>(y, x, qw, scales, zeros, M, N, K, G); }
