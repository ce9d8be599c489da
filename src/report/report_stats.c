/* report_stats.c — figures derived from a run's records (report_stats.h). */
#include "report_stats.h"

#include <errno.h>
#include <stdlib.h>

int kc_report_nworkers(const kc_records *rs)
{
    int w = rs->workers > 0 ? rs->workers : 0;   /* 0: no worker started (every verdict cached) */
    for (int i = 0; i < rs->n; i++)
        if (rs->v[i].worker >= w) w = rs->v[i].worker + 1;
    return w;
}

kc_worker_stats *kc_report_workers_new(const kc_records *rs, int *nw, double *busy)
{
    *nw = kc_report_nworkers(rs);
    kc_worker_stats *ws = calloc((size_t)(*nw ? *nw : 1), sizeof *ws);   /* never calloc(0): NULL means no memory */
    if (!ws) {
        errno = ENOMEM;
        return NULL;
    }
    *busy = kc_report_worker_stats(rs, ws);
    return ws;
}

double kc_report_worker_stats(const kc_records *rs, kc_worker_stats *ws)
{
    int nw = kc_report_nworkers(rs);
    double busy = 0;
    for (int w = 0; w < nw; w++) ws[w] = (kc_worker_stats){ 0, 0, -1, -1 };
    for (int i = 0; i < rs->n; i++) {
        const kc_record *r = &rs->v[i];
        if (r->worker < 0 || r->worker >= nw) continue;     /* never handed out (NOTRUN): no worker's */
        kc_worker_stats *s = &ws[r->worker];
        double d = r->end_s - r->start_s;
        if (!(d > 0)) d = 0;
        s->items++;
        s->busy_s += d;
        busy += d;
        if (r->res.peak_rss_kib > s->peak_rss_kib) s->peak_rss_kib = r->res.peak_rss_kib;
        if (r->peak_gpu_mib > s->peak_gpu_mib) s->peak_gpu_mib = r->peak_gpu_mib;
    }
    return busy;
}

double kc_report_efficiency(double busy_s, int workers, double wall_s)
{
    if (!(wall_s > 0) || workers < 1) return 0;
    return busy_s / (workers * wall_s);
}

kc_time_split kc_report_time_split(const kc_records *rs)
{
    kc_time_split t = { 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < rs->n; i++) {
        t.inputs_made_gpu += rs->v[i].res.time.inputs_made_gpu;
        t.inputs_made_host += rs->v[i].res.time.inputs_made_host;
        t.inputs_reused += rs->v[i].res.time.inputs_reused;
        t.inputs_s += rs->v[i].res.time.inputs_s;
        t.gpu_s += rs->v[i].res.time.gpu_s;
        t.reference_s += rs->v[i].res.time.reference_s;
        t.checks_s += rs->v[i].res.time.checks_s;
    }
    return t;
}
