/* fake_cuda_launch.c — the fake driver's launches (fake_cuda.c says what
 * the library is): occupancy (resident blocks per SM, active clusters on
 * the device's one GPC), cuLaunchKernel and cuLaunchKernelEx with their
 * attributes (cluster dims, cooperative, programmatic stream serialization)
 * and their per-thread default stream (_ptsz) entry points, the checks a
 * launch meets before its emulated kernel runs (geometry, shared memory,
 * clusters and cooperative grids that must fit), the launch count
 * (fake_launches) and the launch log (KC_FAKE_LAUNCH_LOG). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"
#include "fake_cuda_state.h"

/* Resident blocks per SM: the tightest of threads, registers, shared memory
 * and the block limit (no allocation granularity); -1 for a block the
 * function cannot run. */
static int blocks_per_sm(const struct CUfunc_st *f, long long threads, size_t dynamic_smem)
{
    if (threads <= 0 || threads > f->k->max_threads) return -1;
    int b = BLOCKS_PER_SM, t = THREADS_PER_SM / (int)threads, r = REGS_PER_SM / (regs_of(f) * (int)threads);
    size_t smem = (size_t)f->k->static_smem + dynamic_smem;
    if (t < b) b = t;
    if (r < b) b = r;
    if (smem && (int)(SMEM_PER_SM / smem) < b) b = (int)(SMEM_PER_SM / smem);
    return b;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int threads, size_t dynamic_smem)
{
    CONTEXT_CALL();
    int b = blocks_per_sm(f, threads, dynamic_smem);
    if (b < 0) return CUDA_ERROR_INVALID_VALUE;
    *blocks = b;
    return CUDA_SUCCESS;
}

/* What a launch asked beyond its geometry (cuLaunchKernelEx's attributes). */
typedef struct attrs {
    unsigned cluster[3];            /* 1x1x1: none */
    int clustered, cooperative, programmatic;
} attrs;

/* The attributes of config c into *a: CUDA_SUCCESS, or CUDA_ERROR_INVALID_VALUE
 * for one the fake does not know or a cluster dim of 0. */
static CUresult attrs_of(const CUlaunchConfig *c, attrs *a)
{
    *a = (attrs){ { 1, 1, 1 }, 0, 0, 0 };
    if (c->numAttrs && !c->attrs) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < c->numAttrs; i++) {
        const CUlaunchAttribute *at = &c->attrs[i];
        switch (at->id) {
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            a->cluster[0] = at->value.clusterDim.x;
            a->cluster[1] = at->value.clusterDim.y;
            a->cluster[2] = at->value.clusterDim.z;
            if (!a->cluster[0] || !a->cluster[1] || !a->cluster[2]) return CUDA_ERROR_INVALID_VALUE;
            a->clustered = 1;
            break;
        case CU_LAUNCH_ATTRIBUTE_COOPERATIVE: a->cooperative = at->value.cooperative != 0; break;
        case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
            a->programmatic = at->value.programmaticStreamSerializationAllowed != 0;
            break;
        default: return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}

/* Clusters of `size` blocks active at once: the device is one GPC of its SMS
 * SMs, so blocks per SM x SMS blocks; none above 8 blocks without the
 * non-portable attribute, none above 16. */
static int active_clusters(const struct CUfunc_st *f, long long threads, size_t smem, unsigned long long size)
{
    int b = blocks_per_sm(f, threads, smem);
    if (size > 16 || (size > 8 && !f->nonportable) || b <= 0) return 0;
    return (int)((unsigned long long)b * SMS / size);
}

CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction f, const CUlaunchConfig *c)
{
    CONTEXT_CALL();
    attrs a;
    if (!n || !f || !c || attrs_of(c, &a) != CUDA_SUCCESS || !a.clustered) return CUDA_ERROR_INVALID_VALUE;
    long long threads = (long long)c->blockDimX * c->blockDimY * c->blockDimZ;
    if (blocks_per_sm(f, threads, c->sharedMemBytes) < 0) return CUDA_ERROR_INVALID_VALUE;
    *n = active_clusters(f, threads, c->sharedMemBytes, (unsigned long long)a.cluster[0] * a.cluster[1] * a.cluster[2]);
    return CUDA_SUCCESS;
}

/* KC_FAKE_LAUNCH_LOG: one line per launch of a kernel under test, appended
 * in one write (workers of one run share the file); its stream is "default"
 * (the legacy default stream), "per-thread" (stream 0 through a _ptsz entry,
 * or CU_STREAM_PER_THREAD) or the created stream's slot number. */
static void log_launch(const struct CUfunc_st *f, const char *via, const unsigned g[3], const unsigned b[3],
                       unsigned smem, const attrs *a, CUstream stream, int per_thread)
{
    const char *path = getenv("KC_FAKE_LAUNCH_LOG");
    if (!path || !*path) return;
    char line[512], sname[16] = "default";
    if (stream == CU_STREAM_PER_THREAD || (!stream && per_thread)) snprintf(sname, sizeof sname, "per-thread");
    else if (stream && stream != CU_STREAM_LEGACY) snprintf(sname, sizeof sname, "%d", stream_slot(stream));
    int n = snprintf(line, sizeof line,
                     "%s control=%s via=%s grid=%ux%ux%u block=%ux%ux%u smem=%u cluster=%ux%ux%u nonportable=%d cooperative=%d programmatic=%d stream=%s\n",
                     f->k->symbol, f->mod->control[0] ? f->mod->control : "-", via, g[0], g[1], g[2], b[0], b[1], b[2],
                     smem, a->clustered ? a->cluster[0] : 0, a->clustered ? a->cluster[1] : 0,
                     a->clustered ? a->cluster[2] : 0, f->nonportable, a->cooperative, a->programmatic, sname);
    if (f->mod->watchdog_size == 8 && n > 0 && n < (int)sizeof line)     /* its kc_watchdog_ns at the launch */
        n += snprintf(line + n - 1, sizeof line - (size_t)n + 1, " watchdog_ns=%llu\n", f->mod->watchdog_ns) - 1;
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;       /* cut, never past the buffer */
    FILE *fp = fopen(path, "a");
    if (!fp) return;
    fwrite(line, 1, (size_t)n, fp);
    fclose(fp);
}

/* Both launch calls: the geometry checked as the driver does, a cluster and
 * a cooperative grid checked against what fits, then the kernel run.
 * per_thread: entered through a _ptsz entry point (stream 0 is the
 * thread's). */
static CUresult launch_kernel(CUfunction f, const unsigned g[3], const unsigned b[3], unsigned smem, CUstream stream,
                              void **params, void **extra, const attrs *a, const char *via, int per_thread)
{
    unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2], blocks = (unsigned long long)g[0] * g[1] * g[2];
    int smem_limit = f->max_dynamic_smem > SMEM_DEFAULT - f->k->static_smem ? f->max_dynamic_smem
                                                                                : SMEM_DEFAULT - f->k->static_smem;
    if (!blocks || !threads || threads > (unsigned long long)f->k->max_threads || g[1] > 65535 || g[2] > 65535 ||
        (int)smem > smem_limit || !params || extra)
        return CUDA_ERROR_INVALID_VALUE;
    if (!special_stream(stream) && stream_slot(stream) < 0) return CUDA_ERROR_INVALID_VALUE;   /* never created, or destroyed */
    unsigned long long size = (unsigned long long)a->cluster[0] * a->cluster[1] * a->cluster[2];
    if (a->clustered && (g[0] % a->cluster[0] || g[1] % a->cluster[1] || g[2] % a->cluster[2] ||
                         !active_clusters(f, (long long)threads, smem, size)))
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if (a->cooperative && (blocks > (unsigned long long)blocks_per_sm(f, (long long)threads, smem) * SMS ||
                           (a->clustered && blocks / size > (unsigned long long)active_clusters(f, (long long)threads, smem, size))))
        return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    if (strcmp(f->mod->module, "harness") && strcmp(f->mod->module, "fake_ref")) {
        fake_launches++;
        log_launch(f, via, g, b, smem, a, stream, per_thread);
    }
    launch l = { threads * blocks, (unsigned)blocks, params, f->mod->control, { a->cluster[0], a->cluster[1], a->cluster[2] },
                 a->cooperative, a->programmatic };
    CUresult r = f->k->run(&l);
    if (r != CUDA_SUCCESS) fake_sticky = r;      /* reported by this and every later call, from the next one on */
    return CUDA_SUCCESS;
}
static CUresult launch_plain(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned smem, CUstream stream, void **params, void **extra, int per_thread)
{
    CONTEXT_CALL();
    const unsigned g[3] = { gx, gy, gz }, b[3] = { bx, by, bz };
    const attrs none = { { 1, 1, 1 }, 0, 0, 0 };
    return launch_kernel(f, g, b, smem, stream, params, extra, &none, "cuLaunchKernel", per_thread);
}
static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, void **params, void **extra, int per_thread)
{
    CONTEXT_CALL();
    attrs a;
    if (!c || !f || attrs_of(c, &a) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    const unsigned g[3] = { c->gridDimX, c->gridDimY, c->gridDimZ }, b[3] = { c->blockDimX, c->blockDimY, c->blockDimZ };
    return launch_kernel(f, g, b, c->sharedMemBytes, c->hStream, params, extra, &a, "cuLaunchKernelEx", per_thread);
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, CUstream stream, void **params, void **extra)
{
    return launch_plain(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra, 0);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
    return launch_ex(c, f, params, extra, 0);
}
/* The per-thread default stream's entry points (libcuda's exported names;
 * no header declares them outside the driver's own build). */
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned smem, CUstream stream, void **params, void **extra);
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned smem, CUstream stream, void **params, void **extra)
{
    return launch_plain(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra, 1);
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
    return launch_ex(c, f, params, extra, 1);
}
