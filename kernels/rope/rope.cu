// rope.cu — rotary position embedding, in place, f32 math, one block per token.
// cos/sin caches are f32 [max_pos, rot/2] (cos[p][i] = cos(p * theta^(-2i/rot))),
// here rot = head_dim (full rotary, as Llama 3 / Qwen2.5).
//   NeoX layout (rotate halves):   (x[i], x[i + d/2])  for i < d/2
//   GPT-J layout (interleaved):    (x[2i], x[2i + 1])  for i < d/2
//   each pair (a, b) -> (a*c - b*s, b*c + a*s) with c = cos[pos][i], s = sin[pos][i].
// rope_{neox,gptj}_<t>:  q [tokens, heads, head_dim] contiguous, int64 / int32 positions.
// rope_neox_qk_<t>:      q and k views of a packed qkv activation: row stride
//                        stride_tokens (>= heads*head_dim) for both, k has kv_heads heads.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float ld_f(const float* p) { return *p; }
__device__ __forceinline__ float ld_f(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float ld_f(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st_f(float* p, float v) { *p = v; }
__device__ __forceinline__ void st_f(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void st_f(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

// Rotates all heads of one token row; NEOX selects the pairing.
template <bool NEOX, class T>
__device__ __forceinline__ void rope_row(T* __restrict__ row, int heads, int head_dim,
                                         const float* __restrict__ cs, const float* __restrict__ sn) {
    const int half = head_dim >> 1;
    const int npairs = heads * half;
#ifdef KC_CONTROL_wrong_pair_layout
    // BUG: layout confusion: the NeoX kernel pairs interleaved elements, the GPT-J kernel halves.
    constexpr bool neox = !NEOX;
#else
    constexpr bool neox = NEOX;
#endif
    for (int p = threadIdx.x; p < npairs; p += blockDim.x) {
        const int h = p / half, i = p - h * half;
        T* xh = row + (size_t)h * head_dim;
        const int ia = neox ? i : 2 * i;
        const int ib = neox ? i + half : 2 * i + 1;
        const float a = ld_f(xh + ia), b = ld_f(xh + ib);
        const float c = cs[i], s = sn[i];
        st_f(xh + ia, a * c - b * s);
        st_f(xh + ib, b * c + a * s);
    }
}

template <class P>
__device__ __forceinline__ long long token_pos(const P* __restrict__ positions, int t) {
#ifdef KC_CONTROL_ignore_positions
    // BUG: assumes positions == arange(tokens) (prefill from 0) instead of reading them.
    (void)positions;
    return t;
#else
    return (long long)positions[t];
#endif
}

template <bool NEOX, class T, class P>
__device__ __forceinline__ void rope_q(T* __restrict__ q, const P* __restrict__ positions,
                                       const float* __restrict__ cos_cache, const float* __restrict__ sin_cache,
                                       int heads, int head_dim) {
    const int t = blockIdx.x;
    const long long pos = token_pos(positions, t);
    const size_t half = (size_t)(head_dim >> 1);
    rope_row<NEOX>(q + (size_t)t * (size_t)heads * (size_t)head_dim, heads, head_dim,
                   cos_cache + (size_t)pos * half, sin_cache + (size_t)pos * half);
}

template <class T>
__device__ __forceinline__ void rope_qk(T* __restrict__ q, T* __restrict__ k, const long long* __restrict__ positions,
                                        const float* __restrict__ cos_cache, const float* __restrict__ sin_cache,
                                        int heads, int kv_heads, int head_dim, long long stride_tokens) {
    const int t = blockIdx.x;
    const long long pos = token_pos(positions, t);
    const size_t half = (size_t)(head_dim >> 1);
    const float* cs = cos_cache + (size_t)pos * half;
    const float* sn = sin_cache + (size_t)pos * half;
#ifdef KC_CONTROL_stride_assume_contiguous
    // BUG: assumes q/k rows are contiguous (row stride heads*head_dim) instead of stride_tokens.
    const size_t qs = (size_t)heads * head_dim, ks = (size_t)kv_heads * head_dim;
#else
    const size_t qs = (size_t)stride_tokens, ks = (size_t)stride_tokens;
#endif
#ifdef KC_CONTROL_k_uses_q_heads
    // BUG: GQA head-count confusion: rotates `heads` heads of k instead of kv_heads.
    const int kh = heads;
#else
    const int kh = kv_heads;
#endif
    rope_row<true>(q + (size_t)t * qs, heads, head_dim, cs, sn);
    rope_row<true>(k + (size_t)t * ks, kh, head_dim, cs, sn);
}

#define ROPE_BOUNDS __launch_bounds__(256)
#define ROPE_Q(name, NEOX, T, P) \
extern "C" __global__ void ROPE_BOUNDS name(T* __restrict__ q, const P* __restrict__ positions, \
    const float* __restrict__ cos_cache, const float* __restrict__ sin_cache, int heads, int head_dim) \
{ rope_q<NEOX>(q, positions, cos_cache, sin_cache, heads, head_dim); }
ROPE_Q(rope_neox_f32, true, float, long long)
ROPE_Q(rope_neox_f16, true, __half, long long)
ROPE_Q(rope_neox_bf16, true, __nv_bfloat16, long long)
ROPE_Q(rope_gptj_f32, false, float, int)
ROPE_Q(rope_gptj_f16, false, __half, int)
ROPE_Q(rope_gptj_bf16, false, __nv_bfloat16, int)

#define ROPE_QK(name, T) \
extern "C" __global__ void ROPE_BOUNDS name(T* __restrict__ q, T* __restrict__ k, const long long* __restrict__ positions, \
    const float* __restrict__ cos_cache, const float* __restrict__ sin_cache, int heads, int kv_heads, int head_dim, \
    long long stride_tokens) \
{ rope_qk(q, k, positions, cos_cache, sin_cache, heads, kv_heads, head_dim, stride_tokens); }
ROPE_QK(rope_neox_qk_f16, __half)
ROPE_QK(rope_neox_qk_bf16, __nv_bfloat16)
