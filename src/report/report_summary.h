/* report_summary.h — the lines a run prints under its SUMMARY, from its
 * records (record.h): the per-worker figures, the time split, the slowest
 * items, and how many items had no GPU. */
#ifndef KC_REPORT_SUMMARY_H
#define KC_REPORT_SUMMARY_H
#include <stdio.h>
#include "record.h"

#define KC_REPORT_SLOWEST 10   /* items named on the "slowest items:" line */

/* After the SUMMARY of a run without a GPU: "kcontract: 473 items skipped: no
 * GPU (<why>)", counting the records SKIPped for that reason; nothing when
 * there are none. The run's first lines say it too, but a user reads the end. */
void kc_report_no_gpu(FILE *out, const kc_records *rs, const char *why);
/* After the SUMMARY: "kcontract: N controls RED beside their kernel's
 * failure in this run (C:control.x, ...): ...", naming up to five, when a
 * control is RED while the kernel item it is planted in (the item named as
 * the control's name before ":control.") failed: the control's RED may be
 * the kernel's own failure, so it shows nothing of the contract's power to
 * catch the planted bug (the run is red anyway, by the kernel). Library
 * controls failing gate 1 are compared with the clean build (gates.c); this
 * line covers every control, after the fact. A run keeps no such RED in its
 * results cache (kc_rcache_forget_beside_failures), which the line says; a
 * merge (merged) cannot know what its shards kept (a control's kernel may
 * have failed on another shard), so it says to run them with --no-cache.
 * Nothing when there are none. */
void kc_report_controls_beside_failures(FILE *out, const kc_records *rs, int merged);
/* A --jobs run's: "workers: 8, busy 512.3 s of 8 x 70.1 s (efficiency 0.91); peak RSS 8.1 GiB (worker 3),
 *  peak GPU 8724 MiB (worker 5)", one line per worker, the time split ("time in
 *  items: inputs ..., GPU ..., float64 references ..., checks ..., other ...")
 *  and "slowest items: NAME S s, ..." (the KC_REPORT_SLOWEST longest, longest
 *  first); written after the SUMMARY. Nothing when no item ran. */
void kc_report_workers(FILE *out, const kc_records *rs);
/* A serial run's (no workers, so no worker figures): "peak RSS 11.4 MiB, peak
 * GPU unknown" over every record (those from before a re-exec too), then the
 * time split and the slowest items as kc_report_workers. Nothing when no item ran. */
void kc_report_serial(FILE *out, const kc_records *rs);
#endif
