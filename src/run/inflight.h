/* inflight.h — the parent's book of one worker's items in flight (issue 23,
 * part 1: up to K items at once in one worker, `--inflight K`; the
 * parent's lanes: queue_lanes.c) and the result protocol when several are open: which lines from
 * the worker's result pipe it takes, and the answers it writes.
 *
 * Today's protocol (worker.h) has one item open per worker, so "DONE
 * <name>" and the sealed result need not be matched to an item: the one
 * open is it. With several open each line names its item and is checked
 * against the lane that holds it:
 *     worker: DONE\t<name>                 the item is over (its lane RUNNING)
 *     parent: <name>\t<nonce>              that item's fresh nonce (lane SEALING)
 *     worker: <nonce>\tR\t<name>\t...      its result (result_line.h), sealed
 * The parent takes a result only when its seal is the nonce of a SEALING
 * lane and the name after "R" is that lane's item; it refuses a DONE for an
 * item not in flight or already done, a result before its DONE, a result
 * for an item not in flight, and one sealed with another item's nonce. A
 * refusal is a protocol violation, as today (the worker is stopped).
 *
 * What is weaker than with one item open (worker.h says it too): an item's nonce exists in the worker's memory while the
 * other items in flight still run, so code of one of those could read it
 * and seal a forged result for the item that is over. It cannot seal one
 * for itself (its own nonce does not exist yet), and a forged result is
 * still refused when a genuine one came first (the lane is closed). An item
 * is trusted not to attack its runner (worker.h), so this is accepted. */
#ifndef KC_INFLIGHT_H
#define KC_INFLIGHT_H
#include <stddef.h>
#include "item.h"
#include "result_line.h"

#define KC_INFLIGHT_MAX 64          /* items in flight in one worker, at most */
#define KC_INFLIGHT_NAME 256        /* an item's name, bytes with its NUL */

typedef enum {
    KC_LANE_FREE = 0,               /* no item */
    KC_LANE_RUNNING,                /* handed, not over */
    KC_LANE_SEALING,                /* said over (DONE): its nonce sent, its result awaited */
} kc_lane_phase;

/* One item in flight: its name, phase and (SEALING) nonce. */
typedef struct kc_lane {
    kc_lane_phase phase;
    char name[KC_INFLIGHT_NAME];
    char nonce[KC_NONCE_LEN + 1];
} kc_lane;

/* A worker's lanes: k of them usable, open of them not FREE. */
typedef struct kc_inflight {
    int k, open;
    kc_lane lane[KC_INFLIGHT_MAX];
} kc_inflight;

/* Empty book for k lanes (1..KC_INFLIGHT_MAX). 0, or -1 with err naming k. */
int kc_inflight_init(kc_inflight *f, int k, char *err, size_t cap);
/* The item `name` handed to the worker: a FREE lane becomes RUNNING. Returns
 * its lane, or -1 with err when every lane is open, the item is in flight
 * already, or the name is empty, too long or holds a tab or newline. */
int kc_inflight_hand(kc_inflight *f, const char *name, char *err, size_t cap);
/* A "DONE\t<name>" line (no '\n') from the worker: its lane, RUNNING,
 * becomes SEALING with a fresh nonce, and answer gets "<name>\t<nonce>\n"
 * to write to the worker. Returns the lane, or -1 with err (a DONE for an
 * item not in flight, a second DONE, not a DONE line, no randomness). */
int kc_inflight_done(kc_inflight *f, const char *line, char *answer, size_t answer_cap, char *err, size_t cap);
/* A sealed result line (no '\n'): returns the lane of the item it is for
 * and *body, the line after its seal (kc_result_parse's input); the lane
 * stays SEALING until kc_inflight_close. -1 with err when no SEALING
 * lane's nonce seals it (naming the item the line claims, and saying
 * whether that item is not in flight or not over yet) or when the item it
 * names is not the one whose nonce sealed it. */
int kc_inflight_take(kc_inflight *f, const char *line, const char **body, char *err, size_t cap);
/* The lane's item decided: the lane is FREE again (its nonce wiped). */
void kc_inflight_close(kc_inflight *f, int lane);
/* The names of the items still open (RUNNING or SEALING), in lane order,
 * into names[0..cap): what a worker that ended or was stopped leaves
 * undecided, each to run again alone. Returns how many are open. */
int kc_inflight_undecided(const kc_inflight *f, const char **names, int cap);
/* Whether item `it` may run beside other items in one worker's context, on
 * a thread of its own (1), or must run alone (0, why says why): only kernel
 * items and gate 2-4 controls of a contract whose kernels are launched
 * through the driver. Alone: a control planted for gate 1 (most fault,
 * and a fault ends the context: every item in flight beside it was put
 * back and run again solo, and so was the control, its RED in flight not
 * final; on the H200 each of the 14 such controls put back up to three
 * neighbours under --jobs 4 --inflight 4, docs/receipts/
 * 2026-12-04-h200-final-tree), a library kernel (CUB, cuBLAS: the CUDA
 * runtime on the legacy default stream, cudaMalloc/cudaFree, which
 * synchronize the device and so every item beside it; a handle per
 * process), a sanitizer item or a control planted for the sanitizer (a
 * compute-sanitizer process and its session pool, the worker's), a
 * :limits item (its fatbin parse notes problems in the registry's
 * process-wide list, unlocked; and it is cheap), a suite (the harness's
 * self-tests create streams, fork, check processes and GPU memory of the
 * whole process). */
int kc_inflight_admits(const kc_item *it, char *why, size_t cap);
/* Whether item it's verdict r, reached in flight beside other items, is
 * final (1) or is decided by a run alone (0): final only for a kernel
 * item's PASS and a control's RED with the context intact. Why
 * (docs/parallel-runs.md, "Writes outside an item's buffers"): items in
 * flight share one address space, so a neighbour that writes past its
 * buffers without faulting, or loses the context, may make an item fail
 * for a reason not its own; a clean verdict is what such a neighbour cannot
 * give. A control planted for gate 1 that lost the context is RED, but the
 * loss ended its neighbours too: it is decided alone with them. */
int kc_inflight_final(const kc_item *it, const kc_item_result *r);
/* A request line's marker: "<name>\t" KC_INFLIGHT_ALONE asks the worker to
 * run the item with nothing beside it (on its main thread, as a worker of
 * one item at a time runs it). */
#define KC_INFLIGHT_ALONE "ALONE"
/* A request line's marker: "<name>\t" KC_REQUEST_AHEAD "<n>" (n >= 1)
 * tells the worker that controls planted for the sanitizer come soon: it
 * starts sessions now for n of them (the item itself counted when it is
 * one), beside this item (kc_sanitize_ahead, sanitize.h; the policy:
 * kc_dispatch_ahead). Any worker takes it; a standby takes it on its OPEN
 * line, for the controls past the next context loss
 * (kc_dispatch_ahead_past_fault), and starts them once its context is open. */
#define KC_REQUEST_AHEAD "AHEAD"
/* A request line with no item, "\t" KC_REQUEST_OPEN (and maybe
 * KC_REQUEST_AHEAD's marker): the worker opens its CUDA context now, before
 * any item (a standby worker, which the queue starts ahead to take the place
 * of one that ends: queue_standby.c). */
#define KC_REQUEST_OPEN "OPEN"
/* A request line with no item, "\t" KC_REQUEST_GO: the :sanitize items
 * handed for a batch since the last one (kc_dispatch_item .batch, any
 * without KC_INFLIGHT_ALONE) are all there: the worker runs them now, as one
 * batch (kc_item_run_batch, item_run.h). The queue writes it after each
 * hand-out that gave the worker such items. */
#define KC_REQUEST_GO "GO"
enum { KC_REQUEST_ALONE_BIT = 1, KC_REQUEST_AHEAD_BIT = 2, KC_REQUEST_OPEN_BIT = 4, KC_REQUEST_GO_BIT = 8 };
/* Cuts the markers off the end of a request line (each "\t<marker>", in
 * any order) and returns them as KC_REQUEST_* bits, with KC_REQUEST_AHEAD's
 * n in *ahead (0 without it); 0 for a bare name or a nonce line. A word
 * that is no marker stays on the line (and the name is then not found). */
unsigned kc_request_marks(char *line, int *ahead);
/* The KC_REQUEST_AHEAD marker for n controls (clamped to 99) into
 * buf[KC_REQUEST_AHEAD_CAP]: "\tAHEAD<n>", or "" when n <= 0. Returns buf. */
#define KC_REQUEST_AHEAD_CAP 16
const char *kc_request_ahead_mark(char *buf, int n);
/* The worker's side: a line read on its stdin (no '\n') is an item to run
 * (a bare name: returns 0, name set) or a nonce for an item it said DONE
 * ("<name>\t<nonce>": returns 1, name and nonce set). -1 with err for a
 * line that is neither (an empty name, a nonce of the wrong length). */
int kc_inflight_worker_line(const char *line, char *name, size_t name_cap, char *nonce, char *err, size_t cap);
#endif
