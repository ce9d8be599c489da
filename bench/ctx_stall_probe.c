/* ctx_stall_probe.c — bench-only: how long another process's context waits
 * for the GPU and the driver. One context on device 0 does one operation
 * (OP, below) over and over for SECONDS seconds; every one that takes
 * longer than THRESHOLD_MS is printed with its start (seconds since the
 * probe started, and the Unix time, to line it up with other logs). Run
 * beside a compute-sanitizer session or a kcontract run, it tells whether
 * their work only time-slices with other contexts (waits of a few
 * milliseconds) or shuts them out (waits of seconds): issue 23, where a
 * `--jobs` run's items stalled while sanitizer items ran
 * (docs/receipts/2026-12-03-h200-racecheck, call 3; the answer:
 * docs/receipts/2026-12-04-h200-stalls). The operations:
 *   launch  the kernel, then cuCtxSynchronize (the GPU's time slices);
 *   alloc   cuMemAlloc and cuMemFree of 64 MiB (the driver's device memory);
 *   host    cuMemAllocHost and cuMemFreeHost of 16 MiB (page-locked memory);
 *   module  cuModuleLoadData and cuModuleUnload of the kernel's PTX;
 *   proc    no CUDA: /proc/<pid>/stat and /proc/<pid>/cmdline of every
 *           process read once (what the run's process lookups read).
 *
 * Usage: kc_ctx_stall_probe SECONDS [THRESHOLD_MS [OP]]   (whole numbers; 20; launch)
 * Output: "stall at S s (unix U): W ms" lines, then one line
 *   BENCH probe=ctx_stall op=OP seconds=S launches=N p50_us=.. p99_us=..
 *         max_ms=.. stalls=K stalled_s=..   (launches: iterations)
 * Exit 0; 2 with a message on bad arguments or a driver error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "clock.h"
#include "cuda_driver.h"
#include "strict_num.h"

/* One thread writing one word: the smallest launch the GPU must run. */
static const char probe_ptx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry kc_probe(.param .u64 p)\n{\n"
    "  .reg .u64 %rd<2>;\n  .reg .u32 %r<2>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u32 %r1, 1;\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";

/* The Unix time in seconds, to print a stall's start beside other logs'. */
static double unix_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
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

/* Reads /proc/<pid>/stat and /proc/<pid>/cmdline of every process once. */
static void read_proc(void)
{
    DIR *d = opendir("/proc");
    if (!d) return;
    struct dirent *e;
    char path[300], buf[4096];
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "/proc/%s/%s", e->d_name, k ? "cmdline" : "stat");
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            while (read(fd, buf, sizeof buf) > 0) {}
            close(fd);
        }
    }
    closedir(d);
}

enum { OP_LAUNCH, OP_ALLOC, OP_HOST, OP_MODULE, OP_PROC };
static const char *const op_names[] = { "launch", "alloc", "host", "module", "proc" };

/* One iteration of operation op. */
static CUresult one_op(const kc_cuda *cu, int op, CUfunction fn, CUdeviceptr word, const char **what)
{
    CUresult r = CUDA_SUCCESS;
    void *params[] = { &word };
    CUdeviceptr p;
    void *h;
    CUmodule m;
    switch (op) {
    case OP_LAUNCH:
        *what = "cuLaunchKernel";
        if ((r = cu->LaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL)) != CUDA_SUCCESS) return r;
        *what = "cuCtxSynchronize";
        return cu->CtxSynchronize();
    case OP_ALLOC:
        *what = "cuMemAlloc (64 MiB)";
        if ((r = cu->MemAlloc(&p, (size_t)64 << 20)) != CUDA_SUCCESS) return r;
        *what = "cuMemFree";
        return cu->MemFree(p);
    case OP_HOST:
        *what = "cuMemAllocHost (16 MiB)";
        if ((r = cu->MemAllocHost(&h, (size_t)16 << 20)) != CUDA_SUCCESS) return r;
        *what = "cuMemFreeHost";
        return cu->MemFreeHost(h);
    case OP_MODULE:
        *what = "cuModuleLoadData (PTX)";
        if ((r = cu->ModuleLoadData(&m, probe_ptx)) != CUDA_SUCCESS) return r;
        *what = "cuModuleUnload";
        return cu->ModuleUnload(m);
    default:
        read_proc();
        return CUDA_SUCCESS;
    }
}

int main(int argc, char **argv)
{
    uint64_t secs_u = 0, thresh_u = 20;
    int op = argc > 3 ? -1 : OP_LAUNCH;
    for (int i = 0; argc > 3 && i < 5; i++)
        if (strcmp(argv[3], op_names[i]) == 0) op = i;
    if (argc < 2 || argc > 4 || kc_parse_u64(argv[1], 86400, &secs_u) || !secs_u ||
        (argc >= 3 && (kc_parse_u64(argv[2], 60000, &thresh_u) || !thresh_u)) || op < 0) {
        fprintf(stderr, "usage: kc_ctx_stall_probe SECONDS [THRESHOLD_MS [OP]]: SECONDS a whole number 1-86400, "
                        "THRESHOLD_MS 1-60000, OP launch, alloc, host, module or proc (got %s %s %s)\n",
                argc > 1 ? argv[1] : "-", argc > 2 ? argv[2] : "-", argc > 3 ? argv[3] : "-");
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
    mod = NULL;
    fn = NULL;
    if (op == OP_LAUNCH || op == OP_MODULE) {   /* the kernel only where it runs or loads */
        if ((r = cu.ModuleLoadData(&mod, probe_ptx)) != CUDA_SUCCESS) return fail(&cu, "cuModuleLoadData (PTX)", r);
        if ((r = cu.ModuleGetFunction(&fn, mod, "kc_probe")) != CUDA_SUCCESS) return fail(&cu, "cuModuleGetFunction", r);
    }
    if ((r = cu.MemAlloc(&word, 4)) != CUDA_SUCCESS) return fail(&cu, "cuMemAlloc", r);
    size_t n = 0, cap = 1 << 16;
    double *lat = malloc(cap * sizeof *lat), stalled = 0, max = 0;
    if (!lat) return fail(&cu, "malloc", CUDA_ERROR_OUT_OF_MEMORY);
    const double t0 = kc_now_s(), u0 = unix_s();
    int stalls = 0;
    for (;;) {
        const double a = kc_now_s();
        if (a - t0 >= secs) break;
        const char *what = "";
        if ((r = one_op(&cu, op, fn, word, &what)) != CUDA_SUCCESS) return fail(&cu, what, r);
        const double w = kc_now_s() - a;
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
    printf("BENCH probe=ctx_stall op=%s seconds=%.1f launches=%zu p50_us=%.0f p99_us=%.0f max_ms=%.1f stalls=%d "
           "stalled_s=%.3f\n", op_names[op], secs, n, n ? lat[n / 2] * 1e6 : 0, n ? lat[n * 99 / 100] * 1e6 : 0, max * 1e3, stalls,
           stalled);
    free(lat);
    cu.MemFree(word);
    if (mod) cu.ModuleUnload(mod);
    cu.DevicePrimaryCtxRelease(dev);
    return 0;
}
