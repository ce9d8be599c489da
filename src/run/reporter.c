/* reporter.c — the one reporter between a run and the terminal (reporter.h). */
#include "reporter.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "colour.h"
#include "line_text.h"
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
    if (!kc_state_shown(r->state, print_level)) return;
    pthread_mutex_lock(&print_lock);
    char nm[1024], msg[4 * sizeof r->msg], rerun[4 * sizeof r->rerun];
    kc_escape_line(nm, sizeof nm, name, strlen(name));
    kc_escape_line(msg, sizeof msg, r->msg, sizeof r->msg);
    kc_escape_line(rerun, sizeof rerun, r->rerun, sizeof r->rerun);
    kc_progress_clear();
    const char *st = kc_state_name(r->state);   /* coloured on a terminal (colour.h): the word, not its padding */
    kc_colour_put(stdout, kc_state_info_of(r->state)->sgr, st, strlen(st));
    printf("%*s %s  %s  (%.2f s)%s%s\n", strlen(st) < 6 ? (int)(6 - strlen(st)) : 0, "", nm, msg, seconds,
           rerun[0] ? "  rerun: " : "", rerun);
    print_lines("", detail);
    print_lines("    | ", log_tail);
    fflush(stdout);
    pthread_mutex_unlock(&print_lock);
}

