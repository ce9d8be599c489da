// vendor_softmax.cu — the module that contracts a kernel we may not edit:
// third_party/fastsoftmax/fastsoftmax.cu (C++ linkage, a template, a host
// launcher and a main()), included as it is. Its directory is this module's
// include path: NVCC_FLAGS_vendor_softmax in CMakeLists.txt,
// KC_NVFLAGS_vendor_softmax in the Makefile. A module is compiled for the
// device only (nvcc -fatbin): the file's host code and main() are parsed,
// never linked.

// First the system headers the file includes, so that the control macros
// below rewrite the third-party code and not CUDA's or the C++ library's.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

// Controls without a change to the file: macros over CUDA builtins it calls.
#if defined(KC_CONTROL_no_barrier)
#define __syncthreads() __syncwarp()             // planted: warps read the partials before all are written
#endif
#if defined(KC_CONTROL_no_shuffle)
#define __shfl_xor_sync(mask, v, lane) (v)       // planted: a warp's lanes never combine their partials
#endif

#include "fastsoftmax.cu"

// The instantiation the contract tests, in the image whatever the file's own
// host code launches. The contract names it by its mangled name,
// _ZN11fastsoftmax12softmax_rowsIfLi256EEEvPT_PKS1_i (the .entry line of
// `nvcc -ptx -o - <this file> <its flags>`; c++filt reads it back).
template __global__ void fastsoftmax::softmax_rows<float, 256>(float *__restrict__, const float *__restrict__, int);
