// rmsnorm_ref.cu — the float64 device references of
// kernels/rmsnorm/rmsnorm_contract.c, one kernel per host reference, each for
// all three dtypes (inputs read through kc_dref_in):
//   rmsnorm_ref            rmsnorm.{f32,f16,bf16}            (rmsnorm_rows)
//   fused_add_rmsnorm_ref  fused_add_rmsnorm.{f32,f16,bf16}  (fused_add_rmsnorm_rows)
//
// Per token, in the host's order (kcontract_rowfold.h: one lane walks the row):
//   ss   = ((0 + v_0*v_0) + v_1*v_1) + ...
//   rinv = 1.0 / sqrt(ss / hidden + eps), eps the double scalar (as the host)
//   y_j  = v_j * rinv * w_j                     (left to right, no fma)
// where v is x (rmsnorm) or, fused, z = the stored residual x + residual
// rounded to f32 and then to the dtype (rms_round), which is also written to
// the residual output. Only + * / sqrt and exact conversions: bitwise equal.
#include <math.h>
#include "kcontract_dref_common.cuh"

enum { FR_X = 0, FR_RES = 1, FR_W = 2, FR_EPS = 3 };

// rms_round: the value the kernel stores for x + r, f32 add (RNE) then RNE
// to dtype t, as a double.
static __device__ double rms_round(kc_dtype t, double v)
{
    v = (double)(float)v;
    if (t == KC_F16) return kc_cvt_f16_to_double(kc_cvt_double_to_f16(v));
    if (t == KC_BF16) return kc_cvt_bf16_to_double(kc_cvt_double_to_bf16(v));
    return v;
}

// kcontract_dref_common.cuh's kc_dref_rmsnorm (the common device reference,
// the same code a user's contract calls), by name.
extern "C" __global__ void rmsnorm_ref(const __grid_constant__ kc_dref r)
{
    kc_dref_rmsnorm(r, "out", "x", "w", r.shape.d[1], r.scalar[kc_dref_arg(r, "eps")]);
}

extern "C" __global__ void fused_add_rmsnorm_ref(const __grid_constant__ kc_dref r)
{
    const long long hidden = r.shape.d[1];
    const kc_rowgroup g = kc_rowgroup_of(r.shape.d[0]);
    if (!g.rows) return;
    const double eps = r.scalar[FR_EPS];
    const kc_dtype dt = r.dtype[FR_X];
    double *rrinv = kc_rowfold_slots(0);
    auto z = [&](long long t, long long j) {
        const size_t i = (size_t)(t * hidden + j);
        return rms_round(dt, kc_dref_in(r, FR_X, i) + kc_dref_in(r, FR_RES, i));
    };
    // The term stores the residual (each element once) and stages z*z.
    auto sq = [&](long long t, long long j) {
        const double v = z(t, j);
        r.out[FR_RES][t * hidden + j] = v;
        return v * v;
    };
    double ss = 0;
    kc_rowfold(g, hidden, sq, [&](double &v, long long) { ss += v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rrinv, 1.0 / sqrt(ss / (double)hidden + eps));
    kc_rowgroup_each(g, hidden, [&](long long t, long long j) {
        r.out[FR_X][t * hidden + j] = z(t, j) * rrinv[t - g.row0] * kc_dref_in(r, FR_W, (size_t)j);
    });
}
