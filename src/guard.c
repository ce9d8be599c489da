/* guard.c — owns gate 2's pure helpers on host memory: finding the first
 * damaged guard byte, counting elements still holding poison, and bitwise
 * comparison of two copies of a buffer. Buffers may be gigabytes, so the
 * common case (nothing wrong) goes through memcmp-speed paths. */
#include <string.h>
#include "guard.h"

size_t kc_guard_first_bad(const uint8_t *guard, size_t n, uint8_t canary) {
    uint64_t pat = 0x0101010101010101ULL * canary;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, guard + i, 8);
        if (w != pat) break;
    }
    for (; i < n; i++)
        if (guard[i] != canary) return i;
    return n;
}

/* Nonzero when all esize bytes at p equal `poison`. */
static int all_poison(const uint8_t *p, size_t esize, uint8_t poison) {
    for (size_t b = 0; b < esize; b++)
        if (p[b] != poison) return 0;
    return 1;
}

size_t kc_poison_count(const void *data, size_t count, size_t esize, uint8_t poison, size_t *first) {
    const uint8_t *p = data;
    size_t n = 0, f = count;
    if (esize == 0) count = 0;
    for (size_t i = 0; i < count; i++) {
        if (all_poison(p + i * esize, esize, poison)) {
            if (n++ == 0) f = i;
        }
    }
    if (first) *first = f;
    return n;
}

#define DIFF_CHUNK 4096   /* elements compared per memcmp */

size_t kc_bitwise_diff(const void *a, const void *b, size_t count, size_t esize, size_t *first) {
    const uint8_t *pa = a, *pb = b;
    size_t n = 0, f = count;
    if (esize == 0) count = 0;
    for (size_t c = 0; c < count; c += DIFF_CHUNK) {
        size_t len = count - c < DIFF_CHUNK ? count - c : DIFF_CHUNK;
        if (memcmp(pa + c * esize, pb + c * esize, len * esize) == 0) continue;
        for (size_t i = c; i < c + len; i++) {
            if (memcmp(pa + i * esize, pb + i * esize, esize) != 0) {
                if (n++ == 0) f = i;
            }
        }
    }
    if (first) *first = f;
    return n;
}

static int all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t j = 0; j < n; j++)
        if (p[j] != v) return 0;
    return 1;
}

size_t kc_poison_count2(const void *a, const void *b, size_t count, size_t esize, uint8_t poison_a, uint8_t poison_b,
                        size_t *first)
{
    const uint8_t *pa = a, *pb = b;
    size_t n = 0;
    *first = count;
    for (size_t i = 0; i < count; i++)
        if (all_bytes(pa + i * esize, esize, poison_a) && all_bytes(pb + i * esize, esize, poison_b)) {
            if (!n) *first = i;
            n++;
        }
    return n;
}
