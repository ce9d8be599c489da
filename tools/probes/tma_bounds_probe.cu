// tma_bounds_probe.cu — what a TMA load past a tensor's bounds reads, and what
// compute-sanitizer's memcheck sees of it, on a real GPU (sm_90). Measures the
// facts the tensor-map gate rests on (docs/receipts/2026-12-02-h200-hopper-args/):
//   box_past_map_edge   a box that runs past the map's dims, map inside its
//                       allocation: the elements past the edge arrive as 0
//                       (filled), none is read from memory
//   map_past_allocation a map whose dims reach past its cudaMalloc'd bytes, box
//                       wholly past the allocation: what arrives, and whether
//                       memcheck reports it (run this binary under
//                       compute-sanitizer --tool memcheck)
//   plain_load_past     an ordinary load past the same allocation, for comparison
// Build: nvcc -arch=sm_90 -o tma_bounds_probe tma_bounds_probe.cu -lcuda
// Each experiment prints one line: "PROBE name=... first=... zeros=N of M".
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>

#define BOX_X 32
#define BOX_Y 4

__global__ void tma_load(const __grid_constant__ CUtensorMap map, int c0, int c1, float *out)
{
    __shared__ alignas(128) float tile[BOX_X * BOX_Y];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x == 0) {
        uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar), s = (uint32_t)__cvta_generic_to_shared(tile);
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"((unsigned)sizeof tile) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(s), "l"(&map), "r"(c0), "r"(c1), "r"(b) : "memory");
        asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}" ::"r"(b) : "memory");
    }
    __syncthreads();
    for (int i = threadIdx.x; i < BOX_X * BOX_Y; i += blockDim.x) out[i] = tile[i];
}

__global__ void plain_load(const float *in, long long at, float *out)
{
    for (int i = threadIdx.x; i < BOX_X * BOX_Y; i += blockDim.x) out[i] = in[at + i];
}

static void check(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS) { const char *n = "?"; cuGetErrorName(r, &n); printf("PROBE error %s: %s\n", what, n); }
}

static void report(const char *name, float *out_d)
{
    float h[BOX_X * BOX_Y];
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("PROBE name=%s launch_error=%s\n", name, cudaGetErrorName(e)); return; }
    cudaMemcpy(h, out_d, sizeof h, cudaMemcpyDeviceToHost);
    int zeros = 0, nan = 0;
    for (int i = 0; i < BOX_X * BOX_Y; i++) { zeros += h[i] == 0.0f; nan += h[i] != h[i]; }
    printf("PROBE name=%s first=%g zeros=%d nan=%d of %d\n", name, h[0], zeros, nan, BOX_X * BOX_Y);
}

int main()
{
    cuInit(0);
    const int cols = 64, rows = 16;                  /* the allocation: 16 rows of 64 floats, all 7.0 */
    float *buf, *out;
    cudaMalloc(&buf, (size_t)cols * rows * 4);
    cudaMalloc(&out, BOX_X * BOX_Y * 4);
    float host[cols * rows];
    for (int i = 0; i < cols * rows; i++) host[i] = 7.0f;
    cudaMemcpy(buf, host, sizeof host, cudaMemcpyHostToDevice);
    cuuint64_t st[1] = { (cuuint64_t)cols * 4 };
    cuuint32_t box[2] = { BOX_X, BOX_Y }, es[2] = { 1, 1 };
    alignas(64) CUtensorMap inside, past;
    cuuint64_t dims_in[2] = { (cuuint64_t)cols, (cuuint64_t)rows };
    cuuint64_t dims_past[2] = { (cuuint64_t)cols, (cuuint64_t)rows * 64 };   /* 64 times the allocation's rows */
    check(cuTensorMapEncodeTiled(&inside, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, buf, dims_in, st, box, es,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), "encode inside");
    check(cuTensorMapEncodeTiled(&past, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, buf, dims_past, st, box, es,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), "encode past");
    tma_load<<<1, 128>>>(inside, cols - BOX_X / 2, rows - BOX_Y / 2, out);   /* 3/4 of the box past the map's edge */
    report("box_past_map_edge", out);
    tma_load<<<1, 128>>>(past, 0, rows * 8, out);                             /* 8 allocations' worth past the end */
    report("map_past_allocation", out);
    plain_load<<<1, 128>>>(buf, (long long)cols * rows * 8, out);
    report("plain_load_past", out);
    return 0;
}
