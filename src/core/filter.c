/* filter.c — owns item selection by name: shell globs through fnmatch(3)
 * with no flags ('*' also matches '.' and ':'); a pattern "!GLOB" (--exclude
 * GLOB) drops what GLOB matches from the selection; and the stable hash of a
 * pattern list for the TALLY's filter key (exclusions included):
 *     mix64(FNV-1a 64 over each pattern followed by its '\0')
 * (so the empty list hashes to mix64(KC_FNV_OFFSET), and order matters);
 * and what a pattern that matched nothing likely meant (kc_filter_suggest). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "filter.h"
#include "seed.h"
#include "shell_words.h"

int kc_filter_match(const char *name, char *const *patterns, int n) {
    int positive = 0, hit = 0;
    for (int i = 0; i < n; i++) {
        const char *p = patterns[i];
        if (!p) continue;
        if (p[0] == '!') {
            if (fnmatch(p + 1, name, 0) == 0) return 0;     /* excluded, whatever selects it */
        } else {
            positive = 1;
            hit |= fnmatch(p, name, 0) == 0;
        }
    }
    return !positive || hit;
}

uint64_t kc_filter_hash(char *const *patterns, int n) {
    uint64_t h = KC_FNV_OFFSET;
    for (int i = 0; i < n; i++) {
        const char *p = patterns[i] ? patterns[i] : "";
        h = kc_fnv1a64(p, strlen(p) + 1, h);
    }
    return kc_mix64(h);
}

void kc_filter_words(char *const *patterns, int n, char *buf, size_t cap)
{
    int len = 0;
    if (!cap) return;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        const char *p = patterns[i] ? patterns[i] : "";
        if (p[0] == '!') kc_shell_append(buf, cap, &len, "--exclude");
        kc_shell_append(buf, cap, &len, p[0] == '!' ? p + 1 : p);
    }
    if (len == 0) snprintf(buf, cap, "no PATTERN (every item)");
    else memmove(buf, buf + 1, strlen(buf));    /* the leading space (the words after it, and the NUL) */
}

int kc_filter_first_unmatched(const char *first_name, size_t stride, int n, char *const *patterns, int np)
{
    for (int p = 0; p < np; p++) {
        int hit = 0;
        for (int i = 0; i < n && !hit; i++) {
            const char *name = first_name + (size_t)i * stride;
            const char *g = patterns[p][0] == '!' ? patterns[p] + 1 : patterns[p];
            hit = fnmatch(g, name, 0) == 0;
        }
        if (!hit) return p;
    }
    return -1;
}

#define KC_SUGGEST_HEAD_MAX 64      /* heads past this are not compared (an item name is shorter in practice) */

/* Edits from a[0..na) to b[0..nb): insertions, deletions, substitutions
 * (a case change alone is one) and swaps of neighbours (optimal string
 * alignment). na, nb <= KC_SUGGEST_HEAD_MAX. */
static int edits(const char *a, int na, const char *b, int nb)
{
    int d[KC_SUGGEST_HEAD_MAX + 1][KC_SUGGEST_HEAD_MAX + 1];
    for (int i = 0; i <= na; i++) d[i][0] = i;
    for (int j = 0; j <= nb; j++) d[0][j] = j;
    for (int i = 1; i <= na; i++)
        for (int j = 1; j <= nb; j++) {
            int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

int kc_filter_suggest(const char *pattern, const char *first_name, size_t stride, int n, char (*out)[256], int max)
{
    const char *p = pattern[0] == '!' ? pattern + 1 : pattern;
    const int head = (int)strcspn(p, "*?[");
    if (head < 4 || head > KC_SUGGEST_HEAD_MAX || max <= 0) return 0;
    const int limit = head / 4 > 1 ? head / 4 : 1;
    int best = limit + 1, got = 0;
    for (int pass = 0; pass < 2; pass++)        /* the least distance, then the suggestions at it */
        for (int i = 0; i < n && got < max; i++) {
            const char *name = first_name + (size_t)i * stride;
            int nl = (int)strlen(name);
            if (nl > KC_SUGGEST_HEAD_MAX + 8) continue;
            /* the name's head of the pattern's head's length, give or take the edits allowed */
            for (int len = head - limit; len <= head + limit; len++) {
                if (len < 4 || len > nl || len > KC_SUGGEST_HEAD_MAX || (p[head] == 0 && len != nl)) continue;
                int e = edits(p, head, name, len);
                if (pass == 0) {
                    if (e < best) best = e;
                    continue;
                }
                if (e != best || e == 0) continue;
                char cand[256];
                if (snprintf(cand, sizeof cand, "%.*s%s", len, name, p + head) >= (int)sizeof cand) continue;
                int dup = 0;
                for (int k = 0; k < got && !dup; k++) dup = strcmp(out[k], cand) == 0;
                if (dup || fnmatch(cand, name, 0) != 0) continue;
                snprintf(out[got++], 256, "%s", cand);
                break;
            }
        }
    return best <= limit ? got : 0;
}
