/* run_end.h — owns the one way every run ends: a serial or --shard K/N run
 * and the --jobs work queue (queue.c), a static schedule's shard
 * (runner.c), the static schedule's parent (jobs.c) and `kcontract merge`
 * (merge_logs.c). In this order: the interrupted line, the TALLY, the
 * SUMMARY with the wall time, the figures under it, the cost table written
 * back, the reports, and the exit status by one rule (kc_run_exit_status).
 * So no mode can print a green end the others would not, or differ on what a
 * report that fails to write does to the exit status. */
#ifndef KC_RUN_END_H
#define KC_RUN_END_H
#include "record.h"
#include "run_options.h"
#include "tally.h"

/* The figures printed under the SUMMARY (report_summary.h). */
typedef enum kc_figures {
    KC_FIGURES_NONE,            /* a shard of a --jobs parent, a merge: the figures are someone else's */
    KC_FIGURES_SERIAL,          /* one process as far as the user knows: peak RSS and GPU, time split */
    KC_FIGURES_WORKERS          /* the --jobs work queue: per worker */
} kc_figures;

/* How a run ended, for kc_run_end. */
typedef struct kc_run_end {
    const kc_opts *o;           /* its options: reports (--json, --junit, --timeline), cost table */
    const kc_tally *tally;      /* its counts */
    const kc_records *records;  /* its items' records; NULL: it keeps none (no reports, no cost table) */
    double wall_s;              /* its wall time, printed after the SUMMARY */
    int items;                  /* selected items, for the interrupted line */
    int interrupted;            /* the signal that interrupted it (SIGINT, SIGTERM), 0 none: its TALLY says
                                 * untrusted=1 too, so that no log or report of it reads green */
    int untrusted;              /* something it cannot vouch for (a sanitizer session's errors no item held,
                                 * a worker that broke the result protocol): never green */
    kc_figures figures;
    const char *no_gpu_why;     /* non-NULL: it had no GPU, the note under the SUMMARY says why */
    int write_costs;            /* rewrite the cost table (kc_cli_writes_costs) */
    int record_verdicts;        /* else record only the verdicts in it (a merge: kc_costs_save_verdicts) */
    int write_reports;          /* write the reports o names (0: a --jobs parent's shard leaves them to it) */
    int merged;                 /* kcontract merge: when its shards ran is unknown (JUnit: no timestamp) */
} kc_run_end;

/* The exit status of a run whose counts give `counts` (kc_tally_exit_status:
 * 0 passed, 1 failed, 3 skipped), by the one rule every mode uses:
 *   interrupted by signal S        -> 128 + S, whatever the counts;
 *   a failure (1)                  -> 1, also when a report could not be written
 *                                     (the run is red either way; stderr names the report);
 *   untrusted, counts 0 or 3       -> 1 (never green: what it cannot vouch for is said on stdout);
 *   a report not written, 0 or 3   -> 4 (internal error: the report still says "incomplete");
 *   otherwise                      -> counts.
 * docs/output-format.md "Exit status" states the same. */
int kc_run_exit_status(int counts, int interrupted, int untrusted, int reports_failed);

/* Ends the run as described above, printing on stdout. Returns its exit
 * status (kc_run_exit_status), or 4 when its TALLY does not fit a line. */
int kc_run_end_write(const kc_run_end *e);
#endif
