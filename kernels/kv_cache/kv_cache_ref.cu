// kv_cache_ref.cu — the float64 device references of kv_cache.{nhd,hnd}.{f16,bf16}
// (kernels/kv_cache/kv_cache_contract.c), the CUDA twins of kv_reference_nhd
// and kv_reference_hnd:
//
//   kv_cache_nhd_ref, kv_cache_hnd_ref:
//     k_cache' = k_cache, v_cache' = v_cache (every element, decoded);
//     then for t = 0, 1, ..., tokens-1 with slot = slot_mapping[t] >= 0,
//     page = slot / page_size, p = slot % page_size, and each kv head h:
//       row = (page * page_size + p) * kv_heads + h        (NHD)
//           = (page * kv_heads + h) * page_size + p        (HND)
//       k_cache'[row, :] = k[t, h, :],  v_cache'[row, :] = v[t, h, :].
//
// Nothing is computed: every value is a 2-byte element decoded exactly with
// the host's conversion (kc_cvt_f16_to_double / kc_cvt_bf16_to_double, the
// functions behind the host's table), NaN payloads included. Where two
// tokens map to one slot (no shape does), the later token's row wins, as on
// the host. Agreement: bitwise.
//
// One launch, no grid-wide barrier: each block owns a contiguous range of
// the caches' elements (the same range of both caches). It copies its range,
// synchronizes its threads, then walks the tokens in order and writes the
// new rows' elements that fall in its range. An element is always written by
// the same thread of the block (thread (h * head_dim + d) mod blockDim), so
// the later token's write comes after the earlier one in that thread's
// program order; the block barrier orders the copy before them. Tokens are
// screened 32 at a time (one per lane, a warp vote) against the slots whose
// pages overlap the block's range, so the walk costs ~tokens / 32 steps.
//
// Launch: the default reference grid. Large shape (66000 pages of 16 x 8 x
// 128: 1.08e9 elements per cache): 2 B read and 8 B written per element,
// 21.6 GB in all, ~5 ms at the H200's bandwidth (the floor for writing the
// float64 reference); the token walk is negligible.
#include "kcontract_device.cuh"

enum { KV_KC = 0, KV_VC = 1, KV_K = 2, KV_V = 3, KV_SLOTS = 4 };

// A 2-byte element decoded as the host's table does.
template <kc_dtype T>
static __device__ __forceinline__ double kv_decode(uint16_t x)
{
    return T == KC_F16 ? kc_cvt_f16_to_double(x) : kc_cvt_bf16_to_double(x);
}

// Elements [a, b) of both caches, input to reference: 8 at a time (16-byte
// loads; a is a multiple of 8, the buffers 256-byte aligned), then the tail.
template <kc_dtype T>
static __device__ void kv_copy_range(const kc_dref &r, unsigned long long a, unsigned long long b)
{
    const uint16_t *kc = (const uint16_t *)r.in[KV_KC], *vc = (const uint16_t *)r.in[KV_VC];
    double *ko = r.out[KV_KC], *vo = r.out[KV_VC];
    const unsigned long long b8 = a + (b - a) / 8 * 8;
    for (unsigned long long e = a + 8ull * threadIdx.x; e < b8; e += 8ull * blockDim.x) {
        const uint4 kw = *(const uint4 *)(kc + e), vw = *(const uint4 *)(vc + e);
        const unsigned kk[4] = { kw.x, kw.y, kw.z, kw.w }, vv[4] = { vw.x, vw.y, vw.z, vw.w };
#pragma unroll
        for (int w = 0; w < 4; w++) {   // little-endian: the low half is the lower element
            *(double2 *)(ko + e + 2 * w) = make_double2(kv_decode<T>((uint16_t)kk[w]), kv_decode<T>((uint16_t)(kk[w] >> 16)));
            *(double2 *)(vo + e + 2 * w) = make_double2(kv_decode<T>((uint16_t)vv[w]), kv_decode<T>((uint16_t)(vv[w] >> 16)));
        }
    }
    for (unsigned long long e = b8 + threadIdx.x; e < b; e += blockDim.x) {
        ko[e] = kv_decode<T>(kc[e]);
        vo[e] = kv_decode<T>(vc[e]);
    }
}

// Token t's rows (slot >= 0), the elements of them in [a, b). Element
// (h, d) of the token's rows is always this block's thread (h * D + d) mod
// blockDim.
template <kc_dtype T, bool HND>
static __device__ void kv_write_token(const kc_dref &r, long long t, long long slot, unsigned long long a,
                                      unsigned long long b)
{
    const long long kvh = r.shape.d[1], D = r.shape.d[2], ps = r.shape.d[3];
    const uint16_t *K = (const uint16_t *)r.in[KV_K], *V = (const uint16_t *)r.in[KV_V];
    const long long page = slot / ps, p = slot % ps;
    for (long long idx = threadIdx.x; idx < kvh * D; idx += blockDim.x) {
        const long long h = idx / D, d = idx % D;
        const long long row = HND ? (page * kvh + h) * ps + p : (page * ps + p) * kvh + h;
        const unsigned long long e = (unsigned long long)(row * D + d);
        if (e < a || e >= b) continue;
        r.out[KV_KC][e] = kv_decode<T>(K[(t * kvh + h) * D + d]);
        r.out[KV_VC][e] = kv_decode<T>(V[(t * kvh + h) * D + d]);
    }
}

template <kc_dtype T, bool HND>
static __device__ void kv_cache_ref(const kc_dref &r)
{
    const long long tokens = r.shape.d[0], kvh = r.shape.d[1], D = r.shape.d[2], ps = r.shape.d[3];
    const unsigned long long n = r.count[KV_KC];
    const unsigned long long per = ((n + gridDim.x - 1) / gridDim.x + 7) / 8 * 8;
    const unsigned long long a = per * blockIdx.x < n ? per * blockIdx.x : n, b = a + per < n ? a + per : n;
    if (a >= b) return;                                  // no barrier skipped: the whole block leaves
    kv_copy_range<T>(r, a, b);
    __syncthreads();

    // Slots whose page overlaps [a, b): pages [a / P, (b - 1) / P], P elements each.
    const unsigned long long P = (unsigned long long)(ps * kvh * D);
    const long long slot_lo = (long long)(a / P) * ps, slot_hi = (long long)((b - 1) / P + 1) * ps;
    const long long *slots = (const long long *)r.in[KV_SLOTS];
    const unsigned lane = threadIdx.x % 32;
    for (long long t0 = 0; t0 < tokens; t0 += 32) {
        const long long s = t0 + lane < tokens ? slots[t0 + lane] : -1;
        unsigned hits = __ballot_sync(0xffffffffu, s >= 0 && s >= slot_lo && s < slot_hi);   // the same in every warp
        while (hits) {
            const int l = __ffs(hits) - 1;
            hits &= hits - 1;
            kv_write_token<T, HND>(r, t0 + l, __shfl_sync(0xffffffffu, s, l), a, b);
        }
    }
}

// The dtype is the contract's (f16 or bf16), the same for every buffer.
template <bool HND>
static __device__ void kv_cache_dispatch(const kc_dref &r)
{
    if (r.dtype[KV_K] == KC_F16) kv_cache_ref<KC_F16, HND>(r);
    else kv_cache_ref<KC_BF16, HND>(r);
}

extern "C" __global__ void kv_cache_nhd_ref(kc_dref r) { kv_cache_dispatch<false>(r); }
extern "C" __global__ void kv_cache_hnd_ref(kc_dref r) { kv_cache_dispatch<true>(r); }
