// gemm_ref.cu — gemm_nt_ref, the float64 device reference of every gemm.* and
// cublas_gemm.* contract: the CUDA twin of kc_ref_gemm_nt (src/core/ref_gemm.c).
//
//     C[m, n] = sum_k A[m, k] * B[n, k]      A [M, K], B [N, K], f16 or bf16
//
// Arguments (as the contracts): 0 C (out, M*N), 1 A, 2 B; shape d[0] M, d[1] N,
// d[2] K. Like the host, both operands are decoded with A's dtype (the
// contracts give A and B the same one). Each C element is the host's sum:
// double, from +0, k = 0 .. K-1 in order; the products of two f16 (22
// significant bits) or two bf16 (16 bits) values are exact in double, so the
// fused multiply-adds of gemm_ref.cuh round exactly as the host's multiply
// then add. Agreement: bitwise.
//
// Launch: the default reference grid (4 blocks of 256 threads per SM); the
// blocks walk the C tiles. Large shape (1024 x 4096 x 4096, 1.7e10 terms):
// 256 tiles of 128 x 128 on 132 SMs, about 1.5 ms at ~70% of the H200's FP64
// FMA rate; cublas_gemm's 2048 x 4096 x 4096 twice that.
#include "gemm_ref.cuh"

// The NT product's operands as doubles, as kc_ref_gemm_nt's table gives them.
struct gemm_nt_op {
    const void *A, *B;
    kc_dtype dt;          // A's dtype, for both (as the host's decoding table)
    long long M, N, K;
    double *C;
    __device__ double a(long long m, long long k) const { return kc_cvt_load(dt, A, (size_t)(m * K + k)); }
    __device__ double b(long long n, long long k) const { return kc_cvt_load(dt, B, (size_t)(n * K + k)); }
};

extern "C" __global__ void __launch_bounds__(kc_gemm_ref::THREADS, 1) gemm_nt_ref(kc_dref r)
{
    const gemm_nt_op op = { r.in[1], r.in[2], r.dtype[1], r.shape.d[0], r.shape.d[1], r.shape.d[2], r.out[0] };
    kc_gemm_ref::run<true>(op);
}
