/* dim_names.c — a contract's dim names: lookup, the list a refusal gives,
 * and the near names it suggests (dim_names.h). */
#include "dim_names.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "filter.h"
#include "strbuf.h"

int kc_dims_named(const kc_contract *c)
{
    int n = 0;
    while (n < KC_MAX_DIMS && c->dims[n]) n++;
    return n;
}

int kc_dim_named(const kc_contract *c, const char *name)
{
    for (int i = 0; name && i < kc_dims_named(c); i++)
        if (strcmp(c->dims[i], name) == 0) return i;
    return -1;
}

const char *kc_dim_list(const kc_contract *c, char *buf, size_t cap)
{
    if (!cap) return buf;
    buf[0] = 0;
    for (int i = 0; i < kc_dims_named(c); i++) kc_strcatf(buf, cap, "%sd[%d] %s", i ? ", " : "", i, c->dims[i]);
    if (!buf[0]) snprintf(buf, cap, "none, .dims is empty");
    return buf;
}

const char *kc_dim_suggestion(const kc_contract *c, const char *name, char *buf, size_t cap)
{
    enum { W = 64 };
    char names[KC_MAX_DIMS][W], near[KC_MAX_DIMS][256];
    int m = 0, k = 0;
    if (!cap) return buf;
    buf[0] = 0;
    if (!name) return buf;
    for (int i = 0; i < kc_dims_named(c); i++)
        if (strcasecmp(c->dims[i], name) == 0) snprintf(near[k++], sizeof near[0], "%s", c->dims[i]);
    for (int i = 0; !k && i < kc_dims_named(c); i++)
        if (strlen(c->dims[i]) < W) snprintf(names[m++], W, "%s", c->dims[i]);
    if (!k && m && strlen(name) < 200) k = kc_filter_suggest(name, names[0], W, m, near, KC_MAX_DIMS);
    for (int i = 0; i < k; i++)
        kc_strcatf(buf, cap, "%s'%s'", i == 0 ? "; did you mean " : i == k - 1 ? " or " : ", ", near[i]);
    if (k) kc_strcatf(buf, cap, "?");
    return buf;
}
