// scale.cu — the example's kernel: y = a x in float32, one element per
// thread. Two planted bugs, built as controls by the kcontract helpers (one
// image per KC_CONTROL_<name> found here), that its contract says must fail.
extern "C" __global__ void ex_scale_f32(float *y, const float *x, float a, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
#if defined(KC_CONTROL_tail_skip)
    if (i >= n - 1) return;            // planted: the last element is never written
#else
    if (i >= n) return;
#endif
    float v = a * x[i];
#if defined(KC_CONTROL_wrong_scale)
    if (i == n / 2) v *= 1.01f;        // planted: one element 1% off
#endif
    y[i] = v;
}
