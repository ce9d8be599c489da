// libkc_cublas.cu — thin launchers around cuBLAS's cublasGemmEx, built into
// build/lib/libkc_cublas.so (and libkc_cublas@<control>.so per KC_CONTROL_
// switch below) and called by the harness through kc_contract.library
// (cublas_gemm_contract.c). Host code only: no kernel of ours.
//
// C[m, n] = sum_k A[m, k] * B[n, k]  (row-major, "NT": A [M, K] activations,
// B [N, K] an nn.Linear weight, C [M, N] f32), A and B f16 or bf16, f32
// compute (CUBLAS_COMPUTE_32F), the library's default algorithm.
// cuBLAS is column-major: the row-major C [M, N] is the column-major C^T
// [N, M] = B A^T, so the call is gemm(T, N, m = N, n = M, k = K, B ld K, A ld K,
// C ld N).
//
// Context: the harness made the device's primary context current with the
// driver API; the CUDA runtime (which cuBLAS uses) adopts the current primary
// context instead of creating one, so our handle, its workspace and its
// kernels live in the harness's context and the device pointers are valid.
// The call goes on the legacy default stream (no cublasSetStream) and nothing
// follows it: the harness synchronizes the context after the entry returns.
// Memory cuBLAS allocates for itself (handle workspace) is outside the
// harness's guard bands: gate 2 does not see writes there. The handle lives
// for one item: kc_host_release (kcontract.h) destroys it after the item's
// last case, so the item leaves the context as it found it.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kcontract.h"

static cublasHandle_t handle;   // one per library (per loaded .so), made on the first call

static int status_to_cuda(cublasStatus_t st)
{
    switch (st) {
    case CUBLAS_STATUS_SUCCESS: return 0;
    case CUBLAS_STATUS_ALLOC_FAILED: return 2;            // CUDA_ERROR_OUT_OF_MEMORY
    case CUBLAS_STATUS_INVALID_VALUE: return 1;           // CUDA_ERROR_INVALID_VALUE
    case CUBLAS_STATUS_NOT_SUPPORTED: return 801;         // CUDA_ERROR_NOT_SUPPORTED
    case CUBLAS_STATUS_ARCH_MISMATCH: return 209;         // CUDA_ERROR_NO_BINARY_FOR_GPU
    default: {
        cudaError_t e = cudaGetLastError();               // an execution failure: the runtime's error
        return e != cudaSuccess ? (int)e : 999;           // else CUDA_ERROR_UNKNOWN
    }
    }
}

static int gemm_nt(void *const *args, cudaDataType_t ab)
{
    float *C = (float *)(uintptr_t)*(const unsigned long long *)args[0];
    const void *A = (const void *)(uintptr_t)*(const unsigned long long *)args[1];
    const void *B = (const void *)(uintptr_t)*(const unsigned long long *)args[2];
    const int M = *(const int *)args[3], N = *(const int *)args[4], K = *(const int *)args[5];
    if (!handle) {
        cublasStatus_t st = cublasCreate(&handle);
        if (st != CUBLAS_STATUS_SUCCESS) {
            handle = NULL;
            return status_to_cuda(st);
        }
    }
    const float alpha = 1.0f;
    float beta = 0.0f;
#if defined(KC_CONTROL_beta_one)
    beta = 1.0f;   // planted: accumulates into C, which the caller never initialized (poison 0xFF: NaN)
#endif
#if defined(KC_CONTROL_mn_swapped)
    // planted: the row-major/column-major swap forgotten: C = A B^T computed
    // column-major, i.e. written transposed ([N, M] row-major) into C
    cublasStatus_t st = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, A, ab, K, B, ab, K, &beta, C,
                                     CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
#else
#if defined(KC_CONTROL_transpose_flipped)
    const cublasOperation_t opB = CUBLAS_OP_N;   // planted: B read as if stored [K, N] (cuBLAS accepts it while N <= K)
#else
    const cublasOperation_t opB = CUBLAS_OP_T;
#endif
    cublasStatus_t st = cublasGemmEx(handle, opB, CUBLAS_OP_N, N, M, K, &alpha, B, ab, K, A, ab, K, &beta, C,
                                     CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
#endif
    return status_to_cuda(st);
}

extern "C" int kc_cublas_gemm_nt_f16(void *const *args, const kc_shape *s, const kc_device *dev)
{
    return gemm_nt(args, CUDA_R_16F);
}

extern "C" int kc_cublas_gemm_nt_bf16(void *const *args, const kc_shape *s, const kc_device *dev)
{
    return gemm_nt(args, CUDA_R_16BF);
}

// Frees the handle (and its workspace) the entries made; the next call makes
// it again. 0, or the cuBLAS status as a CUDA error code.
extern "C" int kc_host_release(void)
{
    if (!handle) return 0;
    cublasStatus_t st = cublasDestroy(handle);
    handle = NULL;
    return status_to_cuda(st);
}
