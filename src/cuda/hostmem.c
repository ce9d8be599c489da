/* hostmem.c — owns the reuse of large host buffers between the cases of one
 * GPU item (see hostmem.h). Every buffer carries a 64-byte header with its
 * size and whether it was mapped; large ones are mmap'd and, when freed, kept
 * in a small table until a case asks for a size they fit or the item ends. */
#include "hostmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HDR 64                 /* header before the data: keeps the data 64-byte aligned */
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
    void *m = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    *(hdr *)m = (hdr){ want, 1 };
    return (char *)m + HDR;
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
