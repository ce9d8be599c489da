/* quant_int4_contract.c — contracts for kernels/quant_int4/quant_int4.cu.
 *
 * Weight-only int4 group quantization (AWQ/GPTQ style, asymmetric):
 *   y[m, n] = sum_k x[m, k] * (q[n, k] - z[n, k/G]) * s[n, k/G]
 * x [M, K] f16; y [M, N] f32 (f32 accumulation);
 * qweight u8 [N, ceil(K/2)]: element k of row n in byte k/2, even k in the low
 *   nibble, odd k in the high nibble; rows start on a byte (odd K: the last
 *   high nibble is padding, generated random like the rest and ignored);
 * scales f16 [N, ceil(K/G)], zeros u8 [N, ceil(K/G)] (one zero point per byte,
 *   0..15); a partial last group (K % G != 0) is an ordinary group.
 * Shape dims: d[0] M (tokens), d[1] N (output features), d[2] K (input
 * features), d[3] G (group size, 32 or 128; fixed per contract).
 *
 * quant_int4.gemv.g<G>: quant_int4_gemv_f16, one token row per block (decode, M = 1..3)
 * quant_int4.gemm.g<G>: quant_int4_gemm_f16, 8 token rows per block (small-M GEMM, M = 7..64)
 * Inputs: packed bytes uniform over all 256 values (so every nibble is uniform
 * on 0..15), scales U(0.001, 0.02) rounded to f16, zeros uniform on 0..15;
 * activations from the distribution (normal, uniform). */
/* Controls and the first case expected to catch each (normal activations):
 *   nibble_swap          gate 3, the first model shape: every weight wrong.
 *   zero_ignored         gate 3, the first model shape: every weight off by z*s.
 *   last_tile_dropped    gate 3, edge.n1.k1 (gemv) / edge.m1.n1.k1 (gemm): y = 0
 *                        (unless the single q equals its zero, 1 in 16), then
 *                        every edge with K % 128 != 0 (31, 33, 192, 1023, 4128).
 *   group_scale_per_tile gate 3 (G = 32 contracts only), the first model shape:
 *                        elements 32..127 of every 128 tile use group k0/32's
 *                        scale and zero instead of their own. */
#include <stdlib.h>
#include <stdint.h>
#include "kcontract.h"
#include "dtype.h"

enum { Q4_Y = 0, Q4_X = 1, Q4_QW = 2, Q4_S = 3, Q4_Z = 4, Q4_M = 5, Q4_N = 6, Q4_K = 7, Q4_G = 8 };

static int64_t q4_ng(const kc_shape *s) { return (s->d[2] + s->d[3] - 1) / s->d[3]; }
static size_t q4_y_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1]); }
static size_t q4_x_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[2]); }
static size_t q4_qw_count(const kc_shape *s) { return (size_t)(s->d[1] * ((s->d[2] + 1) / 2)); }
static size_t q4_sz_count(const kc_shape *s) { return (size_t)(s->d[1] * q4_ng(s)); }
static double q4_m(const kc_shape *s) { return (double)s->d[0]; }
static double q4_n(const kc_shape *s) { return (double)s->d[1]; }
static double q4_k(const kc_shape *s) { return (double)s->d[2]; }
static double q4_g(const kc_shape *s) { return (double)s->d[3]; }

/* Inputs, all made on the GPU: packed weights are the built-in u8 stream,
 * every byte uniform on 0..255 (both nibbles uniform, padding included);
 * scales positive, U(0.001, 0.02), stored as f16 (all normal f16 values);
 * zero points uniform on 0..15, one per byte. */
static void q4_scale_range(const kc_shape *s, double *lo, double *hi) { (void)s; *lo = 0.001; *hi = 0.02; }
static void q4_zero_range(const kc_shape *s, double *lo, double *hi) { (void)s; *lo = 0; *hi = 15; }

/* 8 warps (one output row each), grid.x = ceil(N/8); grid.y = M token rows
 * (gemv) or ceil(M/8) tiles of 8 (gemm). Static shared memory only. */
static void q4_launch_gemv(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[1] + 7) / 8); l->grid[1] = (unsigned)s->d[0]; l->grid[2] = 1;
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}
static void q4_launch_gemm(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[1] + 7) / 8); l->grid[1] = (unsigned)((s->d[0] + 7) / 8); l->grid[2] = 1;
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* ---- float64 reference ----------------------------------------------------
 * Row n of W is dequantized exactly in double, w[k] = (q - z) * s (q the
 * nibble of element k as documented above, s and z of group k / G), then dotted
 * with every row of x in k order. Rows n are independent: chunks of them run on
 * the harness's threads (kc_parallel_for; the arithmetic per element does not
 * depend on the split; the gemm shapes reach 3.8e9 multiply-adds). Its CUDA
 * twin quant_int4_ref (kernels/quant_int4/quant_int4_ref.cu, the default
 * reference grid) dequantizes and sums in the same order: bitwise equal. */
typedef struct q4_ref_job {
    const kc_ref *r;
    const double *xd, *htab;
} q4_ref_job;

/* y[m][n] for every m and n in [begin, end) (kc_parallel_for body). */
static void q4_ref_rows(void *p, size_t begin, size_t end)
{
    const q4_ref_job *j = p;
    const kc_ref *r = j->r;
    const int64_t M = r->shape->d[0], N = r->shape->d[1], K = r->shape->d[2], G = r->shape->d[3];
    const int64_t KB = (K + 1) / 2, ng = (K + G - 1) / G;
    const uint8_t *qw = r->host[Q4_QW], *zeros = r->host[Q4_Z];
    const uint16_t *scales = r->host[Q4_S];
    double *w = malloc((size_t)K * sizeof *w);
    if (!w) abort();
    for (int64_t n = (int64_t)begin; n < (int64_t)end; n++) {
        for (int64_t k = 0; k < K; k++) {
            const uint8_t byte = qw[n * KB + k / 2];
            const int q = (k % 2 == 0) ? (byte & 15) : (byte >> 4);
            const int64_t g = n * ng + k / G;
            w[k] = (double)(q - (int)zeros[g]) * j->htab[scales[g]];
        }
        for (int64_t m = 0; m < M; m++) {
            const double *xm = j->xd + m * K;
            double acc = 0;
            for (int64_t k = 0; k < K; k++) acc += w[k] * xm[k];
            r->out[Q4_Y][m * N + n] = acc;
        }
    }
    free(w);
}

static void q4_reference(const kc_ref *r)
{
    const int64_t M = r->shape->d[0], N = r->shape->d[1], K = r->shape->d[2];
    double *htab = malloc(65536 * sizeof *htab);
    double *xd = malloc((size_t)(M * K) * sizeof *xd);
    if (!htab || !xd) abort();
    for (uint32_t h = 0; h < 65536; h++) htab[h] = kc_f16_to_double((uint16_t)h);
    const uint16_t *x = r->host[Q4_X];
    for (int64_t i = 0; i < M * K; i++) xd[i] = htab[x[i]];

    q4_ref_job j = { .r = r, .xd = xd, .htab = htab };
    /* rows of W per chunk: at least 2^18 dequantizations and multiply-adds */
    kc_parallel_for((size_t)N, (size_t)(262144 / ((M + 1) * K + 1)) + 1, q4_ref_rows, &j);
    free(htab); free(xd);
}

/* d = { M, N, K, G }. K: the model widths are multiples of 128; the edges are
 * off the 128 tile (1, 31, 33, 192 = 1.5 tiles, 1023, 4128 = 32 tiles + one
 * group of 32) and, for G = 128, off the group too. K = 1022 (K % 4 == 2) is
 * the one residue mod 4 the others miss: an even K whose rows have an odd
 * byte count (KB = 511), so every lane takes the byte-wise load and the lane
 * at k = K - 2 holds the row's last byte alone (its second byte, past the row,
 * must not be read: on the last row it is past the end of qweight, which only
 * memcheck on exact-size buffers sees, as the weights it would feed are 0). */
#define Q4_GEMV_SHAPES(G) { \
    { "llama3-8b.qkv_proj.t1", KC_SHAPE_MODEL, { 1, 6144, 4096, G } }, \
    { "llama3-8b.down_proj.t1", KC_SHAPE_MODEL, { 1, 4096, 14336, G } }, \
    { "qwen2.5-7b.up_proj.t1", KC_SHAPE_MODEL, { 1, 18944, 3584, G } }, \
    { "qwen2.5-7b.down_proj.t1", KC_SHAPE_MODEL, { 1, 3584, 18944, G } }, \
    { "mixtral-8x7b.expert_w1.t2", KC_SHAPE_MODEL, { 2, 14336, 4096, G } }, \
    { "edge.n1.k1", KC_SHAPE_EDGE, { 1, 1, 1, G } }, \
    { "edge.n33.k31", KC_SHAPE_EDGE, { 1, 33, 31, G } }, \
    { "edge.m3.n31.k33", KC_SHAPE_EDGE, { 3, 31, 33, G } }, \
    { "edge.n1023.k192", KC_SHAPE_EDGE, { 1, 1023, 192, G } }, \
    { "edge.n7.k4128", KC_SHAPE_EDGE, { 1, 7, 4128, G } }, \
    { "edge.m2.n33.k1023", KC_SHAPE_EDGE, { 2, 33, 1023, G } }, \
    { "edge.n31.k1022", KC_SHAPE_EDGE, { 1, 31, 1022, G } }, \
    { "llama3-8b.lm_head.t1", KC_SHAPE_LARGE, { 1, 128256, 4096, G } }, \
    { 0 } }

#define Q4_GEMM_SHAPES(G) { \
    { "llama3-8b.qkv_proj.t16", KC_SHAPE_MODEL, { 16, 6144, 4096, G } }, \
    { "llama3-8b.down_proj.t8", KC_SHAPE_MODEL, { 8, 4096, 14336, G } }, \
    { "qwen2.5-7b.down_proj.t7", KC_SHAPE_MODEL, { 7, 3584, 18944, G } }, \
    { "mixtral-8x7b.expert_w2.t24", KC_SHAPE_MODEL, { 24, 4096, 14336, G } }, \
    { "edge.m1.n1.k1", KC_SHAPE_EDGE, { 1, 1, 1, G } }, \
    { "edge.m9.n33.k33", KC_SHAPE_EDGE, { 9, 33, 33, G } }, \
    { "edge.m33.n1023.k192", KC_SHAPE_EDGE, { 33, 1023, 192, G } }, \
    { "edge.m17.n31.k4128", KC_SHAPE_EDGE, { 17, 31, 4128, G } }, \
    { "edge.m65.n7.k1023", KC_SHAPE_EDGE, { 65, 7, 1023, G } }, \
    { "edge.m9.n31.k1022", KC_SHAPE_EDGE, { 9, 31, 1022, G } }, \
    { "llama3-8b.up_proj.t64", KC_SHAPE_LARGE, { 64, 14336, 4096, G } }, \
    { 0 } }

static const kc_shape q4_gemv_g32_shapes[] = Q4_GEMV_SHAPES(32);
static const kc_shape q4_gemv_g128_shapes[] = Q4_GEMV_SHAPES(128);
static const kc_shape q4_gemm_g32_shapes[] = Q4_GEMM_SHAPES(32);
static const kc_shape q4_gemm_g128_shapes[] = Q4_GEMM_SHAPES(128);

/* f32 accumulation: each lane sums K/32 fused products in sequence, then a
 * 5-level shuffle tree. |w| <= 15 * 0.02 = 0.3 (rms ~0.07), x N(0,1): lane
 * partials ~0.07*sqrt(K/32) (~1.7 at K = 18944), y ~0.07*sqrt(K) (~10): rounding
 * errors ~1e-6 typical, a few 1e-6 at worst over all rows, close to the default
 * atol 1e-5. atol 1e-4 / rtol 1e-5 leave ~10x margin; every control errs by
 * >= 1e-2 (a wrong group scale, a missing zero point z*s ~ 0.1 per weight, a
 * dropped tile of 32..127 terms). */
#define Q4_TOL ((kc_tol){ 1e-5, 1e-4, "f32 accumulation, K/32 sequential fmas per lane + 5-level shuffle tree over |y| <= ~10: errors a few 1e-6 at worst, near the default atol; atol 1e-4 (controls err >= 1e-2)" })
#define Q4_CONTROLS_COMMON \
    { "nibble_swap", 3, "nibble order swapped (even k read from the high nibble): every weight wrong (all shapes)" }, \
    { "zero_ignored", 3, "zero point ignored, w = q * s: every weight off by z * s (all shapes)" }, \
    { "last_tile_dropped", 3, "tile count K/128 rounded down: the last partial tile (the last group or groups) is never read (K = 1, 31, 33, 192, 1023, 4128)" }
#define Q4_CONTROL_GROUP \
    { "group_scale_per_tile", 3, "the shared-memory loader copies one quantization group (the tile's first) for the whole 128-wide tile: with G = 32 elements 32..127 of every tile use the wrong scale and zero (every shape with K > 32)" }

#define Q4_CONTRACT(id_, name_, sym_, launch_, shapes_, budget_, ...) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "quant_int4", .symbol = sym_, \
    .dims = { "M", "N", "K", "G" }, \
    .args = { \
        KC_BUFFER("y", KC_F32, KC_OUT, q4_y_count), \
        KC_BUFFER("x", KC_F16, KC_IN, q4_x_count), \
        KC_BUFFER("qweight", KC_U8, KC_IN, q4_qw_count), \
        KC_BUFFER_RANGE("scales", KC_F16, KC_IN, q4_sz_count, q4_scale_range), \
        KC_BUFFER_RANGE("zeros", KC_U8, KC_IN, q4_sz_count, q4_zero_range), \
        KC_SCALAR("M", KC_I32, q4_m), \
        KC_SCALAR("N", KC_I32, q4_n), \
        KC_SCALAR("K", KC_I32, q4_k), \
        KC_SCALAR("G", KC_I32, q4_g), \
    }, \
    .launch = launch_, .shapes = shapes_, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_ZEROS, KC_CONSTANT, KC_DENORMAL, KC_INT_EXTREMES }, \
    .reference = q4_reference, .tol = Q4_TOL, .budget = budget_, \
    .device_reference = { .module = "quant_int4_ref", .symbol = "quant_int4_ref" }, \
    .controls = { Q4_CONTROLS_COMMON, __VA_ARGS__ }, \
}

/* ptxas (CUDA 13.0, sm_90): gemv 40 registers + 768 B static smem (6 blocks of
 * 256 threads per SM by registers), gemm 64 registers + 4352 B (4 blocks); no spills. */
#define Q4_BUDGET_GEMV { .max_regs = 64, .max_smem = 1024, .max_local = 0, .min_blocks_per_sm = 4 }
#define Q4_BUDGET_GEMM { .max_regs = 80, .max_smem = 4608, .max_local = 0, .min_blocks_per_sm = 3 }

/* G = 128 with the 128 tile: one group per tile, so the per-tile group loader
 * bug cannot show; that control is listed on the G = 32 contracts only. */
Q4_CONTRACT(q4_gemv_g32, "quant_int4.gemv.g32", "quant_int4_gemv_f16", q4_launch_gemv, q4_gemv_g32_shapes, Q4_BUDGET_GEMV, Q4_CONTROL_GROUP);
Q4_CONTRACT(q4_gemv_g128, "quant_int4.gemv.g128", "quant_int4_gemv_f16", q4_launch_gemv, q4_gemv_g128_shapes, Q4_BUDGET_GEMV, { 0 });
Q4_CONTRACT(q4_gemm_g32, "quant_int4.gemm.g32", "quant_int4_gemm_f16", q4_launch_gemm, q4_gemm_g32_shapes, Q4_BUDGET_GEMM, Q4_CONTROL_GROUP);
Q4_CONTRACT(q4_gemm_g128, "quant_int4.gemm.g128", "quant_int4_gemm_f16", q4_launch_gemm, q4_gemm_g128_shapes, Q4_BUDGET_GEMM, { 0 });
