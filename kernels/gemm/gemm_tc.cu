// gemm_tc.cu — C[M, N] = A[M, K] · B[N, K]^T on tensor cores ("NT", as in
// inference engines: B is an nn.Linear weight [out_features, in_features], both
// operands K-contiguous). A and B float16 or bfloat16, row-major; C float32
// row-major [M, N]; float32 accumulation through nvcuda::wmma 16x16x16.
//
// Two block tiles, each its own symbol:
//   gemm_tc_64x64_<t>:   BM=64,  BN=64,  BK=128, 4 warps (2x2), warp tile 32x32
//   gemm_tc_128x128_<t>: BM=128, BN=128, BK=32,  8 warps (2x4), warp tile 64x32
// Grid: x = ceil(N/BN) column tiles, y = ceil(M/BM) row tiles. Dynamic shared
// memory (bytes): max((BM+BN)*(BK+8)*2, BM*(BN+4)*4) — 34816 for 64x64,
// 67584 for 128x128 (the epilogue reuses the operand buffers for the C tile).
//
// Each k-iteration stages A[m0:m0+BM, k0:k0+BK] and B[n0:n0+BN, k0:k0+BK] in
// shared memory (rows padded by 8 elements), 8-element chunks: a 16-byte vector
// load when K % 8 == 0 (every row then 16-byte aligned) and the chunk is inside
// the matrix, else element loads with zero fill for rows >= M/N and k >= K (so
// partial M, N and K tiles contribute exact zeros). Then a barrier, BK/16 wmma
// steps, a barrier. The epilogue stores the accumulators to shared memory and
// writes C with a row and column guard. No atomics: bitwise deterministic.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

template <int BM, int BN, int BK>
struct gemm_smem {
    static constexpr int LDS = BK + 8;    // operand row stride, elements (16-bit)
    static constexpr int LDC = BN + 4;    // C tile row stride, floats
    static constexpr int AB = (BM + BN) * LDS * 2;
    static constexpr int CT = BM * LDC * 4;
    static constexpr int BYTES = AB > CT ? AB : CT;
};

// Stages ROWS x BK elements of a K-contiguous matrix G (rows_total x K) starting
// at (row0, k0) into S (row stride LDS), zero-filling outside the matrix. The
// 16-bit values are copied as raw bits (0 is +0 in f16 and bf16).
template <int ROWS, int BK, int LDS, int NT>
__device__ __forceinline__ void gemm_load_tile(uint16_t* __restrict__ S, const uint16_t* __restrict__ G,
                                               long long row0, int rows_total, int K, int k0, bool vec)
{
    constexpr int CPR = BK / 8;    // 8-element chunks per row
    static_assert((ROWS * CPR) % NT == 0, "whole chunks per thread");
    if (vec && row0 + ROWS <= rows_total && k0 + BK <= K) {
        // Interior tile (block-uniform): unguarded 16-byte loads, all in flight together.
#pragma unroll
        for (int i = 0; i < ROWS * CPR / NT; i++) {
            const int c = threadIdx.x + i * NT, r = c / CPR, kc = (c % CPR) * 8;
            *reinterpret_cast<uint4*>(S + r * LDS + kc) =
                __ldg(reinterpret_cast<const uint4*>(G + (row0 + r) * K + k0 + kc));
        }
        return;
    }
    // Edge tile: guarded, zero-filled.
#pragma unroll 1
    for (int c = threadIdx.x; c < ROWS * CPR; c += NT) {
        const int r = c / CPR, kc = (c % CPR) * 8;
        const long long gr = row0 + r;
        const int gk = k0 + kc;
        uint16_t* dst = S + r * LDS + kc;
        if (vec && gr < rows_total && gk + 8 <= K) {
            *reinterpret_cast<uint4*>(dst) = __ldg(reinterpret_cast<const uint4*>(G + gr * K + gk));
        } else {
#pragma unroll
            for (int j = 0; j < 8; j++)
                dst[j] = (gr < rows_total && gk + j < K) ? __ldg(G + gr * K + gk + j) : (uint16_t)0;
        }
    }
}

template <int BM, int BN, int BK, int WM, int WN, class T>
__device__ __forceinline__ void gemm_impl(float* __restrict__ C, const uint16_t* __restrict__ A,
                                          const uint16_t* __restrict__ B, int M, int N, int K)
{
    constexpr int WARPS_N = BN / WN, NWARPS = (BM / WM) * WARPS_N, NT = NWARPS * 32;
    constexpr int FM = WM / 16, FN = WN / 16;
    constexpr int LDS = gemm_smem<BM, BN, BK>::LDS, LDC = gemm_smem<BM, BN, BK>::LDC;
    extern __shared__ __align__(128) unsigned char gemm_sm[];
    uint16_t* As = reinterpret_cast<uint16_t*>(gemm_sm);
    uint16_t* Bs = As + BM * LDS;
    float* Cs = reinterpret_cast<float*>(gemm_sm);

    const int tid = threadIdx.x, warp = tid >> 5;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * BN;
    const bool vec = (K % 8) == 0;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++) wmma::fill_fragment(acc[i][j], 0.0f);

#ifdef KC_CONTROL_k_tail_dropped
    // BUG: k-tile count rounded down: the last K % BK columns of A and B are never
    // multiplied (K = 192 with the 128-wide K tile; K = 31, 33, 1023 everywhere).
    const int ktiles = K / BK;
#else
    const int ktiles = (K + BK - 1) / BK;
#endif
    for (int kt = 0; kt < ktiles; kt++) {
        const int k0 = kt * BK;
        gemm_load_tile<BM, BK, LDS, NT>(As, A, m0, M, K, k0, vec);
        gemm_load_tile<BN, BK, LDS, NT>(Bs, B, n0, N, K, k0, vec);
#ifndef KC_CONTROL_missing_sync
        __syncthreads();   // the control drops this: warps run their mma on a tile other warps are still writing
#endif
#ifdef KC_CONTROL_half_accum
        // BUG: each k-tile's partial product is added into a running sum rounded to half precision.
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> part[FM][FN];
#pragma unroll
        for (int i = 0; i < FM; i++)
#pragma unroll
            for (int j = 0; j < FN; j++) wmma::fill_fragment(part[i][j], 0.0f);
#define GEMM_ACC part
#else
#define GEMM_ACC acc
#endif
#pragma unroll 2
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b[FN];
#pragma unroll
            for (int i = 0; i < FM; i++)
                wmma::load_matrix_sync(a[i], reinterpret_cast<const T*>(As + (wm * WM + i * 16) * LDS + kk), LDS);
#pragma unroll
            for (int j = 0; j < FN; j++)
                wmma::load_matrix_sync(b[j], reinterpret_cast<const T*>(Bs + (wn * WN + j * 16) * LDS + kk), LDS);
#pragma unroll
            for (int i = 0; i < FM; i++)
#pragma unroll
                for (int j = 0; j < FN; j++) wmma::mma_sync(GEMM_ACC[i][j], a[i], b[j], GEMM_ACC[i][j]);
        }
#undef GEMM_ACC
#ifdef KC_CONTROL_half_accum
#pragma unroll
        for (int i = 0; i < FM; i++)
#pragma unroll
            for (int j = 0; j < FN; j++)
#pragma unroll
                for (int e = 0; e < acc[i][j].num_elements; e++)
                    acc[i][j].x[e] = __half2float(__float2half_rn(acc[i][j].x[e] + part[i][j].x[e]));
#endif
        __syncthreads();   // every warp is done with this tile before the next load (and before the C tile reuses it)
    }

    // Epilogue: accumulators -> shared C tile -> guarded global stores (coalesced along N).
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++)
            wmma::store_matrix_sync(Cs + (wm * WM + i * 16) * LDC + wn * WN + j * 16, acc[i][j], LDC, wmma::mem_row_major);
    __syncthreads();
    for (int e = tid; e < BM * BN; e += NT) {
        const int r = e / BN, c = e % BN;
        const long long gr = m0 + r, gc = n0 + c;
#ifdef KC_CONTROL_store_unguarded
        // BUG: no column guard: a partial N tile writes past the last column (into the
        // next row, and past the end of C on the last row: N = 1, 31, 33, 1023).
        if (gr < M) C[gr * N + gc] = Cs[r * LDC + c];
#else
        if (gr < M && gc < N) C[gr * N + gc] = Cs[r * LDC + c];
#endif
    }
}

#define GEMM_ENTRY(name_, BM, BN, BK, WM, WN, MINB, T)                                                        \
    extern "C" __global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)                        \
    name_(float* __restrict__ C, const uint16_t* __restrict__ A, const uint16_t* __restrict__ B, int M,   \
          int N, int K)                                                                                   \
    { gemm_impl<BM, BN, BK, WM, WN, T>(C, A, B, M, N, K); }

GEMM_ENTRY(gemm_tc_64x64_f16, 64, 64, 128, 32, 32, 4, __half)
GEMM_ENTRY(gemm_tc_64x64_bf16, 64, 64, 128, 32, 32, 4, __nv_bfloat16)
GEMM_ENTRY(gemm_tc_128x128_f16, 128, 128, 32, 64, 32, 2, __half)
GEMM_ENTRY(gemm_tc_128x128_bf16, 128, 128, 32, 64, 32, 2, __nv_bfloat16)

// Shared-memory sizes the contract launches with (checked at compile time).
static_assert(gemm_smem<64, 64, 128>::BYTES == 34816, "64x64 smem");
static_assert(gemm_smem<128, 128, 32>::BYTES == 67584, "128x128 smem");
