/* test_driver_streams.c — the driver table with the per-thread default
 * stream (kc_cuda_load_streams, kc_cuda_sync: src/cuda/cuda_driver.h) and
 * the fake driver under host threads sharing its one context (issue 23,
 * part 1), in this process: a per-thread table launches on the thread's
 * stream and a legacy one on the legacy stream (the fake's launch log says
 * which); kc_cuda_sync sees a sticky fault in either; threads launching,
 * copying and taking streams at once each get their own results and
 * streams, and every launch is logged once. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_driver.h"
#include "support/run_output.h"

static kc_cuda cu;
static char log_path[256];

static const char *fake_lib(void)
{
    const char *lib = getenv("KC_FAKE_CUDA");
    return lib && *lib ? lib : "build/libfake_cuda.so";
}

static void load(int per_thread)
{
    char err[512];
    kc_tmp_path(log_path, sizeof log_path, "driver-streams", "log");
    cr_assert_eq(setenv("KC_FAKE_LAUNCH_LOG", log_path, 1), 0);
    cr_assert_eq(kc_cuda_load_streams(&cu, fake_lib(), per_thread, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cu.per_thread, per_thread);
}

static void unload(void)
{
    kc_cuda_unload(&cu);
    unlink(log_path);
}

/* fake_axpy_f32 of a fresh load of module fake_axpy with `control`. */
static CUfunction axpy(const char *control)
{
    char image[128];
    CUmodule m;
    CUfunction f;
    snprintf(image, sizeof image, "KCFAKE fake_axpy %s\n", control);
    cr_assert_eq(cu.ModuleLoadData(&m, image), CUDA_SUCCESS);
    cr_assert_eq(cu.ModuleGetFunction(&f, m, "fake_axpy_f32"), CUDA_SUCCESS);
    return f;
}

/* y = a*x + y over n floats on stream 0, y and x filled with yv and xv;
 * returns the launch's result and leaves y in host_y (n floats). */
static CUresult run_axpy(CUfunction f, long long n, float a, float xv, float yv, float *host_y)
{
    CUdeviceptr y, x;
    float *h = malloc((size_t)n * sizeof *h);
    cr_assert_not_null(h);
    cr_assert_eq(cu.MemAlloc(&y, (size_t)n * 4), CUDA_SUCCESS);
    cr_assert_eq(cu.MemAlloc(&x, (size_t)n * 4), CUDA_SUCCESS);
    for (long long i = 0; i < n; i++) h[i] = xv;
    cr_assert_eq(cu.MemcpyHtoD(x, h, (size_t)n * 4), CUDA_SUCCESS);
    for (long long i = 0; i < n; i++) h[i] = yv;
    cr_assert_eq(cu.MemcpyHtoD(y, h, (size_t)n * 4), CUDA_SUCCESS);
    void *p[4] = { &y, &x, &a, &n };
    unsigned blocks = (unsigned)((n + 255) / 256);
    CUresult r = cu.LaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, NULL, p, NULL);
    if (r == CUDA_SUCCESS) r = kc_cuda_sync(&cu, NULL);
    if (r == CUDA_SUCCESS) r = cu.MemcpyDtoH(host_y, y, (size_t)n * 4);
    cu.MemFree(y);
    cu.MemFree(x);
    free(h);
    return r;
}

/* The launch log's lines: how many, and how many hold `what`. */
static int log_lines(const char *what, int *holding)
{
    FILE *f = fopen(log_path, "r");
    int n = 0;
    *holding = 0;
    if (!f) return 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        n++;
        *holding += strstr(line, what) != NULL;
    }
    fclose(f);
    return n;
}

Test(driver_streams, a_per_thread_table_launches_on_the_threads_stream_and_syncs_it, .fini = unload)
{
    load(1);
    cr_assert_not_null(cu.StreamSynchronize);
    float y[300];
    cr_assert_eq(run_axpy(axpy("-"), 300, 2.0f, 3.0f, 1.0f, y), CUDA_SUCCESS);
    cr_expect_eq(y[0], 7.0f, "y[0] = %g, expected 2*3+1", (double)y[0]);
    cr_expect_eq(y[299], 7.0f, "y[299] = %g, expected 2*3+1", (double)y[299]);
    int pt, n = log_lines("stream=per-thread", &pt);
    cr_expect(n == 1 && pt == 1, "expected one launch on the per-thread stream, log has %d lines, %d of them", n, pt);
}

Test(driver_streams, a_legacy_table_launches_on_the_legacy_stream_as_before, .fini = unload)
{
    load(0);
    float y[64];
    cr_assert_eq(run_axpy(axpy("-"), 64, 1.0f, 1.0f, 1.0f, y), CUDA_SUCCESS);
    cr_expect_eq(y[63], 2.0f);
    int def, n = log_lines("stream=default", &def);
    cr_expect(n == 1 && def == 1, "expected one launch on the legacy stream, log has %d lines, %d of them", n, def);
}

Test(driver_streams, kc_cuda_sync_reports_a_sticky_fault_with_the_legacy_table, .fini = unload)
{
    load(0);
    float y[16];
    CUresult r = run_axpy(axpy("fault"), 16, 1.0f, 1.0f, 1.0f, y);
    cr_expect_eq(r, CUDA_ERROR_ILLEGAL_ADDRESS, "a faulting kernel gave %d, expected %d", (int)r, (int)CUDA_ERROR_ILLEGAL_ADDRESS);
}

Test(driver_streams, a_fault_seen_by_a_per_thread_sync_is_sticky_for_every_thread, .fini = unload)
{
    load(1);
    float y[16];
    cr_expect_eq(run_axpy(axpy("fault"), 16, 1.0f, 1.0f, 1.0f, y), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_expect_eq(cu.StreamSynchronize(CU_STREAM_PER_THREAD), CUDA_ERROR_ILLEGAL_ADDRESS);
    cr_expect_eq(cu.CtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS, "the context's other threads must see it too");
}

/* ---- threads sharing the context ---- */

#define THREADS 8
#define ROUNDS 40
static CUfunction shared_fn;
static _Atomic int stream_owner[64];    /* slot -> the thread holding it + 1; 0: free */
static _Atomic int clashes, wrong;

static void *lane(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        CUstream s;
        if (cu.StreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
            wrong++;
            continue;
        }
        uintptr_t slot = (uintptr_t)s - 0x57001;    /* the fake's handles (tests/fake/fake_cuda_stream.c) */
        int expect = 0;
        if (slot >= 64 || !atomic_compare_exchange_strong(&stream_owner[slot], &expect, t + 1)) clashes++;
        float y[200];
        float a = (float)(t + 1);
        if (run_axpy(shared_fn, 200, a, 1.0f, (float)i, y) != CUDA_SUCCESS || y[0] != a + (float)i || y[199] != a + (float)i)
            wrong++;
        if (slot < 64) stream_owner[slot] = 0;
        if (cu.StreamDestroy(s) != CUDA_SUCCESS) wrong++;
    }
    return NULL;
}

Test(driver_streams, threads_sharing_the_context_get_their_own_results_and_streams, .fini = unload)
{
    load(1);
    shared_fn = axpy("-");
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) cr_assert_eq(pthread_create(&th[t], NULL, lane, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    cr_expect_eq(clashes, 0, "%d times two threads held the same stream", clashes);
    cr_expect_eq(wrong, 0, "%d launches, copies or stream calls went wrong under %d threads", wrong, THREADS);
    int pt, n = log_lines("stream=per-thread", &pt);
    cr_expect(n == THREADS * ROUNDS && pt == n, "expected %d launches logged on per-thread streams, got %d lines, %d of them",
              THREADS * ROUNDS, n, pt);
}

/* ---- stream-ordered allocation (kc_cuda_alloc) ---- */

Test(driver_streams, kc_cuda_alloc_is_stream_ordered_only_once_set_up_on_a_per_thread_table, .fini = unload)
{
    load(0);
    cr_expect_eq(kc_cuda_stream_alloc_setup(&cu, 0), 0, "a legacy table must keep cuMemAlloc");
    cr_expect_eq(kc_cuda_alloc_bytes(&cu, 100), (size_t)100, "an unguarded buffer holds what it was asked for");
    CUdeviceptr p;
    cr_assert_eq(kc_cuda_alloc(&cu, &p, 512), CUDA_SUCCESS);
    cr_expect_eq(cu.MemFree(p), CUDA_SUCCESS, "kc_cuda_alloc on a legacy table must be cuMemAlloc's memory");
    kc_cuda_unload(&cu);

    load(1);
    cr_assert_not_null(cu.MemAllocAsync, "the per-thread table must resolve cuMemAllocAsync_ptsz");
    cr_assert_not_null(cu.MemFreeAsync, "the per-thread table must resolve cuMemFreeAsync_ptsz");
    cr_assert_eq(kc_cuda_stream_alloc_setup(&cu, 0), 1, "the fake's device has memory pools");
    cr_assert_eq(kc_cuda_alloc(&cu, &p, 512), CUDA_SUCCESS);
    cr_expect_eq(cu.MemsetD8(p, 1, 512), CUDA_SUCCESS);
    cr_expect_eq(cu.MemFree(p), CUDA_ERROR_INVALID_VALUE, "stream-ordered memory freed by cuMemFree must be refused");
    cr_expect_eq(kc_cuda_free(&cu, p), CUDA_SUCCESS, "kc_cuda_free must free it in stream order");
    cr_expect_eq(kc_cuda_free(&cu, 0), CUDA_SUCCESS, "0 is ignored");
}
