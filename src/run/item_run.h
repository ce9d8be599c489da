/* item_run.h — running one item in this process and printing its line: what
 * a serial run (runner.c) and a work-queue worker (worker.c) share. */
#ifndef KC_ITEM_RUN_H
#define KC_ITEM_RUN_H
#include <stdio.h>

#include "run_options.h"
#include "gates.h"
#include "gpu_state.h"
#include "sanitize_session.h"
#include "item.h"
#include "result.h"
#include "shell_words.h"


/* Runs `it` — SKIP without a GPU, a suite in-process, or a GPU item through
 * gates.c — prints its line (and any detail lines) on stdout, clearing the
 * progress line first, and fills *out (result.h; with the rerun command
 * when it fails, kc_result_fails). The peak RSS is VmHWM after resetting
 * it through /proc/self/clear_refs (Linux 4.0+). Processes the item left
 * running (children of this process, which must have adopted orphans:
 * kc_proc_adopt_orphans) get KC_LEAK_TIMEOUT_MS to end, then are killed and
 * named in the item's line, which kc_result_left_behind words; children that
 * ran before the item (or before the run's first item: forked before main by
 * an LD_PRELOAD library's constructor) are not the item's (proctree.h) and
 * never make it LEAK. Its seconds
 * are the item's own, without that wait. With gw (NULL: not checked), what a
 * GPU item left in the context is checked too (gpu_state.h): a pending error
 * makes it LEAK and sets context_lost to KC_LOST_CONTEXT; memory left
 * allocated, or a context limit the driver would not set back, is named on
 * its line and sets KC_LOST_GPU_STATE; a limit set back is named only.
 * Test hook: KC_FAULT_LOSE_CONTEXT_AFTER=<item name> marks the context lost
 * after that item, so the serial re-exec and the queue's worker replacement
 * are exercised on machines without a GPU. san: this process's sanitizer
 * sessions (sanitize_session.h; NULL: none), which :sanitize items and
 * controls planted for the sanitizer run in, and which the leftover check
 * leaves running. */
/* A worker's first act before items (worker.c): keeps a copy of its stdout
 * and stderr, which kc_item_run puts back after an item that replaced them,
 * and the identity of its result pipe result_fd (-1: none): an item that
 * closed or replaced it gets a note that its verdict cannot reach the run. */
void kc_item_keep_stdio(int result_fd);
/* The line a worker prints after each item's own output (item_run.c), where
 * the item's line follows (the parent prints it): a byte no item line holds
 * (an ASCII record separator). The parent drops it, and a line of an item's
 * own output that ends with it is printed without it: the item printed that
 * without a newline, and its line still starts a line. */
#define KC_LINE_MARK "\036"

/* Whether a work-queue worker leaves item it's line, with result r, to its
 * parent instead of printing it: a clean (PASS) :sanitize verdict given in
 * compute-sanitizer sessions (kc_san_sessions_on), which only the worker's
 * end line vouches for (worker.h). The parent holds it until that line,
 * then prints it; a worker that ends under another item without the line
 * sends it to run again alone (queue_vouch.c). Both ends decide by this. */
int kc_item_line_waits_end(const kc_item *it, const kc_item_result *r);

void kc_item_run(kc_gpu *gpu, int have_gpu, const kc_item *it, const kc_opts *o, kc_gpu_watch *gw, kc_san_pool *san,
                 kc_item_result *out);
/* kc_item_run for a worker (beside: other items of this process are in
 * flight while it runs, kc_proc_item_begin): in a worker (o->worker) the
 * line is never printed here: its parent prints the verdict it takes from
 * the result line, or its own when none came (so an item has one state
 * line, also when its time limit runs out as it ends); nor, outside one,
 * with o's --gpu-shared and the context lost (its parent decides the
 * verdict, queue_holds.c). Then *kept gets the gates' further lines
 * (malloc'd, NULL none; the caller sends them on the result line and frees
 * them); else *kept is NULL. kept NULL: printed as kc_item_run does. */
void kc_item_run_kept(kc_gpu *gpu, int have_gpu, const kc_item *it, const kc_opts *o, kc_gpu_watch *gw,
                      kc_san_pool *san, kc_item_result *out, char **kept, int beside);
/* n :sanitize items (it->kind KC_KIND_SANITIZE) run at once, as kc_item_run
 * runs each, their results into outs[0..n) and their lines printed in
 * order: the sanitizer gate in batches of up to KC_SAN_BATCH_ITEMS
 * (kc_sanitize_batch, sanitize_batch.h). Each item's seconds are its own tools'
 * runs and an equal share of its batch request's wall, its peak RSS the
 * batch's; processes left running
 * after the batch may be any item's: each that passed is LEAK, and no line
 * is printed for a LEAK, which the queue decides by a run alone
 * (queue_lanes.c). beside: other items of this process are in flight
 * (kc_proc_item_begin). */
void kc_item_run_batch(const kc_item *const *its, int n, const kc_opts *o, kc_san_pool *san, kc_item_result *outs,
                       int beside);
/* Test hooks before an item runs, wherever it runs (kc_item_run, a
 * worker's lane): KC_FAULT_HANG_ITEM=<item name> makes that item hang
 * (sleep for ever), so the time limit of an item in flight and its run
 * alone are exercised without a GPU; KC_FAULT_SLOW_ITEM=<item name>@<s>
 * makes it start s seconds late (0 < s <= 60), so that items in flight
 * end in a set order; KC_FAULT_WAIT_FILE=<item name>@<path> makes it start
 * once path exists (at most 60 s late), so that it runs while another item
 * that makes path is in flight, however slow the machine;
 * KC_FAULT_TOUCH_FILE=<item name>@<path> creates path as it starts (after
 * any wait), so that something else (a fixture's thread) acts while it
 * runs. Nothing for any other name. */
void kc_item_fault_before(const char *name);
/* Test hook once the item has started (after the leftover check's start,
 * kc_proc_item_begin): KC_FAULT_LEAVE_CHILD=<item name> forks a child of
 * this process that sleeps 30 s and outlives the item, so the check that
 * nothing an item starts outlives it is exercised in flight and alone.
 * Nothing for any other name. */
void kc_item_fault_leave_child(const char *name);
/* Test hook: whether KC_FAULT_LOSE_CONTEXT_AFTER (a comma-separated list
 * of item names) names this item, whose result then says its CUDA context
 * was lost (the item's own verdict is kept). */
int kc_item_fault_lose_context(const char *name);
/* Test hook for a worker whose item lost its CUDA context, after the
 * result went out and before the process ends: KC_FAULT_TEARDOWN_S=<s>
 * (0 < s <= 60) makes it wait s seconds there, as a driver tearing a
 * faulted context down held a worker on an H100 (fault_spans.h). Nothing
 * when unset. */
void kc_item_fault_teardown(void);
/* Once, after this process's last item (the serial runner, a worker): when
 * children that are no item's still run here (there before the first item,
 * proctree.h), one line on out naming them and saying no item was blamed
 * for them. Nothing otherwise. */
void kc_note_predating(FILE *out);
/* Names on out, once each, the processes items left ending
 * (kc_proc_ending_overdue) still there KC_ENDING_GRACE_MS after they were
 * found so; at_end (as the process ends): after waiting for the others to
 * end or be so (kc_proc_ending_settle), so none goes unnamed. Nothing when
 * there are none. */
void kc_note_ending(FILE *out, int at_end);
/* The command that reruns just item `name` with the run's seed on `device`
 * (and what the option table gives a rerun: --records, which record items
 * need, and --reference, as given; run_options.h, kc_argv_kind), after the
 * environment it needs (rerun_env.h), as one line a POSIX shell reads back
 * word for word: a word with characters other than [A-Za-z0-9@%+=:,./_-] is
 * single-quoted. Empty when out of memory. */
void kc_rerun_command(const kc_opts *o, const char *name, int device, char *buf, size_t cap);
/* Nonzero for items that need the GPU (kernels, controls, limits, GPU suites). */
int kc_item_needs_gpu(const kc_item *it);
/* Nonzero for items that may run compute-sanitizer: :sanitize items, and
 * controls planted for the sanitizer (after gates 1-4). */
int kc_item_runs_sanitizer(const kc_item *it);
#endif
