/* item_run.c — one item, run in this process: the outcome, what it left
 * behind (processes; LEAK), the item's peak RSS; its line goes through the
 * reporter (reporter.h). */
#include "item_run.h"
#include "reporter.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "clock.h"
#include "line_text.h"
#include "rerun_env.h"
#include "strbuf.h"
#include "proctree.h"
#include "sanitize.h"
#include "sanitize_batch.h"
#include "suite.h"
#include "colour.h"
#include "progname.h"

#define KC_DETAIL_CAP 8192       /* the gates' further lines of one item, the cut marker included */

int kc_item_needs_gpu(const kc_item *it)
{
    return it->kind != KC_KIND_SUITE || it->suite->needs_gpu;
}

int kc_item_runs_sanitizer(const kc_item *it)
{
    return it->kind == KC_KIND_SANITIZE ||
           (it->kind == KC_KIND_CONTROL && it->control && it->control->gate == KC_GATE_SANITIZE);
}

/* Resets the peak RSS (VmHWM) by writing "5" to /proc/self/clear_refs.
 * Returns 0, or -1 when not possible (the item's peak is then unknown). */
static int rss_reset(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int ok = write(fd, "5", 1) == 1;
    close(fd);
    return ok ? 0 : -1;
}

/* VmHWM in KiB, -1 unknown. */
static long rss_peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    fclose(f);
    return kib;
}

void kc_rerun_command(const kc_opts *o, const char *name, int device, char *buf, size_t cap)
{
    kc_child_cmd cmd = { .kind = KC_ARGV_RERUN, .item = name, .device = device };
    kc_strvec words = KC_STRVEC_INIT;
    if (cap) buf[0] = 0;    /* out of memory: no command rather than a wrong one */
    if (kc_child_argv(&words, o, &cmd) == 0)
        kc_rerun_line((const char *const *)words.v, (int)words.n, o->env_get, NULL, buf, cap);
    kc_strvec_clear(&words);
}

/* Processes the item left running: given KC_LEAK_TIMEOUT_MS to end, then
 * killed and named in what (cap bytes; this process adopts orphans:
 * kc_proc_adopt_orphans). Those then ending are not its leftovers
 * (kc_proc_end_leftovers). Returns how many. */
static int leftovers(kc_san_pool *san, char *what, size_t cap)
{
    char who[400];
    pid_t keep[KC_SAN_POOL_PIDS];
    int nkeep = kc_san_pool_pids(san, keep);
    int n = kc_proc_end_leftovers(KC_LEAK_TIMEOUT_MS, keep, nkeep, who, sizeof who);
    if (n > 0)
        snprintf(what, cap, "%d process%s running after it: %s, still there %d ms after it ended; killed (SIGKILL)",
                 n, n == 1 ? "" : "es", who, KC_LEAK_TIMEOUT_MS);
    return n;
}

static void end_leftovers(kc_san_pool *san, kc_item_result *out)
{
    char what[512];
    if (leftovers(san, what, sizeof what) > 0) kc_result_left_behind(out, what);
}

void kc_note_predating(FILE *out)
{
    pid_t p[KC_PROC_MAX];
    int n = kc_proc_predating(p, KC_PROC_MAX);
    if (n <= 0) return;
    char who[400];
    kc_proc_describe(p, n < KC_PROC_MAX ? n : KC_PROC_MAX, who, sizeof who);
    kc_report_note(out, "%s, running in this process since before its first item (started before its items: by a "
                   "library's constructor, e.g. through LD_PRELOAD, or by such a process), %s no item's doing; no item "
                   "was blamed for %s\n", who, n == 1 ? "is" : "are", n == 1 ? "it" : "them");
}

void kc_note_ending(FILE *out, int at_end)
{
    char who[400];
    if (at_end) kc_proc_ending_settle(KC_ENDING_GRACE_MS);
    int n;
    while ((n = kc_proc_ending_overdue(KC_ENDING_GRACE_MS, who, sizeof who)) > 0)  /* up to KC_PROC_MAX a call */
        kc_report_note(out, "%s, which an item left ending, %s still ending %.1f s or more after its item; it runs "
                       "none of an item's code, so no item was blamed, and it is not killed (that would change "
                       "nothing)\n", who, n == 1 ? "is" : "are", KC_ENDING_GRACE_MS / 1000.0);
}

/* What the GPU item left in the context (gpu_state.h), on its outcome. */
static void check_gpu_state(kc_gpu *gpu, kc_gpu_watch *gw, kc_item_result *out)
{
    char what[1024], note[1100];
    if (out->context_lost) return;          /* replaced anyway */
    switch (kc_gpu_watch_after(gw, gpu, what, sizeof what)) {
    case KC_GPU_LEFT_LIMITS:                /* set back: the verdict stands, the process goes on */
        snprintf(note, sizeof note, "; %s", what);
        snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg), "%s", note);
        break;
    case KC_GPU_LEFT_ERROR:
        kc_result_left_behind(out, what);
        out->context_lost = KC_LOST_CONTEXT;
        break;
    case KC_GPU_LEFT_MEMORY:                /* the verdict stands; the process does not carry it on */
        snprintf(note, sizeof note, "; %s: this process is replaced", what);
        snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg), "%s", note);
        out->context_lost = KC_LOST_GPU_STATE;
        break;
    }
}

/* A worker's own stdout and stderr, kept at start (kc_item_keep_stdio); -1: not kept. */
static int kept_fd[2] = { -1, -1 };
/* Its result pipe (kc_item_keep_stdio), by descriptor and identity; fd -1: none. */
static struct { int fd; dev_t dev; ino_t ino; } result_pipe = { -1, 0, 0 };

void kc_item_keep_stdio(int result_fd)
{
    struct stat st;
    for (int i = 0; i < 2; i++)
        if (kept_fd[i] < 0) kept_fd[i] = fcntl(1 + i, F_DUPFD_CLOEXEC, 3);
    if (result_fd >= 0 && fstat(result_fd, &st) == 0)
        result_pipe.fd = result_fd, result_pipe.dev = st.st_dev, result_pipe.ino = st.st_ino;
}

/* Whether item `name`'s line may be printed: outside a worker always; in
 * one, only while its result pipe is the one it started with. An item that
 * closed it (as daemonizing code closes every descriptor above 2) leaves a
 * verdict that cannot reach the run, which then counts the item CRASH:
 * printing the verdict too made two state lines for one item (a red-team
 * found FAIL, then CRASH), so a note says it instead. */
static int line_may_print(const kc_opts *o, const char *name, const kc_item_result *r)
{
    struct stat st;
    if (!o->worker || result_pipe.fd < 0) return 1;
    if (fstat(result_pipe.fd, &st) == 0 && st.st_dev == result_pipe.dev && st.st_ino == result_pipe.ino) return 1;
    kc_say(stderr, "%s: the item closed or replaced the worker's result pipe, so its verdict (%s: %.300s) cannot "
           "reach the run, which counts the item CRASH\n", name, kc_state_name(r->state), r->msg);
    return 0;
}

/* Whether descriptors a and b are the same open file (pipe, tty, file). */
static int same_file(int a, int b)
{
    struct stat x, y;
    return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* After an item, before its line: stdout and stderr back on the worker's own
 * (an item that put /dev/null or a log file over them, as a library's
 * freopen does, would take every later item's line with it), and the line
 * started on a line of its own: the marker KC_LINE_MARK and a newline end
 * whatever the item printed without a newline, and the parent drops them
 * (queue.c); flushed before the result is sent. Only in a worker
 * (o->worker), whose stdout the parent reads. */
static void restore_stdio(const kc_opts *o)
{
    if (!o->worker) return;
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < 2; i++)
        if (kept_fd[i] >= 0 && !same_file(kept_fd[i], 1 + i)) {
            dup2(kept_fd[i], 1 + i);
            kc_say(stderr, "the item had put another file over its %s; the worker's own is back\n",
                    i ? "stderr" : "stdout");
        }
    clearerr(stdout);
    /* flushed now: it must reach the parent before the item's result does,
     * which the parent prints after what it has read (kc_sup_drain); left in
     * the buffer it came with the next item's output, so what this item
     * printed without a newline (a PASS of its own, even) came after its line */
    fputs(KC_LINE_MARK "\n", stdout);
    fflush(stdout);
}

void kc_item_fault_before(const char *name)
{
    const char *hang = getenv("KC_FAULT_HANG_ITEM");
    if (hang && strcmp(hang, name) == 0)
        for (;;) pause();
    const char *slow = getenv("KC_FAULT_SLOW_ITEM"), *at = slow ? strrchr(slow, '@') : NULL;
    if (at && (size_t)(at - slow) == strlen(name) && strncmp(slow, name, strlen(name)) == 0) {
        double s = atof(at + 1);
        if (s > 0 && s <= 60) usleep((useconds_t)(s * 1e6));
    }
    const char *wait = getenv("KC_FAULT_WAIT_FILE"), *path = wait ? strchr(wait, '@') : NULL;
    if (path && (size_t)(path - wait) == strlen(name) && strncmp(wait, name, strlen(name)) == 0)
        for (int i = 0; i < 3000 && access(path + 1, F_OK) != 0; i++) usleep(20 * 1000);
    const char *touch = getenv("KC_FAULT_TOUCH_FILE"), *tpath = touch ? strchr(touch, '@') : NULL;
    if (tpath && (size_t)(tpath - touch) == strlen(name) && strncmp(touch, name, strlen(name)) == 0) {
        int fd = open(tpath + 1, O_WRONLY | O_CREAT, 0600);
        if (fd >= 0) close(fd);
    }
}

void kc_item_fault_leave_child(const char *name)
{
    const char *leave = getenv("KC_FAULT_LEAVE_CHILD");
    if (!leave || strcmp(leave, name) != 0) return;
    if (fork() == 0) {          /* only async-signal-safe calls: the worker may have threads */
        sleep(30);
        _exit(0);
    }
}

int kc_item_fault_lose_context(const char *name)
{
    const char *list = getenv("KC_FAULT_LOSE_CONTEXT_AFTER");
    size_t n = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strcspn(p, ",") == n && strncmp(p, name, n) == 0) return 1;
    return 0;
}

void kc_item_fault_teardown(void)
{
    const char *env = getenv("KC_FAULT_TEARDOWN_S");
    double s = env ? atof(env) : 0;
    if (s > 0 && s <= 60) usleep((useconds_t)(s * 1e6));
}

void kc_item_run_batch(const kc_item *const *its, int n, const kc_opts *o, kc_san_pool *san, kc_item_result *outs,
                       int beside)
{
    const pid_t self = getpid();
    kc_proc_item_begin(beside);
    for (int i = 0; i < n; i++) {
        kc_item_fault_before(its[i]->name);
        kc_item_fault_leave_child(its[i]->name);
    }
    int rss_ok = rss_reset() == 0;
    double t0 = kc_now_s();
    memset(outs, 0, (size_t)n * sizeof *outs);     /* nothing of an earlier batch's results */
    for (int i = 0; i < n; i += KC_SAN_BATCH_ITEMS)
        kc_sanitize_batch(its + i, n - i < KC_SAN_BATCH_ITEMS ? n - i : KC_SAN_BATCH_ITEMS, o, san, outs + i);
    if (getpid() != self) _exit(127);      /* as kc_item_run_kept */
    const double share = (kc_now_s() - t0) / n;     /* for an item the gate did not time */
    const long rss = rss_ok ? rss_peak_kib() : -1;
    char what[512];     /* whose they are is not known: every item of the batch carries them */
    const int left = leftovers(san, what, sizeof what) > 0;
    restore_stdio(o);
    for (int i = 0; i < n; i++) {
        kc_item_result *out = &outs[i];
        if (out->seconds <= 0) out->seconds = share;
        out->peak_rss_kib = rss;
        if (left) kc_result_left_behind(out, what);
        if (kc_result_fails(out)) kc_rerun_command(o, its[i]->name, o->device, out->rerun, sizeof out->rerun);
        kc_result_escape(out);
        /* whose LEAK it is is not known: the queue runs it again alone
         * (queue_lanes.c), which prints the verdict; in a worker its parent
         * prints every other (kc_item_run_kept says why), a clean one once
         * this worker's end line came (worker.h) */
        if (o->worker) line_may_print(o, its[i]->name, out);
        else if (out->state != KC_LEAK) kc_item_print(its[i]->name, out, out->seconds, NULL, NULL);
    }
    kc_note_ending(stdout, 0);
}

int kc_item_line_waits_end(const kc_item *it, const kc_item_result *r)
{
    return it->kind == KC_KIND_SANITIZE && r->state == KC_PASS && kc_san_sessions_on();
}

void kc_item_run(kc_gpu *gpu, int have_gpu, const kc_item *it, const kc_opts *o, kc_gpu_watch *gw, kc_san_pool *san,
                 kc_item_result *out)
{
    kc_item_run_kept(gpu, have_gpu, it, o, gw, san, out, NULL, 0);
}

void kc_item_run_kept(kc_gpu *gpu, int have_gpu, const kc_item *it, const kc_opts *o, kc_gpu_watch *gw,
                      kc_san_pool *san, kc_item_result *out, char **kept, int beside)
{
    if (kept) *kept = NULL;
    memset(out, 0, sizeof *out);
    kc_item_fault_before(it->name);
    const pid_t self = getpid();
    kc_proc_item_begin(beside); /* what runs before the item is not its doing (proctree.h) */
    kc_item_fault_leave_child(it->name);
    int rss_ok = rss_reset() == 0;
    int watch = gw && have_gpu && kc_item_needs_gpu(it);
    if (watch) kc_gpu_watch_before(gw, gpu);
    double t0 = kc_now_s();
    char *detail = NULL;        /* the gates' further lines */
    kc_lines lines;
    if (kc_item_needs_gpu(it) && !have_gpu && gpu && gpu->broken) {
        /* not a machine without a GPU (exit 3, which a CI may accept): the
         * run's probe found the device, or refuses such a driver itself */
        out->state = it->kind == KC_KIND_CONTROL ? KC_MISSED : it->kind == KC_KIND_LIMIT ? KC_LIMIT : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "the CUDA driver or device does not work in this process: %.400s",
                 gpu->why);
    } else if (kc_item_needs_gpu(it) && !have_gpu) {
        out->state = KC_SKIP;
        snprintf(out->msg, sizeof out->msg, "no GPU");
    } else if (it->kind == KC_KIND_SUITE) {
        int rc = kc_suite_run(it->suite, have_gpu ? gpu : NULL, out->msg, sizeof out->msg);
        out->state = rc ? KC_FAIL : KC_PASS;
        if (!rc) snprintf(out->msg, sizeof out->msg, "suite passed");
    } else if (it->kind == KC_KIND_SANITIZE) {
        kc_sanitize_item(it, o, san, "", out);
    } else if (!(detail = malloc(KC_DETAIL_CAP))) {
        out->state = it->kind == KC_KIND_CONTROL ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "internal error: out of host memory");
    } else {
        kc_lines_init(&lines, detail, KC_DETAIL_CAP);
        /* A control planted for the sanitizer: its sessions start now, and
         * their start overlaps its gates 1-4 (sanitize.h) */
        if (it->kind == KC_KIND_CONTROL && kc_item_runs_sanitizer(it)) kc_sanitize_ahead(o, san, 1);
        kc_run_gpu_item(gpu, it, o->seed, o->reference, o, out, &lines);
        /* A control planted for the sanitizer that gates 1-4 passed cleanly
         * (every case run, none failing, the context intact) goes on to it. */
        if (it->kind == KC_KIND_CONTROL && kc_item_runs_sanitizer(it) && out->state == KC_MISSED &&
            out->cases > 0 && out->cases_failed == 0 && !out->context_lost) {
            char gates[64];
            snprintf(gates, sizeof gates, "gates 1-4 passed all %d cases", out->cases);
            kc_sanitize_item(it, o, san, gates, out);
        }
    }
    /* A fork under the item whose child returned into this code (an exec that
     * failed, a helper's error path without _exit) is a copy of this process:
     * it must not print, count or report the item as if it were the run's. */
    if (getpid() != self) _exit(127);
    out->seconds = kc_now_s() - t0;
    out->peak_rss_kib = rss_ok ? rss_peak_kib() : -1;
    end_leftovers(san, out);
    if (watch) check_gpu_state(gpu, gw, out);
    if (kc_result_fails(out))     /* CRASH and TIMEOUT here: a sanitizer run's */
        kc_rerun_command(o, it->name, o->device, out->rerun, sizeof out->rerun);
    if (out->rerun[0] && out->block_size && !o->block_size)   /* the failing launch variant alone */
        kc_strcatf(out->rerun, sizeof out->rerun, " --block-size %u", out->block_size);
    kc_result_escape(out);        /* the line, the worker's result line and the record say the same */
    restore_stdio(o);
    if (kc_item_fault_lose_context(it->name)) out->context_lost = KC_LOST_CONTEXT;
    /* On a GPU other workers share, a verdict reached with the context lost
     * is not known to be this item's until the parent has seen what ran
     * beside it (queue_holds.c): the parent prints it, or runs it again.
     * So is a clean :sanitize verdict, once this worker's end line vouched
     * for the sessions that gave it (worker.h, queue_vouch.c). */
    /* A worker never prints an item's line: it sends it on the result line
     * (result_line.h), and its parent prints the verdict it takes, or its
     * own (TIMEOUT, CRASH) when none came. A line printed here before the
     * result was taken made two state lines for one item when the item's
     * time limit ran out in between (SKIP, then TIMEOUT: a new user's
     * find). The same for a --gpu-shared verdict with the context lost,
     * which the parent decides, and a clean :sanitize verdict, which waits
     * for this worker's end line (queue_holds.c, queue_vouch.c). */
    if (kept && (o->worker || (o->gpu_shared && out->context_lost == KC_LOST_CONTEXT))) {
        if (o->worker) line_may_print(o, it->name, out);   /* a note when the verdict cannot reach the run */
        *kept = detail;
        return;
    }
    if (line_may_print(o, it->name, out)) kc_item_print(it->name, out, out->seconds, detail, NULL);
    free(detail);
    kc_note_ending(stdout, 0);
}
