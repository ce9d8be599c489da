/* hostmem.h — host buffers of a GPU item's cases (inputs, float64 references,
 * read-backs). Large buffers are kept when freed and handed to a later case of
 * the same item, so their pages are not faulted in and zeroed by the kernel
 * again: the serial H200 run of 2026-11-30 (646 items) took 162 million minor
 * page faults, 620 GiB first-touched, while an item's cases mostly repeat the
 * same sizes (one shape, two or three distributions; gate 4's read-back).
 * kc_hostmem_release() at the end of every item returns everything, so an item
 * holds at most what its largest case needs (the --jobs memory plan). The
 * pool is the calling thread's (an item's gates run on one thread; items
 * side by side on threads of one worker keep theirs apart, no lock): the
 * release at an item's end gives back what its thread kept. Measured on the
 * development VM (2 CPUs), `build/kc_hostmem_bench 512 3` (3 cases of five
 * 512 MiB buffers): 7.4-7.8 s with fresh mappings, 2.6-3.6 s reused; minor
 * faults 1966095 -> 655364. Fresh large buffers are mapped in
 * transparent huge pages (hostmem.c): the same bench, 8 cases of five 64
 * MiB buffers, 6.8-6.9 s and 655396 faults fresh before, 0.6-0.8 s and 1316
 * faults after; reused 0.96 -> 0.11 s. On the H200 the serial gates 1-4 run
 * took 1.0 M fewer faults and 1.8-1.9 s less
 * (docs/receipts/2026-12-05-h200-host-time). */
#ifndef KC_HOSTMEM_H
#define KC_HOSTMEM_H
#include <stddef.h>

#define KC_HOSTMEM_MIN_KEEP ((size_t)16 << 20)   /* buffers from 16 MiB are kept for reuse */

/* n bytes (n may be 0), aligned to 64 bytes, or NULL when out of memory. The
 * contents are undefined (a reused buffer holds an earlier case's bytes)
 * unless zeroed is nonzero. A kept buffer is reused when it holds n to 2n
 * bytes; when none fits, every kept buffer is unmapped first, so what is kept
 * and what is live never exceed the larger of two successive cases. */
void *kc_hostmem_alloc(size_t n, int zeroed);
/* The host memory kc_hostmem_alloc(n) maps: from KC_HOSTMEM_MIN_KEEP, n
 * and the header rounded up to whole 2 MiB huge pages (hostmem.c,
 * map_huge), else n (saturating). What the memory plan charges a case's
 * host buffers (case.c, kc_case_memory). */
size_t kc_hostmem_bytes(size_t n);
/* Frees p (NULL is ignored): a large buffer is kept for reuse. */
void kc_hostmem_free(void *p);
/* Unmaps every buffer the calling thread kept (the end of an item). */
void kc_hostmem_release(void);
/* Bytes the calling thread keeps for reuse now (for tests). */
size_t kc_hostmem_kept(void);
#endif
