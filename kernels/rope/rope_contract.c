/* rope_contract.c — contracts for kernels/rope/rope.cu (rotary embedding, in place).
 *
 * Shape dims: d[0] tokens, d[1] heads (query), d[2] kv_heads, d[3] head_dim
 * (= rotary dim), d[4] max_pos, d[5] stride_tokens (elements between token rows
 * of the packed qkv activation: (heads + 2*kv_heads) * head_dim; used by the
 * rope.neox.qk.* contracts only).
 * Caches: cos / sin f32 [max_pos, head_dim/2], generated as the real values
 * cos(p * theta^(-2i/head_dim)), theta = 500000 (Llama 3); positions uniform in
 * [0, max_pos). The reference rotates in float64 with the generated (f32) cache
 * values, so the contract checks the rotation, not the cache.
 * Layouts: NeoX pairs (x[i], x[i + d/2]); GPT-J pairs (x[2i], x[2i + 1]).
 * rope.neox.<t> takes int64 positions, rope.gptj.<t> int32 positions. */
#include <math.h>
#include "kcontract.h"

#define ROPE_THETA 500000.0

static size_t rope_q_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1] * s->d[3]); }
static size_t rope_cache_count(const kc_shape *s) { return (size_t)(s->d[4] * (s->d[3] / 2)); }
static size_t rope_qs_count(const kc_shape *s) { return (size_t)((s->d[0] - 1) * s->d[5] + s->d[1] * s->d[3]); }
static size_t rope_ks_count(const kc_shape *s) { return (size_t)((s->d[0] - 1) * s->d[5] + s->d[2] * s->d[3]); }

/* Positions uniform in [0, max_pos - 1], made on the GPU. */
static void rope_pos_range(const kc_shape *s, double *lo, double *hi)
{
    *lo = 0;
    *hi = (double)(s->d[4] - 1);
}

/* Position p's row of the cos (sin) table: half = rot / 2 angles
 * p theta^(-2 j / rot). Rows on the harness's threads; no draws (a table). */
static void rope_cache_row(kc_gen *g, size_t p, int want_sin)
{
    const int64_t half = g->shape->d[3] / 2, rot = g->shape->d[3];
    for (int64_t j = 0; j < half; j++) {
        double ang = (double)p * pow(ROPE_THETA, -2.0 * (double)j / (double)rot);
        kc_gen_put(g, p * (size_t)half + (size_t)j, want_sin ? sin(ang) : cos(ang));
    }
}
static void rope_cos_row(kc_gen *g, size_t p) { rope_cache_row(g, p, 0); }
static void rope_sin_row(kc_gen *g, size_t p) { rope_cache_row(g, p, 1); }
static void rope_cos_gen(kc_gen *g) { kc_gen_rows(g, g->count / (size_t)(g->shape->d[3] / 2), rope_cos_row); }
static void rope_sin_gen(kc_gen *g) { kc_gen_rows(g, g->count / (size_t)(g->shape->d[3] / 2), rope_sin_row); }

static double rope_heads(const kc_shape *s) { return (double)s->d[1]; }
static double rope_kv_heads(const kc_shape *s) { return (double)s->d[2]; }
static double rope_head_dim(const kc_shape *s) { return (double)s->d[3]; }
static double rope_stride(const kc_shape *s) { return (double)s->d[5]; }

/* One block per token; threads over (head, pair) of q: up to 256. */
static void rope_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    int64_t t = (s->d[1] * (s->d[3] / 2) + 31) / 32 * 32;
    if (t < 32) t = 32;
    if (t > 256) t = 256;
    l->grid[0] = (unsigned)s->d[0]; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = (unsigned)t; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* Rotates `heads` heads of the token row starting at element `base` of arg a
 * (input read from the generated buffer, result into r->out[a]). */
static void rope_ref_row(const kc_ref *r, int a, size_t base, int64_t heads, int64_t d,
                         int neox, int cos_arg, int sin_arg, int64_t pos)
{
    const int64_t half = d / 2;
    for (int64_t h = 0; h < heads; h++)
        for (int64_t i = 0; i < half; i++) {
            size_t ia = base + (size_t)(h * d + (neox ? i : 2 * i));
            size_t ib = base + (size_t)(h * d + (neox ? i + half : 2 * i + 1));
            double x1 = kc_ref_in(r, a, ia), x2 = kc_ref_in(r, a, ib);
            double c = kc_ref_in(r, cos_arg, (size_t)(pos * half + i));
            double sn = kc_ref_in(r, sin_arg, (size_t)(pos * half + i));
            r->out[a][ia] = x1 * c - x2 * sn;
            r->out[a][ib] = x2 * c + x1 * sn;
        }
}

/* args: q, positions, cos, sin, heads, head_dim */
static void rope_q_reference(const kc_ref *r, int neox)
{
    const int64_t tokens = r->shape->d[0], heads = r->shape->d[1], d = r->shape->d[3];
    for (int64_t t = 0; t < tokens; t++) {
        int64_t pos = (int64_t)kc_ref_in(r, 1, (size_t)t);
        rope_ref_row(r, 0, (size_t)(t * heads * d), heads, d, neox, 2, 3, pos);
    }
}
static void rope_neox_reference(const kc_ref *r) { rope_q_reference(r, 1); }
static void rope_gptj_reference(const kc_ref *r) { rope_q_reference(r, 0); }

/* args: q, k, positions, cos, sin, heads, kv_heads, head_dim, stride_tokens.
 * Elements between token rows (the rest of the packed qkv row) stay unchanged. */
static void rope_qk_reference(const kc_ref *r)
{
    const int64_t tokens = r->shape->d[0], heads = r->shape->d[1], kvh = r->shape->d[2];
    const int64_t d = r->shape->d[3], stride = r->shape->d[5];
    for (int a = 0; a < 2; a++)
        for (size_t i = 0; i < r->count[a]; i++) r->out[a][i] = kc_ref_in(r, a, i);
    for (int64_t t = 0; t < tokens; t++) {
        int64_t pos = (int64_t)kc_ref_in(r, 2, (size_t)t);
        rope_ref_row(r, 0, (size_t)(t * stride), heads, d, 1, 3, 4, pos);
        rope_ref_row(r, 1, (size_t)(t * stride), kvh, d, 1, 3, 4, pos);
    }
}

static const kc_shape rope_shapes[] = {
    { "llama3-8b.t1", KC_SHAPE_MODEL, { 1, 32, 8, 128, 8192, 48 * 128 } },
    { "llama3-8b.t7", KC_SHAPE_MODEL, { 7, 32, 8, 128, 8192, 48 * 128 } },
    { "llama3-8b.t128", KC_SHAPE_MODEL, { 128, 32, 8, 128, 8192, 48 * 128 } },
    { "qwen2.5-7b.t7", KC_SHAPE_MODEL, { 7, 28, 4, 128, 8192, 36 * 128 } },
    { "qwen2.5-7b.t128", KC_SHAPE_MODEL, { 128, 28, 4, 128, 8192, 36 * 128 } },
    { "edge.t33.h1.d64", KC_SHAPE_EDGE, { 33, 1, 1, 64, 8192, 3 * 64 } },
    { "edge.t31.h3.d32", KC_SHAPE_EDGE, { 31, 3, 1, 32, 8192, 5 * 32 } },
    { "edge.t1.h1.d2", KC_SHAPE_EDGE, { 1, 1, 1, 2, 8192, 3 * 2 } },
    { "edge.t1023.h4.d128", KC_SHAPE_EDGE, { 1023, 4, 2, 128, 8192, 8 * 128 } },
    /* 8192 tokens (= max_pos) so that even the ignore_positions control (pos = token index) stays inside the caches */
    { "large.t8192.llama3-8b", KC_SHAPE_LARGE, { 8192, 32, 8, 128, 8192, 48 * 128 } },
    { 0 }
};

#define ROPE_BUDGET { .max_regs = 40, .max_smem = 0, .max_local = 0, .min_blocks_per_sm = 4 }
#define ROPE_CONTROLS_Q \
    { "wrong_pair_layout", 3, "RoPE layout confusion: NeoX kernel rotates interleaved GPT-J pairs and vice versa" }, \
    { "ignore_positions", 3, "positions ignored: assumes position == token index (prefill from 0)" }

/* Device twins (rope_ref.cu): rope_neox_ref, rope_gptj_ref and
 * rope_neox_qk_ref, the same products and sums in double, bitwise. */
#define ROPE_DREF(sym_) { .module = "rope_ref", .symbol = sym_, .agree = { 0 } }

#define ROPE_Q_CONTRACT(id_, name_, sym_, dt_, posdt_, ref_, dref_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "rope", .symbol = sym_, \
    .dims = { "tokens", "heads", "kv_heads", "head_dim", "max_pos", "stride_tokens" }, \
    .args = { \
        KC_BUFFER("q", dt_, KC_INOUT, rope_q_count), \
        KC_BUFFER_RANGE("positions", posdt_, KC_IN, kc_count_d0, rope_pos_range), \
        KC_BUFFER_TABLE("cos_cache", KC_F32, KC_IN, rope_cache_count, rope_cos_gen), \
        KC_BUFFER_TABLE("sin_cache", KC_F32, KC_IN, rope_cache_count, rope_sin_gen), \
        KC_SCALAR("heads", KC_I32, rope_heads), \
        KC_SCALAR("head_dim", KC_I32, rope_head_dim), \
    }, \
    .launch = rope_launch, .shapes = rope_shapes, \
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = ref_, .device_reference = ROPE_DREF(dref_), .budget = ROPE_BUDGET, \
    .controls = { ROPE_CONTROLS_Q }, \
}

ROPE_Q_CONTRACT(rope_neox_f32, "rope.neox.f32", "rope_neox_f32", KC_F32, KC_I64, rope_neox_reference, "rope_neox_ref");
ROPE_Q_CONTRACT(rope_neox_f16, "rope.neox.f16", "rope_neox_f16", KC_F16, KC_I64, rope_neox_reference, "rope_neox_ref");
ROPE_Q_CONTRACT(rope_neox_bf16, "rope.neox.bf16", "rope_neox_bf16", KC_BF16, KC_I64, rope_neox_reference, "rope_neox_ref");
ROPE_Q_CONTRACT(rope_gptj_f32, "rope.gptj.f32", "rope_gptj_f32", KC_F32, KC_I32, rope_gptj_reference, "rope_gptj_ref");
ROPE_Q_CONTRACT(rope_gptj_f16, "rope.gptj.f16", "rope_gptj_f16", KC_F16, KC_I32, rope_gptj_reference, "rope_gptj_ref");
ROPE_Q_CONTRACT(rope_gptj_bf16, "rope.gptj.bf16", "rope_gptj_bf16", KC_BF16, KC_I32, rope_gptj_reference, "rope_gptj_ref");

#define ROPE_QK_CONTRACT(id_, name_, sym_, dt_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "rope", .symbol = sym_, \
    .dims = { "tokens", "heads", "kv_heads", "head_dim", "max_pos", "stride_tokens" }, \
    .args = { \
        KC_BUFFER("q", dt_, KC_INOUT, rope_qs_count), \
        KC_BUFFER("k", dt_, KC_INOUT, rope_ks_count), \
        KC_BUFFER_RANGE("positions", KC_I64, KC_IN, kc_count_d0, rope_pos_range), \
        KC_BUFFER_TABLE("cos_cache", KC_F32, KC_IN, rope_cache_count, rope_cos_gen), \
        KC_BUFFER_TABLE("sin_cache", KC_F32, KC_IN, rope_cache_count, rope_sin_gen), \
        KC_SCALAR("heads", KC_I32, rope_heads), \
        KC_SCALAR("kv_heads", KC_I32, rope_kv_heads), \
        KC_SCALAR("head_dim", KC_I32, rope_head_dim), \
        KC_SCALAR("stride_tokens", KC_I64, rope_stride), \
    }, \
    .launch = rope_launch, .shapes = rope_shapes, \
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = rope_qk_reference, .device_reference = ROPE_DREF("rope_neox_qk_ref"), .budget = ROPE_BUDGET, \
    .controls = { ROPE_CONTROLS_Q, \
        { "stride_assume_contiguous", 3, "assumes q/k token rows are contiguous (stride heads*head_dim) instead of stride_tokens: rotates the wrong elements for tokens >= 1" }, \
        { "k_uses_q_heads", 2, "GQA head-count confusion: rotates `heads` heads of k instead of kv_heads, writing past the last token's k row" } }, \
}

ROPE_QK_CONTRACT(rope_neox_qk_f16, "rope.neox.qk.f16", "rope_neox_qk_f16", KC_F16);
ROPE_QK_CONTRACT(rope_neox_qk_bf16, "rope.neox.qk.bf16", "rope_neox_qk_bf16", KC_BF16);
