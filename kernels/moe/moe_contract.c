/* moe_contract.c — contracts for kernels/moe/moe.cu: MoE routing.
 *
 * moe.topk_softmax.<t>, moe.topk_sigmoid.f32: top-k gating of router logits
 * [tokens, E] (f32 or bf16). p = softmax over the E logits, or sigmoid of each
 * logit; the k experts with the largest logits (ties: lowest expert index
 * first) in that order -> topk_ids [tokens, k] (i32, exact) and their p ->
 * topk_weights [tokens, k] (f32), divided by the sum of the k when renorm is
 * set. Shape: d[0] tokens, d[1] E, d[2] k, d[3] renorm.
 *   Mixtral-8x7B: 8 experts, top-2, softmax, renormalized (HF MixtralSparseMoeBlock).
 *   DeepSeek-V2-Lite: 64 routed experts, top-6, softmax, not renormalized
 *   (norm_topk_prob = false). DeepSeek-V3: 256 experts, top-8, sigmoid,
 *   renormalized (its score-correction bias and group limits are not modelled).
 * Logits: the distribution's values, then ties planted: in every other token
 * the row maximum is copied onto a second expert, and in every fourth a random
 * logit onto another expert (equal logits are exact ties in any dtype); and in
 * every fourth token (t % 4 == 3) the row maximum swapped onto the LAST expert
 * E-1 (the top of the range: lane (E-1) % 32's last live slot), where a range
 * or a reduction that stops short loses the maximum (under LARGE the softmax's
 * shift is then off by ~1e3 and exp overflows).
 *
 * moe.align_block_size: vLLM's moe_align_block_size (see moe.cu) over topk_ids
 * [tokens * k] (i32), E experts, block size B. Shape: d[0] tokens, d[1] E,
 * d[2] k, d[3] B. Each token's k experts are distinct: uniform over the
 * experts (UNIFORM), or skewed toward low ids as floor(E u^3) (NORMAL: hot
 * experts, and empty ones at the top). All outputs are integers: exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kcontract.h"
#include "dtype.h"

/* ---- top-k gating ---------------------------------------------------------- */

enum { TG_IDS = 0, TG_W = 1, TG_LOGITS = 2, TG_TOKENS = 3, TG_E = 4, TG_K = 5, TG_RENORM = 6 };

static size_t tg_out_count(const kc_shape *s) { return (size_t)s->d[0] * (size_t)s->d[2]; }
static size_t tg_logits_count(const kc_shape *s) { return (size_t)s->d[0] * (size_t)s->d[1]; }
static double tg_tokens(const kc_shape *s) { return (double)s->d[0]; }
static double tg_e(const kc_shape *s) { return (double)s->d[1]; }
static double tg_k(const kc_shape *s) { return (double)s->d[2]; }
static double tg_renorm(const kc_shape *s) { return (double)s->d[3]; }

static void tg_logits_gen(kc_gen *g)
{
    kc_gen_default(g);
    const int64_t tokens = g->shape->d[0], E = g->shape->d[1];
    if (E < 2) return;
    for (int64_t t = 0; t < tokens; t++) {
        const size_t base = (size_t)(t * E);
        if (t % 2 == 0) {
            int64_t am = 0;
            for (int64_t e = 1; e < E; e++)
                if (kc_load(g->dtype, g->data, base + (size_t)e) > kc_load(g->dtype, g->data, base + (size_t)am)) am = e;
            int64_t to = kc_rand_int(g, 0, E - 2);
            if (to >= am) to++;
            kc_gen_put(g, base + (size_t)to, kc_load(g->dtype, g->data, base + (size_t)am));
        }
        if (t % 4 == 1) {
            const int64_t from = kc_rand_int(g, 0, E - 1), to = kc_rand_int(g, 0, E - 1);
            kc_gen_put(g, base + (size_t)to, kc_load(g->dtype, g->data, base + (size_t)from));
        }
        if (t % 4 == 3) {   /* the maximum at the last expert: a swap, so the values stay the distribution's */
            int64_t am = 0;
            for (int64_t e = 1; e < E; e++)
                if (kc_load(g->dtype, g->data, base + (size_t)e) > kc_load(g->dtype, g->data, base + (size_t)am)) am = e;
            const double top = kc_load(g->dtype, g->data, base + (size_t)am), last = kc_load(g->dtype, g->data, base + (size_t)(E - 1));
            kc_gen_put(g, base + (size_t)am, last);
            kc_gen_put(g, base + (size_t)(E - 1), top);
        }
    }
}

static void tg_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[0] + 3) / 4); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 128; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* The device references' grid (kernels/moe/moe_ref.cu, one thread per
 * token): blocks of 64, so even 16384 tokens spread over every SM. */
static void tg_ref_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[0] + 63) / 64); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 64; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* float64 reference; its CUDA twins are moe_topk_softmax_ref and
 * moe_topk_sigmoid_ref (kernels/moe/moe_ref.cu): the same loops, the ids
 * bitwise, the weights within the bounds below (CUDA's exp against glibc's). */
static void topk_gating_reference(const kc_ref *r, int sigmoid)
{
    const int64_t tokens = r->shape->d[0], E = r->shape->d[1], K = r->shape->d[2];
    const int renorm = r->scalar[TG_RENORM] != 0;
    double *x = malloc((size_t)E * sizeof *x);
    char *taken = malloc((size_t)E);
    if (!x || !taken) abort();
    for (int64_t t = 0; t < tokens; t++) {
        double m = -INFINITY, sum = 0;
        for (int64_t e = 0; e < E; e++) {
            x[e] = kc_ref_in(r, TG_LOGITS, (size_t)(t * E + e));
            if (x[e] > m) m = x[e];
            taken[e] = 0;
        }
        for (int64_t e = 0; e < E; e++) sum += exp(x[e] - m);
        double *ids = r->out[TG_IDS] + t * K, *w = r->out[TG_W] + t * K, wsum = 0;
        for (int64_t kk = 0; kk < K; kk++) {
            int64_t best = -1;
            for (int64_t e = 0; e < E; e++)          /* strict >: the lowest index wins ties */
                if (!taken[e] && (best < 0 || x[e] > x[best])) best = e;
            ids[kk] = (double)best;
            w[kk] = best < 0 ? 0.0 : sigmoid ? 1.0 / (1.0 + exp(-x[best])) : exp(x[best] - m) / sum;
            if (best >= 0) taken[best] = 1;
            wsum += w[kk];
        }
        if (renorm)
            for (int64_t kk = 0; kk < K; kk++) w[kk] /= wsum;
    }
    free(x); free(taken);
}
static void topk_softmax_reference(const kc_ref *r) { topk_gating_reference(r, 0); }
static void topk_sigmoid_reference(const kc_ref *r) { topk_gating_reference(r, 1); }

static const kc_shape tg_softmax_shapes[] = {
    { "mixtral-8x7b.router.t1", KC_SHAPE_MODEL, { 1, 8, 2, 1 } },
    { "mixtral-8x7b.router.t7", KC_SHAPE_MODEL, { 7, 8, 2, 1 } },
    { "mixtral-8x7b.router.t4096", KC_SHAPE_MODEL, { 4096, 8, 2, 1 } },
    { "deepseek-v2-lite.router.t1", KC_SHAPE_MODEL, { 1, 64, 6, 0 } },
    { "deepseek-v2-lite.router.t33", KC_SHAPE_MODEL, { 33, 64, 6, 0 } },
    { "deepseek-v2-lite.router.t512", KC_SHAPE_MODEL, { 512, 64, 6, 0 } },
    { "edge.t1023.e8.k2", KC_SHAPE_EDGE, { 1023, 8, 2, 1 } },
    { "edge.t33.e1.k1", KC_SHAPE_EDGE, { 33, 1, 1, 1 } },
    { "edge.t31.e33.k3", KC_SHAPE_EDGE, { 31, 33, 3, 0 } },
    { "edge.t5.e256.k8", KC_SHAPE_EDGE, { 5, 256, 8, 1 } },
    { "edge.t3.e31.k4", KC_SHAPE_EDGE, { 3, 31, 4, 1 } },
    /* k > E: the slots past the last expert hold id -1 and weight 0 (the
     * "no expert" value of moe.cu and the references), never another marker */
    { "edge.t5.e3.k4", KC_SHAPE_EDGE, { 5, 3, 4, 1 } },
    /* every lane's 8 slots live (E = 256) in 64 tokens, 16 of them with the
     * maximum planted on expert 255 (the generator): a max or sum that skips
     * the last slot (experts 224-255) shifts softmax wrongly under LARGE */
    { "edge.t64.e256.k8", KC_SHAPE_EDGE, { 64, 256, 8, 0 } },
    { "large.t65536.e64.k6", KC_SHAPE_LARGE, { 65536, 64, 6, 0 } },
    { 0 }
};

static const kc_shape tg_sigmoid_shapes[] = {
    { "deepseek-v3.router.t1", KC_SHAPE_MODEL, { 1, 256, 8, 1 } },
    { "deepseek-v3.router.t128", KC_SHAPE_MODEL, { 128, 256, 8, 1 } },
    { "mixtral-8x7b.router.sigmoid.t256", KC_SHAPE_MODEL, { 256, 8, 2, 1 } },
    { "edge.t1023.e8.k2", KC_SHAPE_EDGE, { 1023, 8, 2, 1 } },
    { "edge.t33.e1.k1", KC_SHAPE_EDGE, { 33, 1, 1, 1 } },
    { "edge.t31.e33.k3", KC_SHAPE_EDGE, { 31, 33, 3, 1 } },
    { "edge.t7.e64.k6.norenorm", KC_SHAPE_EDGE, { 7, 64, 6, 0 } },
    { "edge.t5.e3.k4", KC_SHAPE_EDGE, { 5, 3, 4, 1 } },   /* k > E: slots with no expert (id -1, weight 0) */
    { "large.t16384.e256.k8", KC_SHAPE_LARGE, { 16384, 256, 8, 1 } },
    { 0 }
};

/* expf within 2 ulp, a warp sum of up to 256 terms (5 shuffle levels after 8
 * sequential adds), a division, and a renormalizing division by the sum of k:
 * relative error up to ~2e-6 in the worst case (default rtol 1.3e-6 is below
 * it); atol 1e-7 for weights that underflow toward f32's subnormals. */
#define TG_W_TOL ((kc_tol){ 5e-6, 1e-7, "f32 softmax/sigmoid weights: expf 2 ulp, a sum of up to 256 exponentials, 1-2 divisions: ~2e-6 relative worst case; atol 1e-7 for weights near f32's subnormal range" })

/* --reference both: the weights through CUDA's exp (1 ulp) against glibc's
 * (< 0.52 ulp), one more ulp per rounding of operands that already differ
 * (kernels/moe/moe_ref.cu derives these): softmax 2u(2E + k + 8) relative,
 * 1.2e-13 at E = 256, k = 8; sigmoid 2u(k + 8), 3.6e-15 at k = 8 (u = 2^-53);
 * atol 1e-300 for weights in double's subnormal range. The ids are exact. */
#define TG_SOFTMAX_AGREE ((kc_tol){ 1.5e-13, 1e-300, "CUDA exp (1 ulp) vs glibc exp (< 0.52 ulp): a sum of E <= 256 exponentials, a division and a renormalisation over k <= 8, one ulp per rounding: 2u(2E + k + 8) = 1.2e-13 relative; atol for subnormal weights" })
#define TG_SIGMOID_AGREE ((kc_tol){ 5e-15, 1e-300, "CUDA exp (1 ulp) vs glibc exp (< 0.52 ulp): 1 / (1 + exp(-x)) and a renormalisation over k <= 8, one ulp per rounding: 2u(k + 8) = 3.6e-15 relative; atol for subnormal weights" })

#define TG_CONTROLS \
    { "last_expert_dropped", 3, "off-by-one expert range (e < E - 1): expert E-1 is never a candidate nor in the softmax sum" }, \
    { "ties_highest", 3, "equal logits broken toward the highest expert index (planted ties in every other token)" }, \
    { "missing_renorm", 3, "the top-k weights are not renormalized when renorm is set (Mixtral, DeepSeek-V3 shapes)" }

#define TG_CONTRACT(id_, name_, sym_, dt_, shapes_, ref_, dref_, agree_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "moe", .symbol = sym_, \
    .dims = { "tokens", "experts", "topk", "renorm" }, \
    .args = { \
        { .kind = KC_ARG_BUFFER, .name = "topk_ids", .dtype = KC_I32, .role = KC_OUT, .count = tg_out_count }, \
        { .kind = KC_ARG_BUFFER, .name = "topk_weights", .dtype = KC_F32, .role = KC_OUT, .count = tg_out_count, .tol = TG_W_TOL }, \
        KC_BUFFER_GEN("logits", dt_, KC_IN, tg_logits_count, tg_logits_gen), \
        KC_SCALAR("tokens", KC_I32, tg_tokens), \
        KC_SCALAR("experts", KC_I32, tg_e), \
        KC_SCALAR("topk", KC_I32, tg_k), \
        KC_SCALAR("renorm", KC_I32, tg_renorm), \
    }, \
    .launch = tg_launch, .shapes = shapes_, \
    .dists = { KC_NORMAL, KC_UNIFORM, KC_LARGE }, \
    .reference = ref_, \
    .device_reference = { .module = "moe_ref", .symbol = dref_, .launch = tg_ref_launch, .agree = agree_ }, \
    .budget = { .max_regs = 64, .max_smem = 0, .max_local = 0, .min_blocks_per_sm = 8 }, \
    .controls = { TG_CONTROLS }, \
}

TG_CONTRACT(moe_topk_softmax_f32, "moe.topk_softmax.f32", "moe_topk_softmax_f32", KC_F32, tg_softmax_shapes,
            topk_softmax_reference, "moe_topk_softmax_ref", TG_SOFTMAX_AGREE);
TG_CONTRACT(moe_topk_softmax_bf16, "moe.topk_softmax.bf16", "moe_topk_softmax_bf16", KC_BF16, tg_softmax_shapes,
            topk_softmax_reference, "moe_topk_softmax_ref", TG_SOFTMAX_AGREE);
TG_CONTRACT(moe_topk_sigmoid_f32, "moe.topk_sigmoid.f32", "moe_topk_sigmoid_f32", KC_F32, tg_sigmoid_shapes,
            topk_sigmoid_reference, "moe_topk_sigmoid_ref", TG_SIGMOID_AGREE);

/* ---- block alignment ------------------------------------------------------ */

enum { AL_SORTED = 0, AL_EXPERTS = 1, AL_POST = 2, AL_IDS = 3, AL_NUMEL = 4, AL_E = 5, AL_B = 6, AL_MAXPAD = 7 };

static int64_t al_numel(const kc_shape *s) { return s->d[0] * s->d[2]; }
static int64_t al_maxpad(const kc_shape *s) { return al_numel(s) + s->d[1] * (s->d[3] - 1); }
static size_t al_sorted_count(const kc_shape *s) { return (size_t)al_maxpad(s); }
static size_t al_experts_count(const kc_shape *s) { return (size_t)((al_maxpad(s) + s->d[3] - 1) / s->d[3]); }
static size_t al_one(const kc_shape *s) { return 1; }
static size_t al_ids_count(const kc_shape *s) { return (size_t)al_numel(s); }
static double al_numel_v(const kc_shape *s) { return (double)al_numel(s); }
static double al_e_v(const kc_shape *s) { return (double)s->d[1]; }
static double al_b_v(const kc_shape *s) { return (double)s->d[3]; }
static double al_maxpad_v(const kc_shape *s) { return (double)al_maxpad(s); }

static void al_ids_gen(kc_gen *g)
{
    const int64_t tokens = g->shape->d[0], E = g->shape->d[1], K = g->shape->d[2];
    char *used = calloc((size_t)E, 1);
    if (!used) abort();
    for (int64_t t = 0; t < tokens; t++) {
        memset(used, 0, (size_t)E);
        for (int64_t kk = 0; kk < K; kk++) {
            int64_t e = 0;
            for (int tries = 0; tries < 64; tries++) {
                const double u = kc_rand_uniform(g, 0.0, 1.0);
                e = g->dist == KC_NORMAL ? (int64_t)floor((double)E * u * u * u) : (int64_t)floor((double)E * u);
                if (e >= E) e = E - 1;
                if (!used[e]) break;
            }
            while (used[e]) e = (e + 1) % E;   /* K <= E: terminates */
            used[e] = 1;
            kc_gen_put(g, (size_t)(t * K + kk), (double)e);
        }
    }
    free(used);
}

static void al_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = 1; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 1024; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* float64 reference, host only: a counting pass and a stable placement, about
 * a millisecond on the largest shape, so no device twin. */
static void align_reference(const kc_ref *r)
{
    const int64_t numel = al_numel(r->shape), E = r->shape->d[1], B = r->shape->d[3];
    const int64_t maxpad = al_maxpad(r->shape), nblocks = (maxpad + B - 1) / B;
    int64_t *cnt = calloc((size_t)E + 1, sizeof *cnt), *pos = calloc((size_t)E + 1, sizeof *pos);
    if (!cnt || !pos) abort();
    for (int64_t i = 0; i < numel; i++) {
        const int64_t e = (int64_t)kc_ref_in(r, AL_IDS, (size_t)i);
        if (e >= 0 && e < E) cnt[e]++;
    }
    for (int64_t i = 0; i < maxpad; i++) r->out[AL_SORTED][i] = (double)numel;
    for (int64_t b = 0; b < nblocks; b++) r->out[AL_EXPERTS][b] = -1;
    int64_t o = 0;
    for (int64_t e = 0; e < E; e++) {
        pos[e] = o;
        const int64_t padded = (cnt[e] + B - 1) / B * B;
        for (int64_t b = o / B; b < (o + padded) / B; b++) r->out[AL_EXPERTS][b] = (double)e;
        o += padded;
    }
    r->out[AL_POST][0] = (double)o;
    for (int64_t i = 0; i < numel; i++) {            /* ascending i: stable within each expert */
        const int64_t e = (int64_t)kc_ref_in(r, AL_IDS, (size_t)i);
        if (e >= 0 && e < E) r->out[AL_SORTED][pos[e]++] = (double)i;
    }
    free(cnt); free(pos);
}

static const kc_shape al_shapes[] = {
    { "mixtral-8x7b.align.t1.b16", KC_SHAPE_MODEL, { 1, 8, 2, 16 } },
    { "mixtral-8x7b.align.t256.b64", KC_SHAPE_MODEL, { 256, 8, 2, 64 } },
    { "mixtral-8x7b.align.t4096.b64", KC_SHAPE_MODEL, { 4096, 8, 2, 64 } },
    { "deepseek-v2-lite.align.t33.b16", KC_SHAPE_MODEL, { 33, 64, 6, 16 } },
    { "deepseek-v2-lite.align.t512.b64", KC_SHAPE_MODEL, { 512, 64, 6, 64 } },
    { "edge.t1.e64.k6.b128", KC_SHAPE_EDGE, { 1, 64, 6, 128 } },     /* 58 empty experts */
    { "edge.t1023.e8.k2.b1", KC_SHAPE_EDGE, { 1023, 8, 2, 1 } },      /* no padding */
    { "edge.t31.e1.k1.b32", KC_SHAPE_EDGE, { 31, 1, 1, 32 } },
    { "edge.t33.e33.k3.b33", KC_SHAPE_EDGE, { 33, 33, 3, 33 } },
    /* E = 256, the largest: every expert array full. Each pass of the
     * placement loop (one per expert) takes the same shared-memory path:
     * lane 0s write wcnt, warp 0 scans it, every thread reads it, three
     * barriers. */
    { "edge.t7.e256.k8.b16", KC_SHAPE_EDGE, { 7, 256, 8, 16 },
      "gates 1-4's E = 256 (every expert array full): its 256 passes of the placement loop take the one "
      "shared-memory path of edge.t1.e64.k6.b128's 64 and edge.t33.e33.k3.b33's 33, and were 69% of the passes "
      "racecheck analysed (2.1 s on the H200)" },
    { "large.t65536.e64.k6.b64", KC_SHAPE_LARGE, { 65536, 64, 6, 64 } },
    { 0 }
};

KC_CONTRACT(moe_align_block_size) {
    .name = "moe.align_block_size", .module = "moe", .symbol = "moe_align_block_size",
    .dims = { "tokens", "experts", "topk", "block" },
    .args = {
        KC_BUFFER("sorted_token_ids", KC_I32, KC_OUT, al_sorted_count),
        KC_BUFFER("expert_ids", KC_I32, KC_OUT, al_experts_count),
        KC_BUFFER("num_tokens_post_padded", KC_I32, KC_OUT, al_one),
        KC_BUFFER_GEN("topk_ids", KC_I32, KC_IN, al_ids_count, al_ids_gen),
        KC_SCALAR("numel", KC_I32, al_numel_v),
        KC_SCALAR("experts", KC_I32, al_e_v),
        KC_SCALAR("block", KC_I32, al_b_v),
        KC_SCALAR("max_padded", KC_I32, al_maxpad_v),
    },
    .launch = al_launch, .shapes = al_shapes,
    .dists = { KC_UNIFORM, KC_NORMAL },
    .reference = align_reference,
    .budget = { .max_regs = 32, .max_smem = 2304, .max_local = 0, .min_blocks_per_sm = 1 },
    .controls = {
        { "pad_with_expert_id", 3, "padding slots after each expert's tokens hold the expert id (a valid token index for the GEMM) instead of the skip value numel (every shape with B > 1)" },
        { "last_expert_dropped", 3, "off-by-one expert range (e < E - 1): the last expert's tokens are never placed, its blocks never assigned, and the total lacks them" },
        { "unpadded_total", 3, "num_tokens_post_padded reports the token count before padding" },
    },
};
