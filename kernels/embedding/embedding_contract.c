/* embedding_contract.c — contracts for kernels/embedding/embedding.cu.
 *
 * embedding.<t>: out[t, :] = table[ids[t], :] for t < tokens; table [vocab,
 * hidden] in f16 / bf16, ids i32 [tokens], out [tokens, hidden]. An id outside
 * [0, vocab) gives a row of zeros (vLLM's vocab-parallel embedding: ids owned
 * by another tensor-parallel shard). The copy is exact (NaN and inf included).
 * Shape: d[0] tokens, d[1] vocab, d[2] hidden.
 *
 * ids: uniform in [0, vocab - 1], with ids[0] = 0 and ids[tokens - 1] = vocab - 1
 * always (the first and last rows of the table); under SPECIALS about 1 in 16
 * ids is out of range (-1, vocab, vocab + 1000, INT32_MIN, INT32_MAX).
 *
 * The large shape is Qwen2.5-72B's embedding (152064 x 8192: 1.25e9 elements,
 * 2.5 GB; the case holds ~5 GB of host memory and ~5 GB on the GPU): row byte
 * offsets reach 2.49e9 > 2^31, so an offset held in 32 bits wraps there. */
#include <stdint.h>
#include "kcontract.h"

enum { EM_OUT = 0, EM_TABLE = 1, EM_IDS = 2, EM_TOKENS = 3, EM_VOCAB = 4, EM_HIDDEN = 5 };

static size_t em_out_count(const kc_shape *s) { return (size_t)s->d[0] * (size_t)s->d[2]; }
static size_t em_table_count(const kc_shape *s) { return (size_t)s->d[1] * (size_t)s->d[2]; }
static size_t em_ids_count(const kc_shape *s) { return (size_t)s->d[0]; }
static double em_tokens(const kc_shape *s) { return (double)s->d[0]; }
static double em_vocab(const kc_shape *s) { return (double)s->d[1]; }
static double em_hidden(const kc_shape *s) { return (double)s->d[2]; }

static void em_ids_gen(kc_gen *g)
{
    const int64_t tokens = g->shape->d[0], vocab = g->shape->d[1];
    static const int64_t bad[5] = { -1, 0 /* vocab */, 1000 /* vocab + */, INT32_MIN, INT32_MAX };
    for (int64_t t = 0; t < tokens && (size_t)t < g->count; t++) {
        int64_t id = kc_rand_int(g, 0, vocab - 1);
        if (g->dist == KC_SPECIALS && kc_rand_int(g, 0, 15) == 0) {
            int k = (int)kc_rand_int(g, 0, 4);
            id = k == 1 ? vocab : k == 2 ? vocab + 1000 : bad[k];
        }
        kc_gen_put(g, (size_t)t, (double)id);
    }
    kc_gen_put(g, 0, 0.0);
    if (tokens >= 1) kc_gen_put(g, (size_t)(tokens - 1), (double)(vocab - 1));
}

/* (64, 4) threads: 4 tokens a block. */
static void em_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)((s->d[0] + 3) / 4); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 64; l->block[1] = 4; l->block[2] = 1;
    l->smem = 0;
}

/* Its device twin is embedding_ref (embedding_ref.cu): the same copy, bitwise. */
static void embedding_reference(const kc_ref *r)
{
    const int64_t tokens = r->shape->d[0], vocab = r->shape->d[1], hidden = r->shape->d[2];
    for (int64_t t = 0; t < tokens; t++) {
        const int64_t id = (int64_t)kc_ref_in(r, EM_IDS, (size_t)t);
        double *y = r->out[EM_OUT] + t * hidden;
        for (int64_t j = 0; j < hidden; j++)
            y[j] = (id >= 0 && id < vocab) ? kc_ref_in(r, EM_TABLE, (size_t)(id * hidden + j)) : 0.0;
    }
}

static const kc_shape em_shapes[] = {
    { "llama3-8b.embed.t1", KC_SHAPE_MODEL, { 1, 128256, 4096 } },
    { "llama3-8b.embed.t128", KC_SHAPE_MODEL, { 128, 128256, 4096 } },
    { "qwen2.5-7b.embed.t7", KC_SHAPE_MODEL, { 7, 152064, 3584 } },
    { "mixtral-8x7b.embed.t33", KC_SHAPE_MODEL, { 33, 32000, 4096 } },
    { "edge.t1.v1.h8", KC_SHAPE_EDGE, { 1, 1, 8 } },
    { "edge.t7.v33.h31", KC_SHAPE_EDGE, { 7, 33, 31 } },          /* odd hidden: element path */
    { "edge.t33.v1023.h33", KC_SHAPE_EDGE, { 33, 1023, 33 } },
    { "edge.t5.v64.h1", KC_SHAPE_EDGE, { 5, 64, 1 } },
    /* odd hidden past one pass of the block's 64 threads: the element path's
     * loop strides (4 passes); the odd shapes above take one pass each, which
     * left its stride unchecked (a doubled stride, mutation analysis:
     * docs/receipts/2026-12-02-h200-mutate-run) */
    { "edge.t9.v100.h203", KC_SHAPE_EDGE, { 9, 100, 203 } },
    { "edge.t1023.v1000.h4104", KC_SHAPE_EDGE, { 1023, 1000, 4104 } },
    { "qwen2.5-72b.embed.t256", KC_SHAPE_LARGE, { 256, 152064, 8192 } },
    { 0 }
};

#define EM_CONTRACT(id_, name_, sym_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "embedding", .symbol = sym_, \
    .dims = { "tokens", "vocab", "hidden" }, \
    .args = { \
        KC_BUFFER("out", dt_, KC_OUT, em_out_count), \
        KC_BUFFER("table", dt_, KC_IN, em_table_count), \
        KC_BUFFER_GEN("ids", KC_I32, KC_IN, em_ids_count, em_ids_gen), \
        KC_SCALAR("tokens", KC_I32, em_tokens), \
        KC_SCALAR("vocab", KC_I32, em_vocab), \
        KC_SCALAR("hidden", KC_I32, em_hidden), \
    }, \
    .launch = em_launch, .shapes = em_shapes, \
    .dists = { KC_NORMAL, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = embedding_reference, \
    .device_reference = { .module = "embedding_ref", .symbol = "embedding_ref", .agree = { 0 } }, \
    .tol = { 0.0, 0.0, "a gather is an exact copy (or exact zeros)" }, \
    .budget = { .max_regs = 32, .max_smem = 0, .max_local = 0, .min_blocks_per_sm = 8 }, \
    .controls = { \
        { "one_based_id", 3, "ids treated as 1-based: row id + 1 is read, and id = vocab - 1 reads the row past the table's end (the guard band: no fault, wrong values)" }, \
        { "rows_beyond_tokens", 2, "no t < tokens guard: the last block of 4 tokens writes rows past the end of out (tokens = 1, 7, 33, 5, 1023)" }, \
        { "int32_byte_offset", 1, "row byte offset id * hidden * 2 held in 32 bits: wraps negative for id >= 131072 on the 152064 x 8192 table (large shape only); the read ~2 GB before the table faults (gate 1, the context is lost) or, if mapped, returns wrong rows (gate 3)" }, \
    }, \
}

EM_CONTRACT(embedding_f16, "embedding.f16", "embedding_f16", KC_F16);
EM_CONTRACT(embedding_bf16, "embedding.bf16", "embedding_bf16", KC_BF16);
