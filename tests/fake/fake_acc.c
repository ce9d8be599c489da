/* fake_acc.c — the fake driver's kernels that accumulate in float32 (issue
 * 25, tolerances derived from a declared arithmetic): a dot product per row
 * summed serially in float32, stored as float32 or rounded to bfloat16, and
 * a sum of squares per row summed pairwise (a balanced tree) in float32.
 * Their rounding errors are the real arithmetic's: a bound derived from the
 * declared arithmetic (kcontract.h, kc_arith) must hold them, a tight
 * hand-set one need not. Parameter sizes are in fake_kernels.c's kernel table. */
#include <string.h>

#include "fake_cuda.h"
#include "kcontract_dtype.h"

/* fake_dot_{f32,bf16}(void *out, const float *x, const float *w, long long rows, long long k):
 * out[r] = sum_j x[r k + j] w[j], accumulated serially in float32 (no fused
 * multiply-add: each product and each sum rounded), then stored as the
 * output's dtype. Control drop_last_term (the loop stops one term short: a
 * real bug, gate 3 under the derived bound). */
static CUresult dot(const launch *l, int bf16)
{
    const float *x = PTR(const float, 1), *w = PTR(const float, 2);
    long long rows = I64(3), k = I64(4);
    const long long last = strcmp(l->control, "drop_last_term") == 0 ? k - 1 : k;
    if ((unsigned long long)rows > l->threads) rows = (long long)l->threads;
    for (long long r = 0; r < rows; r++) {
        volatile float s = 0.0f;           /* volatile: every partial sum rounded to float32, never kept wider */
        for (long long j = 0; j < last; j++) {
            volatile float p = x[r * k + j] * w[j];
            s = s + p;
        }
        if (bf16) PTR(uint16_t, 0)[r] = kc_cvt_double_to_bf16((double)s);
        else PTR(float, 0)[r] = s;
    }
    return CUDA_SUCCESS;
}
CUresult fake_dot_f32(const launch *l) { return dot(l, 0); }
CUresult fake_dot_bf16(const launch *l) { return dot(l, 1); }

/* The float32 pairwise sum of squares of x[0, n): halves split at n/2. */
static float pairwise_sq(const float *x, long long n)
{
    if (n == 1) {
        volatile float p = x[0] * x[0];
        return p;
    }
    volatile float s = pairwise_sq(x, n / 2) + pairwise_sq(x + n / 2, n - n / 2);
    return s;
}

/* fake_sumsq_f32(float *out, const float *x, long long rows, long long k):
 * out[r] = sum_j x[r k + j]^2 in float32, pairwise. Control serial_sum (a
 * serial loop instead of the tree the contract declares: its error grows
 * like sqrt(K) u, beyond the pairwise bound: gate 3). */
CUresult fake_sumsq_f32(const launch *l)
{
    float *out = PTR(float, 0);
    const float *x = PTR(const float, 1);
    long long rows = I64(2), k = I64(3);
    const int serial = strcmp(l->control, "serial_sum") == 0;
    if ((unsigned long long)rows > l->threads) rows = (long long)l->threads;
    for (long long r = 0; r < rows; r++) {
        if (!serial) {
            out[r] = pairwise_sq(x + r * k, k);
            continue;
        }
        volatile float s = 0.0f;
        for (long long j = 0; j < k; j++) {
            volatile float p = x[r * k + j] * x[r * k + j];
            s = s + p;
        }
        out[r] = s;
    }
    return CUDA_SUCCESS;
}
