/* queue_deaths.c — owns what the work queue parent concludes when a worker
 * process ends on its own without its end line (worker.h): not stopped by
 * the queue (a time limit, a protocol violation, overdue), not interrupted,
 * not having said itself why (KC_WORKER_UNTRUSTED). Such an end is an
 * exit() or _exit(), a signal, or an abort, and what caused it may be any
 * item that process ran: a thread, a signal or exit handler, or corrupted
 * memory an earlier item left is as likely as the item in hand. So:
 *   - the items that process passed before are suspects: the passes the
 *     results cache kept for them in this run are removed, and their
 *     records say so, so that the cost table records them failed and
 *     --rerun-failed runs them again with the item it ended under
 *     (a red-team found a thread an item left end the next item's process:
 *     that item was CRASH, the culprit's pass stayed cached, and the next
 *     run read green);
 *   - with items in flight (--inflight), those go back to run again alone
 *     (queue_lanes.c); when each of those runs comes out green the end is
 *     explained by none of them, and the run is not green (a serial run
 *     has the same end's CRASH; before, the --inflight run read green);
 *   - one item at a time, the item in hand is the end's CRASH
 *     (queue_workers.c), which fails the run already; with none in hand
 *     after items it passed (a --jobs worker left idle while the items
 *     pending wait: a lost context's teardown, the one control planted for
 *     gate 1 at a time; a serial run's worker replaced after a loss, ending
 *     in the standby's slot) no verdict explains the end, and the run is
 *     not green (kc_qd_unexplained; a red-team found a thread an item left
 *     kill such a worker with SIGABRT: the run read green where its serial
 *     run, whose next item the thread ended, was CRASH). The worker a
 *     serial run's standby replaced has its suspects too (before, their
 *     passes stayed cached, and the next cached run read green). */
#include "queue_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

int kc_qd_own_end(const queue *qq, int ended, int said, const kc_child *c)
{
    /* the status alone is not its word: an item's thread can exit() with it */
    said = said && WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == KC_WORKER_UNTRUSTED;
    return !ended && !qq->interrupted && !c->stop_signal && !said;
}

/* The item of queue qq named `name`, NULL none. */
static const kc_item *item_named(const queue *qq, const char *name)
{
    for (int j = 0; j < qq->nq; j++)
        if (strcmp(qq->items[qq->q[j].idx].name, name) == 0) return &qq->items[qq->q[j].idx];
    return NULL;
}

void kc_qd_suspects(queue *qq, int slot, const kc_child *c, const char *how)
{
    char names[600];
    size_t len = 0;
    int n = 0;
    names[0] = 0;
    for (int i = 0; i < qq->rec.n; i++) {
        kc_record *r = &qq->rec.v[i];
        /* its own failure is recorded already, and the cache keeps none */
        if (r->worker_pid != (long)c->pid || r->res.cached || r->suspect || kc_result_fails(&r->res)) continue;
        r->suspect = 1;
        const kc_item *it = item_named(qq, r->name);
        if (it) kc_rcache_forget(qq->fin.cache, it);
        if (n < 8 && len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", n ? ", " : "", r->name);
        n++;
    }
    if (!n) return;
    kc_q_say(qq, "worker %d (pid %ld) %s without its end line, on its own: whatever ended it may have been left by "
             "an item it ran before (a thread, a signal or exit handler), so the %d item%s it passed (%s%s) %s "
             "not kept in the results cache, and a cost table this run writes records %s failed (--rerun-failed "
             "runs %s)\n",
             slot, (long)c->pid, how, n, n == 1 ? "" : "s", names, n > 8 ? ", ..." : "", n == 1 ? "is" : "are",
             n == 1 ? "it" : "them", n == 1 ? "it" : "them");
}

int kc_qd_unexplained(queue *qq, int slot, const kc_child *c, const char *how)
{
    int n = 0;
    for (int i = 0; i < qq->rec.n; i++) n += qq->rec.v[i].worker_pid == (long)c->pid && qq->rec.v[i].suspect;
    if (!n) return 0;
    kc_q_say(qq, "worker %d (pid %ld) %s with no item in hand, after %d item%s it passed: no verdict explains that end "
             "(a serial run has it as the CRASH of the item it ends under), so the run is not green\n", slot,
             (long)c->pid, how, n, n == 1 ? "" : "s");
    qq->untrusted = 1;
    return 1;
}

void kc_qd_put_back(queue *qq, const wk *w, const kc_child *c, const char *how, int j)
{
    qdeath *d = qq->ndeaths ? &qq->deaths[qq->ndeaths - 1] : NULL;
    if (!d || d->pid != (long)c->pid) {
        if (qq->ndeaths == qq->capdeaths) {
            int cap = qq->capdeaths ? 2 * qq->capdeaths : 4;
            qdeath *v = realloc(qq->deaths, (size_t)cap * sizeof *v);
            if (!v) {   /* cannot follow it: the run is not green rather than read green unexplained */
                kc_q_say(qq, "out of memory to follow worker %d's end (pid %ld, %s): the run is not green\n", w->slot,
                         (long)c->pid, how);
                qq->untrusted = 1;
                return;
            }
            qq->deaths = v;
            qq->capdeaths = cap;
        }
        d = &qq->deaths[qq->ndeaths++];
        memset(d, 0, sizeof *d);
        d->slot = w->slot;
        d->pid = (long)c->pid;
        snprintf(d->how, sizeof d->how, "%s", how);
    }
    if (d->n < (int)(sizeof d->j / sizeof d->j[0])) d->j[d->n++] = j;
}

/* The last record of item j (its run alone, the one that counts), NULL none. */
static const kc_record *last_record(const queue *qq, int j)
{
    const char *name = qq->items[qq->q[j].idx].name;
    for (int i = qq->rec.n - 1; i >= 0; i--)
        if (strcmp(qq->rec.v[i].name, name) == 0) return &qq->rec.v[i];
    return NULL;
}

void kc_qd_settle(queue *qq)
{
    for (int k = 0; k < qq->ndeaths; k++) {
        const qdeath *d = &qq->deaths[k];
        char names[600];
        size_t len = 0;
        int explained = 0;
        names[0] = 0;
        for (int i = 0; i < d->n; i++) {
            const kc_record *r = last_record(qq, d->j[i]);
            if (!r || kc_result_fails(&r->res)) explained = 1;
            if (len < sizeof names)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                        qq->items[qq->q[d->j[i]].idx].name);
        }
        if (explained) continue;
        kc_q_say(qq, "worker %d (pid %ld) %s with items in flight (%s), and each passed its run alone: what ended the "
                 "process is not known (an earlier item's thread or handler, or one of them now and then), so the "
                 "run is not green; a serial run has that end's CRASH\n", d->slot, d->pid, d->how, names);
        qq->untrusted = 1;
    }
}

void kc_qd_free(queue *qq)
{
    free(qq->deaths);
    qq->deaths = NULL;
    qq->ndeaths = qq->capdeaths = 0;
}
