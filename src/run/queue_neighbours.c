/* queue_neighbours.c — owns the work queue parent's rule for a verdict
 * reached in flight (--inflight K > 1): a kernel's PASS or a control's RED
 * (kc_inflight_final) stands only when every item in flight beside it in
 * its worker reached a final verdict too. The items in flight share one
 * process and one CUDA context, so one address space: a write far past an
 * item's buffers that would fault alone can land in a neighbour's buffer
 * instead (on the H200 the four kv_cache.*:control.slot_offset_i32 were
 * RED by gate 3 in flight where alone gate 1, and kv_cache kernels beside
 * them FAILed; docs/receipts/2026-12-04-h200-final-tree). Such a write
 * leaves a mark on one side or the other: the neighbour hit fails, or the
 * item that wrote runs on. So when any item in flight beside it was not
 * final (put back to run solo, or in flight when its worker ended), the
 * verdict is not known to be the item's own and the item is put back solo
 * too. Until every neighbour that was still in flight when it ended has a
 * verdict, the verdict waits here (held); then it stands and this file
 * prints it, as its worker would have ("[wK] ", the lines under it). The
 * rule is not transitive: only the items that overlapped the item's run in
 * its worker (the parent's view from hand-out to result, which holds the
 * worker's) count. */
#include "queue_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

/* Held item j's verdict stands: counted, kept and printed. */
static void stand(queue *qq, int j)
{
    qitem *qi = &qq->q[j];
    qwait *h = qi->wait;
    qi->wait = NULL;
    kc_q_finish_at(qq, qi, &h->r, &h->at);
    free(h);
}

/* Item j's verdict in flight was final but a neighbour's was not: it goes
 * back solo, said with both. */
static void not_known_its_own(queue *qq, int j, kc_state state, int beside, const char *beside_verdict)
{
    char why[KC_INFLIGHT_NAME + 400];
    /* The rule, not a blame: the neighbour's verdict may be a MISSED or a
     * KNOWN that no stray write caused; only that it is not final counts. */
    snprintf(why, sizeof why, "%s in flight beside %s, whose verdict there (%s) is not final; a verdict reached in flight "
             "stands only when every item beside it reached a final one, since a write outside one item's buffers can "
             "land in another's instead of faulting; so this one is not known to be its own", kc_state_name(state),
             qq->items[qq->q[beside].idx].name, beside_verdict);
    kc_ql_put_back_solo(qq, j, why);
}

void kc_qn_handed(queue *qq, int j)
{
    qq->q[j].beside_bad = -1;
}

void kc_qn_final(queue *qq, const wk *w, int l, kc_item_result *r, const char *detail)
{
    const int j = w->lane_item[l];
    qitem *qi = &qq->q[j];
    if (qi->beside_bad >= 0) {
        not_known_its_own(qq, j, r->state, qi->beside_bad, qi->beside_bad_verdict);
        return;
    }
    int on[KC_INFLIGHT_MAX], n = 0;
    for (int o = 0; o < w->book.k; o++)
        if (o != l && w->book.lane[o].phase != KC_LANE_FREE) on[n++] = w->lane_item[o];
    const size_t dl = detail ? strlen(detail) : 0;
    qwait *h = malloc(sizeof *h + dl + 1);
    if (!h) {
        kc_ql_put_back_solo(qq, j, "its neighbours' verdicts could not be awaited (out of memory)");
        return;
    }
    h->r = *r;
    memcpy(h->detail, dl ? detail : "", dl + 1);
    h->at = kc_q_where_sent(qq, w, w->lane_start[l], kc_sup_now(), -1, NULL);
    h->at.detail = dl ? h->detail : NULL;
    h->slot = w->slot;
    h->n = n;
    memcpy(h->on, on, (size_t)n * sizeof *on);
    qi->wait = h;
    if (!n) stand(qq, j);
}

void kc_qn_decided(queue *qq, const wk *w, int j)
{
    for (int x = 0; x < qq->nq; x++) {
        qwait *h = qq->q[x].wait;
        if (!h || h->slot != w->slot) continue;
        for (int i = 0; i < h->n; i++)
            if (h->on[i] == j) h->on[i--] = h->on[--h->n];
        if (!h->n) stand(qq, x);
    }
}

void kc_qn_not_final(queue *qq, const wk *w, int j, const char *verdict)
{
    for (int l = 0; l < w->book.k; l++) {       /* the items in flight beside it now */
        int o = w->lane_item[l];
        if (w->book.lane[l].phase == KC_LANE_FREE || o == j || qq->q[o].beside_bad >= 0) continue;
        qq->q[o].beside_bad = j;
        snprintf(qq->q[o].beside_bad_verdict, sizeof qq->q[o].beside_bad_verdict, "%s", verdict);
    }
    for (int x = 0; x < qq->nq; x++) {          /* and those that ended before it, waiting for it */
        qwait *h = qq->q[x].wait;
        if (!h || h->slot != w->slot) continue;
        for (int i = 0; i < h->n; i++) {
            if (h->on[i] != j) continue;
            qq->q[x].wait = NULL;
            not_known_its_own(qq, x, h->r.state, j, verdict);
            free(h);
            break;
        }
    }
}

void kc_qn_flush(queue *qq)
{
    for (int x = 0; x < qq->nq; x++) {
        qwait *h = qq->q[x].wait;
        if (!h) continue;
        qq->q[x].wait = NULL;
        kc_q_say(qq, "%s: %s in flight, but %d item%s beside it never reached a verdict; not known to be its own, "
                 "and the run is over (NOTRUN)\n", qq->items[qq->q[x].idx].name, kc_state_name(h->r.state), h->n,
                 h->n == 1 ? "" : "s");
        free(h);
        if (!qq->fin.stop_why[0])        /* not_run's reason for it */
            snprintf(qq->fin.stop_why, sizeof qq->fin.stop_why, "an item beside it in flight never reached a verdict");
    }
}

void kc_qn_free(queue *qq)
{
    for (int x = 0; qq->q && x < qq->nq; x++) {
        free(qq->q[x].wait);
        qq->q[x].wait = NULL;
    }
}
