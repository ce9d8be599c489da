// elementwise.cu — vectorized elementwise kernels:
//   axpy_{f32,f16,bf16}:          y[i] = a * x[i] + y[i]          (y in place, a float)
//   residual_add_{f16,bf16}:      out[i] = x[i] + residual[i]
// Each thread moves 16 bytes per step (4 f32 or 8 f16/bf16) through a
// grid-stride loop with 64-bit indexes; the last n % V elements (or all of
// them when a pointer is not 16-byte aligned) go through a scalar tail loop.
// Arithmetic is f32 (fmaf for axpy), rounded once to the storage type.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

namespace ew {

constexpr int kBlock = 256;

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }
#ifdef KC_CONTROL_truncating_store
// plants: the bf16 store truncates (round toward zero) instead of rounding to nearest. Every
// result stays within one bf16 ulp, 2^-7 |ref| < rtol 1.6e-2 |ref|: the tolerance passes; but the
// errors lean toward zero by about a quarter (residual_add) to a half (axpy) of an ulp, where a
// rounded-once result allows 1/32 + 6 x 0.289/sqrt(n): only gate 3's error statistics see it.
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rz(v); }
#else
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
#endif

// 16 bytes of T, loaded and stored as one 128-bit access.
template <typename T> struct alignas(16) Vec {
    static constexpr int N = 16 / sizeof(T);
    T e[N];
};

__device__ __forceinline__ bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

template <typename T>
__device__ __forceinline__ void axpy_kernel(const T *__restrict__ x, T *__restrict__ y, float a, long long n)
{
    using V = Vec<T>;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long done = 0;
    if (aligned16(x) && aligned16(y)) {
        const long long nvec = n / V::N;
#ifdef KC_CONTROL_no_grid_stride
        // plants: no grid-stride loop, one vector per thread: a grid capped below n/V leaves the rest unprocessed
        for (long long v = tid; v < nvec && v < stride; v += stride) {
#else
        for (long long v = tid; v < nvec; v += stride) {
#endif
            const V xv = reinterpret_cast<const V *>(x)[v];
            V yv = reinterpret_cast<const V *>(y)[v];
#pragma unroll
            for (int k = 0; k < V::N; ++k)
                yv.e[k] = from_f32<T>(fmaf(a, to_f32(xv.e[k]), to_f32(yv.e[k])));
            reinterpret_cast<V *>(y)[v] = yv;
        }
        done = nvec * V::N;
    }
#ifndef KC_CONTROL_tail_skip
    // (KC_CONTROL_tail_skip plants: the scalar tail is dropped, the last n % V elements are never processed)
#ifdef KC_CONTROL_oob_write
    // plants: off-by-one tail bound (i <= n): element n, one past the end, is written
    for (long long i = done + tid; i <= n; i += stride)
#else
    for (long long i = done + tid; i < n; i += stride)
#endif
        y[i] = from_f32<T>(fmaf(a, to_f32(x[i]), to_f32(y[i])));
#endif
}

template <typename T>
__device__ __forceinline__ void residual_add_kernel(T *__restrict__ out, const T *__restrict__ x,
                                                    const T *__restrict__ residual, long long n)
{
    using V = Vec<T>;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long done = 0;
    if (aligned16(out) && aligned16(x) && aligned16(residual)) {
        const long long nvec = n / V::N;
#ifdef KC_CONTROL_no_grid_stride
        // plants: no grid-stride loop, one vector per thread: a grid capped below n/V leaves the rest unwritten
        for (long long v = tid; v < nvec && v < stride; v += stride) {
#else
        for (long long v = tid; v < nvec; v += stride) {
#endif
            const V xv = reinterpret_cast<const V *>(x)[v];
            const V rv = reinterpret_cast<const V *>(residual)[v];
            V ov;
#pragma unroll
            for (int k = 0; k < V::N; ++k)
                ov.e[k] = from_f32<T>(to_f32(xv.e[k]) + to_f32(rv.e[k]));
            reinterpret_cast<V *>(out)[v] = ov;
#ifdef KC_CONTROL_writes_input
            // plants: the sum is also stored back into the residual input (a fused in-place update nobody asked for)
            const_cast<V *>(reinterpret_cast<const V *>(residual))[v] = ov;
#endif
        }
        done = nvec * V::N;
#ifdef KC_CONTROL_masked_tail_read_oob
        // plants: the n % V tail is loaded as one whole vector and only its lanes below n are stored: the load
        // reads up to 16 - sizeof(T) bytes past the end of x and residual, and discards them (no output changes)
        if (done < n && tid == 0) {
            const V xv = reinterpret_cast<const V *>(x)[nvec];
            const V rv = reinterpret_cast<const V *>(residual)[nvec];
#pragma unroll
            for (int k = 0; k < V::N; ++k)
                if (done + k < n) out[done + k] = from_f32<T>(to_f32(xv.e[k]) + to_f32(rv.e[k]));
        }
        done = n;
#endif
    }
#ifndef KC_CONTROL_tail_skip
    // (KC_CONTROL_tail_skip plants: the scalar tail is dropped, the last n % V outputs stay unwritten)
#ifdef KC_CONTROL_oob_write
    // plants: off-by-one tail bound (i <= n): element n, one past the end, is written
    for (long long i = done + tid; i <= n; i += stride)
#else
    for (long long i = done + tid; i < n; i += stride)
#endif
        out[i] = from_f32<T>(to_f32(x[i]) + to_f32(residual[i]));
#endif
}

} // namespace ew

extern "C" {

__global__ void __launch_bounds__(ew::kBlock) axpy_f32(const float *x, float *y, float a, long long n)
{ ew::axpy_kernel<float>(x, y, a, n); }
__global__ void __launch_bounds__(ew::kBlock) axpy_f16(const __half *x, __half *y, float a, long long n)
{ ew::axpy_kernel<__half>(x, y, a, n); }
__global__ void __launch_bounds__(ew::kBlock) axpy_bf16(const __nv_bfloat16 *x, __nv_bfloat16 *y, float a, long long n)
{ ew::axpy_kernel<__nv_bfloat16>(x, y, a, n); }

__global__ void __launch_bounds__(ew::kBlock) residual_add_f16(__half *out, const __half *x, const __half *residual, long long n)
{ ew::residual_add_kernel<__half>(out, x, residual, n); }
__global__ void __launch_bounds__(ew::kBlock) residual_add_bf16(__nv_bfloat16 *out, const __nv_bfloat16 *x,
                                                                const __nv_bfloat16 *residual, long long n)
{ ew::residual_add_kernel<__nv_bfloat16>(out, x, residual, n); }

} // extern "C"
