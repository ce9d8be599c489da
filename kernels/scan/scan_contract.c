/* scan_contract.c — contracts for kernels/scan/scan.cu: prefix sums
 * over the rows of [rows, n], one block per row (256 threads x 8 items = 2048
 * elements a chunk, a carry between chunks).
 *
 * scan.incl.<t>: out[r][j] = sum_{i <= j} in[r][i]              out [rows, n]
 * scan.excl.<t>: out[r][j] = sum_{i <  j} in[r][i], j = 0..n    out [rows, n + 1]
 *   (CSR offsets from counts: out[r][0] = 0 and out[r][n] = the row total).
 * i32 wraps modulo 2^32 (the kernel adds in unsigned; the shapes keep every
 * sum of the built-in [-1000, 1000] integers below 2^31 anyway: n <= 1048576).
 * Shape: d[0] rows, d[1] n. */
#include <stdint.h>
#include "kcontract.h"
#include "kcontract_rowfold.h"

enum { SC_OUT = 0, SC_IN = 1, SC_ROWS = 2, SC_N = 3 };

static size_t sc_incl_count(const kc_shape *s) { return (size_t)s->d[0] * (size_t)s->d[1]; }
static size_t sc_excl_count(const kc_shape *s) { return (size_t)s->d[0] * (size_t)(s->d[1] + 1); }
static double sc_rows(const kc_shape *s) { return (double)s->d[0]; }
static double sc_n(const kc_shape *s) { return (double)s->d[1]; }

static void scan_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)s->d[0]; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 256; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* float64 (f32 inputs) or exact int64 wrapped to int32 (i32 inputs) running sums. */
static void scan_reference_impl(const kc_ref *r, int excl)
{
    const int64_t rows = r->shape->d[0], n = r->shape->d[1];
    const int is_int = r->dtype[SC_IN] == KC_I32;
    const int64_t ostride = excl ? n + 1 : n;
    for (int64_t row = 0; row < rows; row++) {
        double acc = 0;
        uint32_t iacc = 0;
        double *y = r->out[SC_OUT] + row * ostride;
        for (int64_t j = 0; j < n; j++) {
            const double x = kc_ref_in(r, SC_IN, (size_t)(row * n + j));
            if (excl) y[j] = is_int ? (double)(int32_t)iacc : acc;
            if (is_int) iacc += (uint32_t)(int32_t)x;
            else acc += x;
            if (!excl) y[j] = is_int ? (double)(int32_t)iacc : acc;
        }
        if (excl) y[n] = is_int ? (double)(int32_t)iacc : acc;
    }
}
static void scan_incl_reference(const kc_ref *r) { scan_reference_impl(r, 0); }
static void scan_excl_reference(const kc_ref *r) { scan_reference_impl(r, 1); }

/* The device references (scan_ref.cu: scan_incl_ref, scan_excl_ref): the
 * same running sums, one lane walking each row in the host's order: bitwise. */
static void scan_ref_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    kc_rowfold_launch(s->d[0], dev, l);
}

/* Multiples of the 2048-element chunk (4096, 2048, 32768) are where the row
 * total of the exclusive scan has no "next thread" to write it. */
static const kc_shape scan_shapes[] = {
    { "mixtral-8x7b.expert_offsets", KC_SHAPE_MODEL, { 1, 8 } },          /* counts of 8 experts -> offsets */
    { "batch256.cu_seqlens", KC_SHAPE_MODEL, { 1, 256 } },                /* sequence lengths -> cu_seqlens */
    { "llama3-8b.vocab.cumsum.t8", KC_SHAPE_MODEL, { 8, 128256 } },       /* top-p cumulative sums */
    { "qwen2.5-7b.vocab.cumsum.t4", KC_SHAPE_MODEL, { 4, 152064 } },
    { "llama3-8b.hidden.t16", KC_SHAPE_MODEL, { 16, 4096 } },             /* 2 chunks exactly */
    { "edge.r1.n1", KC_SHAPE_EDGE, { 1, 1 } },
    { "edge.r7.n31", KC_SHAPE_EDGE, { 7, 31 } },
    { "edge.r3.n33", KC_SHAPE_EDGE, { 3, 33 } },
    { "edge.r5.n1023", KC_SHAPE_EDGE, { 5, 1023 } },
    { "edge.r5.n2048", KC_SHAPE_EDGE, { 5, 2048 } },                      /* one chunk exactly */
    { "edge.r2.n2049", KC_SHAPE_EDGE, { 2, 2049 } },
    { "edge.r3.n65535", KC_SHAPE_EDGE, { 3, 65535 } },
    { "large.r4096.n32768", KC_SHAPE_LARGE, { 4096, 32768 } },
    { 0 }
};

/* f32: each output is carry + (thread prefix + item prefix): up to 8
 * sequential item adds, a 5-level shuffle scan, 8 warp totals, and one carry
 * add per 2048-element chunk (75 at n = 152064). N(0,1) rows reach |sum| ~1200
 * (ulp 1.2e-4), so the carry's rounding errors random-walk: a host emulation
 * of this exact f32 operation order gives a maximum error of 2.1e-4 (normal,
 * 152064) and 8e-5 on the large shape; the worst case (~100 roundings of
 * 0.5 ulp) is ~6e-3. atol 2e-3, ~10x the emulated maximum (rtol 0: the error
 * follows the partial sums' magnitude, not the output's, which crosses 0).
 * The controls' errors are >= |x| ~ 0.5 (off by one) or NaN. */
#define SCAN_TOL_F32 ((kc_tol){ 0.0, 2e-3, "f32 running sums over up to 152064 N(0,1) values (|sum| up to ~1200, ulp 1.2e-4) with one carry add per 2048-element chunk: host emulation of the kernel's operation order gives max error 2.1e-4; atol 2e-3" })
#define SCAN_TOL_I32 ((kc_tol){ 0, 0, 0 })
#define SCAN_BUDGET { .max_regs = 48, .max_smem = 64, .max_local = 0, .min_blocks_per_sm = 4 }

#define SCAN_BARRIER_CONTROL { "missing_phase_barrier", 3, "missing __syncthreads between warps publishing their totals to shared memory and every warp reading them (poisoned 0xFF or the previous chunk's totals; a race: gate 4 if it varies between launches)" }
#define SCAN_RACE_CONTROL { "smem_reuse_race", KC_GATE_SANITIZE, "shared scratch reused without a barrier: the next chunk rewrites the warp totals while other warps may still read them, a write-after-read race on wsum that changes no result in practice; only racecheck sees it (rows of n > 2048: edge.r2.n2049, edge.r3.n65535)" }
#define SCAN_TAIL_CONTROL { "tail_unguarded", 2, "the last, partial chunk of a row is stored whole: the last row writes past the end of out (n = 31, 33, 1023, 2049, 65535, 128256, 152064)" }

/* The boundary distributions: f32 runs zeros and denormals and says why
 * not constant rows; i32 skips its extremes, whose prefix sums overflow int32 (outside the
 * kernel's domain). nb_ names the set: SCAN_FLOAT_BOUNDARY or SCAN_INT_BOUNDARY. */
#define SCAN_FLOAT_BOUNDARY KC_ZEROS, KC_DENORMAL
#define SCAN_INT_BOUNDARY KC_DIST_END
#define SCAN_NO_BOUNDARY_SCAN_FLOAT_BOUNDARY { { KC_CONSTANT, "running sums of one constant grow linearly, so every carry add rounds the same way: the error grows with n (0.1 at |sum| ~ 1e5 on an H200, run 3 of docs/receipts/2026-12-01-h200-device-pipeline.md) instead of random-walking, over the atol 2e-3 set for random data" } }
#define SCAN_NO_BOUNDARY_SCAN_INT_BOUNDARY { { KC_INT_EXTREMES, "prefix sums of int32 extremes (MIN, MAX, 2^24+1) overflow int32 after two elements: the kernel's domain is sums that fit, which the uniform [-1000, 1000] inputs span with 152064-element rows (|sum| < 2^28)" } }
#define SCAN_CONTRACT(id_, name_, sym_, dt_, count_, ref_, dref_, tol_, nb_, ...) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "scan", .symbol = sym_, \
    .dims = { "rows", "n" }, \
    .args = { \
        KC_BUFFER("out", dt_, KC_OUT, count_), \
        KC_BUFFER("in", dt_, KC_IN, kc_count_d0d1), \
        KC_SCALAR("rows", KC_I32, sc_rows), \
        KC_SCALAR("n", KC_I32, sc_n), \
    }, \
    .launch = scan_launch, .shapes = scan_shapes, \
    .dists = { KC_UNIFORM, KC_NORMAL, nb_ }, \
    .reference = ref_, .tol = tol_, .budget = SCAN_BUDGET, .no_boundary = SCAN_NO_BOUNDARY_##nb_, \
    .device_reference = { .module = "scan_ref", .symbol = dref_, .launch = scan_ref_launch }, \
    .controls = { __VA_ARGS__ }, \
}

#define SCAN_INCL_CONTROLS SCAN_BARRIER_CONTROL, SCAN_TAIL_CONTROL, SCAN_RACE_CONTROL, \
    { "carry_dropped", 3, "the running carry between chunks is dropped: every 2048-element chunk after the first restarts from 0 (n >= 2049)" }
#define SCAN_EXCL_CONTROLS SCAN_BARRIER_CONTROL, SCAN_TAIL_CONTROL, SCAN_RACE_CONTROL, \
    { "last_offset_unwritten", 2, "the row total out[n] is written by the thread holding index n, which does not exist when n is a multiple of the 2048-element chunk (n = 2048, 4096, 32768): out[n] stays poison" }, \
    { "exclusive_off_by_one", 3, "the exclusive scan stores the running sum after adding the element: out[j] includes in[j]" }

SCAN_CONTRACT(scan_incl_i32, "scan.incl.i32", "scan_incl_i32", KC_I32, sc_incl_count, scan_incl_reference, "scan_incl_ref", SCAN_TOL_I32, SCAN_INT_BOUNDARY, SCAN_INCL_CONTROLS);
SCAN_CONTRACT(scan_excl_i32, "scan.excl.i32", "scan_excl_i32", KC_I32, sc_excl_count, scan_excl_reference, "scan_excl_ref", SCAN_TOL_I32, SCAN_INT_BOUNDARY, SCAN_EXCL_CONTROLS);
SCAN_CONTRACT(scan_incl_f32, "scan.incl.f32", "scan_incl_f32", KC_F32, sc_incl_count, scan_incl_reference, "scan_incl_ref", SCAN_TOL_F32, SCAN_FLOAT_BOUNDARY, SCAN_INCL_CONTROLS);
SCAN_CONTRACT(scan_excl_f32, "scan.excl.f32", "scan_excl_f32", KC_F32, sc_excl_count, scan_excl_reference, "scan_excl_ref", SCAN_TOL_F32, SCAN_FLOAT_BOUNDARY, SCAN_EXCL_CONTROLS);
