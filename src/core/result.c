/* result.c — an item's result (result.h). */
#include "result.h"

#include <stdio.h>
#include <time.h>

#include "line_text.h"

int kc_result_fails(const kc_item_result *r) { return kc_state_failed(r->state) || r->stale > 0; }

void kc_result_left_behind(kc_item_result *r, const char *what)
{
    char msg[sizeof r->msg];
    if (r->state == KC_PASS || r->state == KC_KNOWN) {    /* it would read green: it is not */
        snprintf(msg, sizeof msg, "left %.500s (otherwise %s: %.1500s)", what, kc_state_name(r->state), r->msg);
        r->state = KC_LEAK;
        r->gate = 0;
    } else {
        snprintf(msg, sizeof msg, "%.1500s; it also left %.500s", r->msg, what);
    }
    snprintf(r->msg, sizeof r->msg, "%s", msg);
}

void kc_result_escape(kc_item_result *r)
{
    kc_escape_in_place(r->msg, sizeof r->msg);
    kc_escape_in_place(r->rerun, sizeof r->rerun);
}

void kc_result_cached_when(const kc_item_result *r, char *buf, size_t cap)
{
    time_t t = (time_t)r->cached_at;
    struct tm tm;
    if (!cap) return;
    if (!gmtime_r(&t, &tm) || !strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm)) snprintf(buf, cap, "?");
}
