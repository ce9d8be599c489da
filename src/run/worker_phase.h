/* worker_phase.h — the phase of a work-queue worker as its parent sees it
 * (queue.c; the protocol: worker.h): one state per worker slot, with the
 * changes allowed between them, in place of the flags it was (ready,
 * timed out, late, lost, sealing, violated). Explicit states with their
 * transitions, as cargo-nextest keeps a test's. Pure; tested in
 * tests/test_dispatch.c.
 *
 *   GONE ---spawn---> STARTING --READY--> IDLE --item--> RUNNING --DONE--> SEALING
 *                        |                 ^                |                 |
 *                      LATE                +-----result-----+-----------------+
 *                                                           |   (context lost: RETIRING)
 *                                               TIMED_OUT / VIOLATED
 * IDLE with its input closed and RETIRING go to OVERDUE when the worker does
 * not end in time (its input closed, it has nothing left to do); every
 * phase but GONE ends in GONE when the process has ended and its pipes are
 * closed. */
#ifndef KC_WORKER_PHASE_H
#define KC_WORKER_PHASE_H

typedef enum kc_worker_phase {
    KC_WK_GONE = 0,     /* no process in the slot (never started, or ended and reaped) */
    KC_WK_STARTING,     /* started; has not said KC_RESULT_READY yet (by its ready_by) */
    KC_WK_IDLE,         /* ready, no item: it may be handed one */
    KC_WK_RUNNING,      /* runs the item handed to it, until it says DONE (or its deadline) */
    KC_WK_SEALING,      /* said DONE; the nonce was sent: its next line is the sealed result */
    KC_WK_TIMED_OUT,    /* its item ran past its time limit: SIGTERM (then SIGKILL); the item is TIMEOUT */
    KC_WK_VIOLATED,     /* it broke the result protocol: stopped (SIGKILL); nothing it says counts */
    KC_WK_LATE,         /* it did not say it was ready in time: stopped (SIGKILL) */
    KC_WK_RETIRING,     /* its last item left the CUDA context or device memory unusable: it exits by itself */
    KC_WK_OVERDUE,      /* its input closed (IDLE at the run's end, or RETIRING), it did not end within the end
                         * limit (queue_types.h, kc_q_end_limit_s): stopped (SIGTERM, SIGKILL after the grace) */
    KC_WK_PHASES
} kc_worker_phase;

/* The phase's name ("RUNNING"), or "?" for a value out of range. */
const char *kc_worker_phase_name(kc_worker_phase p);

/* Whether a worker may go from phase `from` to phase `to` (the diagram
 * above). The queue changes phases only through kc_worker_phase_set. */
int kc_worker_phase_may(kc_worker_phase from, kc_worker_phase to);

/* Whether a worker in phase p holds an item the parent has not settled yet
 * (RUNNING, SEALING, TIMED_OUT; VIOLATED only when it held one, which the
 * phase alone cannot say: the queue's item index does). */
int kc_worker_phase_has_item(kc_worker_phase p);

/* Sets *p to `to` and returns 0 when allowed; leaves it and returns -1 when
 * not (a bug of the queue, which says so). */
int kc_worker_phase_set(kc_worker_phase *p, kc_worker_phase to);
#endif
