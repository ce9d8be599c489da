/* ref_gemm.h — the float64 reference of an "NT" GEMM, shared by the contracts
 * of kernels/gemm (gemm_tc) and kernels/cublas_gemm (cuBLAS). */
#ifndef KC_REF_GEMM_H
#define KC_REF_GEMM_H
#include "kcontract.h"

/* C[m, n] = sum_k A[m, k] * B[n, k] in float64. Argument layout: 0 C (the
 * output, M*N), 1 A (M*K, f16 or bf16), 2 B (N*K, the same dtype as A);
 * shape d[0] M, d[1] N, d[2] K. Runs on the harness's threads (kc_parallel_for);
 * the result is bitwise the same on any thread count. */
void kc_ref_gemm_nt(const kc_ref *r);
#endif
