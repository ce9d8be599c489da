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
#include "report_junit.h"

/* At a run's start (issue 13: a run that does not finish never leaves a
 * green report): first takes ownership of each report path named (NULL: not
 * asked) for the run's duration (issue 21): a record lock on "FILE.lock"
 * beside it, which a second run on the same path finds held and is refused
 * for; then replaces each report by one that says the run has not finished —
 * JSON: one {"type":"incomplete",...} line and no summary; JUnit: one
 * <testcase> with <error type="INCOMPLETE">, so errors="1"; SVG: a notice —
 * written like the final reports, through a temporary file renamed into
 * place. A path that exists and is not a regular file (/dev/stdout, a pipe)
 * is left alone and not locked. The locks are let go by kc_reports_write, or
 * when the process exits (the lock files are removed then too). Returns 0; 2
 * after naming the path on stderr when another run owns it ("kcontract:
 * --json r.json: another kcontract run (pid 4242) is writing this report
 * ...") or its lock file is a symbolic link or no regular file; 4 after
 * "kcontract: --junit FILE: <strerror>" when a placeholder cannot be
 * written. */
int kc_reports_begin(const char *json, const char *junit, const char *timeline);
/* At its end: writes each report named (NULL: not asked) from the records,
 * atomically (a new FILE.tmp.PID.XXXXXXXX renamed over FILE, safe_file.h;
 * straight into a path that is no regular file), then lets go of the paths
 * (kc_reports_begin). On failure prints "kcontract: --json FILE: <strerror>"
 * to stderr and returns -1; the file then still says the run is incomplete.
 * run: what the JUnit report says of the run (report_junit.h; NULL: nothing). */
int kc_reports_write(const kc_records *rs, const char *json, const char *junit, const char *timeline,
                     const kc_junit_run *run);
#endif
