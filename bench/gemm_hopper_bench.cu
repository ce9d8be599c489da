// gemm_hopper_bench.cu — the Hopper GEMM (kernels/gemm_hopper/gemm_wgmma.cu)
// checked and timed on its own, next to cuBLAS and the project's Ampere GEMM
// (kernels/gemm/gemm_tc.cu), on one GPU. It loads the very fatbins the
// harness embeds (build/fatbin/<module>[@<control>].fatbin) through the
// driver API and encodes the tensor maps as gemm_hopper_contract.c lays
// them out. Built by `make bench-gemm-hopper` (nvcc; links libcuda,
// libcublas, libcublasLt); needs a Hopper GPU to run.
//
//   kc_gemm_hopper_bench check [FATBIN] [dist=uniform|normal|wide] [only=bf16|fp8]
//       edge and model shapes, both kernels (or one),
//       against a float64 GPU reference of every element; one CHECK line per
//       kernel and shape (errors: max |err|, and the atol each rtol would
//       need); exit 1 on any element outside the contract's tolerance, or a
//       launch that failed. A control's fatbin must fail it.
//   kc_gemm_hopper_bench perf [M...]      (fatbins from $KC_FATBIN_DIR, default
//       build/fatbin) Llama-3 8B/70B projections at M
//       tokens (default 4096 8192); one BENCH line per kernel and shape:
//         BENCH kernel=<k> M=<> N=<> K=<> ms=<median of 10> tflops=<> vs_cublas=<ratio>
//       kernels: wgmma.bf16 (f32 out), cublas.bf16.f32out (the cublas_gemm
//       contract's call), cublas.bf16.bf16out, gemm_tc.128x128.bf16 (f32 out),
//       wgmma.fp8 (block scales, f32 out), cublaslt.fp8.blockscaled (VEC128
//       activations x BLK128x128 weights, bf16 out, where cuBLASLt has an
//       algorithm for it), cublaslt.fp8.tensor (one scale per tensor, bf16 out).
//       vs_cublas: against cublas.bf16.f32out for bf16 kernels, against
//       cublaslt.fp8.blockscaled (else .tensor) for wgmma.fp8.
// Inputs: A, B ~ U(-1, 1) from a hash of the index (bf16, or e4m3 of
// U(-2, 2)); scales (32 + h % 224) / 128 (8 significant bits, as the
// contract's generator). cuBLAS's FP8 results are timed, not checked.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CK(x) check_cu((x), #x, __LINE__)
#define CR(x) check_rt((x), #x, __LINE__)
static void check_cu(CUresult r, const char *what, int line)
{
    if (r == CUDA_SUCCESS) return;
    const char *s = nullptr;
    cuGetErrorName(r, &s);
    fprintf(stderr, "gemm_hopper_bench:%d: %s: %s\n", line, what, s ? s : "?");
    exit(2);
}
static void check_rt(cudaError_t r, const char *what, int line)
{
    if (r == cudaSuccess) return;
    fprintf(stderr, "gemm_hopper_bench:%d: %s: %s\n", line, what, cudaGetErrorName(r));
    exit(2);
}

// ---- inputs and the float64 reference (GPU) ----
__device__ __forceinline__ uint32_t hash32(uint64_t i, uint32_t seed)
{
    uint32_t x = (uint32_t)i * 0x9E3779B1u ^ (uint32_t)(i >> 32) * 0x85EBCA77u ^ seed * 0xC2B2AE3Du;
    x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16;
    return x;
}
__device__ __forceinline__ float unit(uint64_t i, uint32_t seed) { return (hash32(i, seed) >> 8) * (2.0f / 16777216.0f) - 1.0f; }

// The input distribution (check's dist=): 0 "uniform" U(-1, 1), 1 "normal"
// ~N(0, 1) (Irwin-Hall of 16, as the harness's), 2 "wide" U(-2, 2) (the
// default: perf and the first receipts).
static int g_dist = 2;
__device__ __forceinline__ float draw(uint64_t i, uint32_t seed, int dist)
{
    if (dist == 0) return unit(i, seed);
    if (dist == 2) return 2.0f * unit(i, seed);
    float s = 0;
    for (uint32_t j = 0; j < 16; j++) s += unit(i, seed * 16 + j);   // each U(-1, 1): variance 1/3
    return s * 0.4330127f;                                            // / sqrt(16/3)
}
__global__ void fill_bf16(__nv_bfloat16 *p, size_t n, uint32_t seed, int dist)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = __float2bfloat16(draw(i, seed, dist));
}
__global__ void fill_e4m3(__nv_fp8_e4m3 *p, size_t n, uint32_t seed, int dist)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = __nv_fp8_e4m3(draw(i, seed, dist));
}
__global__ void fill_scale(float *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (float)(32 + hash32(i, seed) % 224) / 128.0f;
}

// ref[m, n] = sum_k a(m, k) b(n, k) in double; fp8: a = A * SA[m, k/128], b = B * SB[n/128, k/128].
template <bool FP8>
__global__ void ref_gemm(double *R, const void *A, const void *B, const float *SA, const float *SB, int M, int N, int K)
{
    __shared__ double as[16][17], bs[16][17];
    const int tx = threadIdx.x, ty = threadIdx.y, m = blockIdx.y * 16 + ty, n = blockIdx.x * 16 + tx;
    const int nkb = (K + 127) / 128;
    double acc = 0;
    for (int k0 = 0; k0 < K; k0 += 16) {
        const int ma = blockIdx.y * 16 + ty, ka = k0 + tx, nb = blockIdx.x * 16 + ty;
        double va = 0, vb = 0;
        if (FP8) {
            if (ma < M && ka < K) va = (double)float(((const __nv_fp8_e4m3 *)A)[(size_t)ma * K + ka]) * SA[(size_t)ma * nkb + ka / 128];
            if (nb < N && ka < K) vb = (double)float(((const __nv_fp8_e4m3 *)B)[(size_t)nb * K + ka]) * SB[(size_t)(nb / 128) * nkb + ka / 128];
        } else {
            if (ma < M && ka < K) va = __bfloat162float(((const __nv_bfloat16 *)A)[(size_t)ma * K + ka]);
            if (nb < N && ka < K) vb = __bfloat162float(((const __nv_bfloat16 *)B)[(size_t)nb * K + ka]);
        }
        as[ty][tx] = va;
        bs[ty][tx] = vb;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; k++) acc += as[ty][k] * bs[tx][k];
        __syncthreads();
    }
    if (m < M && n < N) R[(size_t)m * N + n] = acc;
}

// Per element: err = |out - ref|; counts outside atol + rtol |ref|, the max
// error, and for each of 3 rtols the atol it would need (max of err - rtol |ref|).
struct errstat {
    unsigned long long bad;
    double max_err, max_ref, need[3];
    int first_m, first_n;
    float first_got;
    double first_want;
};
__device__ double atomicMaxD(double *a, double v)
{
    unsigned long long *p = (unsigned long long *)a, old = *p, assumed;
    while (__longlong_as_double(old) < v) {
        assumed = old;
        old = atomicCAS(p, assumed, __double_as_longlong(v));
        if (old == assumed) break;
    }
    return __longlong_as_double(old);
}
__global__ void compare(const float *C, const double *R, size_t n, int N, double rtol, double atol, errstat *st)
{
    const double rt[3] = { 1e-5, 1e-4, 1e-3 };
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const double want = R[i], got = C[i], e = fabs(got - want);
        const bool bad = !(e <= atol + rtol * fabs(want));   // NaN is bad
        if (bad && atomicAdd(&st->bad, 1ull) == 0) {
            st->first_m = (int)(i / N); st->first_n = (int)(i % N); st->first_got = (float)got; st->first_want = want;
        }
        atomicMaxD(&st->max_err, e != e ? INFINITY : e);
        atomicMaxD(&st->max_ref, fabs(want));
        for (int j = 0; j < 3; j++) atomicMaxD(&st->need[j], e - rt[j] * fabs(want));
    }
}

// ---- the kernels under test ----
struct module {
    CUmodule mod = nullptr;
    CUfunction bf16 = nullptr, fp8 = nullptr;
};
static std::vector<char> read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "gemm_hopper_bench: cannot open %s\n", path); exit(2); }
    std::vector<char> b;
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) b.insert(b.end(), buf, buf + n);
    fclose(f);
    return b;
}

// The contract's tensor map: rows x K of esize-byte elements, box {128 bytes, box_rows}, 128-byte swizzle.
static CUtensorMap make_map(const void *p, bool fp8, int rows, int K, int box_rows)
{
    CUtensorMap m;
    const cuuint64_t dims[2] = { (cuuint64_t)K, (cuuint64_t)rows };
    const cuuint64_t strides[1] = { (cuuint64_t)K * (fp8 ? 1 : 2) };
    const cuuint32_t box[2] = { fp8 ? 128u : 64u, (cuuint32_t)box_rows }, es[2] = { 1, 1 };
    CK(cuTensorMapEncodeTiled(&m, fp8 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
                              const_cast<void *>(p), dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    return m;
}

static int sm_count;
static const unsigned SMEM_BF16 = 4 * 49152 + 64 + 1024, SMEM_FP8 = 6 * 32768 + 96 + 1024;   // as the contract

static CUresult launch_wgmma(const module &md, bool fp8, float *C, const void *A, const void *B, const float *SA,
                             const float *SB, int M, int N, int K)
{
    const int BN = fp8 ? 128 : 256;
    CUtensorMap ma = make_map(A, fp8, M, K, 128), mb = make_map(B, fp8, N, K, BN);
    const long long tiles = (long long)((M + 127) / 128) * ((N + BN - 1) / BN);
    const unsigned grid = (unsigned)std::min<long long>(tiles, sm_count);
    CUdeviceptr c = (CUdeviceptr)C, sa = (CUdeviceptr)SA, sb = (CUdeviceptr)SB;
    void *pb[] = { &c, &ma, &mb, &M, &N, &K };
    void *pf[] = { &c, &ma, &mb, &sa, &sb, &M, &N, &K };
    return cuLaunchKernel(fp8 ? md.fp8 : md.bf16, grid, 1, 1, 384, 1, 1, fp8 ? SMEM_FP8 : SMEM_BF16, 0,
                          fp8 ? pf : pb, nullptr);
}

static CUfunction tc_fn;
static CUresult launch_tc(float *C, const void *A, const void *B, int M, int N, int K)
{
    CUdeviceptr c = (CUdeviceptr)C, a = (CUdeviceptr)A, b = (CUdeviceptr)B;
    void *p[] = { &c, &a, &b, &M, &N, &K };
    return cuLaunchKernel(tc_fn, (N + 127) / 128, (M + 127) / 128, 1, 256, 1, 1, 67584, 0, p, nullptr);
}

struct bufs {
    void *A = nullptr, *B = nullptr;
    float *SA = nullptr, *SB = nullptr, *C = nullptr;
    double *R = nullptr;
    void alloc(bool fp8, int M, int N, int K, bool ref)
    {
        const size_t es = fp8 ? 1 : 2, nkb = (K + 127) / 128;
        CR(cudaMalloc(&A, (size_t)M * K * es));
        CR(cudaMalloc(&B, (size_t)N * K * es));
        CR(cudaMalloc(&C, (size_t)M * N * 4));
        if (fp8) {
            CR(cudaMalloc(&SA, (size_t)M * nkb * 4));
            CR(cudaMalloc(&SB, (size_t)((N + 127) / 128) * nkb * 4));
            fill_e4m3<<<1024, 256>>>((__nv_fp8_e4m3 *)A, (size_t)M * K, 1, g_dist);
            fill_e4m3<<<1024, 256>>>((__nv_fp8_e4m3 *)B, (size_t)N * K, 2, g_dist);
            fill_scale<<<256, 256>>>(SA, (size_t)M * nkb, 3);
            fill_scale<<<256, 256>>>(SB, (size_t)((N + 127) / 128) * nkb, 4);
        } else {
            fill_bf16<<<1024, 256>>>((__nv_bfloat16 *)A, (size_t)M * K, 1, g_dist);
            fill_bf16<<<1024, 256>>>((__nv_bfloat16 *)B, (size_t)N * K, 2, g_dist);
        }
        if (ref) CR(cudaMalloc(&R, (size_t)M * N * 8));
        CR(cudaGetLastError());
    }
    void release()
    {
        cudaFree(A); cudaFree(B); cudaFree(SA); cudaFree(SB); cudaFree(C); cudaFree(R);
        *this = bufs();
    }
};

// ---- check ----
static const char *dist_name() { return g_dist == 0 ? "uniform" : g_dist == 1 ? "normal" : "wide"; }
struct shape { const char *name; int M, N, K; };

static int check(const module &md, const char *fatbin, int only)
{
    // The contract's shapes (gemm_hopper_contract.c), both kernels' K alignments.
    static const shape bf16_shapes[] = {
        { "llama3-8b.qkv_proj.t256", 256, 6144, 4096 }, { "llama3-8b.o_proj.t128", 128, 4096, 4096 },
        { "llama3-8b.gate_up_proj.t64", 64, 28672, 4096 }, { "llama3-8b.down_proj.t128", 128, 4096, 14336 },
        { "mixtral-8x7b.expert_w2.t37", 37, 4096, 14336 }, { "edge.m1.n1.k8", 1, 1, 8 },
        { "edge.m33.n127.k72", 33, 127, 72 }, { "edge.m127.n129.k200", 127, 129, 200 },
        { "edge.m129.n257.k64", 129, 257, 64 }, { "edge.m255.n33.k4104", 255, 33, 4104 },
        { "edge.m7.n1023.k136", 7, 1023, 136 }, { "edge.m1025.n1.k520", 1025, 1, 520 },
        { "edge.m1100.n4100.k40", 1100, 4100, 40 }, { "llama3-8b.o_proj.t2048", 2048, 4096, 4096 },
    };
    static const shape fp8_shapes[] = {
        { "llama3-8b.qkv_proj.t256", 256, 6144, 4096 }, { "llama3-8b.o_proj.t128", 128, 4096, 4096 },
        { "llama3-8b.gate_up_proj.t64", 64, 28672, 4096 }, { "llama3-8b.down_proj.t128", 128, 4096, 14336 },
        { "mixtral-8x7b.expert_w2.t37", 37, 4096, 14336 }, { "edge.m1.n1.k16", 1, 1, 16 },
        { "edge.m33.n127.k144", 33, 127, 144 }, { "edge.m127.n129.k400", 127, 129, 400 },
        { "edge.m129.n257.k128", 129, 257, 128 }, { "edge.m255.n33.k4112", 255, 33, 4112 },
        { "edge.m7.n1023.k272", 7, 1023, 272 }, { "edge.m1025.n1.k528", 1025, 1, 528 },
        { "edge.m1100.n4100.k48", 1100, 4100, 48 }, { "llama3-8b.o_proj.t2048", 2048, 4096, 4096 },
    };
    int failed = 0;
    errstat *st;
    CR(cudaMallocManaged(&st, sizeof *st));
    for (int fp8 = 0; fp8 < 2; fp8++) {
        if (only >= 0 && fp8 != only) continue;
        const shape *sh = fp8 ? fp8_shapes : bf16_shapes;
        const int ns = (int)(sizeof bf16_shapes / sizeof *bf16_shapes);
        // bf16: gemm_contract.c's tolerance; fp8: the contract's (gemm_hopper_contract.c)
        const double rtol = fp8 ? 1e-3 : 1e-4, atol = fp8 ? 5e-2 : 1e-2;
        for (int i = 0; i < ns; i++) {
            const shape &s = sh[i];
            bufs b;
            b.alloc(fp8, s.M, s.N, s.K, true);
            CR(cudaMemset(b.C, 0xFF, (size_t)s.M * s.N * 4));   // poison: NaN where nothing is written
            dim3 rg((s.N + 15) / 16, (s.M + 15) / 16), rb(16, 16);
            if (fp8) ref_gemm<true><<<rg, rb>>>(b.R, b.A, b.B, b.SA, b.SB, s.M, s.N, s.K);
            else ref_gemm<false><<<rg, rb>>>(b.R, b.A, b.B, nullptr, nullptr, s.M, s.N, s.K);
            CR(cudaDeviceSynchronize());
            CUresult r = launch_wgmma(md, fp8, b.C, b.A, b.B, b.SA, b.SB, s.M, s.N, s.K);
            if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
            if (r != CUDA_SUCCESS) {
                const char *e = nullptr;
                cuGetErrorName(r, &e);
                printf("CHECK kernel=wgmma.%s shape=%s M=%d N=%d K=%d result=LAUNCH_FAILED error=%s fatbin=%s\n",
                       fp8 ? "fp8" : "bf16", s.name, s.M, s.N, s.K, e ? e : "?", fatbin);
                fflush(stdout);
                return 1;   // the context is gone after a trap
            }
            memset(st, 0, sizeof *st);
            compare<<<1024, 256>>>(b.C, b.R, (size_t)s.M * s.N, s.N, rtol, atol, st);
            CR(cudaDeviceSynchronize());
            printf("CHECK kernel=wgmma.%s shape=%s dist=%s M=%d N=%d K=%d result=%s bad=%llu max_err=%.3g max_ref=%.3g "
                   "atol_needed_rtol1e-5=%.3g atol_needed_rtol1e-4=%.3g atol_needed_rtol1e-3=%.3g",
                   fp8 ? "fp8" : "bf16", s.name, dist_name(), s.M, s.N, s.K, st->bad ? "FAIL" : "ok", st->bad, st->max_err,
                   st->max_ref, st->need[0], st->need[1], st->need[2]);
            if (st->bad) printf(" first=(%d,%d) got=%.9g want=%.17g", st->first_m, st->first_n, st->first_got, st->first_want);
            printf("\n");
            fflush(stdout);
            failed |= st->bad != 0;
            b.release();
        }
    }
    return failed;
}

// ---- perf ----
static float time_ms(const std::function<void()> &f)
{
    cudaEvent_t e0, e1;
    CR(cudaEventCreate(&e0));
    CR(cudaEventCreate(&e1));
    for (int i = 0; i < 2; i++) f();
    std::vector<float> t;
    for (int i = 0; i < 10; i++) {
        CR(cudaEventRecord(e0));
        f();
        CR(cudaEventRecord(e1));
        CR(cudaEventSynchronize(e1));
        float ms;
        CR(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return t[t.size() / 2];
}

// cuBLASLt FP8, D = A B^T over our A [M, K] (activations) and B [N, K] (the
// weight), bf16 out, "TN" in cuBLAS's column-major terms. blockscaled: the
// activations VEC128_32F (one scale per 128 of K), the weight BLK128x128_32F;
// else one f32 scale per tensor. weight_first: the weight is cuBLAS's A (D is
// C^T column-major, our row-major C); else the activations are (D column-major
// C, the same products). cuBLASLt may take one order and not the other: the
// candidate must run once here. Returns false when it does not (no algorithm,
// or the launch refused).
static bool lt_fp8(cublasLtHandle_t lt, bool blockscaled, bool weight_first, void *D, const void *A, const void *B,
                   const float *SA, const float *SB, int M, int N, int K, void *ws, size_t wsz,
                   std::function<void()> &run)
{
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t l1, l2, ld;
    if (cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) return false;
    const cublasOperation_t tt = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &tt, sizeof tt);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn);
    const void *X = weight_first ? B : A, *Y = weight_first ? A : B;          // cuBLAS's A, B
    const float *SX = weight_first ? SB : SA, *SY = weight_first ? SA : SB;
    const int rx = weight_first ? N : M, ry = weight_first ? M : N;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &SX, sizeof SX);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &SY, sizeof SY);
    if (blockscaled) {
        const cublasLtMatmulMatrixScale_t blk = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
                                          vec = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
        const cublasLtMatmulMatrixScale_t mx = weight_first ? blk : vec, my = weight_first ? vec : blk;
        if (cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mx, sizeof mx) != CUBLAS_STATUS_SUCCESS ||
            cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &my, sizeof my) != CUBLAS_STATUS_SUCCESS)
            return false;
    }
    cublasLtMatrixLayoutCreate(&l1, CUDA_R_8F_E4M3, K, rx, K);
    cublasLtMatrixLayoutCreate(&l2, CUDA_R_8F_E4M3, K, ry, K);
    cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, rx, ry, rx);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof wsz);
    cublasLtMatmulHeuristicResult_t h;
    int found = 0;
    if (cublasLtMatmulAlgoGetHeuristic(lt, op, l1, l2, ld, ld, pref, 1, &h, &found) != CUBLAS_STATUS_SUCCESS || !found)
        return false;
    static const float one = 1.f, zero = 0.f;
    if (cublasLtMatmul(lt, op, &one, X, l1, Y, l2, &zero, D, ld, D, ld, &h.algo, ws, wsz, 0) != CUBLAS_STATUS_SUCCESS ||
        cudaDeviceSynchronize() != cudaSuccess)
        return false;
    run = [=]() {
        cublasStatus_t st = cublasLtMatmul(lt, op, &one, X, l1, Y, l2, &zero, D, ld, D, ld, &h.algo, ws, wsz, 0);
        if (st != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublasLtMatmul: status %d\n", (int)st); exit(2); }
    };
    return true;
}

static void bench_line(const char *k, int M, int N, int K, float ms, float base)
{
    const double tf = 2.0 * M * N * (double)K / (ms * 1e-3) / 1e12;
    printf("BENCH kernel=%s M=%d N=%d K=%d ms=%.4f tflops=%.1f vs_cublas=%.3f\n", k, M, N, K, ms, tf,
           base > 0 ? base / ms : 0.0);
    fflush(stdout);
}

static int perf(const module &md, const std::vector<int> &Ms)
{
    // Llama-3 8B (hidden 4096, intermediate 14336, qkv 6144) and 70B (hidden 8192,
    // intermediate 28672) projections: {N, K}.
    static const int nk[][2] = { { 6144, 4096 }, { 4096, 4096 }, { 28672, 4096 }, { 4096, 14336 },
                                 { 8192, 8192 }, { 28672, 8192 }, { 8192, 28672 } };
    cublasHandle_t h;
    cublasLtHandle_t lt;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "gemm_hopper_bench: cuBLAS did not start\n");
        return 2;
    }
    const size_t wsz = 64u << 20;
    void *ws;
    CR(cudaMalloc(&ws, wsz));
    for (int M : Ms)
        for (auto &p : nk) {
            const int N = p[0], K = p[1];
            bufs b;
            b.alloc(false, M, N, K, false);
            void *Cb;
            CR(cudaMalloc(&Cb, (size_t)M * N * 2));
            const float one = 1.f, zero = 0.f;
            const float t_cub = time_ms([&] {
                cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, b.B, CUDA_R_16BF, K, b.A, CUDA_R_16BF, K, &zero,
                             b.C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            });
            const float t_cub16 = time_ms([&] {
                cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, b.B, CUDA_R_16BF, K, b.A, CUDA_R_16BF, K, &zero,
                             Cb, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            });
            const float t_wg = time_ms([&] { CK(launch_wgmma(md, false, b.C, b.A, b.B, nullptr, nullptr, M, N, K)); });
            const float t_tc = time_ms([&] { CK(launch_tc(b.C, b.A, b.B, M, N, K)); });
            CR(cudaDeviceSynchronize());
            bench_line("cublas.bf16.f32out", M, N, K, t_cub, t_cub);
            bench_line("cublas.bf16.bf16out", M, N, K, t_cub16, t_cub);
            bench_line("wgmma.bf16", M, N, K, t_wg, t_cub);
            bench_line("gemm_tc.128x128.bf16", M, N, K, t_tc, t_cub);
            b.release();
            cudaFree(Cb);

            b.alloc(true, M, N, K, false);
            CR(cudaMalloc(&Cb, (size_t)M * N * 2));
            float *s1;
            CR(cudaMalloc(&s1, 2 * sizeof(float)));
            fill_scale<<<1, 32>>>(s1, 2, 5);
            std::function<void()> run_blk, run_ten;
            int blk_order = -1;   // 1: the weight as cuBLAS's A, 0: the activations
            for (int wf = 1; wf >= 0 && blk_order < 0; wf--)
                if (lt_fp8(lt, true, wf, Cb, b.A, b.B, b.SA, b.SB, M, N, K, ws, wsz, run_blk)) blk_order = wf;
            const bool has_blk = blk_order >= 0;
            const bool has_ten = lt_fp8(lt, false, true, Cb, b.A, b.B, s1, s1 + 1, M, N, K, ws, wsz, run_ten);
            const float t_blk = has_blk ? time_ms(run_blk) : 0, t_ten = has_ten ? time_ms(run_ten) : 0;
            const float t_wf = time_ms([&] { CK(launch_wgmma(md, true, b.C, b.A, b.B, b.SA, b.SB, M, N, K)); });
            CR(cudaDeviceSynchronize());
            const float base = has_blk ? t_blk : t_ten;
            if (has_blk) bench_line(blk_order ? "cublaslt.fp8.blockscaled" : "cublaslt.fp8.blockscaled.act_first", M, N, K, t_blk, base);
            else printf("BENCH kernel=cublaslt.fp8.blockscaled M=%d N=%d K=%d unsupported=1\n", M, N, K);
            if (has_ten) bench_line("cublaslt.fp8.tensor", M, N, K, t_ten, base);
            bench_line("wgmma.fp8", M, N, K, t_wf, base);
            b.release();
            cudaFree(Cb);
            cudaFree(s1);
        }
    cudaFree(ws);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "check") && strcmp(argv[1], "perf"))) {
        fprintf(stderr, "usage: %s check [FATBIN] | perf [M...]\n", argv[0]);
        return 2;
    }
    CR(cudaSetDevice(0));
    CR(cudaFree(0));   // the primary context, current: the driver calls below use it
    CR(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
    const char *dir = getenv("KC_FATBIN_DIR") ? getenv("KC_FATBIN_DIR") : "build/fatbin";
    const std::string wg_path = std::string(dir) + "/gemm_wgmma.fatbin", tc_path = std::string(dir) + "/gemm_tc.fatbin";
    const char *fatbin = wg_path.c_str();
    int only = -1;   // check: -1 both kernels, 0 bf16, 1 fp8
    if (!strcmp(argv[1], "check"))
        for (int i = 2; i < argc; i++) {
            if (!strcmp(argv[i], "dist=uniform")) g_dist = 0;
            else if (!strcmp(argv[i], "dist=normal")) g_dist = 1;
            else if (!strcmp(argv[i], "dist=wide")) g_dist = 2;
            else if (!strcmp(argv[i], "only=bf16")) only = 0;
            else if (!strcmp(argv[i], "only=fp8")) only = 1;
            else if (!strncmp(argv[i], "dist=", 5) || !strncmp(argv[i], "only=", 5)) {
                fprintf(stderr, "gemm_hopper_bench: %s: expected dist=uniform|normal|wide or only=bf16|fp8\n", argv[i]);
                return 2;
            } else fatbin = argv[i];
        }
    std::vector<char> img = read_file(fatbin);
    module md;
    CK(cuModuleLoadData(&md.mod, img.data()));
    CK(cuModuleGetFunction(&md.bf16, md.mod, "gemm_wgmma_bf16"));
    CK(cuModuleGetFunction(&md.fp8, md.mod, "gemm_wgmma_fp8"));
    CK(cuFuncSetAttribute(md.bf16, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, SMEM_BF16));
    CK(cuFuncSetAttribute(md.fp8, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, SMEM_FP8));
    int regs = 0, lregs = 0;
    CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, md.bf16));
    CK(cuFuncGetAttribute(&lregs, CU_FUNC_ATTRIBUTE_NUM_REGS, md.fp8));
    printf("MODULE fatbin=%s regs_bf16=%d regs_fp8=%d sms=%d\n", fatbin, regs, lregs, sm_count);
    if (!strcmp(argv[1], "check")) return check(md, fatbin, only);
    std::vector<char> tc = read_file(tc_path.c_str());
    CUmodule tcm;
    CK(cuModuleLoadData(&tcm, tc.data()));
    CK(cuModuleGetFunction(&tc_fn, tcm, "gemm_tc_128x128_bf16"));
    CK(cuFuncSetAttribute(tc_fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 67584));
    std::vector<int> Ms;
    for (int i = 2; i < argc; i++) Ms.push_back(atoi(argv[i]));
    if (Ms.empty()) Ms = { 4096, 8192 };
    return perf(md, Ms);
}
