/* worker_phase.c — owns the phases of a work-queue worker and the changes
 * allowed between them (worker_phase.h). */
#include "worker_phase.h"

static const char *const NAMES[KC_WK_PHASES] = {
    [KC_WK_GONE] = "GONE",           [KC_WK_STARTING] = "STARTING", [KC_WK_IDLE] = "IDLE",
    [KC_WK_RUNNING] = "RUNNING",     [KC_WK_SEALING] = "SEALING",   [KC_WK_TIMED_OUT] = "TIMED_OUT",
    [KC_WK_VIOLATED] = "VIOLATED",   [KC_WK_LATE] = "LATE",         [KC_WK_RETIRING] = "RETIRING",
    [KC_WK_OVERDUE] = "OVERDUE",
};

#define B(p) (1u << (p))
/* The phases each phase may go to; every one but GONE also to GONE. */
static const unsigned NEXT[KC_WK_PHASES] = {
    [KC_WK_GONE] = B(KC_WK_STARTING),
    [KC_WK_STARTING] = B(KC_WK_IDLE) | B(KC_WK_LATE) | B(KC_WK_VIOLATED),
    [KC_WK_IDLE] = B(KC_WK_RUNNING) | B(KC_WK_VIOLATED) | B(KC_WK_OVERDUE),
    [KC_WK_RUNNING] = B(KC_WK_SEALING) | B(KC_WK_TIMED_OUT) | B(KC_WK_VIOLATED),
    [KC_WK_SEALING] = B(KC_WK_IDLE) | B(KC_WK_RETIRING) | B(KC_WK_TIMED_OUT) | B(KC_WK_VIOLATED),
    [KC_WK_TIMED_OUT] = 0,
    [KC_WK_VIOLATED] = 0,
    [KC_WK_LATE] = 0,
    [KC_WK_RETIRING] = B(KC_WK_VIOLATED) | B(KC_WK_OVERDUE),
    [KC_WK_OVERDUE] = 0,
};

static int valid(kc_worker_phase p) { return (unsigned)p < KC_WK_PHASES; }

const char *kc_worker_phase_name(kc_worker_phase p) { return valid(p) ? NAMES[p] : "?"; }

int kc_worker_phase_may(kc_worker_phase from, kc_worker_phase to)
{
    if (!valid(from) || !valid(to)) return 0;
    if (to == KC_WK_GONE) return from != KC_WK_GONE;
    return (NEXT[from] & B(to)) != 0;
}

int kc_worker_phase_has_item(kc_worker_phase p)
{
    return p == KC_WK_RUNNING || p == KC_WK_SEALING || p == KC_WK_TIMED_OUT;
}

int kc_worker_phase_set(kc_worker_phase *p, kc_worker_phase to)
{
    if (!kc_worker_phase_may(*p, to)) return -1;
    *p = to;
    return 0;
}
