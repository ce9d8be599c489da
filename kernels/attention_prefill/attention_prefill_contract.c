/* attention_prefill_contract.c — contracts for attn_prefill.cu: causal
 * attention over packed sequences (flash-attention style online softmax),
 * grouped-query heads, head dims 64 and 128, f16 / bf16, f32 math, scale
 * 1/sqrt(head_dim).
 *
 * Shape dims: d[0] head_dim (64 or 128, must match the contract's kernel),
 * d[1] q_heads, d[2] kv_heads, d[3..7] the lengths of up to five sequences
 * packed one after another (0 = no more sequences). cu_seqlens is generated
 * from them (prefix sums), so a shape fixes its sequence layout exactly.
 * Tile sizes: 64 query rows x 32 keys; lengths 1, 31, 33, 65, 127, 1000 are
 * off both tiles.
 *
 * Reference: float64, for each (sequence, head) and query position i, the
 * plain softmax over keys 0..i of scale * q.k, times v. Run on threads over
 * (sequence, head) tasks, which write disjoint outputs. */
#include <math.h>
#include <stdlib.h>
#include "kcontract.h"
#include "dtype.h"

enum { AP_OUT = 0, AP_Q, AP_K, AP_V, AP_CU, AP_QH, AP_KVH, AP_SCALE };

static int64_t ap_nseqs(const kc_shape *s)
{
    int64_t n = 0;
    while (n < 5 && s->d[3 + n] > 0) n++;
    return n;
}
static int64_t ap_tokens(const kc_shape *s)
{
    int64_t t = 0;
    for (int64_t i = 0; i < ap_nseqs(s); i++) t += s->d[3 + i];
    return t;
}
static int64_t ap_max_len(const kc_shape *s)
{
    int64_t m = 0;
    for (int64_t i = 0; i < ap_nseqs(s); i++) if (s->d[3 + i] > m) m = s->d[3 + i];
    return m;
}
static size_t ap_q_count(const kc_shape *s) { return (size_t)(ap_tokens(s) * s->d[1] * s->d[0]); }
static size_t ap_kv_count(const kc_shape *s) { return (size_t)(ap_tokens(s) * s->d[2] * s->d[0]); }
static size_t ap_cu_count(const kc_shape *s) { return (size_t)(ap_nseqs(s) + 1); }
static double ap_qh(const kc_shape *s) { return (double)s->d[1]; }
static double ap_kvh(const kc_shape *s) { return (double)s->d[2]; }
static double ap_scale(const kc_shape *s) { return 1.0 / sqrt((double)s->d[0]); }

static void ap_cu_gen(kc_gen *g)
{
    int64_t acc = 0;
    kc_gen_put(g, 0, 0.0);
    for (size_t i = 1; i < g->count; i++) {
        acc += g->shape->d[3 + (i - 1)];
        kc_gen_put(g, i, (double)acc);
    }
}

/* Grid (query tiles of the longest sequence, q heads, sequences), 8 warps;
 * dynamic shared memory: Q tile [64][D] + K tile [32][D+1] + V tile [32][D] f32. */
static void ap_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    const int64_t D = s->d[0];
    l->grid[0] = (unsigned)((ap_max_len(s) + 63) / 64);
    l->grid[1] = (unsigned)s->d[1];
    l->grid[2] = (unsigned)ap_nseqs(s);
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = (unsigned)((64 * D + 32 * (D + 1) + 32 * D) * 4);
}

typedef struct ap_job {
    const kc_ref *r;
    const double *tab;
} ap_job;

static void ap_ref_task(const ap_job *j, int64_t task)
{
    const kc_ref *r = j->r;
    const int64_t D = r->shape->d[0], qh = r->shape->d[1], kvh = r->shape->d[2], G = qh / kvh;
    const int64_t seq = task / qh, h = task % qh, hk = h / G;
    const int32_t *cu = r->host[AP_CU];
    const uint16_t *Q = r->host[AP_Q], *K = r->host[AP_K], *V = r->host[AP_V];
    const int64_t start = cu[seq], L = cu[seq + 1] - cu[seq];
    const double scale = (double)(float)r->scalar[AP_SCALE];    /* the f32 the kernel gets */
    double *k = malloc((size_t)(L * D) * sizeof *k), *v = malloc((size_t)(L * D) * sizeof *v);
    double *sc = malloc((size_t)L * sizeof *sc), *q = malloc((size_t)D * sizeof *q), *o = malloc((size_t)D * sizeof *o);
    if (!k || !v || !sc || !q || !o) abort();
    for (int64_t t = 0; t < L; t++)
        for (int64_t d = 0; d < D; d++) {
            const size_t off = (size_t)(((start + t) * kvh + hk) * D + d);
            k[t * D + d] = j->tab[K[off]];
            v[t * D + d] = j->tab[V[off]];
        }
    for (int64_t i = 0; i < L; i++) {
        const size_t row = (size_t)(((start + i) * qh + h) * D);
        for (int64_t d = 0; d < D; d++) q[d] = j->tab[Q[row + (size_t)d]];
        double m = -INFINITY, sum = 0;
        for (int64_t t = 0; t <= i; t++) {           /* causal: keys 0..i */
            double dot = 0;
            for (int64_t d = 0; d < D; d++) dot += q[d] * k[t * D + d];
            sc[t] = scale * dot;
            if (sc[t] > m) m = sc[t];
        }
        for (int64_t d = 0; d < D; d++) o[d] = 0;
        for (int64_t t = 0; t <= i; t++) {
            const double p = exp(sc[t] - m);
            sum += p;
            for (int64_t d = 0; d < D; d++) o[d] += p * v[t * D + d];
        }
        for (int64_t d = 0; d < D; d++) r->out[AP_OUT][row + (size_t)d] = o[d] / sum;
    }
    free(k); free(v); free(sc); free(q); free(o);
}

/* kc_parallel_for body: tasks [begin, end). */
static void ap_ref_tasks(void *ctx, size_t begin, size_t end)
{
    for (size_t t = begin; t < end; t++) ap_ref_task(ctx, (int64_t)t);
}

/* Tasks (sequence, q head) are independent and write disjoint outputs, so
 * running them on the harness's threads, one task a chunk, changes nothing
 * but the time. */
static void ap_reference(const kc_ref *r)
{
    double *tab = malloc(65536 * sizeof *tab);
    if (!tab) abort();
    for (uint32_t x = 0; x < 65536; x++)
        tab[x] = r->dtype[AP_Q] == KC_F16 ? kc_f16_to_double((uint16_t)x) : kc_bf16_to_double((uint16_t)x);
    ap_job j = { .r = r, .tab = tab };
    kc_parallel_for((size_t)(ap_nseqs(r->shape) * r->shape->d[1]), 1, ap_ref_tasks, &j);
    free(tab);
}

/* The device twin (attention_prefill_ref.cu: attn_prefill_ref): one block of
 * 256 threads per 64 query rows of a (sequence, head), the row tiles with the
 * most keys first. */
static void ap_ref_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((ap_max_len(s) + 63) / 64 * s->d[1] * ap_nseqs(s)); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}
/* Its exps are CUDA's, within an ulp of glibc's; everything else is the
 * host's arithmetic in the host's order. out = sum p v / sum p is a weighted
 * mean of v, so moving every p by an ulp (2^-52 relative) moves out by at
 * most 2^-52 sum p |v - out| / sum p <= 2^-51 max|v| to first order: 3.1e-15
 * for the normal distribution's |v| <= 6.93. A host simulation with every
 * inexact exp one ulp off (direction hashed from its argument) on the edge
 * shapes and qwen2.5-0.5b.len512+31, both distributions, gave at most 8.9e-16
 * absolute and 3.0e-16 beyond 4e-15 |out| (the decode contracts, the same
 * arithmetic over up to 32768 keys, the same). Hence rtol 4e-15 and atol
 * 2e-15 (below the first-order bound, ~7x the simulated worst case). */
#define AP_REF_AGREE { 4e-15, 2e-15, "CUDA's exp vs glibc's, <= 1 ulp apart: out is a weighted mean of v, moved <= 2^-51 max|v| (3.1e-15) to first order; simulated with every exp 1 ulp off: <= 3.0e-16 beyond 4e-15 |out|" }

/* head_dim, q_heads, kv_heads, sequence lengths. The first shape ends its only
 * sequence one row into a query tile (127 = 64 + 63): a store past the last
 * row lands in out's 64 KiB guard band (8 KiB per row here). */
static const kc_shape ap_d128_shapes[] = {
    { "edge.len127", KC_SHAPE_EDGE, { 128, 32, 8, 127 } },
    { "llama3-8b.len1000", KC_SHAPE_MODEL, { 128, 32, 8, 1000 } },
    { "llama3-8b.len128+1000+33", KC_SHAPE_MODEL, { 128, 32, 8, 128, 1000, 33 } },
    { "qwen2.5-7b.len512+31", KC_SHAPE_MODEL, { 128, 28, 4, 512, 31 } },
    { "qwen2.5-7b.len1000", KC_SHAPE_MODEL, { 128, 28, 4, 1000 } },
    { "edge.len1", KC_SHAPE_EDGE, { 128, 32, 8, 1 } },
    { "edge.len31", KC_SHAPE_EDGE, { 128, 28, 4, 31 } },
    { "edge.len33", KC_SHAPE_EDGE, { 128, 32, 8, 33 } },
    { "edge.len1+31+33+128.mha8", KC_SHAPE_EDGE, { 128, 8, 8, 1, 31, 33, 128 } },
    { "edge.len65.g7.kv1", KC_SHAPE_EDGE, { 128, 7, 1, 65 } },
    { "large.llama3-8b.len2048", KC_SHAPE_LARGE, { 128, 32, 8, 2048 } },
    { 0 }
};
/* head_dim 64: Llama-3.2-1B (32 q / 8 kv heads) and Qwen2.5-0.5B (14 / 2). */
static const kc_shape ap_d64_shapes[] = {
    { "edge.len127", KC_SHAPE_EDGE, { 64, 32, 8, 127 } },
    { "llama3.2-1b.len1000", KC_SHAPE_MODEL, { 64, 32, 8, 1000 } },
    { "llama3.2-1b.len128+1000+33", KC_SHAPE_MODEL, { 64, 32, 8, 128, 1000, 33 } },
    { "qwen2.5-0.5b.len512+31", KC_SHAPE_MODEL, { 64, 14, 2, 512, 31 } },
    { "qwen2.5-0.5b.len1000", KC_SHAPE_MODEL, { 64, 14, 2, 1000 } },
    { "edge.len1", KC_SHAPE_EDGE, { 64, 32, 8, 1 } },
    { "edge.len31", KC_SHAPE_EDGE, { 64, 14, 2, 31 } },
    { "edge.len33", KC_SHAPE_EDGE, { 64, 32, 8, 33 } },
    { "edge.len1+31+33+128.mha8", KC_SHAPE_EDGE, { 64, 8, 8, 1, 31, 33, 128 } },
    { "edge.len65.g7.kv1", KC_SHAPE_EDGE, { 64, 7, 1, 65 } },
    { "large.llama3.2-1b.len2048", KC_SHAPE_LARGE, { 64, 32, 8, 2048 } },
    { 0 }
};

#define AP_CONTROLS \
    { "partial_tile_store", 2, "rows past a sequence's end in its last query tile are stored too (NaN): edge.len127 writes one row past the end of out (guard band)" }, \
    { "causal_off_by_one", 3, "causal mask j <= i + 1: every row but a sequence's last also attends the next position (any length >= 2)" }, \
    { "rescale_skipped", 3, "online softmax: acc and l not rescaled by e^(m_old - m_new) when a later key tile raises the running max (rows spanning >= 2 key tiles)" }, \
    { "masked_first_tile_nan", 3, "no guard for a running max still -inf: rows whose first processed (diagonal, 32-key) tile is entirely above the diagonal get exp(-inf - -inf) = NaN (rows 64q..64q+31 when the sequence reaches 64q+33)" }

#define AP_CONTRACT(id_, name_, sym_, dt_, shapes_, smem_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "attn_prefill", .symbol = sym_, \
    .dims = { "head_dim", "q_heads", "kv_heads", "len0", "len1", "len2", "len3", "len4" }, \
    .args = { \
        KC_BUFFER("out", dt_, KC_OUT, ap_q_count), \
        KC_BUFFER("q", dt_, KC_IN, ap_q_count), \
        KC_BUFFER("k", dt_, KC_IN, ap_kv_count), \
        KC_BUFFER("v", dt_, KC_IN, ap_kv_count), \
        KC_BUFFER_GEN("cu_seqlens", KC_I32, KC_IN, ap_cu_count, ap_cu_gen), \
        KC_SCALAR("q_heads", KC_I32, ap_qh), \
        KC_SCALAR("kv_heads", KC_I32, ap_kvh), \
        KC_SCALAR("scale", KC_F32, ap_scale), \
    }, \
    .launch = ap_launch, .shapes = shapes_, \
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = ap_reference, \
    .device_reference = { .module = "attention_prefill_ref", .symbol = "attn_prefill_ref", .launch = ap_ref_launch, .agree = AP_REF_AGREE }, \
    .budget = { .max_regs = 128, .max_smem = smem_, .max_local = 0, .min_blocks_per_sm = 2 }, \
    .controls = { AP_CONTROLS }, \
}

AP_CONTRACT(attn_prefill_d128_f16, "attn_prefill.d128.f16", "attn_prefill_d128_f16", KC_F16, ap_d128_shapes, 65664);
AP_CONTRACT(attn_prefill_d128_bf16, "attn_prefill.d128.bf16", "attn_prefill_d128_bf16", KC_BF16, ap_d128_shapes, 65664);
AP_CONTRACT(attn_prefill_d64_f16, "attn_prefill.d64.f16", "attn_prefill_d64_f16", KC_F16, ap_d64_shapes, 32896);
AP_CONTRACT(attn_prefill_d64_bf16, "attn_prefill.d64.bf16", "attn_prefill_d64_bf16", KC_BF16, ap_d64_shapes, 32896);
