/* gemm_hopper_contract.c — contracts for kernels/gemm_hopper/gemm_wgmma.cu,
 * the Hopper GEMM (TMA, wgmma, a warp-specialized mbarrier pipeline; sm_90a).
 *
 * C[m, n] = sum_k A[m, k] * B[n, k]   ("NT": B [N, K] an nn.Linear weight, A
 * [M, K] activations, both K-contiguous; C [M, N] f32, so gate 3 sees the
 * tensor-core accumulation itself, as for gemm.* and cublas_gemm.*).
 *   gemm_hopper.bf16  A, B bf16.
 *   gemm_hopper.fp8   A, B e4m3 with block scales (DeepSeek-V3 style):
 *                     C[m, n] = sum_k A[m, k] SA[m, k/128] B[n, k] SB[n/128, k/128],
 *                     SA f32 [M, ceil(K/128)] (per token, per 128 columns of K),
 *                     SB f32 [ceil(N/128), ceil(K/128)] (per 128x128 weight block).
 * Shape dims: d[0] M (tokens), d[1] N (output features), d[2] K (input features).
 * The kernel reads A and B only through tensor maps (KC_TENSOR_MAP over the
 * carried buffers A and B): 2-D, dims {K, rows}, row stride K x the element
 * size, box {128 bytes of K, BM = 128 rows} for A and {128 bytes, BN} for B
 * (BN 256 bf16, 128 fp8), 128-byte swizzle, zero out-of-bounds fill.
 * Precondition (the TMA unit's: a row stride is a multiple of 16 bytes): K
 * a multiple of 8 for bf16, of 16 for fp8. M and N are free; the K tail past
 * the last whole k-block (64 bf16, 128 fp8) is zero-filled by the TMA unit.
 * Launch: persistent, min(tiles, SMs) blocks of 384 threads (a producer
 * warpgroup and two consumer warpgroups), the stage ring in dynamic shared
 * memory: 4 x 48 KiB (bf16) or 6 x 32 KiB (fp8), + barriers, + 1 KiB to align.
 *
 * Shapes: Llama-3-8B projections at 37 to 256 tokens (prefill chunks; the
 * speed at 4096-8192 tokens is bench/gemm_hopper_bench.cu's, receipt
 * docs/receipts/2026-12-02-h200-hopper-gemm/), Mixtral's expert w2 with 37
 * routed tokens, edges off every tile: M and N = 1, 7, 33, 127, 129, 255, 257,
 * 1023, 1025, 4100 (BM 128, BN 256 / 128), K with a tail past the last
 * k-block (8 or 16 elements, the smallest K the TMA unit takes), one
 * k-block or less (K = 8, 40, 64; 16, 48, 128), and 9 x 17 (bf16) or 9 x 33
 * (fp8) tiles, more than an H200's 132 SMs: blocks walk several tiles. With
 * one k-block per tile that is at most 3 loads per block, fewer than the
 * ring's stages, so the ring never wraps from one tile into the next; the
 * shapes m1.n40000.k264 (bf16: 157 tiles of 5 k-blocks) and m1.n19000.k784
 * (fp8: 149 tiles of 7 k-blocks) have nk = 1 + the stage count: a block's
 * first tile ends on stage 0 and its second tile refills stage 0, so the
 * release of a tile's last stage (the consumers' arrival on its empty
 * barrier after the k loop) is waited for; a lost release hangs until the
 * watchdog traps (gate 1).
 *
 * Controls and the first case expected to catch each (shapes run in the
 * order listed, each with normal then uniform; a control stops at its first
 * failure):
 *   phase_flip          gate 1, llama3-8b.qkv_proj.t256 / normal: the
 *                       consumers wait for the previous phase of the full
 *                       barrier, complete from the start, so they run ahead of
 *                       the copies and release stages twice before the
 *                       producer looks: its parity wait then sees the phase
 *                       after the one it waits for as pending and never
 *                       returns; the watchdog traps (seen with
 *                       bench/gemm_hopper_bench.cu on an H200: a launch
 *                       failure on the first shape, bf16 and fp8). Wrong
 *                       data (gate 3) only if the kernel ended first.
 *   expect_tx_short     gate 1, llama3-8b.qkv_proj.t256 / normal: the full
 *                       barrier expects A's bytes only; B's complete_tx drives
 *                       the count below zero and no later phase completes: the
 *                       kernel's watchdog (250 ms without progress) traps, the
 *                       launch fails. (Without a watchdog the launch would
 *                       hang until the item's time limit.)
 *   box_off_by_one      gate 3, llama3-8b.qkv_proj.t256 / normal: B's box one
 *                       row late: C[:, n] = A B[n + 1]^T.
 *   k_tail_dropped      gate 3, edge.m1.n1.k8 (fp8 edge.m1.n1.k16) / normal:
 *                       K < BK gives zero k-blocks, C = 0 (then every K with a
 *                       tail; the model shapes have none).
 *   store_unguarded     gate 2, edge.m1.n1.k8 (fp8 k16) / normal: the last row
 *                       writes up to BN - 1 columns past C's end.
 *   scale_block_shift   (fp8) gate 3, llama3-8b.qkv_proj.t256 / normal: every
 *                       k-block but the last scaled by the next one's A scale.
 *   scale_row_unclamped (fp8) gate 5 (memcheck): rows past M of a partial row
 *                       tile read their A scales past SA's end (edge shapes
 *                       with M % 128 != 0). Those rows are never stored, so
 *                       gates 1-4 pass; the read lands in the guard band.
 */
#include <stdint.h>
#include <stdlib.h>
#include "kcontract.h"
#include "ref_gemm.h"

enum { GH_C = 0, GH_A = 1, GH_B = 2, GH_TMA = 3, GH_TMB = 4, GH_SA = 5, GH_SB = 6 };

static size_t gh_c_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1]); }
static size_t gh_a_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[2]); }
static size_t gh_b_count(const kc_shape *s) { return (size_t)(s->d[1] * s->d[2]); }
static int64_t gh_kb(const kc_shape *s) { return (s->d[2] + 127) / 128; }
static size_t gh_sa_count(const kc_shape *s) { return (size_t)(s->d[0] * gh_kb(s)); }
static size_t gh_sb_count(const kc_shape *s) { return (size_t)(((s->d[1] + 127) / 128) * gh_kb(s)); }
static double gh_m(const kc_shape *s) { return (double)s->d[0]; }
static double gh_n(const kc_shape *s) { return (double)s->d[1]; }
static double gh_k(const kc_shape *s) { return (double)s->d[2]; }

/* Tile shapes and shared memory of gemm_wgmma.cu's cfg and layout. */
#define GH_BM 128
#define GH_BN_BF16 256
#define GH_BN_FP8 128
#define GH_SMEM_BF16 (4 * (128 + 256) * 128 + 2 * 4 * 8 + 1024)   /* 197696 */
#define GH_SMEM_FP8 (6 * (128 + 128) * 128 + 2 * 6 * 8 + 1024)    /* 197728 */

/* One operand's map: rows x K elements of esize bytes, box {128 bytes, box_rows}. */
static void gh_map(kc_tensor_map *m, int64_t rows, int64_t K, int esize, uint32_t box_rows)
{
    m->rank = 2;
    m->dims[0] = (uint64_t)K;
    m->dims[1] = (uint64_t)rows;
    m->strides[0] = (uint64_t)(K * esize);
    m->box[0] = (uint32_t)(128 / esize);
    m->box[1] = box_rows;
    m->elem_strides[0] = 1;
    m->elem_strides[1] = 1;
    m->swizzle = KC_TMAP_SWIZZLE_128B;
    m->l2_promotion = KC_TMAP_L2_256B;
}
static void gh_map_a_bf16(const kc_shape *s, kc_tensor_map *m) { gh_map(m, s->d[0], s->d[2], 2, GH_BM); }
static void gh_map_b_bf16(const kc_shape *s, kc_tensor_map *m) { gh_map(m, s->d[1], s->d[2], 2, GH_BN_BF16); }
static void gh_map_a_fp8(const kc_shape *s, kc_tensor_map *m) { gh_map(m, s->d[0], s->d[2], 1, GH_BM); }
static void gh_map_b_fp8(const kc_shape *s, kc_tensor_map *m) { gh_map(m, s->d[1], s->d[2], 1, GH_BN_FP8); }

/* Persistent: one block per tile up to one per SM. */
static void gh_launch(const kc_shape *s, const kc_device *dev, kc_launch *l, int64_t bn, unsigned smem)
{
    const int64_t tiles = ((s->d[0] + GH_BM - 1) / GH_BM) * ((s->d[1] + bn - 1) / bn);
    const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 1;
    l->grid[0] = (unsigned)(tiles < sms ? tiles : sms); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 384; l->block[1] = 1; l->block[2] = 1;
    l->smem = smem;
}
static void gh_launch_bf16(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    gh_launch(s, dev, l, GH_BN_BF16, GH_SMEM_BF16);
}
static void gh_launch_fp8(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    gh_launch(s, dev, l, GH_BN_FP8, GH_SMEM_FP8);
}

/* Block scales: (32 + i) / 128 for i uniform in [0, 223], i.e. 0.25 to 1.99
 * with at most 8 significant bits, whatever the distribution. Real scales
 * (amax / 448) are any f32; these keep every dequantized operand (e4m3's 4
 * bits times 8) and every product of two (24 bits) exact in double, so the
 * reference below is the exact sum rounded only by its additions and its
 * CUDA twin is bitwise equal (gemm_ref.cuh's rule). */
static void gh_scale_gen(kc_gen *g)
{
    for (size_t i = 0; i < g->count; i++) kc_gen_put(g, i, (double)(32 + kc_rand_int(g, 0, 223)) / 128.0);
}

/* ---- float64 reference of gemm_hopper.fp8 --------------------------------
 * Every A row dequantized once (Ad [M, K], A x SA, exact), every B row as it
 * is needed (B x SB, exact); C[m, n] the k-order double sum of their products
 * (exact: 24 bits), from +0. Rows n of B in chunks on the harness's threads
 * (kc_parallel_for); each chunk's sums are the same whatever the threads. Its
 * CUDA twin is gemm_fp8_blockscaled_ref (gemm_hopper_ref.cu): bitwise equal. */
typedef struct gh_job {
    const kc_ref *r;
    const double *etab;   /* e4m3 code -> value */
    const double *Ad;
} gh_job;

static void gh_fp8_cols(void *ctx, size_t begin, size_t end)
{
    const gh_job *j = ctx;
    const kc_ref *r = j->r;
    const int64_t M = r->shape->d[0], N = r->shape->d[1], K = r->shape->d[2], nkb = gh_kb(r->shape);
    const uint8_t *B = r->host[GH_B];
    const float *SB = r->host[GH_SB];
    double *w = malloc((size_t)K * sizeof *w);
    if (!w) abort();
    for (int64_t n = (int64_t)begin; n < (int64_t)end; n++) {
        for (int64_t k = 0; k < K; k++) w[k] = j->etab[B[n * K + k]] * (double)SB[(n / 128) * nkb + k / 128];
        for (int64_t m = 0; m < M; m++) {
            const double *a = j->Ad + m * K;
            double acc = 0;
            for (int64_t k = 0; k < K; k++) acc += a[k] * w[k];
            r->out[GH_C][m * N + n] = acc;
        }
    }
    free(w);
}

static void gh_fp8_reference(const kc_ref *r)
{
    const int64_t M = r->shape->d[0], N = r->shape->d[1], K = r->shape->d[2], nkb = gh_kb(r->shape);
    double etab[256];
    for (int b = 0; b < 256; b++) etab[b] = kc_e4m3_to_double((uint8_t)b);
    double *Ad = malloc((size_t)(M * K) * sizeof *Ad);
    if (!Ad) abort();
    const uint8_t *A = r->host[GH_A];
    const float *SA = r->host[GH_SA];
    for (int64_t m = 0; m < M; m++)
        for (int64_t k = 0; k < K; k++) Ad[m * K + k] = etab[A[m * K + k]] * (double)SA[m * nkb + k / 128];
    gh_job j = { .r = r, .etab = etab, .Ad = Ad };
    /* rows of B per chunk: at least 2^20 multiply-adds */
    kc_parallel_for((size_t)N, (size_t)(1048576 / ((M + 1) * K + 1)) + 1, gh_fp8_cols, &j);
    free(Ad);
}

/* Reference cost (multiply-adds) in brackets: about 2.6e10 per distribution
 * over the model shapes (the device reference's milliseconds; the host's
 * seconds on 16 threads), 3.4e10 for the large one. */
#define GH_MODEL_SHAPES \
    { "llama3-8b.qkv_proj.t256", KC_SHAPE_MODEL, { 256, 6144, 4096 } },        /* 4096 + 2*1024 kv [6.4e9] */ \
    { "llama3-8b.o_proj.t128", KC_SHAPE_MODEL, { 128, 4096, 4096 } },          /* [2.1e9] */ \
    { "llama3-8b.gate_up_proj.t64", KC_SHAPE_MODEL, { 64, 28672, 4096 } },     /* fused 2 x 14336 [7.5e9] */ \
    { "llama3-8b.down_proj.t128", KC_SHAPE_MODEL, { 128, 4096, 14336 } },      /* [7.5e9] */ \
    { "mixtral-8x7b.expert_w2.t37", KC_SHAPE_MODEL, { 37, 4096, 14336 } }      /* 37 tokens routed to one expert [2.2e9] */
#define GH_LARGE_SHAPE \
    { "llama3-8b.o_proj.t2048", KC_SHAPE_LARGE, { 2048, 4096, 4096 } }         /* [3.4e10] */

static const kc_shape gh_bf16_shapes[] = {
    GH_MODEL_SHAPES,
    { "edge.m1.n1.k8", KC_SHAPE_EDGE, { 1, 1, 8 } },                /* the smallest K: one 16-byte row */
    { "edge.m33.n127.k72", KC_SHAPE_EDGE, { 33, 127, 72 } },        /* K = 64 + 8 */
    { "edge.m127.n129.k200", KC_SHAPE_EDGE, { 127, 129, 200 } },    /* K = 3*64 + 8 */
    { "edge.m129.n257.k64", KC_SHAPE_EDGE, { 129, 257, 64 } },      /* one row and column past a tile; one k-block */
    { "edge.m255.n33.k4104", KC_SHAPE_EDGE, { 255, 33, 4104 } },    /* K = 64*64 + 8 */
    { "edge.m7.n1023.k136", KC_SHAPE_EDGE, { 7, 1023, 136 } },
    { "edge.m1025.n1.k520", KC_SHAPE_EDGE, { 1025, 1, 520 } },      /* N = 1: odd N, single stores */
    { "edge.m1100.n4100.k40", KC_SHAPE_EDGE, { 1100, 4100, 40 } },  /* 9 x 17 tiles > 132 SMs [1.8e8] */
    /* The stage ring wrapping across a block's tiles: 157 tiles > 132 SMs,
     * nk = 5 = STAGES + 1: tile 1 ends on stage 0, tile 2 reuses it after 3
     * loads (its end-of-tile release must have come) [1.1e7] */
    { "edge.m1.n40000.k264", KC_SHAPE_EDGE, { 1, 40000, 264 } },
    GH_LARGE_SHAPE,
    { 0 }
};

static const kc_shape gh_fp8_shapes[] = {
    GH_MODEL_SHAPES,
    { "edge.m1.n1.k16", KC_SHAPE_EDGE, { 1, 1, 16 } },
    { "edge.m33.n127.k144", KC_SHAPE_EDGE, { 33, 127, 144 } },      /* K = 128 + 16: two scale blocks */
    { "edge.m127.n129.k400", KC_SHAPE_EDGE, { 127, 129, 400 } },    /* K = 3*128 + 16; two weight row blocks */
    { "edge.m129.n257.k128", KC_SHAPE_EDGE, { 129, 257, 128 } },
    { "edge.m255.n33.k4112", KC_SHAPE_EDGE, { 255, 33, 4112 } },    /* K = 32*128 + 16 */
    { "edge.m7.n1023.k272", KC_SHAPE_EDGE, { 7, 1023, 272 } },
    { "edge.m1025.n1.k528", KC_SHAPE_EDGE, { 1025, 1, 528 } },
    { "edge.m1100.n4100.k48", KC_SHAPE_EDGE, { 1100, 4100, 48 } },  /* 9 x 33 tiles > 132 SMs [2.2e8] */
    /* The stage ring wrapping across a block's tiles: 149 tiles > 132 SMs,
     * nk = 7 = STAGES + 1: tile 1 ends on stage 0, tile 2 reuses it after 5
     * loads; odd N (single stores) [1.5e7] */
    { "edge.m1.n19000.k784", KC_SHAPE_EDGE, { 1, 19000, 784 } },
    GH_LARGE_SHAPE,
    { 0 }
};

/* bf16: gemm_contract.c's argument holds for wgmma as for mma.sync (f32
 * accumulators fed by truncating k-block additions; Hopper's HGMMA as
 * measured by Fasi et al. for earlier tensor cores), so its tolerance. */
#define GH_BF16_TOL ((kc_tol){ 1e-4, 1e-2, "tensor-core f32 accumulation truncates (not RNE) per k-block: ~K/8 biased roundings of a running sum ~sqrt(K) give up to ~7e-3 at K = 14336; rtol 1e-4 for |C| up to ~500; a dropped tail or a raced stage errs O(1)" })
/* fp8: each 128-term k-block is summed by the tensor cores with fewer bits
 * than f32 (DeepSeek-V3's report: about 14 bits kept on H800), then scaled
 * (sa sb, 16 bits: exact in f32) and added in f32. Measured on an H200
 * (bench/gemm_hopper_bench.cu check, these shapes, docs/receipts/
 * 2026-12-02-h200-hopper-gemm/): one k-block (K = 128) already errs up to
 * 0.03-0.04 on |C| ~ 100; normal inputs need atol 0.12 at rtol 1e-4 and
 * 0.105 at rtol 1e-3 (K = 14336, |C| up to 850), uniform ones 0.035.
 * rtol 1e-3 with atol 0.5 leaves ~5x; K = 28672 records would grow it by
 * ~sqrt(2). The controls err by 3 to 10^3 (a shifted scale, a dropped
 * 16-element tail, a shifted box). */
#define GH_FP8_TOL ((kc_tol){ 1e-3, 0.5, "e4m3 k-blocks summed by the tensor cores with ~14 significant bits, promoted to f32 every 128 k: measured on an H200 up to 0.105 (rtol 1e-3) on normal inputs at K = 14336; atol 0.5 leaves ~5x, the controls err 3 to 10^3" })

#define GH_NO_CONSTANT { KC_CONSTANT, "constant inputs make the float32 accumulation's rounding errors add coherently (up to Higham's gamma_K = K u, 8.5e-4 relative at K = 14336; gemm_contract.c measured 1.2e-4 to 1.6e-4 on an H200), over the tolerance set for random data; zeros and denormals run" }

#define GH_CONTROLS_COMMON \
    { "phase_flip", 1, "consumers wait on the full barrier with the wrong phase parity (the phase before, complete from the start): they multiply stages before their copies land and release them twice per producer wait, whose parity then never matches; the mbarrier watchdog traps (a launch error, not a hang)" }, \
    { "expect_tx_short", 1, "the full barrier's expect_tx one tile short (A's bytes only): its transaction count never returns to zero, the pipeline stalls and the kernel's mbarrier watchdog traps (a launch error, not a hang)" }, \
    { "box_off_by_one", 3, "B's TMA box starts one row late (n0 + 1): every C column multiplied by the next weight row" }, \
    { "k_tail_dropped", 3, "k-block count K / BK rounded down: the K tail (K % 64 bf16, K % 128 fp8) is never loaded (every edge shape with a tail; K < BK gives C = 0)" }, \
    { "store_unguarded", 2, "the epilogue stores columns >= N: partial column tiles write past each row, the last row into the guard band (N = 1, 33, 127, 129, 257, 1023, 4100)" }

/* ptxas (CUDA 13.0, sm_90a): 168 registers at launch (__launch_bounds__(384,
 * 1): 65536 / 384), no spills; setmaxnreg then moves the producer
 * warpgroup to 40 and the consumers to 232 (128 x 40 + 256 x 232 = 64512).
 * Shared memory: the stage ring, one block per SM. */
#define GH_BUDGET(smem_) { .max_regs = 168, .max_smem = (smem_), .max_local = 0, .min_blocks_per_sm = 1 }

#define GH_CARRIED(name_, dt_, count_) \
    { .kind = KC_ARG_BUFFER, .name = (name_), .dtype = (dt_), .role = KC_IN, .count = (count_), .carried = 1 }

KC_CONTRACT(gemm_hopper_bf16) {
    .name = "gemm_hopper.bf16", .module = "gemm_wgmma", .symbol = "gemm_wgmma_bf16",
    .dims = { "M", "N", "K" },
    .args = {
        KC_BUFFER("C", KC_F32, KC_OUT, gh_c_count),
        GH_CARRIED("A", KC_BF16, gh_a_count),
        GH_CARRIED("B", KC_BF16, gh_b_count),
        KC_TENSOR_MAP("tmA", "A", gh_map_a_bf16),
        KC_TENSOR_MAP("tmB", "B", gh_map_b_bf16),
        KC_SCALAR("M", KC_I32, gh_m),
        KC_SCALAR("N", KC_I32, gh_n),
        KC_SCALAR("K", KC_I32, gh_k),
    },
    .launch = gh_launch_bf16, .shapes = gh_bf16_shapes,
    .dists = { KC_NORMAL, KC_UNIFORM, KC_ZEROS, KC_DENORMAL },
    .no_boundary = { GH_NO_CONSTANT },
    .reference = kc_ref_gemm_nt, .tol = GH_BF16_TOL, .budget = GH_BUDGET(GH_SMEM_BF16),
    .device_reference = { .module = "gemm_ref", .symbol = "gemm_nt_ref" },
    .controls = { GH_CONTROLS_COMMON },
};

KC_CONTRACT(gemm_hopper_fp8) {
    .name = "gemm_hopper.fp8", .module = "gemm_wgmma", .symbol = "gemm_wgmma_fp8",
    .dims = { "M", "N", "K" },
    .args = {
        KC_BUFFER("C", KC_F32, KC_OUT, gh_c_count),
        GH_CARRIED("A", KC_E4M3, gh_a_count),
        GH_CARRIED("B", KC_E4M3, gh_b_count),
        KC_TENSOR_MAP("tmA", "A", gh_map_a_fp8),
        KC_TENSOR_MAP("tmB", "B", gh_map_b_fp8),
        KC_BUFFER_GEN("SA", KC_F32, KC_IN, gh_sa_count, gh_scale_gen),
        KC_BUFFER_GEN("SB", KC_F32, KC_IN, gh_sb_count, gh_scale_gen),
        KC_SCALAR("M", KC_I32, gh_m),
        KC_SCALAR("N", KC_I32, gh_n),
        KC_SCALAR("K", KC_I32, gh_k),
    },
    .launch = gh_launch_fp8, .shapes = gh_fp8_shapes,
    .dists = { KC_NORMAL, KC_UNIFORM, KC_ZEROS, KC_DENORMAL },
    .no_boundary = { GH_NO_CONSTANT },
    .reference = gh_fp8_reference, .tol = GH_FP8_TOL, .budget = GH_BUDGET(GH_SMEM_FP8),
    .device_reference = { .module = "gemm_hopper_ref", .symbol = "gemm_fp8_blockscaled_ref" },
    .controls = {
        GH_CONTROLS_COMMON,
        { "scale_block_shift", 3, "the activation scale of the next k-block (SA[m, kb + 1]): every block but the last scaled wrongly whenever K > 128" },
        { "scale_row_unclamped", KC_GATE_SANITIZE, "A scales read for the rows past M of a partial row tile: past the end of SA (never stored, so gates 1-4 pass; memcheck sees the read)" },
    },
};
