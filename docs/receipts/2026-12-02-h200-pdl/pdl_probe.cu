// pdl_probe.cu — what the H200 does with kernels/pdl/token_quant_pdl.cu's
// pair outside the harness: whether the dependent really starts before the
// producer ends, how often a dependent that does not wait reads its row's
// scale before the producer wrote it, and what the overlap saves.
// Built three times (run.sh): clean, -DKC_CONTROL_dependent_no_wait and
// -DKC_CONTROL_wait_in_one_thread, each including the module's source, so
// the device functions are the ones the contracts run.
//
// For each shape and launch mode (PDL on a created stream, PDL on the legacy
// default stream, a plain launch on a created stream), TRIALS times: scale
// poisoned with 0xFF bytes (NaN, as gate 2's poison A), the producer and the
// dependent launched as the harness launches them, one synchronize. Each
// producer block records %globaltimer at its start and end, each dependent
// block at its start (before its wait). A trial "overlapped" when the first
// dependent block started before the last producer block ended; a row was
// "read early" when its quantized values hold e4m3 NaN (only a NaN scale
// makes one: the inputs are finite and the conversion saturates). Then the
// time of one pair from 200 back-to-back pairs (cudaEvent), per mode.
// Output: one line per (shape, mode).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "token_quant_pdl.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__, #x); exit(1); } } while (0)

__device__ __forceinline__ unsigned long long gtimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void __launch_bounds__(256) probe_scale(float* scale, const __half* x, long long rows, long long cols,
                                                   unsigned long long* t) {
    const unsigned long long t0 = gtimer();
    token_scale(scale, x, rows, cols);
    __syncthreads();
    if (threadIdx.x == 0) { t[2 * blockIdx.x] = t0; t[2 * blockIdx.x + 1] = gtimer(); }
}

__global__ void __launch_bounds__(256) probe_quant(__nv_fp8_storage_t* q, const float* scale, const __half* x,
                                                   long long rows, long long cols, unsigned long long* t) {
    if (threadIdx.x == 0) t[blockIdx.x] = gtimer();   // the block's start, before its wait
    token_quant(q, scale, x, rows, cols);
}

// Rows of q holding an e4m3 NaN (0x7F or 0xFF) into *n.
__global__ void count_nan_rows(const unsigned char* q, long long cols, int* n) {
    __shared__ int any;
    if (threadIdx.x == 0) any = 0;
    __syncthreads();
    const unsigned char* qr = q + blockIdx.x * cols;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x)
        if ((qr[c] & 0x7F) == 0x7F) any = 1;
    __syncthreads();
    if (threadIdx.x == 0 && any) atomicAdd(n, 1);
}

enum mode { PDL_STREAM, PDL_LEGACY, PLAIN_STREAM };
static const char* mode_name[] = { "pdl/stream", "pdl/legacy", "plain/stream" };

struct bufs {
    __half* x; float* scale; __nv_fp8_storage_t* q; unsigned long long *tp, *td; int* nan;
};

static void launch_pair(const bufs& b, long long rows, long long cols, int sms, mode m, cudaStream_t st) {
    cudaStream_t s = m == PDL_LEGACY ? (cudaStream_t)0 : st;
    unsigned pg = (unsigned)(rows < 2LL * sms ? rows : 2LL * sms);
    probe_scale<<<pg, 256, 0, s>>>(b.scale, b.x, rows, cols, b.tp);
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    cfg.gridDim = dim3((unsigned)rows);
    cfg.blockDim = dim3(256);
    cfg.stream = s;
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = m == PLAIN_STREAM ? 0 : 1;
    CK(cudaLaunchKernelEx(&cfg, probe_quant, b.q, (const float*)b.scale, (const __half*)b.x, rows, cols, b.td));
}

int main(int argc, char** argv) {
    const char* variant = argc > 1 ? argv[1] : "?";
    const int TRIALS = 20, PAIRS = 200;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    static const long long shapes[][2] = { { 1, 4096 }, { 128, 4096 }, { 512, 4096 }, { 2048, 4096 },
                                           { 128, 14336 }, { 1000, 33 }, { 8192, 8192 } };
    const long long maxn = 8192LL * 8192;
    bufs b;
    CK(cudaMalloc(&b.x, maxn * 2));
    CK(cudaMalloc(&b.scale, 8192 * 4));
    CK(cudaMalloc(&b.q, maxn));
    CK(cudaMalloc(&b.tp, 2 * 8192 * 8));
    CK(cudaMalloc(&b.td, 8192 * 8));
    CK(cudaMalloc(&b.nan, 4));
    std::vector<__half> hx(maxn);
    unsigned long long st = 88172645463325252ull;
    for (long long i = 0; i < maxn; i++) {
        st ^= st << 13; st ^= st >> 7; st ^= st << 17;
        hx[i] = __float2half((float)((double)(st >> 11) / 9007199254740992.0 * 4.0 - 2.0));
    }
    CK(cudaMemcpy(b.x, hx.data(), maxn * 2, cudaMemcpyHostToDevice));
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<unsigned long long> tp(2 * 8192), td(8192);
    printf("variant %s, %d SMs, %d trials, pair time over %d pairs\n", variant, sms, TRIALS, PAIRS);
    for (auto& sh : shapes) {
        const long long rows = sh[0], cols = sh[1];
        const unsigned pg = (unsigned)(rows < 2LL * sms ? rows : 2LL * sms);
        for (int mi = 0; mi < 3; mi++) {
            mode m = (mode)mi;
            cudaStream_t s = m == PDL_LEGACY ? (cudaStream_t)0 : stream;
            int overlapped = 0, early_trials = 0;
            long long early_rows = 0;
            double lead_us = 0;
            for (int t = 0; t < TRIALS; t++) {
                CK(cudaMemsetAsync(b.scale, 0xFF, rows * 4, s));
                CK(cudaMemsetAsync(b.nan, 0, 4, s));
                launch_pair(b, rows, cols, sms, m, stream);
                count_nan_rows<<<(unsigned)rows, 256, 0, s>>>((const unsigned char*)b.q, cols, b.nan);
                CK(cudaStreamSynchronize(s));
                CK(cudaDeviceSynchronize());
                int nan = 0;
                CK(cudaMemcpy(&nan, b.nan, 4, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(tp.data(), b.tp, 2 * pg * 8, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(td.data(), b.td, rows * 8, cudaMemcpyDeviceToHost));
                unsigned long long pend = 0, dstart = ~0ull;
                for (unsigned i = 0; i < pg; i++) pend = tp[2 * i + 1] > pend ? tp[2 * i + 1] : pend;
                for (long long i = 0; i < rows; i++) dstart = td[i] < dstart ? td[i] : dstart;
                if (dstart < pend) { overlapped++; lead_us += (double)(pend - dstart) / 1000.0; }
                early_trials += nan > 0;
                early_rows += nan;
            }
            for (int w = 0; w < 10; w++) launch_pair(b, rows, cols, sms, m, stream);
            CK(cudaEventRecord(e0, s));
            for (int p = 0; p < PAIRS; p++) launch_pair(b, rows, cols, sms, m, stream);
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            printf("shape %5lldx%-5lld %-12s overlapped %2d/%d (dependent's first block %.2f us before the producer's end, mean)"
                   "  read early %2d/%d trials (%.1f rows of %lld, mean)  pair %.2f us\n",
                   rows, cols, mode_name[mi], overlapped, TRIALS, overlapped ? lead_us / overlapped : 0.0, early_trials,
                   TRIALS, (double)early_rows / TRIALS, rows, 1000.0 * ms / PAIRS);
        }
    }
    CK(cudaGetLastError());
    return 0;
}
