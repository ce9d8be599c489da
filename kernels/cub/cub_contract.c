/* cub_contract.c — contracts for CUB's device-wide reduce, scan and radix sort
 * behind the thin launchers of libkc_cub.cu (library kernels:
 * kc_contract.library). CUB's temporary storage is cudaMalloc'd inside each
 * entry and freed before it returns: gate 2's guard bands cover only the
 * contract's buffers, not that storage.
 *
 *   cub.reduce_sum.{f32,i32}      DeviceReduce::Sum            out[1] = sum in[0..n)
 *   cub.scan_incl.{i32,f32}       DeviceScan::InclusiveSum     out[i] = sum in[0..i]
 *   cub.scan_excl.i32             DeviceScan::ExclusiveSum     out[i] = sum in[0..i)
 *   cub.sort_pairs_desc.f32       DeviceRadixSort::SortPairsDescending, keys f32
 *                                 (logits over a vocabulary, as top-k/top-p
 *                                 sampling sorts them) with their indices as values
 *   cub.sort_keys.u32             DeviceRadixSort::SortKeys, full-range 32-bit keys
 * Shape dim d[0] n (items). Integer results are exact; the sort's output is
 * exact, ties included (CUB's radix sort is stable and treats -0.0 and +0.0 as
 * equal). Integer inputs avoid gate 2's poison: an i32 or u32 output element
 * 0xFFFFFFFF (-1) reads as "never written", so the i32 sums and scans add
 * counts in [0, 63] (offsets from per-expert or per-sequence counts; every sum
 * stays in [0, 2^31): never -1, never wrapping) and the u32 sort's keys skip
 * 0xFFFFFFFF.
 *
 * Controls (one library per control; each contract lists the ones that apply)
 * and the first case expected to catch each:
 *   num_items_minus_one  n - 1 passed to CUB. Reduce: gate 3 (the last item
 *                        missing from the sum; a case misses it when in[n-1]
 *                        is within the f32 tolerance, ~1% for uniform inputs,
 *                        or is a zero count, 1/64 for i32: the next case
 *                        catches it); scan and sort: gate 2 (the last output
 *                        never written, still poison).
 *   out_offset           reduce: gate 2 (out + 1: written past the end of out[1]).
 *   scan_in_place        scan: gate 2 (the input overwritten with its scan).
 *   end_bit_short        sort: gate 3 (end_bit 24 of 32: the top byte,
 *                        sign and most of the exponent for f32, is not sorted on).
 * Determinism: CUB documents DeviceReduce as run-to-run deterministic on one
 * device (a fixed even-share decomposition for a given n), so the f32 reduce
 * keeps gate 4 although its rounding differs from any other summation order;
 * integer scans and the sorts are exact. DeviceScan on floats is not
 * deterministic (CUB's decoupled look-back sums a tile's predecessors up to the
 * first whose inclusive prefix is already published, which depends on timing):
 * cub.scan_incl.f32 is marked nondeterministic. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kcontract.h"

static size_t one(const kc_shape *s) { (void)s; return 1; }
static double n_value(const kc_shape *s) { return (double)s->d[0]; }

/* Tiles: DeviceReduce on sm_90 takes 256 threads x 16 items (4096) per tile;
 * the scan and the onesweep radix sort tiles are a few thousand items, and a
 * sort of at most 4864 items (256 threads x 19) is one block (CUB 3's
 * single-tile policy on sm_90). The edges sit off all of them; the model
 * sizes are vocabularies and MoE counts.
 *
 * racecheck analyses every shared-memory access of every block. Each block
 * of these kernels takes a full tile or the last, partial one, and what
 * crosses tiles (a scan's and a onesweep pass's decoupled look-back, the
 * sort's digit histograms) goes through global memory; so a launch of a few
 * tiles has every block's shared-memory path that one of many tiles has.
 * edge.16385 is that launch (past the single-tile sort, a onesweep pass of
 * three tiles of 384 x 20 keys for the u32 keys, two of 384 x 23 for the
 * f32 pairs, the last partial; CUB 3's Policy900), and racecheck leaves
 * edge.65537 out: on the H200 the two sorts' racecheck took 1.4-2.2 s with
 * it, the :sanitize items' largest after attn_prefill's
 * (docs/receipts/2026-12-04-h200-final-tree, call 1, and
 * 2026-12-04-h200-mends, call 1; with the cut 1.2 and 1.6 s against 1.5 and
 * 2.0 s: that receipt, call 2). */
#define CUB_RACE_16385 "racecheck runs edge.16385 instead: several tiles, the last partial (for the sorts, past the " \
    "single-tile sort); what crosses tiles is global memory, so more tiles repeat the same blocks' shared-memory paths"
static const kc_shape shapes[] = {
    { "llama3-8b.vocab", KC_SHAPE_MODEL, { 128256 } },
    { "qwen2.5-7b.vocab", KC_SHAPE_MODEL, { 152064 } },
    { "mistral-7b.vocab", KC_SHAPE_MODEL, { 32768 } },
    { "llama3-8b.hidden.t7", KC_SHAPE_MODEL, { 7 * 4096 } },
    { "mixtral-8x7b.topk_ids.t4096", KC_SHAPE_MODEL, { 4096 * 2 } },       /* tokens x top-2 */
    { "deepseek-v3.topk_ids.t512", KC_SHAPE_MODEL, { 512 * 8 } },          /* tokens x top-8 */
    { "deepseek-v3.experts", KC_SHAPE_MODEL, { 256 } },                    /* per-expert counts */
    { "edge.1", KC_SHAPE_EDGE, { 1 } },
    { "edge.31", KC_SHAPE_EDGE, { 31 } },
    { "edge.33", KC_SHAPE_EDGE, { 33 } },
    { "edge.1023", KC_SHAPE_EDGE, { 1023 } },
    { "edge.4097", KC_SHAPE_EDGE, { 4097 } },
    { "edge.16385", KC_SHAPE_EDGE, { 16385 } },
    { "edge.65537", KC_SHAPE_EDGE, { 65537 }, CUB_RACE_16385 },
    { "large.2e25", KC_SHAPE_LARGE, { 33554467 } },                       /* 2^25 + 35 */
    { 0 }
};

/* ---- references ---- */

static void reduce_sum_ref(const kc_ref *r)
{
    double s = 0;
    for (size_t i = 0; i < r->count[1]; i++) s += kc_ref_in(r, 1, i);
    r->out[0][0] = s;
}

/* Two's complement wrap of an exact integer sum, as the device's int adds (the
 * counts keep every sum below 2^31: the wrap is for completeness). */
static double wrap_i32(int64_t s) { return (double)(int32_t)(uint32_t)(uint64_t)s; }

static void reduce_sum_i32_ref(const kc_ref *r)
{
    const int32_t *in = r->host[1];
    int64_t s = 0;
    for (size_t i = 0; i < r->count[1]; i++) s += in[i];
    r->out[0][0] = wrap_i32(s);
}

static void scan_i32_ref(const kc_ref *r, int inclusive)
{
    const int32_t *in = r->host[1];
    int64_t s = 0;
    for (size_t i = 0; i < r->count[1]; i++) {
        if (!inclusive) r->out[0][i] = wrap_i32(s);
        s += in[i];
        if (inclusive) r->out[0][i] = wrap_i32(s);
    }
}
static void scan_incl_i32_ref(const kc_ref *r) { scan_i32_ref(r, 1); }
static void scan_excl_i32_ref(const kc_ref *r) { scan_i32_ref(r, 0); }

static void scan_incl_f32_ref(const kc_ref *r)
{
    double s = 0;
    for (size_t i = 0; i < r->count[1]; i++) r->out[0][i] = s += kc_ref_in(r, 1, i);
}

/* CUB's radix order of an f32 key: -0.0 taken as +0.0, then the sign bit
 * flipped for positives and every bit for negatives (NaNs with the sign bit
 * clear sort above +inf, with it set below -inf). */
static uint32_t f32_order(uint32_t b)
{
    if (b == 0x80000000u) b = 0;
    return b & 0x80000000u ? ~b : b | 0x80000000u;
}

typedef struct { uint32_t key; uint32_t idx; } kc_sort_item;

/* A stable LSD radix sort (radix_sort_items): four counting passes over
 * 8-bit digits, each over the same slices of the items (their boundaries
 * depend on n alone) on the harness's threads: the slices count their
 * digits, then each slice scatters its items in order after those of every
 * smaller digit and, for its own digit, of every earlier slice. The result
 * is one sequential stable pass's, on any number of threads. */
#define SORT_MAX_SLICES 64
#define SORT_MIN_SLICE ((size_t)1 << 16)   /* items */

typedef struct radix_pass {
    const kc_sort_item *src;
    kc_sort_item *dst;
    size_t n, slice;      /* items; items per slice */
    int shift;            /* the digit's lowest bit */
    size_t (*at)[256];    /* per slice: its digit counts, then where its next item of each digit goes */
} radix_pass;

static unsigned radix_digit(const radix_pass *p, size_t i) { return (p->src[i].key >> p->shift) & 255u; }

static size_t radix_slice_end(const radix_pass *p, size_t s)
{
    size_t end = (s + 1) * p->slice;
    return end < p->n ? end : p->n;
}

/* Slices [begin, end): their digit counts (kc_parallel_for body). */
static void radix_count(void *ctx, size_t begin, size_t end)
{
    radix_pass *p = ctx;
    for (size_t s = begin; s < end; s++) {
        memset(p->at[s], 0, sizeof p->at[s]);
        for (size_t i = s * p->slice; i < radix_slice_end(p, s); i++) p->at[s][radix_digit(p, i)]++;
    }
}

/* Slices [begin, end): their items, in order, to their places (kc_parallel_for body). */
static void radix_scatter(void *ctx, size_t begin, size_t end)
{
    radix_pass *p = ctx;
    for (size_t s = begin; s < end; s++)
        for (size_t i = s * p->slice; i < radix_slice_end(p, s); i++) p->dst[p->at[s][radix_digit(p, i)]++] = p->src[i];
}

/* Sorts v[0..n) by key, ascending and stable (equal keys keep their order in
 * v), through tmp (n items) and back into v. With v in index order this is
 * the order of (key, index), which the host's qsort with a comparator ending
 * in the index produced (at ~0.5 us an item: 16-19 s on the 2^25-item shape;
 * the radix passes take well under a second). */
static void radix_sort_items(kc_sort_item *v, kc_sort_item *tmp, size_t n)
{
    size_t slices = n / SORT_MIN_SLICE + 1;
    if (slices > SORT_MAX_SLICES) slices = SORT_MAX_SLICES;
    size_t (*at)[256] = malloc(slices * sizeof *at);
    if (!at) abort();
    for (int shift = 0; shift < 32; shift += 8) {
        radix_pass p = { v, tmp, n, (n + slices - 1) / slices, shift, at };
        kc_parallel_for(slices, 1, radix_count, &p);
        size_t sum = 0;
        for (int d = 0; d < 256; d++)
            for (size_t s = 0; s < slices; s++) {
                size_t c = at[s][d];
                at[s][d] = sum;
                sum += c;
            }
        kc_parallel_for(slices, 1, radix_scatter, &p);
        kc_sort_item *t = v;
        v = tmp;
        tmp = t;
    }
    free(at);
}

typedef struct sort_keys_job {
    const uint32_t *k;
    uint32_t (*order)(uint32_t);
    kc_sort_item *v;
} sort_keys_job;

/* Items [begin, end): key i's value order and its index (kc_parallel_for body). */
static void sort_items_from_keys(void *ctx, size_t begin, size_t end)
{
    const sort_keys_job *j = ctx;
    for (size_t i = begin; i < end; i++) j->v[i] = (kc_sort_item){ j->order(j->k[i]), (uint32_t)i };
}

/* The items of keys k[0..n) (key i of value order(k[i])) sorted stably by
 * that value, in a malloc'd array; aborts when out of memory. */
static kc_sort_item *sorted_items(const uint32_t *k, size_t n, uint32_t (*order)(uint32_t))
{
    kc_sort_item *v = malloc((n ? n : 1) * sizeof *v), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!v || !tmp) abort();
    sort_keys_job j = { k, order, v };
    kc_parallel_for(n, SORT_MIN_SLICE, sort_items_from_keys, &j);
    radix_sort_items(v, tmp, n);
    free(tmp);
    return v;
}

/* The reference's outputs from the sorted items (kc_parallel_for bodies:
 * each output element is written once, from its own item). */
typedef struct sort_out_job {
    const kc_ref *r;
    const kc_sort_item *v;
} sort_out_job;

static void pairs_out(void *ctx, size_t begin, size_t end)
{
    const sort_out_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        j->r->out[0][i] = kc_ref_in(j->r, 2, j->v[i].idx);
        j->r->out[1][i] = kc_ref_in(j->r, 3, j->v[i].idx);
    }
}

static void keys_out(void *ctx, size_t begin, size_t end)
{
    const sort_out_job *j = ctx;
    for (size_t i = begin; i < end; i++) j->r->out[0][i] = (double)j->v[i].key;
}

/* Descending f32_order as an ascending key. */
static uint32_t f32_desc(uint32_t b) { return ~f32_order(b); }
static uint32_t u32_asc(uint32_t b) { return b; }

/* args: 0 keys_out, 1 vals_out, 2 keys_in (f32), 3 vals_in (i32). Stable
 * descending by f32_order; the keys come out with their own bits (-0.0 stays
 * -0.0), the values are the input values of the sorted items. */
static void sort_pairs_desc_f32_ref(const kc_ref *r)
{
    const size_t n = r->count[2];
    kc_sort_item *v = sorted_items(r->host[2], n, f32_desc);
    sort_out_job j = { r, v };
    kc_parallel_for(n, SORT_MIN_SLICE, pairs_out, &j);     /* random gathers: 2^25 of them took most of 1.9 s on one thread */
    free(v);
}

/* args: 0 keys_out, 1 keys_in (u32). Stable ascending. */
static void sort_keys_u32_ref(const kc_ref *r)
{
    const size_t n = r->count[1];
    kc_sort_item *v = sorted_items(r->host[1], n, u32_asc);
    sort_out_job j = { r, v };
    kc_parallel_for(n, SORT_MIN_SLICE, keys_out, &j);
    free(v);
}

/* ---- generators ---- */

/* Element-wise generators run in rows of CUB_GEN_ROW elements (the last
 * one short) on the harness's threads, each row its own stream (kc_gen_rows). */
#define CUB_GEN_ROW ((size_t)4096)
static size_t gen_rows_of(const kc_gen *g) { return (g->count + CUB_GEN_ROW - 1) / CUB_GEN_ROW; }
static size_t row_end(const kc_gen *g, size_t r)
{
    return (r + 1) * CUB_GEN_ROW < g->count ? (r + 1) * CUB_GEN_ROW : g->count;
}

/* The values of a pairs sort: each item's index (as sampling sorts token ids). */
static void iota_row(kc_gen *g, size_t r)
{
    for (size_t i = r * CUB_GEN_ROW; i < row_end(g, r); i++) kc_gen_put(g, i, (double)i);
}
static void gen_iota(kc_gen *g) { kc_gen_rows(g, gen_rows_of(g), iota_row); }
/* Keys over the whole 32-bit range, so every bit matters to the order, except
 * 0xFFFFFFFF (gate 2's poison: made 0xFFFFFFFE). */
static void u32_full_row(kc_gen *g, size_t r)
{
    uint32_t *k = g->data;
    for (size_t i = r * CUB_GEN_ROW; i < row_end(g, r); i++) {
        k[i] = (uint32_t)(kc_rand_u64(g) >> 32);
        if (k[i] == 0xFFFFFFFFu) k[i] = 0xFFFFFFFEu;
    }
}
static void gen_u32_full(kc_gen *g) { kc_gen_rows(g, gen_rows_of(g), u32_full_row); }
/* Counts in [0, 63]: 63 x (2^25 + 35) < 2^31, so no sum or prefix is negative
 * or wraps (none is 0xFFFFFFFF, the poison). */
static void counts_row(kc_gen *g, size_t r)
{
    for (size_t i = r * CUB_GEN_ROW; i < row_end(g, r); i++) kc_gen_put(g, i, (double)kc_rand_int(g, 0, 63));
}
static void gen_counts(kc_gen *g) { kc_gen_rows(g, gen_rows_of(g), counts_row); }

/* ---- contracts ---- */

/* f32 sums against float64: CUB adds ~16 items per thread in sequence, then
 * warp, block and grid trees; each addition rounds by up to 2^-24 of a partial
 * sum ~sqrt(count) x sigma. The rounding errors are independent: their total
 * is ~2^-24 x sigma x sqrt(n x levels) ~ 3e-3 at n = 2^25 (sigma 1, ~30
 * levels), well inside atol 2e-2; rtol 1e-5 covers sums far from zero. */
#define CUB_SUM_TOL ((kc_tol){ 1e-5, 2e-2, "f32 sums in CUB's order vs float64: independent roundings of partial sums ~sqrt(count), total ~2^-24 x sqrt(n x ~30 levels) ~ 3e-3 at n = 2^25" })

#define CUB_N_ARG KC_SCALAR("n", KC_I32, n_value)

/* The integer contracts' device references (cub_ref.cu): one block of 1024
 * threads; sums modulo 2^32 are exact in any order: bitwise. The f32 sum
 * and scan keep their host references (one sequential chain of float64 adds,
 * which no GPU thread runs faster), and so do the sorts (a radix sort on the
 * host: radix_sort_items). */
static void cub_ref_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = 1; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 1024; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}
#define CUB_REF(sym_) { .module = "cub_ref", .symbol = sym_, .launch = cub_ref_launch }

KC_CONTRACT(cub_reduce_sum_f32) {
    .name = "cub.reduce_sum.f32", .library = "kc_cub", .entry = "kc_cub_reduce_sum_f32",
    .dims = { "n" },
    .args = { KC_BUFFER("out", KC_F32, KC_OUT, one), KC_BUFFER("in", KC_F32, KC_IN, kc_count_d0), CUB_N_ARG },
    .shapes = shapes, .reference = reduce_sum_ref, .tol = CUB_SUM_TOL,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .controls = {
        { "num_items_minus_one", 3, "num_items - 1 passed: the last item missing from the sum" },
        { "out_offset", 2, "the output pointer off by one (a segmented offset applied to a single output): written past the end" },
    },
};

KC_CONTRACT(cub_reduce_sum_i32) {
    .name = "cub.reduce_sum.i32", .library = "kc_cub", .entry = "kc_cub_reduce_sum_i32",
    .dims = { "n" },
    .args = { KC_BUFFER("out", KC_I32, KC_OUT, one), KC_BUFFER_GEN("in", KC_I32, KC_IN, kc_count_d0, gen_counts), CUB_N_ARG },
    .shapes = shapes, .reference = reduce_sum_i32_ref, .device_reference = CUB_REF("cub_reduce_sum_i32_ref"),
    .controls = {
        { "num_items_minus_one", 3, "num_items - 1 passed: the last item missing from the sum" },
        { "out_offset", 2, "the output pointer off by one (a segmented offset applied to a single output): written past the end" },
    },
};

#define CUB_SCAN_CONTROLS \
    { "num_items_minus_one", 2, "num_items - 1 passed: the last output never written" }, \
    { "scan_in_place", 2, "the scan run in place over its input: the input overwritten, the output never written" }

KC_CONTRACT(cub_scan_incl_i32) {
    .name = "cub.scan_incl.i32", .library = "kc_cub", .entry = "kc_cub_scan_incl_i32",
    .dims = { "n" },
    .args = { KC_BUFFER("out", KC_I32, KC_OUT, kc_count_d0), KC_BUFFER_GEN("in", KC_I32, KC_IN, kc_count_d0, gen_counts), CUB_N_ARG },
    .shapes = shapes, .reference = scan_incl_i32_ref, .device_reference = CUB_REF("cub_scan_incl_i32_ref"),
    .controls = { CUB_SCAN_CONTROLS },
};

KC_CONTRACT(cub_scan_excl_i32) {
    .name = "cub.scan_excl.i32", .library = "kc_cub", .entry = "kc_cub_scan_excl_i32",
    .dims = { "n" },
    .args = { KC_BUFFER("out", KC_I32, KC_OUT, kc_count_d0), KC_BUFFER_GEN("in", KC_I32, KC_IN, kc_count_d0, gen_counts), CUB_N_ARG },
    .shapes = shapes, .reference = scan_excl_i32_ref, .device_reference = CUB_REF("cub_scan_excl_i32_ref"),
    .controls = { CUB_SCAN_CONTROLS },
};

KC_CONTRACT(cub_scan_incl_f32) {
    .name = "cub.scan_incl.f32", .library = "kc_cub", .entry = "kc_cub_scan_incl_f32",
    .dims = { "n" },
    .args = { KC_BUFFER("out", KC_F32, KC_OUT, kc_count_d0), KC_BUFFER("in", KC_F32, KC_IN, kc_count_d0), CUB_N_ARG },
    .shapes = shapes, .reference = scan_incl_f32_ref, .tol = CUB_SUM_TOL,
    .dists = { KC_UNIFORM, KC_NORMAL, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .nondeterministic = "CUB's DeviceScan is not run-to-run deterministic for floats: the decoupled look-back sums a tile's predecessors up to the first with a published inclusive prefix, which depends on timing",
    .controls = { CUB_SCAN_CONTROLS },
};

KC_CONTRACT(cub_sort_pairs_desc_f32) {
    .name = "cub.sort_pairs_desc.f32", .library = "kc_cub", .entry = "kc_cub_sort_pairs_desc_f32",
    .dims = { "n" },
    .args = {
        KC_BUFFER("keys_out", KC_F32, KC_OUT, kc_count_d0),
        KC_BUFFER("vals_out", KC_I32, KC_OUT, kc_count_d0),
        KC_BUFFER("keys_in", KC_F32, KC_IN, kc_count_d0),
        KC_BUFFER_GEN("vals_in", KC_I32, KC_IN, kc_count_d0, gen_iota),
        CUB_N_ARG,
    },
    .shapes = shapes, .reference = sort_pairs_desc_f32_ref,
    /* zeros_mixed: half the keys +-0, ties whose order is the stability test;
     * specials: +-inf and NaNs at both ends. */
    .dists = { KC_NORMAL, KC_ZEROS_MIXED, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL },
    .controls = {
        { "num_items_minus_one", 2, "num_items - 1 passed: the last key and value never written" },
        { "end_bit_short", 3, "end_bit 24 for 32-bit keys: the top byte (sign, exponent) left out of the sort" },
    },
};

KC_CONTRACT(cub_sort_keys_u32) {
    .name = "cub.sort_keys.u32", .library = "kc_cub", .entry = "kc_cub_sort_keys_u32",
    .dims = { "n" },
    .args = {
        KC_BUFFER("keys_out", KC_U32, KC_OUT, kc_count_d0),
        KC_BUFFER_GEN("keys_in", KC_U32, KC_IN, kc_count_d0, gen_u32_full),
        CUB_N_ARG,
    },
    .shapes = shapes, .reference = sort_keys_u32_ref,
    .controls = {
        { "num_items_minus_one", 2, "num_items - 1 passed: the last key never written" },
        { "end_bit_short", 3, "end_bit 24 for 32-bit keys: the top byte left out of the sort" },
    },
};
