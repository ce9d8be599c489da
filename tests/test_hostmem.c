/* test_hostmem.c — the reuse of large host buffers between an item's cases
 * (src/cuda/hostmem.c): what is kept, when a kept buffer is reused, zeroing, and
 * that nothing is kept past kc_hostmem_release or grows past one case. */
#include <criterion/criterion.h>
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
