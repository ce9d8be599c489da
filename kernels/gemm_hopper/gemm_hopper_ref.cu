// gemm_hopper_ref.cu — gemm_fp8_blockscaled_ref, the float64 device reference
// of gemm_hopper.fp8: the CUDA twin of gh_fp8_reference in
// gemm_hopper_contract.c. (gemm_hopper.bf16 uses gemm_nt_ref, kernels/gemm/.)
//
//     C[m, n] = sum_k (A[m, k] SA[m, k / 128]) (B[n, k] SB[n / 128, k / 128])
//
// Arguments (as the contract): 0 C (out, M*N), 1 A (e4m3, [M, K]), 2 B
// (e4m3, [N, K]), 3 and 4 the tensor maps (no data here), 5 SA (f32, [M,
// ceil(K/128)]), 6 SB (f32, [ceil(N/128), ceil(K/128)]); shape d[0] M, d[1] N,
// d[2] K. As on the host, each operand is dequantized in double (an e4m3
// value, at most 4 significant bits, times its scale, which the contract's
// generator gives at most 8: exact) and each C element is the sum, from +0,
// k = 0 .. K-1 in order, of the products, which have at most 24 significant
// bits and are exact in double: the fused multiply-adds of
// kernels/gemm/gemm_ref.cuh round as the host's multiply then add.
// Agreement: bitwise.
//
// Launch: the default reference grid. Large shape (2048 x 4096 x 4096,
// 3.4e10 terms): about 3 ms on an H200's FP64 units, as gemm_nt_ref's.
#include "gemm/gemm_ref.cuh"

struct fp8_blockscaled_op {
    const uint8_t *A, *B;
    const float *SA, *SB;
    long long M, N, K, nkb;   // nkb: scale blocks per row of SA and SB
    double *C;
    __device__ double a(long long m, long long k) const
    {
        return kc_cvt_e4m3_to_double(A[m * K + k]) * (double)SA[m * nkb + k / 128];
    }
    __device__ double b(long long n, long long k) const
    {
        return kc_cvt_e4m3_to_double(B[n * K + k]) * (double)SB[(n / 128) * nkb + k / 128];
    }
};

extern "C" __global__ void __launch_bounds__(kc_gemm_ref::THREADS, 1) gemm_fp8_blockscaled_ref(kc_dref r)
{
    const long long K = r.shape.d[2];
    const fp8_blockscaled_op op = { (const uint8_t *)r.in[1], (const uint8_t *)r.in[2], (const float *)r.in[5],
                                    (const float *)r.in[6], r.shape.d[0], r.shape.d[1], K, (K + 127) / 128,
                                    r.out[0] };
    kc_gemm_ref::run<true>(op);
}
