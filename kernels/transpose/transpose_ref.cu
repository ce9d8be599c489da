// transpose_ref.cu — the float64 device reference of transpose.{f32,f16}
// (kernels/transpose/transpose_contract.c, ref_transpose): out[c][i] =
// in[i][c] (input row stride ld_in, output [cols, rows] packed), each element
// read through kc_dref_in: a copy, bitwise equal to the host.
//
// On the default grid (4 blocks per SM of blockDim = a multiple of 32
// threads), blocks stride over 32 x 32 tiles, staged in shared memory so that
// both the reads (along an input row) and the writes (along an output row)
// are coalesced.
#include "kcontract_device.cuh"

enum { TR_IN = 0, TR_OUT = 1 };
#define TR_T 32

extern "C" __global__ void transpose_ref(kc_dref r)
{
    __shared__ double tile[TR_T][TR_T + 1];
    const long long rows = r.shape.d[0], cols = r.shape.d[1], ld = r.shape.d[2];
    const long long tr = (rows + TR_T - 1) / TR_T, tc = (cols + TR_T - 1) / TR_T;
    const int tx = threadIdx.x % TR_T, ty = threadIdx.x / TR_T, step = blockDim.x / TR_T;
    for (long long t = blockIdx.x; t < tr * tc; t += gridDim.x) {
        const long long i0 = t / tc * TR_T, c0 = t % tc * TR_T;
        for (int k = ty; k < TR_T; k += step)
            if (i0 + k < rows && c0 + tx < cols) tile[k][tx] = kc_dref_in(r, TR_IN, (size_t)((i0 + k) * ld + c0 + tx));
        __syncthreads();
        for (int k = ty; k < TR_T; k += step)
            if (c0 + k < cols && i0 + tx < rows) r.out[TR_OUT][(c0 + k) * rows + i0 + tx] = tile[tx][k];
        __syncthreads();
    }
}
