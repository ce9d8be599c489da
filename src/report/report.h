/* report.h — the run's reports, written from its records (record.h):
 *   --json FILE      JSON Lines: one object per item, then one per worker;
 *   --junit FILE     JUnit XML: one testcase per item, FAIL/MISSED/LIMIT/LEAK
 *                    as failures, CRASH/TIMEOUT/NOTRUN as errors, SKIP as skipped;
 *   --timeline FILE  SVG: one row per worker, one bar per item coloured by state;
 * and the per-worker figures printed under the SUMMARY. Each writer returns 0,
 * or -1 with errno set (the caller names the file). */
#ifndef KC_REPORT_H
#define KC_REPORT_H
#include <stdio.h>
#include "record.h"

/* Per-worker figures derived from the records (used by the JSON report, the
 * timeline and kc_report_workers). */
typedef struct kc_worker_stats {
    int items;
    double busy_s;            /* sum of its items' end_s - start_s */
    long peak_rss_kib;        /* largest of its items' figures, -1 unknown */
    long peak_gpu_mib;
} kc_worker_stats;
/* Workers in the records: max(rs->workers, highest worker index + 1), at least 1. */
int kc_report_nworkers(const kc_records *rs);
/* Fills ws[0 .. kc_report_nworkers(rs)) (ws must hold that many); returns the
 * busy seconds of all workers. */
double kc_report_worker_stats(const kc_records *rs, kc_worker_stats *ws);
/* busy / (workers x wall), 0 when wall <= 0. */
double kc_report_efficiency(double busy_s, int workers, double wall_s);

int kc_report_json(FILE *out, const kc_records *rs);
int kc_report_junit(FILE *out, const kc_records *rs, const char *suite_name);
int kc_report_timeline_svg(FILE *out, const kc_records *rs);
#define KC_REPORT_SLOWEST 10   /* items named on the "slowest items:" line */

/* After the SUMMARY of a run without a GPU: "kcontract: 473 items skipped: no
 * GPU (<why>)", counting the records SKIPped for that reason; nothing when
 * there are none. The run's first lines say it too, but a user reads the end. */
void kc_report_no_gpu(FILE *out, const kc_records *rs, const char *why);
/* "workers: 8, busy 512.3 s of 8 x 70.1 s (efficiency 0.91); peak RSS 8.1 GiB (worker 3),
 *  peak GPU 8724 MiB (worker 5)", one line per worker, the time split ("time in
 *  items: inputs ..., GPU ..., float64 references ..., checks ..., other ...")
 *  and "slowest items: NAME S s, ..." (the KC_REPORT_SLOWEST longest, longest
 *  first); written after the SUMMARY. */
void kc_report_workers(FILE *out, const kc_records *rs);
/* The time split (item.h) summed over every record: how the run's item time
 * divides between inputs, GPU work, float64 references and checks. */
kc_time_split kc_report_time_split(const kc_records *rs);
/* At a run's start (issue 13: a run that does not finish never leaves a
 * green report): replaces each report named (NULL: not asked) by one that
 * says the run has not finished — JSON: one {"type":"incomplete",...} line
 * and no summary; JUnit: one <testcase> with <error type="INCOMPLETE">, so
 * errors="1"; SVG: a notice — written like the final reports, through a
 * temporary file renamed into place. A path that exists and is not a regular
 * file (/dev/stdout, a pipe) is left alone. Returns 0, or -1 after printing
 * "kcontract: --junit FILE: <strerror>" to stderr. */
int kc_reports_begin(const char *json, const char *junit, const char *timeline);
/* At its end: writes each report named (NULL: not asked) from the records,
 * atomically (FILE.tmp.PID renamed over FILE; straight into a path that is no
 * regular file). On failure prints "kcontract: --json FILE: <strerror>" to
 * stderr and returns -1; the file then still says the run is incomplete. */
int kc_reports_write(const kc_records *rs, const char *json, const char *junit, const char *timeline);
#endif
