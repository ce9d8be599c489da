/* delta_rule_contract.c — contracts for kernels/delta_rule/delta_rule.cu.
 *
 * delta_rule.<t>: one decode step of the gated delta rule (Gated DeltaNet,
 * Yang et al. 2024, eq. for S_t with the gate alpha_t = exp(g_t)):
 *     S' = alpha * S (I - beta k k^T) + beta v k^T,     o = S' q
 * with the state stored transposed per head, H = S^T [d_k, d_v] row-major (the
 * flash-linear-attention layout), so element-wise
 *     u[j] = sum_i H[i][j] k[i];   vn[j] = beta (v[j] - alpha u[j])
 *     H'[i][j] = alpha H[i][j] + k[i] vn[j];   o[j] = sum_i H'[i][j] q[i].
 * H: f32 [seqs * heads, d_k, d_v], updated in place (INOUT); q, k: [seqs *
 * heads, d_k] and v: [seqs * heads, d_v] in f32 or bf16; alpha, beta: f32
 * [seqs * heads]; o: f32 [seqs * heads, d_v]. No scaling of q inside.
 * Shape: d[0] seqs, d[1] heads, d[2] d_k (<= 128), d[3] d_v.
 *
 * Inputs as the model feeds them: q and k L2-normalized per head (as Gated
 * DeltaNet does; rounded to the dtype after normalizing), alpha in [0.8, 1)
 * (a decay exp(g)), beta in [0.05, 0.95] (a sigmoid output); v and the state
 * follow the distribution (uniform or normal). */
#include <math.h>
#include <stdlib.h>
#include "kcontract.h"

enum { DR_O = 0, DR_S = 1, DR_Q = 2, DR_K = 3, DR_V = 4, DR_ALPHA = 5, DR_BETA = 6, DR_H = 7, DR_DK = 8, DR_DV = 9 };

static size_t dr_heads(const kc_shape *s) { return (size_t)s->d[0] * (size_t)s->d[1]; }
static size_t dr_o_count(const kc_shape *s) { return dr_heads(s) * (size_t)s->d[3]; }
static size_t dr_s_count(const kc_shape *s) { return dr_heads(s) * (size_t)s->d[2] * (size_t)s->d[3]; }
static size_t dr_qk_count(const kc_shape *s) { return dr_heads(s) * (size_t)s->d[2]; }
static size_t dr_v_count(const kc_shape *s) { return dr_heads(s) * (size_t)s->d[3]; }
static double dr_h(const kc_shape *s) { return (double)s->d[1]; }
static double dr_dk(const kc_shape *s) { return (double)s->d[2]; }
static double dr_dv(const kc_shape *s) { return (double)s->d[3]; }

/* q, k: each head's d_k-vector drawn from the distribution, L2-normalized. */
/* Row h of dk elements: a draw of the distribution, scaled to unit norm. */
static void dr_unit_row(kc_gen *g, size_t h)
{
    const size_t dk = (size_t)g->shape->d[2], h0 = h * dk;
    double *tmp = malloc(dk * sizeof *tmp);
    if (!tmp) abort();
    double n2 = 0;
    for (size_t i = 0; i < dk; i++) {
        tmp[i] = g->dist == KC_UNIFORM ? kc_rand_uniform(g, -1.0, 1.0) : kc_rand_normal(g);
        n2 += tmp[i] * tmp[i];
    }
    const double inv = n2 > 0 ? 1.0 / sqrt(n2) : 0.0;
    for (size_t i = 0; i < dk; i++) kc_gen_put(g, h0 + i, tmp[i] * inv);
    free(tmp);
}
static void dr_unit_gen(kc_gen *g)
{
    kc_gen_rows(g, g->count / (size_t)g->shape->d[2], dr_unit_row);
}
/* Decay alpha U(0.8, 1) and write strength beta U(0.05, 0.95), made on the GPU. */
static void dr_alpha_range(const kc_shape *s, double *lo, double *hi) { (void)s; *lo = 0.8; *hi = 1.0; }
static void dr_beta_range(const kc_shape *s, double *lo, double *hi) { (void)s; *lo = 0.05; *hi = 0.95; }

/* Block (32, 4, 2): 32 columns of d_v, 4 row groups, 2 heads; grid
 * (ceil(d_v / 32), seqs * ceil(heads / 2)). */
static void dr_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[3] + 31) / 32);
    l->grid[1] = (unsigned)(s->d[0] * ((s->d[1] + 1) / 2));
    l->grid[2] = 1;
    l->block[0] = 32; l->block[1] = 4; l->block[2] = 2;
    l->smem = 0;
}

/* Its device twin is delta_rule_ref (delta_rule_ref.cu): one thread per
 * (state, column) runs these loops in this order, bitwise. */
static void delta_rule_reference(const kc_ref *r)
{
    const int64_t nh = r->shape->d[0] * r->shape->d[1], K = r->shape->d[2], V = r->shape->d[3];
    double *u = malloc((size_t)V * sizeof *u), *kk = malloc((size_t)K * sizeof *kk), *qq = malloc((size_t)K * sizeof *qq);
    if (!u || !kk || !qq) abort();
    for (int64_t g = 0; g < nh; g++) {
        const double a = kc_ref_in(r, DR_ALPHA, (size_t)g), b = kc_ref_in(r, DR_BETA, (size_t)g);
        const size_t s0 = (size_t)(g * K * V);
        double *Hn = r->out[DR_S] + s0, *o = r->out[DR_O] + g * V;
        for (int64_t i = 0; i < K; i++) {
            kk[i] = kc_ref_in(r, DR_K, (size_t)(g * K + i));
            qq[i] = kc_ref_in(r, DR_Q, (size_t)(g * K + i));
        }
        for (int64_t j = 0; j < V; j++) u[j] = 0;
        for (int64_t i = 0; i < K; i++)
            for (int64_t j = 0; j < V; j++) u[j] += kc_ref_in(r, DR_S, s0 + (size_t)(i * V + j)) * kk[i];
        for (int64_t j = 0; j < V; j++) {
            const double vn = b * (kc_ref_in(r, DR_V, (size_t)(g * V + j)) - a * u[j]);
            u[j] = vn;
            o[j] = 0;
        }
        for (int64_t i = 0; i < K; i++)
            for (int64_t j = 0; j < V; j++) {
                const size_t e = s0 + (size_t)(i * V + j);
                Hn[e - s0] = a * kc_ref_in(r, DR_S, e) + kk[i] * u[j];
                o[j] += Hn[e - s0] * qq[i];
            }
    }
    free(u); free(kk); free(qq);
}

/* Qwen3-Next-80B-A3B's Gated DeltaNet layers keep 32 value-head states of
 * 128 x 128 (16 q/k heads shared by pairs; here q and k are given per state). */
static const kc_shape dr_shapes[] = {
    { "qwen3-next-80b.gdn.h32.s1", KC_SHAPE_MODEL, { 1, 32, 128, 128 } },
    { "qwen3-next-80b.gdn.h32.s8", KC_SHAPE_MODEL, { 8, 32, 128, 128 } },
    { "gdn.h16.d128.s1", KC_SHAPE_MODEL, { 1, 16, 128, 128 } },
    { "gdn.h16.d128.s64", KC_SHAPE_MODEL, { 64, 16, 128, 128 } },
    { "edge.s1.h1", KC_SHAPE_EDGE, { 1, 1, 128, 128 } },          /* odd heads: the pair's tail */
    { "edge.s3.h3", KC_SHAPE_EDGE, { 3, 3, 128, 128 } },
    { "edge.s2.h33", KC_SHAPE_EDGE, { 2, 33, 128, 128 } },
    { "edge.s2.h5.dv33", KC_SHAPE_EDGE, { 2, 5, 128, 33 } },      /* d_v off the 32-column tile */
    { "edge.s1.h4.d64", KC_SHAPE_EDGE, { 1, 4, 64, 64 } },
    { "edge.s3.h7.dk31.dv1", KC_SHAPE_EDGE, { 3, 7, 31, 1 } },
    { "large.s256.h32.d128", KC_SHAPE_LARGE, { 256, 32, 128, 128 } },
    { 0 }
};

/* Default f32 tolerances hold: u and o are 128-term f32 dot products of unit
 * vectors with O(1) state columns (errors ~1e-7 absolute), H' is one fma of
 * O(1) values (0.5 ulp plus ~1e-8). */
#define DR_CONTRACT(id_, name_, sym_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "delta_rule", .symbol = sym_, \
    .dims = { "seqs", "heads", "d_k", "d_v" }, \
    .args = { \
        KC_BUFFER("o", KC_F32, KC_OUT, dr_o_count), \
        KC_BUFFER("S", KC_F32, KC_INOUT, dr_s_count), \
        KC_BUFFER_GEN("q", dt_, KC_IN, dr_qk_count, dr_unit_gen), \
        KC_BUFFER_GEN("k", dt_, KC_IN, dr_qk_count, dr_unit_gen), \
        KC_BUFFER("v", dt_, KC_IN, dr_v_count), \
        KC_BUFFER_RANGE("alpha", KC_F32, KC_IN, dr_heads, dr_alpha_range), \
        KC_BUFFER_RANGE("beta", KC_F32, KC_IN, dr_heads, dr_beta_range), \
        KC_SCALAR("heads", KC_I32, dr_h), \
        KC_SCALAR("d_k", KC_I32, dr_dk), \
        KC_SCALAR("d_v", KC_I32, dr_dv), \
    }, \
    .launch = dr_launch, .shapes = dr_shapes, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = delta_rule_reference, \
    .device_reference = { .module = "delta_rule_ref", .symbol = "delta_rule_ref", .agree = { 0 } }, \
    .budget = { .max_regs = 80, .max_smem = 1024, .max_local = 0, .min_blocks_per_sm = 3 }, \
    .controls = { \
        { "missing_barrier", 3, "missing __syncthreads between the 4 row-group warps writing their partial sums of H^T k to shared memory and every warp reading all 4 (poisoned 0xFF slots: NaN; a race, gate 4 if it varies between launches)" }, \
        { "beta_twice", 3, "beta applied twice: the rank-1 update adds beta^2 (v - alpha H^T k) k^T" }, \
        { "head_tail_unguarded", 2, "no h < heads guard for the second head of a block's pair: with an odd head count it updates head `heads` of the sequence, i.e. head 0 of the next sequence, and past the end of S and o after the last one (heads = 1, 3, 33, 5, 7)" }, \
    }, \
}

DR_CONTRACT(delta_rule_f32, "delta_rule.f32", "delta_rule_f32", KC_F32);
DR_CONTRACT(delta_rule_bf16, "delta_rule.bf16", "delta_rule_bf16", KC_BF16);
