/* ctx_stall_probe.c — bench-only: how long another process's context waits
 * for the GPU. One context on device 0 launches a one-thread kernel and
 * waits for it, over and over, for SECONDS seconds; every launch-and-wait
 * longer than THRESHOLD_MS is printed with its start (seconds since the
 * probe started, and the Unix time, to line it up with other logs). Run
 * beside a compute-sanitizer session or a kcontract run, it tells whether
 * their work only time-slices with other contexts (waits of a few
 * milliseconds) or shuts them out (waits of seconds): issue 23, where a
 * `--jobs` run's items stalled while sanitizer items ran
 * (docs/receipts/2026-12-03-h200-racecheck, call 3).
 *
 * Usage: kc_ctx_stall_probe SECONDS [THRESHOLD_MS]   (whole numbers; THRESHOLD_MS 20)
 * Output: "stall at S s (unix U): W ms" lines, then one line
 *   BENCH probe=ctx_stall seconds=S launches=N p50_us=.. p99_us=.. max_ms=..
 *         stalls=K stalled_s=..
 * Exit 0; 2 with a message on bad arguments or a driver error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_driver.h"
#include "strict_num.h"

/* One thread writing one word: the smallest launch the GPU must run. */
static const char probe_ptx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry kc_probe(.param .u64 p)\n{\n"
    "  .reg .u64 %rd<2>;\n  .reg .u32 %r<2>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u32 %r1, 1;\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";

static double now_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int fail(const kc_cuda *cu, const char *what, CUresult r)
{
    fprintf(stderr, "kc_ctx_stall_probe: %s failed: %s\n", what, kc_cuda_error_name(cu, r));
    return 2;
}

int main(int argc, char **argv)
{
    uint64_t secs_u = 0, thresh_u = 20;
    if (argc < 2 || argc > 3 || kc_parse_u64(argv[1], 86400, &secs_u) || !secs_u ||
        (argc == 3 && (kc_parse_u64(argv[2], 60000, &thresh_u) || !thresh_u))) {
        fprintf(stderr, "usage: kc_ctx_stall_probe SECONDS [THRESHOLD_MS]: SECONDS a whole number 1-86400, "
                        "THRESHOLD_MS 1-60000 (got %s%s%s)\n", argc > 1 ? argv[1] : "nothing", argc > 2 ? " " : "",
                argc > 2 ? argv[2] : "");
        return 2;
    }
    const double secs = (double)secs_u, thresh_ms = (double)thresh_u;
    kc_cuda cu;
    char err[512];
    if (kc_cuda_load(&cu, NULL, err, sizeof err)) {
        fprintf(stderr, "kc_ctx_stall_probe: %s\n", err);
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr word;
    CUresult r;
    if ((r = cu.DeviceGet(&dev, 0)) != CUDA_SUCCESS) return fail(&cu, "cuDeviceGet(0)", r);
    if ((r = cu.DevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS) return fail(&cu, "cuDevicePrimaryCtxRetain", r);
    if ((r = cu.CtxSetCurrent(ctx)) != CUDA_SUCCESS) return fail(&cu, "cuCtxSetCurrent", r);
    if ((r = cu.ModuleLoadData(&mod, probe_ptx)) != CUDA_SUCCESS) return fail(&cu, "cuModuleLoadData (PTX)", r);
    if ((r = cu.ModuleGetFunction(&fn, mod, "kc_probe")) != CUDA_SUCCESS) return fail(&cu, "cuModuleGetFunction", r);
    if ((r = cu.MemAlloc(&word, 4)) != CUDA_SUCCESS) return fail(&cu, "cuMemAlloc", r);
    size_t n = 0, cap = 1 << 16;
    double *lat = malloc(cap * sizeof *lat), stalled = 0, max = 0;
    if (!lat) return fail(&cu, "malloc", CUDA_ERROR_OUT_OF_MEMORY);
    const double t0 = now_s(CLOCK_MONOTONIC), u0 = now_s(CLOCK_REALTIME);
    int stalls = 0;
    for (;;) {
        const double a = now_s(CLOCK_MONOTONIC);
        if (a - t0 >= secs) break;
        void *params[] = { &word };
        if ((r = cu.LaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL)) != CUDA_SUCCESS)
            return fail(&cu, "cuLaunchKernel", r);
        if ((r = cu.CtxSynchronize()) != CUDA_SUCCESS) return fail(&cu, "cuCtxSynchronize", r);
        const double w = now_s(CLOCK_MONOTONIC) - a;
        if (w * 1e3 > thresh_ms) {
            printf("stall at %.3f s (unix %.3f): %.1f ms\n", a - t0, u0 + (a - t0), w * 1e3);
            fflush(stdout);
            stalls++;
            stalled += w;
        }
        if (w > max) max = w;
        if (n == cap) {
            double *m = realloc(lat, 2 * cap * sizeof *lat);
            if (!m) return fail(&cu, "realloc", CUDA_ERROR_OUT_OF_MEMORY);
            lat = m;
            cap *= 2;
        }
        lat[n++] = w;
    }
    qsort(lat, n, sizeof *lat, cmp_double);
    printf("BENCH probe=ctx_stall seconds=%.1f launches=%zu p50_us=%.0f p99_us=%.0f max_ms=%.1f stalls=%d "
           "stalled_s=%.3f\n", secs, n, n ? lat[n / 2] * 1e6 : 0, n ? lat[n * 99 / 100] * 1e6 : 0, max * 1e3, stalls,
           stalled);
    free(lat);
    cu.MemFree(word);
    cu.ModuleUnload(mod);
    cu.DevicePrimaryCtxRelease(dev);
    return 0;
}
