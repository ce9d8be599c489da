/* worker_lanes.c — owns a worker's lanes (worker_lanes.h): K threads that
 * run items side by side on the worker's one CUDA context, and the main
 * thread that hands them items, runs the items that go alone, and speaks
 * the protocol of several items open (inflight.h) on the result pipe. */
#include "worker_lanes.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "exit_guard.h"
#include "gates.h"
#include "gpu_open.h"
#include "gpu_state.h"
#include "guarded_alloc.h"
#include "inflight.h"
#include "inputs.h"
#include "item_run.h"
#include "progname.h"
#include "proctree.h"
#include "result.h"
#include "result_line.h"
#include "sanitize.h"
#include "strbuf.h"

#define KC_LANE_DETAIL_CAP 8192     /* as item_run.c's KC_DETAIL_CAP */

/* One lane: a thread with its view of the session; lane k is the main
 * thread's own, for the items that go alone, and lanes k+1 .. 2k hold the
 * :sanitize items handed for a batch, which the main thread runs together
 * at the queue's GO (inflight.h, KC_REQUEST_GO), or an item the main thread
 * ran while lane k's still waits for its nonce (main_lane). */
typedef struct lane {
    pthread_t th;
    int started;
    kc_gpu *g;                  /* its view of the session once opened (under mu), NULL before and after */
    const kc_item *it;          /* its item, NULL free */
    int done;                   /* its item is over: r holds the result (set by the lane, under mu) */
    int said_done;              /* DONE written; its nonce awaited */
    kc_item_result r;
    int lost;                   /* the item lost the context (every lane's) */
    char *detail;               /* the gates' further lines of its item (malloc'd; NULL none) */
    char *kept;                 /* the main thread's item: the lines under a verdict its parent prints
                                 * (kc_item_run_kept), sent on its result line; NULL none */
    const char *beside;         /* what the worker found while its item was in flight (leftovers_in_flight,
                                 * limits_in_flight), which its result carries; NULL nothing */
} lane;

typedef struct lanes {
    const kc_opts *o;
    kc_gpu base;
    kc_gpu_watch gw;            /* the GPU-state watch: of the items run alone, and the context's limits */
    int gpu_state;              /* 0 not opened, 1 ready, -1 no GPU */
    int k;
    lane l[2 * KC_INFLIGHT_MAX + 1];
    pthread_mutex_t mu;
    pthread_cond_t go;
    int quit;
    int wake[2];                /* a lane's completion: one byte on wake[1] */
} lanes;

typedef struct lane_arg {
    lanes *ls;
    int i;
} lane_arg;

/* A lane's item run on its view g: as kc_item_run does for a kernel item or
 * control, less what belongs to the process (its RSS, leftover processes,
 * the GPU-state watch, stdio: the worker's, at its items run alone and as
 * each item in flight is over: leftovers_in_flight, limits_in_flight,
 * held_on_purpose, docs). Its line
 * is printed by the parent (keep_over): an item over after a neighbour
 * lost the context is never said over, so never sent. Returns the gates'
 * further lines (malloc'd, or NULL). */
static char *lane_item(kc_gpu *g, const kc_item *it, const kc_opts *o, kc_item_result *out, int *lost)
{
    memset(out, 0, sizeof *out);
    kc_item_fault_before(it->name);
    kc_item_fault_leave_child(it->name);
    char *detail = malloc(KC_LANE_DETAIL_CAP);
    double t0 = kc_now_s();
    if (!detail) {
        out->state = it->kind == KC_KIND_CONTROL ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "internal error: out of host memory");
    } else {
        kc_lines lines;
        kc_lines_init(&lines, detail, KC_LANE_DETAIL_CAP);
        kc_run_gpu_item(g, it, o->seed, o->reference, o, out, &lines);
    }
    /* The lanes' stream-ordered pool keeps what an item freed (its release
     * threshold is the maximum, so no case waits for memory to be mapped
     * again). Once the item is over that memory goes back to the device: a
     * pool that kept every item's largest case held 61 GB of the H200 in one
     * worker, which the memory plan does not count, and other processes
     * (workers, sanitizer sessions) then failed with out of memory. With
     * guarded buffers (guarded_alloc.h) the pool holds only the buffers
     * that found no address space for their gaps; the guarded ones an item
     * freed are unmapped, or kept mapped up to KC_GUARD_KEEP a worker. */
    if (!g->lost && kc_cuda_sync(&g->cu, 0) == CUDA_SUCCESS) kc_cuda_trim(&g->cu);
    out->seconds = kc_now_s() - t0;
    out->peak_rss_kib = -1;         /* the process's, shared with its neighbours */
    if (kc_item_fault_lose_context(it->name)) out->context_lost = KC_LOST_CONTEXT;     /* test hook (item_run.h) */
    if (g->lost && !out->context_lost) out->context_lost = KC_LOST_CONTEXT;
    *lost = out->context_lost != 0;
    if (kc_result_fails(out)) kc_rerun_command(o, it->name, o->device, out->rerun, sizeof out->rerun);
    if (out->rerun[0] && out->block_size && !o->block_size)
        kc_strcatf(out->rerun, sizeof out->rerun, " --block-size %u", out->block_size);
    return detail;              /* escaped once it is said over (lane_result_over) */
}

/* Processes left running in the worker once lane i's item is over: which
 * item started them is not known (a lane has no process of its own; lane
 * i's item or one not yet said over), so they get the time to end that an
 * item run alone gets (KC_LEAK_TIMEOUT_MS), are killed and named on this
 * worker's stderr, and every one of those items whose verdict would stand
 * carries them: a kernel's PASS (or KNOWN) becomes LEAK, which is not final
 * in flight, so it runs again alone and that run, with its own check,
 * decides (queue_neighbours.c). A control's verdict is left as it is: as
 * alone, processes left running never change it. The worker's sanitizer
 * sessions are its own. Called under ls->mu. */
static void leftovers_in_flight(lanes *ls, kc_san_pool *san, int i)
{
    pid_t keep[KC_SAN_POOL_PIDS];
    char who[400];
    int n = kc_proc_end_leftovers(KC_LEAK_TIMEOUT_MS, keep, kc_san_pool_pids(san, keep), who, sizeof who);
    kc_note_ending(stderr, 0);
    if (n <= 0) return;
    int beside = 0;
    for (int j = 0; j < ls->k; j++) {
        lane *l = &ls->l[j];
        if (!l->it || (j != i && l->said_done)) continue;      /* over and checked before they were there */
        if (j != i) beside++;
        if (!l->beside)
            l->beside = "processes running in this worker while it was in flight (named on the worker's line; killed), "
                        "which it or an item beside it started";
    }
    kc_say(stderr, "%d process%s running in this worker after %s, still there %d ms after it ended: %s; killed "
           "(SIGKILL); %s\n", n, n == 1 ? " was" : "es were", ls->l[i].it->name, KC_LEAK_TIMEOUT_MS, who,
           beside ? "it or an item in flight beside it started them: each of those kernels that passed runs again "
                    "alone" : "nothing else was in flight: it started them, and if it passed it runs again alone");
}

/* A context limit changed once lane i's item is over (gpu_state.h): which
 * item changed it is not known (lane i's or one not yet said over), and
 * any of their verdicts may have come with it, so it is set back, named on
 * this worker's stderr, and every one of those items whose verdict would
 * stand carries it, as leftover processes (leftovers_in_flight): a
 * kernel's PASS or KNOWN becomes LEAK, not final in flight, and a run
 * alone, with the limits its own, decides. One the driver will not set
 * back ends the worker as a lost context does (KC_LOST_GPU_STATE), so
 * every item beside runs again alone. Called under ls->mu: six
 * cuCtxGetLimit calls each time, and cuCtxSetLimit, which may wait for the
 * device's work, only when a limit changed (the lanes then wait for the
 * lock as they end; their GPU work never needs it). */
static void limits_in_flight(lanes *ls, int i)
{
    char what[1024];
    int found = kc_gpu_watch_limits(&ls->gw, &ls->base, 0, what, sizeof what);
    if (found == KC_GPU_LEFT_NOTHING) return;
    /* Every item not yet said over (the neighbours' rule alone would send
     * back the others beside a marked one: queue_neighbours.c) */
    for (int j = 0; j < ls->k; j++) {
        lane *l = &ls->l[j];
        if (!l->it || (j != i && l->said_done)) continue;
        if (!l->beside)
            l->beside = found == KC_GPU_LEFT_MEMORY
                ? "a CUDA context limit changed while it was in flight (named on the worker's line; not set back), "
                  "by it or an item beside it"
                : "a CUDA context limit changed while it was in flight (named on the worker's line; set back), by it "
                  "or an item beside it";
    }
    if (found == KC_GPU_LEFT_MEMORY) {
        if (!ls->l[i].r.context_lost) ls->l[i].r.context_lost = KC_LOST_GPU_STATE;
        ls->l[i].lost = 1;
    }
    kc_say(stderr, "after %s (in flight): %s; it or an item in flight beside it changed %s: each of those kernels "
           "that passed runs again alone%s\n", ls->l[i].it->name, what, strchr(what, ';') ? "them" : "it",
           found == KC_GPU_LEFT_MEMORY ? ", and this process is replaced" : "");
}

/* Lane l's result once its item is over: escaped for its line, and, when
 * the worker found something while it was in flight (leftover processes,
 * a changed limit), a kernel's PASS or KNOWN made LEAK. */
static void lane_result_over(lane *l)
{
    if (l->beside && (l->r.state == KC_PASS || l->r.state == KC_KNOWN)) kc_result_left_behind(&l->r, l->beside);
    kc_result_escape(&l->r);
}

/* Lane l's item is said over: a final verdict's lines go on its result
 * line (kept), for the parent to print once the items beside it let it
 * stand (queue_neighbours.c); a verdict not final is decided by a run
 * alone, so its lines go nowhere. */
static void keep_over(lane *l)
{
    if (kc_inflight_final(l->it, &l->r)) {
        l->kept = l->detail;
        l->detail = NULL;
    }
    free(l->detail);
    l->detail = NULL;
}

static void *lane_main(void *arg)
{
    lanes *ls = ((lane_arg *)arg)->ls;
    int i = ((lane_arg *)arg)->i;
    free(arg);
    lane *l = &ls->l[i];
    kc_gpu g;
    int open_rc = kc_gpu_open_lane(&g, &ls->base, KC_INPUT_CACHE_BYTES / (size_t)ls->k);
    pthread_mutex_lock(&ls->mu);
    l->g = open_rc ? NULL : &g;
    pthread_mutex_unlock(&ls->mu);
    for (;;) {
        pthread_mutex_lock(&ls->mu);
        while (!ls->quit && (!l->it || l->done)) pthread_cond_wait(&ls->go, &ls->mu);
        const kc_item *it = ls->quit ? NULL : l->it;
        pthread_mutex_unlock(&ls->mu);
        if (!it) break;
        kc_item_result r;
        int lost = 0;
        char what[600], *detail = NULL;
        snprintf(what, sizeof what, "running item %s (in flight)", it->name);
        kc_exit_guard_thread_what(what);
        if (open_rc) {
            memset(&r, 0, sizeof r);
            r.state = it->kind == KC_KIND_CONTROL ? KC_MISSED : KC_FAIL;
            r.peak_rss_kib = -1;
            snprintf(r.msg, sizeof r.msg, "internal error: the worker's lane could not be opened: %s", g.why);
        } else {
            detail = lane_item(&g, it, ls->o, &r, &lost);
        }
        kc_exit_guard_thread_what(NULL);
        pthread_mutex_lock(&ls->mu);
        l->r = r;
        l->lost = lost;
        l->detail = detail;
        l->done = 1;
        pthread_mutex_unlock(&ls->mu);
        ssize_t w;
        do w = write(ls->wake[1], "x", 1);
        while (w < 0 && errno == EINTR);
    }
    pthread_mutex_lock(&ls->mu);
    l->g = NULL;
    pthread_mutex_unlock(&ls->mu);
    if (!open_rc) kc_gpu_close_lane(&g);
    return NULL;
}

/* The device memory the worker's lanes keep on purpose between items, in
 * bytes: their input caches (inputs.h) and the freed guarded buffers the
 * session keeps mapped (guarded_alloc.h). The GPU-state watch of the items
 * run alone leaves it out (gpu_state.h), as a serial process's watch
 * leaves out its own inputs. */
static size_t held_on_purpose(void *ctx)
{
    lanes *ls = ctx;
    size_t n = kc_guard_kept_bytes(&ls->base.cu);
    pthread_mutex_lock(&ls->mu);
    for (int i = 0; i < ls->k; i++)
        if (ls->l[i].g) n += kc_inputs_held(ls->l[i].g->inputs);
    pthread_mutex_unlock(&ls->mu);
    return n;
}

/* Nonzero when a lane's item is still running (not yet over). */
static int running_in_flight(lanes *ls)
{
    int n = 0;
    pthread_mutex_lock(&ls->mu);
    for (int i = 0; i < ls->k; i++) n += ls->l[i].it && !ls->l[i].done;
    pthread_mutex_unlock(&ls->mu);
    return n;
}

/* Opens the context with the per-thread stream table and starts the lanes
 * (at the first GPU item). */
static void open_gpu(lanes *ls)
{
    if (ls->gpu_state) return;
    ls->gpu_state = kc_gpu_open_streams(&ls->base, ls->o->device, 1) == 0 ? 1 : -1;
    if (ls->gpu_state != 1) return;
    char none[8];
    kc_gpu_watch_limits(&ls->gw, &ls->base, 0, none, sizeof none);  /* the limits as the context starts */
    for (int i = 0; i < ls->k; i++) {
        lane_arg *a = malloc(sizeof *a);
        if (!a) continue;
        *a = (lane_arg){ ls, i };
        if (pthread_create(&ls->l[i].th, NULL, lane_main, a) == 0) ls->l[i].started = 1;
        else free(a);
    }
}

/* One line from fd 0 into line (no '\n'): 1, 0 at end of input, -1 no
 * complete line buffered yet (after reading what was there). */
typedef struct rdbuf {
    char b[8192];
    size_t n;
    int eof;
} rdbuf;

static int next_line(rdbuf *rb, char *line, size_t cap)
{
    char *nl = memchr(rb->b, '\n', rb->n);
    if (!nl) {
        if (rb->n == sizeof rb->b) nl = rb->b + rb->n - 1;      /* an overlong line: cut */
        else return rb->eof ? 0 : -1;
    }
    size_t len = (size_t)(nl - rb->b);
    snprintf(line, cap, "%.*s", (int)len, rb->b);
    line[strcspn(line, "\r")] = 0;
    memmove(rb->b, nl + 1, rb->n - len - 1);
    rb->n -= len + 1;
    return 1;
}

/* Lanes in all: the threads', the main thread's, the batch's. */
static int nslots(const lanes *ls) { return 2 * ls->k + 1; }

static int busy(const lanes *ls)
{
    int b = 0;
    for (int i = 0; i < nslots(ls); i++) b += ls->l[i].it != NULL;
    return b;
}

/* The lane of an item the main thread runs (one handed alone, one that may
 * not go in flight, any without a GPU): lane k, or while that one's item
 * waits for its nonce, a free batch lane. Items handed in flight go there
 * too when the worker has no GPU (none on the machine, or its context did
 * not open), one after another before their nonces come: each over lane k
 * lost the one before it, whose result never came, and the run waited for
 * it until its time limit. The queue keeps at most k items open here, so
 * one of lanes k .. 2k is free; NULL when none is (the queue's bug). */
static lane *main_lane(lanes *ls)
{
    for (int b = ls->k; b < nslots(ls); b++)
        if (!ls->l[b].it) return &ls->l[b];
    return NULL;
}

/* A :sanitize item handed for a batch: kept in a batch lane until the
 * queue's GO. 0, or -1 when every batch lane holds one (the queue's bug). */
static int batch_keep(lanes *ls, const kc_item *it)
{
    int b = ls->k + 1;
    while (b < nslots(ls) && ls->l[b].it) b++;
    if (b == nslots(ls)) return -1;
    ls->l[b].it = it;
    ls->l[b].done = ls->l[b].said_done = 0;
    ls->l[b].lost = 0;
    return 0;
}

/* The queue's GO: the items kept for a batch run now, on this thread
 * (their lines go on their result lines, which the parent prints), and are over. Without a GPU each
 * runs as an item that goes alone (SKIP). */
static void batch_run(lanes *ls, kc_san_pool *san)
{
    const kc_item *its[KC_INFLIGHT_MAX];
    static kc_item_result outs[KC_INFLIGHT_MAX];
    int at[KC_INFLIGHT_MAX], n = 0;
    for (int b = ls->k + 1; b < nslots(ls); b++)
        if (ls->l[b].it && !ls->l[b].done) at[n] = b, its[n++] = ls->l[b].it;
    if (!n) return;
    kc_exit_guard_what("running a batch of :sanitize items");
    if (ls->gpu_state == 1) {
        kc_item_run_batch(its, n, ls->o, san, outs, running_in_flight(ls));
    } else {
        for (int i = 0; i < n; i++) {
            free(ls->l[at[i]].kept);    /* the lines of its verdict, sent on its result line */
            ls->l[at[i]].kept = NULL;
            kc_item_run_kept(&ls->base, 0, its[i], ls->o, NULL, san, &outs[i], &ls->l[at[i]].kept,
                             running_in_flight(ls));
        }
    }
    kc_exit_guard_what("waiting for items (worker with lanes)");
    for (int i = 0; i < n; i++) {
        ls->l[at[i]].r = outs[i];
        ls->l[at[i]].done = 1;
    }
}

int kc_worker_lanes(const kc_opts *o, const kc_item *items, int n, int rfd, kc_san_pool *san)
{
    static lanes S;             /* large: not on the stack */
    lanes *ls = &S;
    memset(ls, 0, sizeof *ls);
    ls->o = o;
    ls->k = o->inflight;
    pthread_mutex_init(&ls->mu, NULL);
    pthread_cond_init(&ls->go, NULL);
    if (pipe(ls->wake)) {
        kc_say(stderr, "--worker: cannot make a pipe for its lanes: %s\n", strerror(errno));
        return 4;
    }
    rdbuf rb = { .n = 0 };
    static char out[KC_RESULT_LINE_CAP + KC_NONCE_LEN + 1];
    char line[1024], name[512], nonce[KC_NONCE_LEN + 1], err[300];
    int rc = 0, stopping = 0;
    /* The GPU-state watch of the items run alone, as a worker of one item at
     * a time has for each (gpu_state.h): with nothing in flight beside them,
     * an error left pending and memory left allocated are theirs (growth
     * since the first is not compared: gpu_state.h, also_held); and the
     * context's limits, checked too as each item in flight is over
     * (limits_in_flight). */
    kc_gpu_watch_init(&ls->gw);
    ls->gw.also_held = held_on_purpose;
    ls->gw.also_held_ctx = ls;
    kc_exit_guard_what("waiting for items (worker with lanes)");
    for (;;) {
        /* The lanes' completions: DONE for each, unless the worker stops. */
        pthread_mutex_lock(&ls->mu);
        for (int i = 0; i < nslots(ls); i++) {
            lane *l = &ls->l[i];
            if (!l->it || !l->done || l->said_done || stopping) continue;
            if (i < ls->k) {                /* the main thread's own items printed their lines already */
                leftovers_in_flight(ls, san, i);
                limits_in_flight(ls, i);
                lane_result_over(l);
                keep_over(l);
            }
            int dl = snprintf(line, sizeof line, "%s\t%s\n", KC_RESULT_DONE, l->it->name);
            if (kc_worker_write_all(rfd, line, (size_t)dl)) rc = 4;
            l->said_done = 1;
            if (l->lost) stopping = 1;      /* no more items; the others stay undecided */
        }
        pthread_mutex_unlock(&ls->mu);
        if (rc) break;
        int sealing = 0;
        for (int i = 0; i < nslots(ls); i++) sealing += ls->l[i].said_done;
        if (stopping && !sealing) break;
        if (rb.eof && !busy(ls)) break;
        struct pollfd pf[2] = { { .fd = 0, .events = POLLIN }, { .fd = ls->wake[0], .events = POLLIN } };
        int lines_ready = memchr(rb.b, '\n', rb.n) != NULL || rb.n == sizeof rb.b;
        if (!lines_ready) {
            if (poll(rb.eof ? pf + 1 : pf, rb.eof ? 1 : 2, -1) < 0 && errno != EINTR) {
                rc = 4;
                break;
            }
            char junk[64];
            if (pf[1].revents & POLLIN) {
                ssize_t r = read(ls->wake[0], junk, sizeof junk);
                (void)r;
            }
            if (!rb.eof && (pf[0].revents & (POLLIN | POLLHUP))) {
                ssize_t r = read(0, rb.b + rb.n, sizeof rb.b - rb.n);
                if (r > 0) rb.n += (size_t)r;
                else if (r == 0 || errno != EINTR) rb.eof = 1;
            }
        }
        int got;
        while ((got = next_line(&rb, line, sizeof line)) == 1) {
            int ahead;
            const unsigned marks = kc_request_marks(line, &ahead);
            if (marks & KC_REQUEST_OPEN_BIT) open_gpu(ls);
            if ((marks & KC_REQUEST_GO_BIT) && !stopping) batch_run(ls, san);
            if (!line[0]) continue;
            const int alone = (marks & KC_REQUEST_ALONE_BIT) != 0;
            int kind = kc_inflight_worker_line(line, name, sizeof name, nonce, err, sizeof err);
            if (kind < 0) {
                kc_say(stderr, "--worker: %s\n", err);
                rc = 4;
                break;
            }
            if (kind == 1) {                /* the nonce of an item it said DONE */
                int i = 0;
                while (i < nslots(ls) && !(ls->l[i].said_done && strcmp(ls->l[i].it->name, name) == 0)) i++;
                if (i == nslots(ls)) {
                    kc_say(stderr, "--worker: a nonce for %s, which is not over here\n", name);
                    rc = 4;
                    break;
                }
                lane *l = &ls->l[i];
                memcpy(out, nonce, KC_NONCE_LEN);
                out[KC_NONCE_LEN] = '\t';
                int len = kc_result_format_detail(l->it->name, &l->r, l->kept, out + KC_NONCE_LEN + 1,
                                                  sizeof out - KC_NONCE_LEN - 1);
                free(l->kept);
                l->kept = NULL;
                if (len < 0 || kc_worker_write_all(rfd, out, (size_t)len + KC_NONCE_LEN + 1)) {
                    rc = 4;
                    break;
                }
                pthread_mutex_lock(&ls->mu);
                l->it = NULL;
                l->done = l->said_done = 0;
                pthread_mutex_unlock(&ls->mu);
                continue;
            }
            if (stopping) continue;         /* it takes no more items */
            const kc_item *it = kc_worker_find_item(items, n, name);
            if (!it) {
                kc_say(stderr, "--worker: no item named '%s'\n", name);
                rc = 4;
                break;
            }
            char why[300];
            if (kc_item_needs_gpu(it)) open_gpu(ls);
            if ((marks & KC_REQUEST_AHEAD_BIT) && ls->gpu_state != -1) kc_sanitize_ahead(o, san, ahead);
            if (!alone && it->kind == KC_KIND_SANITIZE && kc_san_batches_on()) {
                if (batch_keep(ls, it) == 0) continue;
                kc_say(stderr, "--worker: %s handed for a batch with its %d batch lanes busy\n", it->name, ls->k);
                rc = 4;
                break;
            }
            if (alone || !kc_inflight_admits(it, why, sizeof why) || ls->gpu_state != 1) {
                /* As a worker of one item at a time runs it: on this thread. */
                lane *l = main_lane(ls);
                if (!l) {
                    kc_say(stderr, "--worker: %s handed with its %d lanes of items run on its main thread busy\n",
                           it->name, ls->k + 1);
                    rc = 4;
                    break;
                }
                char what[600];
                snprintf(what, sizeof what, "running item %s", it->name);
                kc_exit_guard_what(what);
                int beside = running_in_flight(ls);
                kc_gpu_watch *watch = ls->gpu_state == 1 && !beside ? &ls->gw : NULL;
                kc_item_run_kept(&ls->base, ls->gpu_state == 1, it, o, watch, san, &l->r, &l->kept, beside);
                kc_exit_guard_what("waiting for items (worker with lanes)");
                l->it = it;
                l->lost = l->r.context_lost != 0;
                l->done = 1;
                l->said_done = 0;
                continue;
            }
            int i = 0;
            pthread_mutex_lock(&ls->mu);
            while (i < ls->k && (ls->l[i].it || !ls->l[i].started)) i++;
            if (i < ls->k) {
                ls->l[i].it = it;
                ls->l[i].done = ls->l[i].said_done = 0;
                ls->l[i].beside = NULL;
                pthread_cond_broadcast(&ls->go);
            }
            pthread_mutex_unlock(&ls->mu);
            if (i == ls->k) {
                kc_say(stderr, "--worker: %s handed with its %d lanes busy\n", it->name, ls->k);
                rc = 4;
                break;
            }
        }
        if (rc) break;
    }
    if (stopping || rc) {
        /* Lanes may be inside the lost context (or a hang): not joined. The
         * sanitizer sessions are other processes: their summaries are
         * checked first, as at a worker's end (worker.c), or the verdicts
         * they gave would be kept and the run read green. */
        char why[KC_SAN_WHY_MAX];
        if (kc_san_pool_free(san, why, sizeof why) && rc == 0) {
            kc_say(stdout, "%s\n", why);
            rc = KC_WORKER_UNTRUSTED;
            kc_worker_say_untrusted(rfd);   /* the status is its word only with this line */
        }
        fflush(stdout);
        fflush(stderr);
        if (rc == 0) kc_worker_say_ended(rfd);     /* before the context's teardown, which may take long */
        if (stopping) kc_item_fault_teardown();     /* test hook (item_run.h) */
        _exit(rc);
    }
    pthread_mutex_lock(&ls->mu);
    ls->quit = 1;
    pthread_cond_broadcast(&ls->go);
    pthread_mutex_unlock(&ls->mu);
    for (int i = 0; i < ls->k; i++)
        if (ls->l[i].started) pthread_join(ls->l[i].th, NULL);
    if (ls->gpu_state == 1) kc_gpu_close(&ls->base);
    close(ls->wake[0]);
    close(ls->wake[1]);
    return rc;
}
