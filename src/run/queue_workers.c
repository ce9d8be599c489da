/* queue_workers.c — owns the lives of the work queue's workers (queue.c):
 * starting one (kc_q_spawn, kc_q_spawn_worker) and its fresh state, what a
 * worker that ended is said to have done (kc_q_say_ended, kc_q_say_fresh),
 * the restart cap (kc_q_count_restart), the item a dead worker was running
 * settled as CRASH, TIMEOUT or NOTRUN (kc_q_settle_item), what it left
 * running ended, and its replacement by the standby or a fresh process
 * (kc_q_on_gone, the supervisor's callback). */
#include "queue_types.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvml.h"
#include "progname.h"
#include "proctree.h"
#include "reporter.h"
#include "run_options.h"
#include "sanitize_session.h"
#include "signame.h"

int kc_q_spawn(queue *qq, int slot, int device)
{
    /* N workers share the host's CPUs: each gets its share, or --threads
     * (what else a worker gets: run_options.h, kc_argv_kind). */
    /* A run of one worker with one item in flight (serial, --jobs 1, or a
     * --jobs run with one item to run) polls the GPU, and a serial run's
     * standby with it: its host waits on nothing else, and the wake-up of a
     * blocking wait at every sync cost the serial gates 1-4 run 3-4 s of
     * 41-44 on an H200 (docs/receipts/2026-12-04-h200-wait-modes). It polls
     * yielding, not spinning: within 0.5 s of spinning there (38.3-38.7 s
     * against 37.8-38.2 s), and a yielding poller should give its core up
     * where more processes than cores wait, as on a host running many
     * shards of a test at once (measured up to four serial --shard k/4 runs
     * together: 41.9 s yielding, 41.6 s spinning, 43.0 s blocking). A hung
     * item keeps its one core polling until its time limit. Several workers
     * or items in flight keep blocking: a poller per waiting thread took the
     * cores the references use (--jobs 4 --inflight 4: 52.1 s spinning, 50.3 s
     * blocking). KC_CUDA_SCHED still decides when set. */
    const int one = qq->nw == 1 && qq->o->inflight <= 1;
    kc_child_cmd cmd = { .kind = KC_ARGV_WORKER, .device = device, .parent = (long)getpid(),
                         .share = qq->serial ? 1 : qq->o->jobs, .gpu_wait = one ? "yield" : NULL,
                         .gpu_shared = slot < qq->nw && kc_qh_gpu_shared(qq, qq->w[slot].devslot) };
    kc_strvec av = KC_STRVEC_INIT;
    int rc = kc_child_argv(&av, qq->o, &cmd);
    if (rc == 0) rc = kc_sup_start(&qq->sup, slot, "/proc/self/exe", av.v, KC_SUP_STDIN | KC_SUP_RESULT);
    int err = errno;
    kc_strvec_clear(&av);
    if (rc) kc_say(stderr, "cannot start %s %d: %s\n", slot < qq->nw ? "worker" : "the standby worker in slot", slot,
                   strerror(err));
    return rc ? -1 : 0;
}

void kc_q_say_ended(queue *qq, int slot, const kc_child *c, const char *how, int abnormal)
{
    if (c->leak[0])
        kc_q_say(qq, "worker %d (pid %ld) %s after its items, and left processes behind: %s\n", slot, (long)c->pid, how,
                 c->leak);
    else if (abnormal && !qq->interrupted && !c->killed)
        kc_q_say(qq, "worker %d (pid %ld) %s between items\n", slot, (long)c->pid, how);
}

int kc_q_count_restart(queue *qq, const char *then)
{
    if (qq->restarts < qq->cap) {
        qq->restarts++;
        return 0;
    }
    qq->fin.stopping = 1;
    snprintf(qq->fin.stop_why, sizeof qq->fin.stop_why,
             "restart cap: %d workers were replaced after a crash, a timeout or a failed start (at most %d%s)", qq->restarts,
             qq->cap, qq->o->max_restarts >= 0 ? ", --restarts" : ": 2 x N + 8");
    const int left = kc_dispatch_pending(&qq->dp);
    kc_q_say(qq, "%s; %s: the %d item%s not handed out yet %s NOTRUN\n", qq->fin.stop_why, then, left,
             left == 1 ? "" : "s", left == 1 ? "is" : "are");
    return -1;
}

void kc_q_say_fresh(queue *qq, int abnormal, int lost, int by)
{
    /* With items in flight the line printed last need not be the item meant: named then */
    char named[600] = "";
    if (qq->k > 1 && by >= 0) snprintf(named, sizeof named, " (%s)", qq->items[qq->q[by].idx].name);
    if (abnormal) kc_q_say(qq, "that item%s ended the process; continuing in a fresh process\n", named);
    else if (lost == KC_LOST_GPU_STATE)
        kc_q_say(qq, "that item%s left GPU state (memory, or a limit) in this process; continuing in a fresh process\n",
                 named);
    else kc_q_say(qq, "the CUDA context is unusable after that item%s; continuing in a fresh process\n", named);
}

void kc_q_sessions(queue *qq, int slot, int on)
{
    kc_dispatch_worker *dw = &qq->dw[slot];
    if (!dw->sessions == !on) return;
    dw->sessions = on;
    kc_admit_sessions(&qq->adm, dw->devslot, on);
}

void kc_q_fresh(queue *qq, wk *w)
{
    w->cur = -1;
    w->ended = 0;
    w->said = 0;
    w->end_by = 0;
    kc_ql_reset(qq, w);
    kc_q_phase(w, KC_WK_STARTING);
    w->lost = 0;
    w->lost_by = -1;
    w->tail_n = 0;
    kc_q_sessions(qq, w->slot, 0);
    w->spawned++;
    w->ready_by = kc_q_child_of(qq, w)->started + KC_QUEUE_START_S;
    if (qq->sampler) kc_gpu_sampler_watch(kc_q_child_of(qq, w)->pid, w->device);
}

int kc_q_spawn_worker(queue *qq, wk *w)
{
    if (kc_q_spawn(qq, w->slot, w->device)) return -1;
    kc_q_fresh(qq, w);
    return 0;
}

/* ---- life and death ---- */

/* The item a dead worker was running: CRASH, TIMEOUT, or NOTRUN when the
 * run was interrupted; its end is the worker's exit, not the end of its pipes. */
void kc_q_settle_item(queue *qq, wk *w, const kc_child *c, const char *how)
{
    qitem *qi = &qq->q[w->cur];
    kc_item_result r;
    memset(&r, 0, sizeof r);
    r.peak_rss_kib = -1;
    r.gate = 0;
    char tail[4096] = "", lines[64], leak[600] = "";
    size_t tl = 0;
    for (int i = 0; i < w->tail_n && tl < sizeof tail; i++)
        tl += (size_t)snprintf(tail + tl, sizeof tail - tl, "%s\n", w->tail[i]);
    if (w->tail_n) snprintf(lines, sizeof lines, "; its last %d line%s below", w->tail_n, w->tail_n == 1 ? "" : "s");
    else snprintf(lines, sizeof lines, "; it printed nothing");
    if (c->leak[0]) snprintf(leak, sizeof leak, "; it left processes behind: %s", c->leak);
    if (qq->interrupted) {
        char sb[32];
        r.state = KC_NOTRUN;
        snprintf(r.msg, sizeof r.msg, "not run: interrupted by %s while running on worker %d (pid %ld, %s)%s",
                 kc_signal_name(qq->interrupted, sb, sizeof sb), w->slot, (long)c->pid, how, leak);
        tail[0] = 0;
    } else if (w->phase == KC_WK_VIOLATED) {
        r.state = KC_CRASH;
        snprintf(r.msg, sizeof r.msg, "%s; worker %d (pid %ld) was stopped and %s%s%s", w->violation, w->slot,
                 (long)c->pid, how, leak, lines);
    } else if (w->phase == KC_WK_TIMED_OUT) {
        r.state = KC_TIMEOUT;
        snprintf(r.msg, sizeof r.msg, "exceeded its time limit of %.6g s; worker %d (pid %ld) got SIGTERM%s and was %s%s%s",
                 qi->limit, w->slot, (long)c->pid, c->killed ? ", then SIGKILL after the grace" : "", how, leak, lines);
    } else {
        r.state = KC_CRASH;
        if (WIFEXITED(c->wstatus))     /* exit() or _exit() under the item: the process ended, not the run */
            snprintf(r.msg, sizeof r.msg, "ended the process with status %d before the run finished (worker %d, pid %ld, "
                     "no result for the item)%s%s", WEXITSTATUS(c->wstatus), w->slot, (long)c->pid, leak, lines);
        else
            snprintf(r.msg, sizeof r.msg, "worker %d (pid %ld) %s while running it%s%s", w->slot, (long)c->pid, how,
                     leak, lines);
    }
    int j = (int)(qi - qq->q);
    if (r.state == KC_CRASH) {      /* a worker it ended, not one the queue stopped */
        kc_q_fault_beside(qq, w);
        kc_qh_span(qq, j, w->devslot, w->t_start, c->exited);
    } else if (qq->interrupted) {   /* ended before it could say whether it lost its context: a verdict held
                                     * for it (queue_holds.c) is not known to be its own, as beside a loss */
        kc_qh_span(qq, j, w->devslot, w->t_start, c->exited);
    }
    if (!qq->interrupted && kc_dispatch_rerun_alone(&qq->dp, j, r.state, w->fault_beside)) {
        kc_q_say(qq, "%s: %s while another item on the same GPU faulted beside it; its verdict is not its own: "
            "it runs again alone once the other items are done, and that run decides it\n", qq->items[qi->idx].name, kc_state_name(r.state));
        kc_q_rerun_alone(qq, qi);
    } else {
        kc_q_finish_item(qq, qi, &r, w, w->t_start, c->exited, -1, 1, tail[0] ? tail : NULL);
    }
    kc_q_release(qq, w, qi);
    kc_report_busy(kc_q_busy_count(qq), 1);
}

/* What a worker that died left running outside its process group and
 * pipes (its sanitizer sessions, sanitize_session.h, each a group of its
 * own, which a worker killed by SIGKILL cannot end), adopted by this
 * process (kc_proc_adopt_orphans): ended (kc_sup_end_orphans; at once when
 * interrupted) and named. */
static void end_orphans(queue *qq, kc_sup *s, kc_child *c)
{
    char who[400];
    const int quiet = qq->interrupted || kc_qs_killed_at_end(qq, c);
    int n = kc_sup_end_orphans(s, c, quiet ? 0 : KC_LEAK_TIMEOUT_MS, who, sizeof who);
    if (n > 0 && !quiet)
        kc_q_say(qq, "worker %d (pid %ld) left %d process%s running after it ended: %s; killed (SIGKILL)\n",
            c->slot, (long)c->pid, n, n == 1 ? "" : "es", who);
}

/* Its sanitizer sessions' verdicts are kept only when it vouched for them
 * (its end line: kc_q_end_vouched; result_cache.h, kc_rcache_hold), however
 * its process then ended; else no word either way; untrusted, its sessions
 * were found not to vouch (worker.c's KC_WORKER_UNTRUSTED). The clean ones
 * waiting for that line (queue_vouch.c) are counted first, so that the
 * cache keeps them, or run again (run_again: it ended under an item
 * without the line, in a run that goes on). */
static void release_sessions(queue *qq, const kc_child *c, int vouched, int untrusted, int run_again)
{
    kc_qv_release(qq, c->slot, (long)c->pid, vouched && !untrusted ? KC_QV_VOUCHED : run_again ? KC_QV_RUN_AGAIN : KC_QV_AS_GIVEN);
    kc_rcache_release(qq->fin.cache, (int)c->pid,
                      untrusted ? KC_SESSIONS_DISTRUSTED : vouched ? KC_SESSIONS_VOUCHED : KC_SESSIONS_UNVOUCHED);
}

double kc_q_end_limit_s(void)
{
    const double san = kc_san_timeout_env_s();
    const char *hook = getenv("KC_FAULT_END_EXTRA_S");      /* test hook (queue_types.h) */
    double extra = hook ? atof(hook) : 0;
    if (!(extra > 0 && extra <= KC_QUEUE_END_EXTRA_S)) extra = KC_QUEUE_END_EXTRA_S;
    return (san > 0 ? san : KC_SAN_TIMEOUT_S) + extra;
}

void kc_q_close_input(queue *qq, wk *w)
{
    kc_child *c = kc_q_child_of(qq, w);
    if (c->in < 0) return;
    kc_sup_close_stdin(c);
    w->end_by = kc_sup_now() + kc_q_end_limit_s();
}

/* Whether the child in a slot, its input closed by then, is still to end. */
static int still_to_end(const kc_child *c, double end_by)
{
    return end_by > 0 && c->in < 0 && !c->stop_signal && (c->state == KC_CHILD_IDLE || c->state == KC_CHILD_RUNNING);
}

/* The standby's slot holds a retired worker (kc_qs_retire) still to end. */
static int retired_to_end(const queue *qq)
{
    return qq->standby >= 0 && qq->standby_retired && still_to_end(&qq->sup.c[qq->standby], qq->retired_end_by);
}

/* Stops child c (worker slot `slot`), overdue: said with what it runs then. */
static void stop_overdue(queue *qq, int slot, kc_child *c, const char *after, int ended)
{
    char procs[1200];
    kc_proc_describe_tree(c->pid, procs, sizeof procs);
    kc_sup_stop(&qq->sup, c, SIGTERM, KC_SUP_GRACE_MS);
    kc_q_say(qq, "worker %d (pid %ld) did not end within %.6g s after its input closed (%s%s); SIGTERM to its process "
             "group (SIGKILL after %d ms); the worker's processes then: %s\n", slot, (long)c->pid,
             kc_q_end_limit_s(), after, ended ? "; it had written its end line, so its sessions vouched" : "",
             KC_SUP_GRACE_MS, procs);
}

void kc_q_check_overdue(queue *qq, double t)
{
    if (qq->interrupted) return;
    for (int i = 0; i < qq->nw; i++) {
        wk *w = &qq->w[i];
        kc_child *c = kc_q_child_of(qq, w);
        if ((w->phase != KC_WK_IDLE && w->phase != KC_WK_RETIRING) || !still_to_end(c, w->end_by) || t < w->end_by)
            continue;
        const int retiring = w->phase == KC_WK_RETIRING;
        kc_q_phase(w, KC_WK_OVERDUE);
        stop_overdue(qq, w->slot, c, retiring ? "its item lost the CUDA context" : "the run has no more items for it",
                     w->ended);
    }
    if (retired_to_end(qq) && t >= qq->retired_end_by)
        stop_overdue(qq, qq->retired_worker, &qq->sup.c[qq->standby], "its item lost the CUDA context",
                     qq->retired_ended);
}

double kc_q_next_end_by(const queue *qq)
{
    double d = 0;
    for (int i = 0; i < qq->nw; i++) {
        const wk *w = &qq->w[i];
        if ((w->phase == KC_WK_IDLE || w->phase == KC_WK_RETIRING) && still_to_end(&qq->sup.c[i], w->end_by) &&
            (d <= 0 || w->end_by < d))
            d = w->end_by;
    }
    if (retired_to_end(qq) && (d <= 0 || qq->retired_end_by < d))
        d = qq->retired_end_by;
    return d;
}

int kc_q_end_vouched(queue *qq, int slot, const kc_child *c, int ended, int held, int under_item)
{
    const int status0 = WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == 0;
    if (ended || qq->interrupted || (WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == KC_WORKER_UNTRUSTED))
        return ended;                   /* vouched; or interrupted, or it said itself why it does not vouch */
    if (status0 && !c->stop_signal && !under_item) {    /* under an item, the item's end settles it (CRASH) */
        kc_q_say(qq, "worker %d (pid %ld) exited with status 0 without its end line (worker.h): an exit() or "
                 "_exit() ended it after its last item (an exit handler or a thread an item's code left)%s\n", slot,
                 (long)c->pid, held ? " before it said its compute-sanitizer sessions vouch, so the verdicts they "
                                      "gave are not trusted and the run is not green"
                                    : ", replacing its own exit status, so the run is not green");
        qq->untrusted = 1;
    } else if (held && qq->dp.sessions_on && !under_item) {
        /* Under an item its end is that item's CRASH or TIMEOUT, which fails
         * the run unless a rerun alone decides the item; the clean verdicts
         * its sessions gave earlier run again alone too (queue_vouch.c).
         * Failing the run for them would make a --jobs run's verdict depend
         * on which items shared a worker (a serial run's order differs). */
        char how[128];
        kc_sup_describe_status(c->wstatus, how, sizeof how);
        kc_q_say(qq, "worker %d (pid %ld) %s after its items before it said its compute-sanitizer sessions vouch "
                 "(worker.h): their summaries were never checked, so the :sanitize verdicts they gave are not trusted "
                 "and the run is not green\n", slot, (long)c->pid, how);
        qq->untrusted = 1;
    } else if (!under_item && !c->stop_signal) {     /* killed or crashed on its own after items it passed */
        char how[128];
        kc_sup_describe_status(c->wstatus, how, sizeof how);
        kc_qd_unexplained(qq, slot, c, how);
    }
    return 0;
}

/* A worker is GONE (exited, its pipes closed): settle its item, maybe replace it. */
void kc_q_on_gone(void *ctx, kc_sup *s, kc_child *c)
{
    queue *qq = ctx;
    char how[128];
    end_orphans(qq, s, c);
    kc_sup_describe_status(c->wstatus, how, sizeof how);
    if (qq->sampler) kc_gpu_sampler_unwatch(c->pid);
    int abnormal = !(WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == 0);
    int untrusted = WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == KC_WORKER_UNTRUSTED;
    if (untrusted) qq->untrusted = 1;   /* whatever else it did: its line says why; the run is not green */
    if (kc_qs_is(qq, c)) {      /* the standby, or a worker it replaced (queue_standby.c) */
        if (qq->standby_retired && kc_qd_own_end(qq, qq->retired_ended, qq->retired_said, c))  /* as a worker's own end, below */
            kc_qd_suspects(qq, qq->retired_worker, c, how);
        const int vouched = kc_qs_end_vouched(qq, c);
        if (!vouched && !untrusted) abnormal = 1;
        release_sessions(qq, c, vouched, untrusted, 0);
        kc_qs_on_gone(qq, c, how, abnormal && !untrusted && !c->stop_signal);  /* a stop was said */
        return;
    }
    wk *w = &qq->w[c->slot];
    const int held = qq->dw[c->slot].sessions;     /* it was handed :sanitize items */
    const int overdue = w->phase == KC_WK_OVERDUE;  /* said when it was stopped (kc_q_check_overdue) */
    /* an item in hand that its end settles (a lanes worker that lost its
     * context puts the others back: it ended after its own item) */
    const int under_item = w->cur >= 0 || (qq->k > 1 && w->book.open && w->phase != KC_WK_RETIRING);
    if (kc_qd_own_end(qq, w->ended, w->said, c)) kc_qd_suspects(qq, w->slot, c, how);   /* what it finished before (queue_deaths.c) */
    kc_qh_teardown_ends(qq, w, c->exited);     /* the context it lost is gone with it */
    kc_q_sessions(qq, c->slot, 0);   /* its sessions ended with it (a fresh worker starts its own) */
    if (qq->k > 1 && w->book.open) {     /* settled, or put back undecided (queue_lanes.c) */
        if (kc_ql_gone(qq, w, c, how) || w->phase != KC_WK_RETIRING) abnormal = 1;
    } else if (w->cur >= 0) {
        kc_q_settle_item(qq, w, c, how);
        abnormal = 1;
    } else if (w->phase == KC_WK_LATE) {
        kc_q_say(qq, "worker %d (pid %ld) did not say it was ready within %d s and was %s\n", w->slot, (long)c->pid,
            KC_QUEUE_START_S, how);
        abnormal = 1;
    } else if (w->phase == KC_WK_STARTING && !qq->interrupted) {
        kc_q_say(qq, "worker %d (pid %ld) %s before it was ready%s%s\n", w->slot, (long)c->pid, how,
            c->leak[0] ? "; it left processes behind: " : "", c->leak);
        abnormal = 1;
    } else {
        kc_q_say_ended(qq, w->slot, c, how, abnormal && !untrusted && !overdue);
        if (untrusted && !c->leak[0]) abnormal = 0;     /* it ended after its items, as asked */
    }
    /* Only its end line vouches for its sessions: an item's _exit(0) ends a
     * worker with status 0 before their summaries are checked (worker.c),
     * and an exit handler can replace the status after */
    const int vouched = kc_q_end_vouched(qq, c->slot, c, w->ended, held, under_item);
    if (!vouched && !untrusted) abnormal = 1;
    release_sessions(qq, c, vouched, untrusted, under_item && !qq->interrupted && !qq->fin.stopping);
    kc_q_phase(w, KC_WK_GONE);
    if (qq->fin.stopping || qq->interrupted || !kc_dispatch_pending(&qq->dp)) return;
    if (abnormal && kc_q_count_restart(qq, "not starting another worker")) return;
    int lost = w->lost, by = w->lost_by;
    if (kc_qs_take(qq, w) != 0 && kc_q_spawn_worker(qq, w) != 0) return;    /* the standby, or a process started now */
    if (overdue && lost) abnormal = 0;  /* its item's loss is why it was replaced; the stop was said */
    if (qq->serial)     /* one process as far as the user is concerned: its wording */
        kc_q_say_fresh(qq, abnormal, lost, by);
    else if (abnormal || by < 0)
        kc_q_say(qq, "worker %d restarted (pid %ld)%s\n", w->slot, (long)kc_q_child_of(qq, w)->pid,
            abnormal ? "" : lost == KC_LOST_GPU_STATE ? " after its item left GPU state" : " after a CUDA context loss");
    else        /* named: a held verdict's line (queue_holds.c, queue_neighbours.c) may come after this one. With
                 * items in flight a loss is the context's: the item named reported it (the worker stops at
                 * the first that does), not necessarily the one that caused it */
        kc_q_say(qq, "worker %d restarted (pid %ld) after %s%s\n", w->slot, (long)kc_q_child_of(qq, w)->pid,
            lost == KC_LOST_GPU_STATE ? "GPU state left by " : "a CUDA context loss reported by ",
            qq->items[qq->q[by].idx].name);
}
