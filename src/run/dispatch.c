/* dispatch.c — owns the work queue's dispatch policy (dispatch.h): which
 * pending item a ready worker takes next. Pure: it reads the queue's figures
 * and the memory admission (costs.h), and changes nothing; only
 * kc_dispatch_took and kc_dispatch_released keep its own counts. */
#include "dispatch.h"

#include <stdint.h>

#include "size_sat.h"

int kc_dispatch_pending(const kc_dispatch *d)
{
    int n = 0;
    for (int i = 0; i < d->nitems; i++) n += !d->items[i].dispatched;
    return n;
}

/* Whether item `it` is of kind `want`. */
static int is_wanted(const kc_dispatch_item *it, kc_want want)
{
    switch (want) {
    case KC_WANT_SANITIZER: return it->sanitizer;
    case KC_WANT_OTHER: return !it->sanitizer;
    case KC_WANT_SANITIZER_CONTROL: return it->sanitizer_control;
    case KC_WANT_FAULT_CONTROL: return it->fault_control;
    case KC_WANT_UNSHARED: return !it->shares && !it->sanitizer;
    case KC_WANT_NONE: return 0;
    default: return 1;
    }
}

/* Whether item it is a control planted for the sanitizer, or for gate 1,
 * and as many of its kind as may run at once already do
 * (kc_dispatch.san_controls_max, fault_controls_max; a lost context still
 * being torn down counts as a control planted for gate 1 running). */
static int controls_full(const kc_dispatch *d, const kc_dispatch_item *it)
{
    return (it->sanitizer_control && d->san_controls_max > 0 && d->san_controls_running >= d->san_controls_max) ||
           (it->fault_control && d->fault_controls_max > 0 &&
            d->fault_controls_running + d->teardowns >= d->fault_controls_max);
}

/* Whether item it, put back after a run that was not its own (solo, from a
 * worker's lanes, or to run alone), waits because a lost context is still
 * being torn down: that teardown could end the context of its next run too,
 * which would then decide it. */
static int waits_for_teardown(const kc_dispatch *d, const kc_dispatch_item *it)
{
    return (it->solo || it->rerun_alone) && d->teardowns > 0;
}

/* Whether item it may go to worker wk beside what wk runs now: anything to
 * an empty worker; beside items of a batch, only more of a batch; beside
 * items in flight, one that shares. Never a solo item or one to rerun alone. */
static int fits_worker(const kc_dispatch_item *it, const kc_dispatch_worker *wk)
{
    if (wk->inflight == 0) return 1;
    if (it->solo || it->rerun_alone) return 0;
    return wk->batch ? it->batch && wk->batch == wk->inflight : it->shares;
}

/* Whether a worker holds compute-sanitizer sessions. */
static int any_holder(const kc_dispatch *d)
{
    for (int i = 0; i < d->nworkers; i++)
        if (d->workers[i].sessions) return 1;
    return 0;
}

/* need bytes, and for an item that runs the sanitizer on a worker without
 * sessions the `sessions` bytes of those it starts there (kc_admit_sessions). */
static size_t with_sessions(const kc_dispatch_item *it, const kc_dispatch_worker *wk, size_t need, size_t sessions)
{
    return kc_add_sat(need, it->sanitizer && !wk->sessions ? sessions : 0);
}

/* Whether the admission lets worker wk take item it now (*alone: it must
 * run alone, kc_admit_check), counting the sessions it would start; an item
 * that runs the sanitizer whose sessions would not fit beside those another
 * worker holds is left to that holder (it takes it with its own sessions),
 * never run alone beside them. */
static int admits(const kc_dispatch *d, const kc_dispatch_item *it, const kc_dispatch_worker *wk, int *alone)
{
    size_t sg = wk->devslot >= 0 && wk->devslot < d->adm->ndevs ? d->adm->sessions_gpu[wk->devslot] : 0;
    size_t h = with_sessions(it, wk, it->host, d->adm->sessions_host), g = with_sessions(it, wk, it->gpu, sg);
    if (!kc_admit_check(d->adm, wk->devslot, h, g, alone)) return 0;
    return !(*alone && it->sanitizer && !wk->sessions && (d->adm->sessions_host || sg) && any_holder(d));
}

int kc_dispatch_next_of_kind(const kc_dispatch *d, int w, kc_want want, int *alone)
{
    const kc_dispatch_worker *wk = &d->workers[w];
    int first = -1, first_alone = 0;
    for (int j = 0; j < d->nitems; j++) {
        const kc_dispatch_item *qi = &d->items[j];
        int a;
        if (qi->dispatched || qi->rerun_alone || !fits_worker(qi, wk)) continue;
        if (!is_wanted(qi, want) || controls_full(d, qi) || waits_for_teardown(d, qi)) continue;
        if (!admits(d, qi, wk, &a)) continue;
        if (wk->last && qi->contract == wk->last) {
            *alone = a;
            return j;
        }
        if (first < 0) {
            first = j;
            first_alone = a;
        }
        if (!wk->last) break;
    }
    *alone = first_alone;
    return first;
}

kc_want kc_dispatch_wants(const kc_dispatch *d, int w)
{
    double san = 0, other = 0;
    for (int j = 0; j < d->nitems; j++)
        if (!d->items[j].dispatched) *(d->items[j].sanitizer ? &san : &other) += d->items[j].cost;
    if (san <= 0) return KC_WANT_ANY;
    if (!d->sessions_on) return KC_WANT_ANY;                 /* no sessions: nothing to keep together */
    if (d->workers[w].sessions) return KC_WANT_SANITIZER;
    int holders = 0;
    for (int i = 0; i < d->nworkers; i++) holders += d->workers[i].sessions != 0;
    if (holders == 0) return KC_WANT_SANITIZER;
    double theirs = san / holders, ours = holders < d->nworkers ? other / (d->nworkers - holders) : 0;
    if (theirs > ours && theirs > d->session_start_s) return KC_WANT_SANITIZER;
    return other > 0 ? KC_WANT_OTHER : KC_WANT_NONE;
}

/* The controls planted for the sanitizer among the pending items from
 * index `from` on, in order (item `first`, handed out already, counted as
 * pending; -1 none), at most `window` items, up to the first control planted
 * for gate 1 (its worker loses the context and the sessions started there). */
static int controls_before_fault(const kc_dispatch *d, int from, int first, int window)
{
    int want = 0;
    for (int i = from, seen = 0; i < d->nitems && seen < window; i++) {
        if (d->items[i].dispatched && i != first) continue;
        if (d->items[i].fault_control) break;
        want += d->items[i].sanitizer_control;
        seen++;
    }
    return want;
}

int kc_dispatch_ahead(const kc_dispatch *d, int j)
{
    if (!d->sessions_on) return 0;
    if (d->nworkers == 1)           /* j and the KC_DISPATCH_AHEAD_ITEMS after it, whatever they are */
        return controls_before_fault(d, j, j, KC_DISPATCH_AHEAD_ITEMS + 1);
    if (!d->items[j].sanitizer) return 0;
    for (int i = 0; i < d->nitems; i++)
        if (i != j && !d->items[i].dispatched && d->items[i].sanitizer_control) return 1;
    return 0;
}

int kc_dispatch_ahead_past_fault(const kc_dispatch *d)
{
    if (!d->sessions_on || d->nworkers != 1) return 0;
    int i = 0;
    while (i < d->nitems && (d->items[i].dispatched || !d->items[i].fault_control)) i++;
    return controls_before_fault(d, i + 1, -1, KC_DISPATCH_AHEAD_ITEMS);   /* the fault's worker is the standby's */
}

int kc_dispatch_rerun_alone(const kc_dispatch *d, int j, kc_state state, int fault_beside)
{
    return !d->serial && fault_beside && (state == KC_TIMEOUT || state == KC_CRASH) && !d->items[j].rerun_alone;
}

/* An item put back to run alone, once no other item is pending: -1 none
 * (or others are still to hand out), else its index. */
static int last_rerun_alone(const kc_dispatch *d)
{
    int ra = -1;
    for (int j = 0; j < d->nitems; j++) {
        if (d->items[j].dispatched) continue;
        if (!d->items[j].rerun_alone) return -1;
        if (ra < 0) ra = j;
    }
    return ra;
}

void kc_dispatch_took(kc_dispatch *d, int j)
{
    kc_dispatch_item *it = &d->items[j];
    it->dispatched = 1;
    if (it->rerun_alone) d->alone_running = 1;
    d->san_controls_running += it->sanitizer_control;
    d->fault_controls_running += it->fault_control;
}

void kc_dispatch_released(kc_dispatch *d, int j)
{
    const kc_dispatch_item *it = &d->items[j];
    if (it->rerun_alone) d->alone_running = 0;
    if (it->sanitizer_control) d->san_controls_running--;
    if (it->fault_control) d->fault_controls_running--;
}

/* For a worker w with nothing in flight that does not want the sanitizer's
 * items: the next control planted for gate 1 the limit lets run, else with
 * lanes the next item that may not share (not the sanitizer's: those stay
 * with the holders of sessions), as kc_dispatch_next_of_kind takes them;
 * -1 none. */
static int alone_first(const kc_dispatch *d, int w, kc_want want, int *alone)
{
    if (d->workers[w].inflight != 0 || want == KC_WANT_SANITIZER) return -1;
    int j = kc_dispatch_next_of_kind(d, w, KC_WANT_FAULT_CONTROL, alone);
    return j < 0 && d->lanes ? kc_dispatch_next_of_kind(d, w, KC_WANT_UNSHARED, alone) : j;
}

int kc_dispatch_next(const kc_dispatch *d, int w, int *alone)
{
    if (d->alone_running) return -1;
    const kc_dispatch_worker *wk = &d->workers[w];
    int ra = last_rerun_alone(d);
    if (ra >= 0) {      /* it waits for the busy workers to finish; nothing else is left to start */
        int a;
        *alone = 1;
        if (d->busy || waits_for_teardown(d, &d->items[ra])) return -1;
        /* one of the sanitizer's goes to a holder when its own sessions would not fit beside theirs */
        return d->items[ra].sanitizer && !admits(d, &d->items[ra], wk, &a) && any_holder(d) ? -1 : ra;
    }
    if (wk->alone) return -1;       /* nothing beside an item that goes alone */
    if (wk->inflight == 0)          /* a solo item first: its verdict is what is still open */
        for (int j = 0; j < d->nitems; j++)
            if (!d->items[j].dispatched && d->items[j].solo && !d->items[j].rerun_alone &&
                !waits_for_teardown(d, &d->items[j]) && admits(d, &d->items[j], wk, alone))
                return j;
    if (d->serial) {        /* the selection's order, no preference: as a one-process run goes; an item put
                             * back to run alone waits for the others (last_rerun_alone), as in a --jobs run */
        *alone = 0;
        for (int j = 0; j < d->nitems; j++)
            if (!d->items[j].dispatched && !d->items[j].rerun_alone) return fits_worker(&d->items[j], wk) ? j : -1;
        return -1;
    }
    kc_want want = kc_dispatch_wants(d, w);
    if (want == KC_WANT_NONE) return -1;
    int j = alone_first(d, w, want, alone);
    if (j >= 0) return j;
    j = want == KC_WANT_SANITIZER ? kc_dispatch_next_of_kind(d, w, KC_WANT_SANITIZER_CONTROL, alone) : -1;
    if (j < 0) j = kc_dispatch_next_of_kind(d, w, want, alone);
    return j >= 0 || want == KC_WANT_ANY ? j : kc_dispatch_next_of_kind(d, w, KC_WANT_ANY, alone);
}
