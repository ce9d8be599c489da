// embedding.cu — token embedding gather: out[t, :] = table[ids[t], :] for
// t < tokens, table [vocab, hidden], ids i32 [tokens]. An id outside [0, vocab)
// gives a row of zeros (vLLM's vocab-parallel embedding semantics: ids owned by
// another tensor-parallel shard). A block of (64, 4) threads handles 4 tokens,
// one per threadIdx.y; rows are copied as 16-byte vectors when hidden % 8 == 0
// (every row then starts 16-byte aligned), element by element otherwise.
// Offsets are 64-bit: a Qwen2.5-72B table (152064 x 8192 bf16) is 2.5 GB.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#define EMB_TX 64
#define EMB_TOK 4

template <class T>
__device__ __forceinline__ void embed_impl(T* __restrict__ out, const T* __restrict__ table, const int* __restrict__ ids,
                                           int tokens, int vocab, int hidden) {
    const int t = blockIdx.x * EMB_TOK + threadIdx.y;
#ifndef KC_CONTROL_rows_beyond_tokens
    // (the control drops this guard: the last block copies rows for t >= tokens, past the end of out)
    if (t >= tokens) return;   // no barriers in this kernel
#endif
    const int id = ids[t];
    T* dst = out + (size_t)t * (size_t)hidden;
    const bool valid = id >= 0 && id < vocab;
#if defined(KC_CONTROL_one_based_id)
    // BUG: ids treated as 1-based: row id + 1 is read (id = vocab - 1 reads the row past the table's end)
    const T* src = table + ((size_t)id + 1) * (size_t)hidden;
#elif defined(KC_CONTROL_int32_byte_offset)
    // BUG: the row's byte offset is computed in 32 bits: wraps negative once id * hidden * sizeof(T) >= 2^31
    const int off = (int)((unsigned)id * (unsigned)hidden * (unsigned)sizeof(T));
    const T* src = reinterpret_cast<const T*>(reinterpret_cast<const char*>(table) + off);
#else
    const T* src = table + (size_t)id * (size_t)hidden;
#endif
    // Invalid ids never touch the table (no load is formed from their address).
    if ((hidden & 7) == 0) {
        const int n8 = hidden >> 3;
        uint4* d4 = reinterpret_cast<uint4*>(dst);
        const uint4* s4 = reinterpret_cast<const uint4*>(src);
        if (valid) for (int v = threadIdx.x; v < n8; v += EMB_TX) d4[v] = __ldg(s4 + v);
        else for (int v = threadIdx.x; v < n8; v += EMB_TX) d4[v] = make_uint4(0u, 0u, 0u, 0u);
    } else {
        const unsigned short* s2 = reinterpret_cast<const unsigned short*>(src);
        unsigned short* d2 = reinterpret_cast<unsigned short*>(dst);
        if (valid) for (int j = threadIdx.x; j < hidden; j += EMB_TX) d2[j] = __ldg(s2 + j);
        else for (int j = threadIdx.x; j < hidden; j += EMB_TX) d2[j] = (unsigned short)0;
    }
}

extern "C" __global__ void __launch_bounds__(EMB_TX * EMB_TOK)
embedding_f16(__half* __restrict__ out, const __half* __restrict__ table, const int* __restrict__ ids, int tokens, int vocab, int hidden)
{ embed_impl(out, table, ids, tokens, vocab, hidden); }
extern "C" __global__ void __launch_bounds__(EMB_TX * EMB_TOK)
embedding_bf16(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ table, const int* __restrict__ ids, int tokens, int vocab, int hidden)
{ embed_impl(out, table, ids, tokens, vocab, hidden); }
