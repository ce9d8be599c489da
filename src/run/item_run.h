/* item_run.h — running one item in this process and printing its line: what
 * a serial run (runner.c) and a work-queue worker (worker.c) share. */
#ifndef KC_ITEM_RUN_H
#define KC_ITEM_RUN_H
#include "cli.h"
#include "gates.h"
#include "gpu_state.h"
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

/* Runs `it` — SKIP without a GPU, a suite in-process, or a GPU item through
 * gates.c — prints its line (and any detail lines) on stdout, clearing the
 * progress line first, and fills *out. The peak RSS is VmHWM after resetting
 * it through /proc/self/clear_refs (Linux 4.0+). Processes the item left
 * running (children of this process, which must have adopted orphans:
 * kc_proc_adopt_orphans) get KC_LEAK_TIMEOUT_MS to end, then are killed and
 * named in the item's line, which kc_outcome_left_behind words. Its seconds
 * are the item's own, without that wait. With gw (NULL: not checked), what a
 * GPU item left in the context is checked too (gpu_state.h): a pending error
 * makes it LEAK and sets context_lost to KC_LOST_CONTEXT; memory left
 * allocated is named on its line and sets KC_LOST_GPU_STATE.
 * Test hook: KC_FAULT_LOSE_CONTEXT_AFTER=<item name> marks the context lost
 * after that item, so the serial re-exec and the queue's worker replacement
 * are exercised on machines without a GPU. */
void kc_item_run(kc_gpu *gpu, int have_gpu, const kc_item *it, const kc_opts *o, kc_gpu_watch *gw, kc_outcome *out);
/* The command that reruns just item `name` with the run's seed on `device`
 * (and its --records files, which record items need), as one line a POSIX
 * shell reads back word for word: a word with characters other than
 * [A-Za-z0-9@%+=:,./_-] is single-quoted. */
void kc_rerun_command(const kc_opts *o, const char *name, int device, char *buf, size_t cap);
/* words[0..n) as one line a POSIX shell reads back word for word (quoted as
 * kc_rerun_command quotes); cut at cap. */
void kc_shell_join(const char *const *words, int n, char *buf, size_t cap);
/* The item left `what` behind ("1 process running after it: ..."): a PASS or
 * KNOWN outcome becomes LEAK (it would otherwise read green), naming what and
 * keeping its own message after it; any other state keeps its verdict and
 * gets "; it also left <what>" (a control's RED is still a catch). */
void kc_outcome_left_behind(kc_outcome *out, const char *what);
/* Nonzero for items that need the GPU (kernels, controls, limits, GPU suites). */
int kc_item_needs_gpu(const kc_item *it);
#endif
