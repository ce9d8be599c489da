// libex_double.cu — the example's library kernel: a host function that
// launches its own kernel (as a cuBLAS or CUB call would), built by the
// kcontract helpers into lib/libex_double.so and lib/libex_double@<control>.so.
// The harness calls it with the device's primary context current.
#include <cuda_runtime.h>
#include "kcontract.h"

__global__ void ex_double_kernel(float *y, const float *x, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}

// y = 2 x: args y (OUT), x (IN), n (i64), as kc_host_entry documents.
extern "C" int ex_double_f32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    float *y = *(float *const *)args[0];
    const float *x = *(const float *const *)args[1];
    long long n = *(const long long *)args[2];
    (void)s;
    (void)dev;
#if defined(KC_CONTROL_skip_last)
    n--;                               // planted: the last element is left
#endif
#if defined(KC_CONTROL_short_grid)
    // planted: the grid rounds down, so the last partial block never runs
    if (n >= 256) ex_double_kernel<<<(unsigned)(n / 256), 256>>>(y, x, n);
#else
    if (n > 0) ex_double_kernel<<<(unsigned)((n + 255) / 256), 256>>>(y, x, n);
#endif
    return (int)cudaGetLastError();
}
