/* guard.c — owns gate 2's pure helpers on host memory: finding the first
 * damaged guard byte, counting elements still holding poison, and bitwise
 * comparison of two copies of a buffer. Buffers may be gigabytes, so the
 * common case (nothing wrong) goes through memcmp-speed paths, and the scans
 * run in chunks on the harness's threads (parallel.c), each chunk's count and
 * first index combined in chunk order: the same answer as one sequential scan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "guard.h"
#include "parallel.h"

#define SCAN_GRAIN ((size_t)1 << 20)   /* elements per chunk of a parallel scan */

/* One chunk's part of a count: how many, and the first index (SIZE_MAX: none). */
typedef struct part { size_t n, first; } part;

typedef struct scan_job {
    const uint8_t *a, *b;
    size_t esize;
    uint8_t pa, pb;
    part *parts;
    size_t (*count)(const struct scan_job *j, size_t begin, size_t end, size_t *first);
} scan_job;

static void scan_chunk(void *ctx, size_t chunk, size_t begin, size_t end)
{
    scan_job *j = ctx;
    size_t first = SIZE_MAX;
    j->parts[chunk].n = j->count(j, begin, end, &first);
    j->parts[chunk].first = first;
}

/* Runs j->count over [0, count) in parallel chunks and combines the parts:
 * total count, first index (count when none). A buffer of one chunk, or a
 * failed allocation of the parts, runs sequentially on the caller's thread. */
static size_t scan_all(scan_job *j, size_t count, size_t *first)
{
    size_t chunks = count ? (count - 1) / SCAN_GRAIN + 1 : 0, n = 0, f = SIZE_MAX;
    if (chunks > 1 && (j->parts = malloc(chunks * sizeof *j->parts)) != NULL) {
        kc_parallel_chunks(count, SCAN_GRAIN, scan_chunk, j);
        for (size_t c = 0; c < chunks; c++) {
            n += j->parts[c].n;
            if (f == SIZE_MAX) f = j->parts[c].first;
        }
        free(j->parts);
        j->parts = NULL;
    } else if (count) {
        n = j->count(j, 0, count, &f);
    }
    if (first) *first = f == SIZE_MAX ? count : f;
    return n;
}

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

/* Nonzero when all n bytes at p equal v. */
static int all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t j = 0; j < n; j++)
        if (p[j] != v) return 0;
    return 1;
}

static size_t count_poison(const scan_job *j, size_t begin, size_t end, size_t *first)
{
    size_t n = 0;
    for (size_t i = begin; i < end; i++)
        if (all_bytes(j->a + i * j->esize, j->esize, j->pa) && !n++) *first = i;
    return n;
}

size_t kc_poison_count(const void *data, size_t count, size_t esize, uint8_t poison, size_t *first) {
    scan_job j = { .a = data, .esize = esize, .pa = poison, .count = count_poison };
    return scan_all(&j, esize ? count : 0, first);
}

#define DIFF_CHUNK 4096   /* elements compared per memcmp */

static size_t count_diff(const scan_job *j, size_t begin, size_t end, size_t *first)
{
    size_t n = 0, es = j->esize;
    for (size_t c = begin; c < end; c += DIFF_CHUNK) {
        size_t len = end - c < DIFF_CHUNK ? end - c : DIFF_CHUNK;
        if (memcmp(j->a + c * es, j->b + c * es, len * es) == 0) continue;
        for (size_t i = c; i < c + len; i++)
            if (memcmp(j->a + i * es, j->b + i * es, es) != 0 && !n++) *first = i;
    }
    return n;
}

size_t kc_bitwise_diff(const void *a, const void *b, size_t count, size_t esize, size_t *first) {
    scan_job j = { .a = a, .b = b, .esize = esize, .count = count_diff };
    return scan_all(&j, esize ? count : 0, first);
}

static size_t count_poison2(const scan_job *j, size_t begin, size_t end, size_t *first)
{
    size_t n = 0, es = j->esize;
    for (size_t i = begin; i < end; i++)
        if (all_bytes(j->a + i * es, es, j->pa) && all_bytes(j->b + i * es, es, j->pb) && !n++) *first = i;
    return n;
}

size_t kc_poison_count2(const void *a, const void *b, size_t count, size_t esize, uint8_t poison_a, uint8_t poison_b,
                        size_t *first)
{
    scan_job j = { .a = a, .b = b, .esize = esize, .pa = poison_a, .pb = poison_b, .count = count_poison2 };
    size_t f;
    size_t n = scan_all(&j, esize ? count : 0, &f);
    *first = f;
    return n;
}
