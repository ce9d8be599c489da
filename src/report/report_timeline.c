/* report_timeline.c — --timeline FILE.svg (docs/reports.md): one row per
 * worker, one bar per item from its start to its end on a common time axis
 * (the run's wall time), coloured by state (state.h), each with a <title> tooltip;
 * axis ticks in seconds, a dashed line at the end of the run, a legend and
 * worker labels with their busy time, so a straggler stands out. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_timeline.h"
#include "report_stats.h"
#include "report_text.h"

#define W 1200          /* width */
#define LEFT 150        /* worker labels */
#define RIGHT 30
#define TOP 46          /* title */
#define ROW 26
#define BAR 18

/* 1, 2 or 5 times a power of ten, giving at most about 10 ticks. */
static double tick_step(double total)
{
    double raw = total / 10, mag = pow(10, floor(log10(raw)));
    return raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
}

static double fin(double v) { return isfinite(v) && v > 0 ? v : 0; }

int kc_report_timeline_svg(FILE *out, const kc_records *rs)
{
    int nw;
    double busy;
    kc_worker_stats *ws = kc_report_workers_new(rs, &nw, &busy);
    if (!ws) return -1;
    double total = fin(rs->wall_s);
    for (int i = 0; i < rs->n; i++)
        if (fin(rs->v[i].end_s) > total) total = fin(rs->v[i].end_s);
    if (total <= 0) total = 1;
    const double pw = W - LEFT - RIGHT;
    int axis_y = TOP + nw * ROW + 6, h = axis_y + 30 + 34;
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            W, h, W, h);
    fprintf(out, "<title>kcontract timeline</title>\n");
    fprintf(out, "<text x=\"%d\" y=\"20\" font-size=\"15\" font-weight=\"bold\">kcontract: %d item%s on %d worker%s, "
                 "wall %.1f s, busy %.1f s, efficiency %.2f</text>\n",
            LEFT, rs->n, rs->n == 1 ? "" : "s", nw, nw == 1 ? "" : "s", fin(rs->wall_s), busy,
            kc_report_efficiency(busy, nw, rs->wall_s));
    /* grid and ticks */
    double step = tick_step(total);
    fprintf(out, "<g class=\"axis\" stroke=\"#ddd\">\n");
    for (double t = 0; t <= total + step * 1e-9; t += step) {
        double x = LEFT + t / total * pw;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", x, TOP - 4, x, axis_y);
    }
    fprintf(out, "</g>\n<g class=\"ticks\" text-anchor=\"middle\" fill=\"#333\">\n");
    for (double t = 0; t <= total + step * 1e-9; t += step)
        fprintf(out, "<text x=\"%.1f\" y=\"%d\">%g s</text>\n", LEFT + t / total * pw, axis_y + 16, t);
    fprintf(out, "</g>\n");
    /* rows */
    for (int w = 0; w < nw; w++) {
        int y = TOP + w * ROW;
        fprintf(out, "<g class=\"worker\" id=\"worker-%d\">\n", w);
        fprintf(out, "<text x=\"8\" y=\"%d\">worker %d</text>\n", y + 13, w);
        fprintf(out, "<text x=\"8\" y=\"%d\" font-size=\"10\" fill=\"#666\">%d item%s, busy %.1f s</text>\n", y + 24,
                ws[w].items, ws[w].items == 1 ? "" : "s", ws[w].busy_s);
        for (int i = 0; i < rs->n; i++) {
            const kc_record *r = &rs->v[i];
            if ((r->worker < 0 ? 0 : r->worker) != w) continue;
            double s = fin(r->start_s), e = fin(r->end_s);
            if (e < s) e = s;
            double x = LEFT + s / total * pw, bw = (e - s) / total * pw;
            if (bw < 1) bw = 1;
            fprintf(out, "<rect class=\"bar\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"#fff\" "
                         "stroke-width=\"0.5\"><title>",
                    x, y + 4, bw, BAR, kc_state_info_of(r->res.state)->colour);
            kc_xml_text(out, r->name, sizeof r->name, 0);
            fprintf(out, " %s %.2f s (%.2f to %.2f s)</title></rect>\n", kc_state_name(r->res.state), e - s, s, e);
        }
        fprintf(out, "</g>\n");
    }
    /* the end of the run */
    double xe = LEFT + fin(rs->wall_s) / total * pw;
    fprintf(out, "<line class=\"end\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n",
            xe, TOP - 4, xe, axis_y);
    /* legend */
    int ly = axis_y + 40, lx = LEFT;
    fprintf(out, "<g class=\"legend\">\n");
    for (int st = 0; st < KC_STATE_COUNT; st++) {     /* one entry per legend of the state table (state.h) */
        const kc_state_info *si = kc_state_info_of((kc_state)st);
        int seen = 0;
        for (int e = 0; e < st && !seen; e++) seen = strcmp(kc_state_info_of((kc_state)e)->legend, si->legend) == 0;
        if (seen) continue;
        fprintf(out, "<rect class=\"swatch\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                     "<text x=\"%d\" y=\"%d\">%s</text>\n",
                lx, ly - 10, si->colour, lx + 16, ly, si->legend);
        lx += 40 + 7 * (int)strlen(si->legend);
    }
    fprintf(out, "</g>\n</svg>\n");
    free(ws);
    return ferror(out) ? -1 : 0;
}
