/* progress.h — the progress line on a terminal: on stderr, redrawn in place,
 *     [ 37/195] 2 failed, 8 busy, ~1m12s left
 * Only when stderr is a terminal (isatty) and the run is not a --jobs child;
 * otherwise every call is a no-op and output stays plain lines. The failure
 * count is red when stderr is coloured (colour.h: --color, NO_COLOR). The estimate
 * comes from recorded costs when the caller gives them (kc_progress_expect),
 * else from the throughput so far (elapsed / done × left).
 *
 * The reporter (reporter.c) is its one caller: it clears the line before
 * each line it prints (so the two never share a row) and redraws it after;
 * kc_progress_item_done and kc_progress_busy redraw by themselves.
 * Single-threaded: call from the thread that prints. */
#ifndef KC_PROGRESS_H
#define KC_PROGRESS_H
#include <stddef.h>
#include "item.h"

/* Starts the line for `total` items (done counts from `already_done`, e.g.
 * after a re-exec) on `workers` workers. enable: 1 to draw when stderr is a
 * terminal, 0 never (a --jobs child). */
void kc_progress_start(int total, int already_done, int workers, int enable);
/* Optional: the recorded cost of all `total` items, seconds of one worker
 * (sum of the cost table's entries); <= 0 unknown. */
void kc_progress_expect(double total_cost_s);
/* One item finished; failed: it fails the run (kc_result_fails, result.h);
 * recorded_cost_s is its cost-table entry (<= 0 unknown; the estimate then
 * falls back to throughput). Redraws. */
void kc_progress_item_done(int failed, double recorded_cost_s);
/* Workers busy now. Redraws. */
void kc_progress_busy(int n);
/* The same without a redraw (the next redraw shows it). */
void kc_progress_set_busy(int n);
/* Erases the line ("\r\033[K") if drawn; the next redraw brings it back. */
void kc_progress_clear(void);
void kc_progress_redraw(void);
/* Erases the line for good; later calls draw nothing until the next start. */
void kc_progress_end(void);
/* Nonzero while the line is enabled. */
int kc_progress_active(void);
/* "~1m12s", "~45s", "~2h03m" into buf (for the line; exposed for tests). */
void kc_progress_format_eta(double s, char *buf, size_t cap);
#endif
