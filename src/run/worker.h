/* worker.h — the two ends of the --jobs work queue (docs/parallel-runs.md).
 *
 * The worker: `kcontract run --worker --seed S --device D --parent PPID`,
 * started by the parent (kc_queue_run) with item names on its stdin, one a
 * line, and a result pipe on fd 3. Once it has read its items (and any
 * --records) it writes KC_RESULT_READY on fd 3: until then it is STARTING
 * (supervisor.h) and gets no item. For each name it runs the item in this
 * process (one CUDA context, opened at the first GPU item, kept for every
 * later one), prints the item's line on stdout exactly as a serial run does,
 * and writes one result line on fd 3:
 *     R <name> <STATE> <gate> <seconds> ... <message>   (result_line.h)
 * (fields separated by one tab; the message last, tabs and newlines replaced
 * by spaces; peak_rss_kib is VmHWM after resetting it through
 * /proc/self/clear_refs, -1 when that is not possible; lost nonzero when the
 * worker must be replaced: KC_LOST_CONTEXT, the item left the CUDA context
 * unusable, or KC_LOST_GPU_STATE, it left device memory allocated
 * (item_run.h); the worker then exits 0 and the parent starts a fresh one).
 * At end of input it exits 0.
 *
 * The parent: kc_queue_run, the default of --jobs N. */
#ifndef KC_WORKER_H
#define KC_WORKER_H
#include <stddef.h>
#include "run_options.h"
#include "item.h"
#include "item_run.h"               /* KC_LOST_*: the result line's lost */
#include "result_line.h"

/* A worker's exit status when one of its sanitizer sessions counted errors
 * that no item's window held (sanitize_session.h): its :sanitize items' PASS
 * is not trusted, it says so on stdout, and the parent's run exits 1. */
#define KC_WORKER_UNTRUSTED 5
#define KC_QUEUE_START_S 60         /* a worker not ready this long after its start is killed */
#define KC_QUEUE_TAIL_LINES 20      /* a dead worker's last lines kept for its CRASH/TIMEOUT */
/* What a worker's first item that runs compute-sanitizer costs it in seconds
 * beyond the item: four sessions started (H200, run 8: such items took 5-8 s
 * where the same items in a running session took under 1 s). */
#define KC_QUEUE_SESSIONS_START_S 5.0
/* Workers replaced after a crash, a timeout or a failed start, at most (then the rest is NOTRUN). */
#define KC_QUEUE_RESTART_CAP(n) (2 * (n) + 8)

/* The worker's loop (see above). Returns the exit status. Test hook:
 * KC_FAULT_WORKER_START=exit makes it exit 3 before it says it is ready, so
 * the parent's handling of a worker that cannot start is exercised. */
int kc_worker_run(const kc_opts *o, const kc_item *items, int n);

/* The --jobs N work queue. Returns the exit status: the counts'
 * (kc_tally_exit_status), 2 for a refusal before any worker started, 4 for an
 * internal error, 128 + signal when interrupted by SIGINT or SIGTERM. */
int kc_queue_run(const kc_opts *o, const kc_item *items, int n);
#endif
