// attention_prefill_ref.cu — attn_prefill_ref, the float64 device reference of
// attn_prefill.{d64,d128}.{f16,bf16} (kernels/attention_prefill/attention_prefill_contract.c):
// the CUDA twin of ap_reference.
//
// For each sequence (cu_seqlens), query head h (kv head h / G) and query
// position i, with q, k, v decoded exactly (kc_cvt_f16_to_double /
// kc_cvt_bf16_to_double, the functions behind the host's table) and
// scale = (double)(float)scale as the host takes it:
//   s_t  = scale * dot_t,  dot_t = sum over d = 0..D-1 of q_i[d] * k_t[d] from +0,  t = 0..i;
//   m    = max of s_t (the host's "if (s > m) m = s" from -inf);
//   p_t  = exp(s_t - m);   sum = sum over t = 0..i of p_t from +0;
//   o[d] = sum over t = 0..i of p_t * v_t[d] from +0;   out_i[d] = o[d] / sum.
// Every sum keeps the host's order: each dot_t is one thread's chain over d
// in increasing order (the d chunks below come in order); sum and o[d] are
// one thread's chains over t in increasing order (key tiles in order, keys
// in order inside a tile). The max is taken in another order, which changes
// nothing (a max is order-free; between +0 and -0, s_t - m is the same for
// both and so is every exp). Each dot term is one fused multiply-add: a
// product of two f16 (11 + 11 significant bits) or two bf16 (8 + 8) values
// is exact in double, so fma(q, k, dot) rounds exactly as the host's
// dot + q * k; p_t * v_t[d] is rounded before its add (-fmad=false), as on
// the host. Keys past the diagonal are skipped, never added as zeros.
//
// Agreement: not bitwise. p_t is CUDA's exp, within an ulp of glibc's; the
// bound (attention_prefill_contract.c, AP_REF_AGREE) says how far that
// moves out. m and every s_t are exact twins of the host's, so no discrete
// choice depends on a libm result.
//
// Tiling. A block takes 64 query rows of one (sequence, head) and walks the
// key tiles (32 keys) up to its last row, twice: pass 1 for each row's max,
// pass 2 for the exps and the sums. A key tile's scores are a 64 x 32
// product of q and k over d, in chunks of 32 d decoded into shared memory;
// each thread owns 4 rows x 2 keys of it (rows 4 ty + i, keys tx + 16 j, for
// thread tx + 16 ty). In pass 2 the tile's p go to shared memory, and the
// values come in chunks of 16 keys; each thread owns 4 rows x D/16 dims of o
// (dims tx + 16 j) and keeps its 4 rows' sums itself (the 16 threads of a
// row add the same p in the same order). Shared memory 41 KiB; 250
// registers, so one block per SM.
//
// Launch (ap_ref_launch): (row tiles of the longest sequence) x q_heads x
// sequences blocks of 256 threads, the last row tiles (the most keys) first.
// Large shape (one sequence of 2048, 32 heads, D = 128): 1024 blocks, 6.9e7
// scores computed twice (8.6e9 fused multiply-adds each time) and 8.6e9
// multiply-adds of p v: ~3.4e10 FP64 operations, ~2 ms at the H200's FP64
// peak; with the chunk loads' latency exposed at one block per SM, estimated
// 3-5 ms. D = 64 about half.
#include <math.h>
#include "kcontract_device.cuh"

enum { AP_OUT = 0, AP_Q, AP_K, AP_V, AP_CU, AP_QH, AP_KVH, AP_SCALE };

constexpr int AP_THREADS = 256;  // threads per block: 16 (tx) x 16 (ty)
constexpr int AP_R = 64;         // query rows per block
constexpr int AP_T = 32;         // keys per tile
constexpr int AP_DC = 32;        // head dims per score chunk
constexpr int AP_VC = 16;        // keys per value chunk
constexpr int AP_DMAX = 128;     // the largest head_dim

// A block's shared memory (41 KiB). q and k chunks are stored d-major
// (padded by 2: a thread's 4 rows stay 16-byte aligned), and share their
// space with the value chunks (never used at the same time); p key-major, so
// a thread's 4 rows are contiguous.
struct __align__(16) ap_smem {
    union {
        struct {
            double qs[AP_DC][AP_R + 2];
            double ks[AP_DC][AP_T + 2];
        };
        double vs[AP_VC * AP_DMAX];  // [AP_VC][D]
    };
    double pt[AP_T][AP_R];
};

// A 16-bit element decoded as the host's table does.
template <kc_dtype T>
static __device__ __forceinline__ double ap_decode(uint16_t x)
{
    return T == KC_F16 ? kc_cvt_f16_to_double(x) : kc_cvt_bf16_to_double(x);
}

// One block's work: rows i0 .. i0+63 of head h (kv head hk) of the sequence
// starting at token `start`, L tokens long.
struct ap_block {
    const uint16_t *Q, *K, *V;
    long long D, qh, kvh, h, hk, start, L, i0;
    int tx, ty;                   // this thread: tx + 16 ty
    double scale;

    // Element d of query row i (also of out), of key or value row t.
    __device__ size_t qoff(long long i, int d) const { return (size_t)(((start + i) * qh + h) * D + d); }
    __device__ size_t kvoff(long long t, int d) const { return (size_t)(((start + t) * kvh + hk) * D + d); }
};

// The dot products of key tile kt for this thread's 4 rows x 2 keys, d in
// increasing order; rows past the sequence and keys past it read as +0.
// Starts and ends with every thread past its last use of qs and ks.
template <kc_dtype T, int D>
static __device__ void ap_scores(const ap_block &b, ap_smem &sm, long long kt, double (&s)[4][2])
{
#pragma unroll
    for (int i = 0; i < 4; i++) s[i][0] = s[i][1] = 0.0;
    const int tid = threadIdx.x;
    for (int d0 = 0; d0 < D; d0 += AP_DC) {
#pragma unroll
        for (int k = 0; k < AP_R * AP_DC / AP_THREADS; k++) {
            const int e = tid + AP_THREADS * k, r = e / AP_DC, dd = e % AP_DC;
            const long long i = b.i0 + r;
            sm.qs[dd][r] = i < b.L ? ap_decode<T>(b.Q[b.qoff(i, d0 + dd)]) : 0.0;
        }
#pragma unroll
        for (int k = 0; k < AP_T * AP_DC / AP_THREADS; k++) {
            const int e = tid + AP_THREADS * k, t = e / AP_DC, dd = e % AP_DC;
            const long long key = kt * AP_T + t;
            sm.ks[dd][t] = key < b.L ? ap_decode<T>(b.K[b.kvoff(key, d0 + dd)]) : 0.0;
        }
        __syncthreads();
#pragma unroll 8
        for (int dd = 0; dd < AP_DC; dd++) {
            double a[4], k2[2];
#pragma unroll
            for (int i = 0; i < 4; i++) a[i] = sm.qs[dd][4 * b.ty + i];
#pragma unroll
            for (int j = 0; j < 2; j++) k2[j] = sm.ks[dd][b.tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++) s[i][j] = __fma_rn(a[i], k2[j], s[i][j]);   // exact product
        }
        __syncthreads();
    }
}

// The host's max: keeps m unless x > m (NaN never wins).
static __device__ __forceinline__ double ap_max(double m, double x) { return x > m ? x : m; }

// Whether key `key` is visible from this thread's row i (causal: key <= row).
static __device__ __forceinline__ bool ap_visible(const ap_block &b, int i, long long key)
{
    return key <= b.i0 + 4 * b.ty + i;
}

// Pass 2's products for value chunk [c0, c0 + AP_VC) of key tile kt: o and
// sum over the chunk's keys in order, each only where visible (FULL: every
// key of the tile is visible from every row of the block).
template <int D, bool FULL>
static __device__ void ap_accumulate(const ap_block &b, const ap_smem &sm, long long kt, int c0,
                                     double (&o)[4][D / 16], double (&sum)[4])
{
#pragma unroll 4
    for (int t = 0; t < AP_VC; t++) {
        const long long key = kt * AP_T + c0 + t;
        double p[4], v[D / 16];
#pragma unroll
        for (int i = 0; i < 4; i++) p[i] = sm.pt[c0 + t][4 * b.ty + i];
#pragma unroll
        for (int j = 0; j < D / 16; j++) v[j] = sm.vs[t * D + b.tx + 16 * j];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if (!FULL && !ap_visible(b, i, key)) continue;
            sum[i] += p[i];
#pragma unroll
            for (int j = 0; j < D / 16; j++) o[i][j] += p[i] * v[j];
        }
    }
}

template <kc_dtype T, int D>
static __device__ void ap_ref(const kc_dref &r, ap_smem &sm)
{
    const long long qh = r.shape.d[1], kvh = r.shape.d[2], G = qh / kvh;
    long long nseqs = 0, maxlen = 0;
    while (nseqs < 5 && r.shape.d[3 + nseqs] > 0) {
        if (r.shape.d[3 + nseqs] > maxlen) maxlen = r.shape.d[3 + nseqs];
        nseqs++;
    }
    const long long ntiles = (maxlen + AP_R - 1) / AP_R, x = blockIdx.x;
    const long long tile = ntiles - 1 - x / (qh * nseqs), seq = x % (qh * nseqs) / qh, h = x % qh;
    const int32_t *cu = (const int32_t *)r.in[AP_CU];
    ap_block b;
    b.Q = (const uint16_t *)r.in[AP_Q]; b.K = (const uint16_t *)r.in[AP_K]; b.V = (const uint16_t *)r.in[AP_V];
    b.qh = qh; b.kvh = kvh; b.h = h; b.hk = h / G; b.start = cu[seq]; b.L = cu[seq + 1] - cu[seq];
    b.i0 = tile * AP_R; b.tx = threadIdx.x % 16; b.ty = threadIdx.x / 16; b.D = D;
    b.scale = (double)(float)r.scalar[AP_SCALE];   // the f32 the kernel gets, as the host takes it
    if (b.i0 >= b.L) return;                       // the whole block: no barrier is skipped
    const long long kend = b.L < b.i0 + AP_R ? b.L : b.i0 + AP_R, nkt = (kend + AP_T - 1) / AP_T;
    double s[4][2];

    double m[4] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY };   // pass 1: each row's max
    for (long long kt = 0; kt < nkt; kt++) {
        ap_scores<T, D>(b, sm, kt, s);
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 2; j++)
                if (ap_visible(b, i, kt * AP_T + b.tx + 16 * j)) m[i] = ap_max(m[i], b.scale * s[i][j]);
    }
#pragma unroll
    for (int i = 0; i < 4; i++)   // over the 16 threads of the row (one half of the warp)
        for (int w = 8; w > 0; w /= 2) m[i] = ap_max(m[i], __shfl_xor_sync(0xffffffffu, m[i], w));

    double o[4][D / 16], sum[4];                                     // pass 2: exps and sums
#pragma unroll
    for (int i = 0; i < 4; i++) {
        sum[i] = 0.0;
#pragma unroll
        for (int j = 0; j < D / 16; j++) o[i][j] = 0.0;
    }
    for (long long kt = 0; kt < nkt; kt++) {
        ap_scores<T, D>(b, sm, kt, s);
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 2; j++) {
                const long long key = kt * AP_T + b.tx + 16 * j;
                sm.pt[b.tx + 16 * j][4 * b.ty + i] = ap_visible(b, i, key) ? exp(b.scale * s[i][j] - m[i]) : 0.0;
            }
        const bool full = kt * AP_T + AP_T - 1 <= b.i0;
        for (int c0 = 0; c0 < AP_T; c0 += AP_VC) {
#pragma unroll
            for (int k = 0; k < AP_VC * D / AP_THREADS; k++) {
                const int e = threadIdx.x + AP_THREADS * k, t = e / D, d = e % D;
                const long long key = kt * AP_T + c0 + t;
                sm.vs[t * D + d] = key < b.L ? ap_decode<T>(b.V[b.kvoff(key, d)]) : 0.0;
            }
            __syncthreads();   // (the first one also publishes pt)
            if (full) ap_accumulate<D, true>(b, sm, kt, c0, o, sum);
            else ap_accumulate<D, false>(b, sm, kt, c0, o, sum);
            __syncthreads();
        }
    }
    double *out = r.out[AP_OUT];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const long long row = b.i0 + 4 * b.ty + i;
        if (row >= b.L) continue;
#pragma unroll
        for (int j = 0; j < D / 16; j++) out[b.qoff(row, b.tx + 16 * j)] = o[i][j] / sum[i];
    }
}

// head_dim (64 or 128) from the shape, the dtype (f16 or bf16) from q.
// One block per SM: 2 would cap registers at 128, and o (4 x 8 doubles),
// the scores (4 x 2) and the sums spill there.
extern "C" __global__ void __launch_bounds__(AP_THREADS, 1) attn_prefill_ref(kc_dref r)
{
    __shared__ ap_smem sm;
    const bool f16 = r.dtype[AP_Q] == KC_F16;
    if (r.shape.d[0] == 64) f16 ? ap_ref<KC_F16, 64>(r, sm) : ap_ref<KC_BF16, 64>(r, sm);
    else f16 ? ap_ref<KC_F16, 128>(r, sm) : ap_ref<KC_BF16, 128>(r, sm);
}
