/* strict_num.h — strict parsing of the numbers users type (option values,
 * internal options, variables): a decimal is digits only, with no sign,
 * space, junk or overflow, so '08x', '-1' and '1e3' are refused, never read
 * as a prefix. */
#ifndef KC_STRICT_NUM_H
#define KC_STRICT_NUM_H
#include <stdint.h>

/* s as an unsigned decimal of at most max: 0 with *out set; -1 (and *out
 * unchanged) for NULL, "", a sign or space first, junk after the digits or a
 * value above max (also past 2^64). */
int kc_parse_u64(const char *s, uint64_t max, uint64_t *out);
#endif
