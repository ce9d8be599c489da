/* report_junit.h — --junit FILE: JUnit XML, one <testcase> per item (docs/reports.md),
 * its classname the item's family (kc_family_of); the testsuite named for the
 * program, with the run's timestamp and its <properties> (seed, build,
 * device, compute capability, SMs, shard). Writes to out; returns 0, or -1
 * with errno set (the caller, report.c, names the file). */
#ifndef KC_REPORT_JUNIT_H
#define KC_REPORT_JUNIT_H
#include <stdio.h>
#include <time.h>
#include "record.h"
#include "tally.h"

/* What the report says of the run besides its items. */
typedef struct kc_junit_run {
    const char *name;          /* the testsuite's name: the program's (progname.h); NULL: "kcontract" */
    const kc_tally *tally;     /* seed, build, device, cc, SMs, shard as <properties>; NULL: none */
    time_t started;            /* when the run started, as timestamp=; 0: unknown (a merge of shards' logs), none */
    int interrupted;           /* the signal that interrupted the run, 0 none: its untrusted testcase says so */
} kc_junit_run;

/* run NULL: name "kcontract", no properties, no timestamp. */
int kc_report_junit(FILE *out, const kc_records *rs, const kc_junit_run *run);
#endif
