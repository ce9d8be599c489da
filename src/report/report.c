/* report.c — per-worker figures, the lines under the SUMMARY, and writing the
 * reports asked for (report.h). The writers are report_json.c,
 * report_junit.c and report_timeline.c. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kc_report_nworkers(const kc_records *rs)
{
    int w = rs->workers > 0 ? rs->workers : 1;
    for (int i = 0; i < rs->n; i++)
        if (rs->v[i].worker >= w) w = rs->v[i].worker + 1;
    return w;
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
        if (r->peak_rss_kib > s->peak_rss_kib) s->peak_rss_kib = r->peak_rss_kib;
        if (r->peak_gpu_mib > s->peak_gpu_mib) s->peak_gpu_mib = r->peak_gpu_mib;
    }
    return busy;
}

double kc_report_efficiency(double busy_s, int workers, double wall_s)
{
    if (!(wall_s > 0) || workers < 1) return 0;
    return busy_s / (workers * wall_s);
}

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

void kc_report_no_gpu(FILE *out, const kc_records *rs, const char *why)
{
    int n = 0;
    for (int i = 0; i < rs->n; i++) n += rs->v[i].state == KC_SKIP && strncmp(rs->v[i].message, "no GPU", 6) == 0;
    if (n) fprintf(out, "kcontract: %d item%s skipped: no GPU (%s)\n", n, n == 1 ? "" : "s", why);
}

void kc_report_workers(FILE *out, const kc_records *rs)
{
    int nw = kc_report_nworkers(rs);
    kc_worker_stats *ws = calloc((size_t)nw, sizeof *ws);
    if (!ws) return;
    double busy = kc_report_worker_stats(rs, ws);
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
    kc_time_split t = kc_report_time_split(rs);
    if (t.inputs_s + t.gpu_s + t.reference_s + t.checks_s > 0)
        fprintf(out, "time in items: inputs %.1f s, GPU %.1f s, float64 references %.1f s, checks %.1f s, other %.1f s\n",
                t.inputs_s, t.gpu_s, t.reference_s, t.checks_s,
                busy - (t.inputs_s + t.gpu_s + t.reference_s + t.checks_s));
    if (t.inputs_made_gpu + t.inputs_made_host + t.inputs_reused > 0)
        fprintf(out, "input buffers: %d made by the GPU, %d by contracts' generators on the host, %d reused from an earlier item\n",
                t.inputs_made_gpu, t.inputs_made_host, t.inputs_reused);
    report_slowest(out, rs, KC_REPORT_SLOWEST);
    free(ws);
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
        if (!kc_state_measured(rs->v[i].state) || s < 0.005) continue;   /* nothing ran */
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

kc_time_split kc_report_time_split(const kc_records *rs)
{
    kc_time_split t = { 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < rs->n; i++) {
        t.inputs_made_gpu += rs->v[i].time.inputs_made_gpu;
        t.inputs_made_host += rs->v[i].time.inputs_made_host;
        t.inputs_reused += rs->v[i].time.inputs_reused;
        t.inputs_s += rs->v[i].time.inputs_s;
        t.gpu_s += rs->v[i].time.gpu_s;
        t.reference_s += rs->v[i].time.reference_s;
        t.checks_s += rs->v[i].time.checks_s;
    }
    return t;
}

/* ---- writing the reports ---- */

typedef int (*report_fn)(FILE *f, const kc_records *rs, int which);

static int write_final(FILE *f, const kc_records *rs, int which)
{
    return which == 0 ? kc_report_json(f, rs) : which == 1 ? kc_report_junit(f, rs, "kcontract") : kc_report_timeline_svg(f, rs);
}

/* What a report says until the run that writes it has finished. */
static int write_incomplete(FILE *f, const kc_records *rs, int which)
{
    char why[256];
    (void)rs;
    snprintf(why, sizeof why, "the kcontract run (pid %ld) that writes this report has not finished: it is still running, "
             "or it ended before writing it (killed, crashed or refused); this is not a result", (long)getpid());
    if (which == 0) {
        fprintf(f, "{\"type\":\"incomplete\",\"pid\":%ld,\"message\":\"%s\"}\n", (long)getpid(), why);
    } else if (which == 1) {
        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<testsuites name=\"kcontract\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
                   "  <testsuite name=\"kcontract\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
                   "    <testcase classname=\"run\" name=\"kcontract.incomplete\" time=\"0.000\">\n"
                   "      <error type=\"INCOMPLETE\" message=\"%s\">%s</error>\n"
                   "    </testcase>\n  </testsuite>\n</testsuites>\n", why, why);
    } else {
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"incomplete\" width=\"1200\" height=\"60\" "
                   "font-family=\"sans-serif\" font-size=\"13\">\n<text x=\"10\" y=\"34\">%s</text>\n</svg>\n", why);
    }
    return ferror(f) ? -1 : 0;
}

/* Writes one report through a temporary file renamed into place, so a reader
 * never sees half a report; straight into a path that exists and is not a
 * regular file (/dev/stdout, a pipe), where the placeholder is not written. */
static int write_one(const char *opt, const char *path, const kc_records *rs, int which, report_fn fn)
{
    if (!path) return 0;
    struct stat st;
    int direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (direct && fn == write_incomplete) return 0;
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        fprintf(stderr, "kcontract: %s %s: %s\n", opt, path, strerror(ENOMEM));
        return -1;
    }
    snprintf(tmp, n, "%s%s.%ld", path, direct ? "" : ".tmp", (long)getpid());
    if (direct) snprintf(tmp, n, "%s", path);
    FILE *f = fopen(tmp, "w");
    int rc = -1, err = 0;
    if (f) {
        errno = 0;
        rc = fn(f, rs, which);
        if (rc || ferror(f)) rc = -1, err = errno;
        if (fclose(f) && !rc) rc = -1, err = errno;
        if (!direct && !rc && rename(tmp, path)) rc = -1, err = errno;
        if (!direct && rc) unlink(tmp);
    } else {
        err = errno;
    }
    if (rc) fprintf(stderr, "kcontract: %s %s: %s\n", opt, path, strerror(err ? err : EIO));
    free(tmp);
    return rc;
}

int kc_reports_begin(const char *json, const char *junit, const char *timeline)
{
    int rc = 0;
    rc |= write_one("--json", json, NULL, 0, write_incomplete);
    rc |= write_one("--junit", junit, NULL, 1, write_incomplete);
    rc |= write_one("--timeline", timeline, NULL, 2, write_incomplete);
    return rc ? -1 : 0;
}

int kc_reports_write(const kc_records *rs, const char *json, const char *junit, const char *timeline)
{
    int rc = 0;
    rc |= write_one("--json", json, rs, 0, write_final);
    rc |= write_one("--junit", junit, rs, 1, write_final);
    rc |= write_one("--timeline", timeline, rs, 2, write_final);
    return rc ? -1 : 0;
}
