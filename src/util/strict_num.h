/* strict_num.h — strict parsing of the numbers users type (option values,
 * internal options, variables): a decimal is digits only, with no sign,
 * space, junk or overflow, so '08x', '-1' and '1e3' are refused, never read
 * as a prefix; a canonical decimal also has no leading zero. */
#ifndef KC_STRICT_NUM_H
#define KC_STRICT_NUM_H
#include <stddef.h>
#include <stdint.h>

/* s as an unsigned decimal of at most max: 0 with *out set; -1 (and *out
 * unchanged) for NULL, "", a sign or space first, junk after the digits or a
 * value above max (also past 2^64). */
int kc_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* s[0..n) as a canonical decimal of at most max, the form the machine-read
 * lines (TALLY, K/N, --devices, the engines' shard variables) are written
 * in: digits only, no leading zero (but "0" itself). 0 with *out set; -1
 * (and *out unchanged) for n == 0, a non-digit, a leading zero or a value
 * above max (never overflowing, however many digits). */
int kc_parse_canonical(const char *s, size_t n, uint64_t max, uint64_t *out);
/* s as seconds above 0 and at most max: a decimal number ("30", "0.5",
 * "1e3"), digits or '.' first (no sign, space, hex, inf or nan), nothing after
 * it (so "10s" is refused, never read as 10). 0 with *out set; -1 (and *out
 * unchanged) otherwise, for NULL and "" too. */
int kc_parse_seconds(const char *s, double max, double *out);
#endif
