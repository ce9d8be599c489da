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
 * row lands in out's 64 KiB guard band (8 KiB per row here).
 *
 * racecheck analyses every shared-memory access of every block, and a block
 * is one (sequence, q head, 64-row query tile): its path (key tiles up to the
 * diagonal, the masked tail) depends on its sequence's length and its query
 * tile, never on which head it is (a head only moves global addresses). It
 * costs about heads x length^2 a shape, and the edge shapes' heads were most
 * of it: with edge.len127's 32 heads cut to 8 (edge.len127.h8), racecheck of
 * attn_prefill.d128.* still took 2.6-3.5 s an item on the H200, the largest
 * of the :sanitize items (docs/receipts/2026-12-04-h200-final-tree, call 1;
 * 2026-12-04-h200-mends, call 1). So racecheck runs every length of the edge
 * shapes but 1 in one launch of one q head over one kv head,
 * edge.len31+33+65+127+128.h1 (heads x length^2 39k against 368k for d128's
 * racecheck shapes before; on the H200 d128's racecheck 1.5-2.0 s an item
 * against 2.6-2.9 s, d64's 0.7 s against 1.3-1.4 s: that receipt, call 2),
 * and edge.len1 (a key a block); gates 1-4 run every shape. The Hopper
 * contracts below keep racecheck on their edge shapes (0.4-0.5 s of
 * racecheck there). */
#define AP_RACE_H1 "racecheck runs edge.len31+33+65+127+128.h1 instead: every length of the edge shapes but 1 " \
    "(edge.len1 races as it is) in one launch, one q head over one kv head; a block's shared-memory path depends " \
    "on its sequence's length and query tile, never on its head"
static const kc_shape ap_d128_shapes[] = {
    { "edge.len127", KC_SHAPE_EDGE, { 128, 32, 8, 127 }, AP_RACE_H1 },
    { "llama3-8b.len1000", KC_SHAPE_MODEL, { 128, 32, 8, 1000 } },
    { "llama3-8b.len128+1000+33", KC_SHAPE_MODEL, { 128, 32, 8, 128, 1000, 33 } },
    { "qwen2.5-7b.len512+31", KC_SHAPE_MODEL, { 128, 28, 4, 512, 31 } },
    { "qwen2.5-7b.len1000", KC_SHAPE_MODEL, { 128, 28, 4, 1000 } },
    { "edge.len1", KC_SHAPE_EDGE, { 128, 32, 8, 1 } },
    { "edge.len31", KC_SHAPE_EDGE, { 128, 28, 4, 31 }, AP_RACE_H1 },
    { "edge.len33", KC_SHAPE_EDGE, { 128, 32, 8, 33 }, AP_RACE_H1 },
    { "edge.len1+31+33+128.mha8", KC_SHAPE_EDGE, { 128, 8, 8, 1, 31, 33, 128 }, AP_RACE_H1 },
    { "edge.len65.g7.kv1", KC_SHAPE_EDGE, { 128, 7, 1, 65 }, AP_RACE_H1 },
    { "edge.len127.h8", KC_SHAPE_EDGE, { 128, 8, 2, 127 }, AP_RACE_H1 },
    { "edge.len31+33+65+127+128.h1", KC_SHAPE_EDGE, { 128, 1, 1, 31, 33, 65, 127, 128 } },
    { "large.llama3-8b.len2048", KC_SHAPE_LARGE, { 128, 32, 8, 2048 } },
    { 0 }
};
/* head_dim 64: Llama-3.2-1B (32 q / 8 kv heads) and Qwen2.5-0.5B (14 / 2). */
static const kc_shape ap_d64_shapes[] = {
    { "edge.len127", KC_SHAPE_EDGE, { 64, 32, 8, 127 }, AP_RACE_H1 },
    { "llama3.2-1b.len1000", KC_SHAPE_MODEL, { 64, 32, 8, 1000 } },
    { "llama3.2-1b.len128+1000+33", KC_SHAPE_MODEL, { 64, 32, 8, 128, 1000, 33 } },
    { "qwen2.5-0.5b.len512+31", KC_SHAPE_MODEL, { 64, 14, 2, 512, 31 } },
    { "qwen2.5-0.5b.len1000", KC_SHAPE_MODEL, { 64, 14, 2, 1000 } },
    { "edge.len1", KC_SHAPE_EDGE, { 64, 32, 8, 1 } },
    { "edge.len31", KC_SHAPE_EDGE, { 64, 14, 2, 31 }, AP_RACE_H1 },
    { "edge.len33", KC_SHAPE_EDGE, { 64, 32, 8, 33 }, AP_RACE_H1 },
    { "edge.len1+31+33+128.mha8", KC_SHAPE_EDGE, { 64, 8, 8, 1, 31, 33, 128 }, AP_RACE_H1 },
    { "edge.len65.g7.kv1", KC_SHAPE_EDGE, { 64, 7, 1, 65 }, AP_RACE_H1 },
    { "edge.len127.h8", KC_SHAPE_EDGE, { 64, 8, 2, 127 }, AP_RACE_H1 },
    { "edge.len31+33+65+127+128.h1", KC_SHAPE_EDGE, { 64, 1, 1, 31, 33, 65, 127, 128 } },
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

/* ---- attn_prefill_hopper.cu: the same operation on Hopper (TMA, wgmma) ----
 *
 * The same arguments in the same places as above (out, q, k, v, cu_seqlens,
 * q_heads, kv_heads, scale: ap_reference and the device reference read them
 * by these indices), q, k and v carried by three tensor maps after them
 * instead of passed as pointers: the kernel takes (out, cu_seqlens, q_heads,
 * kv_heads, scale, tmap_q, tmap_k, tmap_v). Each map is rank 3 over its whole
 * packed buffer, dims {head_dim, heads, tokens} (dim 0 innermost), box
 * {64, 1, 128} (128 rows of one head's 64 dims: one row of the 128-byte
 * swizzle), swizzle 128B; a head dim of 128 takes two boxes.
 * Tiles: 128 query rows x 128 keys; lengths 1, 31, 33, 65, 127, 129, 255, 1000
 * are off both. */
static void ah_map(const kc_shape *s, kc_tensor_map *m, int64_t heads)
{
    const int64_t D = s->d[0];
    m->rank = 3;
    m->dims[0] = (uint64_t)D; m->dims[1] = (uint64_t)heads; m->dims[2] = (uint64_t)ap_tokens(s);
    m->strides[0] = (uint64_t)(D * 2); m->strides[1] = (uint64_t)(heads * D * 2);
    m->box[0] = 64; m->box[1] = 1; m->box[2] = 128;
    m->elem_strides[0] = m->elem_strides[1] = m->elem_strides[2] = 1;
    m->swizzle = KC_TMAP_SWIZZLE_128B;
    m->l2_promotion = KC_TMAP_L2_128B;
}
static void ah_map_q(const kc_shape *s, kc_tensor_map *m) { ah_map(s, m, s->d[1]); }
static void ah_map_kv(const kc_shape *s, kc_tensor_map *m) { ah_map(s, m, s->d[2]); }

/* Grid (128-row query tiles of the longest sequence, q heads, sequences),
 * 384 threads (a producer warpgroup, two consumer warpgroups); dynamic shared
 * memory: Q, two stages of K and V (D/64 boxes of 16 KiB each), 7 mbarriers,
 * and 1024 bytes to align the base (attn_prefill_hopper.cu, AH_SMEM_BYTES). */
static unsigned ah_smem(int64_t D) { return (unsigned)(5 * (D / 64) * 16384 + 8 * 7 + 1024); }
static void ah_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((ap_max_len(s) + 127) / 128);
    l->grid[1] = (unsigned)s->d[1];
    l->grid[2] = (unsigned)ap_nseqs(s);
    l->block[0] = 384; l->block[1] = 1; l->block[2] = 1;
    l->smem = ah_smem(s->d[0]);
}

/* P = exp(s - m) is rounded to the input type before O += P V (wgmma takes
 * both factors in it): each weight moves by at most 2^-9 (bf16) or 2^-11
 * (f16) of itself. out = sum p v / sum p with the rounded p's on top and
 * the f32 ones below moves by at most 2^-9 (2^-11) x max|v| from that:
 * 0.0135 (0.0034) for the normal distribution's |v| <= 6.93, the largest
 * input here (uniform |v| < 1). Measured on an H200 (standalone test, 16
 * shapes x 2 distributions): at most 0.0097 (bf16) and 0.0011 (f16). rtol
 * stays the output's default (its own rounding). */
#define AH_TOL_BF16 { 1.6e-2, 1.4e-2, "P rounded to bf16 before P V (wgmma's operand type): |out error| <= 2^-9 max|v| = 0.0135 for normal inputs (|v| <= 6.93); measured <= 0.0097" }
#define AH_TOL_F16 { 1e-3, 3.5e-3, "P rounded to f16 before P V (wgmma's operand type): |out error| <= 2^-11 max|v| = 0.0034 for normal inputs (|v| <= 6.93); measured <= 0.0011" }
#define AH_ERRORS { .kind = KC_ERRORS_REPORTED, .reason = "P is rounded to the input type before the P V product (wgmma's operands are of one type): out is not the exact result rounded once, its error is P's rounding averaged over the keys" }

static const kc_shape ah_d128_shapes[] = {
    { "edge.len127", KC_SHAPE_EDGE, { 128, 32, 8, 127 } },
    { "llama3-8b.len1000", KC_SHAPE_MODEL, { 128, 32, 8, 1000 } },
    { "llama3-8b.len128+1000+33", KC_SHAPE_MODEL, { 128, 32, 8, 128, 1000, 33 } },
    { "qwen2.5-7b.len512+31", KC_SHAPE_MODEL, { 128, 28, 4, 512, 31 } },
    { "edge.len1", KC_SHAPE_EDGE, { 128, 32, 8, 1 } },
    { "edge.len129", KC_SHAPE_EDGE, { 128, 32, 8, 129 } },
    { "edge.len31", KC_SHAPE_EDGE, { 128, 28, 4, 31 } },
    { "edge.len255+1+130", KC_SHAPE_EDGE, { 128, 32, 8, 255, 1, 130 } },
    { "edge.len1+31+33+128.mha8", KC_SHAPE_EDGE, { 128, 8, 8, 1, 31, 33, 128 } },
    { "edge.len65.g7.kv1", KC_SHAPE_EDGE, { 128, 7, 1, 65 } },
    { "large.llama3-8b.len4096", KC_SHAPE_LARGE, { 128, 32, 8, 4096 } },
    { 0 }
};
static const kc_shape ah_d64_shapes[] = {
    { "edge.len127", KC_SHAPE_EDGE, { 64, 32, 8, 127 } },
    { "llama3.2-1b.len1000", KC_SHAPE_MODEL, { 64, 32, 8, 1000 } },
    { "llama3.2-1b.len128+1000+33", KC_SHAPE_MODEL, { 64, 32, 8, 128, 1000, 33 } },
    { "qwen2.5-0.5b.len512+31", KC_SHAPE_MODEL, { 64, 14, 2, 512, 31 } },
    { "edge.len1", KC_SHAPE_EDGE, { 64, 32, 8, 1 } },
    { "edge.len129", KC_SHAPE_EDGE, { 64, 32, 8, 129 } },
    { "edge.len255+1+130", KC_SHAPE_EDGE, { 64, 14, 2, 255, 1, 130 } },
    { "edge.len1+31+33+128.mha8", KC_SHAPE_EDGE, { 64, 8, 8, 1, 31, 33, 128 } },
    { "edge.len65.g7.kv1", KC_SHAPE_EDGE, { 64, 7, 1, 65 } },
    { "large.llama3.2-1b.len4096", KC_SHAPE_LARGE, { 64, 32, 8, 4096 } },
    { 0 }
};

#define AH_CONTROLS \
    { "rows_past_end_stored", 2, "rows past a sequence's end in its last 128-row query tile are stored too: edge.len127 writes one row past the end of out (guard band)" }, \
    { "mask_off_by_one", 3, "causal mask on the diagonal tile lets key i + 1 through for query i (any length >= 2)" }, \
    { "no_rescale", 3, "online softmax: O and l not rescaled by 2^(m_old - m_new) when a later key tile raises the running max (rows spanning >= 2 key tiles: length > 128)" }, \
    { "kv_coord_off_by_one", 3, "the K and V bulk tensor copies start one token late (tensor map coordinate off by one): every score and value shifted by a key" }, \
    { "gqa_head_modulo", 3, "query head h reads kv head h mod kv_heads instead of h / (q_heads / kv_heads): wrong whenever a group has more than one head" }, \
    { "desc_no_swizzle", 3, "the wgmma descriptors of Q and K say no swizzle while the tensor maps wrote the 128-byte swizzle: S is computed from permuted dims" }, \
    { "v_not_transposed", 3, "the P V wgmma reads V as K-major (imm-trans-b 0) though it lies head-dim-contiguous (N-major)" }

#define AH_CONTRACT(id_, name_, sym_, dt_, shapes_, tol_, D_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "attn_prefill_hopper", .symbol = sym_, \
    .dims = { "head_dim", "q_heads", "kv_heads", "len0", "len1", "len2", "len3", "len4" }, \
    .args = { \
        KC_BUFFER("out", dt_, KC_OUT, ap_q_count), \
        { .kind = KC_ARG_BUFFER, .name = "q", .dtype = dt_, .role = KC_IN, .count = ap_q_count, .carried = 1 }, \
        { .kind = KC_ARG_BUFFER, .name = "k", .dtype = dt_, .role = KC_IN, .count = ap_kv_count, .carried = 1 }, \
        { .kind = KC_ARG_BUFFER, .name = "v", .dtype = dt_, .role = KC_IN, .count = ap_kv_count, .carried = 1 }, \
        KC_BUFFER_GEN("cu_seqlens", KC_I32, KC_IN, ap_cu_count, ap_cu_gen), \
        KC_SCALAR("q_heads", KC_I32, ap_qh), \
        KC_SCALAR("kv_heads", KC_I32, ap_kvh), \
        KC_SCALAR("scale", KC_F32, ap_scale), \
        KC_TENSOR_MAP("tmap_q", "q", ah_map_q), \
        KC_TENSOR_MAP("tmap_k", "k", ah_map_kv), \
        KC_TENSOR_MAP("tmap_v", "v", ah_map_kv), \
    }, \
    .launch = ah_launch, .shapes = shapes_, \
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = ap_reference, \
    .device_reference = { .module = "attention_prefill_ref", .symbol = "attn_prefill_ref", .launch = ap_ref_launch, .agree = AP_REF_AGREE }, \
    .tol = tol_, .errors = AH_ERRORS, \
    .budget = { .max_regs = 168, .max_smem = (int)(5 * (D_ / 64) * 16384 + 8 * 7 + 1024), .max_local = 0, .min_blocks_per_sm = 1 }, \
    .controls = { AH_CONTROLS }, \
}

AH_CONTRACT(attn_prefill_hopper_d128_bf16, "attn_prefill_hopper.d128.bf16", "attn_prefill_hopper_d128_bf16", KC_BF16, ah_d128_shapes, AH_TOL_BF16, 128);
AH_CONTRACT(attn_prefill_hopper_d128_f16, "attn_prefill_hopper.d128.f16", "attn_prefill_hopper_d128_f16", KC_F16, ah_d128_shapes, AH_TOL_F16, 128);
AH_CONTRACT(attn_prefill_hopper_d64_bf16, "attn_prefill_hopper.d64.bf16", "attn_prefill_hopper_d64_bf16", KC_BF16, ah_d64_shapes, AH_TOL_BF16, 64);
AH_CONTRACT(attn_prefill_hopper_d64_f16, "attn_prefill_hopper.d64.f16", "attn_prefill_hopper_d64_f16", KC_F16, ah_d64_shapes, AH_TOL_F16, 64);
