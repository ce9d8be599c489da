/* item.c — the names of item kinds, states and reference modes, and which
 * states fail a run (item.h): what every layer above prints and counts. */
#include "item.h"

int kc_state_failed(kc_state s) {
    return s == KC_FAIL || s == KC_MISSED || s == KC_LIMIT || s == KC_LEAK || s == KC_CRASH || s == KC_TIMEOUT;
}

const char *kc_kind_name(kc_kind k) {
    static const char *const names[KC_KIND_COUNT] = { "kernel", "control", "limit", "suite", "sanitize" };
    return (k >= 0 && k < KC_KIND_COUNT) ? names[k] : "?";
}

const char *kc_ref_mode_name(kc_ref_mode m) {
    return m == KC_REF_HOST ? "host" : m == KC_REF_BOTH ? "both" : "device";
}

const char *kc_state_name(kc_state s) {
    static const char *const names[KC_STATE_COUNT] = {
        "PASS", "FAIL", "KNOWN", "RED", "MISSED", "LIMIT", "LEAK", "SKIP", "CRASH", "TIMEOUT", "NOTRUN"
    };
    return (s >= 0 && s < KC_STATE_COUNT) ? names[s] : "?";
}
