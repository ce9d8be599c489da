/* ref_gemm.h — the float64 reference of an "NT" GEMM, shared by the contracts
 * of kernels/gemm (gemm_tc) and kernels/cublas_gemm (cuBLAS): kc_ref_gemm_nt,
 * declared in the public kcontract.h (its reference helpers). */
#ifndef KC_REF_GEMM_H
#define KC_REF_GEMM_H
#include "kcontract.h"
#endif
