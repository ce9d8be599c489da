/* outcome.h — what running one item came to (kc_outcome): its state, the
 * failing gate, its times and peak RSS, the text of its line and the command
 * that reruns it. The gates fill it (the sanitizer gate, sanitize.c), the
 * run prints and tallies it (item_run.c, runner.c, worker.c). */
#ifndef KC_OUTCOME_H
#define KC_OUTCOME_H
#include "item.h"

/* kc_outcome.context_lost: why this process must be replaced before its next GPU item. */
#define KC_LOST_CONTEXT 1           /* the CUDA context is unusable (a sticky or pending error) */
#define KC_LOST_GPU_STATE 2         /* the item left device memory allocated in it (gpu_state.h) */

typedef struct kc_outcome {
    kc_state state;
    int gate;                 /* first failing gate, 0 if none */
    int limit_problems;
    int stale;
    int context_lost;         /* this process must be replaced before its next GPU item: KC_LOST_*, 0 not */
    double seconds;
    kc_time_split time;       /* GPU items: where the seconds went */
    long peak_rss_kib;        /* this process's peak RSS during the item; -1 unknown */
    char msg[2048];           /* the line's text after the name */
    char rerun[512];          /* the command that reruns the item; "" when it passed */
} kc_outcome;

/* The item left `what` behind ("1 process running after it: ..."): a PASS or
 * KNOWN outcome becomes LEAK (it would otherwise read green), naming what and
 * keeping its own message after it; any other state keeps its verdict and
 * gets "; it also left <what>" (a control's RED is still a catch). */
void kc_outcome_left_behind(kc_outcome *out, const char *what);
#endif
