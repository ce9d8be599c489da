/* transpose_contract.c — contracts for kernels/transpose/transpose.cu:
 * out[c, r] = in[r, c], input [rows, cols] with row stride ld_in >= cols
 * (count rows*ld_in; the padding columns are generated but never read),
 * output [cols, rows] packed. A pure copy: exact, default tolerance.
 *
 * Launch: 32x8 threads per block, one 32x32 tile per block (grid.x = number
 * of tiles; the kernel strides over tiles if the grid were ever capped). */
#include <stdint.h>
#include "kcontract.h"

#define TR_TILE 32u

/* d[0] = rows, d[1] = cols, d[2] = ld_in. */
static const kc_shape tr_shapes[] = {
    { "llama3-8b.kv.t128",        KC_SHAPE_MODEL, { 128, 1024, 1024 } },      /* K of 8 KV heads x 128 */
    { "llama3-8b.qkv.k.t128",     KC_SHAPE_MODEL, { 128, 1024, 6144 } },      /* K slice of the fused QKV (4096+1024+1024) */
    { "llama3-8b.hidden.t1024",   KC_SHAPE_MODEL, { 1024, 4096, 4096 } },
    { "llama3-8b.hidden.t7",      KC_SHAPE_MODEL, { 7, 4096, 4096 } },
    { "qwen2.5-7b.qkv.q.t7",      KC_SHAPE_MODEL, { 7, 3584, 4608 } },        /* Q slice of the fused QKV (3584+512+512) */
    { "qwen2.5-7b.qkv.q.t128",    KC_SHAPE_MODEL, { 128, 3584, 4608 } },
    { "qwen2.5-7b.inter.t33",     KC_SHAPE_MODEL, { 33, 18944, 18944 } },
    { "edge.1x1",                 KC_SHAPE_EDGE,  { 1, 1, 1 } },
    { "edge.33x31.ld40",          KC_SHAPE_EDGE,  { 33, 31, 40 } },
    { "edge.31x33",               KC_SHAPE_EDGE,  { 31, 33, 33 } },
    { "edge.1x1023",              KC_SHAPE_EDGE,  { 1, 1023, 1023 } },
    { "edge.1023x1.ld4",          KC_SHAPE_EDGE,  { 1023, 1, 4 } },
    { "edge.65x97.ld128",         KC_SHAPE_EDGE,  { 65, 97, 128 } },
    { "edge.4097x3",              KC_SHAPE_EDGE,  { 4097, 3, 3 } },
    { "llama3-8b.inter.t8192",    KC_SHAPE_LARGE, { 8192, 14336, 14336 } },   /* 1.17e8 elements */
    { 0 }
};

static size_t tr_in_count(const kc_shape *s) { return (size_t)s->d[0] * (size_t)s->d[2]; }
static double tr_rows(const kc_shape *s) { return (double)s->d[0]; }
static double tr_cols(const kc_shape *s) { return (double)s->d[1]; }
static double tr_ld(const kc_shape *s) { return (double)s->d[2]; }

static void tr_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    (void)dev;
    uint64_t rows = (uint64_t)s->d[0], cols = (uint64_t)s->d[1];
    uint64_t tiles = ((rows + TR_TILE - 1) / TR_TILE) * ((cols + TR_TILE - 1) / TR_TILE);
    if (tiles < 1) tiles = 1;
    if (tiles > 0x7fffffffu) tiles = 0x7fffffffu;
    l->grid[0] = (unsigned)tiles; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = TR_TILE; l->block[1] = 8; l->block[2] = 1;
    l->smem = 0;
}

/* args: 0 in [rows*ld_in] (IN), 1 out [cols*rows] (OUT), 2 rows, 3 cols, 4 ld_in */
#define TR_REF_B 64

/* out[c, i] = in[i, c], in 64 x 64 blocks so both sides stay in cache (the
 * plain double loop took ~32 ns an element on the 1.17e8-element shape,
 * bench/reference_bench.c; blocked, a few ns). Same values, any order.
 * This is input row blocks [begin, end) of TR_REF_B rows (kc_parallel_for
 * body; ctx the kc_ref): each writes its own rows i of every output row. */
static void transpose_blocks(void *ctx, size_t begin, size_t end)
{
    const kc_ref *r = ctx;
    const size_t rows = (size_t)r->shape->d[0], cols = (size_t)r->shape->d[1], ld = (size_t)r->shape->d[2];
    const size_t B = TR_REF_B;
    for (size_t i0 = begin * B; i0 < end * B && i0 < rows; i0 += B)
        for (size_t c0 = 0; c0 < cols; c0 += B)
            for (size_t i = i0; i < i0 + B && i < rows; i++)
                for (size_t c = c0; c < c0 + B && c < cols; c++)
                    r->out[1][c * rows + i] = kc_ref_in(r, 0, i * ld + c);
}

/* Row blocks are independent: chunks of at least 64K elements on the harness's threads. */
static void ref_transpose(const kc_ref *r)
{
    const size_t rows = (size_t)r->shape->d[0], cols = (size_t)r->shape->d[1];
    const size_t blocks = (rows + TR_REF_B - 1) / TR_REF_B;
    kc_parallel_for(blocks, 65536 / (TR_REF_B * (cols ? cols : 1)) + 1, transpose_blocks, (void *)r);
}

#define TR_CONTROLS { \
    { "no_sync", 2, "missing __syncthreads between the tile write and the transposed read: warps read tile rows other warps have not stored yet; the copy carries the 0xFF shared-memory poison into the output, where it reads as unwritten (every model shape; seen on an H200)" }, \
    { "ld_eq_cols", 3, "input row stride assumed equal to cols (ld_in ignored): wrong rows on qkv.*, edge.33x31.ld40, edge.1023x1.ld4, edge.65x97.ld128" }, \
    { "full_tiles_only", 2, "partial edge tiles skipped: outputs of sizes off the 32 tile stay unwritten (t7, t33, every edge shape)" }, \
    { "store_row_oob", 2, "store checks the output row but not the column: the last output row is written up to 31 elements past the end (rows % 32 != 0)" }, \
}

/* The device reference (transpose_ref.cu, the default grid striding over
 * 32 x 32 tiles) copies the same elements: bitwise. */

/* One contract per dtype: 256 threads x 32 registers, 8 blocks per SM; the
 * 32x33 tile is 4224 bytes of shared memory in f32, 2112 in f16. */
#define TRANSPOSE_CONTRACT(id_, name_, sym_, dt_, smem_) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "transpose", .symbol = sym_, \
    .dims = { "rows", "cols", "ld_in" }, \
    .args = { \
        KC_BUFFER("in", dt_, KC_IN, tr_in_count), \
        KC_BUFFER("out", dt_, KC_OUT, kc_count_d0d1), \
        KC_SCALAR("rows", KC_I64, tr_rows), \
        KC_SCALAR("cols", KC_I64, tr_cols), \
        KC_SCALAR("ld_in", KC_I64, tr_ld), \
    }, \
    .launch = tr_launch, \
    .shapes = tr_shapes, \
    .dists = { KC_UNIFORM, KC_NORMAL, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = ref_transpose, \
    .device_reference = { .module = "transpose_ref", .symbol = "transpose_ref" }, \
    .budget = { .max_regs = 32, .max_smem = (smem_), .max_local = 0, .min_blocks_per_sm = 8 }, \
    .controls = TR_CONTROLS, \
}

TRANSPOSE_CONTRACT(transpose_f32, "transpose.f32", "transpose_f32", KC_F32, 4224);
TRANSPOSE_CONTRACT(transpose_f16, "transpose.f16", "transpose_f16", KC_F16, 2112);
