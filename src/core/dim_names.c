/* dim_names.c — a contract's dim names: how many, and the list a refusal
 * gives (dim_names.h). */
#include "dim_names.h"

#include <stdio.h>
#include <string.h>

#include "strbuf.h"

int kc_dims_named(const kc_contract *c)
{
    int n = 0;
    while (n < KC_MAX_DIMS && c->dims[n]) n++;
    return n;
}

const char *kc_dim_list(const kc_contract *c, char *buf, size_t cap)
{
    if (!cap) return buf;
    buf[0] = 0;
    for (int i = 0; i < kc_dims_named(c); i++) kc_strcatf(buf, cap, "%sd[%d] %s", i ? ", " : "", i, c->dims[i]);
    if (!buf[0]) snprintf(buf, cap, "none (.dims is empty)");
    return buf;
}
