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
#include <math.h>
#include "kcontract_device.cuh"
#include "kcontract_rowfold.h"

enum { LN_OUT = 0, LN_X = 1, LN_W = 2, LN_B = 3, LN_EPS = 4 };

extern "C" __global__ void layernorm_ref(kc_dref r)
{
    const long long hidden = r.shape.d[1];
    const kc_rowgroup g = kc_rowgroup_of(r.shape.d[0]);
    if (!g.rows) return;
    const double eps = (double)(float)r.scalar[LN_EPS];
    double *rmean = kc_rowfold_slots(0), *rrinv = kc_rowfold_slots(1);
    auto x = [&](long long t, long long j) { return kc_dref_in(r, LN_X, (size_t)(t * hidden + j)); };

    double s = 0;
    kc_rowfold(g, hidden, x, [&](double &v, long long) { s += v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rmean, s / (double)hidden);

    auto dd = [&](long long t, long long j) {
        const double d = x(t, j) - rmean[t - g.row0];
        return d * d;
    };
    double ss = 0;
    kc_rowfold(g, hidden, dd, [&](double &v, long long) { ss += v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rrinv, 1.0 / sqrt(ss / (double)hidden + eps));

    kc_rowgroup_each(g, hidden, [&](long long t, long long j) {
        r.out[LN_OUT][t * hidden + j] = (x(t, j) - rmean[t - g.row0]) * rrinv[t - g.row0] * kc_dref_in(r, LN_W, (size_t)j) +
                                        kc_dref_in(r, LN_B, (size_t)j);
    });
}
