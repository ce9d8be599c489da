/* state.c — the table of item states (state.h). */
#include "state.h"

#include <string.h>

/* Why NOTRUN fails: an item a run never reached was not checked, and no run
 * may read green over an unchecked item (exit 1, a JUnit <error>, counted
 * failed, a rerun command that runs it); it is not measured (no cost). Its
 * timeline colour is its own, not SKIP's grey: a skip is a choice, a NOTRUN
 * a gap. */
static const kc_state_info STATES[KC_STATE_COUNT] = {
    [KC_PASS]    = { "PASS",    0, 0, 1, KC_JUNIT_PASSED,  "#2e9d42", "PASS / RED",            NULL, "32" },
    [KC_FAIL]    = { "FAIL",    1, 0, 1, KC_JUNIT_FAILURE, "#d62728", "FAIL / MISSED / LIMIT", NULL, "31" },
    [KC_KNOWN]   = { "KNOWN",   0, 0, 1, KC_JUNIT_NOTE,    "#f0a30a", "KNOWN",                 NULL, "33" },
    [KC_RED]     = { "RED",     0, 0, 1, KC_JUNIT_PASSED,  "#2e9d42", "PASS / RED",            NULL, "32" },
    [KC_MISSED]  = { "MISSED",  1, 0, 1, KC_JUNIT_FAILURE, "#d62728", "FAIL / MISSED / LIMIT", NULL, "31" },
    [KC_LIMIT]   = { "LIMIT",   1, 0, 1, KC_JUNIT_FAILURE, "#d62728", "FAIL / MISSED / LIMIT", NULL, "31" },
    [KC_LEAK]    = { "LEAK",    1, 0, 1, KC_JUNIT_FAILURE, "#e6550d", "LEAK",  "left processes or GPU state behind", "91" },
    [KC_SKIP]    = { "SKIP",    0, 1, 0, KC_JUNIT_SKIPPED, "#9e9e9e", "SKIP",                  "skipped", "90" },
    [KC_CRASH]   = { "CRASH",   1, 0, 1, KC_JUNIT_ERROR,   "#7f0000", "CRASH",                 "crashed", "1;31" },
    [KC_TIMEOUT] = { "TIMEOUT", 1, 0, 1, KC_JUNIT_ERROR,   "#6a3d9a", "TIMEOUT",               "timed out", "35" },
    [KC_NOTRUN]  = { "NOTRUN",  1, 0, 0, KC_JUNIT_ERROR,   "#4a4a4a", "NOT RUN",               "not run", "1;90" },
};

static const kc_state_info UNKNOWN = { "?", 1, 0, 0, KC_JUNIT_ERROR, "#000000", "?", NULL, "" };

const kc_state_info *kc_state_info_of(kc_state s)
{
    return (unsigned)s < KC_STATE_COUNT ? &STATES[s] : &UNKNOWN;
}

const char *kc_state_name(kc_state s) { return kc_state_info_of(s)->name; }

int kc_state_parse(const char *s)
{
    for (int i = 0; i < KC_STATE_COUNT; i++)
        if (strcmp(s, STATES[i].name) == 0) return i;
    return -1;
}

int kc_state_failed(kc_state s) { return kc_state_info_of(s)->fails; }

int kc_state_measured(kc_state s) { return kc_state_info_of(s)->measured; }

size_t kc_state_prefix(const char *line, kc_state *s)
{
    for (int i = 0; i < KC_STATE_COUNT; i++) {
        size_t n = strlen(STATES[i].name);
        if (strncmp(line, STATES[i].name, n) == 0 && line[n] == ' ') {
            *s = (kc_state)i;
            return n;
        }
    }
    return 0;
}

int kc_state_shown(kc_state s, kc_status_level l)
{
    if (kc_state_failed(s)) return 1;
    return l == KC_LEVEL_ALL || (l == KC_LEVEL_PASS && s != KC_SKIP);
}
