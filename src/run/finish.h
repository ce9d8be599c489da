/* finish.h — owns the one way an item finishes in a run, serial (runner.c)
 * or the --jobs queue parent (queue.c): kc_finish_item counts its result in
 * the TALLY, gives a failing one its rerun command, keeps its record (for
 * the reports and the cost table), prints the line no worker printed (a
 * CRASH, TIMEOUT or NOTRUN the parent made), advances the progress line and
 * applies --fail-fast. Both paths call it, so they cannot disagree on any of
 * that. A --jobs worker finishes nothing itself: it runs the item
 * (item_run.h) and sends its result on the result line (result_line.h). */
#ifndef KC_FINISH_H
#define KC_FINISH_H
#include "costs.h"       /* and kc_opts, through it */
#include "record.h"
#include "result_cache.h"
#include "result.h"
#include "tally.h"

typedef struct kc_finish {
    const kc_opts *o;
    kc_tally *tally;
    kc_records *records;
    const kc_costs *costs;    /* recorded costs, for the progress estimate; NULL: none */
    int stopping;             /* no more items are to be handed out (--fail-fast, or the caller's reason) */
    char stop_why[512];       /* why, for the NOTRUN lines */
    kc_rcache *cache;         /* the results cache a passing verdict is kept in (result_cache.h); NULL: none */
    int hold_to_end;          /* the items run in this very process (a static shard, runner.c): every pass is
                               * held (owner KC_FINISH_OWNER_END) until the process reaches its end or a
                               * re-exec, which release them (kc_rcache_release); a process that dies first
                               * keeps none: what ended it may have been left by any item it ran */
} kc_finish;

/* The owner of the passes a hold_to_end process holds (no pid: the
 * sanitizer's held verdicts are owned by the process's pid). */
#define KC_FINISH_OWNER_END (-1)

/* Where and when an item ran, for its record. */
typedef struct kc_item_where {
    int worker;               /* worker index; -1: never handed out */
    int device;               /* CUDA ordinal it ran on; -1 none */
    int rerun_device;         /* the --device of its rerun command */
    long pid;                 /* the process that ran it; 0 none */
    double start_s, end_s;    /* seconds since the run started */
    long peak_gpu_mib;        /* -1 unknown */
    const char *log_tail;     /* CRASH/TIMEOUT: the worker's last lines; NULL none */
    int print;                /* 1: print the item's line here (no worker printed it) */
    char tag[16];             /* ... after this, "[wK] ": the line its worker would have printed in a --jobs run
                               * (queue_holds.c), with the item's own seconds; "": none */
    const char *detail;       /* ... and these lines under it (the gates' further lines, '\n' between); NULL none */
    int own_seconds;          /* print: the item's own seconds (r->seconds) on its line, not end_s - start_s
                               * (the parent's view; a tag implies it): a verdict its worker sent for the parent
                               * to print (queue_neighbours.c) */
} kc_item_where;

/* Item `it` finished with *r (its rerun command filled in when it fails and
 * has none). Counts it (state, limit problems, stale; TALLY cached= when r
 * was reused from the results cache, else keeps a reusable verdict in
 * f->cache), keeps its record
 * (out of memory: said on stderr, the item is missing from the reports),
 * prints its line and the log tail when w->print, and under --fail-fast,
 * after the first failing item, sets f->stopping with the reason and says
 * so. */
void kc_finish_item(kc_finish *f, const kc_item *it, kc_item_result *r, const kc_item_where *w);
#endif
