// libkc_cub.cu — thin launchers around CUB's device-wide algorithms (CCCL, the
// toolkit's headers), built into build/lib/libkc_cub.so (and libkc_cub@<control>.so
// per KC_CONTROL_ switch below) and called by the harness through
// kc_contract.library (cub_contract.c). CUB's kernels are compiled into this
// library for sm_90 (NVFLAGS' -gencode), like our fatbins.
//
// Context and stream: the harness made the device's primary context current;
// the CUDA runtime adopts it, so the buffers it allocated are ours to use. Every
// call goes on the legacy default stream (stream 0) and the harness
// synchronizes after the entry returns.
// Temporary storage: each entry asks CUB for its size, cudaMalloc's it, runs
// the algorithm and cudaFree's it before returning (cudaFree waits for the
// work). That storage is outside the harness's guard bands: gate 2 does not
// see a write past it, only what lands in the contract's buffers.
// Every entry returns 0 or the CUDA runtime's error (a cudaError_t, equal to
// the driver's CUresult for the same error).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kcontract.h"

template <typename T>
static T *dptr(void *const *args, int i)
{
    return (T *)(uintptr_t)*(const unsigned long long *)args[i];
}
static int ival(void *const *args, int i) { return *(const int *)args[i]; }

// The item count handed to CUB.
static int items(int n)
{
#if defined(KC_CONTROL_num_items_minus_one)
    return n - 1;   // planted: an off-by-one count (the last item is dropped)
#else
    return n;
#endif
}

// Runs f(temp, bytes) twice, CUB's way: first for the size, then for real on a
// cudaMalloc'd temporary, freed before returning.
template <typename F>
static int with_temp(F f)
{
    size_t bytes = 0;
    cudaError_t e = f(nullptr, bytes);
    if (e != cudaSuccess) return (int)e;
    void *tmp = nullptr;
    if ((e = cudaMalloc(&tmp, bytes ? bytes : 1)) != cudaSuccess) return (int)e;
    e = f(tmp, bytes);
    if (e == cudaSuccess) e = cudaGetLastError();
    cudaError_t f2 = cudaFree(tmp);
    return (int)(e != cudaSuccess ? e : f2);
}

// ---- DeviceReduce::Sum: args out[1], in[n], n ----
template <typename T>
static int reduce_sum(void *const *args)
{
    T *out = dptr<T>(args, 0);
    const T *in = dptr<const T>(args, 1);
    const int n = items(ival(args, 2));
#if defined(KC_CONTROL_out_offset)
    out += 1;       // planted: a segmented output's offset applied to a single output
#endif
    return with_temp([&](void *tmp, size_t &bytes) { return cub::DeviceReduce::Sum(tmp, bytes, in, out, n); });
}

extern "C" int kc_cub_reduce_sum_f32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    return reduce_sum<float>(args);
}
extern "C" int kc_cub_reduce_sum_i32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    return reduce_sum<int>(args);
}

// ---- DeviceScan::InclusiveSum / ExclusiveSum: args out[n], in[n], n ----
template <typename T, bool Inclusive>
static int scan_sum(void *const *args)
{
    T *out = dptr<T>(args, 0);
    T *in = dptr<T>(args, 1);
    const int n = items(ival(args, 2));
#if defined(KC_CONTROL_scan_in_place)
    out = in;       // planted: the scan run in place, over its input (the output never written)
#endif
    return with_temp([&](void *tmp, size_t &bytes) {
        return Inclusive ? cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n)
                         : cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n);
    });
}

extern "C" int kc_cub_scan_incl_i32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    return scan_sum<int, true>(args);
}
extern "C" int kc_cub_scan_excl_i32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    return scan_sum<int, false>(args);
}
extern "C" int kc_cub_scan_incl_f32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    return scan_sum<float, true>(args);
}

// The radix sort's bit range [0, end_bit).
template <typename K>
static int end_bit()
{
#if defined(KC_CONTROL_end_bit_short)
    return (int)sizeof(K) * 8 - 8;   // planted: the top 8 key bits (sign, exponent) left out of the sort
#else
    return (int)sizeof(K) * 8;
#endif
}

// ---- DeviceRadixSort::SortPairsDescending: args keys_out[n], vals_out[n], keys_in[n], vals_in[n], n ----
extern "C" int kc_cub_sort_pairs_desc_f32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    float *keys_out = dptr<float>(args, 0);
    int *vals_out = dptr<int>(args, 1);
    const float *keys_in = dptr<const float>(args, 2);
    const int *vals_in = dptr<const int>(args, 3);
    const int n = items(ival(args, 4));
    const int hi = end_bit<float>();
    return with_temp([&](void *tmp, size_t &bytes) {
        return cub::DeviceRadixSort::SortPairsDescending(tmp, bytes, keys_in, keys_out, vals_in, vals_out, n, 0, hi);
    });
}

// ---- DeviceRadixSort::SortKeys: args keys_out[n], keys_in[n], n ----
extern "C" int kc_cub_sort_keys_u32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    unsigned *keys_out = dptr<unsigned>(args, 0);
    const unsigned *keys_in = dptr<const unsigned>(args, 1);
    const int n = items(ival(args, 2));
    const int hi = end_bit<unsigned>();
    return with_temp([&](void *tmp, size_t &bytes) {
        return cub::DeviceRadixSort::SortKeys(tmp, bytes, keys_in, keys_out, n, 0, hi);
    });
}
