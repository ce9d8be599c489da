// kv_cache_write.cu — write new keys and values into a paged KV cache
// (vLLM's reshape_and_cache): for each token t with slot = slot_mapping[t]
// >= 0, page = slot / page_size, p = slot % page_size,
//   NHD cache [num_pages, page_size, kv_heads, D]: cache[page, p, h, :] = new[t, h, :]
//   HND cache [num_pages, kv_heads, page_size, D]: cache[page, h, p, :] = new[t, h, :]
// for k and v alike; slot -1 marks a padding token: skipped. Everything else
// in the caches is left as it was. Elements are 2 bytes (f16 or bf16: copied
// as bits); D must be a multiple of 8 (16-byte vectors).
// One block per token, 128 threads striding over kv_heads * D/8 vectors.
// Each cache element is written by at most one thread (slots are distinct):
// deterministic.
#include <stdint.h>

#define KVW_THREADS 128

template <bool HND>
__device__ __forceinline__ void kv_cache_write_impl(uint16_t* __restrict__ k_cache, uint16_t* __restrict__ v_cache,
                                                    const uint16_t* __restrict__ k, const uint16_t* __restrict__ v,
                                                    const long long* __restrict__ slot_mapping,
                                                    int kv_heads, int head_dim, int page_size) {
    const long long t = blockIdx.x;
#ifdef KC_CONTROL_slot_mapping_i32
    // BUG: slot_mapping read as int32 (it is int64): token t takes half of
    // slot t/2 (odd tokens its high word, 0), writing to the wrong slots.
    const long long slot = reinterpret_cast<const int*>(slot_mapping)[t];
#else
    const long long slot = slot_mapping[t];
#endif
#ifndef KC_CONTROL_padding_not_skipped
    if (slot < 0) return;                    // padding token
#endif
    // BUG (padding_not_skipped): slot -1 gives page 0, in-page slot -1: the
    // row is written just before the cache (before page 0 / head 0's rows).
    const long long page = slot / page_size, p = slot % page_size;
    const int vecs = head_dim / 8;           // 16-byte vectors per head row
    const uint4* ks = reinterpret_cast<const uint4*>(k + t * (long long)kv_heads * head_dim);
    const uint4* vs = reinterpret_cast<const uint4*>(v + t * (long long)kv_heads * head_dim);
    for (int i = threadIdx.x; i < kv_heads * vecs; i += blockDim.x) {
        const int h = i / vecs, c = i % vecs;
#if defined(KC_CONTROL_hnd_with_nhd_strides)
        // BUG: the HND cache written with the NHD layout's strides.
        const long long row = (page * page_size + p) * kv_heads + h;
#else
        const long long row = HND ? (page * kv_heads + h) * page_size + p : (page * page_size + p) * kv_heads + h;
#endif
#ifdef KC_CONTROL_slot_offset_i32
        // BUG: the row's byte offset computed in 32 bits: wraps (negative) for
        // rows 2 GiB or more into the cache.
        const int byte_off = (int)((unsigned)row * (unsigned)(head_dim * 2));
        uint4* kd = reinterpret_cast<uint4*>(reinterpret_cast<char*>(k_cache) + byte_off);
        uint4* vd = reinterpret_cast<uint4*>(reinterpret_cast<char*>(v_cache) + byte_off);
#else
        uint4* kd = reinterpret_cast<uint4*>(k_cache + row * head_dim);
        uint4* vd = reinterpret_cast<uint4*>(v_cache + row * head_dim);
#endif
        kd[c] = ks[i];
        vd[c] = vs[i];
    }
}

#define KVW_KERNEL(name, HND) \
extern "C" __global__ void __launch_bounds__(KVW_THREADS) \
name(uint16_t* __restrict__ k_cache, uint16_t* __restrict__ v_cache, const uint16_t* __restrict__ k, \
     const uint16_t* __restrict__ v, const long long* __restrict__ slot_mapping, \
     int kv_heads, int head_dim, int page_size) \
{ kv_cache_write_impl<HND>(k_cache, v_cache, k, v, slot_mapping, kv_heads, head_dim, page_size); }

KVW_KERNEL(kv_cache_write_nhd, false)
KVW_KERNEL(kv_cache_write_hnd, true)
