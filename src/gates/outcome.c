/* outcome.c — an item's outcome (outcome.h): what it left behind, on its line. */
#include "outcome.h"

#include <stdio.h>

void kc_outcome_left_behind(kc_outcome *out, const char *what)
{
    char msg[sizeof out->msg];
    if (out->state == KC_PASS || out->state == KC_KNOWN) {    /* it would read green: it is not */
        snprintf(msg, sizeof msg, "left %.500s (otherwise %s: %.1500s)", what, kc_state_name(out->state), out->msg);
        out->state = KC_LEAK;
        out->gate = 0;
    } else {
        snprintf(msg, sizeof msg, "%.1500s; it also left %.500s", out->msg, what);
    }
    snprintf(out->msg, sizeof out->msg, "%s", msg);
}
