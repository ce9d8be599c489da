// softmax_ref.cu — the float64 device reference of softmax.{f32,f16,bf16}
// (kernels/softmax/softmax_contract.c, softmax_rows), one kernel for all three:
// the input is read through kc_dref_in, whatever its dtype.
//
// Per row, in the host's order (kcontract_rowfold.h: one lane walks the row):
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
#include <math.h>
#include "kcontract_device.cuh"
#include "kcontract_rowfold.h"

enum { SM_OUT = 0, SM_IN = 1 };

extern "C" __global__ void softmax_ref(kc_dref r)
{
    const long long cols = r.shape.d[1];
    const kc_rowgroup g = kc_rowgroup_of(r.shape.d[0]);
    if (!g.rows) return;
    double *y = r.out[SM_OUT];
    double *rmax = kc_rowfold_slots(0), *rsum = kc_rowfold_slots(1);
    auto x = [&](long long row, long long c) { return kc_dref_in(r, SM_IN, (size_t)(row * cols + c)); };

    double m = -INFINITY;
    kc_rowfold(g, cols, x, [&](double &v, long long) { if (v > m) m = v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rmax, m);

    double sum = 0;
    auto e = [&](long long row, long long c) { return exp(x(row, c) - rmax[row - g.row0]); };
    kc_rowfold(g, cols, e, [&](double &v, long long) { sum += v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rsum, sum);

    kc_rowgroup_each(g, cols, [&](long long row, long long c) {
        const double mr = rmax[row - g.row0];
        y[row * cols + c] = mr == -INFINITY ? (double)NAN : e(row, c) / rsum[row - g.row0];
    });
}
