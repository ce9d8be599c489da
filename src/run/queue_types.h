/* queue_types.h — the work queue parent's private types (queue.c): a
 * selected item, a worker slot and the queue itself, shared with the files
 * that hold parts of the parent. Not an interface: only src/run/queue*.c
 * include it. */
#ifndef KC_QUEUE_TYPES_H
#define KC_QUEUE_TYPES_H
#include "costs.h"
#include "dispatch.h"
#include "fault_spans.h"
#include "finish.h"
#include "inflight.h"
#include "jobs.h"
#include "record.h"
#include "result_cache.h"
#include "supervisor.h"
#include "tally.h"
#include "worker.h"
#include "worker_phase.h"

/* A verdict reached with the CUDA context lost on a GPU other workers
 * share, waiting for the items that ran beside it (queue_holds.c): one
 * allocation, the lines under it at its end. */
typedef struct qhold {
    kc_item_result r;
    kc_item_where at;           /* where and when it ran, for its record (at.detail: detail below, or NULL) */
    int dev;                    /* its GPU (device slot) */
    char detail[];              /* the lines under its line ('\n' between; "" none) */
} qhold;

/* A verdict reached in flight that is final (kc_inflight_final), waiting
 * for the items still in flight beside it in its worker when it ended
 * (queue_neighbours.c): one allocation, the lines under it at its end. */
typedef struct qwait {
    kc_item_result r;
    kc_item_where at;           /* where and when it ran, printed with its worker's tag (at.detail: detail, or NULL) */
    int slot;                   /* its worker slot */
    int n;                      /* how many of on[] have no verdict yet */
    int on[KC_INFLIGHT_MAX];    /* their qitems */
    char detail[];              /* the lines under its line ('\n' between; "" none) */
} qwait;

/* A clean :sanitize verdict waiting for its worker's end line
 * (queue_vouch.c): one allocation. */
typedef struct qvouch {
    kc_item_result r;
    kc_item_where at;           /* where and when it ran, printed with its worker's tag */
    long pid;                   /* the worker whose sessions gave it */
} qvouch;

/* A worker that ended on its own without its end line with items in
 * flight, put back to run again alone (queue_deaths.c): whether their
 * runs alone explain the end is settled at the run's end. */
typedef struct qdeath {
    int slot;
    long pid;
    char how[128];              /* its status in words */
    int n;
    int j[2 * KC_INFLIGHT_MAX + 1];     /* the qitems it had in flight */
} qdeath;

/* A selected item: what the queue keeps of it beside what the dispatch
 * policy reads (kc_dispatch_item, the same index in queue.di). */
typedef struct qitem {
    int idx;                    /* into items */
    double limit;
    int recorded;               /* cost from the table (else an estimate) */
    int reported;
    qhold *held;                /* its verdict held (queue_holds.c); NULL none */
    double held_start, held_end; /* its last run that lost the context, on the queue's clock */
    qwait *wait;                /* its verdict in flight waits for its neighbours (queue_neighbours.c); NULL none */
    qvouch *vouch;              /* its clean :sanitize verdict waits for its worker's end line (queue_vouch.c) */
    int beside_bad;             /* in flight now: a neighbour's verdict there was not final, this qitem; -1 none */
    char beside_bad_verdict[64]; /* ... and that verdict in words */
    int again;                  /* its first verdict was not known to be its own: it runs again alone (counted
                                 * under the SUMMARY, kc_records.ran_again) */
} qitem;

/* A worker slot: the supervisor's child of the same index, and what the
 * queue keeps of it. */
typedef struct wk {
    int slot;                   /* worker index: the [wK] prefix */
    int device, devslot;        /* CUDA ordinal; slot in the devinfo (-1: no GPU) */
    int cur;                    /* the qitem it runs, -1 none */
    double t_start, deadline;   /* the item's start and time limit */
    double ready_by;            /* STARTING: it must say it is ready by then */
    kc_worker_phase phase;      /* where it is in the protocol (worker_phase.h) */
    int lost;                   /* RETIRING: why (KC_LOST_*, worker.h) */
    int lost_by;                /* ... and the qitem whose result said so (-1 none): the restart line names it */
    double lost_at;             /* ... with the context lost on a GPU others share: when it said so (0 none);
                                 * until its process ends the driver may be tearing that context down
                                 * (kc_qh_teardown_begins) */
    int fault_beside;           /* another item on its GPU faulted while its item ran (kc_dispatch_rerun_alone) */
    int ended;                  /* it wrote KC_RESULT_ENDED: its sessions' summaries were checked and vouch (worker.h) */
    int said;                   /* it wrote KC_RESULT_UNTRUSTED: they do not; its KC_WORKER_UNTRUSTED status is its own */
    double end_by;              /* its input closed (kc_q_close_input): OVERDUE when it has not ended by then; 0 none */
    int spawned;
    char nonce[KC_NONCE_LEN + 1]; /* SEALING: its item's nonce, sent once it said the item is over (worker.h) */
    char violation[256];        /* VIOLATED while its item ran: the item is CRASH with this */
    char tail[KC_QUEUE_TAIL_LINES][256];
    int tail_n;
    /* --inflight K > 1 (queue_lanes.c): its items in flight, one a lane; cur,
     * t_start, deadline and nonce above are unused (-1, 0). */
    kc_inflight book;           /* the lanes' names, phases and nonces (inflight.h) */
    int lane_item[KC_INFLIGHT_MAX];         /* the qitem of each open lane */
    double lane_start[KC_INFLIGHT_MAX], lane_deadline[KC_INFLIGHT_MAX];
    int lane_alone[KC_INFLIGHT_MAX];        /* handed to go alone: nothing beside it */
    int lane_batch[KC_INFLIGHT_MAX];        /* handed for a batch (kc_dispatch_item .batch): its verdict stands
                                             * as an item's that went alone */
} wk;

typedef struct queue {
    const kc_opts *o;
    const kc_item *items;
    qitem *q;
    int nq;
    wk *w;
    int nw;
    kc_dispatch_item *di;       /* [nq]: each item as the dispatch policy sees it (dispatch.h) */
    kc_dispatch_worker *dw;     /* [nw]: each worker as it sees it: its last contract, its sessions */
    kc_dispatch dp;             /* the policy's view of both */
    kc_sup sup;
    kc_devinfo *d;
    kc_admit adm;
    kc_tally t;
    kc_records rec;
    kc_costs costs;
    int interrupted;            /* the first SIGINT or SIGTERM */
    kc_finish fin;              /* how items finish (finish.h); fin.stopping: no more items handed out */
    int untrusted;              /* a worker's sanitizer session counted errors no item held (worker.h) */
    int restarts, cap;
    double t0;
    int sampler;                /* GPU memory sampler running */
    int serial;                 /* a serial or --shard K/N run: one worker, the items in selection order, its
                                 * lines unprefixed (kc_serial_run) */
    int violated;               /* a worker broke the result protocol between items: the run is not green */
    qdeath *deaths;             /* workers that ended on their own with items in flight (queue_deaths.c) */
    int ndeaths, capdeaths;
    int k;                      /* --inflight: items in flight per worker (1: one at a time, as before) */
    kc_rcache_hits hits;        /* the verdicts reused from the results cache (result_cache.h) */
    int gpu_items;              /* selected items that need a GPU */
    int standby;                /* the standby worker's supervisor slot (nw), -1 none (queue_standby.c) */
    int standby_ready;          /* it said it is ready */
    int standby_off;            /* no standby from now on: one ended before it was needed, or could not start */
    int standby_ending;         /* the run's items are all handed out: it was stopped */
    int standby_retired;        /* the standby's slot holds the worker it replaced, ending (kc_qs_retire) */
    int retired_worker;         /* ... which was worker slot this */
    int retired_ended;          /* ... and which wrote KC_RESULT_ENDED (worker.h) */
    int retired_said;           /* ... or KC_RESULT_UNTRUSTED */
    int retired_held;           /* ... and which was handed :sanitize items (kc_dispatch_worker.sessions) */
    double retired_end_by;      /* ... and which must end by then (wk.end_by) */
    int retiring;               /* worker slot + 1 whose standby hand-over waits for the loop (kc_qs_retire); 0 none */
    kc_fault_spans spans;       /* the runs that lost their CUDA context or their worker (queue_holds.c) */
} queue;

/* queue_setup.c: everything before the first worker starts (the selection,
 * costs, devices, cache lookups, memory plan, the dispatch policy's items,
 * the header) into qq, whose o, items, serial, t, fin, d the caller set.
 * 0, or the run's exit status: 2 refused (said), 4 internal error. */
int kc_q_setup(queue *qq, const kc_opts *o, const kc_item *items, int n);

/* queue.c's and queue_workers.c's parts that the queue's files share (each as it says there). */
void kc_q_say(queue *qq, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Item `name` of w passed its time limit: what w's processes were doing
 * (kc_proc_describe_tree, read before they are stopped: the sanitizer's
 * sessions, a child of the item's), then SIGTERM to w's group, and a line
 * saying both. */
void kc_q_stop_timed_out(queue *qq, wk *w, kc_child *c, const char *name, double limit);
kc_child *kc_q_child_of(queue *qq, const wk *w);
void kc_q_phase(wk *w, kc_worker_phase to);
/* Item qi is reported with *r, recorded where *at says (the run's one way
 * to report an item: kc_finish_item, finish.h); a NOTRUN clears its
 * ran-again mark. kc_q_finish_item words *at from w and the times. */
void kc_q_finish_at(queue *qq, qitem *qi, kc_item_result *r, const kc_item_where *at);
void kc_q_finish_item(queue *qq, qitem *qi, kc_item_result *r, const wk *w, double start, double end,
                      long gpu_mib, int print, const char *tail);
/* Where and when an item ran on w (NULL: never handed out), for its record. */
kc_item_where kc_q_where(queue *qq, const wk *w, double start, double end, long gpu_mib, int print, const char *tail);
/* The record of a verdict its worker sent for the parent to print
 * (queue_neighbours.c, queue_vouch.c): kc_q_where printing it with the
 * worker's tag ("[wK] ", none in a serial run), the item's own seconds and
 * detail's lines under it (NULL or "": none). */
kc_item_where kc_q_where_sent(queue *qq, const wk *w, double start, double end, long gpu_mib, const char *detail);
void kc_q_release(queue *qq, wk *w, qitem *qi);
/* qi goes back to run again alone once the other items are done, and that
 * run decides it (kc_dispatch_rerun_alone, dispatch.h). */
void kc_q_rerun_alone(queue *qq, qitem *qi);
void kc_q_fault_beside(queue *qq, const wk *from);
int kc_q_busy_count(const queue *qq);
void kc_q_protocol_violated(queue *qq, wk *w, kc_child *c, const char *line, const char *why);
void kc_q_settle_item(queue *qq, wk *w, const kc_child *c, const char *how);
/* Starts a worker process in supervisor slot `slot` for CUDA device
 * `device`: 0, or -1 (said on stderr). */
int kc_q_spawn(queue *qq, int slot, int device);
/* Starts w's process (kc_q_spawn) and makes it fresh (kc_q_fresh): 0, or -1. */
int kc_q_spawn_worker(queue *qq, wk *w);
/* The supervisor's callback for a worker that is GONE (exited, its pipes
 * closed): its item settled, then the standby or a fresh process in its
 * place, unless the run stops or nothing is pending (queue_workers.c). */
void kc_q_on_gone(void *ctx, kc_sup *s, kc_child *c);
/* Worker slot starts (on 1: it took an item that runs the sanitizer) or
 * stops (on 0: its process ended) holding compute-sanitizer sessions: the
 * policy's flag (kc_dispatch_worker .sessions) and the host memory the
 * admission holds for them (kc_admit_sessions), on each change only. */
void kc_q_sessions(queue *qq, int slot, int on);
/* w's slot holds a process just started (or the standby it took): no item,
 * STARTING, ready by KC_QUEUE_START_S after the process's start. */
void kc_q_fresh(queue *qq, wk *w);
/* A worker (slot) that ended with no item, c its child, how its status in
 * words: what it left behind, or (abnormal) its status, unless the run was
 * interrupted or the queue killed it. */
void kc_q_say_ended(queue *qq, int slot, const kc_child *c, const char *how, int abnormal);
/* What a worker whose input closed gets to end beyond its sanitizer
 * sessions' time limit (it waits that long for them to end, KC_SANITIZE_TIMEOUT_S,
 * else KC_SAN_TIMEOUT_S): its CUDA context's teardown (under 0.1 s after a
 * fault on an H100, 5 s once beside other contexts: the halves receipt of
 * 2026-12-06) and what its items left ending (KC_LEAK_TIMEOUT_MS). */
#define KC_QUEUE_END_EXTRA_S 20.0
/* Seconds a worker whose input closed has to end (above), from the close,
 * or from its READY when the close came while it was starting (queue.c).
 * Test hook: KC_FAULT_END_EXTRA_S=<s> (0 < s <= KC_QUEUE_END_EXTRA_S) in
 * place of KC_QUEUE_END_EXTRA_S, so tests of the limit take seconds. */
double kc_q_end_limit_s(void);
/* Closes w's input to end it (the run's end, or after a loss): from now it
 * has kc_q_end_limit_s() to end (w->end_by), else kc_q_check_overdue stops it. */
void kc_q_close_input(queue *qq, wk *w);
/* Stops, at time t, the workers whose input closed and that have not ended
 * by their end_by (OVERDUE; the standby's slot's retired worker too): SIGTERM
 * to the group, SIGKILL after the grace, said with the processes it has
 * then. Their sessions vouch only if their end line came before
 * (kc_q_end_vouched). */
void kc_q_check_overdue(queue *qq, double t);
/* The earliest end_by of a worker still to end (0 none), for the wait. */
double kc_q_next_end_by(const queue *qq);
/* Whether worker c (slot `slot`), ended, vouches for its sanitizer sessions:
 * it wrote its end line (`ended`, KC_RESULT_ENDED, worker.h), however its
 * process ended after. Without it, not interrupted and not having said
 * itself why not (KC_WORKER_UNTRUSTED), the run is not green (said;
 * qq->untrusted) when it exited 0 unstopped with no item in hand
 * (under_item 0: an exit() or _exit() replaced its status after its items;
 * under an item, that item's CRASH settles it) or when it was handed
 * :sanitize items (`held`) with sessions on and ended another way with no
 * item in hand (killed, crashed, stopped overdue): their summaries were
 * never checked; or, unstopped, when it ended another way with no item in
 * hand after items it passed (kc_qd_unexplained). Under an item its end is that item's CRASH or TIMEOUT;
 * the sessions' earlier verdicts are then not kept in the cache, and stand
 * in the run only when a rerun alone decides that item (queue_workers.c
 * says why). queue_workers.c. */
int kc_q_end_vouched(queue *qq, int slot, const kc_child *c, int ended, int held, int under_item);
/* queue_deaths.c: a worker that ends on its own without its end line.
 * Whether a worker (child c, GONE; ended: it wrote its end line; said: it
 * wrote KC_RESULT_UNTRUSTED) ended so: no end line, not interrupted, not
 * stopped by the queue, not KC_WORKER_UNTRUSTED after saying so. */
int kc_qd_own_end(const queue *qq, int ended, int said, const kc_child *c);
/* Such an end of worker `slot`: the items c's process passed before are
 * suspects (their records' suspect set, the passes this run kept for them
 * removed from the results cache), said in one line naming them (none:
 * nothing said). */
void kc_qd_suspects(queue *qq, int slot, const kc_child *c, const char *how);
/* Such an end with no item in hand, after kc_qd_suspects: when c's process
 * passed items (suspects), no verdict explains the end: said, the run is
 * not green (qq->untrusted), 1; else 0. */
int kc_qd_unexplained(queue *qq, int slot, const kc_child *c, const char *how);
/* Such an end put item j, in flight, back to run again alone. */
void kc_qd_put_back(queue *qq, const wk *w, const kc_child *c, const char *how, int j);
/* At the run's end: each such end whose items put back all came out green
 * alone is explained by none of them: said, and the run is not green
 * (qq->untrusted). */
void kc_qd_settle(queue *qq);
void kc_qd_free(queue *qq);
/* An abnormal end counts against the restart cap: 0 while under it
 * (counted); -1 once it is reached: no more items are handed out
 * (fin.stopping, why in fin.stop_why), said with `then` (what the queue
 * does not do now). */
int kc_q_count_restart(queue *qq, const char *then);
/* A serial run's line for its worker replaced: "...; continuing in a fresh
 * process" (abnormal: the process ended; else lost, KC_LOST_*, says why);
 * with items in flight it names item by (a queue index; -1 none), since
 * the line printed last need not be that item's. */
void kc_q_say_fresh(queue *qq, int abnormal, int lost, int by);

/* queue_standby.c: a worker started ahead for a serial run (queue_standby.c says when). */
/* Whether this run keeps one. */
int kc_qs_wanted(const queue *qq);
/* Starts it in its slot when none runs there and at least two items are
 * pending; it opens its CUDA context at once (KC_REQUEST_OPEN). */
void kc_qs_start(queue *qq);
/* Whether c is the standby. */
int kc_qs_is(const queue *qq, const kc_child *c);
/* Whether c is the standby the run's end killed (kc_qs_end): what it left
 * running is the sanitizer sessions it started ahead, which served nothing,
 * ended at once and not said (queue_workers.c). */
int kc_qs_killed_at_end(const queue *qq, const kc_child *c);
/* kc_q_end_vouched for the standby's slot: only the worker it replaced
 * (kc_qs_retire) can vouch; the standby itself served no item. */
int kc_qs_end_vouched(queue *qq, const kc_child *c);
/* A line on its result pipe: READY, or a protocol violation. */
void kc_qs_on_result(queue *qq, kc_child *c, const char *line);
/* It ended (GONE), or the worker it replaced did (kc_qs_retire); how:
 * its status in words; abnormal: a status other than 0 (or the sanitizer's
 * untrusted one, said by the worker itself). */
void kc_qs_on_gone(queue *qq, kc_child *c, const char *how, int abnormal);
/* w's item lost its context (RETIRING, its stdin closed): when a standby is
 * there, it takes w's slot at the next kc_qs_between_waits and the retiring
 * process ends in the standby's slot, so the next item need not wait for
 * that process's end (its context's teardown: 60 ms on the H200). Else
 * nothing: w's end replaces it. */
void kc_qs_retire(queue *qq, wk *w);
/* The queue's loop, between two waits of the supervisor (whose callbacks
 * still use the child they were given): the hand-over kc_qs_retire asked
 * for, when w is still retiring and a standby is there. */
void kc_qs_between_waits(queue *qq);
/* w ended: the standby takes its slot (0), and another is started; -1
 * when there is none to take (w's slot is untouched). */
int kc_qs_take(queue *qq, wk *w);
/* Every item is handed out: the standby is stopped. */
void kc_qs_end(queue *qq);

/* queue_holds.c: verdicts reached with the CUDA context lost on a GPU other workers share. */
/* Whether the workers on device slot dev share it with another worker (a
 * run of several workers, not serial): they get --gpu-shared, and such
 * verdicts are printed here, not by them. */
int kc_qh_gpu_shared(const queue *qq, int dev);
/* Worker w reported its CUDA context lost at time t (not in a serial run):
 * until its process ends, that context's teardown counts as a fault on its
 * GPU: a control planted for gate 1 waits for it (kc_dispatch.teardowns),
 * and a verdict reached with the context lost meanwhile waits too. */
void kc_qh_teardown_begins(queue *qq, wk *w, double t);
/* Worker w's process ended (exited at t): the teardown it began, if any, is
 * recorded as a loss's span (fault_spans.h) and the verdicts waiting for it
 * are decided. */
void kc_qh_teardown_ends(queue *qq, wk *w, double t);
/* Item qi ended on w with *r, its context lost (KC_LOST_CONTEXT), having run
 * from start to end: recorded; it stands at once (printed) when it ran
 * alone or nothing ran beside it; runs again alone when another item's loss
 * on that GPU overlapped its run; else it is held until the items running
 * beside it have ended (kc_qh_ended). detail: the lines under its line
 * (kc_result_detail; "" none). Called before w releases it. */
void kc_qh_lost(queue *qq, qitem *qi, kc_item_result *r, const char *detail, const wk *w, double start, double end,
                long gpu_mib);
/* Item j's worker died under it on device slot dev (a CRASH): recorded as a loss. */
void kc_qh_span(queue *qq, int j, int dev, double start, double end);
/* An item left a worker on device slot dev: each held verdict there whose
 * neighbours have all ended stands, or its item runs again alone. */
void kc_qh_ended(queue *qq, int dev);
/* The loop is over: every verdict still held is decided as above. */
void kc_qh_flush(queue *qq);
/* Frees what is held and recorded. */
void kc_qh_free(queue *qq);

/* queue_neighbours.c: a verdict in flight stands only beside final ones (qq->k > 1). */
/* Item j handed to a lane: no neighbour's verdict counted against it yet. */
void kc_qn_handed(queue *qq, int j);
/* Lane l of w ended with a final verdict *r (kc_inflight_final), not
 * alone; detail: the lines under its line ("" none). Put back solo when a
 * neighbour's verdict in flight beside it was not final; else held until
 * the items in flight beside it now have verdicts (printed at once when
 * none is). Called before the lane is released. */
void kc_qn_final(queue *qq, const wk *w, int l, kc_item_result *r, const char *detail);
/* Item j, in flight on w, reached a final verdict there: the verdicts
 * waiting for it no longer do; each that waits for nothing more stands.
 * Also when j itself went back solo (a neighbour of its was not final):
 * the rule looks at the verdict each neighbour reached in flight, not at
 * whether that verdict stood (it is not transitive). */
void kc_qn_decided(queue *qq, const wk *w, int j);
/* Item j, in flight on w, did not reach a final verdict there (verdict:
 * what it reached, in words, for the lines that say so): each item in
 * flight beside it now is marked, and each verdict waiting for it goes
 * back solo. Called before j's lane is released. */
void kc_qn_not_final(queue *qq, const wk *w, int j, const char *verdict);
/* The loop is over: a verdict still waiting is said and left NOTRUN. */
void kc_qn_flush(queue *qq);
/* Frees the verdicts still waiting. */
void kc_qn_free(queue *qq);

/* queue_vouch.c: a clean :sanitize verdict waits for its worker's end line. */
/* Item qi's clean :sanitize verdict *r (kc_item_line_waits_end: its worker
 * did not print it), reached on w from start to end,
 * waits for w's end line (by w's pid). Out of memory it is counted and
 * printed at once, and the run is not green (said). Called before w
 * releases it. */
void kc_qv_hold(queue *qq, qitem *qi, const kc_item_result *r, const wk *w, double start, double end, long gpu_mib);
/* How the worker of pid ended, for the verdicts waiting on it. */
typedef enum kc_qv_end {
    KC_QV_VOUCHED,              /* after its end line: each is counted and printed */
    KC_QV_RUN_AGAIN,            /* without it, under another item: each runs again alone, and that run decides it */
    KC_QV_AS_GIVEN,             /* without it, when the run is already not green or stops: counted and printed
                                 * (NOTRUN when the run is stopping: kc_qv_release) */
} kc_qv_end;
/* Worker slot's process pid ended (queue_workers.c, release_sessions);
 * how: as above. */
void kc_qv_release(queue *qq, int slot, long pid, kc_qv_end how);
/* The loop is over: a verdict still waiting (its worker's end never seen)
 * is counted and printed, and the run is not green (said). */
void kc_qv_flush(queue *qq);
/* Frees the verdicts still waiting. */
void kc_qv_free(queue *qq);

/* queue_lanes.c: a worker with items in flight (qq->k > 1). */
/* Item j goes back to the queue, undecided, and is decided by a run with
 * nothing beside it in its worker; state_why (said) is why. In a run that
 * is stopping (interrupted, --fail-fast) it says it is not run again: it is
 * NOTRUN at the end. */
void kc_ql_put_back_solo(queue *qq, int j, const char *state_why);
/* Items the worker has in flight now (either mode). */
int kc_ql_items(const queue *qq, const wk *w);
/* A fresh worker in the slot: no lanes open. */
void kc_ql_reset(queue *qq, wk *w);
/* Item j handed to w (its request written) at time t; alone: nothing goes
 * beside it; batch: for a batch of :sanitize items, which run in turn and
 * end together: every item of the batch in flight gets until t plus the
 * sum of their time limits. */
void kc_ql_hand(queue *qq, wk *w, int j, int alone, int batch, double t);
/* A line on w's result pipe (DONE, a sealed result) with lanes. */
void kc_ql_on_result(queue *qq, wk *w, kc_child *c, const char *line);
/* Lanes past their time limit at time t: the worker is stopped (TIMED_OUT). */
void kc_ql_timers(queue *qq, wk *w, kc_child *c, double t);
/* The earliest deadline of w's lanes (0 none). */
double kc_ql_deadline(const wk *w);
/* w ended with items in flight: each that went alone is settled as
 * kc_q_settle_item does; each that ran beside others is put back solo
 * (undecided). Returns 1 when any was settled (an abnormal end). */
int kc_ql_gone(queue *qq, wk *w, kc_child *c, const char *how);
#endif
