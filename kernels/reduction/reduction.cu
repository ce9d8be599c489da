// reduction.cu — row reductions of a row-major [rows, cols] matrix to f32:
//   reduce_sum_{f32,f16,bf16}(x, out, rows, cols):  out[r] = sum_c x[r, c]
//   reduce_max_{f32,f16,bf16}(x, out, rows, cols):  out[r] = max_c x[r, c]
// One block per row (grid-stride over rows), any multiple of 32 threads up
// to 1024 (the launch uses non-power-of-two sizes such as 96, 448 or 544).
// Each thread accumulates a strided slice of the row in f32, in a fixed
// order; warps reduce with xor shuffles, warp partials go through shared
// memory to warp 0. Deterministic: no atomics, order fixed by thread index.
// Max propagates NaN (like torch.amax): a row containing NaN gives NaN.
// Every NaN result is stored as the canonical quiet NaN 0x7fffffff (a NaN
// input's payload is not carried through, so no output can look like poison).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <math.h>

namespace red {

constexpr int kMaxThreads = 1024;

__device__ __forceinline__ float to_f32(float v) { return v; }
#ifdef KC_CONTROL_subnormal_flush
// plants: a half-to-float conversion with no subnormal path: halves with a zero exponent field
// (the f16 subnormals, |x| < 2^-14 = 6.1e-5) read as signed zero. Random f16 rows hold about 5e-5
// subnormals per element, ~7 in a 152064-column row, whose loss (~1e-4 in all) hides under the sum's
// atol 2e-3; a DENORMAL row's sum, ~sqrt(cols) x 3.5e-5 (0.0125 at 128256 columns), becomes 0.
__device__ __forceinline__ float to_f32(__half v)
{
    const unsigned short b = __half_as_ushort(v);
    return (b & 0x7c00u) ? __half2float(v) : ((b & 0x8000u) ? -0.0f : 0.0f);
}
#else
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
#endif
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

// Rounds an f32 value to T's precision and back (identity for f32).
__device__ __forceinline__ float round_to(float v, float) { return v; }
__device__ __forceinline__ float round_to(float v, __half) { return __half2float(__float2half_rn(v)); }
__device__ __forceinline__ float round_to(float v, __nv_bfloat16) { return __bfloat162float(__float2bfloat16_rn(v)); }

struct SumOp {
    static __device__ __forceinline__ float identity() { return 0.0f; }
    static __device__ __forceinline__ float apply(float a, float b) { return a + b; }
};
struct MaxOp {
    static __device__ __forceinline__ float identity() { return -INFINITY; }
    // NaN-propagating max: NaN if either operand is NaN.
    static __device__ __forceinline__ float apply(float a, float b) { return (a > b || a != a) ? a : b; }
};

// Combines a and b in the accumulator precision: f32 normally; the storage
// type T under the planted half-precision-accumulation control.
template <typename Op, typename T>
__device__ __forceinline__ float combine(float a, float b)
{
#ifdef KC_CONTROL_half_accum
    // plants: accumulation in the input's 16-bit type (every partial rounded to f16/bf16): overflows to inf / loses precision
    return round_to(Op::apply(a, b), T());
#else
    return Op::apply(a, b);
#endif
}

__device__ __forceinline__ float canonical(float v) { return v != v ? __int_as_float(0x7fffffff) : v; }

template <typename Op, typename T>
__device__ __forceinline__ float warp_reduce(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = combine<Op, T>(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

template <typename Op, typename T>
__device__ __forceinline__ void reduce_rows(const T *__restrict__ x, float *__restrict__ out, long long rows, long long cols)
{
    __shared__ float warp_part[32];
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;
    (void)nwarps;

    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
#ifdef KC_CONTROL_int32_index
        // plants: row offset computed in 32-bit unsigned byte arithmetic: wraps at 4 GiB, rows past it re-read the start of x
        const unsigned row_bytes = (unsigned)cols * (unsigned)sizeof(T);
        const T *xr = reinterpret_cast<const T *>(reinterpret_cast<const char *>(x) + (unsigned)row * row_bytes);
#else
        const T *xr = x + row * cols;
#endif
        float acc = Op::identity();
        for (long long c = tid; c < cols; c += blockDim.x)
            acc = combine<Op, T>(acc, to_f32(xr[c]));
        acc = warp_reduce<Op, T>(acc);
        if (lane == 0)
            warp_part[warp] = acc;
        __syncthreads();
#ifdef KC_CONTROL_pow2_block
        // plants: shared-memory tree over the warp partials that assumes a power-of-two warp count (3, 14, 17 warps drop partials)
        for (int s = nwarps / 2; s > 0; s >>= 1) {
            if (tid < s)
                warp_part[tid] = combine<Op, T>(warp_part[tid], warp_part[tid + s]);
            __syncthreads();
        }
        if (tid == 0)
            out[row] = canonical(warp_part[0]);
#else
        if (warp == 0) {
#ifdef KC_CONTROL_smem_unwritten
            // plants: warp 0 reads all 32 partial slots although only nwarps were written (poisoned shared memory joins the result)
            float v = warp_part[lane];
#else
            float v = lane < nwarps ? warp_part[lane] : Op::identity();
#endif
            v = warp_reduce<Op, T>(v);
            if (lane == 0)
                out[row] = canonical(v);
        }
#endif
        __syncthreads();   // warp_part is rewritten for the next row
    }
}

} // namespace red

extern "C" {

#define RED_ENTRY(name, Op, T) \
    __global__ void __launch_bounds__(red::kMaxThreads) name(const T *x, float *out, long long rows, long long cols) \
    { red::reduce_rows<red::Op, T>(x, out, rows, cols); }

RED_ENTRY(reduce_sum_f32, SumOp, float)
RED_ENTRY(reduce_sum_f16, SumOp, __half)
RED_ENTRY(reduce_sum_bf16, SumOp, __nv_bfloat16)
RED_ENTRY(reduce_max_f32, MaxOp, float)
RED_ENTRY(reduce_max_f16, MaxOp, __half)
RED_ENTRY(reduce_max_bf16, MaxOp, __nv_bfloat16)

} // extern "C"
