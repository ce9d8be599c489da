// scan_ref.cu — the float64 device references of kernels/scan/scan_contract.c,
// one kernel per host reference, each for i32 and f32 inputs:
//   scan_incl_ref  scan.incl.{i32,f32}  out[r][j] = x_0 + ... + x_j        (scan_incl_reference)
//   scan_excl_ref  scan.excl.{i32,f32}  out[r][j] = x_0 + ... + x_{j-1},
//                                       j = 0..n (row stride n + 1)      (scan_excl_reference)
// as running sums in column order (kcontract_rowfold.h: one lane walks the
// row and overwrites each staged term with the running value, which the warp
// then stores): f32 inputs accumulate in double, i32 inputs in uint32 (the
// kernel's wrap), stored as (double)(int32_t). Bitwise equal to the host.
#include <stdint.h>
#include "kcontract_device.cuh"
#include "kcontract_rowfold.h"

enum { SC_OUT = 0, SC_IN = 1 };

// The running sums of one lane's row, as the host keeps them.
struct scan_acc {
    bool is_int;
    double acc;
    uint32_t iacc;
    __device__ double value() const { return is_int ? (double)(int32_t)iacc : acc; }
    __device__ void add(double x)
    {
        if (is_int) iacc += (uint32_t)(int32_t)x;
        else acc += x;
    }
};

template <bool Excl>
static __device__ void scan_rows(const kc_dref &r)
{
    const long long n = r.shape.d[1], ostride = Excl ? n + 1 : n;
    const kc_rowgroup g = kc_rowgroup_of(r.shape.d[0]);
    if (!g.rows) return;
    double *y = r.out[SC_OUT];
    scan_acc a = { r.dtype[SC_IN] == KC_I32, 0.0, 0u };
    auto x = [&](long long row, long long j) { return kc_dref_in(r, SC_IN, (size_t)(row * n + j)); };
    kc_rowfold(g, n, x,
               [&](double &v, long long) {
                   const double xj = v;
                   if (Excl) v = a.value();
                   a.add(xj);
                   if (!Excl) v = a.value();
               },
               [&](long long row, long long j, double v) { y[row * ostride + j] = v; });
    if (Excl && g.lane < g.rows) y[(g.row0 + g.lane) * ostride + n] = a.value();
}

extern "C" __global__ void scan_incl_ref(kc_dref r) { scan_rows<false>(r); }
extern "C" __global__ void scan_excl_ref(kc_dref r) { scan_rows<true>(r); }
