/* inflight_items.c — kcontract's own items side by side on one GPU, in one
 * process (issue 23, part 1; the premise measured with a stand-in in
 * docs/receipts/2026-12-02-h200-inflight): the items that may go in flight
 * (kc_inflight_admits: kernel items and gate 1-4 controls of driver-launched
 * contracts) whose names match the globs are run
 *   1. serially, on one session with the legacy default stream (as a
 *      worker runs them today: kc_run_gpu_item, one after another), then
 *   2. for each K given, on K host threads, each with its own lane of one
 *      session opened with the per-thread default stream (kc_gpu_open_lane),
 *      taking the next item from a shared counter,
 * and each item's verdict (state, gate, cases, failed cases) in every K
 * pass is compared with the serial one. Kernel items only unless
 * --controls: a control that faults loses the context for good (a fresh
 * process is needed, cuda_driver.h), which ends the serial pass; the
 * worker's re-execution (not built yet) is what handles it. A context lost
 * in a pass is said and ends that pass. Not the worker/parent
 * protocol, nor processes or GPU-memory watches: the gates alone.
 * Prints one BENCH line per pass, each differing item, and where a pass's
 * item time went (the gates' phases: inputs, kernel launches, float64
 * references, checks; the rest is other). A K may carry letters that turn
 * off what lets lanes overlap, to measure what each is worth: `a`, device
 * memory by cuMemAlloc/cuMemFree instead of stream-ordered (cuda_driver.h:
 * kc_cuda_alloc); `m`, modules loaded and unloaded per item instead of kept
 * (module_cache.h); `p`, no shared-memory poison before a launch
 * (harness.h: kc_dev_poison_smem, which fills every SM's whole shared
 * memory, so it waits for every SM to be empty). "16am" is 16 lanes with
 * neither of the first two; `t`, the references and checks on the lane's
 * own thread (kc_parallel_set_threads(1)) instead of the harness's threads
 * per lane. A pass with `p` may differ from the serial one
 * (a kernel that reads shared memory it never wrote is not caught).
 * --trace adds, per pass, the wall time spent inside each driver call the
 * cases make, summed over the threads (driver_trace.h).
 * Usage: build/kc_inflight_bench [--k K[a][m][p][t],...] [--trace] [--seed S] [GLOB...]   (make bench-inflight) */
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver_trace.h"
#include "gates.h"
#include "gpu.h"
#include "gpu_open.h"
#include "hostmem.h"
#include "inflight.h"
#include "inputs.h"
#include "line_text.h"
#include "module_cache.h"
#include "parallel.h"
#include "plan.h"
#include "registry.h"

#define MAX_K 64

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct verdict {
    kc_state state;
    int gate, cases, failed, lost;
    double seconds;
    kc_time_split time;
    char msg[2048];
} verdict;

static const kc_item **sel;
static int nsel;
static uint64_t seed = 1;
static kc_item *all_items;
static size_t *need_host, *need_gpu;     /* each selected item's largest case */
static size_t budget_host = (size_t)64 << 30, budget_gpu = (size_t)96 << 30, used_host, used_gpu;
static int running;
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mem_freed = PTHREAD_COND_INITIALIZER;

/* Waits until item i fits beside the running ones (or none runs), then takes its memory. */
static void admit(int i)
{
    pthread_mutex_lock(&mem_lock);
    while (running && (used_host + need_host[i] > budget_host || used_gpu + need_gpu[i] > budget_gpu))
        pthread_cond_wait(&mem_freed, &mem_lock);
    used_host += need_host[i];
    used_gpu += need_gpu[i];
    running++;
    pthread_mutex_unlock(&mem_lock);
}

static void release(int i)
{
    pthread_mutex_lock(&mem_lock);
    used_host -= need_host[i];
    used_gpu -= need_gpu[i];
    running--;
    pthread_cond_broadcast(&mem_freed);
    pthread_mutex_unlock(&mem_lock);
}
static verdict *serial_v, *pass_v;

static void run_one(kc_gpu *gpu, const kc_item *it, verdict *v)
{
    static __thread char detail[8192];
    kc_lines lines;
    kc_item_result r;
    kc_lines_init(&lines, detail, sizeof detail);
    double t0 = now_s();
    kc_run_gpu_item(gpu, it, seed, KC_REF_DEVICE, NULL, &r, &lines);
    v->seconds = now_s() - t0;
    v->time = r.time;
    v->state = r.state;
    v->gate = r.gate;
    v->cases = r.cases;
    v->failed = r.cases_failed;
    v->lost = r.context_lost || gpu->lost;
    snprintf(v->msg, sizeof v->msg, "%s", r.msg);
}

/* ---- a pass on K lanes ---- */

static kc_gpu base;
static _Atomic int next_item, lost_at = -1, open_failed;

static void *lane(void *arg)
{
    (void)arg;
    kc_gpu g;
    if (kc_gpu_open_lane(&g, &base, KC_INPUT_CACHE_BYTES / 8)) {
        fprintf(stderr, "lane: %s\n", g.why);
        open_failed++;
        return NULL;
    }
    for (;;) {
        if (lost_at >= 0) break;
        int i = next_item++;
        if (i >= nsel) break;
        admit(i);
        run_one(&g, sel[i], &pass_v[i]);
        release(i);
        if (pass_v[i].lost) {
            int expect = -1;
            atomic_compare_exchange_strong(&lost_at, &expect, i);
            break;
        }
    }
    kc_gpu_close_lane(&g);
    return NULL;
}

/* Where the items' time of a pass went: "inputs_s=.. gpu_s=.. ref_s=.. checks_s=.. other_s=..". */
static void print_phases(const char *pass, const verdict *v, int n)
{
    double in = 0, gpu = 0, ref = 0, chk = 0, all = 0;
    for (int i = 0; i < n; i++) {
        in += v[i].time.inputs_s;
        gpu += v[i].time.gpu_s;
        ref += v[i].time.reference_s;
        chk += v[i].time.checks_s;
        all += v[i].seconds;
    }
    printf("  phases %s: inputs_s=%.2f gpu_s=%.2f ref_s=%.2f checks_s=%.2f other_s=%.2f\n", pass, in, gpu, ref, chk,
           all - in - gpu - ref - chk);
}

static int same(const verdict *a, const verdict *b)
{
    return a->state == b->state && a->gate == b->gate && a->cases == b->cases && a->failed == b->failed;
}

int main(int argc, char **argv)
{
    int ks[16], nk = 0, controls = 0, trace = 0, plain_alloc[16] = { 0 }, per_item_modules[16] = { 0 }, no_poison[16] = { 0 }, one_thread[16] = { 0 };
    const char *globs[64];
    int ng = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--k") == 0 && i + 1 < argc) {
            for (char *p = argv[++i]; *p && nk < 16;) {
                char *e;
                long k = strtol(p, &e, 10);
                for (; *e && strchr("ampt", *e); e++)
                    (*e == 'a' ? plain_alloc : *e == 'm' ? per_item_modules : *e == 'p' ? no_poison : one_thread)[nk] = 1;
                if (e == p || k < 1 || k > MAX_K || (*e && *e != ',')) {
                    fprintf(stderr, "--k: expected K[a][m][p][t],... each K 1 to %d, got '%s'\n", MAX_K, argv[i]);
                    return 2;
                }
                ks[nk++] = (int)k;
                p = *e == ',' ? e + 1 : e;
            }
        } else if ((strcmp(argv[i], "--host-gib") == 0 || strcmp(argv[i], "--gpu-gib") == 0) && i + 1 < argc) {
            size_t *b = argv[i][2] == 'h' ? &budget_host : &budget_gpu;
            *b = (size_t)(strtod(argv[++i], NULL) * (double)((size_t)1 << 30));
        } else if (strcmp(argv[i], "--trace") == 0) {
            trace = 1;
        } else if (strcmp(argv[i], "--controls") == 0) {
            controls = 1;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (ng < 64) {
            globs[ng++] = argv[i];
        }
    }
    if (!nk) ks[nk++] = 8;
    kc_item *items;
    char err[8192];
    int n = kc_registry_items(&items, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "registry: %s\n", err);
        return 2;
    }
    sel = calloc((size_t)n + 1, sizeof *sel);
    serial_v = calloc((size_t)n + 1, sizeof *serial_v);
    pass_v = calloc((size_t)n + 1, sizeof *pass_v);
    int alone = 0;
    for (int i = 0; i < n; i++) {
        int match = !ng;
        for (int g = 0; g < ng && !match; g++) match = fnmatch(globs[g], items[i].name, 0) == 0;
        if (!match || (!controls && items[i].kind != KC_KIND_KERNEL)) continue;
        char why[400];
        if (kc_inflight_admits(&items[i], why, sizeof why)) sel[nsel++] = &items[i];
        else alone++;
    }
    printf("items matching: %d in flight, %d alone (not run here)\n", nsel, alone);
    all_items = items;
    need_host = calloc((size_t)nsel + 1, sizeof *need_host);
    need_gpu = calloc((size_t)nsel + 1, sizeof *need_gpu);
    for (int i = 0; i < nsel; i++) {
        kc_plan pl;
        int idx = (int)(sel[i] - items);
        kc_plan_compute(items, &idx, 1, 1, KC_REF_DEVICE, &pl);
        need_host[i] = pl.host_case;
        need_gpu[i] = pl.gpu_case;
    }

    /* 1. serially, legacy default stream */
    if (kc_gpu_open(&base, 0)) {
        fprintf(stderr, "no GPU: %s\n", base.why);
        return 1;
    }
    if (trace) kc_trace_wrap(&base.cu);
    double t0 = now_s(), item_s = 0;
    int kept = 0;
    for (int i = 0; i < nsel; i++) {
        run_one(&base, sel[i], &serial_v[i]);
        if (serial_v[i].lost) {         /* for good in this process (cuda_driver.h) */
            printf("serial: %s lost the context (%s: %s); no pass can follow in this process\n", sel[i]->name,
                   kc_state_name(serial_v[i].state), serial_v[i].msg);
            return 1;
        }
        item_s += serial_v[i].seconds;
        kept++;
    }
    double serial_wall = now_s() - t0;
    kc_gpu_close(&base);
    nsel = kept;
    printf("BENCH inflight mode=serial k=1 items=%d wall_s=%.2f item_s=%.2f\n", nsel, serial_wall, item_s);
    print_phases("serial", serial_v, nsel);
    if (trace) kc_trace_print("serial");
    {
        double longest = 0;
        int li = 0;
        for (int i = 0; i < nsel; i++)
            if (serial_v[i].seconds > longest) longest = serial_v[i].seconds, li = i;
        if (nsel) printf("  longest serially: %s %.2f s\n", sel[li]->name, longest);
    }
    fflush(stdout);

    /* 2. K lanes, per-thread default stream */
    int bad_total = 0;
    for (int p = 0; p < nk; p++) {
        int k = ks[p];
        if (kc_gpu_open_streams(&base, 0, 1)) {
            fprintf(stderr, "no GPU (per-thread table): %s\n", base.why);
            return 1;
        }
        if (plain_alloc[p]) base.cu.stream_alloc = 0;       /* before any lane allocates */
        if (per_item_modules[p]) base.share_modules = 0;
        base.smem_poison_off = no_poison[p];
        int threads_before = kc_parallel_threads();
        if (one_thread[p]) kc_parallel_set_threads(1);
        if (trace) kc_trace_wrap(&base.cu);         /* before the lanes copy the table */
        const char *alloc = base.cu.stream_alloc ? "stream" : "plain", *modules = base.share_modules ? "kept" : "per-item";
        memset(pass_v, 0, sizeof *pass_v * (size_t)(nsel + 1));
        next_item = 0;
        lost_at = -1;
        open_failed = 0;
        pthread_t th[MAX_K];
        t0 = now_s();
        for (int t = 0; t < k; t++) pthread_create(&th[t], NULL, lane, NULL);
        for (int t = 0; t < k; t++) pthread_join(th[t], NULL);
        double wall = now_s() - t0;
        kc_parallel_set_threads(threads_before);
        item_s = 0;
        int differ = 0, ran = next_item < nsel ? next_item : nsel;
        for (int i = 0; i < ran; i++) {
            item_s += pass_v[i].seconds;
            if (!same(&pass_v[i], &serial_v[i])) {
                differ++;
                printf("  differs k=%d: %s serial %s gate %d cases %d/%d | lanes %s gate %d cases %d/%d: %s\n", k,
                       sel[i]->name, kc_state_name(serial_v[i].state), serial_v[i].gate, serial_v[i].failed,
                       serial_v[i].cases, kc_state_name(pass_v[i].state), pass_v[i].gate, pass_v[i].failed,
                       pass_v[i].cases, pass_v[i].msg);
            }
        }
        if (lost_at >= 0) printf("  k=%d: the context was lost at %s: pass ended\n", k, sel[lost_at]->name);
        char pass[96];
        snprintf(pass, sizeof pass, "k=%d alloc=%s modules=%s smem_poison=%s threads=%d", k, alloc, modules,
                 no_poison[p] ? "off" : "on", one_thread[p] ? 1 : threads_before);
        print_phases(pass, pass_v, ran);     /* before the slowest are marked off below */
        if (trace) kc_trace_print(pass);
        for (int top = 0; top < 6; top++) {     /* the slowest items of this pass, against serially */
            int w = -1;
            for (int i = 0; i < ran; i++)
                if (pass_v[i].seconds >= 0 && (w < 0 || pass_v[i].seconds > pass_v[w].seconds)) w = i;
            if (w < 0) break;
            printf("  slowest k=%d: %s %.2f s (serially %.2f s)\n", k, sel[w]->name, pass_v[w].seconds, serial_v[w].seconds);
            pass_v[w].seconds = -1;
        }
        int held, copies = kc_module_cache_count(&base, &held);
        printf("BENCH inflight mode=lanes k=%d alloc=%s modules=%s smem_poison=%s threads=%d items=%d ran=%d wall_s=%.2f item_s=%.2f vs_serial=%.2fx same=%d differ=%d lane_open_failed=%d module_copies=%d\n",
               k, alloc, modules, no_poison[p] ? "off" : "on", one_thread[p] ? 1 : threads_before, nsel, ran, wall, item_s, wall > 0 ? serial_wall / wall : 0, ran - differ, differ,
               open_failed, copies);
        fflush(stdout);
        bad_total += differ + (lost_at >= 0) + open_failed + (ran != nsel);
        kc_gpu_close(&base);
    }
    free(items);
    return bad_total ? 1 : 0;
}
