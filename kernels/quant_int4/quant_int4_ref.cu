// quant_int4_ref.cu — quant_int4_ref, the float64 device reference of every
// quant_int4.* contract (gemv and gemm, G = 32 and 128): the CUDA twin of
// q4_reference in quant_int4_contract.c.
//
//     y[m, n] = sum_k x[m, k] * ((q[n, k] - z[n, k/G]) * s[n, k/G])
//
// Arguments (as the contracts): 0 y (out, M*N), 1 x (f16, [M, K]), 2 qweight
// (u8, [N, ceil(K/2)], element k in byte k/2, even k the low nibble), 3 scales
// (f16, [N, ceil(K/G)]), 4 zeros (u8, same); shape d[0] M, d[1] N, d[2] K,
// d[3] G. As on the host, each weight is dequantized in double, w = (double)(q
// - z) * s (|q - z| <= 15 times an f16: exact), and each y element is the sum,
// from +0, k = 0 .. K-1 in order, of w * x. That product has at most 4 + 11 +
// 11 = 26 significant bits, exact in double, so the fused multiply-adds of
// kernels/gemm/gemm_ref.cuh round exactly as the host's multiply then add.
// Agreement: bitwise.
//
// Launch: the default reference grid; 8 x 32 tiles of y for M <= 8, 64 x 64
// otherwise (M up to 65). Largest shape (llama3-8b.up_proj.t64: 64 x 14336 x
// 4096, 3.8e9 terms): 224 tiles of 64 x 64, well under 1 ms. One block per SM:
// the dequantizing loads take ~250 registers (capped at 128 for two blocks,
// ptxas spills).
#include "gemm/gemm_ref.cuh"

// x as the activation, the dequantized int4 weight as the weight.
struct quant_int4_op {
    const uint16_t *x, *scales;
    const uint8_t *qw, *zeros;
    long long M, N, K, G, KB, ng;   // KB: bytes per row of qweight; ng: groups per row
    double *C;
    __device__ double a(long long m, long long k) const { return kc_cvt_f16_to_double(x[m * K + k]); }
    __device__ double b(long long n, long long k) const
    {
        const uint8_t byte = qw[n * KB + k / 2];
        const int q = (k % 2 == 0) ? (byte & 15) : (byte >> 4);
        const long long g = n * ng + k / G;
        return (double)(q - (int)zeros[g]) * kc_cvt_f16_to_double(scales[g]);
    }
};

extern "C" __global__ void __launch_bounds__(kc_gemm_ref::THREADS, 1) quant_int4_ref(kc_dref r)
{
    const long long K = r.shape.d[2], G = r.shape.d[3];
    const quant_int4_op op = { (const uint16_t *)r.in[1], (const uint16_t *)r.in[3], (const uint8_t *)r.in[2],
                               (const uint8_t *)r.in[4], r.shape.d[0], r.shape.d[1], K, G, (K + 1) / 2,
                               (K + G - 1) / G, r.out[0] };
    kc_gemm_ref::run<false>(op);
}
