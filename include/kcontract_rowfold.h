/* kcontract_rowfold.h — for device references (kc_device_ref) whose host
 * reference walks each row of a [rows, n] matrix in index order: a sum, a sum
 * of squares, a running sum, a max or an argmax. For sums (kc_rowfold) the
 * GPU does the same walk, one element after another in the same order with
 * the same operations, so the results are the host's bit for bit
 * (kernels/<family>/<family>_ref.cu is built with -fmad=false); for a max or
 * an argmax (kc_rowfold_first_max) the order does not matter, so the warp's
 * lanes read the row together.
 *
 * A warp owns a group of R consecutive rows (1 <= R <= 32). Its 32 lanes
 * compute the elements' terms (loads, conversions, x*x, exp(x - m), ...) in
 * parallel and stage them in shared memory, a tile of R rows x C columns
 * (R*C <= KC_ROWFOLD_TILE) at a time; then lane r folds row r's C terms, in
 * column order, into its own state (its running sum, max, ...). With R = 1 (few
 * rows) lane 0 folds a whole row, 512 terms a step; with R = 32 (many rows)
 * every lane folds its own row at once. A fold's critical path is one
 * dependent operation per element, as on the host; the parallel work around
 * it (memory, conversions, libm) is spread over the warp and the grid.
 *
 * kc_rowfold_launch (host C: a contract's device_reference.launch) sizes the
 * grid to about KC_ROWFOLD_WARPS_PER_SM warps per SM; the kernel recovers R
 * from its grid (kc_rowgroup_of), so the two never need to agree on more than
 * KC_ROWFOLD_WARPS. Warps never synchronize with each other (no
 * __syncthreads): a warp without rows may return at once. */
#ifndef KCONTRACT_ROWFOLD_H
#define KCONTRACT_ROWFOLD_H
#include <stdint.h>
#include "kcontract.h"

#define KC_ROWFOLD_WARPS 4          /* warps per block */
#define KC_ROWFOLD_TILE 512         /* terms staged per warp per step */
#define KC_ROWFOLD_WARPS_PER_SM 8   /* the grid's target */
#define KC_ROWFOLD_SLOTS 4          /* per-row values a warp can publish (kc_rowfold_slots) */

/* The grid of a row-fold reference over rows [0, rows): blocks of
 * KC_ROWFOLD_WARPS warps, each warp R = rows / (KC_ROWFOLD_WARPS_PER_SM x
 * SMs) rows, clamped to [1, 32]. */
static inline void kc_rowfold_launch(int64_t rows, const kc_device *dev, kc_launch *l)
{
    int64_t want = (int64_t)KC_ROWFOLD_WARPS_PER_SM * (dev->sm_count > 0 ? dev->sm_count : 1);
    int64_t per = rows / want, warps, blocks;
    if (per < 1) per = 1;
    if (per > 32) per = 32;
    warps = (rows + per - 1) / per;
    blocks = (warps + KC_ROWFOLD_WARPS - 1) / KC_ROWFOLD_WARPS;
    l->grid[0] = (unsigned)(blocks > 0 ? blocks : 1); l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 32 * KC_ROWFOLD_WARPS; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

#ifdef __CUDACC__
/* The rows a warp owns and how it stages them. */
struct kc_rowgroup {
    long long row0;   /* its first row */
    int rows;         /* rows it owns: R, fewer at the end of the matrix, 0 past it */
    int per;          /* R: rows per warp in this grid */
    int cols;         /* C: columns staged per step, even (the tile's row stride C + 1 is odd: no bank conflicts) */
    int lane;
};

/* This warp's rows of a matrix of nrows rows, for a grid of kc_rowfold_launch. */
static __device__ __forceinline__ kc_rowgroup kc_rowgroup_of(long long nrows)
{
    kc_rowgroup g;
    const long long warps = (long long)gridDim.x * KC_ROWFOLD_WARPS;
    const long long w = (long long)blockIdx.x * KC_ROWFOLD_WARPS + threadIdx.x / 32;
    g.per = (int)((nrows + warps - 1) / warps);
    if (g.per < 1) g.per = 1;
    g.row0 = w * g.per;
    const long long left = nrows - g.row0;
    g.rows = left <= 0 ? 0 : left < g.per ? (int)left : g.per;
    g.cols = (KC_ROWFOLD_TILE / g.per) & ~1;
    g.lane = (int)(threadIdx.x & 31);
    return g;
}

/* This warp's staging tile: R rows of C + 1 doubles (R * (C + 1) <= KC_ROWFOLD_TILE + 32). */
static __device__ __forceinline__ double *kc_rowfold_tile()
{
    __shared__ double tiles[KC_ROWFOLD_WARPS][KC_ROWFOLD_TILE + 32];
    return tiles[threadIdx.x / 32];
}

/* This warp's slot array k (< KC_ROWFOLD_SLOTS): one double per row of the
 * group, for a value lane r computed for row r and every lane reads. */
static __device__ __forceinline__ double *kc_rowfold_slots(int k)
{
    __shared__ double slots[KC_ROWFOLD_WARPS][KC_ROWFOLD_SLOTS][32];
    return slots[threadIdx.x / 32][k];
}

/* Lane r < g.rows stores v (its row's value) in slots[r]; every lane of the
 * warp sees all of them afterwards. Called by all 32 lanes. */
static __device__ __forceinline__ void kc_rowfold_publish(const kc_rowgroup &g, double *slots, double v)
{
    __syncwarp();
    if (g.lane < g.rows) slots[g.lane] = v;
    __syncwarp();
}

/* An emit that does nothing (folds that only reduce). */
struct kc_rowfold_no_emit {
    __device__ void operator()(long long, long long, double) const {}
};

/* Folds columns [0, n) of the group's rows in column order. Per step of C
 * columns from c0: every lane computes term(row, col) for its share of the
 * tile (row = g.row0 + r, r < g.rows; col = c0 + c < n); then lane r calls
 * step(slot, col) for its row's staged terms in column order (slot: a double&
 * to the term, which step may overwrite, e.g. with a running sum); then every
 * lane calls emit(row, col, slot) for its share of the tile again (stores of
 * what step wrote, coalesced along the row). Called by all 32 lanes. */
template <class Term, class Step, class Emit>
static __device__ void kc_rowfold(const kc_rowgroup &g, long long n, Term term, Step step, Emit emit)
{
    double *tile = kc_rowfold_tile();
    const int C = g.cols, S = g.cols + 1, staged = g.rows * g.cols;
    // Lane l stages elements e = l, l + 32, ... < R*C of the tile, (row e / C,
    // column e % C), walked without dividing: C >= 16.
    const int r0 = g.lane / C, q0 = g.lane % C;
    for (long long c0 = 0; c0 < n; c0 += C) {
        const int w = n - c0 < C ? (int)(n - c0) : C;
        for (int e = g.lane, r = r0, c = q0; e < staged; e += 32) {
            if (c < w) tile[r * S + c] = term(g.row0 + r, c0 + c);
            for (c += 32; c >= C; c -= C) r++;
        }
        __syncwarp();
        if (g.lane < g.rows) {
            double *t = tile + g.lane * S;
#pragma unroll 8
            for (int c = 0; c < w; c++) step(t[c], c0 + c);
        }
        __syncwarp();
        for (int e = g.lane, r = r0, c = q0; e < staged; e += 32) {
            if (c < w) emit(g.row0 + r, c0 + c, tile[r * S + c]);
            for (c += 32; c >= C; c -= C) r++;
        }
        __syncwarp();
    }
}

/* A row's first largest entry so far: its value and column (col < 0: none
 * larger than -inf yet), and whether a NaN was seen. */
struct kc_rowmax {
    double v;
    long long col;
    bool nan;
};

/* Whether b's entry comes before a's as the host's in-order loop picks:
 * larger value, then the lower column (+0 == -0: a tie). */
static __device__ __forceinline__ bool kc_rowmax_before(const kc_rowmax &b, const kc_rowmax &a)
{
    return b.col >= 0 && (a.col < 0 || b.v > a.v || (b.v == a.v && b.col < a.col));
}

/* For each of the group's rows, what the host's loop over columns [0, n)
 *     if (isnan(x)) nan = 1; else if (x > m) { m = x; col = c; }   (m from -inf)
 * ends with: lane r < g.rows gets row g.row0 + r's result (col -1, v -inf for
 * a row with no entry above -inf). Bitwise the host's: comparisons of exact
 * values give the same maximum in any order, and ties go to the lowest
 * column: the host's loop ends on the lowest column whose value equals the
 * maximum (+0 == -0), so v is that column's value, its sign of zero
 * included. Unlike kc_rowfold (one lane walks a row), the warp's 32 lanes
 * read each row together, coalesced, each keeping its own first maximum,
 * then combine them with shuffles: a row of 152064 columns takes a warp ~5000 loads a lane
 * instead of one lane's 152064 dependent steps (measured in issue 23's
 * kernel-time receipt, docs/receipts/2026-12-06-kernel-time). term(row, col)
 * gives the entry as a double. Called by all 32 lanes. */
template <class Term>
static __device__ kc_rowmax kc_rowfold_first_max(const kc_rowgroup &g, long long n, Term term)
{
    kc_rowmax mine = { -INFINITY, -1, false };
    for (int r = 0; r < g.rows; r++) {
        const long long row = g.row0 + r;
        kc_rowmax b = { -INFINITY, -1, false };
        long long c = g.lane;
        for (; c + 96 < n; c += 128) {          /* four loads in flight, compared in column order */
            const double x0 = term(row, c), x1 = term(row, c + 32), x2 = term(row, c + 64), x3 = term(row, c + 96);
            const double xs[4] = { x0, x1, x2, x3 };
#pragma unroll
            for (int k = 0; k < 4; k++) {
                if (isnan(xs[k])) b.nan = true;
                else if (xs[k] > b.v) { b.v = xs[k]; b.col = c + 32 * k; }
            }
        }
        for (; c < n; c += 32) {
            const double x = term(row, c);
            if (isnan(x)) b.nan = true;
            else if (x > b.v) { b.v = x; b.col = c; }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            kc_rowmax o;
            o.v = __shfl_xor_sync(0xffffffffu, b.v, off);
            o.col = __shfl_xor_sync(0xffffffffu, b.col, off);
            o.nan = __shfl_xor_sync(0xffffffffu, (int)b.nan, off) != 0;
            const bool nan = b.nan || o.nan;
            if (kc_rowmax_before(o, b)) b = o;
            b.nan = nan;
        }
        if (g.lane == r) mine = b;
    }
    return mine;
}

/* fn(row, col) for every column [0, n) of every row of the group: element
 * by element work with no order (outputs), coalesced along each row. */
template <class Fn>
static __device__ void kc_rowgroup_each(const kc_rowgroup &g, long long n, Fn fn)
{
    for (int r = 0; r < g.rows; r++)
        for (long long c = g.lane; c < n; c += 32) fn(g.row0 + r, c);
}
#endif /* __CUDACC__ */
#endif /* KCONTRACT_ROWFOLD_H */
