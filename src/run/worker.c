/* worker.c — owns a work-queue worker: reads item names on stdin, runs each
 * in this process (the CUDA context opened once, at the first GPU item or
 * when asked to open it ahead),
 * prints its line as a serial run does, and reports one result line per item
 * on fd 3 (worker.h; the line's format and parser: result_line.c). */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit_guard.h"
#include "gates.h"
#include "gpu_open.h"
#include "inflight.h"
#include "item_run.h"
#include "proctree.h"
#include "progname.h"
#include "sanitize.h"
#include "worker_lanes.h"

/* ---- the worker ---- */

/* Opens the CUDA context unless it was tried already (*gpu_state 0). */
static void open_gpu(kc_gpu *gpu, int *gpu_state, const kc_opts *o)
{
    if (*gpu_state == 0) *gpu_state = kc_gpu_open(gpu, o->device) == 0 ? 1 : -1;
}

/* Runs one item as the serial runner does (item_run.c) into *r; the CUDA
 * context is opened at the first GPU item, or before (KC_REQUEST_OPEN). */
static void run_one(kc_gpu *gpu, int *gpu_state, kc_gpu_watch *gw, kc_san_pool *san, const kc_item *it,
                    const kc_opts *o, kc_item_result *r, char **kept)
{
    if (kc_item_needs_gpu(it)) open_gpu(gpu, gpu_state, o);
    kc_item_run_kept(gpu, *gpu_state == 1, it, o, gw, san, r, kept, 0);
}

const kc_item *kc_worker_find_item(const kc_item *items, int n, const char *name)
{
    int lo = 0, hi = n;
    while (lo < hi) {                       /* items are sorted by name */
        int mid = (lo + hi) / 2, d = strcmp(items[mid].name, name);
        if (d == 0) return &items[mid];
        if (d < 0) lo = mid + 1;
        else hi = mid;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(items[i].name, name) == 0) return &items[i];
    return NULL;
}

/* The result pipe moved out of an item's reach (worker.h): to a descriptor
 * of its own, closed on exec, with /dev/null left on fd 3 (so an item or a
 * helper writing "its" result there writes to nothing, and nothing else
 * opened later lands on fd 3). Returns the new descriptor, or -1. */
static int hide_result_pipe(void)
{
    int fd = fcntl(KC_RESULT_FD, F_DUPFD_CLOEXEC, 64);     /* out of the low descriptors items open */
    if (fd < 0) fd = fcntl(KC_RESULT_FD, F_DUPFD_CLOEXEC, KC_RESULT_FD + 1);   /* ulimit -n <= 64 */
    if (fd < 0) return -1;
    int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (nul < 0 || dup2(nul, KC_RESULT_FD) < 0) {
        close(fd);
        if (nul >= 0) close(nul);
        return -1;
    }
    close(nul);
    return fd;
}

int kc_worker_write_all(int fd, const char *buf, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        off += (size_t)w;
    }
    return 0;
}

/* Test hook KC_FAULT_WORKER_START=slow:<s>:<mark> (worker.h): the worker
 * that creates file <mark> starts at once, every later one <s> seconds
 * late. */
static void slow_start(const char *arg)
{
    char *end;
    double s = strtod(arg, &end);
    if (*end != ':' || !(s > 0 && s <= 60)) return;
    int fd = open(end + 1, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
    else usleep((useconds_t)(s * 1e6));
}

int kc_worker_say_ended(int rfd)
{
    static const char ended[] = KC_RESULT_ENDED "\n";
    return kc_worker_write_all(rfd, ended, sizeof ended - 1);
}

int kc_worker_say_untrusted(int rfd)
{
    static const char said[] = KC_RESULT_UNTRUSTED "\n";
    return kc_worker_write_all(rfd, said, sizeof said - 1);
}

/* The worker's sessions end and their summaries are checked; when they
 * vouch and nothing failed before (rc 0) the end line is written, before
 * anything that may take long (a lost context's teardown): the line is
 * their word (worker.h), and a slow end after it takes nothing from it.
 * Returns the exit status: rc, or KC_WORKER_UNTRUSTED (said on stdout: the
 * parent fails the run). */
static int end_sessions(kc_san_pool *san, int rc, int rfd)
{
    char why[KC_SAN_WHY_MAX];
    if (kc_san_pool_free(san, why, sizeof why) && rc == 0) {
        kc_say(stdout, "%s\n", why);
        fflush(stdout);
        kc_worker_say_untrusted(rfd);       /* the status is its word only with this line */
        return KC_WORKER_UNTRUSTED;
    }
    if (rc == 0) kc_worker_say_ended(rfd);
    return rc;
}

int kc_worker_run(const kc_opts *o, const kc_item *items, int n)
{
    if (fcntl(KC_RESULT_FD, F_GETFD) < 0) {
        kc_say(stderr, "--worker: no result pipe on fd %d (internal option of a --jobs parent)\n", KC_RESULT_FD);
        return 2;
    }
    int rfd = hide_result_pipe();
    if (rfd < 0) {
        kc_say(stderr, "--worker: cannot move the result pipe off fd %d: %s\n", KC_RESULT_FD, strerror(errno));
        return 4;
    }
    kc_exit_guard_arm("starting a worker", 0);     /* its parent judges an exit(0): keep the status */
    kc_item_keep_stdio(rfd);    /* an item that replaces stdout cannot take later lines with it */
    kc_proc_adopt_orphans();    /* what an item leaves running becomes ours, to end (item_run.h) */
    const char *fault = getenv("KC_FAULT_WORKER_START");      /* test hook (worker.h) */
    if (fault && strcmp(fault, "exit") == 0) return 3;
    if (fault && strncmp(fault, "slow:", 5) == 0) slow_start(fault + 5);
    static const char ready[] = KC_RESULT_READY "\n";
    if (kc_worker_write_all(rfd, ready, sizeof ready - 1)) return 4;   /* the parent is gone */
    kc_san_pool *san = kc_san_pool_new();   /* NULL (out of memory): each item alone */
    int rc = 0;
    if (o->inflight > 1) {          /* items side by side on threads (worker_lanes.h) */
        rc = kc_worker_lanes(o, items, n, rfd, san);
        goto end;
    }
    kc_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    int gpu_state = 0;          /* 0 not opened, 1 ready, -1 no GPU */
    int lost = 0;               /* the last item left the context unusable */
    kc_gpu_watch gw;            /* what items leave in the context (gpu_state.h) */
    kc_gpu_watch_init(&gw);
    static char out[KC_RESULT_LINE_CAP + KC_NONCE_LEN + 1];
    char name[512], what[600];
    kc_exit_guard_what("waiting for an item (worker)");
    while (fgets(name, sizeof name, stdin)) {
        name[strcspn(name, "\r\n")] = 0;
        int ahead;
        const unsigned marks = kc_request_marks(name, &ahead);
        if (marks & KC_REQUEST_OPEN_BIT) {
            open_gpu(&gpu, &gpu_state, o);
            /* a standby's early open that failed (another context holds
             * the device, its memory is full now) is tried again at its
             * first GPU item, which then says why, as any worker's */
            if (gpu_state == -1) gpu_state = 0;
            else if (marks & KC_REQUEST_AHEAD_BIT) kc_sanitize_ahead(o, san, ahead);  /* a standby's (queue_standby.c) */
        }
        if (!name[0]) continue;
        const kc_item *it = kc_worker_find_item(items, n, name);
        if (!it) {
            kc_say(stderr, "--worker: no item named '%s'\n", name);
            rc = 4;
            break;
        }
        kc_item_result r;
        snprintf(what, sizeof what, "running item %s", it->name);
        kc_exit_guard_what(what);
        if ((marks & KC_REQUEST_AHEAD_BIT) && gpu_state != -1) kc_sanitize_ahead(o, san, ahead);
        char *kept = NULL;     /* the lines under a verdict its parent prints (item_run.h) */
        run_one(&gpu, &gpu_state, &gw, san, it, o, &r, &kept);
        kc_exit_guard_what("between items (worker)");
        /* The item is over: ask for its nonce (worker.h), which did not exist
         * in this process while the item ran. */
        char done[600], nonce[64];
        int dl = snprintf(done, sizeof done, "%s\t%s\n", KC_RESULT_DONE, it->name);
        if (kc_worker_write_all(rfd, done, (size_t)dl) || !fgets(nonce, sizeof nonce, stdin)) {   /* the parent is gone */
            free(kept);
            rc = 4;
            break;
        }
        nonce[strcspn(nonce, "\r\n")] = 0;
        if (strlen(nonce) != KC_NONCE_LEN) {
            kc_say(stderr, "--worker: expected the nonce of %s, got '%s'\n", it->name, nonce);
            free(kept);
            rc = 4;
            break;
        }
        memcpy(out, nonce, KC_NONCE_LEN);
        out[KC_NONCE_LEN] = '\t';
        int len = kc_result_format_detail(it->name, &r, kept, out + KC_NONCE_LEN + 1, sizeof out - KC_NONCE_LEN - 1);
        free(kept);
        if (len < 0) {
            rc = 4;
            break;
        }
        if (kc_worker_write_all(rfd, out, (size_t)len + KC_NONCE_LEN + 1)) {   /* the parent is gone */
            rc = 4;
            break;
        }
        if (r.context_lost) {         /* rc: see above; context_lost: a fresh worker takes over */
            lost = 1;
            break;
        }
    }
    rc = end_sessions(san, rc, rfd);    /* before the lost context's teardown, which may take long */
    if (lost) kc_item_fault_teardown();     /* test hook (item_run.h) */
    if (gpu_state == 1) kc_gpu_close(&gpu);
    kc_note_predating(stdout);  /* processes no item started (LD_PRELOAD's), never blamed: said once */
    kc_note_ending(stdout, 1);  /* processes items left ending: waited for, or named */
    return rc;
end:                            /* the lanes' (their context closed, or left to the exit after a loss) */
    kc_note_predating(stdout);
    kc_note_ending(stdout, 1);
    return end_sessions(san, rc, rfd);
}
