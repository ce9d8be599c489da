/* strict_num.c — strict decimal parsing (strict_num.h). */
#include "strict_num.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int kc_parse_canonical(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    uint64_t x = 0;
    if (n == 0 || (n > 1 && s[0] == '0')) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (max - d) / 10) return -1;
        x = x * 10 + d;
    }
    *out = x;
    return 0;
}

int kc_parse_seconds(const char *s, double max, double *out)
{
    if (!s || !*s || !((*s >= '0' && *s <= '9') || *s == '.') || strpbrk(s, "xXnNiI")) return -1;
    errno = 0;
    char *end;
    double t = strtod(s, &end);
    if (errno || *end || !(t > 0) || t > max) return -1;
    *out = t;
    return 0;
}
