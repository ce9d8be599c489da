/* report_json.c — --json FILE: JSON Lines (docs/reports.md). One object per
 * item in the order items finished, one per worker, then one summary. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "report_json.h"
#include "report_stats.h"
#include "report_text.h"

static void num(FILE *out, const char *key, double v)
{
    fprintf(out, ",\"%s\":%.6f", key, isfinite(v) ? v : 0.0);
}

static void num_or_null(FILE *out, const char *key, long v)
{
    if (v < 0) fprintf(out, ",\"%s\":null", key);
    else fprintf(out, ",\"%s\":%ld", key, v);
}

static void str(FILE *out, const char *key, const char *s, size_t max)
{
    fprintf(out, ",\"%s\":", key);
    kc_json_string(out, s, max);
}

int kc_report_json(FILE *out, const kc_records *rs)
{
    long states[KC_STATE_COUNT] = { 0 };
    for (int i = 0; i < rs->n; i++) {
        const kc_record *r = &rs->v[i];
        fputs("{\"type\":\"item\"", out);
        str(out, "name", r->name, sizeof r->name);
        fprintf(out, ",\"kind\":\"%s\",\"state\":\"%s\"", kc_kind_name(r->kind), kc_state_name(r->res.state));
        if ((unsigned)r->res.state < KC_STATE_COUNT) states[r->res.state]++;
        fprintf(out, ",\"gate\":%d,\"worker\":%d", r->res.gate, r->worker);
        num_or_null(out, "device", r->device);
        fprintf(out, ",\"pid\":%ld", r->worker_pid);
        num(out, "start_s", r->start_s);
        num(out, "end_s", r->end_s);
        num(out, "seconds", r->end_s - r->start_s);
        num_or_null(out, "peak_rss_kib", r->res.peak_rss_kib);
        num_or_null(out, "peak_gpu_mib", r->peak_gpu_mib);
        num(out, "inputs_s", r->res.time.inputs_s);
        num(out, "gpu_s", r->res.time.gpu_s);
        num(out, "reference_s", r->res.time.reference_s);
        num(out, "checks_s", r->res.time.checks_s);
        fprintf(out, ",\"inputs_made_gpu\":%d,\"inputs_made_host\":%d,\"inputs_reused\":%d", r->res.time.inputs_made_gpu,
                r->res.time.inputs_made_host, r->res.time.inputs_reused);
        str(out, "message", r->res.msg, sizeof r->res.msg);
        str(out, "rerun", r->res.rerun, sizeof r->res.rerun);
        str(out, "log_tail", r->log_tail, sizeof r->log_tail);
        fprintf(out, ",\"cached\":%s", r->res.cached ? "true" : "false");    /* reused: result_cache.h */
        if (r->res.cached)
            fprintf(out, ",\"cached_at\":%lld,\"cached_build\":\"%016llx\"", r->res.cached_at,
                    (unsigned long long)r->res.cached_build);
        fputs("}\n", out);
    }
    int nw;
    double busy;
    kc_worker_stats *ws = kc_report_workers_new(rs, &nw, &busy);
    if (!ws) return -1;
    for (int w = 0; w < nw; w++) {
        fprintf(out, "{\"type\":\"worker\",\"worker\":%d,\"items\":%d", w, ws[w].items);
        num(out, "busy_s", ws[w].busy_s);
        num_or_null(out, "peak_rss_kib", ws[w].peak_rss_kib);
        num_or_null(out, "peak_gpu_mib", ws[w].peak_gpu_mib);
        fputs("}\n", out);
    }
    free(ws);
    fprintf(out, "{\"type\":\"summary\",\"items\":%d,\"workers\":%d", rs->n, nw);
    num(out, "wall_s", rs->wall_s);
    num(out, "busy_s", busy);
    num(out, "efficiency", kc_report_efficiency(busy, nw, rs->wall_s));
    fprintf(out, ",\"ran_again\":%d,\"untrusted\":%ld", rs->ran_again, rs->untrusted);
    kc_time_split t = kc_report_time_split(rs);
    num(out, "inputs_s", t.inputs_s);
    num(out, "gpu_s", t.gpu_s);
    num(out, "reference_s", t.reference_s);
    num(out, "checks_s", t.checks_s);
    fprintf(out, ",\"inputs_made_gpu\":%d,\"inputs_made_host\":%d,\"inputs_reused\":%d", t.inputs_made_gpu,
            t.inputs_made_host, t.inputs_reused);
    fputs(",\"states\":{", out);
    for (int s = 0; s < KC_STATE_COUNT; s++) fprintf(out, "%s\"%s\":%ld", s ? "," : "", kc_state_name((kc_state)s), states[s]);
    fputs("}}\n", out);
    return ferror(out) ? -1 : 0;
}
