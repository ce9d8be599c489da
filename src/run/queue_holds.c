/* queue_holds.c — owns the work queue parent's verdicts reached with the
 * CUDA context lost on a GPU other workers share: such a verdict waits
 * (held) until every item that ran beside it on that GPU has ended, and
 * stands only if none of them lost its context too; else the item runs
 * again alone once the other items are done, and that run decides it
 * (fault_spans.h says why: on an H200 one process's fault ended another's
 * context, and the error names no culprit). The workers of such a run do
 * not print these verdicts (--gpu-shared, item_run.c); this file prints
 * the ones that stand. A serial run, and a run of one worker, keep their
 * worker's verdict as it printed it. */
#include "queue_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progname.h"
#include "state.h"

int kc_qh_gpu_shared(const queue *qq, int dev)
{
    int n = 0;
    for (int i = 0; !qq->serial && i < qq->nw; i++) n += qq->w[i].devslot == dev;
    return n > 1;
}

/* The earliest start of an item running on device slot dev other than
 * item `but`, or of a lost context's teardown there (a worker that reported
 * its loss and has not ended, but `but`'s own); a large value when none. */
static double earliest_running(const queue *qq, int dev, int but)
{
    double t = 1e300;
    for (int i = 0; i < qq->nw; i++) {
        const wk *w = &qq->w[i];
        if (w->devslot != dev) continue;
        if (w->lost_at > 0 && w->lost_by != but && w->lost_at < t) t = w->lost_at;
        if (qq->k > 1) {
            for (int l = 0; l < w->book.k; l++)
                if (w->book.lane[l].phase != KC_LANE_FREE && w->lane_item[l] != but && w->lane_start[l] < t)
                    t = w->lane_start[l];
        } else if (w->cur >= 0 && w->cur != but && w->t_start < t) {
            t = w->t_start;
        }
    }
    return t;
}

/* Item j's verdict is not known to be its own: said, and j goes back to
 * run alone (kc_q_rerun_alone). f: the span of the loss it met, -1 none
 * recorded (out of memory: the safe way). */
static void not_its_own(queue *qq, int j, const kc_item_result *r, int f)
{
    const char *name = qq->items[qq->q[j].idx].name;
    if (qq->interrupted || qq->fin.stopping) {     /* nothing more runs: NOTRUN at the end (queue.c, not_run) */
        kc_q_say(qq, "%s: %s with the CUDA context lost while another item on the same GPU lost its own, or was "
                 "stopped before it could say; its verdict is not known to be its own, and the run is stopping, so it "
                 "is not run again (NOTRUN)\n", name, kc_state_name(r->state));
    } else if (f >= 0 && qq->spans.v[f].teardown) {
        const kc_fault_span *s = &qq->spans.v[f];
        kc_q_say(qq, "%s: %s with the CUDA context lost while the context %s lost, on the same GPU, was being torn "
                 "down (this run %.2f-%.2f s; %s reported the loss at %.2f s and its worker ended at %.2f s); a fault "
                 "can end another process's context, so this verdict is not known to be its own: it runs again "
                 "alone once the other items are done, and that run decides it\n",
                 name, kc_state_name(r->state), qq->items[qq->q[s->item].idx].name, qq->q[j].held_start - qq->t0,
                 qq->q[j].held_end - qq->t0, qq->items[qq->q[s->item].idx].name, s->start - qq->t0, s->end - qq->t0);
    } else if (f >= 0) {
        const kc_fault_span *s = &qq->spans.v[f];
        kc_q_say(qq, "%s: %s with the CUDA context lost while %s, on the same GPU, lost its own or its worker (their runs overlapped: "
                 "%.2f-%.2f s and %.2f-%.2f s); a fault can end another process's context, so this verdict is not "
                 "known to be its own: it runs again alone once the other items are done, and that run decides it\n",
                 name, kc_state_name(r->state), qq->items[qq->q[s->item].idx].name, qq->q[j].held_start - qq->t0,
                 qq->q[j].held_end - qq->t0, s->start - qq->t0, s->end - qq->t0);
    } else {
        kc_q_say(qq, "%s: %s with the CUDA context lost; the run could not record when (out of memory), so this "
                 "verdict is not known to be its own: it runs again alone once the other items are done\n",
                 name, kc_state_name(r->state));
    }
    kc_q_rerun_alone(qq, &qq->q[j]);
}

void kc_qh_span(queue *qq, int j, int dev, double start, double end)
{
    if (kc_fault_spans_add(&qq->spans, j, dev, start, end))
        kc_say(stderr, "out of memory recording when %s lost its CUDA context\n", qq->items[qq->q[j].idx].name);
}

/* A teardown longer than this is said (seconds): on an H100 one held every
 * item on the GPU 5 s (fault_spans.h); a worker usually ends within
 * milliseconds of its loss. */
#define KC_QH_TEARDOWN_SAY_S 1.0

void kc_qh_teardown_begins(queue *qq, wk *w, double t)
{
    if (qq->serial || w->lost != KC_LOST_CONTEXT || w->lost_at > 0 || !kc_qh_gpu_shared(qq, w->devslot)) return;
    w->lost_at = t;
    qq->dp.teardowns++;
}

void kc_qh_teardown_ends(queue *qq, wk *w, double t)
{
    if (!(w->lost_at > 0)) return;
    if (w->lost_by >= 0 && kc_fault_spans_add_teardown(&qq->spans, w->lost_by, w->devslot, w->lost_at, t))
        kc_say(stderr, "out of memory recording when the context %s lost was torn down\n",
               qq->items[qq->q[w->lost_by].idx].name);
    if (t - w->lost_at > KC_QH_TEARDOWN_SAY_S && w->lost_by >= 0)
        kc_q_say(qq, "worker %d (pid %ld) ended %.1f s after %s reported its CUDA context lost; until then that "
                 "context was being torn down, and an item that lost its own context meanwhile runs again alone\n",
                 w->slot, (long)kc_q_child_of(qq, w)->pid, t - w->lost_at, qq->items[qq->q[w->lost_by].idx].name);
    w->lost_at = 0;
    qq->dp.teardowns--;
    kc_qh_ended(qq, w->devslot);
}

void kc_qh_lost(queue *qq, qitem *qi, kc_item_result *r, const char *detail, const wk *w, double start, double end,
                long gpu_mib)
{
    const int j = (int)(qi - qq->q);
    const int dev = w->devslot;
    qi->held_start = start;
    qi->held_end = end;
    int recorded = kc_fault_spans_add(&qq->spans, j, dev, start, end) == 0;
    kc_item_where at = kc_q_where(qq, w, start, end, gpu_mib, 1, NULL);
    snprintf(at.tag, sizeof at.tag, "[w%d] ", w->slot);     /* the line as its worker would have printed it */
    at.detail = detail && *detail ? detail : NULL;
    if (qq->di[j].rerun_alone) {    /* it ran with nothing beside it: its own */
        kc_q_finish_at(qq, qi, r, &at);
        return;
    }
    int f = recorded ? kc_fault_spans_beside(&qq->spans, j, dev, start, end) : -1;
    if (f >= 0 || !recorded) {
        not_its_own(qq, j, r, f);
        return;
    }
    if (earliest_running(qq, dev, j) <= end) {  /* an item that ran beside it may yet say it lost its context */
        const size_t dl = at.detail ? strlen(at.detail) : 0;
        qhold *h = malloc(sizeof *h + dl + 1);
        if (!h) {
            not_its_own(qq, j, r, -1);
            return;
        }
        h->r = *r;
        h->dev = dev;
        memcpy(h->detail, dl ? at.detail : "", dl + 1);
        h->at = at;
        h->at.detail = dl ? h->detail : NULL;
        qi->held = h;
        return;
    }
    kc_q_finish_at(qq, qi, r, &at);
}

/* Held item j's wait is over: its verdict stands or it runs again alone. */
static void resolve(queue *qq, int j)
{
    qitem *qi = &qq->q[j];
    qhold *h = qi->held;
    qi->held = NULL;
    int f = kc_fault_spans_beside(&qq->spans, j, h->dev, qi->held_start, qi->held_end);
    if (f >= 0) {
        not_its_own(qq, j, &h->r, f);
    } else {
        kc_q_finish_at(qq, qi, &h->r, &h->at);
    }
    free(h);
}

void kc_qh_ended(queue *qq, int dev)
{
    for (int j = 0; j < qq->nq; j++) {
        const qitem *qi = &qq->q[j];
        if (qi->held && qi->held->dev == dev && earliest_running(qq, dev, j) > qi->held_end) resolve(qq, j);
    }
}

void kc_qh_flush(queue *qq)
{
    for (int j = 0; j < qq->nq; j++)
        if (qq->q[j].held) resolve(qq, j);
}

void kc_qh_free(queue *qq)
{
    for (int j = 0; qq->q && j < qq->nq; j++) {
        free(qq->q[j].held);
        qq->q[j].held = NULL;
    }
    kc_fault_spans_free(&qq->spans);
}
