/* sanitize_target.h — the sanitizer's target (sanitize_target.c): what the
 * sanitizer gate's compute-sanitizer runs (sanitize.h); public through
 * gates.h. */
#ifndef KC_SANITIZE_TARGET_H
#define KC_SANITIZE_TARGET_H
#include <stddef.h>
#include <stdint.h>
#include "gpu.h"
#include "item.h"
#include "kcontract.h"
#include "run_options.h"

/* The target's own lines (kc_sanitize_target), which the gate reads (sanitize.c). */
#define KC_SAN_TARGET_OK "kcontract-sanitize-target: ok: "     /* the target's last line when it launched everything */
#define KC_SAN_TARGET_FAIL "kcontract-sanitize-target: FAIL: "
#define KC_SAN_TARGET_SMEM "kcontract-sanitize-target: smem: "       /* the most shared memory of a launch, bytes; -1 unknown (library) */
#define KC_SAN_TARGET_SLOWEST "kcontract-sanitize-target: slowest: " /* <shape> <seconds> */
#define KC_SAN_TARGET_WATCHDOG "kcontract-sanitize-target: watchdog: " /* the module's hang bound, raised */

/* The hang watchdog bound (kcontract_watchdog.cuh) the target raises every
 * module's lower one to, nanoseconds: under a tool a healthy wait outlasts
 * the module's default (H100, racecheck with one or two analysis threads: a
 * healthy TMA + wgmma GEMM trapped at its 250 ms in 5 of 6 sessions; with
 * the bound raised each session of two requests ended in 2.8-7.3 s, tool
 * start included; docs/receipts/2026-12-05-h100-gpu-time). 10 s: above
 * those, and a sixth of an item's least time limit (KC_TIMEOUT_FLOOR_S,
 * costs.h), so a kernel that does hang under a tool still ends in its trap,
 * a failed launch that names it, not in the item's TIMEOUT; a hang is gate
 * 1's to catch, and the GPU is not held longer than that for it. */
#define KC_WATCHDOG_UNDER_TOOL_NS 10000000000ull

/* The shapes the sanitizer gate runs (sanitize.h): every edge shape, then the
 * model shape with the smallest device footprint; at most cap into out.
 * Returns how many. */
int kc_sanitize_shapes(const kc_contract *c, const kc_shape **out, int cap);
/* The sanitizer's target: for each kc_sanitize_shapes shape, its first
 * distribution's inputs, every buffer in a cuMemAlloc of exactly its size
 * (no guard bands; outputs left as allocated, so a read of an output element
 * before any write reads memory no one wrote), one launch of the contract's
 * kernel (control: its build; a sequence's steps in order on one stream, as
 * gate 1 launches them), synchronized; no checks. With edges_only
 * (racecheck's request) the edge shapes but those the contract leaves out
 * of racecheck (kc_shape.no_racecheck; the summary counts them) launch
 * together, each on its own
 * non-blocking stream, up to KC_SAN_TOGETHER_MAX of them a round, their
 * buffers and inputs within what the memory plan admits the item with (its
 * largest shape's case, kc_item_memory) and KC_SAN_TOGETHER_BYTES, then one
 * synchronize:
 * racecheck instruments every shared-memory access, and an edge shape is a
 * few blocks that leave most SMs idle while its context holds the GPU
 * (H200, run 14: eight one-block launches on eight streams took 7.5 s under
 * racecheck, one alone 3.5 s). A hazard is between two accesses of one
 * launch (one block's shared memory; a cluster's distributed shared memory
 * is its blocks', still of one launch), so launches side by side hide none.
 * A library's entry (its own stream) launches one at a time. 0 with a summary in
 * msg ("3 launches of X (dist uniform): edge.1 edge.33 model.4096"); 1 with
 * the first failure (a gate 1 line, or an internal error) in msg. st gets
 * (edges_only: the edge shapes alone, racecheck's share) what the
 * sanitizer gate plans its tools by: the shared memory the kernel
 * uses (racecheck checks shared memory only), the slowest launch made
 * alone, and how many launched together. Every module whose hang
 * watchdog (kcontract_watchdog.cuh) is below KC_WATCHDOG_UNDER_TOOL_NS gets
 * it first (st->watchdog); one whose variable is not 8 bytes fails the item. */
typedef struct kc_exact_stats {
    long smem_bytes;              /* the most shared memory (static + dynamic) of one launch; -1 a library kernel (unknown) */
    const char *slowest;          /* the shape whose launch took longest (its name), NULL none */
    double slowest_s;             /* its seconds, inputs to synchronize (under a sanitizer: the tool's work) */
    int together;                 /* the most shapes launched together in one round; 0 one at a time */
    int watchdog;                 /* 1: the module's hang bound was raised to KC_WATCHDOG_UNDER_TOOL_NS (it was lower) */
    unsigned long long watchdog_was_ns; /* its value before (the module's default) */
    int released_badly;           /* 1: the library's KC_HOST_RELEASE failed (msg says so): what it keeps is unknown */
} kc_exact_stats;
#define KC_SAN_TOGETHER_MAX 16
/* The most cases one batch request (kc_run_batch_launches) launches
 * together: 16 items of the bundled library hold up to 96 racecheck edge
 * shapes. */
#define KC_SAN_BATCH_CASES 128
#define KC_SAN_TOGETHER_BYTES ((size_t)1 << 30)
int kc_run_exact_launches(kc_gpu *gpu, const kc_contract *c, const char *control, uint64_t seed, int edges_only,
                          char *msg, size_t cap, kc_exact_stats *st);

/* A racecheck batch: the racecheck edge shapes of items cs[0..n) (each a
 * :sanitize item's contract, n <= KC_SAN_BATCH_ITEMS) in one request, as
 * kc_run_exact_launches runs one item's with edges_only, but every case of
 * every item that launches through the driver launched together, one
 * non-blocking stream each, up to KC_SAN_BATCH_CASES a round within the sum
 * of what the memory plan admits the items with (round_budget each), then
 * one synchronize; a library kernel's items after them, one at a time. Why:
 * racecheck's fixed cost is per launch and synchronize, not per shared-memory
 * access, so several items in one round take about half the wall of one a
 * request (H100: 64 items, 8 a request 6.07 and 5.69 s against 12.42 and
 * 12.16 s one a request, same CPU; docs/receipts/
 * 2026-12-06-h100-racecheck-batch), and a planted race is reported the same
 * beside clean items. Which launch a report or a fault belongs to cannot be
 * told (the tool names the device function, not the kernel), so the gate
 * trusts a batch only when nothing at all went wrong (sanitize.c). msg[i]
 * (cap bytes each) gets item i's summary, or on failure the failing item's
 * reason and every other item's "not decided"; st[i] its figures. 0 when
 * every launch ran, 1 when anything failed. */
#define KC_SAN_BATCH_ITEMS 16
int kc_run_batch_launches(kc_gpu *gpu, const kc_contract *const *cs, int n, uint64_t seed, char *const *msg, size_t cap,
                          kc_exact_stats *st);

/* The target's side (--sanitize-target): runs kc_run_exact_launches for the
 * one item named by o->patterns[0] (a :sanitize item or a control; every
 * shape: the command a failure line gives to rerun by hand), or with no
 * pattern serves a session (sanitize_session.h): requests "<item> all|edge"
 * on stdin, each answered between its begin and end lines, or a batch:
 * "<item> edge" words separated by tabs (kc_run_batch_launches), each item
 * answered between its own begin and end lines in order, the launches
 * between the first item's begin line and its other lines. Prints
 * KC_SAN_TARGET_SMEM, KC_SAN_TARGET_SLOWEST, KC_SAN_TARGET_WATCHDOG (where
 * the module has a watchdog) and KC_SAN_TARGET_OK or
 * KC_SAN_TARGET_FAIL for each item. Returns 0 when every launch ran, 1 when
 * one failed, 3 without a GPU, 2 bad usage. */
int kc_sanitize_target(const kc_opts *o, const kc_item *items, int n);
#endif
