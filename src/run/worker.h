/* worker.h — the two ends of the work queue (docs/parallel-runs.md), which
 * runs every serial, --shard K/N and --jobs N run's items.
 *
 * The worker: `kcontract run --worker --seed S --device D --parent PPID`,
 * started by the parent (kc_queue_run, kc_serial_run) with requests on its
 * stdin, one item name a line, and a result pipe on fd 3. It first moves
 * that pipe to a descriptor of its own (close-on-exec) and leaves /dev/null
 * on fd 3, so what an item or its helpers write on fd 3 reaches nobody, and
 * keeps a copy of its stdout and stderr (kc_item_keep_stdio). Once it has
 * read its items (and any --records) it writes KC_RESULT_READY on the pipe:
 * until then it is STARTING (supervisor.h) and gets no item. For each
 * request it runs the item in this process (one CUDA context, opened at the
 * first GPU item, kept for every later one), prints the item's line on
 * stdout (after the line marker, item_run.h), then says the item is over:
 *     DONE <name>
 * and the parent answers on stdin with a fresh nonce (KC_NONCE_LEN random
 * hex digits, result_line.h) that existed nowhere in the worker while the
 * item ran; the worker then writes one result line sealed with it:
 *     <nonce> R <name> <STATE> <gate> <seconds> ... <message>   (result_line.h)
 * (fields separated by one tab; the message last, tabs and newlines replaced
 * by spaces; peak_rss_kib is VmHWM after resetting it through
 * /proc/self/clear_refs, -1 when that is not possible; lost nonzero when the
 * worker must be replaced: KC_LOST_CONTEXT, the item left the CUDA context
 * unusable, or KC_LOST_GPU_STATE, it left device memory allocated
 * (item_run.h); the worker then exits 0 and the parent starts a fresh one).
 * At end of input, and after an item that left it to be replaced, it checks
 * its compute-sanitizer sessions' summaries; when they vouch it writes
 *     ENDED
 * (KC_RESULT_ENDED) and exits (0, unless its last output cannot be
 * written), else it writes UNTRUSTED (KC_RESULT_UNTRUSTED) and exits
 * KC_WORKER_UNTRUSTED (that status without the line is an end on its own,
 * queue_deaths.c: an item's thread's exit(5)). The parent trusts the
 * sessions' clean verdicts only after that line, however the process ends
 * after it: an exit status can be replaced after the check (an exit handler
 * an item's library registered that calls _exit(0)), the line cannot; a
 * worker that ends with status 0 after its items without it, or that held
 * sessions and ends any way without it, makes the run not green
 * (queue_types.h, kc_q_end_vouched). So the worker leaves the line of a
 * clean verdict its sessions gave to the parent (kc_item_line_waits_end),
 * which prints it after that line, or runs it again alone when the worker
 * ends under a later item without it (queue_vouch.c). Any other line on the pipe (no item running, a
 * second DONE, a result without the nonce, a second result, one that does
 * not parse) is a protocol violation: the parent stops the worker at once,
 * and its item is CRASH "protocol violated: ..." (between items the run
 * fails). A fork under an item whose child returns into the worker exits
 * before it reports anything (item_run.c). An exit() under an item is said
 * by the exit guard (exit_guard.h) and, like any end of the worker before
 * its result, makes the item CRASH.
 *
 * With several items in flight in one worker (issue 23, part 1; the book
 * and its checks are inflight.h; the worker: worker_lanes.h) every line names its
 * item: the parent answers "<name>\t<nonce>" instead of the bare nonce, and
 * takes a result only for an item it said DONE, sealed with that item's
 * nonce. Weaker than above: an item's nonce then exists in the worker while
 * its neighbours still run (inflight.h says what that allows).
 *
 * What no protocol inside the worker's process can stop: code that reads
 * the parent's answer off the worker's stdin before the worker does (a
 * thread the item left running), or rewrites the worker. An item is trusted
 * not to attack its runner; it is not trusted to be free of bugs.
 *
 * The parent: kc_queue_run, the default of --jobs N, and kc_serial_run. */
#ifndef KC_WORKER_H
#define KC_WORKER_H
#include <stddef.h>
#include "run_options.h"
#include "item.h"
#include "item_run.h"               /* KC_LOST_*: the result line's lost */
#include "result_line.h"

#define KC_QUEUE_START_S 60         /* a worker not ready this long after its start is killed */
#define KC_QUEUE_TAIL_LINES 20      /* a dead worker's last lines kept for its CRASH/TIMEOUT */
/* What a worker's first item that runs compute-sanitizer costs it in seconds
 * beyond the item: four sessions started (H200, run 8: such items took 5-8 s
 * where the same items in a running session took under 1 s). */
#define KC_QUEUE_SESSIONS_START_S 5.0
/* Workers replaced after a crash, a timeout or a failed start, at most (then the rest is NOTRUN). */
#define KC_QUEUE_RESTART_CAP(n) (2 * (n) + 8)

/* The worker's loop (see above). Returns the exit status. Test hooks:
 * KC_FAULT_WORKER_START=exit makes it exit 3 before it says it is ready, so
 * the parent's handling of a worker that cannot start is exercised;
 * KC_FAULT_WORKER_START=slow:<s>:<mark> makes every worker but the first to
 * create file <mark> say it is ready s seconds late (at most 60). */
int kc_worker_run(const kc_opts *o, const kc_item *items, int n);

/* The --jobs N work queue. Returns the exit status (kc_run_exit_status,
 * run_end.h), 2 for a refusal before any worker started, 4 for an internal
 * error. */
int kc_queue_run(const kc_opts *o, const kc_item *items, int n);
/* A serial or --shard K/N run: the same queue with one worker, the items in
 * the selection's order, the worker's lines printed as they come (no
 * "[w0] " prefix), no memory plan, and the serial header and figures. Its
 * parent holds the counts and the records, so an item that ends the worker
 * (exit(0), _exit, a signal) is that item's CRASH and the run fails; a lost
 * CUDA context, --timeout, --fail-fast, SIGINT and SIGTERM act as in a
 * --jobs run; and the reports and exit status come only from the parent,
 * which reaches its end. Returns as kc_queue_run. */
int kc_serial_run(const kc_opts *o, const kc_item *items, int n);
#endif
