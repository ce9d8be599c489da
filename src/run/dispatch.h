/* dispatch.h — the work queue's dispatch policy: which pending item a ready
 * worker takes next (docs/parallel-runs.md). Pure: no processes, no I/O, no
 * clock, no environment; the queue (queue.c) keeps the figures below up to
 * date and asks. Its rules, each tested in tests/test_dispatch.c:
 *   - a serial run takes the items in the selection's order, nothing else,
 *     but an item put back to run alone, which waits for the others (below);
 *   - an item is taken only while it fits the memory admission (kc_admit,
 *     costs.h), or alone once nothing else runs when it never fits; an
 *     item that runs the sanitizer needs, on a worker without sessions, the
 *     host and GPU memory of the sessions it starts there too
 *     (kc_admit.sessions_host, .sessions_gpu, held until the worker ends),
 *     and while another worker holds sessions it is left to such a holder
 *     when they would not fit beside them;
 *   - a worker prefers the next item of the contract its last item had (its
 *     inputs are already on that worker's GPU, inputs.h), else the first in
 *     the queue's order (costs.h, kc_queue_order);
 *   - items that run compute-sanitizer are kept on the workers that hold
 *     sessions (kc_dispatch_wants), and such a worker takes the controls
 *     planted for the sanitizer first;
 *   - an item put back to run alone (kc_dispatch_rerun_alone) goes last:
 *     once every other item is handed out, no worker is busy and no lost
 *     context is being torn down (teardowns), one at a
 *     time, nothing beside it (so the other workers are not held idle
 *     while it runs: a mutation run puts back many hung mutants, each
 *     running to its limit);
 *   - at most fault_controls_max controls planted for gate 1 run at once
 *     (KC_DISPATCH_FAULT_CONTROLS_AT_ONCE), a lost context counted until its
 *     worker has ended (teardowns): two faults that meet on a GPU send both
 *     items back to run alone;
 *   - at most san_controls_max controls planted for the sanitizer run at
 *     once (KC_DISPATCH_SAN_CONTROLS_PER_GPU): each starts sessions of its
 *     own, and many starting together slow each other past serial;
 *   - the only worker is told to start sessions ahead for the controls
 *     planted for the sanitizer among its item and the
 *     KC_DISPATCH_AHEAD_ITEMS after it, up to a control planted for gate 1 (it loses the CUDA
 *     context and its worker, and with it every session started there),
 *     and its standby (a serial run's, queue_standby.c), which takes the
 *     worker's place there, for those past that control up to the next
 *     (kc_dispatch_ahead_past_fault);
 *     of several workers, one that takes an item that runs the sanitizer
 *     while such a control is pending (holders take those controls first),
 *     for one control (kc_dispatch_ahead): their start overlaps the items
 *     the worker runs before. A worker of several does not know which
 *     items it takes after this one, and sessions started for a control
 *     another worker takes end unused, each start and end costing about a
 *     second (docs/receipts/2026-12-03-h200-racecheck);
 *   - with items in flight (--inflight K): a worker running an item alone
 *     takes nothing; one with items in flight takes only items that may
 *     go in flight (shares) and are not solo; a solo item (put back from a
 *     worker's lanes) goes first to a worker with nothing in flight, once
 *     no lost context is being torn down (teardowns); a
 *     worker whose items in flight are all of a batch (:sanitize items,
 *     kc_dispatch_item .batch) takes only more of them, and one with
 *     shares in flight takes none of them, so that a holder of sessions
 *     gets up to K :sanitize items at once, whose racecheck runs in one
 *     request (sanitize_batch.h, kc_sanitize_batch);
 *   - a worker with nothing in flight that does not want the sanitizer's
 *     items takes a control planted for gate 1 first, and when workers
 *     have lanes (--inflight K > 1) any item that may not share next
 *     (kc_dispatch_next): those run one at a time, or need a worker with
 *     nothing in flight, so left for the end (the queue's order puts cheap
 *     items last) they were the run's tail (docs/receipts/
 *     2026-12-05-h100-phases: 135 such items ran from 37.5 to 51.2 s, 14
 *     controls for gate 1 one at a time); first, every item on one H200
 *     took 43.7 and 41.4 s against 44.6 and 45.3 s
 *     (docs/receipts/2026-12-05-h200-alone-first). */
#ifndef KC_DISPATCH_H
#define KC_DISPATCH_H
#include <stddef.h>

#include "costs.h"
#include "item.h"
#include "state.h"

/* One selected item as the policy sees it, in the queue's order. */
typedef struct kc_dispatch_item {
    const kc_contract *contract;    /* its contract (NULL for a suite): the worker's-last preference */
    int sanitizer;                  /* it runs compute-sanitizer (kc_item_runs_sanitizer, item_run.h) */
    int sanitizer_control;          /* ... and is a control planted for the sanitizer */
    int fault_control;              /* a control planted for gate 1: it may lose the CUDA context, which ends its
                                     * worker and the sessions started there (kc_dispatch_ahead) */
    double cost;                    /* seconds, recorded or estimated (kc_item_cost) */
    size_t host, gpu;               /* its memory plan in bytes (kc_item_memory) */
    int dispatched;                 /* handed out (or settled without running) */
    int rerun_alone;                /* put back after a neighbour's fault: runs alone (kc_dispatch_rerun_alone) */
    int shares;                     /* it may go in flight beside other items in one worker (kc_inflight_admits) */
    int solo;                       /* put back from a worker's lanes, undecided: it runs with nothing beside it
                                     * in its worker, and that run decides it (--inflight) */
    int batch;                      /* a :sanitize item that may go in a batch: beside other such items on a
                                     * worker with lanes, racecheck over all of them in one request
                                     * (kc_sanitize_batch, sanitize_batch.h) */
} kc_dispatch_item;

/* One worker slot as the policy sees it. */
typedef struct kc_dispatch_worker {
    int devslot;                    /* its device's slot in the admission; -1: no GPU */
    const kc_contract *last;        /* the contract of its last item, NULL none yet */
    int sessions;                   /* it is alive and holds compute-sanitizer sessions */
    int inflight;                   /* items it runs now (more than one only with --inflight) */
    int alone;                      /* the item it runs goes alone: nothing is handed to it beside */
    int batch;                      /* of its items in flight, those handed for a batch (kc_dispatch_item .batch) */
} kc_dispatch_worker;

/* The queue's state the policy reads. */
typedef struct kc_dispatch {
    kc_dispatch_item *items;        /* [nitems], in the queue's order */
    int nitems;
    const kc_dispatch_worker *workers;   /* [nworkers] */
    int nworkers;
    const kc_admit *adm;            /* the memory admission (costs.h) */
    int serial;                     /* a serial or --shard K/N run: the selection's order, nothing else */
    int sessions_on;                /* sanitizer sessions are used (kc_san_sessions_on) */
    double session_start_s;         /* what a worker's first session start costs (KC_QUEUE_SESSIONS_START_S) */
    int busy;                       /* workers running an item now */
    int alone_running;              /* an item put back to run alone is running: nothing else is handed out */
    int san_controls_running;       /* controls planted for the sanitizer running now (each in sessions of its own) */
    int san_controls_max;           /* at most this many of them at once (KC_DISPATCH_SAN_CONTROLS_PER_GPU per
                                     * GPU); 0: no limit */
    int fault_controls_running;     /* controls planted for gate 1 running now */
    int fault_controls_max;         /* at most this many of them at once (KC_DISPATCH_FAULT_CONTROLS_AT_ONCE);
                                     * 0: no limit */
    int teardowns;                  /* CUDA contexts lost whose worker has not ended yet (the driver may still
                                     * be tearing them down): each counts against fault_controls_max as a
                                     * control planted for gate 1 running (fault_spans.h says why) */
    int lanes;                      /* workers run several items in flight (--inflight K > 1) */
} kc_dispatch;

/* How many controls planted for the sanitizer run at once per GPU. Each
 * starts its own compute-sanitizer sessions (four tools, each a CUDA context
 * under its tool: sanitize.c); on the H200 the suite's seven such controls,
 * all handed out at 0.4 s, took 20-24 s each against 1.5 s each serially
 * (docs/receipts/2026-12-03-h200-suite): 10 s of work in 24 s of wall. */
#define KC_DISPATCH_SAN_CONTROLS_PER_GPU 2

/* How many controls planted for gate 1 run at once, on one GPU or several
 * (the count is the run's: per GPU it would need each worker's GPU). Most fault, and
 * two context losses on one GPU whose runs overlap both run again alone at
 * the end of the run (queue_holds.c: which fault ended which context cannot
 * be told); on the H200 two gemm_hopper traps that ran together took 2.4 s
 * each and then ran again (docs/receipts/2026-12-04-h200-final-tree). */
#define KC_DISPATCH_FAULT_CONTROLS_AT_ONCE 1

/* What a worker takes first (kc_dispatch_wants). */
typedef enum kc_want {
    KC_WANT_ANY,                    /* any item */
    KC_WANT_SANITIZER,              /* items that run compute-sanitizer */
    KC_WANT_OTHER,                  /* the others */
    KC_WANT_NONE,                   /* nothing: it waits (only sanitizer items left, for the holders) */
    KC_WANT_SANITIZER_CONTROL,      /* the controls planted for the sanitizer (a filter, never wanted first) */
    KC_WANT_FAULT_CONTROL,          /* the controls planted for gate 1 (a filter, never wanted first) */
    KC_WANT_UNSHARED,               /* items that may not share, not the sanitizer's (a filter, never wanted first) */
} kc_want;

/* Whether item j, which ended in state `state` in a parallel run, is put
 * back to run again alone instead of taking that verdict: it ended
 * TIMEOUT or CRASH (its worker died under it), `fault_beside` says another
 * item on the same GPU lost its CUDA context or its worker while it ran, it
 * is not a serial run's, and it did not run alone already. Why: on an H200
 * (driver 580) a worker whose kernel was to trap 4 s in waited in the
 * driver for ever, the GPU idle, after three neighbours' kernels trapped
 * beside it (1 run of 6; docs/receipts/2026-12-02-h200-hopper-seeds): the
 * other contexts' faults decided its verdict. Run alone, as a serial run
 * would, the verdict is its own. */
int kc_dispatch_rerun_alone(const kc_dispatch *d, int j, kc_state state, int fault_beside);

/* The counts the policy keeps of what runs, updated by the queue when
 * worker takes item j (it is marked dispatched; an item put back to run
 * alone holds every other item back; a control planted for the sanitizer
 * counts against san_controls_max) and when item j leaves its worker,
 * settled or put back (kc_dispatch_released undoes the two counts). */
void kc_dispatch_took(kc_dispatch *d, int j);
void kc_dispatch_released(kc_dispatch *d, int j);

/* Items not handed out yet. */
int kc_dispatch_pending(const kc_dispatch *d);

/* How far ahead, in items, the only worker starts the sessions of the
 * controls planted for the sanitizer. Each such control's sessions are its
 * own (a session's first window decides an error, sanitize_session.h), and
 * their start (racecheck's 1.4 s on the H200) is most of its time; the item
 * before one often takes milliseconds, so starting them there hid little
 * (docs/receipts/2026-12-04-h200-generators: the seven bundled controls
 * took 10 s of a 55 s serial run). 48 items of the bundled library take 1 to
 * 5 s; at most KC_SAN_SPARES_MAX controls' sessions wait at once. */
#define KC_DISPATCH_AHEAD_ITEMS 48

/* For how many controls planted for the sanitizer the worker handed item j
 * now is to hold sessions started ahead (sanitize.h, kc_sanitize_ahead;
 * 0: none to start). The only worker: those among j and the
 * KC_DISPATCH_AHEAD_ITEMS pending items after it, in order (j included: a
 * control takes the first), and none from a control planted for gate 1 on
 * (fault_control; j itself too). Of several workers: 1 when j runs the
 * sanitizer and such a control is pending. 0 without sessions. */
int kc_dispatch_ahead(const kc_dispatch *d, int j);

/* For how many controls planted for the sanitizer a serial run's standby
 * worker (queue_standby.c) is to start sessions as it opens its context:
 * those among the pending items after the first pending control planted
 * for gate 1 (the worker that runs it loses its context and the standby
 * takes its place), at most KC_DISPATCH_AHEAD_ITEMS, up to the next such
 * control. The worker's own count (kc_dispatch_ahead) stops where this one
 * starts, so no control is counted by both. 0 without sessions, with
 * several workers, or when no control planted for gate 1 is pending. */
int kc_dispatch_ahead_past_fault(const kc_dispatch *d);

/* Which items worker w (an index into d->workers) takes first. Each worker
 * that runs a sanitizer item starts four compute-sanitizer sessions, each a
 * CUDA context under its tool, and those starts slow every process on the
 * GPU (H200, run 9: with every worker starting them, the other items took
 * 363 item-seconds against 206 without). So: KC_WANT_ANY when no sanitizer
 * item is pending or sessions are off; KC_WANT_SANITIZER for a worker that
 * holds sessions, or when none does; another worker joins the holders
 * (KC_WANT_SANITIZER) only while their share of the pending sanitizer cost
 * exceeds both the other workers' share of the rest and session_start_s;
 * else KC_WANT_OTHER, or KC_WANT_NONE when only sanitizer items are left. */
kc_want kc_dispatch_wants(const kc_dispatch *d, int w);

/* The next pending item of kind `want` for worker w in the queue's order
 * that the admission takes now, preferring one of the contract its last
 * item had. Returns its index, -1 when none; *alone: it must run alone
 * (kc_admit_check). */
int kc_dispatch_next_of_kind(const kc_dispatch *d, int w, kc_want want, int *alone);

/* The next item for worker w: in a serial run the first pending one not
 * put back to run alone (those go once no other is pending, as below);
 * otherwise of the kind it wants first (kc_dispatch_wants); for a worker
 * with nothing in flight that wants other items (or any), first a control
 * planted for gate 1 while fewer than fault_controls_max run, then with
 * lanes an item that may not share (kc_dispatch_item .shares) and is not
 * the sanitizer's, each as kc_dispatch_next_of_kind takes them: a chain of items that run one at a time starts at the run's
 * start, and items that need an empty worker never wait for workers whose
 * lanes stay full while shares are pending; a sanitizer
 * control first for a worker that wants sanitizer items (each ends a session
 * with its error, which a session's first window decides at once,
 * sanitize_session.h, where after items the session called clean it takes a
 * second run, alone: H200, run 10, 8.5-9.5 s against 2-4 s back to back),
 * else any item. Returns its index, or -1 when nothing pending fits the
 * memory left or the worker is to wait; *alone as kc_dispatch_next_of_kind.
 * Does not mark it dispatched: the queue does once the worker has it. */
int kc_dispatch_next(const kc_dispatch *d, int w, int *alone);
#endif
