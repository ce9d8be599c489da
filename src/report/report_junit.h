/* report_junit.h — --junit FILE: JUnit XML, one <testcase> per item (docs/reports.md);
 * suite_name NULL: "kcontract". Writes to out; returns 0, or -1 with errno
 * set (the caller, report.c, names the file). */
#ifndef KC_REPORT_JUNIT_H
#define KC_REPORT_JUNIT_H
#include <stdio.h>
#include "record.h"

int kc_report_junit(FILE *out, const kc_records *rs, const char *suite_name);
#endif
