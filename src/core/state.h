/* state.h — owns the item states and, in one table, what each means
 * everywhere a run reports it: whether it fails the run, whether it was
 * measured, its JUnit element, its colour and legend in the timeline, and
 * its phrase in the SUMMARY. Every consumer (exit status, SUMMARY, progress
 * line, --fail-fast, rerun commands, the cost table's failed column, JUnit,
 * the timeline, merge's failing list) asks this table; none keeps its own
 * list. The table and the reasons for each row: docs/output-format.md
 * ("States and what they mean"). */
#ifndef KC_STATE_H
#define KC_STATE_H
#include <stddef.h>

/* Item states. PASS/FAIL/KNOWN for kernels, RED/MISSED for controls, PASS/LIMIT
 * for limit checks, PASS/FAIL for suites and sanitizer items; SKIP, CRASH, TIMEOUT, NOTRUN for any.
 * LEAK: a kernel, limit check or suite that would have passed (PASS, KNOWN)
 * but left something behind: processes still running after it, or an error
 * pending in its CUDA context (item_run.h); a control keeps RED or MISSED. */
typedef enum kc_state {
    KC_PASS = 0, KC_FAIL, KC_KNOWN, KC_RED, KC_MISSED, KC_LIMIT, KC_LEAK,
    KC_SKIP, KC_CRASH, KC_TIMEOUT, KC_NOTRUN, KC_STATE_COUNT
} kc_state;

/* How a JUnit report writes a state (report_junit.c). */
typedef enum kc_junit_as {
    KC_JUNIT_PASSED = 0,      /* <testcase/> */
    KC_JUNIT_NOTE,            /* passes, its message in <system-out> (KNOWN) */
    KC_JUNIT_FAILURE,         /* <failure>: the check ran and found a problem */
    KC_JUNIT_ERROR,           /* <error>: the check did not complete (crashed, timed out, never ran) */
    KC_JUNIT_SKIPPED          /* <skipped/>: chose not to run (e.g. no GPU) */
} kc_junit_as;

typedef struct kc_state_info {
    const char *name;         /* "PASS", as on item lines, TALLY-free reports and result lines */
    int fails;                /* fails the run (exit 1), counts as failed on the progress line and in
                                 the cost table, stops --fail-fast, gets a rerun command, is listed by merge */
    int skips;                /* without any failing item, makes the exit status 3 (SKIP) */
    int measured;             /* the item ran: its seconds are a cost (cost table, slowest items) */
    kc_junit_as junit;
    const char *colour;       /* timeline bar, "#rrggbb" */
    const char *legend;       /* timeline legend entry; states sharing one share its colour */
    const char *summary;      /* SUMMARY extra "; N <summary>", NULL when the SUMMARY counts it otherwise */
    const char *sgr;          /* the state word on a terminal (--color): an SGR code of the 16-colour
                                 palette nearest the timeline's colour, "32" for "\033[32m" */
} kc_state_info;

/* --status-level: which item lines a run prints (nextest's names). A failing
 * item's line is printed at every level: it carries the rerun command, and a
 * run's log must say what failed; the TALLY and SUMMARY are always printed. */
typedef enum kc_status_level {
    KC_LEVEL_ALL = 0,         /* every line (the default); "skip" is the same */
    KC_LEVEL_PASS,            /* every line but SKIP's */
    KC_LEVEL_FAIL             /* the failing lines only (kc_state_failed) */
} kc_status_level;
/* Whether a line of state s is printed at level l. */
int kc_state_shown(kc_state s, kc_status_level l);
/* When line starts with a state's name and a space (an item line, "PASS
 * fixture.pass.00  ..."), its length, with the state in *s; else 0. */
size_t kc_state_prefix(const char *line, kc_state *s);

/* The row of state s; an out-of-range s gets a row named "?" that fails. */
const kc_state_info *kc_state_info_of(kc_state s);
const char *kc_state_name(kc_state s);   /* "PASS", "FAIL", ...; "?" out of range */
/* The state named s ("PASS", "LIMIT", ...), or -1. */
int kc_state_parse(const char *s);
/* kc_state_info_of(s)->fails: FAIL, MISSED, LIMIT, LEAK, CRASH, TIMEOUT, NOTRUN. */
int kc_state_failed(kc_state s);
/* kc_state_info_of(s)->measured: every state but SKIP and NOTRUN. */
int kc_state_measured(kc_state s);
#endif
