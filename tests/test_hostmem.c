/* test_hostmem.c — the reuse of large host buffers between an item's cases
 * (src/cuda/hostmem.c): what is kept, when a kept buffer is reused, zeroing, and
 * that nothing is kept past kc_hostmem_release or grows past one case; and
 * that threads keep their own pools (items side by side in one worker). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "hostmem.h"

#define MiB ((size_t)1 << 20)

Test(hostmem, small_buffers_are_not_kept)
{
    char *p = kc_hostmem_alloc(1000, 0);
    cr_assert_not_null(p);
    cr_expect_eq((uintptr_t)p % 64, 0, "64-byte aligned");
    memset(p, 1, 1000);
    kc_hostmem_free(p);
    cr_expect_eq(kc_hostmem_kept(), 0);
    char *z = kc_hostmem_alloc(0, 1);
    cr_expect_not_null(z, "0 bytes is a valid buffer");
    kc_hostmem_free(z);
    kc_hostmem_free(NULL);
}

Test(hostmem, a_large_buffer_is_reused_by_the_next_case_of_a_fitting_size)
{
    size_t n = 32 * MiB;
    unsigned char *p = kc_hostmem_alloc(n, 0);
    cr_assert_not_null(p);
    cr_expect_eq((uintptr_t)p % 64, 0);
    memset(p, 0xAB, n);
    kc_hostmem_free(p);
    cr_expect_geq(kc_hostmem_kept(), n, "kept after free");
    unsigned char *q = kc_hostmem_alloc(n - 4096, 0);   /* fits: reused, not mapped again */
    cr_expect_eq(q, p);
    cr_expect_eq(kc_hostmem_kept(), 0);
    cr_expect_eq(q[12345], 0xAB, "not zeroed unless asked");
    kc_hostmem_free(q);
    unsigned char *z = kc_hostmem_alloc(n, 1);
    cr_expect_eq(z, p);
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i++) nonzero += z[i] != 0;
    cr_expect_eq(nonzero, 0, "zeroed on request: %zu bytes were not", nonzero);
    kc_hostmem_free(z);
    kc_hostmem_release();
    cr_expect_eq(kc_hostmem_kept(), 0);
}

Test(hostmem, no_fit_unmaps_what_is_kept_first)
{
    void *a = kc_hostmem_alloc(32 * MiB, 0), *b = kc_hostmem_alloc(20 * MiB, 0);
    kc_hostmem_free(a);
    kc_hostmem_free(b);
    cr_expect_geq(kc_hostmem_kept(), 52 * MiB);
    /* larger than any kept one: everything kept goes before the new mapping */
    void *c = kc_hostmem_alloc(100 * MiB, 0);
    cr_assert_not_null(c);
    cr_expect_eq(kc_hostmem_kept(), 0);
    kc_hostmem_free(c);
    /* far smaller than the kept one (under half of it): not reused, unmapped */
    void *d = kc_hostmem_alloc(17 * MiB, 0);
    cr_assert_not_null(d);
    cr_expect_neq(d, c);
    cr_expect_eq(kc_hostmem_kept(), 0);
    kc_hostmem_free(d);
    kc_hostmem_release();
    cr_expect_eq(kc_hostmem_kept(), 0);
}

Test(hostmem, the_smallest_fitting_buffer_is_taken)
{
    void *big = kc_hostmem_alloc(60 * MiB, 0), *mid = kc_hostmem_alloc(40 * MiB, 0);
    kc_hostmem_free(big);
    kc_hostmem_free(mid);
    void *p = kc_hostmem_alloc(32 * MiB, 0);   /* both fit (under 2x): the 40 MiB one */
    cr_expect_eq(p, mid);
    void *q = kc_hostmem_alloc(31 * MiB, 0);   /* the 60 MiB one is under 2 x 31 MiB + headers */
    cr_expect_eq(q, big);
    kc_hostmem_free(p);
    kc_hostmem_free(q);
    kc_hostmem_release();
}

/* ---- one pool per thread ---- */

static pthread_barrier_t both;
typedef struct pool_run {
    size_t n;
    void *first, *again;
    size_t kept_after_free, kept_after_other;
} pool_run;

static void *use_pool(void *arg)
{
    pool_run *r = arg;
    r->first = kc_hostmem_alloc(r->n, 0);
    kc_hostmem_free(r->first);
    r->kept_after_free = kc_hostmem_kept();
    pthread_barrier_wait(&both);             /* both freed: each pool holds its own buffer */
    r->again = kc_hostmem_alloc(r->n, 0);    /* fits this thread's kept buffer: reused */
    pthread_barrier_wait(&both);             /* the other took its own (its no-fit unmaps nothing here) */
    r->kept_after_other = kc_hostmem_kept();
    kc_hostmem_free(r->again);
    kc_hostmem_release();
    return NULL;
}

Test(hostmem, threads_keep_their_own_pools)
{
    pool_run r[2] = { { .n = 32 * MiB }, { .n = 20 * MiB } };
    pthread_t t[2];
    cr_assert_eq(pthread_barrier_init(&both, NULL, 2), 0);
    for (int i = 0; i < 2; i++) cr_assert_eq(pthread_create(&t[i], NULL, use_pool, &r[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&both);
    for (int i = 0; i < 2; i++) {
        cr_expect_not_null(r[i].first);
        cr_expect_geq(r[i].kept_after_free, r[i].n, "thread %d: kept %zu after its free, expected its %zu", i,
                      r[i].kept_after_free, r[i].n);
        cr_expect_eq(r[i].kept_after_free, kc_hostmem_bytes(r[i].n), "thread %d kept %zu: not its own buffer", i,
                     r[i].kept_after_free);
        cr_expect_eq(r[i].again, r[i].first, "thread %d did not get its own kept buffer back", i);
        cr_expect_eq(r[i].kept_after_other, 0, "thread %d: %zu bytes kept after reusing its buffer", i,
                     r[i].kept_after_other);
    }
    cr_expect_eq(kc_hostmem_kept(), 0, "the main thread's pool holds another thread's buffer");
}

/* AnonHugePages of the mapping that holds p, in KiB (/proc/self/smaps), -1
 * when not found. */
static long huge_kib_at(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0;
    long kib = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %ld kB", &kib) == 1) break;
    }
    fclose(f);
    return kib;
}

/* One line of file into buf ("" when unreadable). */
static void read_line(const char *file, char *buf, size_t cap)
{
    FILE *f = fopen(file, "r");
    buf[0] = 0;
    if (f) {
        if (!fgets(buf, (int)cap, f)) buf[0] = 0;
        fclose(f);
    }
}

/* Whether this process may get 2 MiB transparent huge pages at all: the
 * PMD page is 2 MiB (not arm64 with 64 KiB pages), the 2 MiB size is not
 * turned off on its own (kernels with per-size THP), and the process has
 * THP (no PR_SET_THP_DISABLE). */
static int thp_2mib_for_this_process(void)
{
    char l[128];
    read_line("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", l, sizeof l);
    if (l[0] && atol(l) != 2 << 20) return 0;
    read_line("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", l, sizeof l);
    if (strstr(l, "[never]")) return 0;
    FILE *f = fopen("/proc/self/status", "r");
    int on = 1;
    while (f && fgets(l, sizeof l, f))
        if (strncmp(l, "THP_enabled:", 12) == 0) on = atoi(l + 12) != 0;
    if (f) fclose(f);
    return on;
}

/* A large buffer is mapped in whole huge pages, aligned to one, and where
 * the kernel gives transparent huge pages to a mapping that asks
 * ("always" or "madvise"), it is backed by them once written: one fault a
 * 2 MiB page instead of 512. */
Test(hostmem, a_large_buffer_is_mapped_in_huge_pages)
{
    size_t n = 17 * MiB;
    unsigned char *p = kc_hostmem_alloc(n, 0);
    cr_assert_not_null(p);
    cr_expect_eq(((uintptr_t)p - 64) % (2 * MiB), 0, "the mapping starts on a huge page: %p", (void *)p);
    cr_expect_eq(kc_hostmem_bytes(n), 18 * MiB, "17 MiB and the header: nine huge pages");
    cr_expect_eq(kc_hostmem_bytes(1000), 1000, "a small buffer is malloc'd as asked");
    memset(p, 1, n);
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char mode[128] = "";
    if (f) {
        if (!fgets(mode, sizeof mode, f)) mode[0] = 0;
        fclose(f);
    }
    if ((strstr(mode, "[always]") || strstr(mode, "[madvise]")) && thp_2mib_for_this_process())
        cr_expect_gt(huge_kib_at(p), 0, "THP is %s but the buffer has no huge page", mode);
    kc_hostmem_free(p);
    cr_expect_eq(kc_hostmem_kept(), 18 * MiB);
    kc_hostmem_release();
}
