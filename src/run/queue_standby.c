/* queue_standby.c — owns the standby worker of a serial run's queue: a
 * worker process started ahead, in a supervisor slot of its own past the
 * workers', that opens its CUDA context at once (KC_REQUEST_OPEN,
 * inflight.h) and takes the place of the worker that ends (its item lost
 * the context or left device memory allocated, or it crashed), where a
 * process started only then made the next item wait for its start, its
 * context and the harness's module. On the H200 that was 0.2 s each time
 * (0.07 s before the item, 0.13 s in it), and the bundled library's serial
 * run replaces its worker 16 times (docs/receipts/2026-12-04-h200-serial-ahead).
 *
 * Kept for a serial run with a GPU item, one item at a time (no --inflight:
 * its worker's lanes open their own streams), while at least two items are
 * pending (the worker's and one after a loss). It holds no item, so its end
 * decides nothing: one that ends before it is needed is said and not
 * replaced (the run goes on starting workers as before), and once every
 * item is handed out it is killed. It runs nothing but its start, so
 * anything on its result pipe but READY is a protocol violation (the run is
 * not green). */
#include "queue_types.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "progname.h"

int kc_qs_wanted(const queue *qq)
{
    return qq->serial && qq->k == 1 && qq->nw == 1 && qq->d->ndevs > 0 && qq->gpu_items > 0;
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
    static const char open_line[] = "\t" KC_REQUEST_OPEN "\n";
    if (kc_sup_write(c, open_line, sizeof open_line - 1)) kc_sup_close_stdin(c);   /* dying: its end says so */
}

void kc_qs_on_result(queue *qq, kc_child *c, const char *line)
{
    if (strcmp(line, KC_RESULT_READY) == 0 && !qq->standby_ready) {
        qq->standby_ready = 1;
        if (c->state == KC_CHILD_STARTING) kc_sup_mark(c, KC_CHILD_IDLE);
        return;
    }
    if (c->stop_signal) return;         /* stopped already: nothing it says counts */
    kc_q_say(qq, "the standby worker (pid %ld) wrote '%.120s' on its result pipe before it was given an item; "
             "stopped (SIGKILL), and the run is not green: a result line comes only from a worker running that item\n",
             (long)c->pid, line);
    qq->violated = 1;
    qq->standby_off = 1;
    kc_sup_stop(&qq->sup, c, SIGKILL, 0);
}

void kc_qs_on_gone(queue *qq, kc_child *c)
{
    qq->standby_ready = 0;
    if (qq->standby_ending || qq->interrupted || qq->standby_off) return;
    char how[128];
    kc_sup_describe_status(c->wstatus, how, sizeof how);
    kc_q_say(qq, "the standby worker (pid %ld) %s before it was needed; workers are started when needed from now "
             "on\n", (long)c->pid, how);
    qq->standby_off = 1;
}

int kc_qs_take(queue *qq, wk *w)
{
    kc_child *c = standby_child(qq);
    if (!c || qq->standby_off || (c->state != KC_CHILD_STARTING && c->state != KC_CHILD_IDLE)) return -1;
    const int ready = qq->standby_ready;
    kc_sup_swap(&qq->sup, w->slot, qq->standby);
    qq->standby_ready = 0;
    kc_q_fresh(qq, w);
    if (ready) kc_q_phase(w, KC_WK_IDLE);      /* its READY came while it waited */
    kc_qs_start(qq);                            /* the next one, in the slot the ended worker left */
    return 0;
}

void kc_qs_end(queue *qq)
{
    kc_child *c = standby_child(qq);
    if (!c || qq->standby_ending) return;
    qq->standby_ending = 1;
    if (c->state != KC_CHILD_GONE) kc_sup_stop(&qq->sup, c, SIGKILL, 0);
}
