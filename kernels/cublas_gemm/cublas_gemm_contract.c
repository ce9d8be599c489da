/* cublas_gemm_contract.c — contracts for cuBLAS's cublasGemmEx behind the thin
 * launchers of libkc_cublas.cu (a library kernel: kc_contract.library).
 *
 * C[m, n] = sum_k A[m, k] * B[n, k]   ("NT": B [N, K] an nn.Linear weight, A
 * [M, K] activations, row-major), A and B f16 or bf16, C [M, N] f32,
 * CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT (cuBLAS picks the algorithm and may
 * split K). The same product, argument layout and float64 reference
 * (kc_ref_gemm_nt, src/core/ref_gemm.c; on the GPU its bitwise twin gemm_nt_ref,
 * kernels/gemm/gemm_ref.cu) as the gemm_tc family, so the two can be compared
 * on the same shapes.
 * Shape dims: d[0] M (tokens), d[1] N (output features), d[2] K (input features).
 *
 * Shapes run in the order listed, each with normal then uniform. The first has
 * N = K (Llama-3-8B o_proj, 7 tokens), so every control is caught there:
 *   transpose_flipped gate 3: B read as [K, N] (CUBLAS_OP_N with ld K), a
 *                     transposed weight: wrong values. (With N > K cuBLAS
 *                     refuses ld K < N: CUBLAS_STATUS_INVALID_VALUE, gate 1.)
 *   beta_one          gate 3: beta = 1 accumulates into C, which is poisoned
 *                     (0xFF bytes: NaN), so every element is NaN; gate 2 if
 *                     cuBLAS happens to leave the 0xFFFFFFFF pattern itself.
 *   mn_swapped        gate 3: the row/column-major swap forgotten (gemm(T, N,
 *                     M, N, K, A, B, ldc = M)): C written transposed, the
 *                     right size, the wrong layout (invisible only when M = 1
 *                     or N = 1: edge.m1.n1.k1 and the t1 shapes).
 * Determinism: cuBLAS documents bitwise-identical results run to run for the
 * same toolkit, architecture and SM count (one stream, its own workspace);
 * both launches of gate 4 use buffers with the same alignment, so the same
 * algorithm: gate 4 stays on. */
#include "kcontract.h"
#include "ref_gemm.h"

static size_t cg_c_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1]); }
static size_t cg_a_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[2]); }
static size_t cg_b_count(const kc_shape *s) { return (size_t)(s->d[1] * s->d[2]); }
static double cg_m(const kc_shape *s) { return (double)s->d[0]; }
static double cg_n(const kc_shape *s) { return (double)s->d[1]; }
static double cg_k(const kc_shape *s) { return (double)s->d[2]; }

/* Reference cost (multiply-adds) in brackets. */
static const kc_shape cublas_gemm_shapes[] = {
    { "llama3-8b.o_proj.t7", KC_SHAPE_MODEL, { 7, 4096, 4096 } },            /* N = K: see the controls [1.2e8] */
    { "llama3-8b.qkv_proj.t1", KC_SHAPE_MODEL, { 1, 6144, 4096 } },          /* decode, one token [2.5e7] */
    { "llama3-8b.gate_up_proj.t16", KC_SHAPE_MODEL, { 16, 28672, 4096 } },   /* fused 2 x 14336 [1.9e9] */
    { "llama3-8b.down_proj.t128", KC_SHAPE_MODEL, { 128, 4096, 14336 } },    /* prefill chunk [7.5e9] */
    { "qwen2.5-7b.qkv_proj.t7", KC_SHAPE_MODEL, { 7, 4608, 3584 } },         /* 3584 + 2*512 kv [1.2e8] */
    { "mixtral-8x7b.expert_w1.t37", KC_SHAPE_MODEL, { 37, 14336, 4096 } },   /* 37 tokens routed to one expert [2.2e9] */
    { "llama3-8b.lm_head.t1", KC_SHAPE_MODEL, { 1, 128256, 4096 } },         /* vocabulary [5.3e8] */
    { "edge.m1.n1.k1", KC_SHAPE_EDGE, { 1, 1, 1 } },
    { "edge.m31.n33.k31", KC_SHAPE_EDGE, { 31, 33, 31 } },
    { "edge.m33.n31.k1023", KC_SHAPE_EDGE, { 33, 31, 1023 } },
    { "edge.m1023.n33.k33", KC_SHAPE_EDGE, { 1023, 33, 33 } },
    { "edge.m3.n1023.k7", KC_SHAPE_EDGE, { 3, 1023, 7 } },                   /* K below any tensor-core k step */
    { "edge.m129.n65.k1", KC_SHAPE_EDGE, { 129, 65, 1 } },
    { "llama3-8b.q_proj.t2048", KC_SHAPE_LARGE, { 2048, 4096, 4096 } },      /* [3.4e10] */
    { 0 }
};

/* The tensor-core accumulation argument of gemm_tc holds for cuBLAS's kernels
 * too (f32 accumulators fed by truncating k-block adds), and a split-K
 * algorithm adds its f32 partial sums in yet another order: a few more
 * roundings of the same size. Estimated, not measured. */
#define CUBLAS_GEMM_TOL ((kc_tol){ 1e-4, 1e-2, "f32 tensor-core accumulation (truncating per k-block, ~K/8 roundings of a running sum ~sqrt(K)) and split-K partial sums in cuBLAS's order: up to ~7e-3 at K = 14336; rtol 1e-4 for |C| up to ~500" })

/* On an H200 racecheck reports 288 shared-memory hazards in every launch of
 * cuBLAS's own kernel (nvjet_sm90_{hss,tss}_64x8_64x16_4x1_v_bz_TNT, run 4 of
 * docs/receipts/2026-12-01-h200-device-pipeline.md), whose source we do not
 * have; memcheck, initcheck and synccheck still run on it. */
#define CUBLAS_NO_RACECHECK "cuBLAS's own kernels (nvjet_sm90_*) report shared-memory hazards under racecheck (288 a launch on an H200): not this project's code to fix"

#define CUBLAS_GEMM_CONTRACT(id_, name_, entry_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .library = "kc_cublas", .entry = entry_, \
    .dims = { "M", "N", "K" }, \
    .args = { \
        KC_BUFFER("C", KC_F32, KC_OUT, cg_c_count), \
        KC_BUFFER("A", dt_, KC_IN, cg_a_count), \
        KC_BUFFER("B", dt_, KC_IN, cg_b_count), \
        KC_SCALAR("M", KC_I32, cg_m), \
        KC_SCALAR("N", KC_I32, cg_n), \
        KC_SCALAR("K", KC_I32, cg_k), \
    }, \
    .shapes = cublas_gemm_shapes, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = kc_ref_gemm_nt, .tol = CUBLAS_GEMM_TOL, \
    .device_reference = { .module = "gemm_ref", .symbol = "gemm_nt_ref" }, \
    .no_racecheck = CUBLAS_NO_RACECHECK, \
    .controls = { \
        { "transpose_flipped", 3, "the weight's transpose flag flipped (CUBLAS_OP_N for a [N, K] weight, ld K): B read as [K, N]" }, \
        { "beta_one", 3, "beta = 1 with an uninitialized C: the product accumulated into poison (NaN)" }, \
        { "mn_swapped", 3, "M and N swapped with the operands (row-major/column-major confusion): C written transposed" }, \
    }, \
}

CUBLAS_GEMM_CONTRACT(cublas_gemm_f16, "cublas_gemm.f16", "kc_cublas_gemm_nt_f16", KC_F16);
CUBLAS_GEMM_CONTRACT(cublas_gemm_bf16, "cublas_gemm.bf16", "kc_cublas_gemm_nt_bf16", KC_BF16);
