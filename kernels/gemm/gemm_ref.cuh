// gemm_ref.cuh — the tiled float64 "NT" product behind the device references
// of every GEMM-shaped family: gemm and cublas_gemm (gemm_ref.cu), gemv
// (gemv_ref.cu), fp8_gemv (fp8_gemv_ref.cu) and quant_int4 (quant_int4_ref.cu).
//
//     C[m * N + n] = sum over k = 0, 1, ..., K-1 of a(m, k) * b(n, k)
//
// where an operand type (the family's "op", below) decodes a(m, k) (the
// activation) and b(n, k) (the weight) to double exactly as its host
// reference does, and the sum is the host's loop: a double accumulator that
// starts at +0 and adds one term per k in increasing k order.
//
// Bitwise equality with the host. Each term is added with one fused
// multiply-add, acc = fma(a, b, acc), where the host (-ffp-contract=off)
// rounds a * b and then acc + a * b. The two are the same operation whenever
// a * b is exact in double: fma gives RN(a*b + acc), the host RN(RN(a*b) + acc)
// = RN(a*b + acc). Every family here multiplies numbers of at most 53
// significant bits in total within double's exponent range (f16 x f16: 22
// bits; bf16 x bf16: 16; e4m3 x f32 scale x f16/bf16: 39; int4 x f16 scale x
// f16: 26), so the products are exact and the results are bit for bit the
// host's (inf * 0 is NaN and inf + x is inf either way). The fma halves the
// FP64 instruction count of the GEMM's 1.7e10-term large shape. Each op's
// header says why its products are exact; a family whose products are not
// must not use this file.
//
// Tiling. A block computes a BM x BN tile of C, 256 threads, each TM x TN
// outputs (rows ty + TY*i, columns tx + TX*j: a warp's shared-memory reads
// are broadcasts or contiguous). K is walked in tiles of BK in increasing k;
// each tile of a and b is decoded once into shared memory (k-major, rows
// padded so the loader's stores spread over the banks), the next one fetched
// into registers while the current one is multiplied. Every accumulator sees
// its terms k = 0, 1, ..., K-1 in order, whatever the tiling. Elements
// outside the matrix (k >= K, m >= M, n >= N) are loaded as +0: for k >= K
// both operands are +0 and fma(+0, +0, acc) = acc exactly (acc starts at +0
// and a round-to-nearest sum is -0 only when both addends are -0, so acc is
// never -0; NaN and inf stay as they are); rows m >= M and columns n >= N
// are never stored. Blocks walk the tiles with a grid stride, so the default
// reference grid (4 blocks of 256 threads per SM) serves every shape.
//
// Tile shapes, picked per launch from M and N (the same for every block):
//   small  8 x 32, BK 32, 1 x 1 per thread    M <= 8 (decode and batch GEMV shapes:
//          the weight is streamed once per 8 rows; warps past M skip the multiply;
//          32 columns a tile, not 128: a tile walks all of K one tile of BK after
//          another, so a GEMV's time is its tiles' K walk, and with 128 columns a
//          1024-column weight was 8 tiles: 8 busy blocks on 132 SMs, each K tile ~11k cycles at
//          12% occupancy: 0.85 ms for 1024 x 4096, 4.3 ms for 4096 x 14336 on an
//          H100, by Nsight Compute, docs/receipts/2026-12-06-kernel-time)
//   big    128 x 128, BK 8, 8 x 8 per thread   when C has at least 256 such tiles
//          (about two per SM) and the caller allows it (its 64 accumulators
//          take ~255 registers: one block per SM)
//   mid    64 x 64, BK 16, 4 x 4 per thread    every other shape (more tiles, so
//          more SMs busy, where big ones would leave most of them idle)
// In a block's last row tile, the rows past M skip the multiply too.
// Shared memory is one static array, the largest of the three (16.5 KiB: mid and
// big need 2112 doubles each, small 1344).
// Each family's kernel is __launch_bounds__(256, B) with B (1 or 2 blocks per
// SM) the most its registers allow without spills (ptxas -v).
#ifndef KC_GEMM_REF_CUH
#define KC_GEMM_REF_CUH
#include "kcontract_device.cuh"

namespace kc_gemm_ref {

constexpr int THREADS = 256;   // every reference block (the default reference grid's)

// A tile shape: BM x BN outputs per block, K tiles of BK, TY thread rows.
template <int BM_, int BN_, int BK_, int TY_>
struct tile {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, TY = TY_, TX = THREADS / TY_;
    static constexpr int TM = BM / TY, TN = BN / TX;          // outputs per thread
    // The loader stores element (row, kk) at kk * L + row, kk the fastest
    // across a warp (32 / BK rows of BK each); a pad of 32 / BK makes the
    // warp's 32 stores cover the 16 double-wide bank pairs exactly twice.
    static constexpr int LA = BM + 32 / BK, LB = BN + 32 / BK;
    static constexpr int AE = BM * BK / THREADS, BE = BN * BK / THREADS;  // elements fetched per thread
    static constexpr int SMEM = BK * (LA + LB);               // doubles
    static_assert(TM * TY == BM && TN * TX == BN, "tile not covered by the threads");
    static_assert(AE * THREADS == BM * BK && BE * THREADS == BN * BK, "tile loads uneven");
    static_assert(32 % BK == 0 || BK % 32 == 0, "loader pad");
};
typedef tile<8, 32, 32, 8> small_tile;
typedef tile<64, 64, 16, 16> mid_tile;
typedef tile<128, 128, 8, 16> big_tile;

constexpr int cmax(int a, int b) { return a > b ? a : b; }
constexpr int SMEM_DOUBLES = cmax(small_tile::SMEM, cmax(mid_tile::SMEM, big_tile::SMEM));

// The next K tile from k0 into registers: a (AE elements) and b (BE), +0
// outside the matrix.
template <class T, class Op>
__device__ __forceinline__ void fetch(const Op &op, long long m0, long long n0, long long k0, double (&pa)[T::AE],
                                      double (&pb)[T::BE])
{
#pragma unroll
    for (int r = 0; r < T::AE; r++) {
        const int e = threadIdx.x + THREADS * r;
        const long long m = m0 + e / T::BK, k = k0 + e % T::BK;
        pa[r] = m < op.M && k < op.K ? op.a(m, k) : 0.0;
    }
#pragma unroll
    for (int r = 0; r < T::BE; r++) {
        const int e = threadIdx.x + THREADS * r;
        const long long n = n0 + e / T::BK, k = k0 + e % T::BK;
        pb[r] = n < op.N && k < op.K ? op.b(n, k) : 0.0;
    }
}

// The fetched tile into shared memory (As: BK rows of LA, Bs: BK rows of LB).
template <class T>
__device__ __forceinline__ void store(double *As, double *Bs, const double (&pa)[T::AE], const double (&pb)[T::BE])
{
#pragma unroll
    for (int r = 0; r < T::AE; r++) {
        const int e = threadIdx.x + THREADS * r;
        As[(e % T::BK) * T::LA + e / T::BK] = pa[r];
    }
#pragma unroll
    for (int r = 0; r < T::BE; r++) {
        const int e = threadIdx.x + THREADS * r;
        Bs[(e % T::BK) * T::LB + e / T::BK] = pb[r];
    }
}

// One K tile into the accumulators, k in increasing order. PARTIAL: the
// block's last rows lie past M (rows >= live are skipped: their
// accumulators are never stored).
template <class T, bool PARTIAL>
__device__ __forceinline__ void multiply(const double *As, const double *Bs, int tx, int ty, int live,
                                         double (&acc)[T::TM][T::TN])
{
    if (PARTIAL && ty >= live) return;   // every row of this thread (ty + TY * i) is past M: nothing to read
#pragma unroll
    for (int kk = 0; kk < T::BK; kk++) {
        double a[T::TM], b[T::TN];
#pragma unroll
        for (int i = 0; i < T::TM; i++) a[i] = As[kk * T::LA + ty + T::TY * i];
#pragma unroll
        for (int j = 0; j < T::TN; j++) b[j] = Bs[kk * T::LB + tx + T::TX * j];
#pragma unroll
        for (int i = 0; i < T::TM; i++)
            if (!PARTIAL || ty + T::TY * i < live)
#pragma unroll
                for (int j = 0; j < T::TN; j++) acc[i][j] = __fma_rn(a[i], b[j], acc[i][j]);  // exact product: see above
    }
}

// Every tile of C with shape T, tiles spread over the grid's blocks.
template <class T, class Op>
__device__ void run_tiles(const Op &op, double *smem)
{
    double *As = smem, *Bs = smem + T::BK * T::LA;
    const long long mt = (op.M + T::BM - 1) / T::BM, nt = (op.N + T::BN - 1) / T::BN;
    const int tx = threadIdx.x % T::TX, ty = threadIdx.x / T::TX;
    for (long long t = blockIdx.x; t < mt * nt; t += gridDim.x) {
        const long long m0 = t / nt * T::BM, n0 = t % nt * T::BN;
        const int live = op.M - m0 < T::BM ? (int)(op.M - m0) : T::BM;
        double acc[T::TM][T::TN];
#pragma unroll
        for (int i = 0; i < T::TM; i++)
#pragma unroll
            for (int j = 0; j < T::TN; j++) acc[i][j] = 0.0;
        double pa[T::AE], pb[T::BE];
        fetch<T>(op, m0, n0, 0, pa, pb);
        for (long long k0 = 0; k0 < op.K; k0 += T::BK) {
            __syncthreads();   // the previous tile (or the previous C tile's last) is multiplied
            store<T>(As, Bs, pa, pb);
            __syncthreads();
            if (k0 + T::BK < op.K) fetch<T>(op, m0, n0, k0 + T::BK, pa, pb);
            if (live == T::BM) multiply<T, false>(As, Bs, tx, ty, live, acc);
            else multiply<T, true>(As, Bs, tx, ty, live, acc);
        }
#pragma unroll
        for (int i = 0; i < T::TM; i++) {
            const long long m = m0 + ty + T::TY * i;
#pragma unroll
            for (int j = 0; j < T::TN; j++) {
                const long long n = n0 + tx + T::TX * j;
                if (m < op.M && n < op.N) op.C[m * op.N + n] = acc[i][j];
            }
        }
    }
}

// C = the product of op, with the tile shape for its M and N (big only when
// BIG: the caller's kernel then needs __launch_bounds__(256, 1)). Call from
// a kernel of 256-thread blocks, any grid.
template <bool BIG, class Op>
__device__ void run(const Op &op)
{
    __shared__ double smem[SMEM_DOUBLES];
    if (op.M <= small_tile::BM) run_tiles<small_tile>(op, smem);
    else if (BIG && ((op.M + big_tile::BM - 1) / big_tile::BM) * ((op.N + big_tile::BN - 1) / big_tile::BN) >= 256)
        run_tiles<big_tile>(op, smem);
    else run_tiles<mid_tile>(op, smem);
}

}  // namespace kc_gemm_ref
#endif
