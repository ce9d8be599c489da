/* jobs.c — owns the --jobs parent: the checks before any child starts
 * (devices, memory plan), spawning the shard processes with pipes, the poll
 * loop that prints their lines as they come (linebuf.c cuts long ones),
 * passing SIGINT/SIGTERM on through a self-pipe, stopping the other shards
 * when one fails to finish, and the merged report (merge.c). Also the child's
 * guard (--parent). The only global is the self-pipe's write end, which the
 * signal handler needs. */
#include "jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda_driver.h"
#include "device.h"
#include "filter.h"
#include "linebuf.h"
#include "merge.h"
#include "parallel.h"
#include "plan.h"
#include "runner.h"
#include "shard.h"
#include "sigpipe.h"
#include "tally.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the child's guard ---- */

int kc_jobs_child_guard(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--parent") != 0) continue;
        uint64_t want;
        if (i + 1 >= argc || kc_parse_u64(argv[i + 1], INT_MAX, &want) || want == 0) {
            fprintf(stderr, "kcontract: --parent: internal option, expected a process id, got '%s'\n",
                    i + 1 < argc ? argv[i + 1] : "");
            return 2;
        }
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
            fprintf(stderr, "kcontract: --parent %llu: prctl(PR_SET_PDEATHSIG): %s\n", (unsigned long long)want,
                    strerror(errno));
            return 2;
        }
        long pp = (long)getppid();
        if ((uint64_t)pp != want) {
            fprintf(stderr, "kcontract: --parent %llu: this process's parent is %ld, not %llu (the --jobs parent is gone); refusing to run\n",
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

/* Fills d; returns 0, or 2 after printing a refusal (a device that does not
 * exist). Once cuInit has run, the driver stays loaded for the parent's life:
 * dlclose under the driver's own threads is not safe, and the children exec. */
int kc_jobs_probe_devices(const kc_opts *o, int gpu_items, devinfo *d)
{
    kc_cuda cu;
    char err[1024], what[512];
    int visible = 0, want[KC_MAX_DEVLIST];
    memset(d, 0, sizeof *d);
    if (!gpu_items) return 0;
    if (kc_cuda_load(&cu, NULL, d->why, sizeof d->why)) return 0;
    if (cu.DeviceGetCount(&visible) != CUDA_SUCCESS || visible == 0) {
        snprintf(d->why, sizeof d->why, "the driver sees no CUDA device");
        return 0;
    }
    int nw = wanted_devices(o, visible, want, what, sizeof what);
    if (kc_plan_devices_exist(want, nw, visible, what, err, sizeof err)) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        fprintf(stderr, "kcontract: %s%s%s\n", err, vis ? ", CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "");
        return 2;
    }
    int used = nw < o->jobs ? nw : o->jobs;
    for (int j = 0; j < used; j++) {
        if (kc_device_query(&cu, want[j], &d->dev[j], err, sizeof err)) {
            fprintf(stderr, "kcontract: device %d: %s\n", want[j], err);
            return 2;
        }
        d->free_mem[j] = free_memory(&cu, want[j]);
    }
    d->ndevs = used;
    return 0;
}

/* Computes the plan into *plan and *avail; returns 0, or 2 after printing the refusal. */
static int check_plan(const kc_opts *o, const kc_item *items, const selection *s, const devinfo *d, kc_plan *plan,
                      size_t *avail)
{
    char err[1024];
    kc_plan_compute(items, s->sel, s->ns, d->ndevs > 0, o->reference, plan);
    if (kc_read_mem_available(avail)) *avail = SIZE_MAX;
    kc_plan_env e = { o->jobs, plan, *avail, d->dev, d->free_mem, d->ndevs };
    if (kc_plan_check(&e, err, sizeof err)) {
        fprintf(stderr, "kcontract: --jobs %d refused: %s\n", o->jobs, err);
        return 2;
    }
    return 0;
}

static void print_header(const kc_opts *o, const selection *s, const devinfo *d, const kc_plan *plan, size_t avail)
{
    char line[1024], av[32];
    int lo = kc_shard_size(s->ns, o->jobs - 1, o->jobs), hi = kc_shard_size(s->ns, 0, o->jobs);
    printf("kcontract: %d item%s selected, seed %llu; --jobs %d: ", s->ns, s->ns == 1 ? "" : "s",
           (unsigned long long)o->seed, o->jobs);
    if (o->jobs == 1) printf("one shard, 0/1\n");
    else if (lo == hi) printf("shards 0/%d..%d/%d of %d item%s each (item i in shard i %% %d)\n", o->jobs, o->jobs - 1,
                              o->jobs, lo, lo == 1 ? "" : "s", o->jobs);
    else printf("shards 0/%d..%d/%d of %d to %d items (item i in shard i %% %d)\n", o->jobs, o->jobs - 1, o->jobs, lo,
                hi, o->jobs);
    if (d->ndevs) {
        printf("kcontract: shards go round robin on device%s", d->ndevs == 1 ? "" : "s");
        for (int j = 0; j < d->ndevs; j++) printf("%s %d", j ? "," : "", d->dev[j].ordinal);
        printf(": %s (compute capability %d.%d, %d SMs)\n", d->dev[0].name, d->dev[0].cc_major, d->dev[0].cc_minor,
               d->dev[0].sm_count);
    } else if (s->gpu_items) {
        printf("kcontract: no GPU: %s; every shard gets device 0 and its GPU items will be SKIP\n", d->why);
    }
    kc_plan_describe(plan, line, sizeof line);
    kc_bytes_str(avail, av, sizeof av);
    printf("kcontract: memory plan per process: %s; MemAvailable %s\n", line,
           avail == SIZE_MAX ? "unknown (/proc/meminfo unreadable: host memory not checked)" : av);
    fflush(stdout);
}

/* ---- the children ---- */

typedef struct child {
    int k, n;                   /* shard k of n */
    pid_t pid;                  /* 0 once reaped */
    int fd[2];                  /* stdout, stderr read ends; -1 at end of stream */
    kc_linebuf lb[2];
    int device;
    double t0, t1;              /* started, reaped */
    int judged;                 /* done and checked for a failure to finish */
    kc_shard_out *out;
} child;

typedef struct run {
    const kc_opts *o;
    int n;
    child *c;
    kc_shard_out *outs;
    int sig_r;                  /* the self-pipe's read end */
    int interrupted;            /* the first SIGINT or SIGTERM */
    int failed;                 /* a shard did not finish: the others were stopped */
    double kill_at;             /* SIGKILL the live children then (0: not armed) */
} run;

static void print_prefixed(FILE *f, const child *c, const char *line, size_t len, size_t cut)
{
    fprintf(f, "[%d/%d] ", c->k, c->n);
    fwrite(line, 1, len, f);
    if (cut) fprintf(f, " [... cut %zu bytes]", cut);
    fputc('\n', f);
    fflush(f);
}

static void on_out_line(void *ctx, const char *line, size_t len, size_t cut)
{
    child *c = ctx;
    print_prefixed(stdout, c, line, len, cut);
    kc_shard_out_line(c->out, line, cut > 0);
}

static void on_err_line(void *ctx, const char *line, size_t len, size_t cut)
{
    print_prefixed(stderr, ctx, line, len, cut);
}

/* The child's argv: the same patterns and seed, its shard, device and parent. */
static char **child_argv(const kc_opts *o, const child *c, char num[5][32])
{
    char **av = calloc((size_t)o->npatterns + 16 + 2 * (size_t)o->nrecords, sizeof *av);
    int a = 0;
    if (!av) return NULL;
    snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)o->seed);
    snprintf(num[1], sizeof num[1], "%d/%d", c->k, c->n);
    snprintf(num[2], sizeof num[2], "%d", c->device);
    snprintf(num[3], sizeof num[3], "%ld", (long)getpid());
    av[a++] = (char *)o->argv0;
    av[a++] = "run";
    for (int i = 0; i < o->npatterns; i++) av[a++] = o->patterns[i];
    av[a++] = "--seed";
    av[a++] = num[0];
    av[a++] = "--shard";
    av[a++] = num[1];
    av[a++] = "--device";
    av[a++] = num[2];
    av[a++] = "--parent";
    av[a++] = num[3];
    snprintf(num[4], sizeof num[4], "%d", o->threads ? o->threads : kc_parallel_share(c->n));
    av[a++] = "--threads";   /* N shards share the host's CPUs */
    av[a++] = num[4];
    av[a++] = "--reference";
    av[a++] = (char *)kc_ref_mode_name(o->reference);
    for (int r = 0; r < o->nrecords; r++) {   /* the same record items, so the slices agree */
        av[a++] = "--records";
        av[a++] = (char *)o->records[r];
    }
    return av;
}

/* In the forked child (async-signal-safe calls only: the driver's threads
 * may exist in the parent): default signals, output to the pipes, exec. */
static void exec_child(char **av, int out_w, int err_w)
{
    static const char msg[] = "kcontract: cannot start the shard process: execv /proc/self/exe failed\n";
    kc_sigpipe_child_reset();
    if (dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) _exit(127);
    execv("/proc/self/exe", av);
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
}

static int spawn(const kc_opts *o, child *c)
{
    int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
    char num[5][32];
    char **av = child_argv(o, c, num);
    if (!av || pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) goto fail;
    sigset_t old;
    kc_sigpipe_block(&old);                     /* no handler runs in the child before exec */
    pid_t pid = fork();
    if (pid == 0) exec_child(av, po[1], pe[1]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) goto fail;
    close(po[1]);
    close(pe[1]);
    c->pid = pid;
    c->fd[0] = po[0];
    c->fd[1] = pe[0];
    c->t0 = now_s();
    free(av);
    return 0;
fail:
    fprintf(stderr, "kcontract: cannot start shard %d/%d: %s\n", c->k, c->n, strerror(errno));
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0) close(po[i]);
        if (pe[i] >= 0) close(pe[i]);
    }
    free(av);
    return -1;
}

/* Signals every live child (not `except`); appends "k/N" names to names. */
static int signal_live(run *r, int signo, const child *except, char *names, size_t cap)
{
    int count = 0;
    size_t len = names ? strlen(names) : 0;
    for (int i = 0; i < r->n; i++) {
        child *c = &r->c[i];
        if (c->pid <= 0 || c == except) continue;
        kill(c->pid, signo);
        if (!c->out->ended) c->out->stopped = 1;
        if (names && len < cap) len += (size_t)snprintf(names + len, cap - len, "%s%d/%d", count ? ", " : "", c->k, c->n);
        count++;
    }
    return count;
}

static void arm_kill(run *r)
{
    double at = now_s() + KC_JOBS_GRACE_MS / 1000.0;
    if (!r->kill_at || at < r->kill_at) r->kill_at = at;
}

/* A shard did not finish: stop the others, naming them. */
static void stop_others(run *r, const child *failed)
{
    char why[256], names[4096] = "";
    kc_shard_out_why(failed->out, why, sizeof why);
    r->failed = 1;
    int count = signal_live(r, SIGTERM, failed, names, sizeof names);
    if (count) {
        arm_kill(r);
        printf("kcontract: shard %d/%d did not finish (%s); stopping shard%s %s (SIGTERM, SIGKILL after %d ms)\n",
               failed->k, failed->n, why, count == 1 ? "" : "s", names, KC_JOBS_GRACE_MS);
    } else {
        printf("kcontract: shard %d/%d did not finish (%s); no other shard was running\n", failed->k, failed->n, why);
    }
    fflush(stdout);
}

static void on_interrupt(run *r, int signo)
{
    char names[4096] = "", sb[32];
    const char *sn = kc_signal_name(signo, sb, sizeof sb);
    if (r->interrupted) {       /* a second signal: no more waiting */
        int count = signal_live(r, SIGKILL, NULL, names, sizeof names);
        printf("kcontract: %s again: killing shard%s %s (SIGKILL)\n", sn, count == 1 ? "" : "s", count ? names : "(none)");
        fflush(stdout);
        return;
    }
    r->interrupted = signo;
    int count = signal_live(r, signo, NULL, names, sizeof names);
    if (count) arm_kill(r);
    printf("kcontract: %s: passed on to shard%s %s; waiting for them\n", sn, count == 1 ? "" : "s",
           count ? names : "(none running)");
    fflush(stdout);
}

static void drain_signals(run *r)
{
    unsigned char b[64];
    ssize_t got;
    while ((got = read(r->sig_r, b, sizeof b)) > 0)
        for (ssize_t i = 0; i < got; i++)
            if (b[i] == SIGINT || b[i] == SIGTERM) on_interrupt(r, b[i]);
    /* SIGCHLD: reap() at the top of the loop. */
}

static void reap(run *r)
{
    for (int i = 0; i < r->n; i++) {
        child *c = &r->c[i];
        int st;
        if (c->pid <= 0 || waitpid(c->pid, &st, WNOHANG) != c->pid) continue;
        kc_shard_out_ended(c->out, st);
        c->pid = 0;
        c->t1 = now_s();
    }
}

static int child_done(const child *c) { return c->pid == 0 && c->fd[0] < 0 && c->fd[1] < 0; }

/* A shard that is done without finishing (and was not stopped) stops the others. */
static void judge(run *r)
{
    for (int i = 0; i < r->n; i++) {
        child *c = &r->c[i];
        if (c->judged || !child_done(c)) continue;
        c->judged = 1;
        if (kc_shard_out_finished(c->out)) {
            printf("kcontract: shard %d/%d finished in %.2f s (exit status %d)\n", c->k, c->n, c->t1 - c->t0,
                   c->out->status);
            fflush(stdout);
            continue;
        }
        if (c->out->stopped || r->interrupted) continue;
        if (!r->failed) {
            stop_others(r, c);
        } else {
            char why[256];
            kc_shard_out_why(c->out, why, sizeof why);
            printf("kcontract: shard %d/%d did not finish either (%s)\n", c->k, c->n, why);
            fflush(stdout);
        }
    }
}

static void read_stream(child *c, int s)
{
    char buf[65536];
    ssize_t got = read(c->fd[s], buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
    kc_line_fn fn = s == 0 ? on_out_line : on_err_line;
    if (got <= 0) {
        kc_linebuf_flush(&c->lb[s], fn, c);
        close(c->fd[s]);
        c->fd[s] = -1;
        return;
    }
    kc_linebuf_feed(&c->lb[s], buf, (size_t)got, fn, c);
}

static void kill_overdue(run *r)
{
    if (!r->kill_at || now_s() < r->kill_at) return;
    char names[4096] = "";
    r->kill_at = 0;
    int count = signal_live(r, SIGKILL, NULL, names, sizeof names);
    if (count) {
        printf("kcontract: shard%s %s did not stop within %d ms; killed (SIGKILL)\n", count == 1 ? "" : "s", names,
               KC_JOBS_GRACE_MS);
        fflush(stdout);
    }
}

/* Runs until every child is reaped and its pipes are at end of stream. */
static int loop(run *r)
{
    struct pollfd *pf = calloc((size_t)r->n * 2 + 1, sizeof *pf);
    int *who = calloc((size_t)r->n * 2 + 1, sizeof *who);
    if (!pf || !who) {
        free(pf);
        free(who);
        return -1;
    }
    for (;;) {
        reap(r);
        judge(r);
        int np = 0, busy = 0;
        pf[np++] = (struct pollfd){ r->sig_r, POLLIN, 0 };
        for (int i = 0; i < r->n; i++) {
            busy |= !child_done(&r->c[i]);
            for (int s = 0; s < 2; s++)
                if (r->c[i].fd[s] >= 0) {
                    who[np] = i * 2 + s;
                    pf[np++] = (struct pollfd){ r->c[i].fd[s], POLLIN, 0 };
                }
        }
        if (!busy) break;
        int ms = -1;
        if (r->kill_at) {
            double left = (r->kill_at - now_s()) * 1000;
            ms = left < 0 ? 0 : (int)left + 1;
        }
        if (poll(pf, (nfds_t)np, ms) > 0) {
            if (pf[0].revents) drain_signals(r);
            for (int p = 1; p < np; p++)
                if (pf[p].revents & (POLLIN | POLLHUP | POLLERR)) read_stream(&r->c[who[p] / 2], who[p] % 2);
        }
        kill_overdue(r);
    }
    free(pf);
    free(who);
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
            printf("kcontract: shard %d/%d finished (exit status %d)\n", c->k, c->n, c->out->status);
        } else {
            kc_shard_out_why(c->out, why, sizeof why);
            printf("kcontract: shard %d/%d stopped: %s\n", c->k, c->n, why);
        }
    }
    printf("kcontract: interrupted by %s: %d shard%s finished, %d stopped; no merged TALLY or SUMMARY\n",
           kc_signal_name(r->interrupted, sb, sizeof sb), fin, fin == 1 ? "" : "s", r->n - fin);
    fflush(stdout);
}

static void print_times(const run *r)
{
    int last = 0;
    printf("kcontract: shard times:");
    for (int i = 0; i < r->n; i++) {
        printf("%s %d/%d %.2f s", i ? "," : "", r->c[i].k, r->n, r->c[i].t1 - r->c[i].t0);
        if (r->c[i].t1 > r->c[last].t1) last = i;
    }
    printf("; last to finish: %d/%d\n", r->c[last].k, r->n);
}

/* Merges and prints; returns the exit status. */
static int report(const run *r, const selection *s, double t0)
{
    kc_merge_want w = { r->n, r->o->seed, kc_filter_hash(r->o->patterns, r->o->npatterns), kc_binary_hash(),
                        s->ns, s->digest, s->slice_items, s->slice_digest };
    kc_tally t;
    char *err = malloc(65536), line[4096];
    if (!err) return 4;
    int problems = kc_merge(&w, r->outs, r->n, &t, err, 65536);
    if (problems) {
        printf("kcontract: the merge failed (%d problem%s); no merged TALLY or SUMMARY:\n", problems,
               problems == 1 ? "" : "s");
        for (char *p = err, *e; *p; p = e + (*e != 0)) {
            e = strchr(p, '\n');
            if (!e) e = p + strlen(p);
            printf("kcontract:   %.*s\n", (int)(e - p), p);
        }
        fflush(stdout);
        free(err);
        return 1;
    }
    free(err);
    print_times(r);
    if (kc_tally_format(&t, line, sizeof line) < 0) {
        fprintf(stderr, "kcontract: internal error: the merged TALLY does not fit\n");
        return 4;
    }
    printf("%s\n", line);
    kc_summary_format(&t, line, sizeof line);
    printf("%s  (%.1f s)\n", line, now_s() - t0);
    fflush(stdout);
    return kc_tally_exit_status(&t);
}

/* ---- kc_jobs_run ---- */

static void run_free(run *r)
{
    for (int i = 0; r->c && i < r->n; i++) {
        for (int s = 0; s < 2; s++) {
            if (r->c[i].fd[s] >= 0) close(r->c[i].fd[s]);
            kc_linebuf_free(&r->c[i].lb[s]);
        }
    }
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
        c->fd[0] = c->fd[1] = -1;
        c->out = &r->outs[k];
        c->device = d->ndevs ? d->dev[kc_shard_device_slot(k, d->ndevs)].ordinal : 0;
        kc_shard_out_init(c->out, k);
    }
    for (int k = 0; k < r->n; k++)
        if (kc_linebuf_init(&r->c[k].lb[0]) || kc_linebuf_init(&r->c[k].lb[1])) return -1;
    return 0;
}

/* Starts every child; on a failure, stops those already started. */
static int spawn_all(run *r)
{
    for (int k = 0; k < r->n; k++) {
        if (spawn(r->o, &r->c[k]) == 0) continue;
        r->failed = 1;
        for (int j = k; j < r->n; j++) r->c[j].judged = 1;    /* never started */
        char names[4096] = "";
        if (signal_live(r, SIGTERM, NULL, names, sizeof names)) {
            arm_kill(r);
            printf("kcontract: stopping shards %s\n", names);
        }
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
    kc_sigpipe sp;
    int rc = 4;
    if (!d || select_items(o, items, n, &s)) {
        fprintf(stderr, "kcontract: out of memory\n");
        goto out;
    }
    kc_plan plan;
    size_t avail;
    if ((rc = kc_jobs_probe_devices(o, s.gpu_items, d)) || (rc = check_plan(o, items, &s, d, &plan, &avail))) goto out;
    print_header(o, &s, d, &plan, avail);
    if (run_init(&r, o, d) || kc_sigpipe_install(&sp, 0) < 0) {
        fprintf(stderr, "kcontract: cannot set up the children: %s\n", strerror(errno));
        run_free(&r);
        rc = 4;
        goto out;
    }
    r.sig_r = sp.rfd;
    int started = spawn_all(&r) == 0;
    if (loop(&r)) {
        signal_live(&r, SIGKILL, NULL, NULL, 0);
        rc = 4;
    } else if (r.interrupted) {
        report_interrupted(&r);
        rc = 128 + r.interrupted;
    } else {
        rc = started ? report(&r, &s, t0) : 4;
    }
    kc_sigpipe_restore(&sp);
    run_free(&r);
out:
    selection_free(&s);
    free(d);
    return rc;
}
