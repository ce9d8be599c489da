// cub_ref.cu — float64 device references of the integer contracts of
// kernels/cub/cub_contract.c, one kernel per host reference:
//   cub_reduce_sum_i32_ref  cub.reduce_sum.i32  out[0] = wrap(sum in)       (reduce_sum_i32_ref)
//   cub_scan_incl_i32_ref   cub.scan_incl.i32   out[i] = wrap(in[0..i])     (scan_incl_i32_ref)
//   cub_scan_excl_i32_ref   cub.scan_excl.i32   out[i] = wrap(in[0..i))     (scan_excl_i32_ref)
// wrap(s) = (double)(int32_t)(uint32_t)s, the host's wrap_i32 of its exact
// int64 sums; sums modulo 2^32 in uint32 give the same residues in any
// order, so these are exact (bitwise) without the host's sequential order.
// One block of CUB_REF_THREADS threads (cub_contract.c: cub_ref_launch):
// the reduce strides over the input (CUB_REF_ITEMS loads at a time); the
// scans walk it in tiles of CUB_REF_ITEMS contiguous items per thread, a
// block scan of the thread totals per tile and a carry between tiles.
//
// The f32 sum and scan (host reduce_sum_ref, scan_incl_f32_ref) stay on the
// host: one sequential chain of 2^25 float64 adds, the order the result
// depends on, which one GPU thread runs no faster than a CPU core.
#include <stdint.h>
#include "kcontract_device.cuh"

#define CUB_REF_THREADS 1024
#define CUB_REF_ITEMS 8

enum { CR_OUT = 0, CR_IN = 1 };

static __device__ __forceinline__ double cub_ref_wrap(uint32_t s) { return (double)(int32_t)s; }

// Exclusive scan (mod 2^32) of v over the block's threads in thread order;
// *total the block's sum. Called by the whole block.
static __device__ uint32_t cub_ref_block_scan(uint32_t v, uint32_t *total)
{
    __shared__ uint32_t warp_sum[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    uint32_t incl = v;
    for (int off = 1; off < 32; off <<= 1) {
        const uint32_t o = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off) incl += o;
    }
    if (lane == 31) warp_sum[warp] = incl;
    __syncthreads();
    uint32_t before = incl - v, all = 0;
    for (int w = 0; w < nwarps; w++) {
        if (w < warp) before += warp_sum[w];
        all += warp_sum[w];
    }
    __syncthreads();
    *total = all;
    return before;
}

extern "C" __global__ void __launch_bounds__(CUB_REF_THREADS) cub_reduce_sum_i32_ref(kc_dref r)
{
    __shared__ uint32_t warp_sum[32];
    const int32_t *in = (const int32_t *)r.in[CR_IN];
    const long long n = (long long)r.count[CR_IN];
    const long long step = blockDim.x;
    uint32_t s = 0;
    long long i = threadIdx.x;
    for (; i + (CUB_REF_ITEMS - 1) * step < n; i += CUB_REF_ITEMS * step) {   // CUB_REF_ITEMS loads in flight
        uint32_t v[CUB_REF_ITEMS];
#pragma unroll
        for (int k = 0; k < CUB_REF_ITEMS; k++) v[k] = (uint32_t)in[i + k * step];
#pragma unroll
        for (int k = 0; k < CUB_REF_ITEMS; k++) s += v[k];
    }
    for (; i < n; i += step) s += (uint32_t)in[i];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t all = 0;
        for (unsigned w = 0; w < blockDim.x / 32; w++) all += warp_sum[w];
        r.out[CR_OUT][0] = cub_ref_wrap(all);
    }
}

template <bool Inclusive>
static __device__ void cub_ref_scan(const kc_dref &r)
{
    const int32_t *in = (const int32_t *)r.in[CR_IN];
    double *out = r.out[CR_OUT];
    const long long n = (long long)r.count[CR_IN], tile = (long long)blockDim.x * CUB_REF_ITEMS;
    uint32_t carry = 0;
    for (long long t0 = 0; t0 < n; t0 += tile) {
        const long long i0 = t0 + (long long)threadIdx.x * CUB_REF_ITEMS;
        uint32_t v[CUB_REF_ITEMS], mine = 0;
#pragma unroll
        for (int k = 0; k < CUB_REF_ITEMS; k++) {
            v[k] = i0 + k < n ? (uint32_t)in[i0 + k] : 0u;
            mine += v[k];
        }
        uint32_t total, s = carry + cub_ref_block_scan(mine, &total);
#pragma unroll
        for (int k = 0; k < CUB_REF_ITEMS; k++) {
            if (!Inclusive && i0 + k < n) out[i0 + k] = cub_ref_wrap(s);
            s += v[k];
            if (Inclusive && i0 + k < n) out[i0 + k] = cub_ref_wrap(s);
        }
        carry += total;
    }
}

extern "C" __global__ void __launch_bounds__(CUB_REF_THREADS) cub_scan_incl_i32_ref(kc_dref r) { cub_ref_scan<true>(r); }
extern "C" __global__ void __launch_bounds__(CUB_REF_THREADS) cub_scan_excl_i32_ref(kc_dref r) { cub_ref_scan<false>(r); }
