// reduction_ref.cu — the float64 device references of
// kernels/reduction/reduction_contract.c, one kernel per host reference, each
// for every input dtype (read through kc_dref_in, which decodes as the host's
// red_load does; NaN payloads aside, and any NaN is NaN to the comparison):
//   reduce_sum_ref  reduce_sum.{f32,f16,bf16}  (sum_rows): s = ((0 + x_0) + x_1) + ...
//   reduce_max_ref  reduce_max.{f32,f16,bf16}  (max_rows): m from -inf, the
//                   first larger entry (if (v > m) m = v), NaN once any is NaN
// reduce_sum_ref in column order (kcontract_rowfold.h: one lane walks the
// row); reduce_max_ref with the warp's lanes reading the row together
// (kc_rowfold_first_max: a maximum of exact values, ties to the lowest
// column). Additions and comparisons only: bitwise equal to the host.
#include <math.h>
#include "kcontract_device.cuh"
#include "kcontract_rowfold.h"

enum { RED_X = 0, RED_OUT = 1 };

extern "C" __global__ void reduce_sum_ref(kc_dref r)
{
    const long long cols = r.shape.d[1];
    const kc_rowgroup g = kc_rowgroup_of(r.shape.d[0]);
    if (!g.rows) return;
    auto x = [&](long long row, long long c) { return kc_dref_in(r, RED_X, (size_t)(row * cols + c)); };
    double s = 0.0;
    kc_rowfold(g, cols, x, [&](double &v, long long) { s += v; }, kc_rowfold_no_emit());
    if (g.lane < g.rows) r.out[RED_OUT][g.row0 + g.lane] = s;
}

extern "C" __global__ void reduce_max_ref(kc_dref r)
{
    const long long cols = r.shape.d[1];
    const kc_rowgroup g = kc_rowgroup_of(r.shape.d[0]);
    if (!g.rows) return;
    auto x = [&](long long row, long long c) { return kc_dref_in(r, RED_X, (size_t)(row * cols + c)); };
    // The host breaks out of the row at its first NaN (nothing after it
    // matters): NaN when the row holds one, else its first largest entry.
    const kc_rowmax m = kc_rowfold_first_max(g, cols, x);
    if (g.lane < g.rows) r.out[RED_OUT][g.row0 + g.lane] = m.nan ? (double)NAN : m.v;
}
