/* report.h — the run's reports, written from its records (record.h):
 *   --json FILE      JSON Lines: one object per item, then one per worker (report_json.h);
 *   --junit FILE     JUnit XML: one testcase per item, as the state table says (state.h,
 *                    report_junit.h);
 *   --timeline FILE  SVG: one row per worker, one bar per item coloured by state
 *                    (report_timeline.h).
 * The figures they share: report_stats.h; the lines under the SUMMARY:
 * report_summary.h. */
#ifndef KC_REPORT_H
#define KC_REPORT_H
#include <stdio.h>
#include "record.h"

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
 * atomically (a new FILE.tmp.PID.XXXXXXXX renamed over FILE, safe_file.h;
 * straight into a path that is no regular file). On failure prints
 * "kcontract: --json FILE: <strerror>" to stderr and returns -1; the file
 * then still says the run is incomplete. */
int kc_reports_write(const kc_records *rs, const char *json, const char *junit, const char *timeline);
#endif
