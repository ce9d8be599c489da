// scan.cu — prefix sums over the rows of [rows, n]: one block per row, the row
// processed in chunks of SCAN_CHUNK = 256 threads x 8 items, a running carry
// between chunks (no inter-block communication, no atomics: deterministic).
//   scan_incl_<t>: out[r][j] = sum_{i <= j} in[r][i]           (out [rows, n])
//   scan_excl_<t>: out[r][j] = sum_{i <  j} in[r][i], j = 0..n  (out [rows, n + 1]:
//                  CSR-style offsets, out[r][n] is the row total)
// i32: two's-complement wraparound (computed in unsigned); f32: f32 adds.
// Within a chunk each thread scans its 8 consecutive items sequentially, the
// thread totals are scanned with warp shuffles and the warp totals through
// shared memory (fixed order).
#include <stdint.h>

#define SCAN_THREADS 256
#define SCAN_ITEMS 8
#define SCAN_CHUNK (SCAN_THREADS * SCAN_ITEMS)
#define SCAN_WARPS (SCAN_THREADS / 32)

// Exclusive scan of one value per thread over the block; *total gets the block total.
template <class A>
__device__ __forceinline__ A block_excl_scan(A t, A* wsum, A* total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    A incl = t;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        A n = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off) incl = n + incl;
    }
    A excl = __shfl_up_sync(0xffffffffu, incl, 1);
    if (lane == 0) excl = A(0);
    if (lane == 31) wsum[warp] = incl;
#ifndef KC_CONTROL_missing_phase_barrier
    // (the control drops this barrier: warps read the other warps' totals before they are written)
    __syncthreads();
#endif
    A wpre = A(0), tot = A(0);
#pragma unroll
    for (int w = 0; w < SCAN_WARPS; w++) {
        if (w < warp) wpre = wpre + wsum[w];
        tot = tot + wsum[w];
    }
#ifndef KC_CONTROL_smem_reuse_race
    __syncthreads();   // every warp has read wsum before the next chunk rewrites it
#else
    // plants: no barrier between reading the warp totals and the next chunk rewriting them: a write-after-read
    // race on wsum that changes no result in practice (the writer must first load and scan a whole new chunk
    // from global memory), so gates 1-4 pass it and only racecheck reports it (rows of n > 2048)
#endif
    *total = tot;
    return wpre + excl;
}

__device__ __forceinline__ unsigned ld_a(const int* p) { return (unsigned)*p; }
__device__ __forceinline__ float ld_a(const float* p) { return *p; }
__device__ __forceinline__ void st_a(int* p, unsigned v) { *p = (int)v; }
__device__ __forceinline__ void st_a(float* p, float v) { *p = v; }

template <class T, class A, bool EXCL>
__device__ __forceinline__ void scan_row(T* __restrict__ out, const T* __restrict__ in, int rows, int n) {
    __shared__ A wsum[SCAN_WARPS];
    const int row = blockIdx.x;
    if (row >= rows) return;   // block-uniform
    const T* x = in + (size_t)row * (size_t)n;
    T* y = out + (size_t)row * (size_t)(EXCL ? n + 1 : n);
    A carry = A(0);
    for (long long c0 = 0; c0 < n; c0 += SCAN_CHUNK) {
        const long long base = c0 + (long long)threadIdx.x * SCAN_ITEMS;
        A v[SCAN_ITEMS];
        A run = A(0);
#pragma unroll
        for (int it = 0; it < SCAN_ITEMS; it++) {
            const long long i = base + it;
            const A a = i < n ? ld_a(x + i) : A(0);
#ifdef KC_CONTROL_exclusive_off_by_one
            // BUG: the exclusive scan stores the running sum after adding the element (inclusive values)
            run = run + a;
            v[it] = run;
#else
            if (EXCL) { v[it] = run; run = run + a; }
            else { run = run + a; v[it] = run; }
#endif
        }
        A tot;
        const A tp = block_excl_scan<A>(run, wsum, &tot);
#pragma unroll
        for (int it = 0; it < SCAN_ITEMS; it++) {
            const long long i = base + it;
#ifdef KC_CONTROL_tail_unguarded
            // BUG: the last (partial) chunk is stored whole: writes past the row end
            st_a(y + i, carry + (tp + v[it]));
#else
            if (i < n) st_a(y + i, carry + (tp + v[it]));
#endif
#ifdef KC_CONTROL_last_offset_unwritten
            // BUG: the row total out[n] is written by "the thread after the last element",
            // which does not exist when n is a multiple of the chunk
            else if (EXCL && i == n) st_a(y + n, carry + (tp + v[it]));
#endif
        }
#ifndef KC_CONTROL_carry_dropped
        // (the control drops the carry: every chunk after the first restarts from 0)
        carry = carry + tot;
#endif
    }
#ifndef KC_CONTROL_last_offset_unwritten
    if (EXCL && threadIdx.x == 0) st_a(y + n, carry);
#endif
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
scan_incl_i32(int* __restrict__ out, const int* __restrict__ in, int rows, int n) { scan_row<int, unsigned, false>(out, in, rows, n); }
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
scan_excl_i32(int* __restrict__ out, const int* __restrict__ in, int rows, int n) { scan_row<int, unsigned, true>(out, in, rows, n); }
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
scan_incl_f32(float* __restrict__ out, const float* __restrict__ in, int rows, int n) { scan_row<float, float, false>(out, in, rows, n); }
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
scan_excl_f32(float* __restrict__ out, const float* __restrict__ in, int rows, int n) { scan_row<float, float, true>(out, in, rows, n); }
