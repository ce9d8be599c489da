// sampling_ref.cu — the float64 device references of
// kernels/sampling/sampling_contract.c, one kernel per host reference, each
// for every logit dtype (read through kc_dref_in):
//
//   sampling_argmax_ref  sampling.argmax.{f32,f16,bf16}  (argmax_rows)
//     The host's loop: a NaN anywhere gives -1; else the first strictly
//     larger entry wins (ties to the lowest index, -inf never, -0 == +0).
//     The warp's lanes read the row together and combine their first
//     maxima (kc_rowfold_first_max, kcontract_rowfold.h): the same entry.
//
//   sampling_topk_ref    sampling.topk.{f32,f16,bf16}    (topk_rows)
//     The host sorts the row by (value descending, index ascending) and takes
//     the first k. The order is total, so its q-th entry is the best entry
//     strictly after entry q-1: one block per row finds it in k rounds of a
//     block-wide arg-best (larger value, then lower index) over the entries
//     after the previous pick. -inf entries are never picked: where the host's
//     q-th entry is -inf or past the row, the output is -1 / -inf, as the
//     host's. A NaN row gives -1 / NaN everywhere.
//
// Both compare and copy logits, no arithmetic: bitwise equal.
//
//   sampling_topp_ref    sampling.topp.{f32,f16,bf16}    (topp_rows)
//     In its own section below, with its agreement.
#include <math.h>
#include "kcontract_device.cuh"
#include "kcontract_rowfold.h"

enum { AM_OUT = 0, AM_LOGITS = 1 };
enum { TK_IDS = 0, TK_VALS = 1, TK_LOGITS = 2 };

extern "C" __global__ void sampling_argmax_ref(kc_dref r)
{
    const long long vocab = r.shape.d[1];
    const kc_rowgroup g = kc_rowgroup_of(r.shape.d[0]);
    if (!g.rows) return;
    auto x = [&](long long row, long long j) { return kc_dref_in(r, AM_LOGITS, (size_t)(row * vocab + j)); };
    const kc_rowmax m = kc_rowfold_first_max(g, vocab, x);
    if (g.lane < g.rows) r.out[AM_OUT][g.row0 + g.lane] = m.nan ? -1.0 : (double)m.col;
}

// An entry of a row: its value and index (i < 0: none).
struct smp_pick {
    double v;
    long long i;
};

// Whether b comes before a in the host's order (larger value, then lower
// index); "none" (value -inf, index -1) comes after every entry.
static __device__ __forceinline__ bool smp_before(const smp_pick &b, const smp_pick &a)
{
    return b.v > a.v || (b.i >= 0 && b.v == a.v && (a.i < 0 || b.i < a.i));
}

// The block's first pick in the host's order (every thread gets it). Block
// size a multiple of 32, at most 1024.
static __device__ smp_pick smp_block_best(smp_pick p)
{
    __shared__ smp_pick warp_best[32];
    __shared__ smp_pick best;
    for (int off = 16; off > 0; off >>= 1) {
        smp_pick o = { __shfl_down_sync(0xffffffffu, p.v, off), __shfl_down_sync(0xffffffffu, p.i, off) };
        if (smp_before(o, p)) p = o;
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    if (lane == 0) warp_best[warp] = p;
    __syncthreads();
    if (warp == 0) {
        p = lane < nwarps ? warp_best[lane] : smp_pick{ -INFINITY, -1 };
        for (int off = 16; off > 0; off >>= 1) {
            smp_pick o = { __shfl_down_sync(0xffffffffu, p.v, off), __shfl_down_sync(0xffffffffu, p.i, off) };
            if (smp_before(o, p)) p = o;
        }
        if (lane == 0) best = p;
    }
    __syncthreads();
    p = best;
    __syncthreads();   // best is rewritten by the next call
    return p;
}

// One block per row (sampling_contract.c: smp_ref_block_launch).
extern "C" __global__ void sampling_topk_ref(kc_dref r)
{
    const long long row = blockIdx.x, vocab = r.shape.d[1], k = r.shape.d[2];
    double *ids = r.out[TK_IDS] + row * k, *vals = r.out[TK_VALS] + row * k;
    auto x = [&](long long j) { return kc_dref_in(r, TK_LOGITS, (size_t)(row * vocab + j)); };
    int nan = 0;
    for (long long j = threadIdx.x; j < vocab; j += blockDim.x) nan |= isnan(x(j));
    if (__syncthreads_or(nan)) {
        for (long long q = threadIdx.x; q < k; q += blockDim.x) { ids[q] = -1.0; vals[q] = (double)NAN; }
        return;
    }
    smp_pick prev = { INFINITY, -1 };   // no pick yet: every entry comes after it
    long long q = 0;
    for (; q < k; q++) {
        smp_pick p = { -INFINITY, -1 };
        for (long long j = threadIdx.x; j < vocab; j += blockDim.x) {
            const double v = x(j);
            const bool after = prev.i < 0 || v < prev.v || (v == prev.v && j > prev.i);
            if (after && v > p.v) { p.v = v; p.i = j; }   // a thread's j grow: the first of equals stays
        }
        p = smp_block_best(p);
        if (p.i < 0) break;                            // only -inf (or nothing) left
        if (threadIdx.x == 0) { ids[q] = (double)p.i; vals[q] = p.v; }
        prev = p;
    }
    for (long long t = q + threadIdx.x; t < k; t += blockDim.x) { ids[t] = -1.0; vals[t] = -INFINITY; }
}

// ---- top-p ---------------------------------------------------------------
//
//   sampling_topp_ref    sampling.topp.{f32,f16,bf16}    (topp_rows)
//     One block of TP_THREADS per row. The host sorts the row and sums
//     weights w = exp(v - m) (or, when the max m is +inf, 1 for each +inf)
//     in sorted order: z over the whole row, then cum over a prefix until
//     cum >= p * z. Equal values give equal weights, so the sums need only
//     the sorted sequence of values: the block radix-sorts the row's 32-bit
//     value keys (tp_key; f32, f16 and bf16 logits are all exact floats)
//     in place of its output row (vocab doubles: two key arrays), then one
//     thread adds the weights in that order, the whole block computing them
//     TP_CHUNK at a time. Which entries the prefix keeps: every value before
//     the last kept one, and of the entries equal to it the lowest-indexed
//     need = len - (entries before it); the output row is then written in
//     index order.
//
// Agreement: bitwise, but for the exps. The outputs are discrete (len, and
// logits copied or -inf), so a bound cannot help: CUDA's exp and glibc's
// differ by <= 1 ulp, which moves z and cum by a few ulps (~1e-15 relative;
// kernels/softmax/softmax_ref.cu simulates the same sum), and len differs
// only if p * z falls that close to a prefix sum: a window of ~1e-15 x cum
// against the step there, one weight, ~3e-6 x cum for N(0,1) or U(-1,1)
// logits over 152064 entries at p = 0.9: a probability ~1e-9 per row (~1e-6
// over all the top-p rows of a run). Exact cases stay exact: weights of ties
// at the max are exp(0) = 1 on both sides, and the +inf case adds integers.

#define TP_THREADS 1024
#define TP_CHUNK 2048   // weights staged per sequential step

// The radix key of a logit, ascending in the host's order (descending
// value); -0 and +0 share one key. v must be exactly a float.
static __device__ __forceinline__ uint32_t tp_key(double v)
{
    uint32_t b = __float_as_uint((float)v);
    if (v == 0) b = 0;
    const uint32_t ascending = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return ~ascending;
}

// The value of a key (zeros come back +0).
static __device__ __forceinline__ double tp_value(uint32_t key)
{
    const uint32_t ascending = ~key;
    return (double)__uint_as_float((ascending & 0x80000000u) ? (ascending & 0x7fffffffu) : ~ascending);
}

struct tp_sort_smem {
    unsigned hist[256];        // digit counts of the pass, then of the current tile
    unsigned base[256];        // where the next entry of each digit goes
    unsigned cnt[32][256];     // per warp of the tile: its digit counts, then their exclusive prefix over warps
};

// One stable counting-sort pass of n keys on bits [shift, shift + 8), src to
// dst, by the whole block (TP_THREADS threads): tiles of TP_THREADS keys in
// index order, each key placed after the equal digits of earlier tiles,
// earlier warps and lower lanes.
static __device__ void tp_radix_pass(const uint32_t *src, uint32_t *dst, long long n, int shift, tp_sort_smem &s)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid / 32;
    for (int d = tid; d < 256; d += blockDim.x) s.hist[d] = 0;
    __syncthreads();
    for (long long j = tid; j < n; j += blockDim.x) atomicAdd(&s.hist[(src[j] >> shift) & 255u], 1u);
    __syncthreads();
    if (tid == 0)
        for (unsigned d = 0, at = 0; d < 256; d++) { s.base[d] = at; at += s.hist[d]; }
    __syncthreads();
    for (long long t0 = 0; t0 < n; t0 += blockDim.x) {
        for (int e = tid; e < 32 * 256; e += blockDim.x) (&s.cnt[0][0])[e] = 0;
        __syncthreads();
        const long long j = t0 + tid;
        const bool valid = j < n;
        const uint32_t key = valid ? src[j] : 0u, d = (key >> shift) & 255u;
        const unsigned peers = __match_any_sync(0xffffffffu, valid ? d : 256u + lane);
        const unsigned rank = __popc(peers & ((1u << lane) - 1u));
        if (valid && rank == 0) s.cnt[warp][d] = __popc(peers);
        __syncthreads();
        if (tid < 256) {
            unsigned at = 0;
            for (int w = 0; w < 32; w++) { const unsigned c = s.cnt[w][tid]; s.cnt[w][tid] = at; at += c; }
            s.hist[tid] = at;
        }
        __syncthreads();
        if (valid) dst[s.base[d] + s.cnt[warp][d] + rank] = key;
        __syncthreads();
        if (tid < 256) s.base[tid] += s.hist[tid];
        __syncthreads();
    }
}

// Thread 0 calls step(term(q)) for q = 0, 1, ... < n in order until step
// returns true; the block computes the terms, TP_CHUNK at a time, into buf.
template <class Term, class Step>
static __device__ void tp_fold(long long n, Term term, Step step, double *buf)
{
    __shared__ int done;
    if (threadIdx.x == 0) done = 0;
    for (long long c0 = 0; c0 < n; c0 += TP_CHUNK) {
        const int w = n - c0 < TP_CHUNK ? (int)(n - c0) : TP_CHUNK;
        for (int e = threadIdx.x; e < w; e += blockDim.x) buf[e] = term(c0 + e);
        __syncthreads();
        if (threadIdx.x == 0)
            for (int e = 0; e < w && !done; e++) done = step(buf[e]);
        __syncthreads();
        if (done) break;
    }
    __syncthreads();   // every thread has read done before the next fold resets it
}

// The block's largest value (no NaN; the sign of a zero maximum is either).
static __device__ double tp_block_max(double v)
{
    __shared__ double warp_max[32];
    __shared__ double res;
    for (int off = 16; off > 0; off >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, off));
    if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_max[threadIdx.x] : -INFINITY;
        for (int off = 16; off > 0; off >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, off));
        if (threadIdx.x == 0) res = v;
    }
    __syncthreads();
    v = res;
    __syncthreads();
    return v;
}

// The number of threads before this one (in thread order) whose flag is set;
// *total the block's count. Called by the whole block.
static __device__ unsigned tp_block_rank(bool flag, unsigned *total)
{
    __shared__ unsigned warp_cnt[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    const unsigned ballot = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_cnt[warp] = __popc(ballot);
    __syncthreads();
    unsigned before = __popc(ballot & ((1u << lane) - 1u)), all = 0;
    for (int w = 0; w < nwarps; w++) {
        if (w < warp) before += warp_cnt[w];
        all += warp_cnt[w];
    }
    __syncthreads();
    *total = all;
    return before;
}

enum { TP_LEN = 0, TP_OUT = 1, TP_LOGITS = 2, TP_P = 5 };

// One block of TP_THREADS per row (sampling_contract.c: smp_ref_topp_launch).
extern "C" __global__ void __launch_bounds__(TP_THREADS) sampling_topp_ref(kc_dref r)
{
    __shared__ union {
        tp_sort_smem sort;
        double terms[TP_CHUNK];
    } sm;
    __shared__ long long sh_len, sh_need;
    __shared__ uint32_t sh_last;
    const long long row = blockIdx.x, vocab = r.shape.d[1];
    double *y = r.out[TP_OUT] + row * vocab;
    auto x = [&](long long j) { return kc_dref_in(r, TP_LOGITS, (size_t)(row * vocab + j)); };

    int nan = 0;
    double m = -INFINITY;
    for (long long j = threadIdx.x; j < vocab; j += blockDim.x) {
        const double v = x(j);
        nan |= isnan(v);
        if (v > m) m = v;
    }
    nan = __syncthreads_or(nan);
    m = tp_block_max(m);
    if (nan || m == -INFINITY) {
        for (long long j = threadIdx.x; j < vocab; j += blockDim.x) y[j] = nan ? (double)NAN : x(j);
        if (threadIdx.x == 0) r.out[TP_LEN][row] = -1.0;
        return;
    }

    // The row's keys in sorted order, in the output row (its two halves).
    uint32_t *a = (uint32_t *)y, *b = a + vocab;
    for (long long j = threadIdx.x; j < vocab; j += blockDim.x) a[j] = tp_key(x(j));
    __syncthreads();
    tp_radix_pass(a, b, vocab, 0, sm.sort);
    tp_radix_pass(b, a, vocab, 8, sm.sort);
    tp_radix_pass(a, b, vocab, 16, sm.sort);
    tp_radix_pass(b, a, vocab, 24, sm.sort);

    auto weight = [&](long long q) {
        const double v = tp_value(a[q]);
        return m == INFINITY ? (double)(v == INFINITY) : exp(v - m);
    };
    double z = 0;
    tp_fold(vocab, weight, [&](double w) { z += w; return false; }, sm.terms);
    const double target = r.scalar[TP_P] / 1000.0 * z;   // thread 0's z: the only one used
    double cum = 0;
    long long len = 0;
    tp_fold(vocab, weight, [&](double w) { cum += w; len++; return cum >= target; }, sm.terms);
    if (threadIdx.x == 0) {
        const uint32_t last = a[len - 1];
        long long lo = 0, hi = len - 1;   // the first position holding `last`: keys ascend
        while (lo < hi) {
            const long long mid = lo + (hi - lo) / 2;
            if (a[mid] < last) lo = mid + 1;
            else hi = mid;
        }
        sh_last = last;
        sh_need = len - lo;
        sh_len = len;
    }
    __syncthreads();
    const uint32_t last = sh_last;
    const long long need = sh_need;
    unsigned long long equal_before = 0;   // entries equal to the last kept value, in earlier tiles
    for (long long t0 = 0; t0 < vocab; t0 += blockDim.x) {
        const long long j = t0 + threadIdx.x;
        const double v = j < vocab ? x(j) : 0.0;
        const uint32_t key = tp_key(v);
        const bool equal = j < vocab && key == last;
        unsigned tile_equal;
        const long long rank = (long long)(equal_before + tp_block_rank(equal, &tile_equal));
        if (j < vocab) y[j] = key < last || (equal && rank < need) ? v : -INFINITY;
        equal_before += tile_equal;
    }
    if (threadIdx.x == 0) r.out[TP_LEN][row] = (double)sh_len;
}
