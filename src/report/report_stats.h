/* report_stats.h — figures derived from a run's records (record.h) that the
 * reports and the lines under the SUMMARY share: per-worker items, busy
 * time and peaks, efficiency, and the time split summed over the items.
 * Pure functions of the records; below every writer. */
#ifndef KC_REPORT_STATS_H
#define KC_REPORT_STATS_H
#include "record.h"

/* Per-worker figures derived from the records. */
typedef struct kc_worker_stats {
    int items;
    double busy_s;            /* sum of its items' end_s - start_s */
    long peak_rss_kib;        /* largest of its items' figures, -1 unknown */
    long peak_gpu_mib;
} kc_worker_stats;
/* Workers in the records: max(rs->workers, highest worker index + 1); 0
 * when no worker started (a run whose every verdict came from the cache). */
int kc_report_nworkers(const kc_records *rs);
/* Fills ws[0 .. kc_report_nworkers(rs)) (ws must hold that many); returns the
 * busy seconds of all workers. */
double kc_report_worker_stats(const kc_records *rs, kc_worker_stats *ws);
/* The same into a new array of *nw (kc_report_nworkers) entries, the busy
 * seconds into *busy; the caller frees it. NULL with errno ENOMEM. */
kc_worker_stats *kc_report_workers_new(const kc_records *rs, int *nw, double *busy);
/* busy / (workers x wall), 0 when wall <= 0. */
double kc_report_efficiency(double busy_s, int workers, double wall_s);
/* The time split (item.h) summed over every record: how the run's item time
 * divides between inputs, GPU work, float64 references and checks. */
kc_time_split kc_report_time_split(const kc_records *rs);
#endif
