/* attention_decode_contract.c — contracts for attn_decode.cu: decode attention
 * (one query token per sequence) over a paged KV cache, grouped-query heads,
 * head_dim 128, f16 / bf16 in and out, f32 math, scale 1/sqrt(128).
 *
 * Shape dims: d[0] batch, d[1] q_heads, d[2] kv_heads (q_heads / kv_heads =
 * G <= 8), d[3] page_size, d[4] max_len (longest sequence), d[5] num_pages
 * (pages in the cache pool). max_pages = ceil(max_len / page_size) is the
 * block table's row length.
 *
 * Generated inputs:
 *   seq_lens[b]   by position in the batch, cycling: max_len, 1, page_size-1,
 *                 page_size+1, U[1, max_len], U[max_len/2, max_len] (each
 *                 clamped to [1, max_len]);
 *   block_table   the first batch*max_pages entries of a random permutation
 *                 of all pages (sequences scattered over the pool, no page
 *                 shared), with the LAST page of the pool moved to entry 0
 *                 (sequence 0's first page, always read): the large shape
 *                 thereby always reads a page more than 2 GiB into the cache;
 *   q             NORMAL / UNIFORM as built in; LARGE: each head's query has
 *                 ONE nonzero element (a random dim), |x| in [900, 1024]
 *                 (f16) or [0.9, 1] * 2^20 (bf16). Every score is then
 *                 q_d * k_d: large (|scale*q.k| up to ~9e4 for f16), the
 *                 float16 product overflows, yet equal keys tie exactly and
 *                 distinct keys are >= 39 apart — full LARGE queries would put
 *                 scores ~1e7 apart by ~1 f32 ulp and make near ties
 *                 ill-conditioned in any f32 kernel;
 *   k/v caches    the built-in distribution (parallel fill).
 *
 * The kernel's split-K scheme (8 contiguous splits per sequence and kv head,
 * one per warp, combined through shared memory by their max and sum in a
 * fixed order) is described in attn_decode.cu; no atomics, deterministic. */
#include <math.h>
#include <stdlib.h>
#include "kcontract.h"
#include "dtype.h"

#define AD_HD 128

enum { AD_OUT = 0, AD_Q, AD_K, AD_V, AD_BT, AD_LENS, AD_QH, AD_KVH, AD_PS, AD_MAXP, AD_SCALE };

static int64_t ad_max_pages(const kc_shape *s) { return (s->d[4] + s->d[3] - 1) / s->d[3]; }
static size_t ad_q_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1] * AD_HD); }
static size_t ad_cache_count(const kc_shape *s) { return (size_t)s->d[5] * (size_t)s->d[3] * (size_t)s->d[2] * AD_HD; }
static size_t ad_bt_count(const kc_shape *s) { return (size_t)(s->d[0] * ad_max_pages(s)); }
static size_t ad_lens_count(const kc_shape *s) { return (size_t)s->d[0]; }
static double ad_qh(const kc_shape *s) { return (double)s->d[1]; }
static double ad_kvh(const kc_shape *s) { return (double)s->d[2]; }
static double ad_ps(const kc_shape *s) { return (double)s->d[3]; }
static double ad_maxp(const kc_shape *s) { return (double)ad_max_pages(s); }
static double ad_scale(const kc_shape *s) { return 1.0 / sqrt((double)AD_HD); }

static void ad_lens_gen(kc_gen *g)
{
    const int64_t ps = g->shape->d[3], maxl = g->shape->d[4];
    for (size_t b = 0; b < g->count; b++) {
        int64_t L;
        switch (b % 6) {
        case 0: L = maxl; break;
        case 1: L = 1; break;
        case 2: L = ps - 1; break;
        case 3: L = ps + 1; break;
        case 4: L = kc_rand_int(g, 1, maxl); break;
        default: L = kc_rand_int(g, maxl / 2 > 1 ? maxl / 2 : 1, maxl); break;
        }
        if (L < 1) L = 1;
        if (L > maxl) L = maxl;
        kc_gen_put(g, b, (double)L);
    }
}

static void ad_bt_gen(kc_gen *g)
{
    const int64_t np = g->shape->d[5];
    int32_t *perm = malloc((size_t)np * sizeof *perm);
    if (!perm) abort();
    for (int64_t i = 0; i < np; i++) perm[i] = (int32_t)i;
    for (int64_t i = np - 1; i > 0; i--) {          /* Fisher-Yates */
        int64_t j = kc_rand_int(g, 0, i);
        int32_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    for (int64_t i = 0; i < np; i++)                 /* the last page first */
        if (perm[i] == np - 1) { perm[i] = perm[0]; perm[0] = (int32_t)(np - 1); break; }
    for (size_t i = 0; i < g->count; i++) kc_gen_put(g, i, (double)perm[i % (size_t)np]);
    free(perm);
}

/* LARGE (gen_on): each head's row of q one large entry at a random place. */
static void ad_q_large_row(kc_gen *g, size_t row)
{
    const int64_t d = kc_rand_int(g, 0, AD_HD - 1);
    double mag = g->dtype == KC_F16 ? kc_rand_uniform(g, 900.0, 1024.0) : kc_rand_uniform(g, 0.9, 1.0) * 1048576.0;
    if (kc_rand_u64(g) & 1) mag = -mag;
    for (int64_t i = 0; i < AD_HD; i++) kc_gen_put(g, row * AD_HD + (size_t)i, i == d ? mag : 0.0);
}
static void ad_q_gen(kc_gen *g)
{
    kc_gen_rows(g, g->count / AD_HD, ad_q_large_row);
}

/* One block per (kv head, sequence), 8 warps (one per split). */
static void ad_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)s->d[2]; l->grid[1] = (unsigned)s->d[0]; l->grid[2] = 1;
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* ---- float64 reference -------------------------------------------------- */

typedef struct ad_job {
    const kc_ref *r;
    int hnd;
    const double *tab;      /* 65536-entry decode table of the 16-bit dtype */
} ad_job;

/* Sequence b, kv head h: plain softmax(scale * q.k) @ v over the sequence's
 * tokens, read through the block table, for each of the G query heads. */
static void ad_ref_task(const ad_job *j, int64_t task)
{
    const kc_ref *r = j->r;
    const int64_t qh = r->shape->d[1], kvh = r->shape->d[2], ps = r->shape->d[3], G = qh / kvh;
    const int64_t maxp = ad_max_pages(r->shape);
    const int64_t b = task / kvh, h = task % kvh;
    const uint16_t *Q = r->host[AD_Q], *K = r->host[AD_K], *V = r->host[AD_V];
    const int32_t *bt = r->host[AD_BT], *lens = r->host[AD_LENS];
    const double scale = (double)(float)r->scalar[AD_SCALE];   /* the f32 the kernel gets */
    const int64_t L = lens[b];
    double *k = malloc((size_t)L * AD_HD * sizeof *k), *v = malloc((size_t)L * AD_HD * sizeof *v);
    double *sc = malloc((size_t)L * sizeof *sc);
    if (!k || !v || !sc) abort();
    for (int64_t t = 0; t < L; t++) {
        const size_t page = (size_t)bt[b * maxp + t / ps], slot = (size_t)(t % ps);
        const size_t off = j->hnd ? ((page * (size_t)kvh + (size_t)h) * (size_t)ps + slot) * AD_HD
                                  : ((page * (size_t)ps + slot) * (size_t)kvh + (size_t)h) * AD_HD;
        for (int d = 0; d < AD_HD; d++) {
            k[t * AD_HD + d] = j->tab[K[off + (size_t)d]];
            v[t * AD_HD + d] = j->tab[V[off + (size_t)d]];
        }
    }
    for (int64_t gq = 0; gq < G; gq++) {
        const size_t qrow = (size_t)((b * qh + h * G + gq) * AD_HD);
        double q[AD_HD], m = -INFINITY, sum = 0;
        for (int d = 0; d < AD_HD; d++) q[d] = j->tab[Q[qrow + (size_t)d]];
        for (int64_t t = 0; t < L; t++) {
            double dot = 0;
            for (int d = 0; d < AD_HD; d++) dot += q[d] * k[t * AD_HD + d];
            sc[t] = scale * dot;
            if (sc[t] > m) m = sc[t];
        }
        double o[AD_HD] = { 0 };
        for (int64_t t = 0; t < L; t++) {
            const double p = exp(sc[t] - m);
            sum += p;
            for (int d = 0; d < AD_HD; d++) o[d] += p * v[t * AD_HD + d];
        }
        for (int d = 0; d < AD_HD; d++) r->out[AD_OUT][qrow + (size_t)d] = o[d] / sum;
    }
    free(k); free(v); free(sc);
}

/* kc_parallel_for body: tasks [begin, end). */
static void ad_ref_tasks(void *ctx, size_t begin, size_t end)
{
    for (size_t t = begin; t < end; t++) ad_ref_task(ctx, (int64_t)t);
}

/* Tasks (sequence, kv head) are independent and write disjoint outputs, so
 * running them on the harness's threads, one task a chunk, changes nothing
 * but the time. */
static void ad_reference(const kc_ref *r, int hnd)
{
    double *tab = malloc(65536 * sizeof *tab);
    if (!tab) abort();
    for (uint32_t x = 0; x < 65536; x++)
        tab[x] = r->dtype[AD_Q] == KC_F16 ? kc_f16_to_double((uint16_t)x) : kc_bf16_to_double((uint16_t)x);
    ad_job j = { .r = r, .hnd = hnd, .tab = tab };
    kc_parallel_for((size_t)(r->shape->d[0] * r->shape->d[2]), 1, ad_ref_tasks, &j);
    free(tab);
}
static void ad_reference_nhd(const kc_ref *r) { ad_reference(r, 0); }
static void ad_reference_hnd(const kc_ref *r) { ad_reference(r, 1); }

/* The device twins (attention_decode_ref.cu: attn_decode_nhd_ref,
 * attn_decode_hnd_ref): one block of 256 threads per (sequence, query head). */
static void ad_ref_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)(s->d[0] * s->d[1]); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}
/* Their exps are CUDA's, within an ulp of glibc's; everything else is the
 * host's arithmetic in the host's order. out = sum p v / sum p is a weighted
 * mean of v, so moving every p by an ulp (2^-52 relative) moves out by at
 * most 2^-52 sum p |v - out| / sum p <= 2^-51 max|v| to first order: 3.1e-15
 * for the normal distribution's |v| <= 6.93. A host simulation with every
 * inexact exp one ulp off (direction hashed from its argument) on every shape
 * and distribution, the large one included, gave at most 6.7e-16 absolute and
 * 2.4e-16 beyond 4e-15 |out|; under LARGE the exps are exactly 1 (ties) or
 * negligible (<= e^-39 relative), and out moved by at most 2.2e-16 relative.
 * Hence rtol 4e-15 (LARGE's relative ulps, with room) and atol 2e-15 (below
 * the first-order bound, ~7x the simulated worst case). */
#define AD_REF_AGREE { 4e-15, 2e-15, "CUDA's exp vs glibc's, <= 1 ulp apart: out is a weighted mean of v, moved <= 2^-51 max|v| (3.1e-15) to first order; simulated with every exp 1 ulp off: <= 2.4e-16 beyond 4e-15 |out|" }

/* batch, q_heads, kv_heads, page_size, max_len, num_pages (>= batch * max_pages) */
static const kc_shape ad_shapes[] = {
    { "llama3-8b.b8.ctx4096", KC_SHAPE_MODEL, { 8, 32, 8, 16, 4096, 2100 } },
    { "llama3-8b.b1.ctx8192", KC_SHAPE_MODEL, { 1, 32, 8, 16, 8192, 600 } },
    { "llama3-8b.b64.ctx512", KC_SHAPE_MODEL, { 64, 32, 8, 16, 512, 2100 } },
    { "qwen2.5-7b.b8.ctx4096", KC_SHAPE_MODEL, { 8, 28, 4, 16, 4096, 2100 } },
    { "qwen2.5-7b.b32.ctx1024", KC_SHAPE_MODEL, { 32, 28, 4, 16, 1024, 2100 } },
    { "edge.b1.len1", KC_SHAPE_EDGE, { 1, 32, 8, 16, 1, 3 } },
    { "edge.b6.len33", KC_SHAPE_EDGE, { 6, 28, 4, 16, 33, 20 } },
    { "edge.b4.len17.g7.kv1", KC_SHAPE_EDGE, { 4, 7, 1, 16, 17, 10 } },
    { "edge.b5.len1023.mha8", KC_SHAPE_EDGE, { 5, 8, 8, 16, 1023, 330 } },
    { "edge.b2.len129.g2", KC_SHAPE_EDGE, { 2, 16, 8, 16, 129, 20 } },
    /* G = 8, the most the kernel takes (AD_GMAX; Llama-3-70B's and Qwen2.5-72B's
     * 64 q / 8 kv heads): every slot of the per-head registers and of the shared
     * scratch is live, so a loop over heads that stops one short shows */
    { "edge.b3.len40.g8", KC_SHAPE_EDGE, { 3, 16, 2, 16, 40, 12 } },
    /* 72000 pages of 32 KiB: each cache 2.36 GB, pages >= 65536 lie past 2 GiB */
    { "large.llama3-8b.b8.ctx32768.pages72000", KC_SHAPE_LARGE, { 8, 32, 8, 16, 32768, 72000 } },
    { 0 }
};

#define AD_CONTROLS_COMMON \
    { "page_offset_i32", 1, "a page's byte offset held in 32 bits wraps negative at 2 GiB into the cache (long context / big pool): the large shape reads page 71999 from ~1.9 GB before the cache (illegal address at gate 1, or garbage at gate 3)" }, \
    { "qk_half_accum", 3, "q.k accumulated in float16: overflows to inf (NaN outputs) with LARGE queries (|q_d * k_d * scale| up to ~9e4 > 65504)" }, \
    { "lse_ignore_split_max", 3, "split-K combine weighs each split by its sum alone, ignoring its max (partials relative to different maxima): wrong wherever a sequence spans several splits" }

#define AD_CONTRACT(id_, name_, sym_, dt_, ref_, dref_, ...) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "attn_decode", .symbol = sym_, \
    .dims = { "batch", "q_heads", "kv_heads", "page_size", "max_len", "num_pages" }, \
    .args = { \
        KC_BUFFER("out", dt_, KC_OUT, ad_q_count), \
        KC_BUFFER_GEN_ON("q", dt_, KC_IN, ad_q_count, ad_q_gen, KC_DIST_BIT(KC_LARGE)), \
        KC_BUFFER("k_cache", dt_, KC_IN, ad_cache_count), \
        KC_BUFFER("v_cache", dt_, KC_IN, ad_cache_count), \
        KC_BUFFER_GEN("block_table", KC_I32, KC_IN, ad_bt_count, ad_bt_gen), \
        KC_BUFFER_GEN("seq_lens", KC_I32, KC_IN, ad_lens_count, ad_lens_gen), \
        KC_SCALAR("q_heads", KC_I32, ad_qh), \
        KC_SCALAR("kv_heads", KC_I32, ad_kvh), \
        KC_SCALAR("page_size", KC_I32, ad_ps), \
        KC_SCALAR("max_pages", KC_I32, ad_maxp), \
        KC_SCALAR("scale", KC_F32, ad_scale), \
    }, \
    .launch = ad_launch, .shapes = ad_shapes, \
    .dists = { KC_UNIFORM, KC_NORMAL, KC_LARGE, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = ref_, \
    .device_reference = { .module = "attention_decode_ref", .symbol = dref_, .launch = ad_ref_launch, .agree = AD_REF_AGREE }, \
    .budget = { .max_regs = 128, .max_smem = 33280, .max_local = 0, .min_blocks_per_sm = 2 }, \
    .controls = { AD_CONTROLS_COMMON, __VA_ARGS__ }, \
}

#define AD_HND_CONTROL { "hnd_as_nhd", 3, "the HND cache read with the NHD layout's dimensions (slot-major inside the page): wrong keys and values whenever kv_heads > 1" }

AD_CONTRACT(attn_decode_nhd_f16, "attn_decode.nhd.f16", "attn_decode_nhd_f16", KC_F16, ad_reference_nhd, "attn_decode_nhd_ref", { 0 });
AD_CONTRACT(attn_decode_nhd_bf16, "attn_decode.nhd.bf16", "attn_decode_nhd_bf16", KC_BF16, ad_reference_nhd, "attn_decode_nhd_ref", { 0 });
AD_CONTRACT(attn_decode_hnd_f16, "attn_decode.hnd.f16", "attn_decode_hnd_f16", KC_F16, ad_reference_hnd, "attn_decode_hnd_ref", AD_HND_CONTROL);
AD_CONTRACT(attn_decode_hnd_bf16, "attn_decode.hnd.bf16", "attn_decode_hnd_bf16", KC_BF16, ad_reference_hnd, "attn_decode_hnd_ref", AD_HND_CONTROL);
