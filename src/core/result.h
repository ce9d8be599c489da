/* result.h — owns the result of one item: the one type that the gates
 * (gates.h), the sanitizer gate (sanitize.h), an item run in this process
 * (item_run.h), a --jobs worker's result line (result_line.h), the queue
 * parent and the run's records (record.h) all fill and read, so no path
 * copies it field by field into a look-alike. What each state means:
 * state.h. */
#ifndef KC_RESULT_H
#define KC_RESULT_H
#include <stdint.h>
#include "item.h"

/* kc_item_result.context_lost: why this process must be replaced before its next GPU item. */
#define KC_LOST_CONTEXT 1           /* the CUDA context is unusable (a sticky or pending error) */
#define KC_LOST_GPU_STATE 2         /* the item left device memory allocated in it, or a limit not set back (gpu_state.h) */

typedef struct kc_item_result {
    kc_state state;
    int gate;                 /* first failing gate (FAIL, RED), 0 if none */
    int limit_problems;       /* limit items: problems found */
    int stale;                /* known findings that did not reproduce (they fail the run) */
    int context_lost;         /* KC_LOST_*, 0: the process may run its next GPU item */
    int cases, cases_failed;  /* GPU items: (shape, distribution) pairs run / failed (not on the result line) */
    double seconds;           /* the item's own time in its process */
    long peak_rss_kib;        /* its process's peak RSS during the item; -1 unknown */
    kc_time_split time;       /* GPU items: where the seconds went (item.h) */
    char msg[2048];           /* the item line's text after its name (one line: kc_result_escape) */
    char rerun[512];          /* the command that reruns the item; "" when it did not fail */
    unsigned block_size;      /* the launch variant of its first failure (kc_contract.block_sizes), which the
                               * rerun command selects (--block-size); 0 none (not on the result line) */
    /* Reused from the results cache (result_cache.h) instead of run: the
     * verdict, gate and message of the run that earned it, when (Unix
     * seconds, UTC) and in which build (build_id.h). 0: it ran here. */
    int cached;
    long long cached_at;
    uint64_t cached_build;
} kc_item_result;

/* Whether r fails the run: a failing state (state.h) or a stale known
 * finding. A failing item gets a rerun command, counts as failed on the
 * progress line and in the cost table, and stops --fail-fast. */
int kc_result_fails(const kc_item_result *r);
/* The item left `what` behind ("1 process running after it: ..."): a PASS or
 * KNOWN result becomes LEAK (it would otherwise read green), naming what and
 * keeping its own message after it; any other state keeps its verdict and
 * gets "; it also left <what>" (a control's RED is still a catch). */
void kc_result_left_behind(kc_item_result *r, const char *what);
/* Makes r's message and rerun command one line each: control bytes and
 * invalid UTF-8 escaped in place (line_text.h: a newline or an ESC in a
 * suite's message reads \n, \x1b). Escaping escaped text changes nothing,
 * so the process that ran the item (item_run.c, before its line and the
 * worker's result line) and the run's one finish (finish.c: the parent's own
 * CRASH, TIMEOUT and NOTRUN results too) both call it, and every line,
 * record and report of the item has the same text. */
void kc_result_escape(kc_item_result *r);
/* When a reused verdict was earned (r->cached_at), as ISO 8601 UTC
 * ("2026-12-07T19:24:37Z"), the text every report of it uses: the item
 * line's "[cached: earned ... by build ...]" (result_cache.c), which merge
 * reads back, and the JUnit report's cached property. "?" when the time
 * cannot be shown. */
void kc_result_cached_when(const kc_item_result *r, char *buf, size_t cap);
#endif
