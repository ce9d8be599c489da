// gemv_ref.cu — gemv_ref, the float64 device reference of every gemv.* contract
// (gemv.f16, gemv.bf16, gemv.batch.f16, gemv.batch.bf16): the CUDA twin of
// gemv_reference in gemv_contract.c.
//
//     y[m, n] = sum_k W[n, k] * x[m, k]      W [N, K], x [M, ldx], f16 or bf16
//
// Arguments (as the contracts): 0 y (out, M*N), 1 W, 2 x; shape d[0] M, d[1] N,
// d[2] K, d[3] ldx. Like the host, W and x are both decoded with W's dtype.
// Each y element is the host's sum: double, from +0, k = 0 .. K-1 in order,
// one term W * x per k; the products of two f16 or two bf16 values are exact in
// double, so the fused multiply-adds of kernels/gemm/gemm_ref.cuh (where the
// operands are x * W: multiplication commutes) round exactly as the host's
// multiply then add. Agreement: bitwise.
//
// Launch: the default reference grid; M <= 8, so 8 x 32 tiles of y, each
// streaming 32 rows of W once (gemm_ref.cuh: each tile walks all of K, so the
// tiles' count, 4752 for qwen2.5-7b.lm_head.m4's 4 x 152064 x 3584, is the
// parallelism).
#include "gemm/gemm_ref.cuh"

// x as the activation (rows of stride ldx), W as the weight, both decoded with
// W's dtype as the host's table does.
struct gemv_op {
    const void *W, *x;
    kc_dtype dt;
    long long M, N, K, ldx;
    double *C;
    __device__ double a(long long m, long long k) const { return kc_cvt_load(dt, x, (size_t)(m * ldx + k)); }
    __device__ double b(long long n, long long k) const { return kc_cvt_load(dt, W, (size_t)(n * K + k)); }
};

extern "C" __global__ void __launch_bounds__(kc_gemm_ref::THREADS, 2) gemv_ref(kc_dref r)
{
    const gemv_op op = { r.in[1], r.in[2], r.dtype[1], r.shape.d[0], r.shape.d[1], r.shape.d[2], r.shape.d[3], r.out[0] };
    kc_gemm_ref::run<false>(op);
}
