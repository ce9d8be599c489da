// kcontract_device.cuh — for writing a contract's float64 CUDA reference
// (kcontract.h, kc_device_ref): reading its kc_dref's inputs as doubles,
// exactly as kc_ref_in does on the host (kcontract_dtype.h's conversions,
// shared by both), and the grid-stride loop the default reference grid is
// meant for. A reference kernel is
//     extern "C" __global__ void my_ref(kc_dref r)
//     {
//         KC_GRID_STRIDE(i, r.count[0]) r.out[0][i] = 2.0 * kc_dref_in(r, 1, i);
//     }
// in a module kernels/<family>/<name>_ref.cu, which the build compiles with
// -fmad=false: write the host reference's arithmetic in its order and the
// two agree bit for bit.
#ifndef KCONTRACT_DEVICE_CUH
#define KCONTRACT_DEVICE_CUH
#include "kcontract.h"
#include "kcontract_dtype.h"

// Element i of argument a's input as a double (exact for every dtype).
static __device__ __forceinline__ double kc_dref_in(const kc_dref &r, int a, size_t i)
{
    return kc_cvt_load(r.dtype[a], r.in[a], i);
}

// for (i = this thread's first; i < n; i += every thread of the grid)
#define KC_GRID_STRIDE(i, n)                                                             \
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; \
         i < (unsigned long long)(n); i += (unsigned long long)gridDim.x * blockDim.x)
#endif
