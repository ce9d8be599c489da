/* item.c — the names of item kinds and of --reference modes (item.h). */
#include "item.h"

const char *kc_kind_name(kc_kind k)
{
    static const char *const names[KC_KIND_COUNT] = { "kernel", "control", "limit", "suite", "sanitize" };
    return (k >= 0 && k < KC_KIND_COUNT) ? names[k] : "?";
}

const char *kc_ref_mode_name(kc_ref_mode m)
{
    return m == KC_REF_HOST ? "host" : m == KC_REF_BOTH ? "both" : "device";
}
