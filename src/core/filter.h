/* filter.h — selecting items by name with shell globs (fnmatch(3), no flags:
 * '*' also matches '.' and ':'). A pattern "!GLOB" is an exclusion (--exclude
 * GLOB). No selecting pattern selects everything, less the exclusions. */
#ifndef KC_FILTER_H
#define KC_FILTER_H
#include <stddef.h>
#include <stdint.h>
/* Nonzero when name matches none of the exclusions and any of the other
 * patterns (or there are no others). */
int kc_filter_match(const char *name, char *const *patterns, int n);
/* Stable hash of the pattern list (order matters), for the TALLY's filter key. */
uint64_t kc_filter_hash(char *const *patterns, int n);
/* The pattern list as a command line gives it, for a message naming a
 * selection: each selecting pattern, and "--exclude GLOB" for each "!GLOB",
 * quoted as shell words (shell_words.h); "no PATTERN (every item)" when n
 * is 0. Cut at cap bytes, always terminated. */
void kc_filter_words(char *const *patterns, int n, char *buf, size_t cap);
/* Index of the first pattern that matches none of n names, or -1 when every
 * pattern matches something (a typo must not select nothing and pass; main.c
 * refuses a selecting pattern that matches nothing and notes an exclusion
 * that does, which leaves nothing out). Name i
 * is the NUL-terminated string at first_name + i * stride (e.g. the name field
 * of an array of kc_item). */
int kc_filter_first_unmatched(const char *first_name, size_t stride, int n, char *const *patterns, int np);
/* For a pattern that matched nothing: up to max patterns the user likely
 * meant, each the pattern with its literal head (the text before its first
 * '*', '?' or '[', all of it if none) replaced by the same-length head of
 * an item name at the least edit distance from it, and each matching some
 * item; distances count a case change or a swap of neighbours as one edit
 * (Damerau-Levenshtein, optimal string alignment), and only heads of 4
 * characters or more within max(1, length / 4) edits are offered (git's
 * "did you mean" for mistyped commands is the model). Names as for
 * kc_filter_first_unmatched. Writes them to out[0..) (each at most cap
 * bytes, NUL-terminated); returns how many (0 none). */
int kc_filter_suggest(const char *pattern, const char *first_name, size_t stride, int n, char (*out)[256], int max);
#endif
