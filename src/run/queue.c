/* queue.c — owns the --jobs N work queue's parent (worker.h has the worker
 * and the protocol; its setup before the first worker, the items' order
 * among it, is queue_setup.c's): N long-lived workers
 * (started, watched, stopped and reaped by the supervisor, supervisor.c),
 * handing out one item at a time to a ready worker as the dispatch policy
 * says (dispatch.h: memory admission, the worker's last contract, sanitizer
 * sessions), each worker's phase (worker_phase.h), the time limit of each
 * item (SIGTERM to the worker's group,
 * SIGKILL after the grace; a dead worker's item and its replacement are
 * queue_workers.c's), --fail-fast, SIGINT/SIGTERM, the
 * records for the reports, the cost table written back, and the run's own
 * TALLY and SUMMARY. Each selected item is reported exactly once: by its
 * worker's result line (one reached with the CUDA context lost on a shared
 * GPU once the items beside it have ended, or by its run again alone:
 * queue_holds.c; a clean :sanitize one once its worker's end line came:
 * queue_vouch.c), as CRASH/TIMEOUT when the worker died running it, or as
 * NOTRUN when it was never handed out. */
#include "item_run.h"
#include "supervisor.h"
#include "worker.h"
#include "worker_phase.h"
#include "queue_types.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "costs.h"
#include "dispatch.h"
#include "filter.h"
#include "finish.h"
#include "jobs.h"
#include "line_text.h"
#include "linebuf.h"
#include "merge.h"
#include "nvml.h"
#include "plan.h"
#include "parallel.h"
#include "proctree.h"
#include "reporter.h"
#include "queue_header.h"
#include "record.h"
#include "result_cache.h"
#include "report.h"
#include "report_summary.h"
#include "run_end.h"
#include "runner.h"
#include "sanitize_session.h"
#include "signame.h"
#include "size_sat.h"
#include "strbuf.h"
#include "tally.h"
#include "colour.h"
#include "progname.h"

static double now_s(void) { return kc_sup_now(); }



void kc_q_say(queue *qq, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kc_q_say(queue *qq, const char *fmt, ...)
{
    (void)qq;
    va_list ap;
    va_start(ap, fmt);
    kc_report_vnote(stdout, fmt, ap);
    va_end(ap);
}

/* ---- workers ---- */

static void tail_add(wk *w, const char *line)
{
    if (w->tail_n == KC_QUEUE_TAIL_LINES) {
        memmove(w->tail[0], w->tail[1], sizeof w->tail[0] * (KC_QUEUE_TAIL_LINES - 1));
        w->tail_n--;
    }
    snprintf(w->tail[w->tail_n++], sizeof w->tail[0], "%s", line);
}

kc_child *kc_q_child_of(queue *qq, const wk *w) { return &qq->sup.c[w->slot]; }

/* w goes to phase `to` (worker_phase.h); a change the diagram does not allow
 * is the queue's bug: said, and the phase is kept. */
void kc_q_phase(wk *w, kc_worker_phase to)
{
    if (kc_worker_phase_set(&w->phase, to))
        kc_say(stderr, "internal error: worker %d cannot go from %s to %s (worker_phase.h)\n", w->slot,
               kc_worker_phase_name(w->phase), kc_worker_phase_name(to));
}

/* ---- reporting items ---- */

/* One item's result, through the run's one way of finishing items
 * (finish.h); print: the parent prints its line (no worker did). */
kc_item_where kc_q_where(queue *qq, const wk *w, double start, double end, long gpu_mib, int print, const char *tail)
{
    return (kc_item_where){
        .worker = w ? w->slot : -1,
        .device = w && w->devslot >= 0 ? w->device : -1,
        .rerun_device = w ? w->device : qq->o->device,
        .pid = w ? (long)kc_q_child_of(qq, w)->pid : 0,
        .start_s = start - qq->t0,
        .end_s = end - qq->t0,
        .peak_gpu_mib = gpu_mib,
        .log_tail = tail,
        .print = print,
    };
}

kc_item_where kc_q_where_sent(queue *qq, const wk *w, double start, double end, long gpu_mib, const char *detail)
{
    kc_item_where at = kc_q_where(qq, w, start, end, gpu_mib, 1, NULL);
    if (!qq->serial) snprintf(at.tag, sizeof at.tag, "[w%d] ", w->slot);
    at.own_seconds = 1;                 /* as its worker would have printed it */
    at.detail = detail && *detail ? detail : NULL;
    return at;
}

void kc_q_finish_at(queue *qq, qitem *qi, kc_item_result *r, const kc_item_where *at)
{
    qi->reported = 1;
    if (r->state == KC_NOTRUN) qi->again = 0;   /* put back, but no run alone decided it (stopped, interrupted) */
    kc_finish_item(&qq->fin, &qq->items[qi->idx], r, at);
}

void kc_q_finish_item(queue *qq, qitem *qi, kc_item_result *r, const wk *w, double start, double end,
                        long gpu_mib, int print, const char *tail)
{
    kc_item_where where = kc_q_where(qq, w, start, end, gpu_mib, print, tail);
    kc_q_finish_at(qq, qi, r, &where);
}

void kc_q_rerun_alone(queue *qq, qitem *qi)
{
    const int j = (int)(qi - qq->q);
    qq->di[j].dispatched = 0;
    qq->di[j].rerun_alone = 1;
    qi->reported = 0;
    qi->again = 1;
    qi->limit = kc_item_time_limit_alone(&qq->items[qi->idx], &qq->costs, qq->o->timeout_s);
}

void kc_q_release(queue *qq, wk *w, qitem *qi)
{
    const kc_dispatch_item *di = &qq->di[qi - qq->q];
    kc_admit_release(&qq->adm, w->devslot, di->host, di->gpu);
    kc_dispatch_released(&qq->dp, (int)(qi - qq->q));
    w->cur = -1;
    kc_qh_ended(qq, w->devslot);
}

/* The item of worker `from` faulted (lost its CUDA context, or its worker
 * died under it): every other item running on the same GPU ran beside it. */
void kc_q_fault_beside(queue *qq, const wk *from)
{
    for (int i = 0; i < qq->nw; i++)
        if (&qq->w[i] != from && kc_ql_items(qq, &qq->w[i]) > 0 && qq->w[i].devslot == from->devslot) qq->w[i].fault_beside = 1;
}

int kc_q_busy_count(const queue *qq)
{
    int b = 0;
    for (int i = 0; i < qq->nw; i++) b += kc_ql_items(qq, &qq->w[i]) > 0;
    return b;
}

/* ---- the streams ---- */

/* A line on w's result pipe that is not the result of the item it was
 * handed (no item, not that item's nonce, a second line, a line that does
 * not parse): whatever wrote it (an item forging its own result, a library
 * writing on an inherited descriptor), the worker's word can no longer be
 * trusted. It is stopped at once; its item is CRASH (settle_item); between
 * items the run fails (violated). */
void kc_q_protocol_violated(queue *qq, wk *w, kc_child *c, const char *line, const char *why)
{
    char shown[96];
    kc_result_shown(line, shown, sizeof shown);
    kc_q_phase(w, KC_WK_VIOLATED);
    if (kc_ql_items(qq, w) > 0) {
        snprintf(w->violation, sizeof w->violation, "protocol violated: a result line %s ('%s')", why, shown);
    } else {
        qq->violated = 1;
        kc_q_say(qq, "worker %d (pid %ld): protocol violated: a result line %s ('%s'); stopping it; the run "
                "fails\n", w->slot, (long)c->pid, why, shown);
    }
    if (c->state != KC_CHILD_EXITED && c->state != KC_CHILD_GONE) kc_sup_stop(&qq->sup, c, SIGKILL, 0);
}

static void on_result(queue *qq, wk *w, kc_child *c, const char *line)
{
    kc_item_result r;
    char err[256], name[192];
    if (w->phase == KC_WK_STARTING && strcmp(line, KC_RESULT_READY) == 0) {   /* also after its exit: its pipe is read after */
        kc_q_phase(w, KC_WK_IDLE);
        if (c->in < 0) w->end_by = now_s() + kc_q_end_limit_s();   /* closed while it started: its end starts now */
        if (c->state == KC_CHILD_STARTING) kc_sup_mark(c, KC_CHILD_IDLE);
        return;
    }
    /* Stopped (a violation, its time limit, not ready in time, not ended in
     * time): nothing it says counts any more; its end settles its item
     * (settle_item). */
    if (w->phase == KC_WK_OVERDUE && strcmp(line, KC_RESULT_ENDED) == 0 && !w->ended) {
        w->ended = 1;           /* it had written it when it was stopped: still its sessions' word */
        return;
    }
    if (w->phase == KC_WK_VIOLATED || w->phase == KC_WK_TIMED_OUT || w->phase == KC_WK_LATE ||
        w->phase == KC_WK_OVERDUE)
        return;
    if (strcmp(line, KC_RESULT_ENDED) == 0 || strcmp(line, KC_RESULT_UNTRUSTED) == 0) {
        /* its input closed, it ends: its sessions' word either way (worker.h) */
        if ((w->phase == KC_WK_IDLE || w->phase == KC_WK_RETIRING) && c->in < 0 && !w->ended && !w->said) {
            if (strcmp(line, KC_RESULT_ENDED) == 0) w->ended = 1;
            else w->said = 1;
        } else
            kc_q_protocol_violated(qq, w, c, line, w->ended || w->said ? "saying it ends, a second time"
                                                                    : "saying it ends, before its input was closed");
        return;
    }
    if (qq->k > 1) {            /* several items open: each line names its item (queue_lanes.c) */
        kc_ql_on_result(qq, w, c, line);
        return;
    }
    size_t dn = strlen(KC_RESULT_DONE);
    if (w->phase == KC_WK_RUNNING && strncmp(line, KC_RESULT_DONE, dn) == 0 && line[dn] == '\t' &&
        strcmp(line + dn + 1, qq->items[qq->q[w->cur].idx].name) == 0) {
        char ans[KC_NONCE_LEN + 2];
        if (kc_result_nonce(w->nonce)) {        /* no randomness: the item's result cannot be taken */
            kc_q_protocol_violated(qq, w, c, line, "that could not be sealed (no random nonce)");
            return;
        }
        snprintf(ans, sizeof ans, "%s\n", w->nonce);
        kc_q_phase(w, KC_WK_SEALING);
        if (kc_sup_write(c, ans, strlen(ans))) kc_q_close_input(qq, w);   /* dying: its end settles the item */
        return;
    }
    const char *body = kc_result_unseal(line, w->phase == KC_WK_SEALING ? w->nonce : NULL);
    err[0] = 0;
    if (!body || kc_result_parse(body, name, sizeof name, &r, err, sizeof err) || w->cur < 0 ||
        strcmp(name, qq->items[qq->q[w->cur].idx].name) != 0) {
        kc_q_protocol_violated(qq, w, c, line, w->cur < 0 ? "no item was handed to it"
                                         : !body ? "without its item's nonce"
                                         : err[0] ? err : "for another item");
        return;
    }
    qitem *qi = &qq->q[w->cur];
    double end = now_s();
    long gpu = qq->sampler ? kc_gpu_sampler_take_peak(c->pid) : -1;
    if (r.context_lost == KC_LOST_CONTEXT && kc_qh_gpu_shared(qq, w->devslot)) {  /* its worker did not print it */
        static char detail[KC_RESULT_LINE_CAP];
        kc_result_detail(body, detail, sizeof detail);
        kc_qh_lost(qq, qi, &r, detail, w, w->t_start, end, gpu);
    } else if (kc_item_line_waits_end(&qq->items[qi->idx], &r)) {     /* nor this: it waits for the worker's end line */
        kc_qv_hold(qq, qi, &r, w, w->t_start, end, gpu);
    } else {            /* its worker sent its line (item_run.h): printed here, after what the item printed */
        static char detail[KC_RESULT_LINE_CAP];
        kc_result_detail(body, detail, sizeof detail);
        kc_sup_drain(&qq->sup, c, KC_SUP_OUT);
        kc_sup_drain(&qq->sup, c, KC_SUP_ERR);    /* a 2>&1 log: its stderr lines before the verdict too */
        kc_item_where at = kc_q_where_sent(qq, w, w->t_start, end, gpu, detail);
        kc_q_finish_at(qq, qi, &r, &at);
    }
    kc_q_release(qq, w, qi);
    kc_sup_mark(c, KC_CHILD_IDLE);
    kc_report_busy(kc_q_busy_count(qq), 1);
    if (r.context_lost) {       /* it exits by itself; a fresh worker follows */
        kc_q_fault_beside(qq, w);
        kc_q_phase(w, KC_WK_RETIRING);
        w->lost = r.context_lost;
        w->lost_by = (int)(qi - qq->q);
        kc_qh_teardown_begins(qq, w, end);
        kc_q_close_input(qq, w);
        kc_qs_retire(qq, w);    /* a serial run's standby takes its place now, not once it has ended */
    } else {
        kc_q_phase(w, KC_WK_IDLE);
    }
}

static void on_line(void *ctx, kc_sup *s, kc_child *c, int stream, const char *line, size_t len, size_t cut)
{
    queue *qq = ctx;
    wk *w = kc_qs_is(qq, c) ? NULL : &qq->w[c->slot];
    char pre[32];
    (void)s;
    (void)len;
    if (stream == KC_SUP_RES) {
        if (w) on_result(qq, w, c, line);
        else kc_qs_on_result(qq, c, line);
        return;
    }
    /* One worker: its lines as a one-process run prints them, but for lines
     * that start as the run's own end does: an item's TALLY or SUMMARY line
     * must never stand in for the parent's (a log whose parent was killed
     * would end with them), so they keep the worker's prefix; on stderr too,
     * which a log saved with 2>&1 holds (Slurm's --output, Bazel's test.log:
     * an item's stderr TALLY and SUMMARY made such a log merge green). */
    if (qq->serial && !(strncmp(line, "TALLY", 5) == 0 || strncmp(line, "SUMMARY", 7) == 0))
        pre[0] = 0;
    else
        snprintf(pre, sizeof pre, "[w%d] ", w ? w->slot : 0);
    FILE *f = stream == KC_SUP_OUT ? stdout : stderr;
    /* The worker's line marker (item_run.h): dropped; a line that ends with it
     * is an item's output that had no newline before the item's line. */
    size_t ml = sizeof KC_LINE_MARK - 1;
    if (stream == KC_SUP_OUT && len >= ml && memcmp(line + len - ml, KC_LINE_MARK, ml) == 0) {
        len -= ml;
        if (!len) return;
    }
    /* What the worker prints is passed on as text: control bytes and invalid
     * UTF-8 escaped (line_text.h), so the run's output stays lines that a
     * line reader (grep, a CI log parser) reads; an item's own lines come
     * escaped already, and escaping them again changes nothing. */
    size_t need = kc_escaped_len(line, len) + 1;
    char *esc = malloc(need);
    if (esc) kc_escape_line(esc, need, line, len);
    const char *shown = esc ? esc : line;
    kc_report_relay(f, pre, shown, strlen(shown), cut);
    char t[256];
    snprintf(t, sizeof t, "%s%s", pre, shown);
    if (w) tail_add(w, t);
    free(esc);
}

static int pending(const queue *qq) { return kc_dispatch_pending(&qq->dp); }

/* ---- handing out items ---- */

/* A worker with lanes (--inflight K): items while it has lanes free and
 * the policy gives one; one to go alone is marked so in its request
 * (inflight.h, KC_INFLIGHT_ALONE). */
static void dispatch_lanes(queue *qq, wk *w, kc_child *c)
{
    int batch = 0;      /* items handed for a batch: a GO line follows them */
    while ((w->phase == KC_WK_IDLE || w->phase == KC_WK_RUNNING) && c->in >= 0 &&
           (c->state == KC_CHILD_IDLE || c->state == KC_CHILD_RUNNING) && w->book.open < w->book.k) {
        qq->dp.busy = kc_q_busy_count(qq);
        int alone, j = kc_dispatch_next(&qq->dp, w->slot, &alone);
        if (j < 0) break;
        kc_dispatch_item *di = &qq->di[j];
        const kc_item *it = &qq->items[qq->q[j].idx];
        alone = alone || di->rerun_alone || di->solo || (!di->shares && !di->batch);
        char line[300], ahead[KC_REQUEST_AHEAD_CAP];
        int len = snprintf(line, sizeof line, "%s%s%s\n", it->name, alone ? "\t" KC_INFLIGHT_ALONE : "",
                           kc_request_ahead_mark(ahead, kc_dispatch_ahead(&qq->dp, j)));
        double t = now_s();
        if (kc_sup_write(c, line, (size_t)len)) {     /* dying: its end settles what it has */
            kc_q_close_input(qq, w);
            return;
        }
        kc_dispatch_took(&qq->dp, j);
        if (di->sanitizer) kc_q_sessions(qq, w->slot, 1);   /* first: an item alone beside them is seen so */
        kc_admit_take(&qq->adm, w->devslot, di->host, di->gpu);
        kc_sup_mark(c, KC_CHILD_RUNNING);
        kc_ql_hand(qq, w, j, alone, di->batch, t);
        qq->dw[w->slot].last = it->contract;
        kc_report_busy(kc_q_busy_count(qq), 1);
        batch += di->batch && !alone;
    }
    if (batch && c->in >= 0 && kc_sup_write(c, "\t" KC_REQUEST_GO "\n", strlen(KC_REQUEST_GO) + 2))
        kc_q_close_input(qq, w);    /* dying: its end settles what it has */
}

static void dispatch(queue *qq)
{
    if (qq->fin.stopping || qq->interrupted) return;
    for (int i = 0; i < qq->nw; i++) {
        wk *w = &qq->w[i];
        kc_child *c = kc_q_child_of(qq, w);
        if (qq->k > 1) {
            dispatch_lanes(qq, w, c);
            continue;
        }
        if (w->phase != KC_WK_IDLE || c->state != KC_CHILD_IDLE || c->in < 0) continue;
        qq->dp.busy = kc_q_busy_count(qq);
        int alone, j = kc_dispatch_next(&qq->dp, w->slot, &alone);
        if (j >= 0) {
            qitem *qi = &qq->q[j];
            kc_dispatch_item *di = &qq->di[j];
            const kc_item *it = &qq->items[qi->idx];
            char line[300], ahead[KC_REQUEST_AHEAD_CAP];
            int len = snprintf(line, sizeof line, "%s%s\n", it->name, kc_request_ahead_mark(ahead, kc_dispatch_ahead(&qq->dp, j)));
            double t = now_s();        /* before the write: the worker may start (and end) the item at once */
            if (kc_sup_write(c, line, (size_t)len)) {     /* dying: its end settles it */
                kc_q_close_input(qq, w);
                continue;
            }
            if (alone && !di->rerun_alone) {
                char h[32], g[32], sh[32], sg[32], own[128] = "", held[80] = "";
                kc_bytes_str(di->host, h, sizeof h);
                kc_bytes_str(di->gpu, g, sizeof g);
                kc_bytes_str(qq->adm.sessions_host, sh, sizeof sh);
                size_t sgb = w->devslot >= 0 ? qq->adm.sessions_gpu[w->devslot] : 0;
                kc_bytes_str(sgb, sg, sizeof sg);
                if (di->sanitizer && (qq->adm.sessions_host || sgb) && !qq->dw[w->slot].sessions)
                    snprintf(own, sizeof own, " (and%s%s%s%s%s for the compute-sanitizer sessions it starts)",
                             qq->adm.sessions_host ? " host " : "", qq->adm.sessions_host ? sh : "",
                             qq->adm.sessions_host && sgb ? "," : "", sgb ? " GPU " : "", sgb ? sg : "");
                if (qq->adm.sessions_held || (w->devslot >= 0 && qq->adm.gpu_sessions_held[w->devslot]))
                    snprintf(held, sizeof held, " and the compute-sanitizer sessions held");
                kc_q_say(qq, "%s needs host %s%s and GPU %s, more than the memory left for items beside the workers' overheads%s; it runs alone\n",
                    it->name, h, own, g, held);
            }
            kc_dispatch_took(&qq->dp, j);
            if (di->sanitizer) kc_q_sessions(qq, w->slot, 1);   /* first: an item alone beside them is seen so */
            kc_admit_take(&qq->adm, w->devslot, di->host, di->gpu);
            kc_sup_mark(c, KC_CHILD_RUNNING);
            kc_q_phase(w, KC_WK_RUNNING);
            w->cur = j;
            w->tail_n = 0;              /* a CRASH's tail: this item's lines, not earlier items' */
            w->violation[0] = 0;
            w->nonce[0] = 0;
            w->fault_beside = 0;
            qq->dw[w->slot].last = it->contract;
            w->t_start = t;
            w->deadline = w->t_start + qi->limit;
            if (qq->sampler) kc_gpu_sampler_take_peak(c->pid);
            kc_report_busy(kc_q_busy_count(qq), 1);
        }
    }
}

void kc_q_stop_timed_out(queue *qq, wk *w, kc_child *c, const char *name, double limit)
{
    char procs[1200];
    kc_proc_describe_tree(c->pid, procs, sizeof procs);
    kc_q_phase(w, KC_WK_TIMED_OUT);
    kc_sup_stop(&qq->sup, c, SIGTERM, KC_SUP_GRACE_MS);
    kc_q_say(qq, "%s exceeded its time limit of %.6g s on worker %d; SIGTERM to its process group (SIGKILL after %d ms); "
             "the worker's processes then: %s\n", name, limit, w->slot, KC_SUP_GRACE_MS, procs);
}

/* Items past their time limit: SIGTERM to the worker's group, SIGKILL after
 * the grace (the supervisor's); workers not ready in time: SIGKILL. */
static void check_timers(queue *qq)
{
    double t = now_s();
    for (int i = 0; i < qq->nw; i++) {
        wk *w = &qq->w[i];
        kc_child *c = kc_q_child_of(qq, w);
        int has_item = w->phase == KC_WK_RUNNING || w->phase == KC_WK_SEALING;
        if (qq->k > 1) kc_ql_timers(qq, w, c, t);
        else if (c->state == KC_CHILD_RUNNING && has_item && !qq->interrupted && t >= w->deadline)
            kc_q_stop_timed_out(qq, w, c, qq->items[qq->q[w->cur].idx].name, qq->q[w->cur].limit);
        if (c->state == KC_CHILD_STARTING && w->phase == KC_WK_STARTING && !qq->interrupted && t >= w->ready_by) {
            kc_q_phase(w, KC_WK_LATE);
            kc_sup_stop(&qq->sup, c, SIGKILL, 0);
        }
    }
    kc_q_check_overdue(qq, t);
}

/* The earliest of the queue's own deadlines (0: none). */
static double next_deadline(const queue *qq)
{
    double d = 0;
    for (int i = 0; i < qq->nw; i++) {
        const wk *w = &qq->w[i];
        const kc_child *c = &qq->sup.c[i];
        double x = c->state == KC_CHILD_RUNNING && (w->phase == KC_WK_RUNNING || w->phase == KC_WK_SEALING)
                 ? (qq->k > 1 ? kc_ql_deadline(w) : w->deadline)
                 : c->state == KC_CHILD_STARTING && w->phase == KC_WK_STARTING ? w->ready_by : 0;
        if (x > 0 && (d <= 0 || x < d)) d = x;
    }
    double e = kc_q_next_end_by(qq);
    return e > 0 && (d <= 0 || e < d) ? e : d;
}

static void on_interrupted(void *ctx, kc_sup *s, int signo, int again, int n)
{
    queue *qq = ctx;
    char sb[32];
    const char *sn = kc_signal_name(signo, sb, sizeof sb);
    (void)s;
    if (again) {
        kc_q_say(qq, "%s again: killing %d worker%s (SIGKILL)\n", sn, n, n == 1 ? "" : "s");
        return;
    }
    qq->interrupted = signo;
    qq->fin.stopping = 1;
    snprintf(qq->fin.stop_why, sizeof qq->fin.stop_why, "interrupted by %s", sn);
    kc_q_say(qq, "%s: passed on to %d worker%s; waiting for them (SIGKILL after %d ms)\n", sn, n, n == 1 ? "" : "s",
        KC_SUP_GRACE_MS);
}

static const kc_sup_ops QUEUE_OPS = { on_line, kc_q_on_gone, on_interrupted };

static int loop(queue *qq)
{
    for (;;) {
        kc_qs_between_waits(qq);
        dispatch(qq);
        int more = !qq->fin.stopping && !qq->interrupted && pending(qq);
        if (!more) {    /* nothing left to hand out: workers not running an item get end of input and exit */
            for (int i = 0; i < qq->nw; i++)
                if (!kc_ql_items(qq, &qq->w[i])) kc_q_close_input(qq, &qq->w[i]);
            kc_qs_end(qq);
        }
        if (!kc_sup_live(&qq->sup)) break;
        if (kc_sup_wait(&qq->sup, next_deadline(qq))) return -1;
        check_timers(qq);
    }
    return 0;
}

/* ---- before and after ---- */

static void not_run(queue *qq)
{
    const char *why = qq->fin.stop_why[0] ? qq->fin.stop_why : "no worker could run it";
    for (int i = 0; i < qq->nq; i++) {
        qitem *qi = &qq->q[i];
        if (qi->reported) continue;
        kc_item_result r;
        memset(&r, 0, sizeof r);
        r.state = KC_NOTRUN;
        r.peak_rss_kib = -1;
        snprintf(r.msg, sizeof r.msg, "not run: %s", why);
        double t = now_s();
        kc_q_finish_item(qq, qi, &r, NULL, t, t, -1, 1, NULL);
    }
}

static int by_item_index(const void *a, const void *b, void *arg)
{
    const qitem *q = arg;
    int x = q[*(const int *)a].idx, y = q[*(const int *)b].idx;
    return (x > y) - (x < y);
}

static void finish_one_cached(queue *qq, int i)
{
    qitem *qi = &qq->q[i];
    qq->di[i].dispatched = 1;
    double t = now_s();
    kc_q_finish_item(qq, qi, qq->hits.by_item[qi->idx], NULL, t, t, -1, 1, NULL);
}

/* The items reused from the results cache finish first, their lines
 * printed by this process, before any worker starts, in the selection's
 * order (the registry's) as a serial run prints them, not the queue's
 * (which orders by cost: a reader looks a cached item up by name). */
static void finish_cached(queue *qq)
{
    if (!qq->hits.n) return;
    kc_say(stdout, "results cache: %d of %d item%s unchanged since %s passed, not run again (--no-cache runs "
           "%s)\n", qq->hits.n, qq->nq, qq->nq == 1 ? "" : "s", qq->hits.n == 1 ? "it" : "they",
           qq->hits.n == 1 ? "it" : "them");
    int *order = malloc((size_t)qq->nq * sizeof *order), m = 0;   /* NULL: the queue's order */
    for (int i = 0; i < qq->nq; i++)
        if (qq->hits.by_item[qq->q[i].idx]) order ? (void)(order[m++] = i) : finish_one_cached(qq, i);
    if (order) qsort_r(order, (size_t)m, sizeof *order, by_item_index, qq->q);
    for (int k = 0; order && k < m; k++) finish_one_cached(qq, order[k]);
    free(order);
    fflush(stdout);
}

/* A serial run given neither --costs nor --rerun-failed reads no cost table
 * (queue_setup.c) and used to write none: a table that is there (an earlier
 * --jobs run's) kept what that run recorded, so `run || run --rerun-failed`
 * retried those items, not the ones this run failed, and read green right
 * after it. It records its verdicts in a table that is there and reads (a
 * malformed one is left for --rerun-failed to refuse); it makes none. */
static int serial_records_costs(const queue *qq, const kc_opts *o)
{
    return qq->serial && !o->sharded && !o->parent && !kc_cli_writes_costs(o) && kc_costs_there(o->costs);
}

/* A --shard K/N slice (serially or with --jobs; also under Bazel's or
 * GoogleTest's shard variables) records its verdicts, seconds kept, in a
 * table that is there and reads: the slices are cut by those seconds, so
 * every slice of the multi-host run must see the same ones, but a slice
 * that records nothing left `run --shard K/N || run --shard K/N
 * --rerun-failed` to retry what an older run recorded, reading green after
 * a failure (a red-team's find). Not a --rerun-failed round's: every slice
 * of it selects from the table as it was, and its merge writes it back. */
static int shard_records_verdicts(const kc_opts *o)
{
    return o->sharded && !o->rerun_failed && !o->parent && !o->worker && kc_costs_there(o->costs);
}

/* Whether this run's end writes the cost table at o->costs: its
 * measurements (--jobs, --costs, --rerun-failed, a serial run beside a
 * table that is there) or a --shard K/N slice's verdicts. */
static int writes_costs(const queue *qq, const kc_opts *o)
{
    return kc_cli_writes_costs(o) || serial_records_costs(qq, o) || shard_records_verdicts(o);
}

/* The run's items recorded failed as it starts (kc_costs_mark_failed) in a
 * table its end writes, each set to its verdict at its end: a run killed
 * before its end (SIGKILL: a CI's time limit, the OOM killer), or whose
 * items no end records (SKIP without a GPU), leaves them failed, and its
 * retry (--rerun-failed, which keeps of its selection, or its slice, what
 * failed) runs them. Before, a --shard slice's retry ran nothing; a
 * serial or --jobs run's retry ran only what an older run had left failed,
 * and read green when that passed now (both red teams' finds). */
static void mark_selection_failed(const queue *qq, const kc_opts *o)
{
    const char **names = malloc(((size_t)qq->nq + 1) * sizeof *names);
    if (!names) {
        kc_say(stderr, "cannot record the run's items in the cost table %s: out of memory\n", o->costs);
        return;
    }
    for (int j = 0; j < qq->nq; j++) names[j] = qq->items[qq->q[j].idx].name;
    kc_costs_mark_failed(o->costs, names, qq->nq);
    free(names);
}

/* The work queue: --jobs N workers, or one for a serial run (serial). */
static int queue_run(const kc_opts *o, const kc_item *items, int n, int serial)
{
    queue qq;
    memset(&qq, 0, sizeof qq);
    qq.serial = serial;
    qq.k = o->inflight > 1 ? o->inflight : 1;
    qq.o = o;
    qq.items = items;
    qq.t0 = now_s();
    kc_tally_init(&qq.t);
    qq.fin = (kc_finish){ .o = o, .tally = &qq.t, .records = &qq.rec, .costs = &qq.costs };
    qq.t.seed = o->seed;
    qq.t.shard_k = o->shard_k;   /* 0/1 unless --shard K/N: this host's slice of a multi-host run */
    qq.t.shard_n = o->shard_n;
    qq.t.filter = kc_filter_hash(o->patterns, o->npatterns);
    qq.t.build = kc_build_id();
    kc_tally_set_options(&qq.t, o);
    kc_tally_set_host_env(&qq.t);
    qq.d = calloc(1, sizeof *qq.d);
    int rc = qq.d ? kc_q_setup(&qq, o, items, n) : 4, sup = 0;
    if (rc) goto out;
    if (writes_costs(&qq, o) && kc_costs_there(o->costs)) mark_selection_failed(&qq, o);
    finish_cached(&qq);
    qq.cap = o->max_restarts >= 0 ? o->max_restarts : KC_QUEUE_RESTART_CAP(qq.nw);
    qq.rec.workers = qq.nw;
    qq.w = calloc((size_t)(qq.nw ? qq.nw : 1), sizeof *qq.w);
    qq.dw = calloc((size_t)(qq.nw ? qq.nw : 1), sizeof *qq.dw);
    qq.dp.workers = qq.dw;
    qq.dp.nworkers = qq.nw;
    kc_proc_adopt_orphans();    /* what a dead worker leaves running becomes ours, to end (end_orphans) */
    qq.standby = kc_qs_wanted(&qq) ? qq.nw : -1;     /* its slot: past the workers' */
    if (!qq.w || !qq.dw || kc_sup_init(&qq.sup, qq.nw + (qq.standby >= 0), &QUEUE_OPS, &qq, 1) < 0) {
        kc_say(stderr, "cannot set up the workers: %s\n", strerror(errno));
        rc = 4;
        goto out;
    }
    sup = 1;
    if (qq.d->ndevs) qq.sampler = kc_gpu_sampler_start(0) == 0;
    for (int k = 0; k < qq.nw; k++) {
        wk *w = &qq.w[k];
        w->slot = k;
        w->cur = -1;
        w->devslot = qq.d->ndevs ? kc_shard_device_slot(k, qq.d->ndevs) : -1;
        qq.dw[k].devslot = w->devslot;
        w->device = qq.d->ndevs ? qq.d->dev[w->devslot].ordinal : 0;
    }
    for (int k = 0; k < qq.nw; k++)
        if (kc_q_spawn_worker(&qq, &qq.w[k])) {
            qq.fin.stopping = 1;
            snprintf(qq.fin.stop_why, sizeof qq.fin.stop_why, "worker %d could not be started", k);
            break;
        }
    if (!qq.fin.stopping) kc_qs_start(&qq);
    if (loop(&qq)) rc = 4;
    kc_sup_free(&qq.sup);       /* kills and reaps whatever a failed loop left */
    sup = 0;
    if (qq.sampler) kc_gpu_sampler_stop();
    if (rc) goto out;
    kc_qh_flush(&qq);
    kc_qn_flush(&qq);
    kc_qv_flush(&qq);
    not_run(&qq);
    kc_qd_settle(&qq);          /* after every verdict: ends that none of them explains */
    qq.rec.wall_s = now_s() - qq.t0;
    for (int j = 0; j < qq.nq; j++) qq.rec.ran_again += qq.q[j].again;
    kc_rcache_forget_beside_failures(qq.fin.cache, &qq.rec, items, n);
    kc_run_end e = {
        .o = o, .tally = &qq.t, .records = &qq.rec, .wall_s = qq.rec.wall_s, .items = qq.nq,
        .interrupted = qq.interrupted, .untrusted = qq.untrusted || qq.violated,
        .figures = qq.serial ? (o->parent ? KC_FIGURES_NONE : KC_FIGURES_SERIAL) : KC_FIGURES_WORKERS,
        .no_gpu_why = qq.d->ndevs ? NULL : qq.d->why,
        .write_costs = kc_cli_writes_costs(o) || serial_records_costs(&qq, o),  /* not a --shard K/N slice's */
        .record_verdicts = shard_records_verdicts(o),
        .write_reports = 1,
    };
    rc = kc_run_end_write(&e);
out:
    if (sup) kc_sup_free(&qq.sup);
    kc_qh_free(&qq);
    kc_qn_free(&qq);
    kc_qv_free(&qq);
    kc_qd_free(&qq);
    free(qq.w);
    free(qq.dw);
    free(qq.q);
    free(qq.di);
    free(qq.d);
    kc_rcache_hits_free(&qq.hits, n);
    kc_rcache_close(qq.fin.cache);
    kc_costs_free(&qq.costs);
    kc_records_free(&qq.rec);
    return rc;
}

int kc_queue_run(const kc_opts *o, const kc_item *items, int n) { return queue_run(o, items, n, 0); }

int kc_serial_run(const kc_opts *o, const kc_item *items, int n) { return queue_run(o, items, n, 1); }
