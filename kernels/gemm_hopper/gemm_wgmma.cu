// gemm_wgmma.cu — C[M, N] = A[M, K] · B[N, K]^T on Hopper: TMA loads, wgmma,
// and a warp-specialized producer/consumer pipeline on mbarriers ("NT", as
// in inference engines: B is an nn.Linear weight [out_features, in_features];
// A and B K-contiguous, C row-major f32). Built for sm_90a only
// (KC_CUDA_ARCH_gemm_wgmma in the Makefile).
//
//   gemm_wgmma_bf16(C, tmA, tmB, M, N, K)
//       A, B bfloat16; f32 accumulation in the tensor cores.
//   gemm_wgmma_fp8(C, tmA, tmB, SA, SB, M, N, K)
//       A, B e4m3 (OCP FP8) with DeepSeek-V3-style block scales:
//       C[m, n] = sum over k-blocks b of SA[m, b] · SB[n / 128, b] · sum_{k in b} A[m, k] B[n, k]
//       SA f32 [M, ceil(K/128)] row-major (one scale per row per 128 columns
//       of K: per-token-group quantized activations), SB f32 [ceil(N/128),
//       ceil(K/128)] row-major (one per 128x128 block of the weight). Each
//       k-block's product is accumulated by the tensor cores on its own, then
//       scaled and added to f32 registers (FP8 wgmma accumulates with fewer
//       bits than f32: the partial sums never run longer than 128 terms).
//
// tmA and tmB are CUtensorMaps (__grid_constant__, by value) over A [M, K]
// and B [N, K]: 2-D, dims {K, rows}, row stride K x the element size (so K x
// the element size must be a multiple of 16 bytes: K % 8 == 0 for bf16,
// K % 16 == 0 for fp8), box {BK, BM} for A and {BK, BN} for B (BK x the
// element size = 128 bytes), 128-byte swizzle, zero out-of-bounds fill.
// gemm_hopper_contract.c gives the exact maps. M, N >= 1 any; K >= 1 with the
// alignment above: partial tiles in M, N and K are read as zeros by the TMA
// unit and C is written with row and column guards.
//
// Tiles: bf16 BM x BN x BK = 128 x 256 x 64, 4 stages (48 KiB each); fp8
// 128 x 128 x 128 (one scale block per k-block), 6 stages (32 KiB each).
// Block: 384 threads, three warpgroups. Warpgroup 0 is the producer: its
// registers cut to 40 (setmaxnreg), one thread issues the TMA loads of every
// stage into a ring of shared-memory stages; warpgroups 1 and 2 are the
// consumers (registers raised to 232), each multiplying 64 rows of the tile
// by all of its BN columns with wgmma (m64n256k16 bf16, m64n128k32 e4m3).
// Per stage two mbarriers: full (1 arrival, the producer's expect_tx of the
// stage's bytes, completed by the TMA unit) and empty (8 arrivals, one per
// consumer warp once its wgmma has read the stage). Phase bits: the k-th use
// of a stage is its barrier's phase k, parity k & 1.
// Persistent grid: min(tiles, SMs) blocks walk the tiles with a grid stride
// in groups of 16 row tiles (tiles sharing A rows and B columns run in the
// same wave, so both operands come mostly from L2); the producer runs ahead
// into the next tile while the consumers store the last one. Before it
// exits, the producer waits until its last loads have landed (no copy is in
// flight into a block's shared memory when the block ends).
// No atomics, a fixed k order: bitwise deterministic.
//
// Controls (-DKC_CONTROL_<name>), the bug classes of this design:
//   phase_flip          the consumers wait on the full barrier with the wrong
//                       parity: they run ahead of the copies and complete the
//                       empty barrier's phases two at a time, so the producer's
//                       parity wait never sees its phase (the watchdog traps)
//   expect_tx_short     the full barrier expects A's bytes only (one tile
//                       short): its transaction count never returns to zero
//                       (the watchdog traps)
//   box_off_by_one      B's TMA box starts one row late (n0 + 1)
//   k_tail_dropped      the k-block count rounded down: K % BK never multiplied
//   store_unguarded     the epilogue stores columns >= N
//   scale_block_shift   (fp8) A's scale of the next k-block
//   scale_row_unclamped (fp8) A's scales read for rows >= M too (past SA)
#include <cuda.h>
#include <stdint.h>

#include "gemm_wgmma_ptx.cuh"

namespace gw {

constexpr int THREADS = 384;   // producer warpgroup + 2 consumer warpgroups
constexpr int GROUP_M = 16;    // row tiles per group of the tile order
constexpr int ROW_BYTES = 128; // one row of a stage: BK elements, the swizzle span

template <bool FP8>
struct cfg;
template <>
struct cfg<false> {            // bf16
    static constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, KSTEP_BYTES = 32;  // k16 x 2 B
};
template <>
struct cfg<true> {             // e4m3
    static constexpr int BM = 128, BN = 128, BK = 128, STAGES = 6, KSTEP_BYTES = 32; // k32 x 1 B
};

template <bool FP8>
struct layout {
    typedef cfg<FP8> T;
    static constexpr int A_BYTES = T::BM * ROW_BYTES, B_BYTES = T::BN * ROW_BYTES;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr int BAR_BYTES = 2 * T::STAGES * 8;
    // + 1024: the dynamic shared memory is aligned up to 1024 bytes (the swizzle atom) here
    static constexpr int SMEM = T::STAGES * STAGE_BYTES + BAR_BYTES + 1024;
    static_assert(A_BYTES % 1024 == 0 && B_BYTES % 1024 == 0, "stages 1024-byte aligned");
};

// Tile t of the grouped order: row tile mt, column tile nt.
__device__ __forceinline__ void tile_of(int t, int tm, int tn, int &mt, int &nt)
{
    const int per_group = GROUP_M * tn;
    const int g = t / per_group, first = g * GROUP_M;
    const int gsize = min(tm - first, GROUP_M);
    const int r = t - g * per_group;
    mt = first + r % gsize;
    nt = r / gsize;
}

template <bool FP8>
__device__ __forceinline__ int k_blocks(int K)
{
#if defined(KC_CONTROL_k_tail_dropped)
    return K / cfg<FP8>::BK;   // planted: the partial last k-block is never loaded
#else
    return (K + cfg<FP8>::BK - 1) / cfg<FP8>::BK;
#endif
}

// The producer: one thread, every tile of this block, every k-block.
template <bool FP8>
__device__ __forceinline__ void produce(const CUtensorMap *tmA, const CUtensorMap *tmB, uint32_t smem, uint32_t full,
                                        uint32_t empty, int tm, int tn, int nk)
{
    typedef cfg<FP8> T;
    typedef layout<FP8> L;
    const int tiles = tm * tn;
    int stage = 0;
    uint32_t phase = 0;
    long long loads = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int mt, nt;
        tile_of(t, tm, tn, mt, nt);
        const int m0 = mt * T::BM;
#if defined(KC_CONTROL_box_off_by_one)
        const int n0 = nt * T::BN + 1;   // planted: B's box one row late
#else
        const int n0 = nt * T::BN;
#endif
        for (int kb = 0; kb < nk; kb++) {
            mbar_wait(empty + 8 * stage, phase ^ 1);   // the consumers released this stage's last use
            const uint32_t a = smem + stage * L::STAGE_BYTES, b = a + L::A_BYTES, f = full + 8 * stage;
#if defined(KC_CONTROL_expect_tx_short)
            mbar_arrive_expect_tx(f, L::A_BYTES);      // planted: B's bytes not expected
#else
            mbar_arrive_expect_tx(f, L::STAGE_BYTES);  // whole boxes, zero fill included
#endif
            tma_load_2d(a, tmA, kb * T::BK, m0, f);
            tma_load_2d(b, tmB, kb * T::BK, n0, f);
            loads++;
            if (++stage == T::STAGES) { stage = 0; phase ^= 1; }
        }
    }
    // Tail: wait for the last load of every stage to land, newest first.
    for (int i = 0; i < T::STAGES && i < loads; i++) {
        if (stage == 0) { stage = T::STAGES - 1; phase ^= 1; } else stage--;
        mbar_wait(full + 8 * stage, phase);
    }
}

// C rows row and row + 8 of the fragment, columns n0 + 8 j + 2 (lane % 4) + {0, 1}.
template <int NREG>
__device__ __forceinline__ void store_tile(float *__restrict__ C, const float (&acc)[NREG], int row, int col0, int M,
                                           int N)
{
    const bool pairs = (N & 1) == 0;   // then every even column's pair is 8-byte aligned and inside C when col < N
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int r = row + 8 * i;
        if (r >= M) continue;
        float *crow = C + (size_t)r * N;
#pragma unroll
        for (int j = 0; j < NREG / 4; j++) {
            const int c = col0 + 8 * j;
            const float v0 = acc[4 * j + 2 * i], v1 = acc[4 * j + 2 * i + 1];
#if defined(KC_CONTROL_store_unguarded)
            // planted: no column guard (the stores stay aligned: a misaligned pair would fault instead)
            if (pairs) *reinterpret_cast<float2 *>(crow + c) = make_float2(v0, v1);
            else { crow[c] = v0; crow[c + 1] = v1; }
#else
            if (pairs) {
                if (c < N) *reinterpret_cast<float2 *>(crow + c) = make_float2(v0, v1);
            } else {
                if (c < N) crow[c] = v0;
                if (c + 1 < N) crow[c + 1] = v1;
            }
#endif
        }
    }
}

// Waits for stage's copy (the full barrier's phase of parity `phase`).
__device__ __forceinline__ void wait_full(uint32_t full, int stage, uint32_t phase)
{
#if defined(KC_CONTROL_phase_flip)
    mbar_wait(full + 8 * stage, phase ^ 1);   // planted: the phase before, already complete
#else
    mbar_wait(full + 8 * stage, phase);
#endif
}

// A consumer warpgroup (cw 0 or 1: rows 64 cw .. 64 cw + 63 of each tile), bf16.
__device__ __forceinline__ void consume_bf16(float *__restrict__ C, uint32_t smem, uint32_t full, uint32_t empty,
                                             int tm, int tn, int nk, int M, int N, int cw)
{
    typedef cfg<false> T;
    typedef layout<false> L;
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int tiles = tm * tn;
    int stage = 0;
    uint32_t phase = 0;
    float acc[128];
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int mt, nt;
        tile_of(t, tm, tn, mt, nt);
#pragma unroll
        for (int i = 0; i < 128; i++) acc[i] = 0.f;
        int prev = -1;
        for (int kb = 0; kb < nk; kb++) {
            wait_full(full, stage, phase);
            const uint32_t a = smem + stage * L::STAGE_BYTES + cw * 64 * ROW_BYTES;
            const uint32_t b = smem + stage * L::STAGE_BYTES + L::A_BYTES;
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < T::BK * 2 / T::KSTEP_BYTES; kk++)
                wgmma_m64n256k16_bf16(acc, wgmma_desc_sw128(a + kk * T::KSTEP_BYTES),
                                      wgmma_desc_sw128(b + kk * T::KSTEP_BYTES), 1);
            wgmma_commit();
            wgmma_wait<1>();   // the previous k-block's multiply is done: its stage can be refilled
            if (prev >= 0 && lane == 0) mbar_arrive(empty + 8 * prev);
            prev = stage;
            if (++stage == T::STAGES) { stage = 0; phase ^= 1; }
        }
        wgmma_wait<0>();
        fence_regs(acc);
        if (prev >= 0 && lane == 0) mbar_arrive(empty + 8 * prev);
        store_tile(C, acc, mt * T::BM + cw * 64 + warp * 16 + lane / 4, nt * T::BN + 2 * (lane % 4), M, N);
    }
}

// The two scales of k-block kb for this thread's rows row and row + 8:
// A's (per row and k-block) times B's (per 128 x 128 block).
__device__ __forceinline__ float2 kblock_scales(const float *__restrict__ SA, const float *__restrict__ sb, int row,
                                                int M, int nkb, int kb)
{
#if defined(KC_CONTROL_scale_block_shift)
    const int ks = min(kb + 1, nkb - 1);   // planted: the next k-block's activation scale
#else
    const int ks = kb;
#endif
#if defined(KC_CONTROL_scale_row_unclamped)
    const float sa0 = __ldg(SA + (size_t)row * nkb + ks);         // planted: rows >= M read past SA
    const float sa1 = __ldg(SA + (size_t)(row + 8) * nkb + ks);
#else
    const float sa0 = row < M ? __ldg(SA + (size_t)row * nkb + ks) : 0.f;
    const float sa1 = row + 8 < M ? __ldg(SA + (size_t)(row + 8) * nkb + ks) : 0.f;
#endif
    const float sbk = __ldg(sb + kb);
    return make_float2(sa0 * sbk, sa1 * sbk);
}

// Waits for the stage's copy, then starts (does not wait for) the k-block's
// four wgmma into the partial sums p, zeroed by the first one; advances the
// ring position.
__device__ __forceinline__ int issue_fp8(float (&p)[64], uint32_t smem, uint32_t full, int &stage, uint32_t &phase,
                                         int cw)
{
    typedef cfg<true> T;
    typedef layout<true> L;
    const int used = stage;
    wait_full(full, stage, phase);
    const uint32_t a = smem + stage * L::STAGE_BYTES + cw * 64 * ROW_BYTES;
    const uint32_t b = smem + stage * L::STAGE_BYTES + L::A_BYTES;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < T::BK / T::KSTEP_BYTES; kk++)
        wgmma_m64n128k32_e4m3(p, wgmma_desc_sw128(a + kk * T::KSTEP_BYTES), wgmma_desc_sw128(b + kk * T::KSTEP_BYTES),
                              kk > 0);
    wgmma_commit();
    if (++stage == T::STAGES) { stage = 0; phase ^= 1; }
    return used;
}

// Once p's wgmma are done: releases their stage (one arrival per warp) and
// adds p, scaled by its k-block's scales s, to the f32 accumulators.
__device__ __forceinline__ void promote_fp8(float (&acc)[64], float (&p)[64], float2 s, uint32_t empty, int stage,
                                            int lane)
{
    fence_regs(p);
    if (lane == 0) mbar_arrive(empty + 8 * stage);
#pragma unroll
    for (int j = 0; j < 16; j++) {
        acc[4 * j + 0] = fmaf(p[4 * j + 0], s.x, acc[4 * j + 0]);
        acc[4 * j + 1] = fmaf(p[4 * j + 1], s.x, acc[4 * j + 1]);
        acc[4 * j + 2] = fmaf(p[4 * j + 2], s.y, acc[4 * j + 2]);
        acc[4 * j + 3] = fmaf(p[4 * j + 3], s.y, acc[4 * j + 3]);
    }
}

// A consumer warpgroup, e4m3 with block scales. Two sets of partial sums
// take turns (k-blocks even and odd): k-block kb's wgmma run on the tensor
// cores while k-block kb - 1's partials are scaled into the f32 accumulators
// (wait_group 1: all but the newest group done), so the promotion no longer
// stalls the tensor cores (0.58-0.74 of cuBLASLt with one set and
// wait_group 0; receipt 2026-12-02-h200-hopper-gemm).
__device__ __forceinline__ void consume_fp8(float *__restrict__ C, const float *__restrict__ SA,
                                            const float *__restrict__ SB, uint32_t smem, uint32_t full,
                                            uint32_t empty, int tm, int tn, int nk, int M, int N, int K, int cw)
{
    typedef cfg<true> T;
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int tiles = tm * tn, nkb = (K + 127) / 128;
    int stage = 0;
    uint32_t phase = 0;
    float acc[64], p0[64], p1[64];
#pragma unroll
    for (int i = 0; i < 64; i++) p0[i] = p1[i] = 0.f;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int mt, nt;
        tile_of(t, tm, tn, mt, nt);
        const int row = mt * T::BM + cw * 64 + warp * 16 + lane / 4;
#pragma unroll
        for (int i = 0; i < 64; i++) acc[i] = 0.f;
        const float *sb = SB + (size_t)nt * nkb;   // BN = 128: one weight scale block per tile and k-block
        int pstage = 0;                            // the stage and scales of the partials in flight
        float2 ps = make_float2(0.f, 0.f);
        for (int kb = 0; kb < nk; kb += 2) {
            float2 s = kblock_scales(SA, sb, row, M, nkb, kb);
            int used = issue_fp8(p0, smem, full, stage, phase, cw);
            if (kb > 0) {
                wgmma_wait<1>();
                promote_fp8(acc, p1, ps, empty, pstage, lane);
            }
            pstage = used;
            ps = s;
            if (kb + 1 < nk) {
                s = kblock_scales(SA, sb, row, M, nkb, kb + 1);
                used = issue_fp8(p1, smem, full, stage, phase, cw);
                wgmma_wait<1>();
                promote_fp8(acc, p0, ps, empty, pstage, lane);
                pstage = used;
                ps = s;
            }
        }
        wgmma_wait<0>();
        if (nk & 1) promote_fp8(acc, p0, ps, empty, pstage, lane);
        else promote_fp8(acc, p1, ps, empty, pstage, lane);
        store_tile(C, acc, row, nt * T::BN + 2 * (lane % 4), M, N);
    }
}

// The kernel body: barriers, then the three warpgroups' roles.
template <bool FP8>
__device__ __forceinline__ void gemm(float *C, const CUtensorMap *tmA, const CUtensorMap *tmB, const float *SA,
                                     const float *SB, int M, int N, int K)
{
    typedef cfg<FP8> T;
    typedef layout<FP8> L;
    extern __shared__ __align__(1024) uint8_t gw_smem[];
    const uint32_t smem = (smem_u32(gw_smem) + 1023u) & ~1023u;
    const uint32_t full = smem + T::STAGES * L::STAGE_BYTES, empty = full + 8 * T::STAGES;
    const int tm = (M + T::BM - 1) / T::BM, tn = (N + T::BN - 1) / T::BN, nk = k_blocks<FP8>(K);
    const int wg = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < T::STAGES; s++) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, 8);   // one arrival per consumer warp
        }
        mbar_fence_init();
        tma_prefetch_map(tmA);
        tma_prefetch_map(tmB);
    }
    __syncthreads();
    if (wg == 0) {
        setmaxnreg_dec<40>();
        if (threadIdx.x == 0) produce<FP8>(tmA, tmB, smem, full, empty, tm, tn, nk);
    } else {
        setmaxnreg_inc<232>();
        if constexpr (FP8) consume_fp8(C, SA, SB, smem, full, empty, tm, tn, nk, M, N, K, wg - 1);
        else consume_bf16(C, smem, full, empty, tm, tn, nk, M, N, wg - 1);
    }
}

}  // namespace gw

// The bodies exist for sm_90a only (wgmma, setmaxnreg); any other target
// this file is compiled for gets a kernel that traps.
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GW_BODY(...) __VA_ARGS__
#else
#define GW_BODY(...) __trap()
#endif

extern "C" __global__ void __launch_bounds__(gw::THREADS, 1)
    gemm_wgmma_bf16(float *C, const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB, int M,
                    int N, int K)
{
    GW_BODY(gw::gemm<false>(C, &tmA, &tmB, nullptr, nullptr, M, N, K));
}

extern "C" __global__ void __launch_bounds__(gw::THREADS, 1)
    gemm_wgmma_fp8(float *C, const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                   const float *SA, const float *SB, int M, int N, int K)
{
    GW_BODY(gw::gemm<true>(C, &tmA, &tmB, SA, SB, M, N, K));
}
