/* strict_num.c — strict decimal parsing (strict_num.h). */
#include "strict_num.h"

#include <errno.h>
#include <stdlib.h>

int kc_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) return -1;
    *out = v;
    return 0;
}
