// ctx_limits_probe.cu — which CUDA context limits change without anyone
// setting them, and which can be set back after use, on a real GPU: the
// facts the GPU-state watch's limit check rests on (src/gates/gpu_state.h).
// It reads every limit (cuCtxGetLimit) after a trivial, an assert, a
// big-stack kernel, cuBLAS's handle and a GEMM, a CUB reduction and a
// dynamic-parallelism launch (a '*' marks a value that differs from the
// start, the stack size aside), then sets each settable limit and sets it
// back, the printf FIFO after a printf kernel and the heap after a malloc
// kernel included, printing each CUresult; `setl2` and `read` check whether
// the persisting L2 size and the L2 fetch granularity one process sets show
// in another (per context or per device).
// Build: nvcc -arch=sm_90 -rdc=true -o ctx_limits_probe ctx_limits_probe.cu -lcuda -lcublas -lcudadevrt
// Run:   ./ctx_limits_probe; ./ctx_limits_probe setl2 & sleep 3; ./ctx_limits_probe read; wait
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cub/cub.cuh>
static const char *nm[] = {"stack","printf","heap","syncdepth","pending","l2fetch","persistL2"};
static size_t base[7];
static void show(const char *when) {
  printf("%-28s", when);
  for (int i = 0; i < 7; i++) {
    size_t v = 0; CUresult r = cuCtxGetLimit(&v, (CUlimit)i);
    if (r) printf(" %s=err%d", nm[i], (int)r); else printf(" %s=%zu%s", nm[i], v, (i && v != base[i]) ? "*" : "");
  }
  printf("\n"); fflush(stdout);
}
__global__ void k_triv(float *p) { if (p) p[threadIdx.x] = 1; }
__global__ void k_printf() { if (threadIdx.x == 0 && blockIdx.x == 1000000) printf("x\n"); }
__global__ void k_malloc(int n) { if (threadIdx.x == 0) { void *q = malloc(n); if (q) free(q); } }
__global__ void k_stack(int *o, int n) { volatile int a[4096]; for (int i = 0; i < 4096; i++) a[i] = i * n; o[threadIdx.x] = a[n & 4095]; }
__global__ void k_assert(int x) { assert(x != 12345); }
__global__ void child(int *o) { o[threadIdx.x] = 1; }
__global__ void parent(int *o) { if (threadIdx.x == 0) child<<<1, 32>>>(o); }
int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "read")) {   // another process: read persisting L2 / l2 fetch
    cudaFree(0); show("other process"); return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "setl2")) {
    cudaFree(0); show("setter start");
    CUresult r = cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 8u << 20); printf("set persistL2 8MiB: %d\n", (int)r);
    r = cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 32); printf("set l2fetch 32: %d\n", (int)r);
    show("setter after set"); sleep(6); show("setter end"); return 0;
  }
  cudaFree(0);
  for (int i = 0; i < 7; i++) cuCtxGetLimit(&base[i], (CUlimit)i);
  show("start (primary ctx)");
  float *d; cudaMalloc(&d, 1 << 24); int *di; cudaMalloc(&di, 1 << 20);
  k_triv<<<1, 32>>>(d); cudaDeviceSynchronize(); show("trivial kernel");
  k_assert<<<1, 32>>>(1); cudaDeviceSynchronize(); show("assert kernel");
  k_stack<<<1, 32>>>(di, 3); cudaDeviceSynchronize(); show("big-stack kernel");
  cublasHandle_t h; cublasCreate(&h); show("cublasCreate");
  float one = 1, zero = 0;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 512, 512, 512, &one, d, 512, d, 512, &zero, d + (1 << 20), 512);
  cudaDeviceSynchronize(); show("cublasSgemm");
  cublasDestroy(h); show("cublasDestroy");
  size_t tmp = 0; cub::DeviceReduce::Sum(nullptr, tmp, d, d + 10, 1 << 20); void *t; cudaMalloc(&t, tmp);
  cub::DeviceReduce::Sum(t, tmp, d, d + 10, 1 << 20); cudaDeviceSynchronize(); show("cub DeviceReduce");
  parent<<<1, 32>>>(di); printf("cdp launch: %s\n", cudaGetErrorString(cudaDeviceSynchronize())); show("CDP parent/child");
  // set-then-restore of hints
  CUresult r;
  r = cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 32); printf("set l2fetch 32 -> %d\n", (int)r); show("after l2fetch=32");
  r = cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, base[5]); printf("restore l2fetch -> %d\n", (int)r); show("after restore");
  r = cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 5000000); printf("set persistL2 5000000 -> %d\n", (int)r); show("after persistL2");
  r = cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, base[6]); printf("restore persistL2 -> %d\n", (int)r); show("after restore");
  r = cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 4096); printf("set pending 4096 (after CDP launch) -> %d\n", (int)r); show("after pending");
  r = cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, base[4]); printf("restore pending -> %d\n", (int)r);
  r = cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4); printf("set syncdepth 4 -> %d\n", (int)r);
  // printf FIFO after a printf kernel, heap after a malloc kernel
  r = cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 4u << 20); printf("set printf 4MiB before printf kernel -> %d\n", (int)r);
  k_printf<<<1, 32>>>(); cudaDeviceSynchronize(); show("printf kernel");
  r = cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, base[1]); printf("restore printf after printf kernel -> %d\n", (int)r); show("after restore");
  r = cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64u << 20); printf("set heap 64MiB -> %d\n", (int)r);
  k_malloc<<<1, 32>>>(1 << 20); cudaDeviceSynchronize(); show("malloc kernel");
  r = cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, base[2]); printf("restore heap after malloc kernel -> %d\n", (int)r); show("after restore");
  r = cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64u << 20); printf("set heap to its current value -> %d\n", (int)r);
  r = cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 4u << 20); printf("set printf to its current value -> %d\n", (int)r);
  printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
