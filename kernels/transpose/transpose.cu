// transpose.cu — out[c, r] = in[r, c] for a row-major [rows, cols] input with
// row stride ld_in >= cols (the padding columns are never read); the output
// is [cols, rows], densely packed (row stride rows).
//   transpose_f32(in, out, rows, cols, ld_in), transpose_f16(...)
// Tiled: a block of 32x8 threads moves one 32x32 tile through shared memory
// padded to 33 columns (no bank conflicts on the column read); blocks stride
// over the flattened tile index (64-bit), so any size fits in grid.x.
#include <cuda_fp16.h>

namespace tr {

constexpr int kTile = 32;
constexpr int kRows = 8;   // threadIdx.y extent: each thread moves 4 elements

template <typename T>
__device__ __forceinline__ void transpose_tiles(const T *__restrict__ in, T *__restrict__ out,
                                                long long rows, long long cols, long long ld_in)
{
    __shared__ T tile[kTile][kTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long tiles_c = (cols + kTile - 1) / kTile;
    const long long tiles = ((rows + kTile - 1) / kTile) * tiles_c;
#ifdef KC_CONTROL_ld_eq_cols
    // plants: the input row stride is assumed to equal the row length (ld_in ignored)
    const long long ld = cols;
#else
    const long long ld = ld_in;
#endif

    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long r0 = (t / tiles_c) * kTile;
        const long long c0 = (t % tiles_c) * kTile;
#ifdef KC_CONTROL_full_tiles_only
        // plants: partial tiles at the bottom/right edge are skipped (sizes off the tile leave outputs unwritten)
        if (r0 + kTile > rows || c0 + kTile > cols)
            continue;
#endif
#pragma unroll
        for (int j = ty; j < kTile; j += kRows) {
            const long long r = r0 + j, c = c0 + tx;
            if (r < rows && c < cols)
                tile[j][tx] = in[r * ld + c];
        }
#ifndef KC_CONTROL_no_sync
        __syncthreads();
#endif
        // (KC_CONTROL_no_sync plants: no barrier between the tile write and the transposed read: warps read rows other warps have not written yet)
#pragma unroll
        for (int j = ty; j < kTile; j += kRows) {
            const long long oc = c0 + j;   // output row = input column
            const long long orow = r0 + tx; // output column = input row
#ifdef KC_CONTROL_store_row_oob
            // plants: the store checks the output row but not the column: on the last row it writes past the end
            if (oc < cols)
#else
            if (oc < cols && orow < rows)
#endif
                out[oc * rows + orow] = tile[tx][j];
        }
        __syncthreads();   // the tile is rewritten by the next iteration
    }
}

} // namespace tr

extern "C" {

__global__ void __launch_bounds__(tr::kTile * tr::kRows)
transpose_f32(const float *in, float *out, long long rows, long long cols, long long ld_in)
{ tr::transpose_tiles<float>(in, out, rows, cols, ld_in); }

__global__ void __launch_bounds__(tr::kTile * tr::kRows)
transpose_f16(const __half *in, __half *out, long long rows, long long cols, long long ld_in)
{ tr::transpose_tiles<__half>(in, out, rows, cols, ld_in); }

} // extern "C"
