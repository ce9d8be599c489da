// quant_fp8_ref.cu — quant_fp8_tensor_ref, the float64 device reference of
// both quant_fp8.tensor.* contracts: the CUDA twin of qf_reference in
// quant_fp8_contract.c.
//
//     scale = max(f32(amax / 448), f32(1 / 229376)),  amax = max |x|
//     q[i]  = e4m3_satfinite(f32(x[i] * f32(1 / scale)))
//
// Arguments (as the contracts): 0 q (out, n), 1 scale (out, 1), 2 x (f16 or
// bf16, n). A maximum is exact in any order, so the tensor's amax is the
// host's whatever the grid; the divisions are IEEE double on both sides, the
// f32 roundings the C cast's (round to nearest even), and the e4m3 rounding
// kcontract_dtype.h's, which the host's kc_double_to_e4m3 calls. Agreement:
// bitwise.
//
// Launch: the contract's own (qf_launch: cooperative, at most 2 blocks of 256
// threads per SM, none idle). Each block writes its maximum into q[block]
// (the grid has at most ceil(n / 256) blocks, so q has room), the grid syncs,
// every block reduces those maxima, the grid syncs again (no block writes q
// before all have read them), and every block quantizes its grid-stride
// elements. The large shape (8192 x 8192) reads x twice and writes 512 MB
// of doubles: a few milliseconds, against a host reference that downloaded x
// and uploaded q.
#include <cooperative_groups.h>
#include "kcontract_device.cuh"

namespace cg = cooperative_groups;

enum { QF_Q = 0, QF_SCALE = 1, QF_X = 2 };

extern "C" __global__ void __launch_bounds__(256, 2) quant_fp8_tensor_ref(kc_dref r)
{
    __shared__ double part[32];
    const unsigned long long n = r.count[QF_X];
    double m = 0;
    KC_GRID_STRIDE(i, n) {
        const double a = fabs(kc_dref_in(r, QF_X, i));
        if (a > m) m = a;
    }
    m = kc_dref_block_max(m, part);
    if (threadIdx.x == 0) r.out[QF_Q][blockIdx.x] = m;
    cg::this_grid().sync();
    double amax = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        if (r.out[QF_Q][b] > amax) amax = r.out[QF_Q][b];
    amax = kc_dref_block_max(amax, part);
    cg::this_grid().sync();
    double s = (double)(float)(amax / 448.0);
    const double floor_s = (double)(float)(1.0 / 229376.0);
    if (s < floor_s) s = floor_s;
    const double inv = (double)(float)(1.0 / s);
    KC_GRID_STRIDE(i, n) {
        const double v = (double)(float)(kc_dref_in(r, QF_X, i) * inv);
        r.out[QF_Q][i] = kc_cvt_e4m3_to_double(kc_cvt_double_to_e4m3(v));
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) r.out[QF_SCALE][0] = s;
}
