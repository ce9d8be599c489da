/* hostmem.c — owns the reuse of large host buffers between the cases of one
 * GPU item (see hostmem.h). Every buffer carries a 64-byte header with its
 * size and whether it was mapped; large ones are mmap'd in transparent huge
 * pages and, when freed, kept in a small table until a case asks for a size
 * they fit or the item ends. */
#include "hostmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HDR 64                 /* header before the data: keeps the data 64-byte aligned */
#define HUGE_PAGE ((size_t)2 << 20)    /* a transparent huge page (x86-64, arm64 with 4 KiB pages) */
#define MAX_KEPT 32            /* kept buffers; a free past this unmaps */

typedef struct hdr {
    size_t bytes;              /* mapping length (mapped) or data length (malloc'd) */
    int mapped;
} hdr;

/* The calling thread's pool: an item runs on one thread, and items in
 * flight side by side in one worker (issue 23, part 1) each keep their own
 * buffers, with no lock (a buffer freed on another thread than its
 * allocation's joins that thread's pool; a mapping is the process's). */
static __thread struct { void *base; size_t bytes; } kept[MAX_KEPT];
static __thread int nkept;

static void unmap_all(void)
{
    for (int i = 0; i < nkept; i++) munmap(kept[i].base, kept[i].bytes);
    nkept = 0;
}

/* A fresh zero mapping of *want bytes rounded up to whole huge pages (the
 * length stored back), aligned to one, with the advice that the kernel back
 * it with transparent huge pages (MADV_HUGEPAGE: taken where THP is
 * "always" or "madvise", Debian's and Ubuntu's default; a hint, nothing
 * changes where it is "never"). One fault then maps 2 MiB, not 4 KiB: on
 * the development VM `build/kc_hostmem_bench` faulted fresh 64 MiB buffers
 * in 2.7 us a 4 KiB page, 25 times the time of the same bytes in huge
 * pages; on the H200 the serial run's faults fell from 3.57 M to 2.57 M
 * and its wall by 1.8-1.9 s (docs/receipts/2026-12-05-h200-host-time).
 * NULL when out of memory. */
static void *map_huge(size_t *want)
{
    size_t len = (*want + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (len < *want || len > SIZE_MAX - HUGE_PAGE) return NULL;
    char *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    char *p = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (p > m) munmap(m, (size_t)(p - m));                          /* the slack before the aligned start */
    if (m + len + HUGE_PAGE > p + len) munmap(p + len, (size_t)(m + len + HUGE_PAGE - (p + len)));     /* after */
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);
#endif
    *want = len;
    return p;
}

void *kc_hostmem_alloc(size_t n, int zeroed)
{
    if (n > SIZE_MAX - HDR - 4096) return NULL;
    if (n < KC_HOSTMEM_MIN_KEEP) {
        void *m = NULL;
        if (posix_memalign(&m, HDR, HDR + n)) return NULL;
        *(hdr *)m = (hdr){ n, 0 };
        if (zeroed) memset((char *)m + HDR, 0, n);
        return (char *)m + HDR;
    }
    size_t want = (HDR + n + 4095) & ~(size_t)4095;
    int best = -1;                       /* the smallest kept buffer that fits without wasting half */
    for (int i = 0; i < nkept; i++)
        if (kept[i].bytes >= want && kept[i].bytes / 2 <= want && (best < 0 || kept[i].bytes < kept[best].bytes))
            best = i;
    if (best >= 0) {
        hdr *h = kept[best].base;
        kept[best] = kept[--nkept];
        char *data = (char *)h + HDR;
        if (zeroed) memset(data, 0, n);  /* a fresh mapping is zero; a reused one is made so */
        return data;
    }
    unmap_all();                         /* none fits: give back what is kept before growing */
    void *m = map_huge(&want);
    if (!m) return NULL;
    *(hdr *)m = (hdr){ want, 1 };
    return (char *)m + HDR;
}

size_t kc_hostmem_bytes(size_t n)
{
    if (n < KC_HOSTMEM_MIN_KEEP) return n;
    if (n > SIZE_MAX - HDR - HUGE_PAGE) return SIZE_MAX;
    return (HDR + n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void kc_hostmem_free(void *p)
{
    if (!p) return;
    hdr *h = (hdr *)((char *)p - HDR);
    if (!h->mapped) {
        free(h);
        return;
    }
    if (nkept == MAX_KEPT) {
        munmap(h, h->bytes);
        return;
    }
    kept[nkept].base = h;
    kept[nkept].bytes = h->bytes;
    nkept++;
}

void kc_hostmem_release(void)
{
    unmap_all();
}

size_t kc_hostmem_kept(void)
{
    size_t s = 0;
    for (int i = 0; i < nkept; i++) s += kept[i].bytes;
    return s;
}
