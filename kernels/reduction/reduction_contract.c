/* reduction_contract.c — contracts for kernels/reduction/reduction.cu: sum
 * and max over the rows of a row-major [rows, cols] matrix, f32/f16/bf16 in,
 * f32 out, f32 accumulation.
 *
 * Launch: one block per row; threads = ceil(cols/8) rounded up to a warp,
 * clamped to [96, 1024], so short rows get 96 threads (3 warps), qwen's 3584
 * columns 448 (14 warps) and 4097 columns 544 (17 warps): non-power-of-two
 * blocks are part of the contract. Two edge shapes cap the grid (d[2]
 * blocks, fewer than the rows): the kernel strides over rows.
 *
 * Max propagates NaN like torch.amax (a row with a NaN gives NaN); a sum with
 * NaN, or with both +inf and -inf, is NaN; sums with only one sign of inf are
 * that inf. The float64 reference follows IEEE arithmetic, which does all that.
 * The kernel stores every NaN as the canonical 0x7fffffff: a NaN read from
 * poisoned shared memory (all 0xFF bytes) cannot pass through max unchanged
 * and masquerade as an unwritten output, so such bugs land in gate 3. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "kcontract.h"
#include "kcontract_rowfold.h"

#define RED_MIN_THREADS 96u
#define RED_MAX_THREADS 1024u

/* d[0] = rows, d[1] = cols. The shared part of every variant's shape list. */
#define RED_SHAPES_COMMON \
    { "llama3-8b.hidden.t7",      KC_SHAPE_MODEL, { 7, 4096 } }, \
    { "llama3-8b.hidden.t128",    KC_SHAPE_MODEL, { 128, 4096 } }, \
    { "llama3-8b.inter.t7",       KC_SHAPE_MODEL, { 7, 14336 } }, \
    { "llama3-8b.heads.t128",     KC_SHAPE_MODEL, { 128 * 32, 128 } }, \
    { "llama3-8b.vocab.t7",       KC_SHAPE_MODEL, { 7, 128256 } }, \
    { "qwen2.5-7b.hidden.t128",   KC_SHAPE_MODEL, { 128, 3584 } }, \
    { "qwen2.5-7b.inter.t7",      KC_SHAPE_MODEL, { 7, 18944 } }, \
    { "qwen2.5-7b.vocab.t1",      KC_SHAPE_MODEL, { 1, 152064 } }, \
    { "edge.1x1",                 KC_SHAPE_EDGE,  { 1, 1 } }, \
    { "edge.33x31",               KC_SHAPE_EDGE,  { 33, 31 } }, \
    { "edge.31x33",               KC_SHAPE_EDGE,  { 31, 33 } }, \
    { "edge.1x1023",              KC_SHAPE_EDGE,  { 1, 1023 } }, \
    { "edge.5x700",               KC_SHAPE_EDGE,  { 5, 700 } }, \
    { "edge.3x4097",              KC_SHAPE_EDGE,  { 3, 4097 } }, \
    /* More rows than blocks (d[2], below): the kernel's grid-stride loop over \
     * rows and the reuse of warp_part from one row to the next, which one \
     * block per row never reaches. 4 and 3 blocks, fewer than the 96 and 544 \
     * threads of a block, rows not a multiple of the grid. */ \
    { "edge.33x31.g4",            KC_SHAPE_EDGE,  { 33, 31, 4 } }, \
    { "edge.40x4097.g3",          KC_SHAPE_EDGE,  { 40, 4097, 3 } }

static const kc_shape red_shapes[] = {
    RED_SHAPES_COMMON,
    { "llama3-8b.inter.t8192",    KC_SHAPE_LARGE, { 8192, 14336 } },        /* 1.17e8 elements */
    { 0 }
};

/* The one shape past 2^31 elements (2,149,580,800; 4.3 GB of f16): rows from
 * 65536 on start beyond 4 GiB, where 32-bit offsets wrap. */
static const kc_shape red_shapes_wide[] = {
    RED_SHAPES_COMMON,
    { "large.65600x32768",        KC_SHAPE_LARGE, { 65600, 32768 } },
    { 0 }
};

static double red_rows(const kc_shape *s) { return (double)s->d[0]; }
static double red_cols(const kc_shape *s) { return (double)s->d[1]; }

/* One block per row; d[2] > 0 (the grid-capped edge shapes only; it is no
 * named dim, so launch records leave it 0) caps the grid at d[2] blocks, and
 * each block strides over rows, as the kernel does past 2^31 - 1 rows. */
static void red_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    (void)dev;
    uint64_t rows = (uint64_t)s->d[0], cols = (uint64_t)s->d[1];
    uint64_t t = (cols + 7) / 8;
    t = (t + 31) / 32 * 32;
    if (t < RED_MIN_THREADS) t = RED_MIN_THREADS;
    if (t > RED_MAX_THREADS) t = RED_MAX_THREADS;
    uint64_t g = rows ? rows : 1;
    if (s->d[2] > 0 && (uint64_t)s->d[2] < g) g = (uint64_t)s->d[2];
    if (g > 0x7fffffffu) g = 0x7fffffffu;    /* the kernel strides over rows */
    l->grid[0] = (unsigned)g; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = (unsigned)t; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* Exact decoding of the input row, inline: the 2^31-element shape makes
 * kc_ref_in's per-element call the dominant host cost. */
static inline double red_f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    float f;
    if (e == 0) {                                    /* zero or subnormal: m * 2^-24 */
        f = (float)m * 0x1p-24f;
        return sign ? -(double)f : (double)f;
    }
    bits = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13));
    memcpy(&f, &bits, sizeof f);
    return f;
}
static inline double red_bf16(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
static inline double red_load(const kc_ref *r, size_t i)
{
    switch (r->dtype[0]) {
    case KC_F32: return ((const float *)r->host[0])[i];
    case KC_F16: return red_f16(((const uint16_t *)r->host[0])[i]);
    case KC_BF16: return red_bf16(((const uint16_t *)r->host[0])[i]);
    default: return kc_ref_in(r, 0, i);
    }
}

/* args: 0 x [rows*cols] (IN), 1 out [rows] (OUT f32), 2 rows, 3 cols */
/* Rows are independent: each reference runs chunks of rows (at least 64K
 * elements) on the harness's threads (kc_parallel_for; ctx the kc_ref). A
 * row's own sum or max stays one sequential loop. */
static void red_parallel_rows(const kc_ref *r, void (*rows_fn)(void *ctx, size_t begin, size_t end))
{
    const size_t rows = (size_t)r->shape->d[0], cols = (size_t)r->shape->d[1];
    kc_parallel_for(rows, 65536 / (cols ? cols : 1) + 1, rows_fn, (void *)r);
}

/* Rows [begin, end) of the sum. */
static void sum_rows(void *ctx, size_t begin, size_t end)
{
    const kc_ref *r = ctx;
    const size_t cols = (size_t)r->shape->d[1];
    for (size_t i = begin; i < end; i++) {
        double s = 0.0;
        for (size_t c = 0; c < cols; c++)
            s += red_load(r, i * cols + c);
        r->out[1][i] = s;
    }
}

static void ref_sum(const kc_ref *r) { red_parallel_rows(r, sum_rows); }

/* Rows [begin, end) of the max. */
static void max_rows(void *ctx, size_t begin, size_t end)
{
    const kc_ref *r = ctx;
    const size_t cols = (size_t)r->shape->d[1];
    for (size_t i = begin; i < end; i++) {
        double m = -INFINITY;
        for (size_t c = 0; c < cols; c++) {
            double v = red_load(r, i * cols + c);
            if (isnan(v)) { m = NAN; break; }
            if (v > m) m = v;
        }
        r->out[1][i] = m;
    }
}

static void ref_max(const kc_ref *r) { red_parallel_rows(r, max_rows); }

/* The device references (reduction_ref.cu): the same sequential sum, one
 * lane walking each row in the host's order, and the same max, the warp's
 * lanes reading each row together (exact in any order): bitwise. */
static void red_ref_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    kc_rowfold_launch(s->d[0], dev, l);
}
#define RED_SUM_DREF { .module = "reduction_ref", .symbol = "reduce_sum_ref", .launch = red_ref_launch }
#define RED_MAX_DREF { .module = "reduction_ref", .symbol = "reduce_max_ref", .launch = red_ref_launch }

/* Up to 1024 threads at <= 32 registers: 2 blocks (2048 threads) per SM;
 * 128 bytes of static shared memory (32 warp partials). */
#define RED_BUDGET { .max_regs = 32, .max_smem = 256, .max_local = 0, .min_blocks_per_sm = 2 }

#define RED_SUM_TOL { .rtol = 1e-5, .atol = 2e-3, .reason = \
    "f32 accumulation: each thread adds cols/blockDim (<= 149) elements in order, then a 10-level shuffle tree; " \
    "bound ~(cols/blockDim + 10) * 2^-24 * sum|x|, and a host simulation of this exact order gave at most " \
    "2.1e-9 * sum|x|, i.e. 2.5e-4 on the 152064-column N(0,1) row (sum|x| ~ 1.2e5) whose sum cancels to ~sqrt(n): " \
    "atol 2e-3 keeps ~8x margin over the worst row; rtol 1e-5 covers LARGE rows, where |sum| ~ sum|x|/2" }

#define RED_COMMON_CONTROLS \
    { "pow2_block", 3, "warp-partial tree assumes a power-of-two warp count: partials dropped with 3/14/17 warps (heads.t128 at 96 threads, qwen hidden at 448, edge.5x700, edge.3x4097)" }, \
    { "smem_unwritten", 3, "warp 0 reads all 32 partial slots, only nwarps written: poisoned (NaN) shared memory joins the result (every block < 1024 threads)" }

#define RED_CONTRACT(id_, name_, sym_, dt_, ref_, shapes_, ...) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "reduction", .symbol = sym_, \
    .dims = { "rows", "cols" }, \
    .args = { \
        KC_BUFFER("x", dt_, KC_IN, kc_count_d0d1), \
        KC_BUFFER("out", KC_F32, KC_OUT, kc_count_d0), \
        KC_SCALAR("rows", KC_I64, red_rows), \
        KC_SCALAR("cols", KC_I64, red_cols), \
    }, \
    .launch = red_launch, \
    .shapes = shapes_, \
    .reference = ref_, \
    .budget = RED_BUDGET, \
    __VA_ARGS__ \
}

RED_CONTRACT(reduce_sum_f32, "reduce_sum.f32", "reduce_sum_f32", KC_F32, ref_sum, red_shapes,
    .device_reference = RED_SUM_DREF,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS_MIXED, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .tol = RED_SUM_TOL,
    .controls = { RED_COMMON_CONTROLS });

/* The half-precision accumulation control: LARGE rows (|x| in [512, 1024],
 * 3/4 positive) sum to >= 65504 within 4096 columns, so an f16 accumulator
 * overflows to inf on every model shape; with UNIFORM/NORMAL the rounding of
 * every partial to 11 bits costs ~1e-2 absolute, far above atol. */
/* f16 only (bf16 subnormals, < 1.2e-38, sum far below atol whatever is lost).
 * Random f16 rows hold ~5e-5 subnormals per element (NORMAL and UNIFORM alike):
 * ~7 in a 152064-column row, each < 6.1e-5 with random signs, so their loss
 * (~1e-4) stays under atol 2e-3 (it would take ~33 in one row, Poisson tail
 * ~1e-11); DENORMAL rows sum to ~sqrt(cols) x 3.5e-5 (2.2e-3 at 4096 columns,
 * 0.0125 at 128256), read as 0: most rows of every model shape fail. */
#define RED_CONTROL_SUBNORMAL_FLUSH \
    { "subnormal_flush", 3, "half-to-float conversion without a subnormal path: f16 subnormals (|x| < 6.1e-5) read as 0. " \
      "Random rows lose a handful of them (~1e-4 of a sum whose atol is 2e-3) and pass every gate; a DENORMAL row's " \
      "sum (~sqrt(cols) x 3.5e-5, 0.0125 at 128256 columns) becomes 0: only the boundary distribution reaches it (gate 3)" }

RED_CONTRACT(reduce_sum_f16, "reduce_sum.f16", "reduce_sum_f16", KC_F16, ref_sum, red_shapes_wide,
    .device_reference = RED_SUM_DREF,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_LARGE, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .tol = RED_SUM_TOL,
    .controls = {
        RED_COMMON_CONTROLS,
        { "half_accum", 3, "accumulation in f16: partial sums overflow to inf (LARGE, every model shape) and lose precision (UNIFORM/NORMAL)" },
        { "int32_index", 3, "row offset in 32-bit arithmetic wraps at 4 GiB: rows 65536.. of large.65600x32768 re-read rows 0.. (large shape only)" },
        RED_CONTROL_SUBNORMAL_FLUSH,
    });

RED_CONTRACT(reduce_sum_bf16, "reduce_sum.bf16", "reduce_sum_bf16", KC_BF16, ref_sum, red_shapes,
    .device_reference = RED_SUM_DREF,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .tol = RED_SUM_TOL,
    .controls = {
        RED_COMMON_CONTROLS,
        { "half_accum", 3, "accumulation in bf16 (8-bit significand): ~1e-1 absolute error on UNIFORM/NORMAL rows of a few thousand columns" },
    });

/* Max is exact (the result is one of the inputs): default f32 tolerance. */
RED_CONTRACT(reduce_max_f32, "reduce_max.f32", "reduce_max_f32", KC_F32, ref_max, red_shapes,
    .device_reference = RED_MAX_DREF,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS_MIXED, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .controls = { RED_COMMON_CONTROLS });
RED_CONTRACT(reduce_max_f16, "reduce_max.f16", "reduce_max_f16", KC_F16, ref_max, red_shapes,
    .device_reference = RED_MAX_DREF,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .controls = { RED_COMMON_CONTROLS });
RED_CONTRACT(reduce_max_bf16, "reduce_max.bf16", "reduce_max_bf16", KC_BF16, ref_max, red_shapes,
    .device_reference = RED_MAX_DREF,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .controls = { RED_COMMON_CONTROLS });
