// sampling.cu — deterministic token selection over rows of logits [rows, vocab]
// (f32 / f16 / bf16), one block of 512 threads per row.
//
// Order: a logit is "better" than another when it is larger, or equal with a
// lower vocabulary index (ties: lowest index first). -0 and +0 are equal.
// Row semantics shared by every kernel:
//   * a row containing a NaN is invalid: argmax -1, top-k ids -1 (values NaN),
//     top-p length -1 with every output logit NaN;
//   * -inf entries are masked: never selected; a row of only -inf gives
//     argmax -1, top-k ids -1 (values -inf), top-p length -1 (output = the row);
//   * +inf is an ordinary (largest) value; in top-p the +inf entries share the
//     probability mass equally (the limit of the softmax).
//
// sampling_argmax_<t>: out[r] = index of the best logit.
// sampling_topk_<t>:   ids[r][0..k) = the k best logits' indices in order, vals
//   their values (f32); slots past the row's unmasked count: -1 / -inf. Pass p
//   finds the best logit strictly after pass p-1's in the order (k passes).
// sampling_topp_<t>:   with probabilities p_i = softmax(x)_i (float64), keeps
//   the shortest prefix of the order whose mass reaches P = p_permille / 1000
//   of the total: len[r] = its length, out[r][i] = x_i if kept, else -inf
//   (vLLM's top-p masking). Found without sorting: a binary search over the
//   32-bit order keys of the logits for the prefix's last value v* (largest
//   v* with mass(x >= v*) >= P * Z), then the first j ties of v* by index
//   (a binary search over the index) with mass(x > v*) + j * p(v*) >= P * Z.
//   Masses are float64 sums in a fixed order: deterministic, and equal to the
//   float64 reference's sorted cumulative sums up to ~1e-16 relative.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math.h>
#include <stdint.h>

#define SMP_THREADS 512
#define SMP_WARPS (SMP_THREADS / 32)

__device__ __forceinline__ float ld_f(const float* p) { return *p; }
__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st_f(float* p, float v) { *p = v; }
__device__ __forceinline__ void st_f(__half* p, float v) { *p = __float2half_rn(v); }            // exact: v came from a __half
__device__ __forceinline__ void st_f(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); } // exact: v came from a bf16

// Loop over a row's elements for the reductions.
#ifdef KC_CONTROL_skip_last_block
// BUG: the bound is rounded down to a multiple of the block: the last vocab % 512 logits are never looked at
#define ROW_END(n) (((n) / (int)blockDim.x) * (int)blockDim.x)
#else
#define ROW_END(n) (n)
#endif

__device__ __forceinline__ bool better(float v1, int i1, float v2, int i2) {
    if (i2 < 0) return i1 >= 0;   // index -1: no candidate
    if (i1 < 0) return false;
    if (v1 != v2) return v1 > v2;
#ifdef KC_CONTROL_ties_highest
    return i1 > i2;               // BUG: ties broken by the highest index
#else
    return i1 < i2;
#endif
}

struct Best { float v; int i; int nan; };

// Block-wide best candidate and NaN flag; every thread gets the result.
// sv/si/sf: 33 shared slots each (32 warp partials + the broadcast).
__device__ __forceinline__ Best block_best(Best b, float* sv, int* si, int* sf) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffffu, b.v, off);
        const int oi = __shfl_xor_sync(0xffffffffu, b.i, off);
        b.nan |= __shfl_xor_sync(0xffffffffu, b.nan, off);
        if (better(ov, oi, b.v, b.i)) { b.v = ov; b.i = oi; }
    }
    if (lane == 0) { sv[warp] = b.v; si[warp] = b.i; sf[warp] = b.nan; }
    __syncthreads();
    if (warp == 0) {
#ifdef KC_CONTROL_partial_warp_slots
        // BUG: the final warp reduces all 32 slots as if 32 warps had written one (16 did; the rest is poison)
        b.v = sv[lane]; b.i = si[lane]; b.nan = sf[lane]; (void)nw;
#else
        b.v = lane < nw ? sv[lane] : -INFINITY;
        b.i = lane < nw ? si[lane] : -1;
        b.nan = lane < nw ? sf[lane] : 0;
#endif
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const float ov = __shfl_xor_sync(0xffffffffu, b.v, off);
            const int oi = __shfl_xor_sync(0xffffffffu, b.i, off);
            b.nan |= __shfl_xor_sync(0xffffffffu, b.nan, off);
            if (better(ov, oi, b.v, b.i)) { b.v = ov; b.i = oi; }
        }
        if (lane == 0) { sv[32] = b.v; si[32] = b.i; sf[32] = b.nan; }
    }
    __syncthreads();
    return Best{ sv[32], si[32], sf[32] };
}

// Block-wide sum (double or int) in a fixed order; every thread gets it. s: 33 slots.
template <class A>
__device__ __forceinline__ A block_sum(A x, A* s) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) x += __shfl_xor_sync(0xffffffffu, x, off);
    if (lane == 0) s[warp] = x;
    __syncthreads();
    if (warp == 0) {
#ifdef KC_CONTROL_partial_warp_slots
        x = s[lane]; (void)nw;
#else
        x = lane < nw ? s[lane] : A(0);
#endif
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) x += __shfl_xor_sync(0xffffffffu, x, off);
        if (lane == 0) s[32] = x;
    }
    __syncthreads();
    return s[32];
}

// Scans one element into a thread's running best (NaN flagged, -inf masked).
__device__ __forceinline__ void consider(Best& b, float v, int j) {
#ifndef KC_CONTROL_nan_ignored
    if (v != v) { b.nan = 1; return; }
#else
    // BUG: NaN is not flagged (it simply never compares larger)
#endif
    if (v > -INFINITY && better(v, j, b.v, b.i)) { b.v = v; b.i = j; }
}

template <class T>
__device__ __forceinline__ void argmax_row(int* __restrict__ out, const T* __restrict__ logits, int rows, int vocab) {
    __shared__ float sv[33];
    __shared__ int si[33], sf[33];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const T* x = logits + (size_t)row * (size_t)vocab;
    Best b{ -INFINITY, -1, 0 };
    for (int j = threadIdx.x; j < ROW_END(vocab); j += blockDim.x) consider(b, ld_f(x + j), j);
    b = block_best(b, sv, si, sf);
    if (threadIdx.x == 0) out[row] = b.nan ? -1 : b.i;
}

template <class T>
__device__ __forceinline__ void topk_row(int* __restrict__ ids, float* __restrict__ vals, const T* __restrict__ logits,
                                         int rows, int vocab, int k) {
    __shared__ float sv[33];
    __shared__ int si[33], sf[33];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const T* x = logits + (size_t)row * (size_t)vocab;
    int* id = ids + (size_t)row * (size_t)k;
    float* va = vals + (size_t)row * (size_t)k;
    float pv = 0.f;
    int pi = -1;   // the previous pass's pick; -1 before the first
    int p = 0;
    for (; p < k; p++) {
        Best b{ -INFINITY, -1, 0 };
        for (int j = threadIdx.x; j < ROW_END(vocab); j += blockDim.x) {
            const float v = ld_f(x + j);
            if (pi < 0 || v != v || better(pv, pi, v, j)) consider(b, v, j);
        }
        b = block_best(b, sv, si, sf);   // identical in every thread: the breaks below are block-uniform
        if (b.nan) {
            for (int q = threadIdx.x; q < k; q += blockDim.x) { id[q] = -1; va[q] = NAN; }
            return;
        }
        if (b.i < 0) break;
        if (threadIdx.x == 0) { id[p] = b.i; va[p] = b.v; }
        pv = b.v; pi = b.i;
    }
    for (int q = p + threadIdx.x; q < k; q += blockDim.x) { id[q] = -1; va[q] = -INFINITY; }
}

// 32-bit order key of a float: increasing with the value; -0 maps to +0's key.
__device__ __forceinline__ uint32_t okey(float f) {
    const uint32_t u = __float_as_uint(f + 0.0f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float unkey(uint32_t k) {
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

template <class T>
__device__ __forceinline__ void topp_row(int* __restrict__ len, T* __restrict__ out, const T* __restrict__ logits,
                                         int rows, int vocab, int p_permille) {
    __shared__ float sv[33];
    __shared__ int si[33], sf[33];
    __shared__ double sd[33];
    __shared__ int sc[33];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const T* x = logits + (size_t)row * (size_t)vocab;
    T* y = out + (size_t)row * (size_t)vocab;
    Best b{ -INFINITY, -1, 0 };
    for (int j = threadIdx.x; j < ROW_END(vocab); j += blockDim.x) consider(b, ld_f(x + j), j);
    b = block_best(b, sv, si, sf);
    if (b.nan || b.i < 0) {   // NaN row: NaN everywhere; all -inf row: the row itself
        for (int j = threadIdx.x; j < vocab; j += blockDim.x) st_f(y + j, b.nan ? NAN : ld_f(x + j));
        if (threadIdx.x == 0) len[row] = -1;
        return;
    }
    const float m = b.v;
    const bool pinf = m == INFINITY;
    const double md = (double)m;
#define TOPP_W(v) (pinf ? ((v) == INFINITY ? 1.0 : 0.0) : exp((double)(v) - md))
    double z = 0.0;
    for (int j = threadIdx.x; j < ROW_END(vocab); j += blockDim.x) { const float v = ld_f(x + j); z += TOPP_W(v); }
    z = block_sum<double>(z, sd);
    const double target = ((double)p_permille / 1000.0) * z;
    // Largest key tau with mass(key >= tau) >= target: mass(key >= 0) = z >= target, mass(key > okey(m)) = 0.
    uint64_t lo = 0, hi = (uint64_t)okey(m) + 1;
    while (hi - lo > 1) {
        const uint32_t mid = (uint32_t)(lo + (hi - lo) / 2);
        double s = 0.0;
        for (int j = threadIdx.x; j < ROW_END(vocab); j += blockDim.x) {
            const float v = ld_f(x + j);
            if (okey(v) >= mid) s += TOPP_W(v);
        }
        s = block_sum<double>(s, sd);
        if (s >= target) lo = mid; else hi = mid;
    }
    const uint32_t tau = (uint32_t)lo;
    const float vstar = unkey(tau);
    double mgt = 0.0;
    int cgt = 0, ceq = 0;
    for (int j = threadIdx.x; j < ROW_END(vocab); j += blockDim.x) {
        const float v = ld_f(x + j);
        const uint32_t kv = okey(v);
        if (kv > tau) { mgt += TOPP_W(v); cgt++; }
        else if (kv == tau) ceq++;
    }
    mgt = block_sum<double>(mgt, sd);
    cgt = block_sum<int>(cgt, sc);
    ceq = block_sum<int>(ceq, sc);
    // Ties of v* to keep: the smallest j >= 1 with mgt + j * p(v*) >= target (every thread computes the same).
    const double estar = TOPP_W(vstar);
    int jj = 1;
    if (estar > 0.0) {
        const double need = (target - mgt) / estar;
        jj = need <= 1.0 ? 1 : need >= (double)ceq ? ceq : (int)ceil(need);
        while (jj > 1 && mgt + (double)(jj - 1) * estar >= target) jj--;
        while (jj < ceq && mgt + (double)jj * estar < target) jj++;
    }
    if (jj < 1) jj = 1;
    if (jj > ceq) jj = ceq;
#undef TOPP_W
    // Smallest index bound B with count(key == tau, index < B) >= jj.
    int blo = 0, bhi = vocab;
    while (bhi - blo > 1) {
        const int mid = blo + (bhi - blo) / 2;
        int c = 0;
        for (int j = threadIdx.x; j < mid && j < ROW_END(vocab); j += blockDim.x) c += okey(ld_f(x + j)) == tau;
        c = block_sum<int>(c, sc);
        if (c >= jj) bhi = mid; else blo = mid;
    }
    const int bound = bhi;
    for (int j = threadIdx.x; j < vocab; j += blockDim.x) {
        const float v = ld_f(x + j);
        const uint32_t kv = okey(v);
        const bool kept = kv > tau || (kv == tau && j < bound);
        st_f(y + j, kept ? v : -INFINITY);
    }
    if (threadIdx.x == 0) len[row] = cgt + jj;
}

#define SMP_KERNELS(sfx, T) \
extern "C" __global__ void __launch_bounds__(SMP_THREADS) \
sampling_argmax_##sfx(int* __restrict__ out, const T* __restrict__ logits, int rows, int vocab) \
{ argmax_row(out, logits, rows, vocab); } \
extern "C" __global__ void __launch_bounds__(SMP_THREADS) \
sampling_topk_##sfx(int* __restrict__ ids, float* __restrict__ vals, const T* __restrict__ logits, int rows, int vocab, int k) \
{ topk_row(ids, vals, logits, rows, vocab, k); } \
extern "C" __global__ void __launch_bounds__(SMP_THREADS, 1) \
sampling_topp_##sfx(int* __restrict__ len, T* __restrict__ out, const T* __restrict__ logits, int rows, int vocab, int p_permille) \
{ topp_row(len, out, logits, rows, vocab, p_permille); }

SMP_KERNELS(f32, float)
SMP_KERNELS(f16, __half)
SMP_KERNELS(bf16, __nv_bfloat16)
