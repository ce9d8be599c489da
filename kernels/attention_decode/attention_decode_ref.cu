// attention_decode_ref.cu — the float64 device references of attn_decode.{nhd,hnd}.{f16,bf16}
// (kernels/attention_decode/attention_decode_contract.c), the CUDA twins of
// ad_reference_nhd and ad_reference_hnd (attn_decode_nhd_ref, attn_decode_hnd_ref).
//
// One block per (sequence b, query head): the host's task (b, kv head h) for
// one of its G query heads, qhead = h * G + gq. With L = seq_lens[b], token
// t's key and value rows read through the block table as on the host
// (page = block_table[b * max_pages + t / page_size], slot t % page_size;
// NHD or HND offsets), q, k, v decoded exactly (kc_cvt_f16_to_double /
// kc_cvt_bf16_to_double, the functions behind the host's table), and
// scale = (double)(float)scale as the host takes it:
//   s_t  = scale * dot_t,  dot_t = sum over d = 0..127 of q[d] * k_t[d] from +0;
//   m    = max of s_t (the host's "if (s > m) m = s" from -inf);
//   p_t  = exp(s_t - m);   sum = sum over t = 0..L-1 of p_t from +0;
//   o[d] = sum over t = 0..L-1 of p_t * v_t[d] from +0;   out[d] = o[d] / sum.
// Every sum runs in the host's order on one thread: dot_t on the thread of
// token t; the max is taken in another order, which changes nothing (a max
// is order-free; between +0 and -0, s_t - m is the same for both and so is
// every exp); sum and o[d] walk t = 0, 1, ..., L-1 on one thread each. Each
// dot term is one fused multiply-add: a product of two f16 (11 + 11
// significant bits) or two bf16 (8 + 8) values is exact in double, so
// fma(q, k, dot) rounds exactly as the host's dot + q * k; p_t * v_t[d] is
// rounded before its add (-fmad=false), as on the host.
//
// Agreement: not bitwise. p_t is CUDA's exp, within an ulp of glibc's; the
// bound (attention_decode_contract.c, AD_REF_AGREE) says how far that moves
// out. m and every s_t are exact twins of the host's, so no discrete choice
// depends on a libm result.
//
// Launch (ad_ref_launch): batch x q_heads blocks of 256 threads. Pass 1:
// each thread takes tokens tid, tid + 256, ... and keeps their max; a block
// reduction gives m. Pass 2, 256 tokens at a time: each thread recomputes
// its token's s_t (the same bits) and stores p_t and the token's value-row
// offset in shared memory; then threads 0..127 add p_t * v_t[d] for their d
// and thread 128 adds p_t to sum, both in token order. Shared memory 5 KiB.
// Large shape (8 sequences up to 32768 tokens, 32 q heads): 256 blocks; the
// longest decodes its 32768 keys twice and its values once (4.2e6 fused
// multiply-adds per pass, 4.2e6 multiply-adds of p v), bound by the integer
// work of the decoding: estimated 1.5-3 ms on an H200.
#include <math.h>
#include "kcontract_device.cuh"

enum { AD_OUT = 0, AD_Q, AD_K, AD_V, AD_BT, AD_LENS, AD_QH, AD_KVH, AD_PS, AD_MAXP, AD_SCALE };

#define AD_HD 128        // head_dim of every contract
#define AD_THREADS 256   // threads per block (ad_ref_launch), also tokens per pass-2 tile

// A 16-bit element decoded as the host's table does.
template <kc_dtype T>
static __device__ __forceinline__ double ad_decode(uint16_t x)
{
    return T == KC_F16 ? kc_cvt_f16_to_double(x) : kc_cvt_bf16_to_double(x);
}

// One block's sequence and head, and where its keys and values lie.
struct ad_task {
    const uint16_t *K, *V;
    const int32_t *bt;            // this sequence's row of the block table
    long long kvh, ps, h, L;
    size_t qrow;                  // first element of q's (and out's) row
    bool hnd;

    // Element offset of token t's row (kv head h) in either cache.
    __device__ size_t row(long long t) const
    {
        const size_t page = (size_t)bt[t / ps], slot = (size_t)(t % ps);
        return hnd ? ((page * (size_t)kvh + (size_t)h) * (size_t)ps + slot) * AD_HD
                   : ((page * (size_t)ps + slot) * (size_t)kvh + (size_t)h) * AD_HD;
    }
};

// s_t = scale * (q . k_t), the dot product from +0 in d order (q decoded in shared memory).
template <kc_dtype T>
static __device__ double ad_score(const ad_task &k, const double *q, double scale, long long t)
{
    const uint4 *row = (const uint4 *)(k.K + k.row(t));   // 256-byte rows, 16-byte aligned
    double dot = 0;
#pragma unroll 4
    for (int c = 0; c < AD_HD / 8; c++) {
        const uint4 w = row[c];
        const unsigned u[4] = { w.x, w.y, w.z, w.w };
#pragma unroll
        for (int e = 0; e < 8; e++)   // little-endian: the low half is the lower element
            dot = __fma_rn(q[8 * c + e], ad_decode<T>((uint16_t)(u[e / 2] >> (16 * (e % 2)))), dot);  // exact product
    }
    return scale * dot;
}

// The host's max: keeps m unless x > m (NaN never wins).
static __device__ __forceinline__ double ad_max(double m, double x) { return x > m ? x : m; }

// Every thread's m into the block's max, returned to all threads.
static __device__ double ad_block_max(double m, double *red)
{
    for (int s = 16; s > 0; s /= 2) m = ad_max(m, __shfl_xor_sync(0xffffffffu, m, s));
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = m;
    __syncthreads();
    m = red[0];
    for (int w = 1; w < AD_THREADS / 32; w++) m = ad_max(m, red[w]);
    return m;
}

// A block's shared memory: q decoded, a pass-2 tile's exps and value-row
// offsets, the max reduction's slots, and sum for the final division.
struct ad_smem {
    double q[AD_HD], p[AD_THREADS], red[AD_THREADS / 32], total;
    size_t vrow[AD_THREADS];
};

template <kc_dtype T, bool HND>
static __device__ void ad_ref(const kc_dref &r, ad_smem &sm)
{
    double *q = sm.q, *p = sm.p;
    size_t *vrow = sm.vrow;
    const long long qh = r.shape.d[1], kvh = r.shape.d[2], ps = r.shape.d[3], G = qh / kvh;
    const long long maxp = (r.shape.d[4] + ps - 1) / ps;
    const long long b = blockIdx.x / qh, qhead = blockIdx.x % qh;
    const int32_t *lens = (const int32_t *)r.in[AD_LENS];
    const ad_task k = { (const uint16_t *)r.in[AD_K], (const uint16_t *)r.in[AD_V],
                        (const int32_t *)r.in[AD_BT] + b * maxp, kvh, ps, qhead / G, lens[b],
                        (size_t)((b * qh + qhead) * AD_HD), HND };
    const double scale = (double)(float)r.scalar[AD_SCALE];   // the f32 the kernel gets, as the host takes it
    const uint16_t *Q = (const uint16_t *)r.in[AD_Q];
    const int tid = threadIdx.x;
    if (tid < AD_HD) q[tid] = ad_decode<T>(Q[k.qrow + tid]);
    __syncthreads();

    double m = -INFINITY;                                     // pass 1: the max score
    for (long long t = tid; t < k.L; t += AD_THREADS) m = ad_max(m, ad_score<T>(k, q, scale, t));
    m = ad_block_max(m, sm.red);

    double o = 0, sum = 0;                                    // pass 2: exps, sum, p . v
    for (long long t0 = 0; t0 < k.L; t0 += AD_THREADS) {
        if (t0 + tid < k.L) {
            p[tid] = exp(ad_score<T>(k, q, scale, t0 + tid) - m);
            vrow[tid] = k.row(t0 + tid);
        }
        __syncthreads();
        const int n = k.L - t0 < AD_THREADS ? (int)(k.L - t0) : AD_THREADS;
        if (tid < AD_HD) {
#pragma unroll 8
            for (int j = 0; j < n; j++) o += p[j] * ad_decode<T>(k.V[vrow[j] + tid]);
        } else if (tid == AD_HD) {
            for (int j = 0; j < n; j++) sum += p[j];
        }
        __syncthreads();
    }
    if (tid == AD_HD) sm.total = sum;
    __syncthreads();
    if (tid < AD_HD) r.out[AD_OUT][k.qrow + tid] = o / sm.total;
}

// The dtype is the contract's (f16 or bf16), the same for q and both caches.
template <bool HND>
static __device__ void ad_dispatch(const kc_dref &r)
{
    __shared__ ad_smem sm;
    if (r.dtype[AD_Q] == KC_F16) ad_ref<KC_F16, HND>(r, sm);
    else ad_ref<KC_BF16, HND>(r, sm);
}

extern "C" __global__ void __launch_bounds__(AD_THREADS) attn_decode_nhd_ref(kc_dref r) { ad_dispatch<false>(r); }
extern "C" __global__ void __launch_bounds__(AD_THREADS) attn_decode_hnd_ref(kc_dref r) { ad_dispatch<true>(r); }
