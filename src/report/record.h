/* record.h — what a run keeps of each item for its reports (--json, --junit,
 * --timeline) and the summary figures under the SUMMARY: its result
 * (result.h), which worker ran it, when, and the peak GPU memory it used. Serial runs and
 * --jobs runs fill the same records. */
#ifndef KC_RECORD_H
#define KC_RECORD_H
#include <stddef.h>
#include "item.h"
#include "result.h"

typedef struct kc_record {
    char name[192];
    kc_kind kind;
    kc_item_result res;       /* what the item came to (result.h): state, gate, stale, message, rerun, peak RSS, ... */
    int worker;               /* worker index (0 for a serial run; -1 never handed out) */
    int device;               /* CUDA ordinal the item ran on, -1 for none */
    long worker_pid;
    double start_s, end_s;    /* seconds since the run started (wall clock, monotonic) */
    long peak_gpu_mib;        /* the worker's peak GPU memory during the item (NVML); -1 unknown */
    char log_tail[4096];      /* CRASH/TIMEOUT: the worker's last lines */
    char detail[2048];        /* merge: the item's further lines as its shard printed them ("    known: ...",
                               * newline-ended, without a "[wK] " tag); "" none or not a merge */
    int detail_cut_lines;     /* merge: further lines that did not fit in detail (kc_lines, line_text.h) */
    size_t detail_cut_bytes;  /* and their bytes */
    int suspect;              /* its worker later ended on its own without its end line (queue_deaths.c): its
                               * pass is not kept in the results cache, and the cost table records it failed */
} kc_record;

/* The records of one run, in the order items finished. */
typedef struct kc_records {
    kc_record *v;
    int n, cap;
    int workers;              /* workers (1 for serial) */
    double wall_s;            /* the run's wall time */
    int ran_again;            /* items whose first verdict was not known to be their own (beside a verdict in
                               * flight that was not final, or a context lost beside theirs), decided by a run
                               * alone: the line under the SUMMARY (KC_RAN_AGAIN_LINE) and the JSON
                               * summary's "ran_again"; a merge sums its shards' lines */
    long untrusted;           /* the run's TALLY untrusted= (tally.h): the JSON summary's "untrusted" */
} kc_records;

/* How the line under a SUMMARY that gives kc_records.ran_again starts
 * (run_end.c prints it, merge_logs.c reads it back). */
#define KC_RAN_AGAIN_LINE "ran again alone: "

/* Whether r is a control that came RED while its own kernel's record (r's
 * name before ":control.") failed in the same records: a RED there may be
 * the kernel's own failure (a wrong reference fails the clean kernel and
 * every control gate 3 reaches) and shows nothing of the contract catching
 * the planted bug. The line under the SUMMARY names such controls
 * (kc_report_controls_beside_failures) and the results cache keeps none of
 * them (kc_rcache_forget_beside_failures). */
int kc_record_red_beside_failure(const kc_records *rs, const kc_record *r);
/* Appends a copy of r; returns 0 or -1 when out of memory. */
int kc_records_add(kc_records *rs, const kc_record *r);
void kc_records_free(kc_records *rs);
/* Hand-over across the one-process runner's re-exec (--resume-records FD,
 * runner.c: a static schedule's shard): writes the records to an anonymous
 * memory file (memfd_create; else an unlinked file in $TMPDIR or /tmp) and
 * returns its descriptor, rewound and not close-on-exec; -1 with errno on
 * failure. */
int kc_records_save_fd(const kc_records *rs);
/* Appends the records saved by kc_records_save_fd (by this same binary) to rs
 * and closes fd. Returns 0, or -1 with the reason in why. */
int kc_records_load_fd(int fd, kc_records *rs, char *why, size_t cap);
#endif
