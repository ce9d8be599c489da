/* queue_lanes.c — owns the work queue parent's side of a worker with
 * several items in flight (--inflight K > 1; the worker: worker_lanes.h;
 * the protocol's book: inflight.h): each item's lane (its deadline, nonce
 * and phase), the results taken by the book's checks, and re-execution:
 * an item whose verdict in flight is not final (kc_inflight_final), and
 * every item still in flight when its worker ended (a lost context, a
 * lane's time limit, a crash), is put back solo and decided by a run with
 * nothing beside it in its worker; a final verdict stands only beside
 * final ones (queue_neighbours.c). An item handed alone is settled as a
 * worker of one item at a time settles it (queue.c). */
#include "queue_types.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "progname.h"
#include "reporter.h"
#include "state.h"

int kc_ql_items(const queue *qq, const wk *w) { return qq->k > 1 ? w->book.open : w->cur >= 0; }

void kc_ql_reset(queue *qq, wk *w)
{
    char err[128];
    if (qq->k > 1) kc_inflight_init(&w->book, qq->k, err, sizeof err);   /* k checked by the option */
    qq->dw[w->slot].inflight = 0;
    qq->dw[w->slot].alone = 0;
}

static void recount(queue *qq, wk *w)
{
    int alone = 0, batch = 0;
    for (int l = 0; l < w->book.k; l++) {
        alone |= w->book.lane[l].phase != KC_LANE_FREE && w->lane_alone[l];
        batch += w->book.lane[l].phase != KC_LANE_FREE && w->lane_batch[l];
    }
    qq->dw[w->slot].inflight = w->book.open;
    qq->dw[w->slot].alone = alone;
    qq->dw[w->slot].batch = batch;
}

/* w's items in flight handed for a batch: how many, and their time limits
 * summed into *limit (the batch's: they run in turn). */
static int batch_open(const queue *qq, const wk *w, double *limit)
{
    int n = 0;
    *limit = 0;
    for (int o = 0; o < w->book.k; o++)
        if (w->book.lane[o].phase != KC_LANE_FREE && w->lane_batch[o]) n++, *limit += qq->q[w->lane_item[o]].limit;
    return n;
}

void kc_ql_hand(queue *qq, wk *w, int j, int alone, int batch, double t)
{
    char err[300];
    int l = kc_inflight_hand(&w->book, qq->items[qq->q[j].idx].name, err, sizeof err);
    if (l < 0) {            /* the queue's bug: dispatch asked only with a lane free */
        kc_say(stderr, "internal error: worker %d: %s\n", w->slot, err);
        return;
    }
    w->lane_item[l] = j;
    w->lane_start[l] = t;
    w->lane_deadline[l] = t + qq->q[j].limit;
    w->lane_alone[l] = alone;
    w->lane_batch[l] = batch && !alone;
    if (w->lane_batch[l]) {         /* the batch's items run in turn, and all end together */
        double total;
        batch_open(qq, w, &total);
        for (int o = 0; o < w->book.k; o++)
            if (w->book.lane[o].phase != KC_LANE_FREE && w->lane_batch[o] && w->lane_deadline[o] < t + total)
                w->lane_deadline[o] = t + total;
    }
    kc_qn_handed(qq, j);
    if (w->book.open == 1) {
        w->tail_n = 0;
        w->violation[0] = 0;
        w->fault_beside = 0;
        kc_q_phase(w, KC_WK_RUNNING);
    }
    recount(qq, w);
}

/* Lane l's item leaves the worker: its memory back to the admission. */
static void lane_release(queue *qq, wk *w, int l)
{
    const kc_dispatch_item *di = &qq->di[w->lane_item[l]];
    kc_admit_release(&qq->adm, w->devslot, di->host, di->gpu);
    kc_dispatch_released(&qq->dp, w->lane_item[l]);
    kc_inflight_close(&w->book, l);
    recount(qq, w);
    kc_qh_ended(qq, w->devslot);
}

void kc_ql_put_back_solo(queue *qq, int j, const char *state_why)
{
    qitem *qi = &qq->q[j];
    if (qq->interrupted || qq->fin.stopping)    /* nothing more runs: NOTRUN at the end (queue.c, not_run) */
        kc_q_say(qq, "%s: %s; the run is stopping, so it is not run again (NOTRUN)\n", qq->items[qi->idx].name,
                 state_why);
    else
        kc_q_say(qq, "%s: %s; its verdict is decided by a run with nothing beside it\n", qq->items[qi->idx].name,
                 state_why);
    qq->di[j].dispatched = 0;
    qq->di[j].solo = 1;
    qi->reported = 0;
    qi->again = 1;              /* cleared if it ends NOTRUN instead (kc_q_finish_item) */
}

void kc_ql_on_result(queue *qq, wk *w, kc_child *c, const char *line)
{
    char err[400], ans[KC_INFLIGHT_NAME + KC_NONCE_LEN + 4], name[KC_INFLIGHT_NAME];
    size_t dn = strlen(KC_RESULT_DONE);
    if (strncmp(line, KC_RESULT_DONE, dn) == 0 && line[dn] == '\t') {
        if (kc_inflight_done(&w->book, line, ans, sizeof ans, err, sizeof err) < 0) {
            kc_q_protocol_violated(qq, w, c, line, err);
            return;
        }
        if (kc_sup_write(c, ans, strlen(ans))) kc_q_close_input(qq, w);   /* dying: its end settles the items */
        return;
    }
    const char *body;
    int l = kc_inflight_take(&w->book, line, &body, err, sizeof err);
    kc_item_result r;
    if (l < 0 || kc_result_parse(body, name, sizeof name, &r, err, sizeof err)) {
        kc_q_protocol_violated(qq, w, c, line, err);
        return;
    }
    int j = w->lane_item[l];
    qitem *qi = &qq->q[j];
    const kc_item *it = &qq->items[qi->idx];
    static char detail[KC_RESULT_LINE_CAP];     /* its worker did not print it, nor the lines under it */
    if (r.context_lost == KC_LOST_CONTEXT && w->lane_alone[l] && kc_qh_gpu_shared(qq, w->devslot)) {
        kc_result_detail(body, detail, sizeof detail);
        kc_qh_lost(qq, qi, &r, detail, w, w->lane_start[l], kc_sup_now(), -1);
    } else if (w->lane_batch[l] && r.state == KC_LEAK) {   /* unprinted: whose leftovers they are is not known */
        kc_ql_put_back_solo(qq, j, "LEAK in a batch of :sanitize items, where what was left running may be another "
                                   "item's of the batch");
    } else if (w->lane_alone[l] || w->lane_batch[l]) {  /* its verdict stands: nothing ran beside it in its
                                                     * context (a batch's ran in sanitizer sessions, whose
                                                     * verdicts kc_sanitize_batch decides) */
        /* a batch's items end together: each is recorded (costs, reports)
         * with its own share of the batch's wall, not the whole of it */
        double end = kc_sup_now(), start = w->lane_batch[l] && end - r.seconds > w->lane_start[l] ? end - r.seconds
                                                                                                  : w->lane_start[l];
        if (kc_item_line_waits_end(it, &r)) {
            kc_qv_hold(qq, qi, &r, w, start, end, -1);  /* unprinted: it waits for the end line */
        } else {        /* its worker sent its line (item_run.h): printed here, after what the item printed */
            kc_result_detail(body, detail, sizeof detail);
            kc_sup_drain(&qq->sup, c, KC_SUP_OUT);
            kc_sup_drain(&qq->sup, c, KC_SUP_ERR);
            kc_item_where at = kc_q_where_sent(qq, w, start, end, -1, detail);
            kc_q_finish_at(qq, qi, &r, &at);
        }
    } else if (kc_inflight_final(it, &r)) {
        kc_result_detail(body, detail, sizeof detail);
        kc_qn_final(qq, w, l, &r, detail);
        kc_qn_decided(qq, w, j);
    } else {
        if (r.context_lost == KC_LOST_CONTEXT)  /* its own fault, maybe, that ended other workers' contexts */
            kc_qh_span(qq, j, w->devslot, w->lane_start[l], kc_sup_now());
        char verdict[64], why[200];
        snprintf(verdict, sizeof verdict, "%s%s", kc_state_name(r.state), r.context_lost == KC_LOST_GPU_STATE
                 ? " with GPU state left in its process" : r.context_lost ? " with the CUDA context lost" : "");
        kc_qn_not_final(qq, w, j, verdict);
        snprintf(why, sizeof why, "%s in flight beside other items", verdict);
        kc_ql_put_back_solo(qq, j, why);
    }
    lane_release(qq, w, l);
    /* The worker's phase (worker_phase.h) says what its lanes say together:
     * RUNNING while any item is in flight; its last result is taken as one
     * worker's is, SEALING then IDLE (or RETIRING). */
    if (r.context_lost) {       /* it ends by itself; what else it had in flight goes back (kc_ql_gone) */
        kc_q_fault_beside(qq, w);
        kc_q_phase(w, KC_WK_SEALING);
        kc_q_phase(w, KC_WK_RETIRING);
        w->lost = r.context_lost;
        w->lost_by = j;
        kc_qh_teardown_begins(qq, w, kc_sup_now());
        kc_q_close_input(qq, w);
    } else if (!w->book.open && w->phase == KC_WK_RUNNING) {
        kc_q_phase(w, KC_WK_SEALING);
        kc_q_phase(w, KC_WK_IDLE);
        kc_sup_mark(c, KC_CHILD_IDLE);
    }
    kc_report_busy(kc_q_busy_count(qq), 1);
}

void kc_ql_timers(queue *qq, wk *w, kc_child *c, double t)
{
    if (c->state != KC_CHILD_RUNNING || w->phase != KC_WK_RUNNING || qq->interrupted) return;
    for (int l = 0; l < w->book.k; l++) {
        if (w->book.lane[l].phase == KC_LANE_FREE || t < w->lane_deadline[l]) continue;
        if (!w->lane_batch[l]) {
            kc_q_stop_timed_out(qq, w, c, w->book.lane[l].name, qq->q[w->lane_item[l]].limit);
            return;
        }
        /* which item of a batch holds it up is not known: the batch is named */
        char what[1024];
        double total;
        int n = batch_open(qq, w, &total);
        int len = snprintf(what, sizeof what, "a batch of %d :sanitize item%s (", n, n == 1 ? "" : "s");
        for (int o = 0, i = 0; o < w->book.k && len < (int)sizeof what; o++)
            if (w->book.lane[o].phase != KC_LANE_FREE && w->lane_batch[o])
                len += snprintf(what + len, sizeof what - (size_t)len, "%s%s", i++ ? ", " : "", w->book.lane[o].name);
        if (len < (int)sizeof what)
            snprintf(what + len, sizeof what - (size_t)len, "; which of them holds it up is not known)");
        kc_q_stop_timed_out(qq, w, c, what, total);
        return;
    }
}

double kc_ql_deadline(const wk *w)
{
    double d = 0;
    if (w->phase != KC_WK_RUNNING) return 0;
    for (int l = 0; l < w->book.k; l++)
        if (w->book.lane[l].phase != KC_LANE_FREE && (d <= 0 || w->lane_deadline[l] < d)) d = w->lane_deadline[l];
    return d;
}

int kc_ql_gone(queue *qq, wk *w, kc_child *c, const char *how)
{
    int settled = 0;
    const int own = kc_qd_own_end(qq, w->ended, w->said, c);        /* nothing the run did ended it (queue_deaths.c) */
    /* A worker that died under its items (not one the queue stopped, nor
     * one retiring after a loss it reported): each item's run is a loss
     * (queue_holds.c), as a worker of one item's is (queue_workers.c). */
    const int crashed = !qq->interrupted && w->phase != KC_WK_RETIRING && w->phase != KC_WK_TIMED_OUT &&
                        w->phase != KC_WK_VIOLATED && w->phase != KC_WK_OVERDUE;
    for (int l = 0; crashed && l < w->book.k; l++)
        if (w->book.lane[l].phase != KC_LANE_FREE) kc_qh_span(qq, w->lane_item[l], w->devslot, w->lane_start[l], c->exited);
    for (int l = 0; l < w->book.k; l++)         /* no verdict in flight: the ones waiting for them go back */
        if (w->book.lane[l].phase != KC_LANE_FREE && !w->lane_alone[l] && !w->lane_batch[l])
            kc_qn_not_final(qq, w, w->lane_item[l], "none: it was in flight when its worker ended");
    for (int l = 0; l < w->book.k; l++) {
        if (w->book.lane[l].phase == KC_LANE_FREE) continue;
        int j = w->lane_item[l];
        if (w->lane_alone[l] || qq->interrupted) {      /* as one item at a time: its verdict (queue.c) */
            w->cur = j;
            w->t_start = w->lane_start[l];
            kc_q_settle_item(qq, w, c, how);        /* releases its memory; w->cur -1 again */
            kc_inflight_close(&w->book, l);
            recount(qq, w);
            settled = 1;
            continue;
        }
        char why[200];
        snprintf(why, sizeof why, "in flight on worker %d (pid %ld) when it %s%s", w->slot, (long)c->pid,
                 w->phase == KC_WK_TIMED_OUT ? "was stopped at a time limit and " : "", how);
        kc_ql_put_back_solo(qq, j, why);
        if (own) kc_qd_put_back(qq, w, c, how, j);
        lane_release(qq, w, l);
    }
    kc_qh_ended(qq, w->devslot);       /* the settled lanes closed after their release asked */
    return settled;
}
