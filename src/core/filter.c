/* filter.c — owns item selection by name: shell globs through fnmatch(3)
 * with no flags ('*' also matches '.' and ':'); a pattern "!GLOB" (--exclude
 * GLOB) drops what GLOB matches from the selection; and the stable hash of a
 * pattern list for the TALLY's filter key (exclusions included):
 *     mix64(FNV-1a 64 over each pattern followed by its '\0')
 * (so the empty list hashes to mix64(KC_FNV_OFFSET), and order matters). */
#include <fnmatch.h>
#include <string.h>
#include "filter.h"
#include "seed.h"

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
