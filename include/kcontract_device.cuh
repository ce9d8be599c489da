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
// two agree bit for bit. Arguments by name: kc_dref_arg; a block's maximum:
// kc_dref_block_max.
#ifndef KCONTRACT_DEVICE_CUH
#define KCONTRACT_DEVICE_CUH
#include "kcontract.h"
#include "kcontract_dtype.h"

// Element i of argument a's input as a double (exact for every dtype).
static __device__ __forceinline__ double kc_dref_in(const kc_dref &r, int a, size_t i)
{
    return kc_cvt_load(r.dtype[a], r.in[a], i);
}

// The index of the argument called name (its kc_arg.name), for a reference
// written with names that survives a reordered argument list: look it up
// once, at the kernel's start, and keep the index (kc_dref_find compares at
// most KC_MAX_ARGS short strings):
//     const int x = kc_dref_arg(r, "x"), y = kc_dref_arg(r, "y");
//     KC_GRID_STRIDE(i, r.count[y]) r.out[y][i] = 2.0 * kc_dref_in(r, x, i);
// A name the contract does not have (or one of KC_DREF_NAME_MAX bytes or
// more) prints the name and the contract's argument names, then traps: the
// device reference fails, an internal error of the item, never a read of
// another argument.
static __device__ __noinline__ int kc_dref_arg(const kc_dref &r, const char *name)
{
    const int a = kc_dref_find(&r, name);
    if (a >= 0) return a;
    if (threadIdx.x | threadIdx.y | threadIdx.z) __trap();    /* one message a block */
    printf("kc_dref_arg: the device reference asks for argument \"%s\", which the contract does not have "
           "(or whose name is %d bytes or more); its %d arguments:", name, KC_DREF_NAME_MAX, r.nargs);
    for (int i = 0; i < r.nargs && i < KC_MAX_ARGS; i++) printf(" %s", r.name[i]);
    printf("\n");
    __trap();
    return -1;
}

// The largest v of the block's threads, in every thread, for a reference
// whose host twin keeps a maximum with `if (a > m) m = a` from m = 0: a NaN
// never enters, and the result is the same in any order (a maximum is
// exact). Called by every thread of the block (blockDim.x a multiple of 32,
// at most 1024) with part[32] in shared memory, free on entry and on return.
static __device__ double kc_dref_block_max(double v, double *part)
{
    for (int off = 16; off > 0; off >>= 1) {
        const double o = __shfl_xor_sync(0xffffffffu, v, off);
        if (o > v) v = o;
    }
    __syncthreads();                    // part[] free from an earlier use
    if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0;
        for (int off = 16; off > 0; off >>= 1) {
            const double o = __shfl_xor_sync(0xffffffffu, v, off);
            if (o > v) v = o;
        }
        if (threadIdx.x == 0) part[0] = v;
    }
    __syncthreads();
    v = part[0];
    __syncthreads();                    // part[] free again
    return v;
}

// for (i = this thread's first; i < n; i += every thread of the grid)
#define KC_GRID_STRIDE(i, n)                                                             \
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; \
         i < (unsigned long long)(n); i += (unsigned long long)gridDim.x * blockDim.x)
#endif
