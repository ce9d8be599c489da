// kcontract_dref_common.cuh — the common float64 references of kcontract.h
// (kc_ref_layernorm, kc_ref_rmsnorm, kc_ref_softmax, kc_ref_cross_entropy,
// kc_ref_gelu) as device code, for a contract's device reference
// (kc_device_ref), over arguments named by the caller:
//     #include "kcontract_dref_common.cuh"
//     extern "C" __global__ void my_ln_ref(const __grid_constant__ kc_dref r)
//     {
//         kc_dref_layernorm(r, "y", "x", "w", "b", r.shape.d[1], (double)(float)r.scalar[4]);
//     }
// with .device_reference = { .module = "my_ref", .symbol = "my_ln_ref",
// .launch = a launch calling kc_rowfold_launch(rows, dev, l) } for the
// row-wise ones (rows = count(x) / cols: the grid is the row fold's), and
// any grid for kc_dref_gelu (grid-stride). Each does what the host function
// of the same name does, in the same order of operations (one lane walks a
// row in index order: kcontract_rowfold.h), so a module built with
// -fmad=false (the kcontract rules build every *_ref module so) gives:
//   - layernorm and rmsnorm: the host's bits (only + - * / sqrt, correctly
//     rounded on both sides);
//   - softmax, cross-entropy and GELU: within a few double ulps of the host
//     (CUDA's exp, log, erfc and tanh are within 1-2 ulps of the true value,
//     glibc's within 0.5-1: kernels/softmax/softmax_ref.cu measures what
//     that gives a softmax row, about 10 x 2^-53 relative), never bitwise:
//     compare them with --reference both under a tolerance that allows it.
// The bundled layernorm, rmsnorm and softmax contracts' device references
// are these (kernels/*/*_ref.cu), which --reference both checks against the
// bundled host references on the GPU.
//
// Declare the kernel's parameter const __grid_constant__ as above: these
// take the kc_dref by reference, and a reference to an ordinary kernel
// parameter copies the struct into every thread's local memory (1360 bytes
// a thread, ptxas -v), which grows the context's local memory by about
// 150 MiB on an H200 (the H200 run of 2026-12-02: every item of the three
// bundled families "left GPU memory allocated", each worker replaced).
//
// A mistake in the call (a name the contract lacks, cols that do not divide
// the input, an output or weight of the wrong size, a target outside
// [0, cols) that is not ignore_index) prints the values and traps: the
// device reference fails, an internal error of the item.
#ifndef KCONTRACT_DREF_COMMON_CUH
#define KCONTRACT_DREF_COMMON_CUH
#include <math.h>
#include "kcontract_device.cuh"
#include "kcontract_rowfold.h"

// Traps after printing fn's complaint (thread 0 of each block prints).
#define KC_DREF_REFUSE(fn, fmt, ...)                                                    \
    do {                                                                                \
        if (!(threadIdx.x | threadIdx.y | threadIdx.z))                                 \
            printf("%s: " fmt " (shape %s)\n", fn, __VA_ARGS__, r.shape.name ? r.shape.name : "?"); \
        __trap();                                                                       \
    } while (0)

// rows = count(x) / cols, refused where cols does not divide it.
static __device__ long long kc_dref_rows(const kc_dref &r, const char *fn, int x, long long cols)
{
    const unsigned long long n = r.count[x];
    if (cols <= 0) {
        if (n) KC_DREF_REFUSE(fn, "cols = %lld for input %s of %llu elements", cols, r.name[x], n);
        return 0;
    }
    if (n % (unsigned long long)cols)
        KC_DREF_REFUSE(fn, "input %s has %llu elements, not a multiple of cols = %lld", r.name[x], n, cols);
    return (long long)(n / (unsigned long long)cols);
}

// The output argument called name, its count checked against want.
static __device__ int kc_dref_output(const kc_dref &r, const char *fn, const char *name, unsigned long long want)
{
    const int a = kc_dref_arg(r, name);
    if (!r.out[a]) KC_DREF_REFUSE(fn, "argument %s is no output (only OUT and INOUT buffers have one)", name);
    if (r.count[a] != want) KC_DREF_REFUSE(fn, "output %s has %llu elements, expected %llu", name, r.count[a], want);
    return a;
}

// The input argument called name with at least want elements; NULL: -1.
static __device__ int kc_dref_input_of(const kc_dref &r, const char *fn, const char *name, unsigned long long want)
{
    if (!name) return -1;
    const int a = kc_dref_arg(r, name);
    if (r.count[a] < want) KC_DREF_REFUSE(fn, "input %s has %llu elements, expected at least %llu", name, r.count[a], want);
    return a;
}

// LayerNorm over each row: kc_ref_layernorm's arithmetic (mean, then the
// mean of (x - mean)^2, rinv = 1 / sqrt(var + eps), ((x - mean) * rinv) * w + b
// left to right). w, b NULL: no weight, no bias. Bitwise the host's.
static __device__ void kc_dref_layernorm(const kc_dref &r, const char *y, const char *x, const char *w, const char *b,
                                         long long cols, double eps)
{
    const char *fn = "kc_dref_layernorm";
    const int xi = kc_dref_arg(r, x);
    const long long rows = kc_dref_rows(r, fn, xi, cols);
    const int wi = kc_dref_input_of(r, fn, w, (unsigned long long)cols), bi = kc_dref_input_of(r, fn, b, (unsigned long long)cols);
    const int yi = kc_dref_output(r, fn, y, r.count[xi]);
    const kc_rowgroup g = kc_rowgroup_of(rows);
    if (!g.rows) return;
    double *rmean = kc_rowfold_slots(0), *rrinv = kc_rowfold_slots(1);
    auto xv = [&](long long t, long long j) { return kc_dref_in(r, xi, (size_t)(t * cols + j)); };
    double s = 0;
    kc_rowfold(g, cols, xv, [&](double &v, long long) { s += v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rmean, s / (double)cols);
    auto dd = [&](long long t, long long j) {
        const double d = xv(t, j) - rmean[t - g.row0];
        return d * d;
    };
    double ss = 0;
    kc_rowfold(g, cols, dd, [&](double &v, long long) { ss += v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rrinv, 1.0 / sqrt(ss / (double)cols + eps));
    kc_rowgroup_each(g, cols, [&](long long t, long long j) {
        double v = (xv(t, j) - rmean[t - g.row0]) * rrinv[t - g.row0];
        if (wi >= 0) v = v * kc_dref_in(r, wi, (size_t)j);
        if (bi >= 0) v = v + kc_dref_in(r, bi, (size_t)j);
        r.out[yi][t * cols + j] = v;
    });
}

// RMSNorm over each row: kc_ref_rmsnorm's arithmetic (the sum of x^2 in
// index order, rinv = 1 / sqrt(ss / cols + eps), (x * rinv) * w). w NULL:
// no weight. Bitwise the host's.
static __device__ void kc_dref_rmsnorm(const kc_dref &r, const char *y, const char *x, const char *w, long long cols,
                                       double eps)
{
    const char *fn = "kc_dref_rmsnorm";
    const int xi = kc_dref_arg(r, x);
    const long long rows = kc_dref_rows(r, fn, xi, cols);
    const int wi = kc_dref_input_of(r, fn, w, (unsigned long long)cols);
    const int yi = kc_dref_output(r, fn, y, r.count[xi]);
    const kc_rowgroup g = kc_rowgroup_of(rows);
    if (!g.rows) return;
    double *rrinv = kc_rowfold_slots(0);
    auto xv = [&](long long t, long long j) { return kc_dref_in(r, xi, (size_t)(t * cols + j)); };
    auto sq = [&](long long t, long long j) {
        const double v = xv(t, j);
        return v * v;
    };
    double ss = 0;
    kc_rowfold(g, cols, sq, [&](double &v, long long) { ss += v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rrinv, 1.0 / sqrt(ss / (double)cols + eps));
    kc_rowgroup_each(g, cols, [&](long long t, long long j) {
        double v = xv(t, j) * rrinv[t - g.row0];
        if (wi >= 0) v = v * kc_dref_in(r, wi, (size_t)j);
        r.out[yi][t * cols + j] = v;
    });
}

// The two row passes softmax and cross-entropy share: each row's first
// largest entry into rmax[t - g.row0] (NaN passed over), then the sum of
// exp(x - max) in index order into rsum (a NaN poisons it), as
// kc_ref_softmax and kc_ref_cross_entropy do on the host.
static __device__ void kc_dref_row_max_expsum(const kc_dref &r, const kc_rowgroup &g, int xi, long long cols,
                                              double *&rmax, double *&rsum)
{
    rmax = kc_rowfold_slots(0);
    rsum = kc_rowfold_slots(1);
    auto xv = [&](long long t, long long c) { return kc_dref_in(r, xi, (size_t)(t * cols + c)); };
    // The host's "if (v > m) m = v" from -inf (NaN never wins): the warp's
    // lanes read the row together (kc_rowfold_first_max), the same value.
    kc_rowfold_publish(g, rmax, kc_rowfold_first_max(g, cols, xv).v);
    double sum = 0;
    auto e = [&](long long t, long long c) { return exp(xv(t, c) - rmax[t - g.row0]); };
    kc_rowfold(g, cols, e, [&](double &v, long long) { sum += v; }, kc_rowfold_no_emit());
    kc_rowfold_publish(g, rsum, sum);
}

// Softmax over each row: kc_ref_softmax's conventions (the first largest
// entry as the max, NaN passed over there and poisoning the sum after; a
// row all -inf is NaN everywhere), exp(x - m) / sum in index order.
static __device__ void kc_dref_softmax(const kc_dref &r, const char *y, const char *x, long long cols)
{
    const char *fn = "kc_dref_softmax";
    const int xi = kc_dref_arg(r, x);
    const long long rows = kc_dref_rows(r, fn, xi, cols);
    const int yi = kc_dref_output(r, fn, y, r.count[xi]);
    const kc_rowgroup g = kc_rowgroup_of(rows);
    if (!g.rows) return;
    double *rmax, *rsum;
    kc_dref_row_max_expsum(r, g, xi, cols, rmax, rsum);
    auto xv = [&](long long t, long long c) { return kc_dref_in(r, xi, (size_t)(t * cols + c)); };
    auto e = [&](long long t, long long c) { return exp(xv(t, c) - rmax[t - g.row0]); };
    kc_rowgroup_each(g, cols, [&](long long t, long long c) {
        const double mr = rmax[t - g.row0];
        r.out[yi][t * cols + c] = mr == -INFINITY ? (double)NAN : e(t, c) / rsum[t - g.row0];
    });
}

// Cross-entropy per row: kc_ref_cross_entropy's (loss = log(sum exp(x - m))
// - (x[t] - m); 0 where the target is ignore_index; a row all -inf NaN).
static __device__ void kc_dref_cross_entropy(const kc_dref &r, const char *loss, const char *x, const char *target,
                                             long long cols, long long ignore_index)
{
    const char *fn = "kc_dref_cross_entropy";
    const int xi = kc_dref_arg(r, x);
    const long long rows = kc_dref_rows(r, fn, xi, cols);
    const int ti = kc_dref_input_of(r, fn, target, (unsigned long long)rows);
    const int li = kc_dref_output(r, fn, loss, (unsigned long long)rows);
    const kc_dtype td = r.dtype[ti];
    if (td == KC_F64 || td == KC_F32 || td == KC_F16 || td == KC_BF16 || td == KC_E4M3)
        KC_DREF_REFUSE(fn, "target %s is a floating dtype (%d), expected an integer dtype (class indices)", target,
                       (int)r.dtype[ti]);
    const kc_rowgroup g = kc_rowgroup_of(rows);
    if (!g.rows) return;
    double *rmax, *rsum;
    kc_dref_row_max_expsum(r, g, xi, cols, rmax, rsum);
    auto xv = [&](long long t, long long c) { return kc_dref_in(r, xi, (size_t)(t * cols + c)); };
    kc_rowgroup_each(g, 1, [&](long long t, long long) {     // one element a row: the loss
        const double tv = kc_dref_in(r, ti, (size_t)t);
        const long long tt = (long long)tv;
        if (tt == ignore_index && tv == (double)tt) {
            r.out[li][t] = 0;
            return;
        }
        if (!(tv >= 0 && tv < (double)cols))
            KC_DREF_REFUSE(fn, "target %s[%lld] = %.17g is outside [0, %lld) and is not ignore_index %lld", target, t, tv,
                           cols, ignore_index);
        const double mr = rmax[t - g.row0];
        r.out[li][t] = mr == -INFINITY ? (double)NAN : log(rsum[t - g.row0]) - (xv(t, tt) - mr);
    });
}

// kc_gelu on the device: the same formulas (erfc for the erf form, the
// tanh form without cancellation for u < 0), the same infinities and NaN.
static __device__ double kc_dgelu(double x, kc_gelu_form form)
{
    if (isnan(x)) return x;
    if (isinf(x)) return x > 0 ? x : -0.0;
    if (form == KC_GELU_TANH) {
        const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
        double one_plus;
        if (u >= 0) one_plus = 1.0 + tanh(u);
        else {
            const double e = exp(2.0 * u);
            one_plus = 2.0 * e / (1.0 + e);
        }
        return 0.5 * x * one_plus;
    }
    return 0.5 * x * erfc(-x * 0.70710678118654752440);
}

// y[i] = kc_dgelu(x[i], form) for every element, grid-stride (any grid).
static __device__ void kc_dref_gelu(const kc_dref &r, const char *y, const char *x, kc_gelu_form form)
{
    const char *fn = "kc_dref_gelu";
    if (form != KC_GELU_ERF && form != KC_GELU_TANH)
        KC_DREF_REFUSE(fn, "form %d (expected KC_GELU_ERF or KC_GELU_TANH)", (int)form);
    const int xi = kc_dref_arg(r, x);
    const int yi = kc_dref_output(r, fn, y, r.count[xi]);
    KC_GRID_STRIDE(i, r.count[xi]) r.out[yi][i] = kc_dgelu(kc_dref_in(r, xi, (size_t)i), form);
}
#endif
