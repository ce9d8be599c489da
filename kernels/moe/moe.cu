// moe.cu — mixture-of-experts routing.
//
// moe_topk_softmax_<t> / moe_topk_sigmoid_<t>: top-k gating over router logits
// [tokens, E] (E <= 256, k <= 8), one warp per token, 4 tokens a block.
//   softmax: p_e = exp(x_e - max) / sum_e' exp(x_e' - max)
//   sigmoid: p_e = 1 / (1 + exp(-x_e))
// The k experts with the largest logits (the order of p, both maps being
// monotone), ties to the lowest expert index, written in that order to
// topk_ids [tokens, k] (i32) with their p in topk_weights [tokens, k] (f32);
// renorm != 0 divides the k weights by their sum. Selection compares the
// logits themselves, so ties are exactly the equal logits.
//
// moe_align_block_size: vLLM's moe_align_block_size for a grouped GEMM, one
// block of 1024 threads, deterministic (no order-dependent atomics):
//   topk_ids [numel = tokens * k]: the experts chosen for each (token, slot);
//   sorted_token_ids [numel + E * (B - 1)]: for each expert in order, the flat
//     indices i with topk_ids[i] == e in ascending order, padded with the skip
//     value numel to a multiple of B; every slot after the last expert's
//     padding is numel too;
//   expert_ids [ceil((numel + E * (B - 1)) / B)]: the expert of each B-block of
//     sorted_token_ids, -1 for blocks past num_tokens_post_padded;
//   num_tokens_post_padded [1] = sum_e ceil(count_e / B) * B.
// Ids outside [0, E) are ignored (not placed).
#include <cuda_bf16.h>
#include <math.h>

#define MOE_WARPS 4
#define MOE_MAX_E 256
#define MOE_EPL (MOE_MAX_E / 32)
#define MOE_MAX_K 8

__device__ __forceinline__ float ld_f(const float* p) { return *p; }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }

// Candidate order: larger logit first, ties to the lower expert index; e < 0 is "none".
__device__ __forceinline__ bool moe_better(float v1, int e1, float v2, int e2) {
    if (e2 < 0) return e1 >= 0;
    if (e1 < 0) return false;
    if (v1 != v2) return v1 > v2;
#ifdef KC_CONTROL_ties_highest
    return e1 > e2;   // BUG: ties broken by the highest expert index
#else
    return e1 < e2;
#endif
}

template <class T, bool SIGMOID>
__device__ __forceinline__ void moe_topk(int* __restrict__ topk_ids, float* __restrict__ topk_w, const T* __restrict__ logits,
                                         int tokens, int E, int K, int renorm) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int t = blockIdx.x * MOE_WARPS + warp;
    if (t >= tokens) return;   // warp-uniform; no block barriers in this kernel
#ifdef KC_CONTROL_last_expert_dropped
    const int E_used = E - 1;  // BUG: off-by-one expert range: expert E-1 is never loaded
#else
    const int E_used = E;
#endif
    const T* row = logits + (size_t)t * (size_t)E;
    float x[MOE_EPL];
#pragma unroll
    for (int s = 0; s < MOE_EPL; s++) {
        const int e = lane + 32 * s;
        x[s] = e < E_used ? ld_f(row + e) : -INFINITY;
    }
    float m = -INFINITY, sum = 0.f;
    if (!SIGMOID) {
#pragma unroll
        for (int s = 0; s < MOE_EPL; s++) m = fmaxf(m, x[s]);
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
#pragma unroll
        for (int s = 0; s < MOE_EPL; s++) if (lane + 32 * s < E_used) sum += expf(x[s] - m);
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    }
    unsigned taken = 0;
    int ids[MOE_MAX_K];
    float w[MOE_MAX_K];
    float wsum = 0.f;
#pragma unroll
    for (int kk = 0; kk < MOE_MAX_K; kk++) {
        ids[kk] = -1; w[kk] = 0.f;
        if (kk >= K) continue;
        float bv = -INFINITY;
        int be = -1;
#pragma unroll
        for (int s = 0; s < MOE_EPL; s++) {
            const int e = lane + 32 * s;
            if (e < E_used && !((taken >> s) & 1u) && moe_better(x[s], e, bv, be)) { bv = x[s]; be = e; }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const float ov = __shfl_xor_sync(0xffffffffu, bv, off);
            const int oe = __shfl_xor_sync(0xffffffffu, be, off);
            if (moe_better(ov, oe, bv, be)) { bv = ov; be = oe; }
        }
        if (be >= 0 && (be & 31) == lane) taken |= 1u << (be >> 5);
        ids[kk] = be;
        w[kk] = be < 0 ? 0.f : SIGMOID ? 1.f / (1.f + expf(-bv)) : expf(bv - m) / sum;
        wsum += w[kk];
    }
#ifdef KC_CONTROL_missing_renorm
    renorm = 0;   // BUG: the top-k weights are never renormalized
#endif
    if (lane == 0) {
#pragma unroll
        for (int kk = 0; kk < MOE_MAX_K; kk++) {
            if (kk >= K) break;
            topk_ids[(size_t)t * K + kk] = ids[kk];
            topk_w[(size_t)t * K + kk] = renorm ? w[kk] / wsum : w[kk];
        }
    }
}

extern "C" __global__ void __launch_bounds__(MOE_WARPS * 32)
moe_topk_softmax_f32(int* __restrict__ ids, float* __restrict__ w, const float* __restrict__ logits, int tokens, int E, int K, int renorm)
{ moe_topk<float, false>(ids, w, logits, tokens, E, K, renorm); }
extern "C" __global__ void __launch_bounds__(MOE_WARPS * 32)
moe_topk_softmax_bf16(int* __restrict__ ids, float* __restrict__ w, const __nv_bfloat16* __restrict__ logits, int tokens, int E, int K, int renorm)
{ moe_topk<__nv_bfloat16, false>(ids, w, logits, tokens, E, K, renorm); }
extern "C" __global__ void __launch_bounds__(MOE_WARPS * 32)
moe_topk_sigmoid_f32(int* __restrict__ ids, float* __restrict__ w, const float* __restrict__ logits, int tokens, int E, int K, int renorm)
{ moe_topk<float, true>(ids, w, logits, tokens, E, K, renorm); }

#define ALIGN_THREADS 1024
#define ALIGN_WARPS (ALIGN_THREADS / 32)
static_assert(ALIGN_WARPS == 32, "the placement's warp scan gives each warp of the block one lane of warp 0");

extern "C" __global__ void __launch_bounds__(ALIGN_THREADS)
moe_align_block_size(int* __restrict__ sorted_ids, int* __restrict__ expert_ids, int* __restrict__ num_post,
                     const int* __restrict__ topk_ids, int numel, int E, int B, int max_padded)
{
    __shared__ int cnt[MOE_MAX_E], off[MOE_MAX_E + 1], wcnt[ALIGN_WARPS];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
#ifdef KC_CONTROL_last_expert_dropped
    const int E_used = E - 1;  // BUG: off-by-one expert range: the last expert's tokens are never placed
#else
    const int E_used = E;
#endif
    const int nblocks = (max_padded + B - 1) / B;
    for (int e = tid; e < MOE_MAX_E; e += ALIGN_THREADS) cnt[e] = 0;
    for (int i = tid; i < max_padded; i += ALIGN_THREADS) sorted_ids[i] = numel;
    for (int b = tid; b < nblocks; b += ALIGN_THREADS) expert_ids[b] = -1;
    __syncthreads();
    // Integer counts: the sum does not depend on the order of the atomics.
    for (int i = tid; i < numel; i += ALIGN_THREADS) {
        const int e = topk_ids[i];
        if (e >= 0 && e < E_used) atomicAdd(&cnt[e], 1);
    }
    __syncthreads();
    if (tid == 0) {
        int o = 0, unpadded = 0;
        for (int e = 0; e < E_used; e++) {
            off[e] = o;
            o += (cnt[e] + B - 1) / B * B;
            unpadded += cnt[e];
        }
        off[E_used] = o;
#ifdef KC_CONTROL_unpadded_total
        *num_post = unpadded;   // BUG: reports the token count before padding
#else
        *num_post = o;
        (void)unpadded;
#endif
    }
    __syncthreads();
    for (int e = tid; e < E_used; e += ALIGN_THREADS)
        for (int b = off[e] / B; b < off[e + 1] / B; b++) expert_ids[b] = e;
    // Stable placement, one expert at a time: a block-wide ballot scan over the ids in index order.
    const unsigned lt = (1u << lane) - 1u;
    for (int e = 0; e < E_used; e++) {
        int running = 0;
        for (int c0 = 0; c0 < numel; c0 += ALIGN_THREADS) {
            const int i = c0 + tid;
            const bool p = i < numel && topk_ids[i] == e;
            const unsigned bal = __ballot_sync(0xffffffffu, p);
            if (lane == 0) wcnt[warp] = __popc(bal);
            __syncthreads();
            // Warp 0 turns the warps' counts into inclusive prefix sums in place
            // (ALIGN_WARPS is the warp size: a lane per warp), so each thread
            // reads two of them, not all 32: 1024 x 32 shared reads a chunk made
            // racecheck's run of this kernel the longest sanitizer item (H200).
            if (warp == 0) {
                int x = wcnt[lane];
#pragma unroll
                for (int d = 1; d < ALIGN_WARPS; d <<= 1) {
                    const int y = __shfl_up_sync(0xffffffffu, x, d);
                    if (lane >= d) x += y;
                }
                wcnt[lane] = x;
            }
            __syncthreads();
            const int wpre = warp ? wcnt[warp - 1] : 0, tot = wcnt[ALIGN_WARPS - 1];
            if (p) sorted_ids[off[e] + running + wpre + __popc(bal & lt)] = i;
            running += tot;
            __syncthreads();   // wcnt is rewritten by the next chunk
        }
#ifdef KC_CONTROL_pad_with_expert_id
        // BUG: the padding slots after expert e's tokens get the (valid) id e instead of the skip value numel
        for (int s = off[e] + running + tid; s < off[e + 1]; s += ALIGN_THREADS) sorted_ids[s] = e;
#endif
    }
}
