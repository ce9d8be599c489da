/* reporter.h — the one reporter between a run and the terminal
 * (reporter.c), as in cargo-nextest's model: the runners (runner.c, queue.c,
 * finish.c, item_run.c) say what happened, as events, and never draw on the
 * terminal themselves; the reporter decides what a line looks like (the
 * state word's colour, --status-level's filter) and keeps the progress line
 * (progress.h, which nothing else calls) off the lines it prints:
 *   the run started (kc_report_run_start), workers busy (kc_report_busy),
 *   an item's line (kc_item_print), an item done (kc_report_item_done), a
 *   line of the run's own (kc_report_note), a child's line passed on
 *   (kc_report_relay), the run's end (kc_report_run_end). */
#ifndef KC_REPORTER_H
#define KC_REPORTER_H
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "result.h"
#include "run_options.h"
#include "state.h"

/* A run of `total` items begins (already_done of them counted before, e.g.
 * by the process a re-exec replaced) on `workers` workers; enable 0: no
 * progress line (a --jobs child, whose parent draws one); expected_cost_s:
 * the cost table's seconds for them all (<= 0 unknown: the estimate comes
 * from the throughput). */
void kc_report_run_start(int total, int already_done, int workers, int enable, double expected_cost_s);
/* n workers are busy; redraw 0: the next redraw shows it. */
void kc_report_busy(int n, int redraw);
/* An item finished (after its line, if any): fails, it fails the run
 * (kc_result_fails); recorded_cost_s its cost-table entry (<= 0 unknown). */
void kc_report_item_done(int fails, double recorded_cost_s);
/* A line of the run's own (not an item's) on `to`, "<program>: " and the
 * printf-formatted text (kc_say), flushed, the progress line kept off it. */
void kc_report_note(FILE *to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The header's note that no GPU was found (why: the driver's reason), on
 * stdout: "no GPU: <why>; the N GPU items will be SKIP", and "and host-only
 * suites still run" when the run selected more than its gpu_items. The one
 * wording of the serial, --shard and --jobs headers (the run's closing
 * line: kc_report_no_gpu, report_summary.h). */
void kc_report_no_gpu_ahead(const char *why, int gpu_items, int selected);
/* The header's note that this --shard K/N slice is empty (ns 0 of nf
 * selected), on stdout, with how the slices were cut: "item i goes to shard
 * i % N", or by the cost table (--costs with --shard: kc_select), or, under
 * --rerun-failed, that the table records no failure in the slice; nothing
 * when not sharded or not empty. The one wording of the --shard and --jobs
 * --shard headers (runner.c, queue_header.c). */
void kc_report_empty_shard(const kc_opts *o, int ns, int nf);
void kc_report_vnote(FILE *to, const char *fmt, va_list ap);
/* A line read by programs, not people (the TALLY, the SUMMARY, a shard's
 * seal): the printf-formatted text as it is, no program name, flushed, the
 * progress line kept off it. */
void kc_report_line(FILE *to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A child's line passed on (the --jobs parent: queue.c, jobs.c): pre ("[w3] ",
 * "[2/8] ", or ""), then line[0..len) as the child wrote it (queue.c
 * escapes its workers' lines first, line_text.h), its state word
 * coloured when it is an item's line on a coloured stdout, and " [... cut N
 * bytes]" when cut; one line, the progress line kept off it. */
void kc_report_relay(FILE *to, const char *pre, const char *line, size_t len, size_t cut);
/* The run ended (or this process's part of it: before a re-exec): the
 * progress line erased for good. */
void kc_report_run_end(void);

/* The one printer of an item's line, on stdout after clearing the progress
 * line: `STATE  NAME  MESSAGE  (SECONDS s)[  rerun: COMMAND]`, then the
 * lines of detail (the gates' indented lines, kc_lines: whole, with the cut
 * marker; NULL none) and of log_tail (a dead worker's last lines, each as
 * `    | LINE`; NULL none). Everything is escaped on the way (line_text.h:
 * the message, the command, each line), so the item is one line, each line
 * under it one line too, and the next line of the run starts a line of its
 * own, whatever the item's text holds. kc_item_run (a serial run, a --jobs
 * worker) and kc_finish_item (the --jobs parent's CRASH, TIMEOUT and NOTRUN
 * lines) print through it. */
void kc_item_print(const char *name, const kc_item_result *r, double seconds, const char *detail, const char *log_tail);
/* The same line after tag (a --jobs worker's "[wK] ", when the parent
 * prints a line its worker did not: queue_holds.c; "" none). */
void kc_item_print_tagged(const char *tag, const char *name, const kc_item_result *r, double seconds, const char *detail,
                          const char *log_tail);
/* --status-level: the lines kc_item_print prints from now on in this process
 * (state.h, kc_state_shown: a failing line always; the default all). A line
 * not shown goes with the lines under it. Set once, by main. */
void kc_item_print_level(kc_status_level l);
#endif
