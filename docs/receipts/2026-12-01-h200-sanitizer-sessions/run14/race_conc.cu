// Probe: do kernels on separate streams of one context run concurrently under compute-sanitizer racecheck?
// A 1-block kernel shaped like moe_align_block_size's placement loop; K copies on K streams.
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cuda_runtime.h>
__global__ void __launch_bounds__(1024) loop(int *out, int iters)
{
    __shared__ int w[32];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int acc = 0;
    for (int e = 0; e < iters; e++) {
        unsigned bal = __ballot_sync(0xffffffffu, ((tid * 7 + e) & 3) == 0);
        if (lane == 0) w[warp] = __popc(bal);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; k++) acc += w[k];
        __syncthreads();
    }
    out[blockIdx.x * 1024 + tid] = acc;
}
int main(int argc, char **argv)
{
    int K = atoi(argv[1]), iters = atoi(argv[2]);
    cudaStream_t s[64]; int *d[64];
    for (int i = 0; i < K; i++) { cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking); cudaMalloc(&d[i], 1024 * sizeof(int)); }
    loop<<<1, 1024>>>(d[0], 1); cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < K; i++) loop<<<1, 1024, 0, s[i]>>>(d[i], iters);
    cudaError_t e = cudaDeviceSynchronize();
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("K=%d iters=%d: %.3f s (%s)\n", K, iters, dt, cudaGetErrorString(e));
    return 0;
}
