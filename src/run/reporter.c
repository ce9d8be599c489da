/* reporter.c — the one reporter between a run and the terminal (reporter.h). */
#include "reporter.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "colour.h"
#include "line_text.h"
#include "progname.h"
#include "progress.h"

#define KC_DETAIL_CAP 8192       /* as item_run.c's: the gates' further lines of one item */

/* Each line of text (none: NULL or ""), escaped, as "<prefix><line>\n"
 * (a line longer than the detail cap, escaped, is cut and says so). */
static void print_lines(const char *prefix, const char *text)
{
    char esc[KC_DETAIL_CAP];
    for (const char *p = text ? text : ""; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        size_t over = kc_escape_line(esc, sizeof esc, p, len);
        if (over) printf("%s%s [... %zu bytes cut]\n", prefix, esc, over);
        else printf("%s%s\n", prefix, esc);
        p += len + (e != NULL);
    }
}

static kc_status_level print_level;     /* --status-level (kc_item_print_level) */

void kc_item_print_level(kc_status_level l) { print_level = l; }

/* An item's line and the lines under it are printed whole: items on threads
 * side by side in one worker print one at a time. */
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

void kc_item_print(const char *name, const kc_item_result *r, double seconds, const char *detail, const char *log_tail)
{
    kc_item_print_tagged("", name, r, seconds, detail, log_tail);
}

void kc_item_print_tagged(const char *tag, const char *name, const kc_item_result *r, double seconds, const char *detail,
                          const char *log_tail)
{
    if (!kc_state_shown(r->state, print_level)) return;
    pthread_mutex_lock(&print_lock);
    char nm[1024], msg[4 * sizeof r->msg], rerun[4 * sizeof r->rerun];
    kc_escape_line(nm, sizeof nm, name, strlen(name));
    kc_escape_line(msg, sizeof msg, r->msg, sizeof r->msg);
    kc_escape_line(rerun, sizeof rerun, r->rerun, sizeof r->rerun);
    kc_progress_clear();
    fputs(tag, stdout);
    const char *st = kc_state_name(r->state);   /* coloured on a terminal (colour.h): the word, not its padding */
    kc_colour_put(stdout, kc_state_info_of(r->state)->sgr, st, strlen(st));
    printf("%*s %s  %s  (%.2f s)%s%s\n", strlen(st) < 6 ? (int)(6 - strlen(st)) : 0, "", nm, msg, seconds,
           rerun[0] ? "  rerun: " : "", rerun);
    print_lines(tag, detail);       /* tagged as the item's line: a merge reads them as its (merge_logs.c) */
    print_lines("    | ", log_tail);
    fflush(stdout);
    pthread_mutex_unlock(&print_lock);
}


void kc_report_run_start(int total, int already_done, int workers, int enable, double expected_cost_s)
{
    kc_progress_start(total, already_done, workers, enable);
    if (expected_cost_s > 0) kc_progress_expect(expected_cost_s);
}

void kc_report_busy(int n, int redraw)
{
    if (redraw) kc_progress_busy(n);
    else kc_progress_set_busy(n);
}

void kc_report_item_done(int fails, double recorded_cost_s) { kc_progress_item_done(fails, recorded_cost_s); }

void kc_report_vnote(FILE *to, const char *fmt, va_list ap)
{
    kc_progress_clear();
    fprintf(to, "%s: ", kc_prog());      /* as kc_say: the program's own name (progname.h) */
    vfprintf(to, fmt, ap);
    fflush(to);
    kc_progress_redraw();
}

void kc_report_note(FILE *to, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kc_report_vnote(to, fmt, ap);
    va_end(ap);
}

void kc_report_empty_shard(const kc_opts *o, int ns, int nf)
{
    if (!o->sharded || ns != 0) return;
    if (o->rerun_failed)        /* its slice is the plain run's; none of it failed (costs.h, kc_select) */
        kc_report_note(stdout, "shard %d/%d is empty: the cost table %s records no failure in its slice of the %d "
                       "item%s the filter selects (another slice's are its shard's to rerun)\n", o->shard_k,
                       o->shard_n, o->costs, nf, nf == 1 ? "" : "s");
    else if (o->costs_given)
        kc_report_note(stdout, "shard %d/%d is empty (the filter selects %d item%s; the slices are cut by the cost "
                       "table %s: longest first onto the least-loaded shard)\n", o->shard_k, o->shard_n, nf,
                       nf == 1 ? "" : "s", o->costs);
    else
        kc_report_note(stdout, "shard %d/%d is empty (the filter selects %d item%s; item i goes to shard i %% %d)\n",
                       o->shard_k, o->shard_n, nf, nf == 1 ? "" : "s", o->shard_n);
}

void kc_report_no_gpu_ahead(const char *why, int gpu_items, int selected)
{
    kc_report_note(stdout, "no GPU: %s; the %d GPU item%s will be SKIP%s\n", why, gpu_items, gpu_items == 1 ? "" : "s",
                   selected > gpu_items ? " and host-only suites still run" : "");
}

void kc_report_line(FILE *to, const char *fmt, ...)
{
    va_list ap;
    kc_progress_clear();
    va_start(ap, fmt);
    vfprintf(to, fmt, ap);
    va_end(ap);
    fflush(to);
    kc_progress_redraw();
}

void kc_report_relay(FILE *to, const char *pre, const char *line, size_t len, size_t cut)
{
    kc_progress_clear();
    fputs(pre, to);
    kc_state st;
    size_t word = to == stdout && kc_colour_on(to) ? kc_state_prefix(line, &st) : 0;
    if (word) kc_colour_put(to, kc_state_info_of(st)->sgr, line, word);   /* an item line's state word (colour.h) */
    fwrite(line + word, 1, len - word, to);
    if (cut) fprintf(to, " [... cut %zu bytes]", cut);
    fputc('\n', to);
    fflush(to);
    kc_progress_redraw();
}

void kc_report_run_end(void) { kc_progress_end(); }
