/* filter.h — selecting items by name with shell globs (fnmatch(3), no flags:
 * '*' also matches '.' and ':'). No patterns selects everything. */
#ifndef KC_FILTER_H
#define KC_FILTER_H
#include <stdint.h>
/* Nonzero when name matches any of the n patterns (or n == 0). */
int kc_filter_match(const char *name, char *const *patterns, int n);
/* Stable hash of the pattern list (order matters), for the TALLY's filter key. */
uint64_t kc_filter_hash(char *const *patterns, int n);
#endif
