/* queue_standby.c — owns the standby worker of a serial run's queue: a
 * worker process started ahead, in a supervisor slot of its own past the
 * workers', that opens its CUDA context at once (KC_REQUEST_OPEN,
 * inflight.h) and takes the place of the worker that ends, where a
 * process started only then made the next item wait for the old one's end,
 * then for its own start, context and harness module: on the H200 0.06-0.08 s
 * before the item and 0.13 s in it, and the bundled library's serial run
 * replaces its worker 16 times (docs/receipts/2026-12-04-h200-serial-ahead).
 * When the worker's item lost the context or left device memory allocated,
 * the standby takes its slot as soon as that result is read (between the
 * supervisor's waits, kc_qs_between_waits) and the old process ends in the
 * standby's slot, its end said as it would have been in its own; when the
 * worker crashed, once it has ended (kc_qs_take). Then another starts.
 *
 * Kept for a serial run with a GPU item, one item at a time (no --inflight:
 * its worker's lanes open their own streams), on a device in the default
 * compute mode (an exclusive one takes one context at a time: the standby's
 * would keep the worker's out), while at least two items are pending (the
 * worker's and one after a loss). It holds no item, so its end
 * decides nothing: one that ends before it is needed is said and not
 * replaced (the run goes on starting workers as before), and once every
 * item is handed out it is killed, with the sanitizer sessions it may have
 * started for the controls past the next context loss
 * (kc_dispatch_ahead_past_fault), which served nothing: the queue ends
 * them at once and says nothing of them (kc_qs_killed_at_end). It runs no
 * item, so anything on its result pipe but READY is a protocol violation
 * (the run is not green); the worker it replaced, ending in its slot, may
 * still write its end line (KC_RESULT_ENDED, worker.h), which alone vouches
 * for that worker's sanitizer sessions, and is stopped when it does not end
 * in time (kc_q_check_overdue). */
#include "queue_types.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "progname.h"

int kc_qs_wanted(const queue *qq)
{
    return qq->serial && qq->k == 1 && qq->nw == 1 && qq->d->ndevs > 0 && qq->d->shared[0] && qq->gpu_items > 0;
}

int kc_qs_is(const queue *qq, const kc_child *c) { return qq->standby >= 0 && c->slot == qq->standby; }

/* Its child, when one was ever started there. */
static kc_child *standby_child(queue *qq) { return qq->standby >= 0 ? &qq->sup.c[qq->standby] : NULL; }

void kc_qs_start(queue *qq)
{
    kc_child *c = standby_child(qq);
    if (!c || qq->standby_off || qq->standby_ending || qq->fin.stopping || qq->interrupted || c->state != KC_CHILD_GONE ||
        kc_dispatch_pending(&qq->dp) < 2)
        return;
    if (kc_q_spawn(qq, qq->standby, qq->w[0].device)) {
        qq->standby_off = 1;
        return;
    }
    qq->standby_ready = 0;
    /* with its context, the sessions of the controls planted for the
     * sanitizer it will run first once it takes the worker's place */
    char line[64], ahead[KC_REQUEST_AHEAD_CAP];
    int len = snprintf(line, sizeof line, "\t%s%s\n", KC_REQUEST_OPEN,
                       kc_request_ahead_mark(ahead, kc_dispatch_ahead_past_fault(&qq->dp)));
    if (kc_sup_write(c, line, (size_t)len)) kc_sup_close_stdin(c);   /* dying: its end says so */
}

void kc_qs_on_result(queue *qq, kc_child *c, const char *line)
{
    if (!qq->standby_retired && strcmp(line, KC_RESULT_READY) == 0 && !qq->standby_ready) {
        qq->standby_ready = 1;
        if (c->state == KC_CHILD_STARTING) kc_sup_mark(c, KC_CHILD_IDLE);
        return;
    }
    if (qq->standby_retired && strcmp(line, KC_RESULT_ENDED) == 0 && !qq->retired_ended && !qq->retired_said) {
        qq->retired_ended = 1;          /* the worker it replaced ends: its sessions vouch (worker.h), also when
                                         * it was stopped overdue after the line */
        return;
    }
    if (qq->standby_retired && strcmp(line, KC_RESULT_UNTRUSTED) == 0 && !qq->retired_ended && !qq->retired_said) {
        qq->retired_said = 1;           /* ... or says they do not: its status is its own */
        return;
    }
    if (c->stop_signal) return;         /* stopped already: nothing it says counts */
    kc_q_say(qq, "%s (pid %ld) wrote '%.120s' on its result pipe %s; stopped (SIGKILL), and the run is not green: a "
             "result line comes only from a worker running that item\n",
             qq->standby_retired ? "the worker that lost its context" : "the standby worker", (long)c->pid, line,
             qq->standby_retired ? "after its last item" : "before it was given an item");
    qq->violated = 1;
    if (!qq->standby_retired) qq->standby_off = 1;
    kc_sup_stop(&qq->sup, c, SIGKILL, 0);
}

/* The worker kc_qs_retire replaced has ended: what its end would have said
 * in its own slot (queue.c, on_gone), then the next standby. */
static void retired_gone(queue *qq, kc_child *c, const char *how, int abnormal)
{
    qq->standby_retired = 0;
    if (qq->interrupted) return;
    kc_q_say_ended(qq, qq->retired_worker, c, how, abnormal);
    if (abnormal && !qq->fin.stopping && kc_dispatch_pending(&qq->dp))
        kc_q_count_restart(qq, "no more items are handed out");
    kc_qs_start(qq);
}

void kc_qs_on_gone(queue *qq, kc_child *c, const char *how, int abnormal)
{
    if (qq->standby_retired) {
        retired_gone(qq, c, how, abnormal);
        return;
    }
    qq->standby_ready = 0;
    if (qq->standby_ending || qq->interrupted || qq->standby_off) return;
    kc_q_say(qq, "the standby worker (pid %ld) %s before it was needed; workers are started when needed from now "
             "on\n", (long)c->pid, how);
    qq->standby_off = 1;
}

/* Whether the standby is there to take a worker's place. */
static int standby_alive(queue *qq)
{
    kc_child *c = standby_child(qq);
    return c && !qq->standby_off && !qq->standby_retired &&
           (c->state == KC_CHILD_STARTING || c->state == KC_CHILD_IDLE);
}

/* The standby into w's slot (the child there goes to the standby's). */
static void hand_over(queue *qq, wk *w)
{
    const int ready = qq->standby_ready;
    kc_sup_swap(&qq->sup, w->slot, qq->standby);
    qq->standby_ready = 0;
    kc_q_fresh(qq, w);
    if (ready) kc_q_phase(w, KC_WK_IDLE);      /* its READY came while it waited */
}

int kc_qs_take(queue *qq, wk *w)
{
    if (!standby_alive(qq)) return -1;
    hand_over(qq, w);
    kc_qs_start(qq);                            /* the next one, in the slot the ended worker left */
    return 0;
}

void kc_qs_retire(queue *qq, wk *w)
{
    if (standby_alive(qq)) qq->retiring = w->slot + 1;     /* handed over between waits (the supervisor still reads w's child) */
}

void kc_qs_between_waits(queue *qq)
{
    if (!qq->retiring) return;
    wk *w = &qq->w[qq->retiring - 1];
    qq->retiring = 0;
    if (w->phase != KC_WK_RETIRING || kc_q_child_of(qq, w)->state == KC_CHILD_GONE || !standby_alive(qq) ||
        qq->fin.stopping || qq->interrupted || !kc_dispatch_pending(&qq->dp))
        return;                                 /* its end replaces it (queue.c, on_gone) */
    const int lost = w->lost, by = w->lost_by;
    qq->retired_ended = w->ended;               /* its end line, if it came already */
    qq->retired_said = w->said;
    qq->retired_held = qq->dw[w->slot].sessions;
    qq->retired_end_by = w->end_by;
    kc_q_phase(w, KC_WK_GONE);                  /* its process is the standby slot's now */
    hand_over(qq, w);
    qq->standby_retired = 1;
    qq->retired_worker = w->slot;
    kc_q_say_fresh(qq, 0, lost, by);
}

void kc_qs_end(queue *qq)
{
    kc_child *c = standby_child(qq);
    if (!c || qq->standby_ending) return;
    qq->standby_ending = 1;
    /* a worker that lost its context still ends by itself: its sessions'
     * summaries decide whether its sanitizer verdicts are trusted; the
     * standby is killed at once, and the sanitizer sessions it started
     * ahead, which served nothing, with it (kc_qs_killed_at_end) */
    if (c->state != KC_CHILD_GONE && !qq->standby_retired) kc_sup_stop(&qq->sup, c, SIGKILL, 0);
}

int kc_qs_end_vouched(queue *qq, const kc_child *c)
{
    if (!qq->standby_retired) return 0;     /* a standby that took no item: its sessions served nothing */
    return kc_q_end_vouched(qq, qq->retired_worker, c, qq->retired_ended, qq->retired_held, 0);
}

int kc_qs_killed_at_end(const queue *qq, const kc_child *c)
{
    return qq->standby >= 0 && c->slot == qq->standby && qq->standby_ending && !qq->standby_retired;
}
