// softmax_ref.cu — the float64 device reference of softmax.{f32,f16,bf16}
// (kernels/softmax/softmax_contract.c, softmax_rows), one kernel for all three:
// the input is read through kc_dref_in, whatever its dtype.
//
// Per row, in the host's order (kcontract_rowfold.h: the max by the warp's lanes
// together, kc_rowfold_first_max, the same value; the sum by one lane walking the row):
//   m   = the first largest entry (if (v > m) m = v, from -inf: NaN skipped);
//   a row with m == -inf is NaN everywhere;
//   sum = ((0 + e_0) + e_1) + ..., e_c = exp(x_c - m), in column order;
//   y_c = e_c / sum (e_c recomputed: the same exp of the same argument).
//
// Agreement: not bitwise. CUDA's exp and glibc's differ by at most one ulp
// (CUDA: <= 1 ulp from the true value; glibc: <= 0.51), so each e_c is within
// 2^-52 relative; the sum takes that and, where a changed term flips a
// rounding (ties included), an ulp of a partial sum; the division one more
// rounding. A host simulation with every exp moved one ulp either way (rows of
// 2 to 152064 entries, 2e5 rows each) gave at most 1.1e-15 (10 x 2^-53)
// relative in y; rtol 4e-15 leaves a factor ~3.5. atol 1e-300 only covers exps
// that underflow into subnormals (an ulp there is 4.9e-324 absolute; sum >= 1).
// No discrete choice depends on an exp: m is a max of inputs, exact.
// The arithmetic is kcontract_dref_common.cuh's kc_dref_softmax (the common
// device reference, the same code a user's contract calls), by name.
#include "kcontract_dref_common.cuh"

extern "C" __global__ void softmax_ref(const __grid_constant__ kc_dref r)
{
    kc_dref_softmax(r, "out", "in", r.shape.d[1]);
}
