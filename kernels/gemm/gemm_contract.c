/* gemm_contract.c — contracts for kernels/gemm/gemm_tc.cu.
 *
 * C[m, n] = sum_k A[m, k] * B[n, k]   ("NT": B is stored [N, K], an nn.Linear
 * weight [out_features, in_features]; A [M, K] the activations, both
 * K-contiguous). A and B in f16 or bf16, C [M, N] in f32 (so gate 3 sees the
 * tensor-core accumulation itself, not a final half rounding), f32
 * accumulation through wmma 16x16x16.
 * Shape dims: d[0] M (tokens), d[1] N (output features), d[2] K (input features).
 *
 * gemm.64x64.<t>:   block tile 64x64,   K tile 128, 4 warps, 34816 B dynamic smem
 * gemm.128x128.<t>: block tile 128x128, K tile 32,  8 warps, 67584 B dynamic smem
 * Shapes: Llama-3-8B / Qwen2.5-7B / Mixtral-8x7B projections at M = 1, 7, 128
 * and 1024 tokens (the large shape), and edges off every tile: M, N, K = 1, 31,
 * 33, 65, 129, 1023; K = 192 and 320 (multiples of 64, not of 128). */
/* Controls and the first case expected to catch each (shapes run in the order
 * listed, each with normal then uniform; a control stops at its first failure):
 *   k_tail_dropped  gate 3, edge.m1.n1.k1 / normal: K = 1 < BK gives zero k tiles,
 *                   C = 0 against a nonzero product (also K = 31, 33, 1023 in both
 *                   configs, K = 192 and 320 with the 128-wide K tile of 64x64).
 *   store_unguarded gate 2, edge.m1.n1.k1 / normal: N = 1, so the last row writes
 *                   BN-1 floats past the end of C into the guard band (also every
 *                   N % BN != 0: 31, 33, 65, 1023).
 *   missing_sync    gate 3 (a race), llama3-8b.qkv_proj.t1 / normal onwards: a warp
 *                   whose own loads land first runs its mma on rows other warps have
 *                   not stored: 0xFF poison (NaN) on the first tile, the previous
 *                   tile later; 32..448 k tiles x 48..3584 blocks per model shape make
 *                   a miss unlikely, but it is timing: gate 4 if a relaunch differs.
 *   half_accum      gate 3, llama3-8b.qkv_proj.t1 / normal: K = 4096, |C| ~ 64, each
 *                   of the 32 (64x64) or 128 (128x128) tile additions rounds to an f16
 *                   ulp of 0.03-0.06: errors ~0.05-0.3 > 1e-2. */
#include <stdint.h>
#include "kcontract.h"
#include "ref_gemm.h"

enum { GM_C = 0, GM_A = 1, GM_B = 2, GM_M = 3, GM_N = 4, GM_K = 5 };

static size_t gm_c_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1]); }
static size_t gm_a_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[2]); }
static size_t gm_b_count(const kc_shape *s) { return (size_t)(s->d[1] * s->d[2]); }
static double gm_m(const kc_shape *s) { return (double)s->d[0]; }
static double gm_n(const kc_shape *s) { return (double)s->d[1]; }
static double gm_k(const kc_shape *s) { return (double)s->d[2]; }

/* grid.x over N tiles, grid.y over M tiles (M <= 1024 here: y <= 16). */
static void gemm_launch_64(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[1] + 63) / 64); l->grid[1] = (unsigned)((s->d[0] + 63) / 64); l->grid[2] = 1;
    l->block[0] = 128; l->block[1] = 1; l->block[2] = 1;
    l->smem = 34816;   /* (64+64) rows x (128+8) x 2 B operands; the 64x(64+4) f32 C tile reuses them */
}
static void gemm_launch_128(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[1] + 127) / 128); l->grid[1] = (unsigned)((s->d[0] + 127) / 128); l->grid[2] = 1;
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = 67584;   /* the 128x(128+4) f32 C tile; the (128+128) x (32+8) x 2 B operands fit inside it */
}

/* ---- float64 reference: kc_ref_gemm_nt (src/core/ref_gemm.c, shared with the
 * cuBLAS wrapper's contracts in kernels/cublas_gemm/), and its CUDA twin
 * gemm_nt_ref (kernels/gemm/gemm_ref.cu, the default reference grid): the
 * same k-order double sums of exact products, so bitwise equal. */

/* Reference cost (multiply-adds) in brackets; per contract about 1.1e10 per
 * distribution over the model and edge shapes, plus 1.7e10 for the large one. */
static const kc_shape gemm_shapes[] = {
    { "llama3-8b.qkv_proj.t1", KC_SHAPE_MODEL, { 1, 6144, 4096 } },        /* 4096 + 2*1024 kv [2.5e7] */
    { "llama3-8b.o_proj.t7", KC_SHAPE_MODEL, { 7, 4096, 4096 } },          /* [1.2e8] */
    { "llama3-8b.down_proj.t7", KC_SHAPE_MODEL, { 7, 4096, 14336 } },      /* [4.1e8] */
    { "qwen2.5-7b.qkv_proj.t128", KC_SHAPE_MODEL, { 128, 4608, 3584 } },   /* 3584 + 2*512 kv [2.1e9] */
    { "qwen2.5-7b.down_proj.t1", KC_SHAPE_MODEL, { 1, 3584, 18944 } },     /* [6.8e7] */
    { "mixtral-8x7b.expert_w1.t128", KC_SHAPE_MODEL, { 128, 14336, 4096 } }, /* 128 tokens routed to one expert [7.5e9] */
    { "mixtral-8x7b.expert_w2.t7", KC_SHAPE_MODEL, { 7, 4096, 14336 } },   /* [4.1e8] */
    { "edge.m1.n1.k1", KC_SHAPE_EDGE, { 1, 1, 1 } },
    { "edge.m31.n33.k31", KC_SHAPE_EDGE, { 31, 33, 31 } },
    { "edge.m33.n31.k33", KC_SHAPE_EDGE, { 33, 31, 33 } },
    { "edge.m33.n1023.k192", KC_SHAPE_EDGE, { 33, 1023, 192 } },          /* K = 3*64: 1.5 K tiles of 128 */
    { "edge.m129.n65.k192", KC_SHAPE_EDGE, { 129, 65, 192 } },
    { "edge.m7.n1023.k320", KC_SHAPE_EDGE, { 7, 1023, 320 } },            /* K = 5*64 */
    { "edge.m65.n1.k1023", KC_SHAPE_EDGE, { 65, 1, 1023 } },
    { "edge.m1023.n33.k64", KC_SHAPE_EDGE, { 1023, 33, 64 } },
    { "llama3-8b.q_proj.t1024", KC_SHAPE_LARGE, { 1024, 4096, 4096 } },    /* [1.7e10] */
    { 0 }
};

/* Tensor cores multiply f16/bf16 pairs exactly and accumulate in f32, but
 * (Volta..Hopper, as measured by Fasi et al. 2021 and later) align and add the
 * products of each small k-block to the accumulator with truncation, not
 * round-to-nearest: about K/8 roundings per output, each up to one ulp of the
 * running sum and biased toward zero. With N(0,1) inputs the running sum
 * random-walks to ~sqrt(K) (~140 at K = 18944), so the biased error reaches
 * ~sum_j 2^-23 * sqrt(8j) ~ 5e-3 at K = 14336 and ~7e-3 at K = 18944, and up to
 * ~1e-4 relative on the largest outputs (|C| ~ 500 at 4 sigma). rtol 1e-4 +
 * atol 1e-2 covers that; half-precision accumulation errs ~0.1-1 at K >= 3584,
 * a dropped K tail or a raced tile errs O(1). */
#define GEMM_TOL ((kc_tol){ 1e-4, 1e-2, "tensor-core f32 accumulation truncates (not RNE) per k-block: ~K/8 biased roundings of a running sum ~sqrt(K) give up to ~7e-3 at K = 18944; rtol 1e-4 for |C| up to ~500; half accumulation errs ~0.1-1" })

#define GEMM_CONTROLS \
    { "k_tail_dropped", 3, "k-tile count K/BK rounded down: the last K % BK columns are never multiplied (K = 192 and 320 with the 128-wide K tile; K = 1, 31, 33, 1023 in both configs)" }, \
    { "store_unguarded", 2, "epilogue writes partial N tiles without a column guard: the last row writes up to BN-1 floats past the end of C (N = 1, 31, 33, 65, 1023)" }, \
    { "missing_sync", 3, "no __syncthreads between the shared-memory tile load and the mma: warps read rows other warps have not stored yet (0xFF poison = NaN on the first tile, the previous tile later); a race, expected on the model shapes (K/BK >= 28 tiles, >= 32 blocks): gate 3, or gate 4 if a launch happens to come out right" }, \
    { "half_accum", 3, "each k-tile's partial product added into a running sum rounded to half precision: errors ~0.1-1 at K >= 3584 (model shapes)" }

/* Constant A and B make every product equal, so the float32 accumulator's
 * rounding errors all lean one way instead of random-walking: the error
 * approaches Higham's gamma_K bound (K u |C|, 8.5e-4 relative at K = 14336),
 * where random data gives ~sqrt(K) u. Measured on an H200 (run 3 of
 * docs/receipts/2026-12-01-h200-device-pipeline.md): 1.2e-4 to 1.6e-4
 * relative on every K >= 14336 shape, over GEMM_TOL's rtol 1e-4, which is set
 * for random data. */
#define GEMM_NO_CONSTANT { KC_CONSTANT, "constant inputs make the float32 accumulation's rounding errors add coherently (up to Higham's gamma_K = K u, 8.5e-4 relative at K = 14336; 1.2e-4 to 1.6e-4 measured on an H200), over the rtol 1e-4 set for random data; zeros and denormals run" }

#define GEMM_CONTRACT(id_, name_, sym_, dt_, launch_, budget_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "gemm_tc", .symbol = sym_, \
    .dims = { "M", "N", "K" }, \
    .args = { \
        KC_BUFFER("C", KC_F32, KC_OUT, gm_c_count), \
        KC_BUFFER("A", dt_, KC_IN, gm_a_count), \
        KC_BUFFER("B", dt_, KC_IN, gm_b_count), \
        KC_SCALAR("M", KC_I32, gm_m), \
        KC_SCALAR("N", KC_I32, gm_n), \
        KC_SCALAR("K", KC_I32, gm_k), \
    }, \
    .launch = launch_, .shapes = gemm_shapes, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_ZEROS, KC_DENORMAL }, \
    .no_boundary = { GEMM_NO_CONSTANT }, \
    .reference = kc_ref_gemm_nt, .tol = GEMM_TOL, .budget = budget_, \
    .device_reference = { .module = "gemm_ref", .symbol = "gemm_nt_ref" }, \
    .controls = { GEMM_CONTROLS }, \
}

/* ptxas (CUDA 13.0, sm_90): 64x64 f16 103 / bf16 112 registers, 128x128 f16 122 /
 * bf16 128 registers, no spills; __launch_bounds__(128, 4) and (256, 2) cap
 * them at 128. Occupancy: 4 blocks of 128 threads (registers) and 2 of 256
 * (registers; shared memory would allow 3). */
#define GEMM_BUDGET_64 { .max_regs = 128, .max_smem = 34816, .max_local = 0, .min_blocks_per_sm = 4 }
#define GEMM_BUDGET_128 { .max_regs = 128, .max_smem = 67584, .max_local = 0, .min_blocks_per_sm = 2 }

GEMM_CONTRACT(gemm_64x64_f16, "gemm.64x64.f16", "gemm_tc_64x64_f16", KC_F16, gemm_launch_64, GEMM_BUDGET_64);
GEMM_CONTRACT(gemm_64x64_bf16, "gemm.64x64.bf16", "gemm_tc_64x64_bf16", KC_BF16, gemm_launch_64, GEMM_BUDGET_64);
GEMM_CONTRACT(gemm_128x128_f16, "gemm.128x128.f16", "gemm_tc_128x128_f16", KC_F16, gemm_launch_128, GEMM_BUDGET_128);
GEMM_CONTRACT(gemm_128x128_bf16, "gemm.128x128.bf16", "gemm_tc_128x128_bf16", KC_BF16, gemm_launch_128, GEMM_BUDGET_128);
