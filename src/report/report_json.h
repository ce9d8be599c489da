/* report_json.h — --json FILE: JSON Lines, one object per item in the order items finished,
 * one per worker, then one summary (docs/reports.md). Writes to out; returns 0, or -1 with errno
 * set (the caller, report.c, names the file). */
#ifndef KC_REPORT_JSON_H
#define KC_REPORT_JSON_H
#include <stdio.h>
#include "record.h"

int kc_report_json(FILE *out, const kc_records *rs);
#endif
