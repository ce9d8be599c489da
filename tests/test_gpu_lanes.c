/* test_gpu_lanes.c — lanes of one GPU session (kc_gpu_open_lane:
 * src/cuda/gpu_open.h) on host threads sharing the context, through the
 * fake driver in this process: each lane runs the harness's checks in its
 * own result buffers, so threads checking at once each get their own
 * counts; a lane needs an open base; closing lanes leaves the base usable. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_open.h"
#include "harness.h"

static kc_gpu base;

static void open_base(void)
{
    const char *lib = getenv("KC_FAKE_CUDA");
    cr_assert_eq(setenv("KC_LIBCUDA", lib && *lib ? lib : "build/libfake_cuda.so", 1), 0);
    cr_assert_eq(kc_gpu_open_streams(&base, 0, 1), 0, "%s", base.why);
    cr_assert(base.cu.per_thread);
}

static void close_base(void) { kc_gpu_close(&base); }

#define LANES 6
#define ROUNDS 25
static _Atomic int wrong, failed_open;
static char why[LANES][512];

/* Rounds of: n bytes set to 7 but one (at a lane's own index) set to 9,
 * counted by the harness's check on this lane. */
static void *lane_thread(void *arg)
{
    int id = (int)(intptr_t)arg;
    kc_gpu lane;
    if (kc_gpu_open_lane(&lane, &base, (size_t)64 << 20)) {
        snprintf(why[id], sizeof why[id], "%s", lane.why);
        failed_open++;
        return NULL;
    }
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = 4096 + (size_t)id * 1000 + (size_t)r, at = (size_t)(id * 97 + r * 13) % n, count = 0, first = 0;
        CUdeviceptr p;
        unsigned char nine = 9;
        if (lane.cu.MemAlloc(&p, n) != CUDA_SUCCESS || lane.cu.MemsetD8(p, 7, n) != CUDA_SUCCESS ||
            lane.cu.MemcpyHtoD(p + at, &nine, 1) != CUDA_SUCCESS ||
            kc_dev_count_not(&lane, p, n, 7, &count, &first) != CUDA_SUCCESS || count != 1 || first != at) {
            snprintf(why[id], sizeof why[id], "round %d: counted %zu first %zu, expected 1 at %zu", r, count, first, at);
            wrong++;
        }
        lane.cu.MemFree(p);
    }
    kc_gpu_close_lane(&lane);
    return NULL;
}

Test(gpu_lanes, threads_on_lanes_of_one_session_check_in_their_own_buffers, .init = open_base, .fini = close_base)
{
    pthread_t t[LANES];
    for (int i = 0; i < LANES; i++) cr_assert_eq(pthread_create(&t[i], NULL, lane_thread, (void *)(intptr_t)i), 0);
    for (int i = 0; i < LANES; i++) pthread_join(t[i], NULL);
    cr_expect_eq(failed_open, 0, "%d lanes did not open: %s", failed_open, why[0]);
    for (int i = 0; i < LANES; i++) cr_expect_str_empty(why[i], "lane %d: %s", i, why[i]);
    cr_expect_eq(wrong, 0);
    size_t count = 0, first = 0;      /* the base still works after its lanes closed */
    CUdeviceptr p;
    cr_assert_eq(base.cu.MemAlloc(&p, 100), CUDA_SUCCESS);
    cr_assert_eq(base.cu.MemsetD8(p, 3, 100), CUDA_SUCCESS);
    cr_expect_eq(kc_dev_count_not(&base, p, 100, 3, &count, &first), CUDA_SUCCESS);
    cr_expect_eq(count, 0);
    base.cu.MemFree(p);
}

Test(gpu_lanes, a_lane_needs_an_open_session)
{
    kc_gpu none, lane;
    memset(&none, 0, sizeof none);
    snprintf(none.why, sizeof none.why, "the driver sees no CUDA device");
    cr_expect_eq(kc_gpu_open_lane(&lane, &none, 1 << 20), 1);
    cr_expect(strstr(lane.why, "no GPU session to open a lane on (the driver sees no CUDA device)"), "why: %s", lane.why);
}
