/* test_ref_unwritten.c — gate 3 fails an output element its reference
 * never wrote, whatever the kernel wrote there, a NaN included
 * (check_rules.h, KC_REF_UNWRITTEN_BITS): before, the reference's output was
 * filled with NaN, which a NaN output matched, so a reference that forgot
 * elements passed wherever the kernel wrote NaN. Host and device references
 * alike (tests/fixtures/fake_contracts.c, fakeunwritten.*). */
#include <criterion/criterion.h>
#include <string.h>

#include "support/run_output.h"
#include "support/spawn.h"

Test(ref_unwritten, an_element_the_reference_never_wrote_fails_against_a_nan_output, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeunwritten.host.f16", "fakeunwritten.dev.f16", NULL },
                            (char *[]){ "KC_CACHE_DIR=off", "KC_FIXTURE_REF_UNWRITTEN=1", NULL }, 60);
    const char *items[] = { "fakeunwritten.host.f16", "fakeunwritten.dev.f16" };
    cr_expect_eq(p.status, 1, "exit %d, expected 1\n%s%s", p.status, p.out, p.err);
    for (int i = 0; i < 2; i++) {
        char line[4096];
        cr_expect(kc_out_item_line(p.out, "FAIL", items[i], line, sizeof line), "%s did not FAIL:\n%s", items[i], p.out);
        cr_expect(strstr(line, "gate 3 (accuracy): shape model.heads.1024 (n=1024), dist nan: out[1023]: the reference "
                               "never wrote this element (out there: nan)"),
                  "%s: the line does not name the element the reference left:\n%s", items[i], line);
    }
    kc_proc_free(&p);
}

/* The same contracts' references writing every element pass: the marker
 * fails nothing a reference wrote (fake.copy.f16, NaN inputs included). */
Test(ref_unwritten, a_reference_that_writes_every_element_passes_nan_outputs, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.copy.f16", "--reference", "both", NULL },
                            (char *[]){ "KC_CACHE_DIR=off", NULL }, 60);
    cr_expect_eq(p.status, 0, "exit %d, expected 0\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
}
