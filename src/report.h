/* report.h — the run's reports, written from its records (record.h):
 *   --json FILE      JSON Lines: one object per item, then one per worker;
 *   --junit FILE     JUnit XML: one testcase per item, FAIL/MISSED/LIMIT as
 *                    failures, CRASH/TIMEOUT as errors, SKIP/NOTRUN as skipped;
 *   --timeline FILE  SVG: one row per worker, one bar per item coloured by state;
 * and the per-worker figures printed under the SUMMARY. Each writer returns 0,
 * or -1 with errno set (the caller names the file). */
#ifndef KC_REPORT_H
#define KC_REPORT_H
#include <stdio.h>
#include "record.h"

int kc_report_json(FILE *out, const kc_records *rs);
int kc_report_junit(FILE *out, const kc_records *rs, const char *suite_name);
int kc_report_timeline_svg(FILE *out, const kc_records *rs);
/* "workers: 8, busy 512.3 s of 8 x 70.1 s (efficiency 0.91); peak RSS 8.1 GiB (worker 3),
 *  peak GPU 8724 MiB (worker 5)" and one line per worker; written after the SUMMARY. */
void kc_report_workers(FILE *out, const kc_records *rs);
/* Writes each report named (NULL: not asked); on failure prints
 * "kcontract: --json FILE: <strerror>" to stderr and returns -1. */
int kc_reports_write(const kc_records *rs, const char *json, const char *junit, const char *timeline);
#endif
