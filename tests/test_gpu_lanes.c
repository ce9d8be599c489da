/* test_gpu_lanes.c — lanes of one GPU session (kc_gpu_open_lane:
 * src/cuda/gpu_open.h) on host threads sharing the context, through the
 * fake driver in this process: each lane runs the harness's checks in its
 * own result buffers, so threads checking at once each get their own
 * counts; a lane needs an open base; closing lanes leaves the base usable;
 * a per-thread session allocates its case buffers and inputs stream-ordered
 * from the default pool, set to keep what is freed and never to make one
 * thread's stream wait on another's, and gives all of it back, while a
 * legacy session allocates as before. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu.h"
#include "devmem.h"
#include "gpu_open.h"
#include "guarded_alloc.h"
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

/* ---- stream-ordered allocation ---- */

typedef struct pool_state {
    long live, made, trims;
    unsigned long long threshold;
    int deps;
} pool_state;

/* The fake driver's pool as it stands (fake_cuda_pool, tests/fake/fake_cuda_mem.c),
 * looked up in g's driver the first time (it stays mapped: RTLD_NODELETE). */
static pool_state pool_now(const kc_gpu *g)
{
    static void (*fn)(long *, long *, long *, unsigned long long *, int *);
    if (!fn) fn = (void (*)(long *, long *, long *, unsigned long long *, int *))dlsym(g->cu.lib, "fake_cuda_pool");
    cr_assert_not_null(fn, "the fake driver lacks fake_cuda_pool");
    pool_state p;
    fn(&p.live, &p.made, &p.trims, &p.threshold, &p.deps);
    return p;
}

/* Rounds of an item's life on a lane: case buffers through the reuse table
 * (two sizes, freed and asked again), checked, then the item's end. */
static void *devmem_lane(void *arg)
{
    int id = (int)(intptr_t)arg;
    kc_gpu lane;
    if (kc_gpu_open_lane(&lane, &base, (size_t)64 << 20)) {
        snprintf(why[id], sizeof why[id], "%s", lane.why);
        failed_open++;
        return NULL;
    }
    for (int r = 0; r < ROUNDS; r++) {
        CUdeviceptr a, b, c;
        size_t n = 1000 + (size_t)(id * 31 + r);
        size_t count = 0, first = 0;
        if (kc_devmem_alloc(&lane, &a, n) != CUDA_SUCCESS || kc_devmem_alloc(&lane, &b, 3 * n) != CUDA_SUCCESS) {
            snprintf(why[id], sizeof why[id], "round %d: kc_devmem_alloc of %zu or %zu bytes failed", r, n, 3 * n);
            wrong++;
            break;
        }
        kc_devmem_free(&lane, a);
        if (kc_devmem_alloc(&lane, &c, n) != CUDA_SUCCESS || c != a) {
            snprintf(why[id], sizeof why[id], "round %d: a freed buffer of %zu bytes was not reused", r, n);
            wrong++;
        }
        if (lane.cu.MemsetD8(b, 5, 3 * n) != CUDA_SUCCESS || kc_dev_count_not(&lane, b, 3 * n, 5, &count, &first) ||
            count != 0) {
            snprintf(why[id], sizeof why[id], "round %d: %zu bytes of a stream-ordered buffer not as set", r, count);
            wrong++;
        }
        kc_devmem_release(&lane);       /* the item's end */
    }
    kc_gpu_close_lane(&lane);
    return NULL;
}

typedef struct vmm_state {
    long reserved, mapped, maps, handles;
} vmm_state;

/* The fake driver's virtual memory as it stands (fake_cuda_vmm). */
static vmm_state vmm_now(const kc_gpu *g)
{
    static void (*fn)(long *, long *, long *, long *);
    if (!fn) fn = (void (*)(long *, long *, long *, long *))dlsym(g->cu.lib, "fake_cuda_vmm");
    cr_assert_not_null(fn, "the fake driver lacks fake_cuda_vmm");
    vmm_state v;
    fn(&v.reserved, &v.mapped, &v.maps, &v.handles);
    return v;
}

/* Every lane's rounds of devmem_lane, each lane on a thread of its own. */
static void run_lanes(void)
{
    pthread_t t[LANES];
    for (int i = 0; i < LANES; i++) cr_assert_eq(pthread_create(&t[i], NULL, devmem_lane, (void *)(intptr_t)i), 0);
    for (int i = 0; i < LANES; i++) pthread_join(t[i], NULL);
    cr_expect_eq(failed_open, 0, "%d lanes did not open: %s", failed_open, why[0]);
    for (int i = 0; i < LANES; i++) cr_expect_str_empty(why[i], "lane %d: %s", i, why[i]);
}

/* Where the device has virtual memory management, a per-thread session's
 * buffers are guarded (guarded_alloc.h): each its own mapping; those freed
 * at an item's end are kept mapped for the next items' (KC_GUARD_KEEP), so
 * no more are made than were live at once; the session's end unmaps,
 * releases and frees every one. */
Test(gpu_lanes, a_per_thread_session_allocates_guarded_buffers_and_gives_them_all_back, .init = open_base)
{
    cr_assert(base.cu.stream_alloc && base.cu.guard, "a per-thread session on a device with virtual memory management "
              "must allocate guarded buffers");
    vmm_state v0 = vmm_now(&base);
    long made0 = pool_now(&base).made;
    run_lanes();
    vmm_state v = vmm_now(&base);
    cr_expect(v.maps > v0.maps && v.maps - v0.maps <= (long)LANES * 2,
              "%ld guarded buffers made for %d rounds of 2 on %d lanes: kept ones must be used again (at most 2 a lane "
              "are live at once)", v.maps - v0.maps, ROUNDS, LANES);
    cr_expect_eq(pool_now(&base).made, made0, "no buffer from the pool beside guarded ones");
    kc_gpu_close(&base);
    base.ready = 0;
    v = vmm_now(&base);
    cr_expect(v.mapped == 0 && v.reserved == 0 && v.handles == 0,
              "after the session's end: %ld mappings, %ld reservations, %ld handles left", v.mapped, v.reserved,
              v.handles);
}

/* The gap covers what a wrapped 32-bit element index reaches when signed
 * into 16-byte elements (float4) and when unsigned into 8-byte ones
 * (double); not an unsigned one into 16-byte elements (guarded_alloc.h). */
_Static_assert(KC_GUARD_GAP >= ((size_t)1 << 31) * 16 && KC_GUARD_GAP >= ((size_t)1 << 32) * 8,
               "KC_GUARD_GAP no longer covers a wrapped signed 32-bit index into 16-byte elements or an unsigned one into 8-byte elements");

/* A guarded buffer's bytes are there to use; a write KC_GUARD_GAP or less
 * before it or past it faults (the fake driver's memory is the host's: a
 * write there is SIGSEGV, as a kernel's is CUDA_ERROR_ILLEGAL_ADDRESS on
 * the device), where a pool would have put another buffer. */
Test(gpu_lanes, a_write_far_past_a_guarded_buffer_faults, .init = open_base, .fini = close_base)
{
    CUdeviceptr p, q;
    cr_assert_eq(kc_cuda_alloc(&base.cu, &p, 100), CUDA_SUCCESS);
    cr_assert_eq(kc_cuda_alloc(&base.cu, &q, 100), CUDA_SUCCESS);
    const size_t mapped = kc_cuda_alloc_bytes(&base.cu, 100);
    cr_expect_eq(mapped, (size_t)4096, "100 bytes hold the fake's granularity, 4096: %zu", mapped);
    cr_expect(q > p ? q - p >= mapped + 2 * KC_GUARD_GAP : p - q >= mapped + 2 * KC_GUARD_GAP,
              "two guarded buffers %#llx and %#llx are nearer than their mappings and gaps",
              (unsigned long long)p, (unsigned long long)q);
    memset((void *)(uintptr_t)p, 7, 100);
    /* Just outside the mapping (the fake's granularity: on a device, the
     * rounding's slack comes first), well inside the gaps, and their ends. */
    const long off[] = { -1, -(1L << 20), 4096, 1L << 30, -(long)KC_GUARD_GAP, 4096 + (long)KC_GUARD_GAP - 1 };
    for (int i = 0; i < 6; i++) {
        pid_t c = fork();
        cr_assert_geq(c, 0);
        if (c == 0) {
            *(volatile char *)(uintptr_t)(p + off[i]) = 1;
            _exit(0);
        }
        int st;
        cr_assert_eq(waitpid(c, &st, 0), c);
        cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "a write %ld bytes from a guarded buffer must fault",
                  off[i]);
    }
    cr_expect_eq(kc_cuda_free(&base.cu, p), CUDA_SUCCESS);
    cr_expect_eq(kc_cuda_free(&base.cu, p), CUDA_ERROR_INVALID_VALUE, "a buffer freed twice must be refused");
    cr_expect_eq(kc_cuda_free(&base.cu, q), CUDA_SUCCESS);
}

/* Where the address space for a buffer's gaps cannot be reserved, the
 * buffer comes from the pool, and the first such buffer is said on stderr
 * (guarded_alloc.h); the session's end counts them. */
Test(gpu_lanes, a_buffer_whose_gaps_find_no_address_space_comes_from_the_pool_and_is_said,
     .init = open_base)
{
    cr_assert(base.cu.guard, "a per-thread session on a device with virtual memory management");
    FILE *log = tmpfile();
    cr_assert_not_null(log);
    fflush(stderr);
    int saved = dup(2);
    cr_assert_geq(saved, 0);
    cr_assert_eq(dup2(fileno(log), 2), 2);
    vmm_state v0 = vmm_now(&base);
    long made0 = pool_now(&base).made;
    cr_assert_eq(setenv("KC_FAKE_RESERVE_FULL", "1", 1), 0);
    CUdeviceptr p = 0, q = 0;
    cr_expect_eq(kc_cuda_alloc(&base.cu, &p, 100), CUDA_SUCCESS, "the pool must stand in");
    cr_expect_eq(kc_cuda_alloc(&base.cu, &q, 100), CUDA_SUCCESS);
    unsetenv("KC_FAKE_RESERVE_FULL");
    cr_expect_eq(pool_now(&base).made - made0, 2, "both buffers from the pool");
    cr_expect_eq(vmm_now(&base).reserved, v0.reserved, "no reservation made");
    cr_expect(p && q && p != q, "two distinct buffers: %#llx %#llx", (unsigned long long)p, (unsigned long long)q);
    cr_expect_eq(kc_cuda_free(&base.cu, p), CUDA_SUCCESS);
    cr_expect_eq(kc_cuda_free(&base.cu, q), CUDA_SUCCESS);
    kc_gpu_close(&base);
    base.ready = 0;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char err[4096] = "";
    rewind(log);
    size_t n = fread(err, 1, sizeof err - 1, log);
    err[n] = 0;
    fclose(log);
    int said = 0;
    for (const char *e = err; (e = strstr(e, "got no unmapped gaps around it")); e++) said++;
    cr_expect_eq(said, 1, "said once, for the first:\n%s", err);
    cr_expect(strstr(err, "2 device buffers of this worker's lanes had no unmapped gaps around them"), "%s", err);
}

static void open_base_no_vmm(void)
{
    cr_assert_eq(setenv("KC_FAKE_NO_VMM", "1", 1), 0);
    open_base();
}

/* Without virtual memory management a per-thread session allocates from
 * the stream-ordered pool, as before guarded buffers. */
Test(gpu_lanes, without_virtual_memory_management_a_per_thread_session_allocates_stream_ordered,
     .init = open_base_no_vmm, .fini = close_base)
{
    cr_assert(base.cu.stream_alloc && !base.cu.guard, "pools but no virtual memory management: the pool's buffers");
    pool_state p = pool_now(&base);
    cr_expect_eq(p.threshold, UINT64_MAX, "release threshold %llu: the pool must keep what is freed", p.threshold);
    cr_expect_eq(p.deps, 0, "internal dependencies must be off: one lane's stream never waits on another's");
    long made_by_open = p.made;
    run_lanes();
    p = pool_now(&base);
    cr_expect_eq(p.made - made_by_open, (long)LANES * ROUNDS * 2,
                 "%ld stream-ordered allocations, expected 2 a round (the third reuses a kept buffer)",
                 p.made - made_by_open);
    cr_expect_eq(p.live, 0, "%ld stream-ordered allocations left after every item's end", p.live);
    long trims = p.trims;
    kc_gpu_close(&base);
    base.ready = 0;
    cr_expect_gt(pool_now(&base).trims, trims, "closing the session must trim the pool");
}

Test(gpu_lanes, a_legacy_session_allocates_as_before)
{
    const char *lib = getenv("KC_FAKE_CUDA");
    cr_assert_eq(setenv("KC_LIBCUDA", lib && *lib ? lib : "build/libfake_cuda.so", 1), 0);
    kc_gpu g;
    cr_assert_eq(kc_gpu_open(&g, 0), 0, "%s", g.why);
    cr_expect_eq(g.cu.stream_alloc, 0, "the legacy table must keep cuMemAlloc");
    CUdeviceptr p;
    cr_assert_eq(kc_devmem_alloc(&g, &p, 4096), CUDA_SUCCESS);
    cr_expect_eq(pool_now(&g).made, 0, "a legacy session allocated from the pool");
    kc_devmem_release(&g);
    kc_gpu_close(&g);
}
