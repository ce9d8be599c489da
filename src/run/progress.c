/* progress.c — the progress line on stderr (progress.h). */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "colour.h"

static struct {
    int on, drawn, colour;
    int total, done, failed, busy, workers;
    double t0, expect_s, done_cost_s;
    int done_costed;
} P;

void kc_progress_format_eta(double s, char *buf, size_t cap)
{
    long t = (long)(s + 0.5);
    if (t < 0) t = 0;
    if (t < 60) snprintf(buf, cap, "~%lds", t);
    else if (t < 3600) snprintf(buf, cap, "~%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, cap, "~%ldh%02ldm", t / 3600, t % 3600 / 60);
}

void kc_progress_start(int total, int already_done, int workers, int enable)
{
    memset(&P, 0, sizeof P);
    const char *term = getenv("TERM");
    P.on = enable && isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);   /* no cursor control */
    P.colour = kc_colour_on(stderr);     /* --color, NO_COLOR (colour.h) */
    P.total = total;
    P.done = already_done;
    P.workers = workers > 0 ? workers : 1;
    P.t0 = kc_now_s();
}

void kc_progress_expect(double total_cost_s) { P.expect_s = total_cost_s; }

int kc_progress_active(void) { return P.on; }

void kc_progress_clear(void)
{
    if (!P.on || !P.drawn) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    P.drawn = 0;
}

void kc_progress_redraw(void)
{
    if (!P.on) return;
    char eta[32] = "";
    int left = P.total - P.done;
    double el = kc_now_s() - P.t0;
    if (left > 0 && P.expect_s > 0 && P.done_costed > 0) {
        /* the recorded cost still to run, spread over the workers */
        double rest = P.expect_s - P.done_cost_s;
        if (rest < 0) rest = 0;
        kc_progress_format_eta(rest / P.workers, eta, sizeof eta);
    } else if (left > 0 && P.expect_s > 0) {
        kc_progress_format_eta(P.expect_s / P.workers - el, eta, sizeof eta);
    } else if (left > 0 && P.done > 0 && el > 0) {
        kc_progress_format_eta(el / P.done * left, eta, sizeof eta);
    }
    int w = snprintf(NULL, 0, "%d", P.total);
    fprintf(stderr, "\r\033[K[%*d/%d] ", w, P.done, P.total);
    if (P.failed && P.colour) fprintf(stderr, "\033[31m%d failed\033[0m", P.failed);
    else fprintf(stderr, "%d failed", P.failed);
    fprintf(stderr, ", %d busy", P.busy);
    if (eta[0]) fprintf(stderr, ", %s left", eta);
    fflush(stderr);
    P.drawn = 1;
}

void kc_progress_item_done(int failed, double recorded_cost_s)
{
    P.done++;
    P.failed += failed != 0;
    if (recorded_cost_s > 0) {
        P.done_cost_s += recorded_cost_s;
        P.done_costed++;
    }
    kc_progress_redraw();
}

void kc_progress_set_busy(int n)
{
    P.busy = n;
}

void kc_progress_busy(int n)
{
    P.busy = n;
    kc_progress_redraw();
}

void kc_progress_end(void)
{
    kc_progress_clear();
    P.on = 0;
}
