/* jobs.c — owns the --jobs N --schedule static parent: the checks before
 * any child starts (devices, memory plan), the shard processes (started,
 * reaped, signalled and stopped by the supervisor, supervisor.c) whose lines
 * it prints as they come, stopping the other shards when one fails to
 * finish, and the merged report (merge.c). Also the devices probe the work
 * queue shares and the child's guard (--parent). */
#include "jobs.h"
#include "forked_call.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "cuda_driver.h"
#include "device.h"
#include "filter.h"
#include "merge.h"
#include "parallel.h"
#include "plan.h"
#include "runner.h"
#include "signame.h"
#include "result_line.h"
#include "run_end.h"
#include "sanitize_session.h"
#include "shard.h"
#include "strict_num.h"
#include "proctree.h"
#include "supervisor.h"
#include "tally.h"
#include "reporter.h"
#include "strbuf.h"
#include "progname.h"

static double now_s(void) { return kc_sup_now(); }

/* ---- the child's guard ---- */

int kc_jobs_child_guard(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--parent") != 0) continue;
        uint64_t want;
        if (i + 1 >= argc || kc_parse_u64(argv[i + 1], INT_MAX, &want) || want == 0) {
            kc_report_note(stderr, "--parent: internal option, expected a process id, got '%s'\n",
                    i + 1 < argc ? argv[i + 1] : "");
            return 2;
        }
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
            kc_report_note(stderr, "--parent %llu: prctl(PR_SET_PDEATHSIG): %s\n", (unsigned long long)want,
                    strerror(errno));
            return 2;
        }
        long pp = (long)getppid();
        if ((uint64_t)pp != want) {
            kc_report_note(stderr, "--parent %llu: this process's parent is %ld, not %llu (the --jobs parent is gone); refusing to run\n",
                    (unsigned long long)want, pp, (unsigned long long)want);
            return 2;
        }
        const char *base = strrchr(argv[0], '/');
        prctl(PR_SET_NAME, base ? base + 1 : argv[0]);   /* ps shows the binary, not "exe" */
        return 0;
    }
    return 0;
}

/* ---- the selection and its slices ---- */

typedef struct selection {
    int *sel, ns;               /* filtered items, in name order */
    int gpu_items;
    uint64_t digest;            /* of the whole filtered set */
    long *slice_items;          /* [jobs] */
    uint64_t *slice_digest;     /* [jobs] */
} selection;

static int select_items(const kc_opts *o, const kc_item *items, int n, selection *s)
{
    memset(s, 0, sizeof *s);
    s->sel = malloc(((size_t)n + 1) * sizeof *s->sel);
    s->slice_items = calloc((size_t)o->jobs, sizeof *s->slice_items);
    s->slice_digest = calloc((size_t)o->jobs, sizeof *s->slice_digest);
    if (!s->sel || !s->slice_items || !s->slice_digest) return -1;
    for (int i = 0; i < n; i++) {
        if (!kc_filter_match(items[i].name, o->patterns, o->npatterns)) continue;
        int k = kc_shard_of(s->ns, o->jobs);
        uint64_t d = kc_item_set_digest(&items[i]);
        s->sel[s->ns++] = i;
        s->slice_items[k]++;
        s->slice_digest[k] += d;
        s->digest += d;
        s->gpu_items += items[i].kind != KC_KIND_SUITE || items[i].suite->needs_gpu;
    }
    return 0;
}

static void selection_free(selection *s)
{
    free(s->sel);
    free(s->slice_items);
    free(s->slice_digest);
}

/* ---- devices and the memory plan (refusals before any child starts) ---- */

typedef kc_devinfo devinfo;             /* jobs.h */

/* Free memory of a device, through a primary context retained for the
 * question and released after (SIZE_MAX when it cannot be asked). */
static size_t free_memory(const kc_cuda *cu, int ordinal)
{
    CUdevice dv;
    CUcontext ctx;
    size_t fr = SIZE_MAX, total = 0;
    if (cu->DeviceGet(&dv, ordinal) != CUDA_SUCCESS) return SIZE_MAX;
    if (cu->DevicePrimaryCtxRetain(&ctx, dv) != CUDA_SUCCESS) return SIZE_MAX;
    if (cu->CtxSetCurrent(ctx) != CUDA_SUCCESS || cu->MemGetInfo(&fr, &total) != CUDA_SUCCESS) fr = SIZE_MAX;
    cu->CtxSetCurrent(NULL);
    cu->DevicePrimaryCtxRelease(dv);
    return fr;
}

/* The ordinals asked for (--devices, --device, or every visible one). */
static int wanted_devices(const kc_opts *o, int visible, int *want, char *what, size_t cap)
{
    int n = 0;
    if (o->ndevices) {
        size_t w = (size_t)snprintf(what, cap, "--devices ");
        for (int i = 0; i < o->ndevices; i++) {
            want[n++] = o->devices[i];
            if (w < cap) w += (size_t)snprintf(what + w, cap - w, "%s%d", i ? "," : "", o->devices[i]);
        }
    } else if (o->device_given) {
        want[n++] = o->device;
        snprintf(what, cap, "--device %d", o->device);
    } else {
        while (n < visible && n < KC_MAX_DEVLIST) {
            want[n] = n;
            n++;
        }
        snprintf(what, cap, "the visible devices");
    }
    return n;
}

/* Fills d in this process (kc_jobs_probe_devices runs it in a child);
 * returns 0, or 2 after printing a refusal (a device that does not exist). */
static int probe_here(const kc_opts *o, int gpu_items, int max_devs, devinfo *d)
{
    kc_cuda cu;
    char err[1024], what[512];
    int visible = 0, want[KC_MAX_DEVLIST];
    memset(d, 0, sizeof *d);
    if (!gpu_items) return 0;
    int lr = kc_cuda_load(&cu, NULL, d->why, sizeof d->why);
    if (lr == KC_CUDA_BROKEN) {     /* not a machine without a GPU: refused (cuda_driver.h) */
        kc_report_note(stderr, "the CUDA driver does not work: %s; nothing runs (a machine without a driver or a device "
                       "would SKIP its GPU items and exit 3; KC_LIBCUDA=none runs as one)\n", d->why);
        return 2;
    }
    if (lr) return 0;
    if (cu.DeviceGetCount(&visible) != CUDA_SUCCESS || visible == 0) {
        snprintf(d->why, sizeof d->why, "the driver sees no CUDA device");
        return 0;
    }
    int nw = wanted_devices(o, visible, want, what, sizeof what);
    if (kc_plan_devices_exist(want, nw, visible, what, err, sizeof err)) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        kc_report_note(stderr, "%s%s%s\n", err, vis ? ", CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "");
        return 2;
    }
    d->driver_version = cu.driver_version;
    int used = nw < max_devs ? nw : max_devs;
    for (int j = 0; j < used; j++) {
        if (kc_device_query(&cu, want[j], &d->dev[j], err, sizeof err)) {
            kc_report_note(stderr, "device %d: %s\n", want[j], err);
            return 2;
        }
        d->free_mem[j] = free_memory(&cu, want[j]);
        CUdevice dev;
        int mode = -1;
        d->shared[j] = cu.DeviceGet(&dev, want[j]) == CUDA_SUCCESS &&
                       cu.DeviceGetAttribute(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev) == CUDA_SUCCESS &&
                       mode == CU_COMPUTEMODE_DEFAULT;
    }
    d->ndevs = used;
    return 0;
}

typedef struct probe_args {
    const kc_opts *o;
    int gpu_items, max_devs;
} probe_args;

static int probe_fn(void *ctx, void *out)
{
    const probe_args *a = ctx;
    return probe_here(a->o, a->gpu_items, a->max_devs, out);
}

/* The probe runs in a forked child (forked_call.h): loading the driver runs
 * its library's constructors, and one that ends the process (exit or _exit,
 * KC_LIBCUDA) must end the child, not the run (issue 21); nor does the parent
 * then hold a CUDA context or the driver's threads. A child that ends without
 * its answer fails the run (4). */
int kc_jobs_probe_devices(const kc_opts *o, int gpu_items, int max_devs, devinfo *d)
{
    memset(d, 0, sizeof *d);
    if (!gpu_items) return 0;
    probe_args a = { o, gpu_items, max_devs };
    int rc = 4, st = 0;
    if (kc_forked_call(probe_fn, &a, d, sizeof *d, &rc, &st) >= 0) return rc;
    const char *lib = getenv("KC_LIBCUDA");
    char how[64];
    if (WIFEXITED(st)) snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(st));
    else snprintf(how, sizeof how, "ended");
    kc_report_note(stderr, "loading the CUDA driver (%s) ended the process that probed the devices: it %s "
                   "before it answered; nothing runs\n", lib && *lib ? lib : "libcuda.so.1", how);
    memset(d, 0, sizeof *d);
    return 4;
}

/* Computes the plan into *plan and *avail; returns 0, or 2 after printing the refusal. */
static int check_plan(const kc_opts *o, const kc_item *items, const selection *s, const devinfo *d, kc_plan *plan,
                      size_t *avail)
{
    char err[1024];
    kc_plan_compute(items, s->sel, s->ns, d->ndevs > 0, o->reference, o->inflight, plan);
    size_t san, sang;     /* only where something runs the sanitizer; batches only where they are on */
    if (plan->sanitizer && (kc_plan_sanitizer_host_env(getenv("KC_SANITIZER_HOST_MIB"),
                                                       kc_san_batches_on() ? o->inflight : 1, &san, err, sizeof err) ||
                            /* read for its errors only: the GPU share is the work queue's */
                            kc_plan_sanitizer_gpu_env(getenv("KC_SANITIZER_GPU_MIB"), &sang, err, sizeof err))) {
        kc_report_note(stderr, "--jobs %d refused: %s\n", o->jobs, err);
        return 2;
    }
    if (plan->sanitizer) kc_plan_set_sanitizer(plan, san);
    if (kc_read_mem_available(avail)) *avail = SIZE_MAX;
    kc_plan_env e = { o->jobs, plan, *avail, d->dev, d->free_mem, d->ndevs };
    if (kc_plan_check(&e, err, sizeof err)) {
        kc_report_note(stderr, "--jobs %d refused: %s\n", o->jobs, err);
        return 2;
    }
    return 0;
}

static void print_header(const kc_opts *o, const selection *s, const devinfo *d, const kc_plan *plan, size_t avail)
{
    char line[1024], av[32], shards[200] = "", devs[600] = "";
    int lo = kc_shard_size(s->ns, o->jobs - 1, o->jobs), hi = kc_shard_size(s->ns, 0, o->jobs);
    if (o->jobs == 1) kc_strcatf(shards, sizeof shards, "one shard, 0/1");
    else if (lo == hi) kc_strcatf(shards, sizeof shards, "shards 0/%d..%d/%d of %d item%s each (item i in shard i %% %d)",
                                  o->jobs, o->jobs - 1, o->jobs, lo, lo == 1 ? "" : "s", o->jobs);
    else kc_strcatf(shards, sizeof shards, "shards 0/%d..%d/%d of %d to %d items (item i in shard i %% %d)", o->jobs,
                    o->jobs - 1, o->jobs, lo, hi, o->jobs);
    kc_report_note(stdout, "%d item%s selected, seed %llu; --jobs %d: %s\n", s->ns, s->ns == 1 ? "" : "s",
                   (unsigned long long)o->seed, o->jobs, shards);
    if (d->ndevs) {
        for (int j = 0; j < d->ndevs; j++) kc_strcatf(devs, sizeof devs, "%s %d", j ? "," : "", d->dev[j].ordinal);
        kc_report_note(stdout, "shards go round robin on device%s%s: %s (compute capability %d.%d, %d SMs)\n",
                       d->ndevs == 1 ? "" : "s", devs, d->dev[0].name, d->dev[0].cc_major, d->dev[0].cc_minor,
                       d->dev[0].sm_count);
    } else if (s->gpu_items) {
        kc_report_note(stdout, "no GPU: %s; every shard gets device 0 and its GPU items will be SKIP\n", d->why);
    }
    kc_plan_describe(plan, line, sizeof line);
    kc_bytes_str(avail, av, sizeof av);
    kc_report_note(stdout, "memory plan per process: %s; MemAvailable %s\n", line,
           avail == SIZE_MAX ? "unknown (/proc/meminfo unreadable: host memory not checked)" : av);
    fflush(stdout);
}

/* ---- the children ---- */

typedef struct child {
    int k, n;                   /* shard k of n: the supervisor's slot k */
    int device;
    int judged;                 /* gone and checked for a failure to finish */
    kc_shard_out *out;
} child;

typedef struct run {
    char seal[KC_NONCE_LEN + 1]; /* the shards' end seal (shard.h); "" none */
    const kc_opts *o;
    int n;
    child *c;
    kc_shard_out *outs;
    kc_sup sup;
    int interrupted;            /* the first SIGINT or SIGTERM */
    int failed;                 /* a shard did not finish: the others were stopped */
} run;

static void print_prefixed(FILE *f, const child *c, const char *line, size_t len, size_t cut)
{
    char pre[48];
    snprintf(pre, sizeof pre, "[%d/%d] ", c->k, c->n);
    kc_report_relay(f, pre, line, len, cut);
}

static void on_line(void *ctx, kc_sup *s, kc_child *kc, int stream, const char *line, size_t len, size_t cut)
{
    run *r = ctx;
    child *c = &r->c[kc->slot];
    (void)s;
    /* The shard's end seal (KC_SHARD_SEAL_ENV): its run reached its end; not printed. */
    if (stream == KC_SUP_OUT && r->seal[0] && strncmp(line, KC_SHARD_SEAL_LINE, strlen(KC_SHARD_SEAL_LINE)) == 0 &&
        strcmp(line + strlen(KC_SHARD_SEAL_LINE), r->seal) == 0) {
        c->out->sealed = 1;
        return;
    }
    print_prefixed(stream == KC_SUP_OUT ? stdout : stderr, c, line, len, cut);
    if (stream == KC_SUP_OUT) kc_shard_out_line(c->out, line, cut > 0);
}

/* The child's argv: the same patterns and seed, its shard, device and parent. */
static int spawn(run *r, child *c)
{
    /* N shards share the host's CPUs (what else a shard gets: run_options.h, kc_argv_kind) */
    kc_child_cmd cmd = { .kind = KC_ARGV_SHARD, .shard_k = c->k, .shard_n = c->n, .device = c->device,
                         .parent = (long)getpid(), .share = c->n };
    kc_strvec av = KC_STRVEC_INIT;
    int rc = kc_child_argv(&av, r->o, &cmd);
    if (rc == 0) rc = kc_sup_start(&r->sup, c->k, "/proc/self/exe", av.v, 0);
    int err = errno;
    kc_strvec_clear(&av);
    if (rc) {
        kc_report_note(stderr, "cannot start shard %d/%d: %s\n", c->k, c->n, strerror(err));
        return -1;
    }
    kc_sup_mark(&r->sup.c[c->k], KC_CHILD_RUNNING);    /* a shard runs its slice from its start */
    return 0;
}

static int child_live(const run *r, const child *c)
{
    kc_child_state st = r->sup.c[c->k].state;
    return st != KC_CHILD_GONE && st != KC_CHILD_EXITED;
}

/* Stops every live child (not `except`) with signo; appends "k/N" names to names. */
static int stop_live(run *r, int signo, const child *except, char *names, size_t cap)
{
    int count = 0;
    size_t len = names ? strlen(names) : 0;
    for (int i = 0; i < r->n; i++) {
        child *c = &r->c[i];
        if (!child_live(r, c) || c == except) continue;
        kc_sup_stop(&r->sup, &r->sup.c[i], signo, KC_SUP_GRACE_MS);
        if (!c->out->ended) c->out->stopped = 1;
        if (names && len < cap) len += (size_t)snprintf(names + len, cap - len, "%s%d/%d", count ? ", " : "", c->k, c->n);
        count++;
    }
    return count;
}

/* A shard did not finish: stop the others, naming them. */
static void stop_others(run *r, const child *failed)
{
    char why[256], names[4096] = "";
    kc_shard_out_why(failed->out, why, sizeof why);
    r->failed = 1;
    int count = stop_live(r, SIGTERM, failed, names, sizeof names);
    if (count)
        kc_report_note(stdout, "shard %d/%d did not finish (%s); stopping shard%s %s (SIGTERM, SIGKILL after %d ms)\n",
               failed->k, failed->n, why, count == 1 ? "" : "s", names, KC_SUP_GRACE_MS);
    else
        kc_report_note(stdout, "shard %d/%d did not finish (%s); no other shard was running\n", failed->k, failed->n, why);
    fflush(stdout);
}

/* The supervisor passed SIGINT or SIGTERM on to the live shards. */
static void on_interrupted(void *ctx, kc_sup *s, int signo, int again, int n)
{
    run *r = ctx;
    char names[4096] = "", sb[32];
    size_t len = 0;
    const char *sn = kc_signal_name(signo, sb, sizeof sb);
    for (int i = 0, count = 0; i < r->n; i++) {
        if (s->c[i].state != KC_CHILD_STOPPING) continue;
        if (!r->c[i].out->ended) r->c[i].out->stopped = 1;
        if (len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%d/%d", count++ ? ", " : "", r->c[i].k, r->n);
    }
    if (again) {
        kc_report_note(stdout, "%s again: killing shard%s %s (SIGKILL)\n", sn, n == 1 ? "" : "s", n ? names : "(none)");
    } else {
        r->interrupted = signo;
        kc_report_note(stdout, "%s: passed on to shard%s %s; waiting for them\n", sn, n == 1 ? "" : "s",
               n ? names : "(none running)");
    }
    fflush(stdout);
}

/* A shard is gone: one that ended without finishing (and was not stopped)
 * stops the others; what it left behind is named and fails the merge. */
static void on_gone(void *ctx, kc_sup *s, kc_child *kc)
{
    run *r = ctx;
    child *c = &r->c[kc->slot];
    kc_shard_out_ended(c->out, kc->wstatus);
    /* What a shard killed by SIGKILL could not end (its sanitizer sessions,
     * each a process group of its own), adopted by this process. */
    char who[400];
    int orphans = kc_sup_end_orphans(s, kc, r->interrupted ? 0 : KC_LEAK_TIMEOUT_MS, who, sizeof who);
    if (orphans > 0 && !r->interrupted) {
        kc_report_note(stdout, "shard %d/%d left %d process%s running after it ended: %s; killed (SIGKILL)\n", c->k, c->n,
               orphans, orphans == 1 ? "" : "es", who);
        fflush(stdout);
    }
    if (kc->killed && kc->stop_signal != SIGKILL) {
        kc_report_note(stdout, "shard %d/%d did not stop within %d ms; killed (SIGKILL)\n", c->k, c->n, KC_SUP_GRACE_MS);
        fflush(stdout);
    }
    if (kc->leak[0]) {
        snprintf(c->out->leak, sizeof c->out->leak, "%s", kc->leak);
        kc_report_note(stdout, "shard %d/%d left processes behind: %s\n", c->k, c->n, kc->leak);
        fflush(stdout);
    }
    c->judged = 1;
    if (kc_shard_out_finished(c->out)) {
        kc_report_note(stdout, "shard %d/%d finished in %.2f s (exit status %d)\n", c->k, c->n, kc->exited - kc->started,
               c->out->status);
        fflush(stdout);
        return;
    }
    if (c->out->stopped || r->interrupted) return;
    if (!r->failed) {
        stop_others(r, c);
    } else {
        char why[256];
        kc_shard_out_why(c->out, why, sizeof why);
        kc_report_note(stdout, "shard %d/%d did not finish either (%s)\n", c->k, c->n, why);
        fflush(stdout);
    }
}

static const kc_sup_ops JOBS_OPS = { on_line, on_gone, on_interrupted };

/* Runs until every child is gone. */
static int loop(run *r)
{
    while (kc_sup_live(&r->sup))
        if (kc_sup_wait(&r->sup, 0)) return -1;
    return 0;
}

/* ---- the report ---- */

static void report_interrupted(const run *r)
{
    int fin = 0;
    char why[256], sb[32];
    for (int i = 0; i < r->n; i++) {
        const child *c = &r->c[i];
        if (kc_shard_out_finished(c->out)) {
            fin++;
            kc_report_note(stdout, "shard %d/%d finished (exit status %d)\n", c->k, c->n, c->out->status);
        } else {
            kc_shard_out_why(c->out, why, sizeof why);
            kc_report_note(stdout, "shard %d/%d stopped: %s\n", c->k, c->n, why);
        }
    }
    kc_report_note(stdout, "interrupted by %s: %d shard%s finished, %d stopped; no merged TALLY or SUMMARY\n",
           kc_signal_name(r->interrupted, sb, sizeof sb), fin, fin == 1 ? "" : "s", r->n - fin);
    fflush(stdout);
}

static void print_times(const run *r)
{
    int last = 0;
    char times[4096] = "";
    for (int i = 0; i < r->n; i++) {
        const kc_child *c = &r->sup.c[i];
        kc_strcatf(times, sizeof times, "%s %d/%d %.2f s", i ? "," : "", r->c[i].k, r->n, c->exited - c->started);
        if (c->exited > r->sup.c[last].exited) last = i;
    }
    kc_report_note(stdout, "shard times:%s; last to finish: %d/%d\n", times, r->c[last].k, r->n);
}

/* Merges and prints; returns the exit status. */
static int report(const run *r, const selection *s, double t0)
{
    kc_merge_want w = { r->n, r->o->seed, kc_filter_hash(r->o->patterns, r->o->npatterns), kc_build_id(),
                        s->ns, s->digest, s->slice_items, s->slice_digest };
    kc_tally t;
    char *err = malloc(65536);
    if (!err) return 4;
    int problems = kc_merge(&w, r->outs, r->n, &t, err, 65536);
    if (problems) {
        kc_report_note(stdout, "the merge failed (%d problem%s); no merged TALLY or SUMMARY:\n", problems,
               problems == 1 ? "" : "s");
        for (char *p = err, *e; *p; p = e + (*e != 0)) {
            e = strchr(p, '\n');
            if (!e) e = p + strlen(p);
            kc_report_note(stdout, "  %.*s\n", (int)(e - p), p);
        }
        fflush(stdout);
        free(err);
        return 1;
    }
    free(err);
    print_times(r);
    kc_run_end e = { .o = r->o, .tally = &t, .wall_s = now_s() - t0, .items = s->ns };   /* no records: no reports */
    return kc_run_end_write(&e);
}

/* ---- kc_jobs_run ---- */

static void run_free(run *r, int sup)
{
    if (sup) kc_sup_free(&r->sup);
    free(r->c);
    free(r->outs);
}

static int run_init(run *r, const kc_opts *o, const devinfo *d)
{
    memset(r, 0, sizeof *r);
    r->o = o;
    r->n = o->jobs;
    r->c = calloc((size_t)r->n, sizeof *r->c);
    r->outs = calloc((size_t)r->n, sizeof *r->outs);
    if (!r->c || !r->outs) return -1;
    for (int k = 0; k < r->n; k++) {
        child *c = &r->c[k];
        c->k = k;
        c->n = r->n;
        c->out = &r->outs[k];
        c->device = d->ndevs ? d->dev[kc_shard_device_slot(k, d->ndevs)].ordinal : 0;
        kc_shard_out_init(c->out, k);
    }
    return 0;
}

/* Starts every child; on a failure, stops those already started. */
static int spawn_all(run *r)
{
    /* The end seal: every shard inherits it, takes it out of its environment
     * at start and prints it after its run's end (runner.c). */
    if (kc_result_nonce(r->seal) == 0) setenv(KC_SHARD_SEAL_ENV, r->seal, 1);
    else r->seal[0] = 0;
    for (int i = 0; i < r->n; i++) r->c[i].out->need_seal = r->seal[0] != 0;
    for (int k = 0; k < r->n; k++) {
        if (spawn(r, &r->c[k]) == 0) continue;
        r->failed = 1;
        for (int j = k; j < r->n; j++) r->c[j].judged = 1;    /* never started */
        char names[4096] = "";
        if (stop_live(r, SIGTERM, NULL, names, sizeof names)) kc_report_note(stdout, "stopping shards %s\n", names);
        return -1;
    }
    return 0;
}

int kc_jobs_run(const kc_opts *o, const kc_item *items, int n)
{
    double t0 = now_s();
    selection s = { 0 };
    devinfo *d = calloc(1, sizeof *d);
    run r = { 0 };
    int rc = 4;
    if (!d || select_items(o, items, n, &s)) {
        kc_report_note(stderr, "out of memory\n");
        goto out;
    }
    kc_plan plan;
    size_t avail;
    if ((rc = kc_jobs_probe_devices(o, s.gpu_items, o->jobs, d)) || (rc = check_plan(o, items, &s, d, &plan, &avail))) goto out;
    print_header(o, &s, d, &plan, avail);
    /* The static parent writes to no child: SIGPIPE (its own stdout closed) still ends it. */
    kc_proc_adopt_orphans();    /* what a dead shard leaves running becomes ours, to end (on_gone) */
    if (run_init(&r, o, d) || kc_sup_init(&r.sup, r.n, &JOBS_OPS, &r, 0) < 0) {
        kc_report_note(stderr, "cannot set up the children: %s\n", strerror(errno));
        run_free(&r, 0);
        rc = 4;
        goto out;
    }
    int started = spawn_all(&r) == 0;
    if (loop(&r)) {
        rc = 4;
    } else if (r.interrupted) {
        report_interrupted(&r);
        rc = 128 + r.interrupted;
    } else {
        rc = started ? report(&r, &s, t0) : 4;
    }
    run_free(&r, 1);
out:
    selection_free(&s);
    free(d);
    return rc;
}
