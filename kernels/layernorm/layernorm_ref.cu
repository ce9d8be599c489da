// layernorm_ref.cu — the float64 device reference of layernorm.{f32,f16,bf16}
// (kernels/layernorm/layernorm_contract.c, layernorm_rows), one kernel for
// all three (inputs read through kc_dref_in).
//
// Per token, in the host's order (kcontract_rowfold.h: one lane walks the row):
//   s    = ((0 + x_0) + x_1) + ...;              mean = s / hidden
//   ss   = ((0 + d_0*d_0) + d_1*d_1) + ..., d_j = x_j - mean
//   rinv = 1.0 / sqrt(ss / hidden + eps), eps the f32 value the kernel gets
//   y_j  = (x_j - mean) * rinv * w_j + b_j      (left to right, no fma)
// Only + - * / and sqrt, all correctly rounded on both sides: bitwise equal.
// The arithmetic is kcontract_dref_common.cuh's kc_dref_layernorm (the
// common device reference, the same code a user's contract calls), by name.
#include "kcontract_dref_common.cuh"

extern "C" __global__ void layernorm_ref(const __grid_constant__ kc_dref r)
{
    kc_dref_layernorm(r, "out", "x", "w", "b", r.shape.d[1], (double)(float)r.scalar[kc_dref_arg(r, "eps")]);
}
