/* ref_gemm.h — the float64 reference of a GEMM: kc_ref_gemm (B as [N, K] or
 * [K, N], any input dtype, an optional bias) and its positional NT form
 * kc_ref_gemm_nt, shared by the contracts of kernels/gemm (gemm_tc) and
 * kernels/cublas_gemm (cuBLAS); declared in the public kcontract.h (its
 * common references). */
#ifndef KC_REF_GEMM_H
#define KC_REF_GEMM_H
#include "kcontract.h"
#endif
