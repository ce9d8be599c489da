/* queue_vouch.c — owns the work queue parent's clean :sanitize verdicts
 * that wait for their worker's end line (worker.h). A worker's
 * compute-sanitizer sessions serve many items; a session's summary, which
 * may count errors no item's window held, is checked only when the
 * sessions end, and only the worker's end line says that check passed. So
 * a PASS given in sessions (kc_item_line_waits_end) is not printed by its
 * worker: it waits here, keyed by the worker's pid, and is counted and
 * printed once that worker wrote its end line. A worker that ends under
 * another item without the line (killed at its TIMEOUT, a crash, an
 * item's exit) never had its sessions checked: each verdict waiting on it
 * goes back to run again alone (once the other items are done), and that
 * run, vouched for by its own worker's end line, decides it. Before,
 * those verdicts stood unvouched, and when the item it ended under was
 * decided by its run alone the run read green. The other ends without
 * the line already make the run not green (kc_q_end_vouched): there, and
 * when the run is stopping (an interrupt, --fail-fast, the restart cap),
 * each is NOTRUN: nothing runs it again. Counted as given, a clean verdict
 * no summary vouched for stood as PASS: after SIGINT or SIGTERM in the
 * TALLY, the JUnit and JSON reports and a merge of that shard's log, which
 * read green (exit 0); after --fail-fast in the cost table (failed 0), so
 * a retry with --rerun-failed never ran it; the run without either failed
 * on a report only the summary held. */
#include "queue_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signame.h"
#include "state.h"

/* Item j's waiting verdict is counted and printed as given. */
static void count(queue *qq, int j)
{
    qitem *qi = &qq->q[j];
    qvouch *v = qi->vouch;
    qi->vouch = NULL;
    kc_q_finish_at(qq, qi, &v->r, &v->at);
    free(v);
}

void kc_qv_hold(queue *qq, qitem *qi, const kc_item_result *r, const wk *w, double start, double end, long gpu_mib)
{
    qvouch *v = malloc(sizeof *v);
    if (!v) {
        kc_item_result now = *r;
        kc_q_finish_item(qq, qi, &now, w, start, end, gpu_mib, 1, NULL);
        kc_q_say(qq, "%s: its clean verdict could not wait for its worker's end line (out of memory), so it is not "
                 "vouched for and the run is not green\n", qq->items[qi->idx].name);
        qq->untrusted = 1;
        return;
    }
    v->r = *r;
    v->at = kc_q_where_sent(qq, w, start, end, gpu_mib, NULL);
    v->pid = (long)kc_q_child_of(qq, w)->pid;
    qi->vouch = v;
}

/* The names of the verdicts waiting on pid, ", " between, into buf (cap at
 * least 8; the list ends ", ..." where the next name would not fit); their
 * count. */
static int waiting_on(const queue *qq, long pid, char *buf, size_t cap)
{
    int n = 0, cut = 0;
    size_t len = 0;
    buf[0] = 0;
    for (int j = 0; j < qq->nq; j++) {
        if (!qq->q[j].vouch || qq->q[j].vouch->pid != pid) continue;
        const char *name = qq->items[qq->q[j].idx].name;
        if (!cut && len + strlen(name) + 2 + 5 < cap)       /* room left for ", ..." */
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", n ? ", " : "", name);
        else if (!cut) {
            snprintf(buf + len, cap - len, "%s...", n ? ", " : "");
            cut = 1;
        }
        n++;
    }
    return n;
}

/* Item j's waiting verdict, whose worker (slot, pid) ended before its
 * sessions' summaries were checked while the run stops (an interrupt,
 * --fail-fast): NOTRUN, as every item the stop leaves unfinished (it fails
 * the run everywhere, and the cost table records it failed, so
 * --rerun-failed runs it again). */
static void not_vouched(queue *qq, int j, int slot, long pid)
{
    qitem *qi = &qq->q[j];
    kc_item_result *r = &qi->vouch->r;
    char sb[32];
    r->state = KC_NOTRUN;
    r->rerun[0] = 0;
    qi->vouch->at.tag[0] = 0;       /* the parent's line, as its other NOTRUN lines (docs/output-format.md) */
    char why[sizeof qq->fin.stop_why];
    if (qq->interrupted) snprintf(why, sizeof why, "interrupted by %s", kc_signal_name(qq->interrupted, sb, sizeof sb));
    else snprintf(why, sizeof why, "%s", qq->fin.stop_why[0] ? qq->fin.stop_why : "the run stopped");
    snprintf(r->msg, sizeof r->msg, "not run: %s, before worker %d (pid %ld) said its compute-sanitizer sessions vouch "
             "(worker.h): their summaries were never checked, so the clean verdict they gave is not the item's", why,
             slot, pid);
    count(qq, j);
}

void kc_qv_release(queue *qq, int slot, long pid, kc_qv_end how)
{
    char names[1200];
    const int n = waiting_on(qq, pid, names, sizeof names);
    if (!n) return;
    if (how == KC_QV_RUN_AGAIN)
        kc_q_say(qq, "worker %d (pid %ld) ended under an item before it said its compute-sanitizer sessions vouch "
                 "(worker.h), so the clean verdict%s they gave (%s) %s not vouched for: %s back to run again alone, "
                 "and only %s run counts\n", slot, pid, n == 1 ? "" : "s", names, n == 1 ? "is" : "are",
                 n == 1 ? "it goes" : "each goes", n == 1 ? "that" : "its");
    for (int j = 0; j < qq->nq; j++) {
        qitem *qi = &qq->q[j];
        if (!qi->vouch || qi->vouch->pid != pid) continue;
        if (how == KC_QV_AS_GIVEN && (qq->interrupted || qq->fin.stopping)) {
            not_vouched(qq, j, slot, pid);
            continue;
        }
        if (how != KC_QV_RUN_AGAIN) {
            count(qq, j);
            continue;
        }
        free(qi->vouch);
        qi->vouch = NULL;
        kc_q_rerun_alone(qq, qi);
    }
}

void kc_qv_flush(queue *qq)
{
    for (int j = 0; j < qq->nq; j++) {
        if (!qq->q[j].vouch) continue;
        kc_q_say(qq, "%s: its clean verdict still waits for its worker's end line (pid %ld) at the run's end; it is "
                 "not vouched for, and the run is not green\n", qq->items[qq->q[j].idx].name, qq->q[j].vouch->pid);
        qq->untrusted = 1;
        count(qq, j);
    }
}

void kc_qv_free(queue *qq)
{
    for (int j = 0; qq->q && j < qq->nq; j++) {
        free(qq->q[j].vouch);
        qq->q[j].vouch = NULL;
    }
}
