/* test_exclude.c — --exclude GLOB through the real binary (issue 15): it
 * leaves items out of list and run, serially and in both --jobs schedules
 * (static shards get it as a '!GLOB' pattern), the TALLY's filter key says
 * so, and an exclusion that matches nothing is refused like a pattern. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/spawn.h"

/* The fixture binary without a GPU (tests/support: kc_run_fixture). */
static kc_proc fixture(char *const *args)
{
    return kc_run_fixture((char **)args, 60);
}

/* The TALLY line's value of key (e.g. "items=") into out. */
static void tally_value(const char *out, const char *key, char *v, size_t cap)
{
    const char *t = strstr(out, "\nTALLY ");
    cr_assert_not_null(t, "no TALLY in:\n%s", out);
    const char *k = strstr(t, key);
    cr_assert_not_null(k, "no %s in the TALLY", key);
    k += strlen(key);
    size_t n = strcspn(k, " \n");
    cr_assert_lt(n, cap);
    memcpy(v, k, n);
    v[n] = 0;
}

Test(exclude, list_leaves_out_what_it_matches)
{
    kc_proc p = fixture((char *[]){ "list", "fixture.pass.*", "--exclude", "*.1?", "--exclude", "fixture.pass.0[2-9]", NULL });
    cr_expect_eq(p.status, 0, "%s", p.err);
    cr_expect_str_eq(p.out, "suite    fixture.pass.00\nsuite    fixture.pass.01\n"
                            "2 items: 0 kernels, 0 controls, 0 limit checks, 2 suites, 0 sanitizer checks\n");
    kc_proc_free(&p);
}

Test(exclude, run_serial_and_both_schedules_agree, .timeout = 60)
{
    char *serial[] = { "run", "fixture.pass.*", "--exclude", "fixture.pass.1*", NULL };
    char costs[256];
    snprintf(costs, sizeof costs, "%s/kc_test_exclude_costs_%ld.tsv", kc_test_tmpdir(), (long)getpid());
    char *queue[] = { "run", "fixture.pass.*", "--exclude", "fixture.pass.1*", "--jobs", "2", "--costs", costs, NULL };
    char *shards[] = { "run", "fixture.pass.*", "--exclude", "fixture.pass.1*", "--jobs", "2", "--schedule", "static", NULL };
    char *const *runs[] = { serial, queue, shards };
    char items[3][32], filter[3][32];
    for (int r = 0; r < 3; r++) {
        kc_proc p = fixture(runs[r]);
        cr_expect_eq(p.status, 0, "run %d:\n%s%s", r, p.out, p.err);
        cr_expect_null(strstr(p.out, "fixture.pass.1"), "run %d ran an excluded item:\n%s", r, p.out);
        cr_expect_not_null(strstr(p.out, "fixture.pass.09"), "run %d:\n%s", r, p.out);
        tally_value(p.out, "items=", items[r], sizeof items[r]);
        tally_value(p.out, "filter=", filter[r], sizeof filter[r]);
        kc_proc_free(&p);
    }
    remove(costs);
    for (int r = 0; r < 3; r++) {
        cr_expect_str_eq(items[r], "10", "run %d", r);
        cr_expect_str_eq(filter[r], filter[0], "run %d's filter key differs from the serial run's", r);
    }
    kc_proc p = fixture((char *[]){ "run", "fixture.pass.*", NULL });
    char all[32];
    tally_value(p.out, "filter=", all, sizeof all);
    cr_expect_str_neq(all, filter[0], "--exclude does not show in the filter key");
    kc_proc_free(&p);
}

/* An exclusion that matches nothing leaves nothing out, as it asked (issue
 * 25: one list of exclusions, '*:sanitize' say, serves suites with and
 * without such items): a note on stderr, once (not from each static shard),
 * and the run goes on. A selecting pattern that matches nothing is still
 * refused (cli.c's tests). */
Test(exclude, an_exclusion_matching_nothing_is_a_note)
{
    char *const *runs[] = {
        (char *[]){ "run", "fixture.pass.0[01]", "--exclude", "fixture.nosuch.*", NULL },
        (char *[]){ "run", "fixture.pass.0[01]", "--exclude", "fixture.nosuch.*", "--jobs", "2", NULL },
        (char *[]){ "run", "fixture.pass.0[01]", "--exclude", "fixture.nosuch.*", "--jobs", "2", "--schedule", "static",
                    NULL },
        (char *[]){ "list", "fixture.pass.0[01]", "!fixture.nosuch.*", NULL },
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        kc_proc p = fixture(runs[r]);
        cr_expect_eq(p.status, 0, "run %zu: exit %d\n%s%s", r, p.status, p.out, p.err);
        cr_expect_eq(kc_out_count(p.err, "note: --exclude 'fixture.nosuch.*' matches no item, so it leaves nothing out"),
                     1, "run %zu: %s", r, p.err);
        cr_expect(strstr(p.out, r == 3 ? "\n2 items: " : " items=2 "), "run %zu:\n%s", r, p.out);
        kc_proc_free(&p);
    }
    kc_proc p = fixture((char *[]){ "run", "fixture.nosuch.*", "--exclude", "fixture.nosuch.*", NULL });
    cr_expect_eq(p.status, 2, "%s%s", p.out, p.err);
    cr_expect(strstr(p.err, "pattern 'fixture.nosuch.*' matches no item"), "%s", p.err);
    kc_proc_free(&p);
    p = fixture((char *[]){ "run", "--exclude", NULL });
    cr_expect_eq(p.status, 2, "%s%s", p.out, p.err);
    cr_expect(strstr(p.err, "--exclude needs a glob"), "%s", p.err);
    kc_proc_free(&p);
}

/* Exclusions that take every selected item leave a run of nothing, which
 * would pass green: refused like a pattern that matches nothing. */
Test(exclude, excluding_every_selected_item_is_refused)
{
    char *const *runs[] = {
        (char *[]){ "run", "--exclude", "*", NULL },
        (char *[]){ "run", "fixture.pass.0*", "--exclude", "fixture.pass.*", NULL },
        (char *[]){ "list", "fixture.pass.00", "!fixture.pass.00", NULL },
        (char *[]){ "run", "fixture.pass.0*", "--exclude", "fixture.*", "--jobs", "2", NULL },
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        kc_proc p = fixture(runs[r]);
        cr_expect_eq(p.status, 2, "run %zu: exit %d\n%s%s", r, p.status, p.out, p.err);
        cr_expect(strstr(p.err, "the exclusions (--exclude G, or a PATTERN '!G') leave no item of those selected"), "run %zu: %s", r, p.err);
        cr_expect(!strstr(p.out, "TALLY"), "run %zu ran: %s", r, p.out);
        kc_proc_free(&p);
    }
    kc_proc p = fixture((char *[]){ "run", "fixture.pass.0*", "--exclude", "fixture.pass.00", NULL });
    cr_expect_eq(p.status, 0, "some left: it runs\n%s%s", p.out, p.err);
    kc_proc_free(&p);
}
