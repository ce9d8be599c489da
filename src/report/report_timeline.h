/* report_timeline.h — --timeline FILE.svg: one row per worker, one bar per item coloured by
 * state (docs/reports.md). Writes to out; returns 0, or -1 with errno
 * set (the caller, report.c, names the file). */
#ifndef KC_REPORT_TIMELINE_H
#define KC_REPORT_TIMELINE_H
#include <stdio.h>
#include "record.h"

int kc_report_timeline_svg(FILE *out, const kc_records *rs);
#endif
