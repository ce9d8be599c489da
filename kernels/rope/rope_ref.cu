// rope_ref.cu — the float64 device references of the rope family
// (kernels/rope/rope_contract.c), the CUDA twins of its host references:
//
//   rope_neox_ref     rope_neox_reference   rope.neox.{f32,f16,bf16}
//   rope_gptj_ref     rope_gptj_reference   rope.gptj.{f32,f16,bf16}
//   rope_neox_qk_ref  rope_qk_reference     rope.neox.qk.{f16,bf16}
//
// Each rotary pair (x1, x2) of a head (NeoX: elements i and i + d/2; GPT-J:
// 2i and 2i + 1) at position pos = positions[t] becomes, as in rope_ref_row,
//     x1' = x1 * c - x2 * s,   x2' = x2 * c + x1 * s,
//     c = cos_cache[pos * d/2 + i],  s = sin_cache[pos * d/2 + i],
// every value decoded exactly (kc_dref_in, the host's kc_ref_in), each
// product rounded to double and then the difference or sum: the module is
// built with -fmad=false, so nothing is fused that the host does not fuse.
// Agreement: bitwise.
//
// The q-only references write the rotated pairs alone (every element when
// head_dim is even), as the host does. The qk reference writes every element
// of q and k: a rotated one as above, any other (the rest of the packed qkv
// row between token rows) the input unchanged, as the host's copy-then-rotate
// leaves it; token t's rows start at t * stride_tokens and do not overlap
// (stride_tokens >= heads * head_dim, the packed layout of every shape).
//
// Launch: the default reference grid, a grid-stride loop over pairs (q-only)
// or elements (qk). Large shape (8192 tokens, 32 + 8 heads of 128): 1e8
// elements, ~1 GB of traffic: ~0.3 ms.
#include "kcontract_device.cuh"

// Argument indices: q-only contracts (q, positions, cos, sin, ...) and qk
// contracts (q, k, positions, cos, sin, ...).
enum { RQ_Q = 0, RQ_POS = 1, RQ_COS = 2, RQ_SIN = 3 };
enum { RK_Q = 0, RK_K = 1, RK_POS = 2, RK_COS = 3, RK_SIN = 4 };

// The rotated first element of a pair: x1 * c - x2 * s.
static __device__ __forceinline__ double rope_first(double x1, double x2, double c, double s) { return x1 * c - x2 * s; }
// The rotated second element of a pair: x2 * c + x1 * s.
static __device__ __forceinline__ double rope_second(double x1, double x2, double c, double s) { return x2 * c + x1 * s; }

// q-only: every pair of every head of every token, one pair per step.
template <bool NEOX>
static __device__ void rope_q_pairs(const kc_dref &r)
{
    const long long tokens = r.shape.d[0], heads = r.shape.d[1], d = r.shape.d[3], half = d / 2;
    double *out = r.out[RQ_Q];
    KC_GRID_STRIDE(p, (unsigned long long)(tokens * heads * half)) {
        const long long t = (long long)p / (heads * half), rem = (long long)p % (heads * half);
        const long long h = rem / half, i = rem % half;
        const long long pos = (long long)kc_dref_in(r, RQ_POS, (size_t)t);
        const size_t base = (size_t)(t * heads * d);
        const size_t ia = base + (size_t)(h * d + (NEOX ? i : 2 * i));
        const size_t ib = base + (size_t)(h * d + (NEOX ? i + half : 2 * i + 1));
        const double x1 = kc_dref_in(r, RQ_Q, ia), x2 = kc_dref_in(r, RQ_Q, ib);
        const double c = kc_dref_in(r, RQ_COS, (size_t)(pos * half + i));
        const double s = kc_dref_in(r, RQ_SIN, (size_t)(pos * half + i));
        out[ia] = rope_first(x1, x2, c, s);
        out[ib] = rope_second(x1, x2, c, s);
    }
}

extern "C" __global__ void rope_neox_ref(kc_dref r) { rope_q_pairs<true>(r); }
extern "C" __global__ void rope_gptj_ref(kc_dref r) { rope_q_pairs<false>(r); }

// qk: element e of argument a (q with `heads` heads, or k with kv_heads) of
// the packed rows: rotated (NeoX) if it lies in token t's heads, else copied.
static __device__ __forceinline__ double rope_qk_element(const kc_dref &r, int a, long long heads, unsigned long long e)
{
    const long long tokens = r.shape.d[0], d = r.shape.d[3], half = d / 2, stride = r.shape.d[5];
    long long t = (long long)e / stride;
    if (t > tokens - 1) t = tokens - 1;   // never with stride >= heads * d; else the last row's, as on the host
    const long long off = (long long)e - t * stride, w = off % d;
    if (off >= heads * d || w >= 2 * half) return kc_dref_in(r, a, (size_t)e);   // not in a pair: the copy
    const long long i = w < half ? w : w - half;
    const long long pos = (long long)kc_dref_in(r, RK_POS, (size_t)t);
    const size_t ia = (size_t)(t * stride + off - w + i), ib = ia + (size_t)half;
    const double x1 = kc_dref_in(r, a, ia), x2 = kc_dref_in(r, a, ib);
    const double c = kc_dref_in(r, RK_COS, (size_t)(pos * half + i));
    const double s = kc_dref_in(r, RK_SIN, (size_t)(pos * half + i));
    return w < half ? rope_first(x1, x2, c, s) : rope_second(x1, x2, c, s);
}

extern "C" __global__ void rope_neox_qk_ref(kc_dref r)
{
    const long long heads = r.shape.d[1], kvh = r.shape.d[2];
    KC_GRID_STRIDE(e, r.count[RK_Q]) r.out[RK_Q][e] = rope_qk_element(r, RK_Q, heads, e);
    KC_GRID_STRIDE(e, r.count[RK_K]) r.out[RK_K][e] = rope_qk_element(r, RK_K, kvh, e);
}
