/* runtime_errors.h — names of the CUDA runtime's error codes that no
 * CUresult has (runtime_errors.c): a library kernel built on the runtime may
 * return a cudaError_t (kc_host_entry), and the driver's cuGetErrorName
 * names only its own codes. */
#ifndef KC_RUNTIME_ERRORS_H
#define KC_RUNTIME_ERRORS_H

/* The cudaError_t name of code ("cudaErrorInsufficientDriver" for 35), for
 * the codes of CUDA 13.0's enum cudaError (driver_types.h) that have no
 * CUresult twin; NULL for every other code (the driver names those, or
 * nobody does). */
const char *kc_cuda_runtime_error_name(int code);
#endif
