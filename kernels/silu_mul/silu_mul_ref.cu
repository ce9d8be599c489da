// silu_mul_ref.cu — the float64 device reference of silu_mul.{f32,f16,bf16}
// (kernels/silu_mul/silu_mul_contract.c, silu_mul_rows), one kernel for all
// three (inputs read through kc_dref_in): out[t][i] = g / (1.0 + exp(-g)) * u,
// g = x[t][i], u = x[t][d + i], evaluated left to right as the host does.
//
// Agreement: not bitwise. CUDA's exp and glibc's differ by at most one ulp
// (CUDA: <= 1 ulp from the true value; glibc: <= 0.51). 1 + exp(-g) then
// differs by up to 2 ulps (a rounding tie can go the other way, seen at
// exp(-g) ~ 2^53), g / (...) by one more rounding, * u by one more: at most
// 8 x 2^-53 = 8.9e-16 relative (a host simulation of 2e8 values with exp one
// ulp off either way reached 7.2 x 2^-53); rtol 2e-15. The result is a
// product, never a difference, so no cancellation; atol 1e-300 only covers
// subnormal results. Specials (inf, NaN) are exact on both sides: exp(+-inf)
// and exp(NaN) are.
#include <math.h>
#include "kcontract_device.cuh"

enum { SILU_OUT = 0, SILU_X = 1 };

// Blocks stride over tokens, threads over a token's d outputs (coalesced, no division).
extern "C" __global__ void silu_mul_ref(kc_dref r)
{
    const long long tokens = r.shape.d[0], d = r.shape.d[1];
    for (long long t = blockIdx.x; t < tokens; t += gridDim.x)
        for (long long i = threadIdx.x; i < d; i += blockDim.x) {
            const double g = kc_dref_in(r, SILU_X, (size_t)(t * 2 * d + i));
            const double u = kc_dref_in(r, SILU_X, (size_t)(t * 2 * d + d + i));
            r.out[SILU_OUT][t * d + i] = g / (1.0 + exp(-g)) * u;
        }
}
