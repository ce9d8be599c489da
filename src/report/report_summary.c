/* report_summary.c — the lines under the SUMMARY (report_summary.h). */
#include "report_summary.h"

#include <stdlib.h>
#include <string.h>

#include "progname.h"
#include "report_stats.h"
#include "strbuf.h"

static void fmt_kib(char *buf, size_t cap, long kib)
{
    if (kib < 0) snprintf(buf, cap, "unknown");
    else if (kib < 1024) snprintf(buf, cap, "%ld KiB", kib);
    else if (kib < 1024L * 1024) snprintf(buf, cap, "%.1f MiB", kib / 1024.0);
    else snprintf(buf, cap, "%.1f GiB", kib / (1024.0 * 1024.0));
}

static void fmt_mib(char *buf, size_t cap, long mib)
{
    if (mib < 0) snprintf(buf, cap, "unknown");
    else snprintf(buf, cap, "%ld MiB", mib);
}

static void report_slowest(FILE *out, const kc_records *rs, int k);
static void report_items(FILE *out, const kc_records *rs, double busy);

void kc_report_no_gpu(FILE *out, const kc_records *rs, const char *why)
{
    int n = 0;
    for (int i = 0; i < rs->n; i++) n += rs->v[i].res.state == KC_SKIP && strncmp(rs->v[i].res.msg, "no GPU", 6) == 0;
    if (n) kc_say(out, "%d item%s skipped: no GPU (%s)\n", n, n == 1 ? "" : "s", why);
}

void kc_report_controls_beside_failures(FILE *out, const kc_records *rs, int merged)
{
    enum { NAMED = 5 };
    int n = 0;
    char names[NAMED * 200] = "";
    for (int i = 0; i < rs->n; i++) {
        if (!kc_record_red_beside_failure(rs, &rs->v[i])) continue;
        if (n < NAMED) kc_strcatf(names, sizeof names, "%s%s", n ? ", " : "", rs->v[i].name);
        n++;
    }
    if (!n) return;
    kc_say(out, "%d control%s RED beside %s kernel's failure in this run (%s%s): a RED there may be the kernel's own "
           "failure and shows nothing of the contract catching the planted bug; ", n, n == 1 ? "" : "s",
           n == 1 ? "its" : "their", names, n > NAMED ? ", ..." : "");
    if (merged)     /* a shard kept the RED of a control whose kernel failed on another shard */
        fprintf(out, "once the kernel passes, run %s again with --no-cache (a shard that did not run %s kernel may "
                "have kept %s RED in its results cache)\n", n == 1 ? "it" : "them", n == 1 ? "its" : "their",
                n == 1 ? "its" : "their");
    else
        fprintf(out, "the results cache keeps no such RED, so %s again in the next run\n",
                n == 1 ? "it runs" : "they run");
}

/* Every verdict came from the results cache: no process ran an item, so
 * there are no figures; one line says so (1), in place of "peak RSS
 * unknown" that read like a fault. 0 when some item ran. */
static int all_cached(FILE *out, const kc_records *rs)
{
    for (int i = 0; i < rs->n; i++)
        if (!rs->v[i].res.cached) return 0;
    fprintf(out, "no item ran: %s %d verdict%s came from the results cache\n", rs->n == 1 ? "its" : "all", rs->n,
            rs->n == 1 ? "" : "s");
    return 1;
}

void kc_report_workers(FILE *out, const kc_records *rs)
{
    if (!rs->n) return;         /* no item ran (nothing to rerun, say): no worker has figures */
    if (all_cached(out, rs)) return;
    int nw;
    double busy;
    kc_worker_stats *ws = kc_report_workers_new(rs, &nw, &busy);
    if (!ws) {
        fprintf(out, "workers: their figures are missing (out of host memory)\n");
        return;
    }
    int rss_w = 0, gpu_w = 0;
    for (int w = 1; w < nw; w++) {
        if (ws[w].peak_rss_kib > ws[rss_w].peak_rss_kib) rss_w = w;
        if (ws[w].peak_gpu_mib > ws[gpu_w].peak_gpu_mib) gpu_w = w;
    }
    char rss[32], gpu[32];
    fmt_kib(rss, sizeof rss, ws[rss_w].peak_rss_kib);
    fmt_mib(gpu, sizeof gpu, ws[gpu_w].peak_gpu_mib);
    int prec = rs->wall_s < 1 ? 3 : 1;   /* a sub-second run's figures must still explain its efficiency */
    fprintf(out, "workers: %d, busy %.*f s of %d x %.*f s (efficiency %.2f); peak RSS %s", nw, prec, busy, nw, prec,
            rs->wall_s, kc_report_efficiency(busy, nw, rs->wall_s), rss);
    if (ws[rss_w].peak_rss_kib >= 0) fprintf(out, " (worker %d)", rss_w);
    fprintf(out, ", peak GPU %s", gpu);
    if (ws[gpu_w].peak_gpu_mib >= 0) fprintf(out, " (worker %d)", gpu_w);
    fputc('\n', out);
    for (int w = 0; w < nw; w++) {
        fmt_kib(rss, sizeof rss, ws[w].peak_rss_kib);
        fmt_mib(gpu, sizeof gpu, ws[w].peak_gpu_mib);
        fprintf(out, "  worker %d: %d item%s, busy %.1f s, peak RSS %s, peak GPU %s\n", w, ws[w].items,
                ws[w].items == 1 ? "" : "s", ws[w].busy_s, rss, gpu);
    }
    report_items(out, rs, busy);
    free(ws);
}

void kc_report_serial(FILE *out, const kc_records *rs)
{
    if (!rs->n) return;         /* no item ran: no figures */
    if (all_cached(out, rs)) return;
    long rss_kib = -1, gpu_mib = -1;
    double busy = 0;
    for (int i = 0; i < rs->n; i++) {   /* every record, those of the processes before a re-exec too */
        const kc_record *r = &rs->v[i];
        if (r->res.peak_rss_kib > rss_kib) rss_kib = r->res.peak_rss_kib;
        if (r->peak_gpu_mib > gpu_mib) gpu_mib = r->peak_gpu_mib;
        if (r->end_s - r->start_s > 0) busy += r->end_s - r->start_s;
    }
    char rss[32], gpu[32];
    fmt_kib(rss, sizeof rss, rss_kib);
    fmt_mib(gpu, sizeof gpu, gpu_mib);
    fprintf(out, "peak RSS %s, peak GPU %s\n", rss, gpu);
    report_items(out, rs, busy);
}

/* The lines about the items themselves, whoever ran them: the time split
 * (busy: the items' summed seconds), the input buffers, the slowest items. */
static void report_items(FILE *out, const kc_records *rs, double busy)
{
    kc_time_split t = kc_report_time_split(rs);
    if (t.inputs_s + t.gpu_s + t.reference_s + t.checks_s > 0)
        fprintf(out, "time in items: inputs %.1f s, GPU %.1f s, float64 references %.1f s, checks %.1f s, other %.1f s\n",
                t.inputs_s, t.gpu_s, t.reference_s, t.checks_s,
                busy - (t.inputs_s + t.gpu_s + t.reference_s + t.checks_s));
    if (t.inputs_made_gpu + t.inputs_made_host + t.inputs_reused > 0)
        fprintf(out, "input buffers: %d made by the GPU, %d by contracts' generators on the host, %d reused from an earlier item\n",
                t.inputs_made_gpu, t.inputs_made_host, t.inputs_reused);
    report_slowest(out, rs, KC_REPORT_SLOWEST);
}

/* "slowest items: a 12.3 s, b 10.1 s, ..." — the k longest items that ran
 * (not SKIP or NOTRUN, at least 5 ms; on ties the one finished first): where a
 * run's time goes and what no schedule can split. No line when fewer than two. */
static double item_s(const kc_records *rs, int i) { return rs->v[i].end_s - rs->v[i].start_s; }

static void report_slowest(FILE *out, const kc_records *rs, int k)
{
    int top[KC_REPORT_SLOWEST], n = 0;
    if (k > KC_REPORT_SLOWEST) k = KC_REPORT_SLOWEST;
    for (int i = 0; i < rs->n; i++) {
        double s = item_s(rs, i);
        if (!kc_state_measured(rs->v[i].res.state) || s < 0.005) continue;   /* nothing ran */
        if (n < k) n++;
        else if (s <= item_s(rs, top[k - 1])) continue;
        int j = n - 1;
        for (; j > 0 && item_s(rs, top[j - 1]) < s; j--) top[j] = top[j - 1];
        top[j] = i;
    }
    if (n < 2) return;
    fprintf(out, "slowest items:");
    for (int j = 0; j < n; j++)
        fprintf(out, "%s %s %.2f s", j ? "," : "", rs->v[top[j]].name, item_s(rs, top[j]));
    fputc('\n', out);
}
