/* sampling_contract.c — contracts for kernels/sampling/sampling.cu:
 * deterministic token selection over rows of logits [rows, vocab] in f32, f16
 * and bf16, one block of 512 threads per row. Integer outputs compare exactly.
 *
 * Row semantics (sampling.cu): larger logit first, ties to the lowest index,
 * -0 == +0; a row containing NaN gives -1 (top-k values NaN, top-p output NaN);
 * -inf entries are never selected, and a row of only -inf gives -1 (top-p
 * output = the row); +inf is the largest value (top-p: the +inf entries share
 * the mass equally).
 *
 * sampling.argmax.<t>: out[r] (i32).                           d: rows, vocab
 * sampling.topk.<t>:   ids [rows, k] (i32) and vals [rows, k] (f32) of the k
 *   best logits in order; -1 / -inf past the row's unmasked count.    d: rows, vocab, k
 * sampling.topp.<t>:   len [rows] (i32) and out [rows, vocab] (the logit
 *   dtype): the shortest prefix of the order whose softmax mass (float64)
 *   reaches p = p_permille / 1000 of the total is kept, the rest set to -inf
 *   (vLLM's top-p masking); len = the prefix length.             d: rows, vocab, p_permille
 *
 * Logits: the distribution's values, then every row with a finite or +inf
 * maximum gets that maximum copied to 1-3 other random positions (exact ties
 * at the top in every row). MASKED lays out rows by r % 4: 0 and 1 the
 * built-in runs of -inf, 2 all -inf except up to 10 N(0,1) entries (fewer
 * than k = 50), 3 all -inf. SPECIALS (~1% each of +inf, -inf, NaN) makes most
 * rows NaN rows; the short edge rows are often NaN-free with +inf entries. */
#include <math.h>
#include <stdlib.h>
#include "kcontract.h"
#include "dtype.h"
#include "kcontract_rowfold.h"

/* ---- inputs ---------------------------------------------------------------- */

/* Row r of the logits (the built-in stream already in place): MASKED's
 * layout by r % 4, then the row's maximum copied to 1-3 random places. */
static void smp_logits_row(kc_gen *g, size_t r)
{
    const int64_t vocab = g->shape->d[1];
    const size_t base = r * (size_t)vocab;
    if (g->dist == KC_MASKED && r % 4 >= 2) {
        for (int64_t j = 0; j < vocab; j++) kc_gen_put(g, base + (size_t)j, -INFINITY);
        if (r % 4 == 2)
            for (int n = 0; n < 10; n++)
                kc_gen_put(g, base + (size_t)kc_rand_int(g, 0, vocab - 1), kc_rand_normal(g));
    }
    if (vocab < 2) return;
    double m = -INFINITY;
    for (int64_t j = 0; j < vocab; j++) {
        const double v = kc_load(g->dtype, g->data, base + (size_t)j);
        if (v > m) m = v;
    }
    if (m == -INFINITY) return;
    const int copies = (int)kc_rand_int(g, 1, 3);
    for (int c = 0; c < copies; c++) kc_gen_put(g, base + (size_t)kc_rand_int(g, 0, vocab - 1), m);
}
static void smp_logits_gen(kc_gen *g)
{
    kc_gen_default(g);
    kc_gen_rows(g, (size_t)g->shape->d[0], smp_logits_row);
}

static size_t smp_rows_count(const kc_shape *s) { return (size_t)s->d[0]; }
static size_t smp_rk_count(const kc_shape *s) { return (size_t)s->d[0] * (size_t)s->d[2]; }
static double smp_rows(const kc_shape *s) { return (double)s->d[0]; }
static double smp_vocab(const kc_shape *s) { return (double)s->d[1]; }
static double smp_d2(const kc_shape *s) { return (double)s->d[2]; }

static void smp_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)s->d[0]; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 512; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* ---- references ------------------------------------------------------------- */

typedef struct smp_ent { double v; int64_t i; } smp_ent;

/* The order: larger value first, then lower index. */
static int smp_cmp(const void *a, const void *b)
{
    const smp_ent *x = a, *y = b;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Reads row r into e (all entries), returns 1 if it holds a NaN. */
static int smp_row(const kc_ref *r, int arg, int64_t row, int64_t vocab, smp_ent *e)
{
    int nan = 0;
    for (int64_t j = 0; j < vocab; j++) {
        e[j].v = kc_ref_in(r, arg, (size_t)(row * vocab + j));
        e[j].i = j;
        nan |= isnan(e[j].v);
    }
    return nan;
}

/* Rows are independent: each reference runs its row loop over chunks of rows
 * on the harness's threads (kc_parallel_for, ctx the kc_ref), every row
 * computed exactly as in a sequential loop. A chunk is at least 64K logits. */
static void smp_parallel_rows(const kc_ref *r, void (*rows_fn)(void *ctx, size_t begin, size_t end))
{
    const int64_t rows = r->shape->d[0], vocab = r->shape->d[1];
    kc_parallel_for((size_t)rows, (size_t)(65536 / (vocab > 0 ? vocab : 1)) + 1, rows_fn, (void *)r);
}

enum { AM_OUT = 0, AM_LOGITS = 1 };

/* Rows [begin, end) of the argmax reference. */
static void argmax_rows(void *ctx, size_t begin, size_t end)
{
    const kc_ref *r = ctx;
    const int64_t vocab = r->shape->d[1];
    for (int64_t row = (int64_t)begin; row < (int64_t)end; row++) {
        int64_t best = -1;
        double bv = -INFINITY;
        int nan = 0;
        for (int64_t j = 0; j < vocab; j++) {
            const double v = kc_ref_in(r, AM_LOGITS, (size_t)(row * vocab + j));
            if (isnan(v)) nan = 1;
            else if (v > bv) { bv = v; best = j; }   /* strict: the lowest index wins ties; -inf never */
        }
        r->out[AM_OUT][row] = nan ? -1.0 : (double)best;
    }
}

static void argmax_reference(const kc_ref *r) { smp_parallel_rows(r, argmax_rows); }

enum { TK_IDS = 0, TK_VALS = 1, TK_LOGITS = 2 };

/* Rows [begin, end) of the top-k reference. */
static void topk_rows(void *ctx, size_t begin, size_t end)
{
    const kc_ref *r = ctx;
    const int64_t vocab = r->shape->d[1], k = r->shape->d[2];
    smp_ent *e = malloc((size_t)vocab * sizeof *e);
    if (!e) abort();
    for (int64_t row = (int64_t)begin; row < (int64_t)end; row++) {
        double *ids = r->out[TK_IDS] + row * k, *vals = r->out[TK_VALS] + row * k;
        if (smp_row(r, TK_LOGITS, row, vocab, e)) {
            for (int64_t q = 0; q < k; q++) { ids[q] = -1; vals[q] = NAN; }
            continue;
        }
        qsort(e, (size_t)vocab, sizeof *e, smp_cmp);
        for (int64_t q = 0; q < k; q++) {
            const int ok = q < vocab && e[q].v > -INFINITY;
            ids[q] = ok ? (double)e[q].i : -1.0;
            vals[q] = ok ? e[q].v : -INFINITY;
        }
    }
    free(e);
}

static void topk_reference(const kc_ref *r) { smp_parallel_rows(r, topk_rows); }

enum { TP_LEN = 0, TP_OUT = 1, TP_LOGITS = 2, TP_ROWS = 3, TP_VOCAB = 4, TP_P = 5 };

/* Rows [begin, end) of the top-p reference. */
static void topp_rows(void *ctx, size_t begin, size_t end)
{
    const kc_ref *r = ctx;
    const int64_t vocab = r->shape->d[1];
    const double p = r->scalar[TP_P] / 1000.0;
    smp_ent *e = malloc((size_t)vocab * sizeof *e);
    if (!e) abort();
    for (int64_t row = (int64_t)begin; row < (int64_t)end; row++) {
        double *y = r->out[TP_OUT] + row * vocab;
        const int nan = smp_row(r, TP_LOGITS, row, vocab, e);
        qsort(e, (size_t)vocab, sizeof *e, smp_cmp);
        const double m = e[0].v;
        if (nan || m == -INFINITY) {
            for (int64_t j = 0; j < vocab; j++) y[j] = nan ? NAN : kc_ref_in(r, TP_LOGITS, (size_t)(row * vocab + j));
            r->out[TP_LEN][row] = -1;
            continue;
        }
        /* weights: exp(x - max), or the +inf entries' equal shares when the max is +inf */
        double z = 0;
        for (int64_t j = 0; j < vocab; j++) z += m == INFINITY ? (e[j].v == INFINITY) : exp(e[j].v - m);
        const double target = p * z;
        double cum = 0;
        int64_t len = 0;
        while (len < vocab) {
            cum += m == INFINITY ? (e[len].v == INFINITY) : exp(e[len].v - m);
            len++;
            if (cum >= target) break;
        }
        for (int64_t j = 0; j < vocab; j++) y[j] = -INFINITY;
        for (int64_t q = 0; q < len; q++) y[e[q].i] = e[q].v;
        r->out[TP_LEN][row] = (double)len;
    }
    free(e);
}

static void topp_reference(const kc_ref *r) { smp_parallel_rows(r, topp_rows); }

/* ---- device references (sampling_ref.cu) ---------------------------------- */

/* argmax: the warp's lanes read each row together and keep the first
 * largest entry (kc_rowfold_first_max), the host's loop's: bitwise. */
static void smp_ref_argmax_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    kc_rowfold_launch(s->d[0], dev, l);
}

/* top-k: one block of 512 per row, k rounds of a block-wide arg-best: bitwise. */
static void smp_ref_topk_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)s->d[0]; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 512; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* top-p: one block of 1024 per row (a block radix sort of the row's values
 * in its output row, then the host's sums in sorted order): bitwise but for
 * CUDA's exp, which can flip len only with a probability ~1e-9 per row
 * (sampling_ref.cu); the outputs are discrete, so the agreement is bitwise. */
static void smp_ref_topp_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)s->d[0]; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 1024; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* ---- shapes ---------------------------------------------------------------- */

static const kc_shape argmax_shapes[] = {
    { "llama3-8b.vocab.t1", KC_SHAPE_MODEL, { 1, 128256 } },
    { "llama3-8b.vocab.t8", KC_SHAPE_MODEL, { 8, 128256 } },
    { "qwen2.5-7b.vocab.t4", KC_SHAPE_MODEL, { 4, 152064 } },          /* 152064 = 297 x 512 */
    { "mixtral-8x7b.vocab.t16", KC_SHAPE_MODEL, { 16, 32000 } },
    { "edge.r3.v1", KC_SHAPE_EDGE, { 3, 1 } },
    { "edge.r7.v31", KC_SHAPE_EDGE, { 7, 31 } },
    { "edge.r5.v33", KC_SHAPE_EDGE, { 5, 33 } },
    { "edge.r4.v1023", KC_SHAPE_EDGE, { 4, 1023 } },
    { "edge.r6.v512", KC_SHAPE_EDGE, { 6, 512 } },
    { "edge.r4.v513", KC_SHAPE_EDGE, { 4, 513 } },
    { "large.r1024.llama3-8b.vocab", KC_SHAPE_LARGE, { 1024, 128256 } },
    { 0 }
};

static const kc_shape topk_shapes[] = {
    { "llama3-8b.vocab.t1.k50", KC_SHAPE_MODEL, { 1, 128256, 50 } },
    { "llama3-8b.vocab.t8.k50", KC_SHAPE_MODEL, { 8, 128256, 50 } },
    { "qwen2.5-7b.vocab.t4.k50", KC_SHAPE_MODEL, { 4, 152064, 50 } },
    { "qwen2.5-7b.vocab.t8.k1", KC_SHAPE_MODEL, { 8, 152064, 1 } },
    { "mixtral-8x7b.vocab.t16.k50", KC_SHAPE_MODEL, { 16, 32000, 50 } },
    { "edge.r3.v1.k1", KC_SHAPE_EDGE, { 3, 1, 1 } },
    { "edge.r7.v31.k50", KC_SHAPE_EDGE, { 7, 31, 50 } },               /* k > vocab: -1 padding */
    { "edge.r5.v33.k1", KC_SHAPE_EDGE, { 5, 33, 1 } },
    { "edge.r4.v1023.k50", KC_SHAPE_EDGE, { 4, 1023, 50 } },
    { "edge.r6.v512.k50", KC_SHAPE_EDGE, { 6, 512, 50 } },
    /* a -1 / -inf padding tail longer than the block (k - found > 512) on a
     * grid of more rows than the block has threads (rows > 512): the tail
     * loop's stride must be the block's; with the grid's (or any other) it
     * leaves slots found + 512 .. found + rows unwritten. Cheap: vocab 33
     * ends every row after at most 34 passes. */
    { "edge.r520.v33.k560", KC_SHAPE_EDGE, { 520, 33, 560 },
      "gate 2's padding tail (global stores only): each of its 520 blocks takes the shared-memory path of "
      "edge.r5.v33.k1 and edge.r7.v31.k50 (a block reduction a pass), and racecheck analysed every access of "
      "all of them (most of sampling.topk's 29 CPU-seconds on the H200)" },
    { "large.r64.qwen2.5-7b.vocab.k50", KC_SHAPE_LARGE, { 64, 152064, 50 } },
    { 0 }
};

static const kc_shape topp_shapes[] = {
    { "llama3-8b.vocab.t1.p900", KC_SHAPE_MODEL, { 1, 128256, 900 } },
    { "llama3-8b.vocab.t8.p900", KC_SHAPE_MODEL, { 8, 128256, 900 } },
    { "qwen2.5-7b.vocab.t4.p900", KC_SHAPE_MODEL, { 4, 152064, 900 } },
    { "qwen2.5-7b.vocab.t8.p500", KC_SHAPE_MODEL, { 8, 152064, 500 } },
    { "mixtral-8x7b.vocab.t16.p950", KC_SHAPE_MODEL, { 16, 32000, 950 } },
    { "edge.r3.v1.p900", KC_SHAPE_EDGE, { 3, 1, 900 } },
    { "edge.r7.v31.p900", KC_SHAPE_EDGE, { 7, 31, 900 } },
    { "edge.r5.v33.p900", KC_SHAPE_EDGE, { 5, 33, 900 } },
    { "edge.r4.v1023.p900", KC_SHAPE_EDGE, { 4, 1023, 900 } },
    { "edge.r6.v512.p999", KC_SHAPE_EDGE, { 6, 512, 999 } },
    { "large.r64.qwen2.5-7b.vocab.p900", KC_SHAPE_LARGE, { 64, 152064, 900 } },
    { 0 }
};

/* ---- contracts -------------------------------------------------------------- */

#define SMP_DISTS { KC_NORMAL, KC_UNIFORM, KC_LARGE, KC_SPECIALS, KC_MASKED }
#define SMP_BUDGET { .max_regs = 48, .max_smem = 1024, .max_local = 0, .min_blocks_per_sm = 2 }
#define SMP_EXACT ((kc_tol){ 0.0, 0.0, "selected logits are copied, not computed: exact" })

#define SMP_C_TIES { "ties_highest", 3, "equal logits broken toward the highest index (every row has its maximum planted 2-4 times)" }
#define SMP_C_NAN { "nan_ignored", 3, "NaN neither flagged nor propagated: a row containing NaN returns the best of its other entries instead of -1 (SPECIALS: every long row)" }
#define SMP_C_SKIP { "skip_last_block", 3, "the reduction loop's bound is rounded down to a multiple of the 512-thread block: the last vocab % 512 logits are never looked at (vocab 1, 31, 33, 1023, 513, 128256, 32000)" }
#define SMP_C_WARP { "partial_warp_slots", 3, "the final warp reduces 32 shared-memory slots as if all 32 lanes held a warp's partial; 16 warps wrote theirs, the other 16 slots are poison (0xFF: NaN value, index -1, NaN flag set)" }

#define ARGMAX_CONTRACT(id_, name_, sym_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "sampling", .symbol = sym_, \
    .dims = { "rows", "vocab" }, \
    .args = { \
        KC_BUFFER("out", KC_I32, KC_OUT, smp_rows_count), \
        KC_BUFFER_GEN("logits", dt_, KC_IN, kc_count_d0d1, smp_logits_gen), \
        KC_SCALAR("rows", KC_I32, smp_rows), \
        KC_SCALAR("vocab", KC_I32, smp_vocab), \
    }, \
    .launch = smp_launch, .shapes = argmax_shapes, .dists = SMP_DISTS, \
    .reference = argmax_reference, .budget = SMP_BUDGET, \
    .device_reference = { .module = "sampling_ref", .symbol = "sampling_argmax_ref", .launch = smp_ref_argmax_launch }, \
    .controls = { SMP_C_TIES, SMP_C_NAN, SMP_C_SKIP, SMP_C_WARP }, \
}

#define TOPK_CONTRACT(id_, name_, sym_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "sampling", .symbol = sym_, \
    .dims = { "rows", "vocab", "k" }, \
    .args = { \
        KC_BUFFER("ids", KC_I32, KC_OUT, smp_rk_count), \
        { .kind = KC_ARG_BUFFER, .name = "vals", .dtype = KC_F32, .role = KC_OUT, .count = smp_rk_count, .tol = SMP_EXACT }, \
        KC_BUFFER_GEN("logits", dt_, KC_IN, kc_count_d0d1, smp_logits_gen), \
        KC_SCALAR("rows", KC_I32, smp_rows), \
        KC_SCALAR("vocab", KC_I32, smp_vocab), \
        KC_SCALAR("k", KC_I32, smp_d2), \
    }, \
    .launch = smp_launch, .shapes = topk_shapes, .dists = SMP_DISTS, \
    .reference = topk_reference, .budget = SMP_BUDGET, \
    .device_reference = { .module = "sampling_ref", .symbol = "sampling_topk_ref", .launch = smp_ref_topk_launch }, \
    .controls = { SMP_C_TIES, SMP_C_NAN, SMP_C_SKIP, SMP_C_WARP }, \
}

/* top-p's integer output is a float64 threshold decision: the kernel's fixed-
 * order float64 sums and the reference's sorted cumulative sum differ by
 * ~1e-16 relative, so a row could flip only if P * Z fell within ~1e-13 of a
 * prefix sum (steps are ~Z/1e5 on flat rows): ~1e-8 per row, not a tolerance. */
#define TOPP_CONTRACT(id_, name_, sym_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "sampling", .symbol = sym_, \
    .dims = { "rows", "vocab", "p_permille" }, \
    .args = { \
        KC_BUFFER("len", KC_I32, KC_OUT, smp_rows_count), \
        { .kind = KC_ARG_BUFFER, .name = "out", .dtype = dt_, .role = KC_OUT, .count = kc_count_d0d1, .tol = SMP_EXACT }, \
        KC_BUFFER_GEN("logits", dt_, KC_IN, kc_count_d0d1, smp_logits_gen), \
        KC_SCALAR("rows", KC_I32, smp_rows), \
        KC_SCALAR("vocab", KC_I32, smp_vocab), \
        KC_SCALAR("p_permille", KC_I32, smp_d2), \
    }, \
    .launch = smp_launch, .shapes = topp_shapes, .dists = SMP_DISTS, \
    .reference = topp_reference, .budget = SMP_BUDGET, \
    .device_reference = { .module = "sampling_ref", .symbol = "sampling_topp_ref", .launch = smp_ref_topp_launch }, \
    .controls = { SMP_C_NAN, SMP_C_SKIP, SMP_C_WARP }, \
}

ARGMAX_CONTRACT(sampling_argmax_f32, "sampling.argmax.f32", "sampling_argmax_f32", KC_F32);
ARGMAX_CONTRACT(sampling_argmax_f16, "sampling.argmax.f16", "sampling_argmax_f16", KC_F16);
ARGMAX_CONTRACT(sampling_argmax_bf16, "sampling.argmax.bf16", "sampling_argmax_bf16", KC_BF16);
TOPK_CONTRACT(sampling_topk_f32, "sampling.topk.f32", "sampling_topk_f32", KC_F32);
TOPK_CONTRACT(sampling_topk_f16, "sampling.topk.f16", "sampling_topk_f16", KC_F16);
TOPK_CONTRACT(sampling_topk_bf16, "sampling.topk.bf16", "sampling_topk_bf16", KC_BF16);
TOPP_CONTRACT(sampling_topp_f32, "sampling.topp.f32", "sampling_topp_f32", KC_F32);
TOPP_CONTRACT(sampling_topp_f16, "sampling.topp.f16", "sampling_topp_f16", KC_F16);
TOPP_CONTRACT(sampling_topp_bf16, "sampling.topp.bf16", "sampling_topp_bf16", KC_BF16);
