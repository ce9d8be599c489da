/* worker_lanes.h — a work-queue worker with several items in flight
 * (--inflight K > 1, docs/parallel-runs.md "Items in flight in one
 * worker"): private to the worker (worker.c, worker_lanes.c). */
#ifndef KC_WORKER_LANES_H
#define KC_WORKER_LANES_H
#include <stddef.h>

#include "item.h"
#include "run_options.h"
#include "sanitize_session.h"

/* The worker's loop with o->inflight lanes (2..KC_INFLIGHT_MAX), after it
 * said it is ready on rfd (worker.h). One CUDA context, opened with the
 * per-thread default stream table (kc_gpu_open_streams) at the first GPU
 * item; K persistent lane threads, each with its lane view of it
 * (kc_gpu_open_lane), run the items that may go in flight
 * (kc_inflight_admits) handed to it as a bare name; the main thread
 * multiplexes stdin (requests, "<name>\t<nonce>" answers) with the lanes'
 * completions, writes "DONE\t<name>" and the sealed results (inflight.h),
 * and runs on itself, as a worker of one item at a time does
 * (kc_item_run), every item that may not go in flight and every item
 * handed as "<name>\t" KC_INFLIGHT_ALONE (the parent hands those only
 * when nothing else is in flight here). A lane's item whose verdict is not
 * final (kc_inflight_final) has its result sent but no line printed: the
 * parent runs it again alone. At a lost context the worker takes no more
 * items: it seals that item's result and ends (status 0) at once, leaving
 * its other items undecided for the parent to put back. Returns the exit
 * status. */
int kc_worker_lanes(const kc_opts *o, const kc_item *items, int n, int rfd, kc_san_pool *san);

/* The item named `name` among items[0..n) (sorted by name), or NULL. */
const kc_item *kc_worker_find_item(const kc_item *items, int n, const char *name);
/* Writes buf whole on fd (EINTR retried). 0, or -1 (the reader is gone). */
int kc_worker_write_all(int fd, const char *buf, size_t len);
/* Writes KC_RESULT_ENDED on the result pipe rfd: the worker's last act
 * before it exits 0 (kc_worker_run, kc_worker_lanes). 0, or -1 when the
 * parent is gone. */
int kc_worker_say_ended(int rfd);
/* Writes KC_RESULT_UNTRUSTED on the result pipe rfd, before the worker
 * exits KC_WORKER_UNTRUSTED (its sessions do not vouch): without it the
 * parent takes that status for an end on its own (queue_deaths.c). 0, or
 * -1 (the parent is gone). worker.c. */
int kc_worker_say_untrusted(int rfd);
#endif
