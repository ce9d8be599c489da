// fp8_gemv_ref.cu — fp8_gemv_ref, the float64 device reference of fp8_gemv.f16
// and fp8_gemv.bf16: the CUDA twin of f8_reference in fp8_gemv_contract.c.
//
//     y[m, n] = sum_k x[m, k] * (W[n, k] * S[n / 128, k / 128])
//
// Arguments (as the contracts): 0 y (out, M*N), 1 W (e4m3, [N, K]), 2 S (f32,
// [ceil(N/128), ceil(K/128)]), 3 x (f16 or bf16, [M, K]); shape d[0] M, d[1] N,
// d[2] K. As on the host, each weight is dequantized in double, w = e4m3 value
// * (double) its block's scale (4 x 24 significant bits: exact), and each y
// element is the sum, from +0, k = 0 .. K-1 in order, of w * x. That product
// has at most 4 + 24 + 11 = 39 significant bits (exponents within 2^-291 ..
// 2^265), exact in double, so the fused multiply-adds of
// kernels/gemm/gemm_ref.cuh round exactly as the host's multiply then add.
// Agreement: bitwise.
//
// Launch: the default reference grid; M <= 8, so 8 x 32 tiles of y, each
// dequantizing 32 rows of W once (gemm_ref.cuh: each tile walks all of K, so
// the tiles' count, 4008 for llama3-8b.lm_head's 1 x 128256 x 4096, is the
// parallelism).
#include "gemm/gemm_ref.cuh"

// x as the activation, the dequantized W as the weight.
struct fp8_gemv_op {
    const uint8_t *W;
    const float *S;
    const void *x;
    kc_dtype xt;
    long long M, N, K, nkb;   // nkb: scale blocks per row of S
    double *C;
    __device__ double a(long long m, long long k) const { return kc_cvt_load(xt, x, (size_t)(m * K + k)); }
    __device__ double b(long long n, long long k) const
    {
        return kc_cvt_e4m3_to_double(W[n * K + k]) * (double)S[(n / 128) * nkb + k / 128];
    }
};

extern "C" __global__ void __launch_bounds__(kc_gemm_ref::THREADS, 2) fp8_gemv_ref(kc_dref r)
{
    const long long K = r.shape.d[2];
    const fp8_gemv_op op = { (const uint8_t *)r.in[1], (const float *)r.in[2], r.in[3], r.dtype[3],
                             r.shape.d[0], r.shape.d[1], K, (K + 127) / 128, r.out[0] };
    kc_gemm_ref::run<false>(op);
}
