// silu_mul.cu — vLLM's silu_and_mul: for input x [tokens, 2*d] (gate half
// then up half of each row), out[t, i] = silu(x[t, i]) * x[t, d + i] with
// silu(g) = g / (1 + exp(-g)), computed in f32 and rounded once.
//   silu_mul_{f32,f16,bf16}(out, x, tokens, d)
// Blocks stride over tokens; threads take 16-byte vectors when d is a
// multiple of the vector width (rows then stay 16-byte aligned), otherwise
// runs of V consecutive elements with a short final run.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

namespace sm {

constexpr int kBlock = 256;

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T> struct alignas(16) Vec {
    static constexpr int N = 16 / sizeof(T);
    T e[N];
};

template <typename T>
__device__ __forceinline__ T silu_mul_one(T g, T u)
{
    const float gf = to_f32(g);
#ifdef KC_CONTROL_rounded_twice
    // plants: the activation is stored in the element type before the multiplication (act = T(silu(g));
    // out = T(act * u)), so each output is rounded twice. Each rounding is within 2^-11 (f16) or 2^-8
    // (bf16) relative, so out/ref - 1 <= 2 x 4.88e-4 + 5e-7 (f32 silu) < rtol 1e-3 for f16 and
    // < 2^-7 < 1.6e-2 for bf16: the tolerance passes; but about 27% of errors exceed half an ulp
    // (max ~1.4 ulp), where a rounded-once result allows 2/32 + 6 sqrt(2/32/n): only gate 3's error
    // statistics see it.
    const float act = to_f32(from_f32<T>(gf / (1.0f + expf(-gf))));
    return from_f32<T>(act * to_f32(u));
#else
    return from_f32<T>(gf / (1.0f + expf(-gf)) * to_f32(u));
#endif
}

template <typename T>
__device__ __forceinline__ void silu_mul_rows(T *__restrict__ out, const T *__restrict__ x, long long tokens, long long d)
{
    using V = Vec<T>;
    constexpr int N = V::N;
    const bool vec = (d % N == 0) && ((reinterpret_cast<uintptr_t>(out) | reinterpret_cast<uintptr_t>(x)) & 15u) == 0;

#ifdef KC_CONTROL_no_token_stride
    // plants: one token per block, no stride over tokens: a grid capped below the token count leaves rows unwritten
    for (long long t = blockIdx.x; t < tokens && t < gridDim.x; t += gridDim.x) {
#else
    for (long long t = blockIdx.x; t < tokens; t += gridDim.x) {
#endif
#ifdef KC_CONTROL_row_stride_d
        // plants: input row stride taken as d (the output's) instead of 2*d: tokens >= 1 read the wrong rows
        const T *gate = x + t * d;
#else
        const T *gate = x + t * 2 * d;
#endif
        const T *up = gate + d;
        T *o = out + t * d;
        if (vec) {
            const long long nv = d / N;
            for (long long v = threadIdx.x; v < nv; v += blockDim.x) {
                const V gv = reinterpret_cast<const V *>(gate)[v];
                const V uv = reinterpret_cast<const V *>(up)[v];
                V ov;
#pragma unroll
                for (int k = 0; k < N; ++k)
                    ov.e[k] = silu_mul_one(gv.e[k], uv.e[k]);
                reinterpret_cast<V *>(o)[v] = ov;
            }
        } else {
            for (long long i0 = (long long)threadIdx.x * N; i0 < d; i0 += (long long)blockDim.x * N) {
                if (i0 + N <= d) {
#pragma unroll
                    for (int k = 0; k < N; ++k)
                        o[i0 + k] = silu_mul_one(gate[i0 + k], up[i0 + k]);
                } else {
#ifndef KC_CONTROL_tail_skip
                    // (KC_CONTROL_tail_skip plants: the short final run of d % V elements per row is dropped)
#ifdef KC_CONTROL_oob_write
                    // plants: off-by-one bound on the final run (i <= d): one element past the row, past the end on the last token
                    for (long long i = i0; i <= d; ++i)
#else
                    for (long long i = i0; i < d; ++i)
#endif
                        o[i] = silu_mul_one(gate[i], up[i]);
#endif
                }
            }
        }
    }
}

} // namespace sm

extern "C" {

__global__ void __launch_bounds__(sm::kBlock) silu_mul_f32(float *out, const float *x, long long tokens, long long d)
{ sm::silu_mul_rows<float>(out, x, tokens, d); }
__global__ void __launch_bounds__(sm::kBlock) silu_mul_f16(__half *out, const __half *x, long long tokens, long long d)
{ sm::silu_mul_rows<__half>(out, x, tokens, d); }
__global__ void __launch_bounds__(sm::kBlock) silu_mul_bf16(__nv_bfloat16 *out, const __nv_bfloat16 *x, long long tokens, long long d)
{ sm::silu_mul_rows<__nv_bfloat16>(out, x, tokens, d); }

} // extern "C"
