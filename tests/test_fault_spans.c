/* test_fault_spans.c — which recorded context losses meet a run
 * (src/run/fault_spans.h): another item's, on the same GPU, whose span
 * overlaps. */
#include <criterion/criterion.h>

#include "fault_spans.h"

Test(fault_spans, another_items_loss_on_the_same_gpu_that_overlaps_meets_it)
{
    kc_fault_spans s = KC_FAULT_SPANS_INIT;
    cr_assert_eq(kc_fault_spans_add(&s, 3, 0, 4.0, 6.0), 0);
    cr_expect_eq(kc_fault_spans_beside(&s, 7, 0, 5.0, 12.0), 0, "overlapping on device slot 0");
    cr_expect_eq(kc_fault_spans_beside(&s, 7, 0, 1.0, 4.0), 0, "touching at its start");
    cr_expect_eq(kc_fault_spans_beside(&s, 7, 0, 6.0, 9.0), 0, "touching at its end");
    cr_expect_eq(kc_fault_spans_beside(&s, 3, 0, 4.0, 6.0), -1, "an item's own loss does not meet it");
    cr_expect_eq(kc_fault_spans_beside(&s, 7, 1, 4.0, 6.0), -1, "another GPU's loss does not");
    cr_expect_eq(kc_fault_spans_beside(&s, 7, 0, 6.5, 9.0), -1, "after it");
    cr_expect_eq(kc_fault_spans_beside(&s, 7, 0, 1.0, 3.5), -1, "before it");
    for (int i = 0; i < 40; i++) cr_assert_eq(kc_fault_spans_add(&s, 10 + i, 1, i, i + 0.5), 0);
    cr_expect_eq(kc_fault_spans_beside(&s, 7, 1, 30.2, 30.3), 31, "found past the first growth: index %d",
                 kc_fault_spans_beside(&s, 7, 1, 30.2, 30.3));
    kc_fault_spans_free(&s);
    cr_expect_eq(s.n, 0);
    cr_expect_null(s.v);
}

/* A lost context's teardown, from the loss until its worker ended, meets a
 * run as the loss's own run does, and says which it is. */
Test(fault_spans, a_teardown_meets_a_run_that_began_after_the_loss)
{
    kc_fault_spans s = KC_FAULT_SPANS_INIT;
    cr_assert_eq(kc_fault_spans_add(&s, 3, 0, 1.0, 1.5), 0);
    cr_expect_eq(kc_fault_spans_beside(&s, 7, 0, 1.6, 2.0), -1, "after the loss's run");
    cr_assert_eq(kc_fault_spans_add_teardown(&s, 3, 0, 1.5, 6.5), 0);
    int f = kc_fault_spans_beside(&s, 7, 0, 1.6, 2.0);
    cr_expect_eq(f, 1, "within its teardown: %d", f);
    cr_expect(f == 1 && s.v[f].teardown && !s.v[0].teardown, "the teardown is marked, the run is not");
    cr_expect_eq(kc_fault_spans_beside(&s, 3, 0, 1.6, 2.0), -1, "an item's own teardown does not meet it");
    kc_fault_spans_free(&s);
}
