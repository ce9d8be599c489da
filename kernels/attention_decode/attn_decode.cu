// attn_decode.cu — decode attention over a paged KV cache (one query token per
// sequence), grouped-query heads, head_dim 128, f16/bf16 in, f32 math, output
// in the input dtype.
//
//   q       [batch, q_heads, 128]
//   k_cache [num_pages, page_size, kv_heads, 128]   (NHD)  or
//           [num_pages, kv_heads, page_size, 128]   (HND)
//   v_cache the same layout as k_cache
//   block_table [batch, max_pages] int32: physical page of each logical page
//   seq_lens    [batch] int32 (>= 1)
//   out[b, h, :] = softmax_t(scale * q[b, h] . k[t, h / G]) @ v[t, h / G],
//   G = q_heads / kv_heads (1..8).
//
// Split-K (flash-decoding) in ONE launch, deterministically: one block per
// (kv head, sequence), 8 warps. The sequence's pages are cut into 8 contiguous
// splits, one per warp (warp w takes pages [w*P, (w+1)*P), P = ceil(pages/8)).
// Each warp runs an online softmax over its split for all G query heads of the
// kv head (each lane holds 4 of the 128 dims; q.k is reduced with a xor
// butterfly, so every lane holds the same score) and writes its partial state
// — running max m_w, sum l_w and unnormalized output acc_w, i.e. the partial
// output acc_w / l_w and its log-sum-exp m_w + log l_w kept in two parts —
// to a shared-memory scratch buffer. After a barrier the block combines the 8
// partials in the fixed order w = 0..7:
//   M = max_w m_w;  out = sum_w acc_w e^(m_w - M) / sum_w l_w e^(m_w - M).
// Empty splits (short sequences) hold m = -inf, l = 0, acc = 0 and weigh 0.
// No atomics: bitwise deterministic.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <math.h>

#define AD_HD 128       // head dim
#define AD_WARPS 8      // splits per (sequence, kv head) = warps per block
#define AD_GMAX 8       // max query heads per kv head

__device__ __forceinline__ void ld4(const __half* p, float* f) {
    const uint2 raw = __ldg(reinterpret_cast<const uint2*>(p));
    const __half2* h = reinterpret_cast<const __half2*>(&raw);
    const float2 a = __half22float2(h[0]), b = __half22float2(h[1]);
    f[0] = a.x; f[1] = a.y; f[2] = b.x; f[3] = b.y;
}
__device__ __forceinline__ void ld4(const __nv_bfloat16* p, float* f) {
    const uint2 raw = __ldg(reinterpret_cast<const uint2*>(p));
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
    const float2 a = __bfloat1622float2(h[0]), b = __bfloat1622float2(h[1]);
    f[0] = a.x; f[1] = a.y; f[2] = b.x; f[3] = b.y;
}
__device__ __forceinline__ void st_f(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void st_f(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

// q . k for one lane's 4 dims, summed over the warp (every lane gets the sum).
__device__ __forceinline__ float qk_dot(const float* q, const float* k) {
#ifdef KC_CONTROL_qk_half_accum
    // BUG: the dot product accumulated in half precision (products and partial
    // sums rounded to f16): overflows to inf once |q.k| > 65504 (LARGE inputs).
    __half hs = __float2half_rn(0.f);
#pragma unroll
    for (int i = 0; i < 4; i++) hs = __hfma(__float2half_rn(q[i]), __float2half_rn(k[i]), hs);
    float s = __half2float(hs);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s = __half2float(__float2half_rn(s + __shfl_xor_sync(0xffffffffu, s, off)));
    return s;
#else
    float s = q[0] * k[0];
    s = fmaf(q[1], k[1], s);
    s = fmaf(q[2], k[2], s);
    s = fmaf(q[3], k[3], s);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    return s;
#endif
}

// Element offset of (physical page, token slot in page, kv head) in a cache.
template <bool HND, class T>
__device__ __forceinline__ const T* cache_row(const T* cache, int page, int slot, int kvh, int kv_heads, int page_size) {
    const size_t page_elems = (size_t)page_size * (size_t)kv_heads * AD_HD;
#if defined(KC_CONTROL_hnd_as_nhd)
    // BUG: the HND cache is addressed with the NHD layout's dimensions.
    const size_t in_page = ((size_t)slot * kv_heads + kvh) * AD_HD;
#else
    const size_t in_page = HND ? ((size_t)kvh * page_size + slot) * AD_HD : ((size_t)slot * kv_heads + kvh) * AD_HD;
#endif
#ifdef KC_CONTROL_page_offset_i32
    // BUG: the page's byte offset held in 32 bits: wraps (negative) for pages
    // at or beyond 2 GiB into the cache (page >= 65536 with 8 kv heads).
    const int page_bytes = (int)((unsigned)page * (unsigned)(page_elems * sizeof(T)));
    return reinterpret_cast<const T*>(reinterpret_cast<const char*>(cache) + page_bytes) + in_page;
#else
    return cache + (size_t)page * page_elems + in_page;
#endif
}

template <bool HND, class T>
__device__ __forceinline__ void attn_decode_impl(T* __restrict__ out, const T* __restrict__ q,
                                                 const T* __restrict__ k_cache, const T* __restrict__ v_cache,
                                                 const int* __restrict__ block_table, const int* __restrict__ seq_lens,
                                                 int q_heads, int kv_heads, int page_size, int max_pages, float scale) {
    __shared__ float s_acc[AD_WARPS][AD_GMAX][AD_HD];
    __shared__ float s_m[AD_WARPS][AD_GMAX], s_l[AD_WARPS][AD_GMAX];

    const int kvh = blockIdx.x, b = blockIdx.y;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int G = q_heads / kv_heads;
    const int len = seq_lens[b];
    const int npages = (len + page_size - 1) / page_size;
    const int ppw = (npages + AD_WARPS - 1) / AD_WARPS;
    const int p_begin = warp * ppw;
    const int p_end = min(npages, p_begin + ppw);
    const int* bt = block_table + (size_t)b * (size_t)max_pages;

    float qf[AD_GMAX][4], acc[AD_GMAX][4], m[AD_GMAX], l[AD_GMAX];
#pragma unroll
    for (int g = 0; g < AD_GMAX; g++) {
        m[g] = -INFINITY; l[g] = 0.f;
#pragma unroll
        for (int i = 0; i < 4; i++) { acc[g][i] = 0.f; qf[g][i] = 0.f; }
        if (g < G) {
            ld4(q + ((size_t)b * q_heads + (size_t)kvh * G + g) * AD_HD + lane * 4, qf[g]);
#pragma unroll
            for (int i = 0; i < 4; i++) qf[g][i] *= scale;   // scale folded into q, in f32
        }
    }

    for (int p = p_begin; p < p_end; p++) {
        const int page = bt[p];
        const int t_end = min(page_size, len - p * page_size);
        for (int t = 0; t < t_end; t++) {
            float kf[4], vf[4];
            ld4(cache_row<HND>(k_cache, page, t, kvh, kv_heads, page_size) + lane * 4, kf);
            ld4(cache_row<HND>(v_cache, page, t, kvh, kv_heads, page_size) + lane * 4, vf);
#pragma unroll
            for (int g = 0; g < AD_GMAX; g++) {
                if (g < G) {
                    const float s = qk_dot(qf[g], kf);
                    const float mn = fmaxf(m[g], s);
                    const float alpha = expf(m[g] - mn);   // 0 on the first token (m = -inf, s finite)
                    const float pr = expf(s - mn);
                    l[g] = l[g] * alpha + pr;
#pragma unroll
                    for (int i = 0; i < 4; i++) acc[g][i] = fmaf(pr, vf[i], acc[g][i] * alpha);
                    m[g] = mn;
                }
            }
        }
    }

    // Partial state of this split to the scratch buffer (empty splits too).
#pragma unroll
    for (int g = 0; g < AD_GMAX; g++) {
        if (g < G) {
#pragma unroll
            for (int i = 0; i < 4; i++) s_acc[warp][g][lane * 4 + i] = acc[g][i];
            if (lane == 0) { s_m[warp][g] = m[g]; s_l[warp][g] = l[g]; }
        }
    }
    __syncthreads();

    // Combine the splits in the fixed order w = 0..AD_WARPS-1.
    for (int idx = threadIdx.x; idx < G * AD_HD; idx += blockDim.x) {
        const int g = idx / AD_HD, d = idx % AD_HD;
        float M = -INFINITY;
        for (int w = 0; w < AD_WARPS; w++) M = fmaxf(M, s_m[w][g]);
        float L = 0.f, O = 0.f;
        for (int w = 0; w < AD_WARPS; w++) {
#ifdef KC_CONTROL_lse_ignore_split_max
            // BUG: each split weighed by its sum l_w alone, ignoring its max m_w
            // (splits' partials are relative to different maxima).
            const float f = 1.f;
#else
            const float f = expf(s_m[w][g] - M);            // 0 for an empty split
#endif
            L = fmaf(s_l[w][g], f, L);
            O = fmaf(s_acc[w][g][d], f, O);
        }
        st_f(out + ((size_t)b * q_heads + (size_t)kvh * G + g) * AD_HD + d, O / L);
    }
}

#define AD_KERNEL(name, HND, T) \
extern "C" __global__ void __launch_bounds__(AD_WARPS * 32) \
name(T* __restrict__ out, const T* __restrict__ q, const T* __restrict__ k_cache, const T* __restrict__ v_cache, \
     const int* __restrict__ block_table, const int* __restrict__ seq_lens, \
     int q_heads, int kv_heads, int page_size, int max_pages, float scale) \
{ attn_decode_impl<HND>(out, q, k_cache, v_cache, block_table, seq_lens, q_heads, kv_heads, page_size, max_pages, scale); }

AD_KERNEL(attn_decode_nhd_f16, false, __half)
AD_KERNEL(attn_decode_nhd_bf16, false, __nv_bfloat16)
AD_KERNEL(attn_decode_hnd_f16, true, __half)
AD_KERNEL(attn_decode_hnd_bf16, true, __nv_bfloat16)
