// pdl_ref.cu — pdl_token_quant_ref, the float64 device reference of both
// pdl.token_quant_fp8.* contracts: the CUDA twin of pq_reference in
// pdl_contract.c (what the two steps compute together).
//
//     scale[r] = max(f32(amax_r / 448), f32(1 / 229376)),  amax_r = max |x[r, :]|
//     q[r, c]  = e4m3_satfinite(f32(x[r, c] * f32(1 / scale[r])))
//
// Arguments (as the contracts): 0 q (out, tokens x hidden), 1 scale (out,
// tokens), 2 x (f16 or bf16); shape d[0] tokens, d[1] hidden. A maximum is
// exact in any order, the divisions are IEEE double on both sides, the f32
// roundings the C cast's and the e4m3 rounding kcontract_dtype.h's, which
// the host's kc_double_to_e4m3 calls. Agreement: bitwise.
//
// Launch: the dependent step's (pq_dependent_launch): one block of 256 threads a row; the large shape
// (8192 x 8192) reads x twice and writes 512 MB of doubles in a few
// milliseconds, against a host reference that downloaded x and uploaded q.
#include "kcontract_device.cuh"

enum { PQ_Q = 0, PQ_SCALE = 1, PQ_X = 2 };

extern "C" __global__ void __launch_bounds__(256) pdl_token_quant_ref(kc_dref r)
{
    __shared__ double part[32];
    const long long cols = r.shape.d[1];
    const unsigned long long base = (unsigned long long)blockIdx.x * (unsigned long long)cols;
    double m = 0;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
        const double a = fabs(kc_dref_in(r, PQ_X, base + c));
        if (a > m) m = a;
    }
    const double amax = kc_dref_block_max(m, part);
    double s = (double)(float)(amax / 448.0);
    const double floor_s = (double)(float)(1.0 / 229376.0);
    if (s < floor_s) s = floor_s;
    const double inv = (double)(float)(1.0 / s);
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
        const double v = (double)(float)(kc_dref_in(r, PQ_X, base + c) * inv);
        r.out[PQ_Q][base + c] = kc_cvt_e4m3_to_double(kc_cvt_double_to_e4m3(v));
    }
    if (threadIdx.x == 0) r.out[PQ_SCALE][blockIdx.x] = s;
}
