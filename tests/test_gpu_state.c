/* test_gpu_state.c — what a GPU item leaves in its process's CUDA context
 * (issue 13, src/gates/gpu_state.c). The check itself, on a stand-in for the
 * driver and the fake NVML (tests/fake/fake_nvml.c): a pending error is
 * found and named; memory that grew by more than KC_GPU_LEAK_MIB during an
 * item, or KC_GPU_GROWN_MIB since the first, is found; less is not, nor a
 * process NVML does not list. Then the real fixture binary under the fake
 * driver: an item that leaves memory allocated keeps its verdict, says so
 * and its process is replaced (serial: a fresh process; queue: a fresh
 * worker); one that leaves an error pending is LEAK, and its process is
 * replaced too; one that changes a limit of the context (the malloc heap
 * size) keeps its verdict and the limit is set back, or, when the driver
 * will not, its process is replaced, so the item after it sees the limit
 * of a fresh process; the items after them run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_state.h"
#include "nvml.h"
#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"

/* ---- the check, on a stand-in driver ---- */

static CUresult pending;                /* what the stand-in's cuCtxSynchronize returns */
static char procs[160];                 /* the fake NVML's process list */

static CUresult stub_sync(void) { return pending; }
static CUresult stub_bus(char *bus, int len, CUdevice d)
{
    (void)d;
    snprintf(bus, (size_t)len, "0000:3B:00.0");
    return CUDA_SUCCESS;
}
static CUresult stub_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS" : NULL;
    return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
static CUresult stub_error_string(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_ILLEGAL_ADDRESS ? "an illegal memory access was encountered" : NULL;
    return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* NVML lists this process with mib MiB (mib < 0: not at all). */
static void holds(long mib)
{
    FILE *f = fopen(procs, "w");
    cr_assert(f, "%s", procs);
    if (mib >= 0) fprintf(f, "%ld %lld\n", (long)getpid(), (long long)mib << 20);
    else fprintf(f, "1 1048576\n");
    fclose(f);
}

static void setup(kc_gpu *gpu, kc_gpu_watch *w)
{
    const char *lib = getenv("KC_FAKE_NVML");
    if (!lib || !*lib) lib = "build/libfake_nvml.so";
    if (access(lib, R_OK)) cr_skip_test("%s not built", lib);
    setenv("KC_LIBNVML", lib, 1);
    snprintf(procs, sizeof procs, "%s/kc_test_gpu_state_%ld", kc_test_tmpdir(), (long)getpid());
    setenv("KC_FAKE_NVML_PROCS", procs, 1);
    memset(gpu, 0, sizeof *gpu);
    gpu->ready = 1;
    gpu->cu.CtxSynchronize = stub_sync;
    gpu->cu.DeviceGetPCIBusId = stub_bus;
    gpu->cu.GetErrorName = stub_error_name;
    gpu->cu.GetErrorString = stub_error_string;
    pending = CUDA_SUCCESS;
    kc_gpu_watch_init(w);
}

/* One item: NVML shows `before` MiB at its start, `after` at its end. */
static int item(kc_gpu *gpu, kc_gpu_watch *w, long before, long after, char *what, size_t cap)
{
    holds(before);
    kc_gpu_watch_before(w, gpu);
    holds(after);
    return kc_gpu_watch_after(w, gpu, what, cap);
}

Test(gpu_state, pending_error_is_found_and_named)
{
    kc_gpu gpu;
    kc_gpu_watch w;
    char what[512];
    setup(&gpu, &w);
    pending = CUDA_ERROR_ILLEGAL_ADDRESS;
    cr_expect_eq(item(&gpu, &w, 64, 64, what, sizeof what), KC_GPU_LEFT_ERROR);
    cr_expect_str_eq(what, "an error pending in its CUDA context: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access "
                           "was encountered)");
    gpu.lost = 1;       /* the gates saw the context go: the process is replaced anyway */
    cr_expect_eq(item(&gpu, &w, 64, 64, what, sizeof what), KC_GPU_LEFT_NOTHING);
    unlink(procs);
}

Test(gpu_state, memory_left_by_one_item)
{
    kc_gpu gpu;
    kc_gpu_watch w;
    char what[512];
    setup(&gpu, &w);
    cr_expect_eq(item(&gpu, &w, 64, 64 + KC_GPU_LEAK_MIB, what, sizeof what), KC_GPU_LEFT_NOTHING, "%s", what);
    cr_expect_eq(item(&gpu, &w, 128, 200, what, sizeof what), KC_GPU_LEFT_MEMORY);
    cr_expect_str_eq(what, "it left GPU memory allocated: this process holds 200 MiB on its device after it, 128 MiB before it "
                           "(NVML; more than 64 MiB more)");
    cr_expect_eq(item(&gpu, &w, 200, 100, what, sizeof what), KC_GPU_LEFT_NOTHING, "freed memory is no leak");
    unlink(procs);
}

Test(gpu_state, memory_grown_over_many_items)
{
    kc_gpu gpu;
    kc_gpu_watch w;
    char what[512];
    setup(&gpu, &w);
    long m = 600;
    for (int i = 0; i < 8; i++, m += 60)            /* 60 MiB an item: each below the per-item bound */
        cr_expect_eq(item(&gpu, &w, m, m + 60, what, sizeof what), KC_GPU_LEFT_NOTHING, "item %d: %s", i, what);
    cr_expect_eq(item(&gpu, &w, m, m + 60, what, sizeof what), KC_GPU_LEFT_MEMORY, "540 MiB more than at the first");
    cr_expect(strstr(what, "1140 MiB on its device after it, 600 MiB when its first GPU item started"), "%s", what);
    unlink(procs);
}

/* The stand-in's context limits (the CUlimit order), and whether it lets
 * one be set back. */
static size_t stub_limits[8];
static int stub_stuck;
static CUresult stub_get_limit(size_t *v, CUlimit l)
{
    if (l == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH) return CUDA_ERROR_UNSUPPORTED_LIMIT;
    *v = stub_limits[l];
    return CUDA_SUCCESS;
}
static CUresult stub_set_limit(CUlimit l, size_t v)
{
    if (stub_stuck) return CUDA_ERROR_INVALID_VALUE;
    stub_limits[l] = v;
    return CUDA_SUCCESS;
}

/* A limit changed by an item is named and set back to what it was at the
 * first item; one that cannot be is named so, and the process must go;
 * the stack size, which the driver raises by itself, is not compared. */
Test(gpu_state, a_limit_changed_is_named_and_set_back)
{
    kc_gpu gpu;
    kc_gpu_watch w;
    char what[1024];
    setup(&gpu, &w);
    gpu.cu.CtxGetLimit = stub_get_limit;
    gpu.cu.CtxSetLimit = stub_set_limit;
    for (int i = 0; i < 8; i++) stub_limits[i] = 1000 + (size_t)i;
    stub_stuck = 0;
    cr_expect_eq(item(&gpu, &w, 64, 64, what, sizeof what), KC_GPU_LEFT_NOTHING, "%s", what);
    stub_limits[CU_LIMIT_STACK_SIZE] = 4096;                /* the driver's own doing */
    stub_limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 67108864;
    stub_limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 5;
    cr_expect_eq(item(&gpu, &w, 64, 64, what, sizeof what), KC_GPU_LEFT_LIMITS, "%s", what);
    cr_expect_str_eq(what, "it changed the CUDA context's malloc heap size limit from 1002 to 67108864 bytes (set "
                           "back); it changed the CUDA context's printf FIFO size limit from 1001 to 5 bytes (set back)");
    cr_expect(stub_limits[CU_LIMIT_MALLOC_HEAP_SIZE] == 1002 && stub_limits[CU_LIMIT_PRINTF_FIFO_SIZE] == 1001);
    cr_expect_eq(stub_limits[CU_LIMIT_STACK_SIZE], 4096, "the stack size is the driver's");
    cr_expect_eq(item(&gpu, &w, 64, 64, what, sizeof what), KC_GPU_LEFT_NOTHING, "set back: %s", what);
    stub_limits[CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 1 << 20;
    stub_stuck = 1;
    cr_expect_eq(item(&gpu, &w, 64, 200, what, sizeof what), KC_GPU_LEFT_MEMORY, "%s", what);
    cr_expect(strstr(what, "it changed the CUDA context's persisting L2 cache size limit from 1006 to 1048576 bytes, "
                           "which could not be set back (error 1 (no CUresult the driver names)); it left GPU memory allocated: this process holds "
                           "200 MiB"), "both, the limit first: %s", what);
    unlink(procs);
}

static size_t lanes_keep_mib;

static size_t lanes_keep(void *ctx)
{
    (void)ctx;
    return lanes_keep_mib << 20;
}

/* A worker with lanes: what they keep on purpose (inputs, kept buffers) is
 * left out, and its growth since its first item alone is not compared (its
 * lanes' module copies grow it by design). */
Test(gpu_state, a_worker_with_lanes_leaves_out_what_they_keep)
{
    kc_gpu gpu;
    kc_gpu_watch w;
    char what[512];
    setup(&gpu, &w);
    w.also_held = lanes_keep;
    lanes_keep_mib = 0;
    cr_expect_eq(item(&gpu, &w, 600, 600, what, sizeof what), KC_GPU_LEFT_NOTHING, "%s", what);
    lanes_keep_mib = 1000;                  /* the lanes' caches filled between items alone */
    cr_expect_eq(item(&gpu, &w, 1600, 1600, what, sizeof what), KC_GPU_LEFT_NOTHING, "%s", what);
    cr_expect_eq(item(&gpu, &w, 1600, 1700, what, sizeof what), KC_GPU_LEFT_MEMORY, "100 MiB in one item alone");
    cr_expect_str_eq(what, "it left GPU memory allocated: this process holds 700 MiB on its device after it, 600 MiB "
                           "before it (NVML; more than 64 MiB more)");
    cr_expect_eq(item(&gpu, &w, 2400, 2400, what, sizeof what), KC_GPU_LEFT_NOTHING, "grown since the first: %s",
                 what);
    w.also_held = NULL;                     /* the same figures in a process of one item at a time */
    cr_expect_eq(item(&gpu, &w, 2400, 2400, what, sizeof what), KC_GPU_LEFT_MEMORY, "grown since the first");
    unlink(procs);
}

Test(gpu_state, a_process_nvml_does_not_list_is_not_compared)
{
    kc_gpu gpu;
    kc_gpu_watch w;
    char what[512];
    setup(&gpu, &w);
    cr_expect_eq(item(&gpu, &w, -1, 4000, what, sizeof what), KC_GPU_LEFT_NOTHING, "%s", what);
    cr_expect_eq(item(&gpu, &w, 64, -1, what, sizeof what), KC_GPU_LEFT_NOTHING, "%s", what);
    setenv("KC_FAKE_NVML_PROCS", "/nonexistent/procs", 1);      /* NVML answers with no process */
    kc_gpu_watch_init(&w);
    kc_gpu_watch_before(&w, &gpu);
    cr_expect_eq(kc_gpu_watch_after(&w, &gpu, what, sizeof what), KC_GPU_LEFT_NOTHING);
    unlink(procs);
}

/* ---- the fixture binary under the fake driver ---- */

static kc_proc fake_gpu_run(char **args, const char *procs_file)
{
    static char env_cuda[1024], env_nvml[1024], env_procs[256];
    const char *cuda = getenv("KC_FAKE_CUDA"), *nvml = getenv("KC_FAKE_NVML");
    snprintf(env_cuda, sizeof env_cuda, "KC_LIBCUDA=%s", cuda && *cuda ? cuda : "build/libfake_cuda.so");
    snprintf(env_nvml, sizeof env_nvml, "KC_LIBNVML=%s", nvml && *nvml ? nvml : "build/libfake_nvml.so");
    snprintf(env_procs, sizeof env_procs, "KC_FAKE_NVML_PROCS=%s", procs_file);
    FILE *f = fopen(procs_file, "w");
    cr_assert(f);
    fclose(f);
    char *env[] = { env_cuda, env_nvml, env_procs, NULL };
    char *argv[24] = { (char *)kc_test_fixture_bin() };
    int a = 1;
    for (; args[a - 1]; a++) argv[a] = args[a - 1];
    argv[a] = NULL;
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 30, &p), 0, "cannot start %s", argv[0]);
    return p;
}

static void expect_state(const char *out, const char *name, const char *state)
{
    char st[16] = "";
    int n = kc_out_state_lines(out, name, st, sizeof st);
    cr_expect_eq(n, 1, "%s is on %d state lines:\n%s", name, n, out);
    cr_expect_str_eq(st, state, "%s:\n%s", name, out);
}

/* The verdicts and counts every run shares (one item at a time, or a
 * worker with lanes, which runs these suites alone). */
static void expect_gpu_states(const kc_proc *p)
{
    cr_expect_eq(p->status, 1, "the LEAK fails the run: exit %d\n%s%s", p->status, p->out, p->err);
    expect_state(p->out, "fixture.gpu.a.listed", "PASS");
    expect_state(p->out, "fixture.gpu.b.keepmem", "PASS");
    expect_state(p->out, "fixture.gpu.c.pending", "LEAK");
    expect_state(p->out, "fixture.gpu.d.pass", "PASS");
    expect_state(p->out, "fixture.gpu.e.limit", "PASS");
    expect_state(p->out, "fixture.gpu.f.after", "PASS");      /* the limit of a fresh process */
    cr_expect(strstr(p->out, "fixture.gpu.e.limit  suite passed; it changed the CUDA context's malloc heap size limit "
                             "from 8388608 to 67108864 bytes (set back)  ("), "%s", p->out);
    cr_expect(strstr(p->out, "fixture.gpu.b.keepmem  suite passed; it left GPU memory allocated: this process holds 600 "
                             "MiB on its device after it, 64 MiB before it (NVML; more than 64 MiB more): this process "
                             "is replaced"), "%s", p->out);
    cr_expect(strstr(p->out, "fixture.gpu.c.pending  left an error pending in its CUDA context: CUDA_ERROR_ILLEGAL_ADDRESS "
                             "(an illegal memory access was encountered) (otherwise PASS: suite passed)"), "%s", p->out);
    kc_tally t;
    kc_out_tally(p->out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 5);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_LEAK], 1);
}

Test(gpu_state, serial_run_continues_in_a_fresh_process, .timeout = 40)
{
    char procs_file[128];
    snprintf(procs_file, sizeof procs_file, "%s/kc_test_gpu_state_serial_%ld", kc_test_tmpdir(), (long)getpid());
    kc_proc p = fake_gpu_run((char *[]){ "run", "fixture.gpu.*", NULL }, procs_file);
    expect_gpu_states(&p);
    cr_expect(strstr(p.out, "kcontract-fixture: that item left GPU state (memory, or a limit) in this process; continuing in a fresh process\n"),
              "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-fixture: the CUDA context is unusable after that item; continuing in a fresh process\n"),
              "%s", p.out);
    kc_proc_free(&p);
    unlink(procs_file);
}

/* A worker with lanes runs suites alone, on its main thread: each gets the
 * watch a worker of one item at a time gives it, so an error left pending
 * is LEAK and memory left replaces the worker, as serially (both passed
 * unwatched before). */
Test(gpu_state, a_worker_with_lanes_watches_its_items_run_alone, .timeout = 40)
{
    char procs_file[128], costs[128];
    snprintf(procs_file, sizeof procs_file, "%s/kc_test_gpu_state_lanes_%ld", kc_test_tmpdir(), (long)getpid());
    snprintf(costs, sizeof costs, "%s/kc_test_gpu_state_lanes_%ld.tsv", kc_test_tmpdir(), (long)getpid());
    unlink(costs);
    kc_proc p = fake_gpu_run((char *[]){ "run", "fixture.gpu.*", "--jobs", "1", "--inflight", "2", "--costs", costs,
                                         NULL }, procs_file);
    expect_gpu_states(&p);
    cr_expect(strstr(p.out, ") after GPU state left by fixture.gpu.b.keepmem\n"), "%s", p.out);
    cr_expect(strstr(p.out, ") after a CUDA context loss reported by fixture.gpu.c.pending\n"), "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kcontract-fixture: worker 0 restarted"), 2, "%s", p.out);
    kc_proc_free(&p);
    p = fake_gpu_run((char *[]){ "run", "fixture.gpu.*", "--inflight", "2", NULL }, procs_file);   /* serial */
    expect_gpu_states(&p);
    kc_proc_free(&p);
    unlink(procs_file);
    unlink(costs);
}

/* A limit the driver will not set back (the malloc heap size once a kernel
 * that uses malloc has run; the fake's KC_FAKE_LIMITS_STICK) replaces the
 * process, serially and in a worker with lanes, so the item after it sees
 * the limit a fresh process has. */
Test(gpu_state, a_limit_not_set_back_replaces_the_process, .timeout = 40)
{
    char procs_file[128];
    snprintf(procs_file, sizeof procs_file, "%s/kc_test_gpu_state_stick_%ld", kc_test_tmpdir(), (long)getpid());
    setenv("KC_FAKE_LIMITS_STICK", "1", 1);
    for (int lanes = 0; lanes < 2; lanes++) {
        kc_proc p = fake_gpu_run(lanes ? (char *[]){ "run", "fixture.gpu.[ef]*", "--inflight", "2", NULL }
                                       : (char *[]){ "run", "fixture.gpu.[ef]*", NULL }, procs_file);
        cr_expect_eq(p.status, 0, "%s%s", p.out, p.err);
        expect_state(p.out, "fixture.gpu.e.limit", "PASS");
        expect_state(p.out, "fixture.gpu.f.after", "PASS");
        cr_expect(strstr(p.out, "fixture.gpu.e.limit  suite passed; it changed the CUDA context's malloc heap size limit "
                                "from 8388608 to 67108864 bytes, which could not be set back (CUDA_ERROR_INVALID_VALUE): "
                                "this process is replaced"), "%s", p.out);
        /* in flight the line printed last need not be that item's: named */
        cr_expect(strstr(p.out, lanes ? "kcontract-fixture: that item (fixture.gpu.e.limit) left GPU state (memory, or "
                                        "a limit) in this process; continuing in a fresh process\n"
                                      : "kcontract-fixture: that item left GPU state (memory, or a limit) in this "
                                        "process; continuing in a fresh process\n"), "%s", p.out);
        kc_proc_free(&p);
    }
    unsetenv("KC_FAKE_LIMITS_STICK");
    unlink(procs_file);
}

Test(gpu_state, queue_replaces_the_worker, .timeout = 40)
{
    char procs_file[128], costs[128];
    snprintf(procs_file, sizeof procs_file, "%s/kc_test_gpu_state_queue_%ld", kc_test_tmpdir(), (long)getpid());
    snprintf(costs, sizeof costs, "%s/kc_test_gpu_state_costs_%ld.tsv", kc_test_tmpdir(), (long)getpid());
    unlink(costs);
    /* One worker, items by name (equal estimates): each replacement is that worker's. */
    kc_proc p = fake_gpu_run((char *[]){ "run", "fixture.gpu.*", "--jobs", "1", "--costs", costs, NULL }, procs_file);
    expect_gpu_states(&p);
    /* Each restart names the item that caused it: a held verdict's line may come after it. */
    cr_expect(strstr(p.out, "kcontract-fixture: worker 0 restarted (pid ") &&
              strstr(p.out, ") after GPU state left by fixture.gpu.b.keepmem\n"), "%s", p.out);
    cr_expect(strstr(p.out, ") after a CUDA context loss reported by fixture.gpu.c.pending\n"), "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kcontract-fixture: worker 0 restarted"), 2, "%s", p.out);
    kc_proc_free(&p);
    unlink(procs_file);
    unlink(costs);
}
