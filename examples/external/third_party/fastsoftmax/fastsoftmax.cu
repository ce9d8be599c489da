// fastsoftmax.cu — row softmax, y = exp(x - max) / sum over each row of a
// row-major matrix, one block of BLOCK threads a row: warp shuffles, then
// shared memory across warps. Build: nvcc -O3 -o fastsoftmax fastsoftmax.cu
//
// (In examples/external this file stands for third-party code: C++ linkage,
// a template, a host launcher and a main() of its own. It is used as it is,
// never edited: kernels/vendor_softmax.cu is the wrapper around it.)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

namespace fastsoftmax {

__device__ inline float warp_max(float v)
{
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ inline float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <typename T, int BLOCK>
__global__ void softmax_rows(T *__restrict__ y, const T *__restrict__ x, int cols)
{
    __shared__ float part[BLOCK / 32];
    const T *xr = x + (size_t)blockIdx.x * cols;
    T *yr = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, (float)xr[c]);
    m = warp_max(m);
    if (lane == 0) part[warp] = m;
    __syncthreads();
    m = warp_max(lane < BLOCK / 32 ? part[lane] : -INFINITY);
    __syncthreads();

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) s += expf((float)xr[c] - m);
    s = warp_sum(s);
    if (lane == 0) part[warp] = s;
    __syncthreads();
    s = warp_sum(lane < BLOCK / 32 ? part[lane] : 0.0f);

    for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = (T)(expf((float)xr[c] - m) / s);
}

template <typename T>
cudaError_t softmax(T *y, const T *x, int rows, int cols, cudaStream_t stream = 0)
{
    softmax_rows<T, 256><<<rows, 256, 0, stream>>>(y, x, cols);
    return cudaGetLastError();
}

} // namespace fastsoftmax

// A demo and a timing: fastsoftmax [rows] [cols]
int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 4096, cols = argc > 2 ? atoi(argv[2]) : 1024;
    std::vector<float> h((size_t)rows * cols);
    for (size_t i = 0; i < h.size(); i++) h[i] = (float)(i % 97) / 97.0f;
    float *x, *y;
    cudaMalloc(&x, h.size() * sizeof(float));
    cudaMalloc(&y, h.size() * sizeof(float));
    cudaMemcpy(x, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventRecord(t0);
    cudaError_t e = fastsoftmax::softmax(y, x, rows, cols);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    cudaMemcpy(h.data(), y, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%s: %d x %d in %.3f ms, y[0] = %g\n", cudaGetErrorString(e), rows, cols, ms, h[0]);
    cudaFree(x);
    cudaFree(y);
    return e != cudaSuccess;
}
