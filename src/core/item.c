/* item.c — the names of item kinds and of --reference modes, and an item's family (item.h). */
#include "item.h"

#include <stdio.h>
#include <string.h>

void kc_family_of(const char *name, char *buf, size_t cap)
{
    size_t len = strcspn(name, ".:@");
    snprintf(buf, cap, "%.*s", (int)len, name);
}

const char *kc_kind_name(kc_kind k)
{
    static const char *const names[KC_KIND_COUNT] = { "kernel", "control", "limit", "suite", "sanitize" };
    return (k >= 0 && k < KC_KIND_COUNT) ? names[k] : "?";
}

const char *kc_ref_mode_name(kc_ref_mode m)
{
    return m == KC_REF_HOST ? "host" : m == KC_REF_BOTH ? "both" : "device";
}
