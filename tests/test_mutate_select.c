/* test_mutate_select.c — a mutate --json report records the selection of
 * contracts that judged its mutants (mutate_select.h), and --merge-json and
 * --iterate take its verdicts only under that selection; found by a red
 * team. The whole command on the fixture under the fake driver, as
 * test_mutate_trust.c runs it: the module's source a small fake_axpy.cu,
 * $MAKE a script that "builds" each mutant into a fake image that gate 3
 * catches ("KCFAKE fake_axpy wrong_value"). Before, a report of
 * fake.axpy.f32 merged under fakeblock.short.f32 (a contract that FAILs
 * its own baseline and, run directly, judges nothing and exits 1) read
 * caught=1 score=1.00 and exited 0, and --iterate carried the catch: the
 * merge checked only that the module's mutants were the same. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/fake_mutate_project.h"
#include "support/run_output.h"
#include "support/spawn.h"

typedef struct sel_run {
    char dir[512], src[600], env_make[720];
    int runs;               /* each run gets a mutants folder of its own */
} sel_run;

static void sel_setup(sel_run *t, const char *tag)
{
    memset(t, 0, sizeof *t);
    kc_tmp_dir(t->dir, sizeof t->dir, tag);
    char make[700];
    kc_fake_mutate_project(t->dir, "wrong_value", t->src, sizeof t->src, make, sizeof make);
    snprintf(t->env_make, sizeof t->env_make, "MAKE=%s", make);
}

/* kcontract-fixture mutate --source-dir SRC --operators OPS --jobs 1
 * --mutants-dir DIR/mN ARGS... under the fake driver (ARGS NULL-ended). */
static kc_proc sel_mutate(sel_run *t, const char *ops, char *const *args)
{
    char mdir[700];
    snprintf(mdir, sizeof mdir, "%s/m%d", t->dir, t->runs++);
    char *av[40] = { "mutate", "--source-dir", t->src, "--operators", (char *)ops, "--jobs", "1", "--mutants-dir", mdir };
    int a = 9;
    for (int k = 0; args[k] && a < 39; k++) av[a++] = args[k];
    av[a] = NULL;
    return kc_run_fake(av, (char *[]){ t->env_make, "KC_CACHE_DIR=off", NULL }, 60);
}

/* The report of fake.axpy.f32's one "bound" mutant, caught, into path. */
static void axpy_report(sel_run *t, const char *path)
{
    kc_proc p = sel_mutate(t, "bound", (char *[]){ "--json", (char *)path, "fake.axpy.f32", NULL });
    cr_assert_eq(p.status, 0, "the premise: fake.axpy.f32 catches its mutant: exit %d\n%s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "caught=1 missed=0"), "%s", p.out);
    cr_expect(strstr(kc_out_file(path), "\"selection\":\"") &&
              strstr(kc_out_file(path), "\"contracts\":[\"fake.axpy.f32\"]}"),
              "the report records its selection:\n%s", kc_out_file(path));
    kc_proc_free(&p);
}

/* The red team's repro: fake.axpy.f32's report merged, and iterated, under
 * fakeblock.short.f32 (same module, a contract that judges nothing) is
 * refused (exit 2), naming the contracts only in each; so is a selection
 * that holds the report's and more ('softmax.*' for a report of
 * softmax.f16), and one that holds fewer ('softmax.f16' for shards of
 * 'softmax.*'). */
Test(mutate_select, a_report_of_another_selection_of_the_same_module_is_refused, .timeout = 120)
{
    sel_run t;
    sel_setup(&t, "mutsel-other");
    char axpy[700], two[700];
    snprintf(axpy, sizeof axpy, "%s/axpy.json", t.dir);
    snprintf(two, sizeof two, "%s/two.json", t.dir);
    axpy_report(&t, axpy);
    /* the premise: run directly, fakeblock.short.f32 fails its baseline and judges nothing */
    kc_proc p = sel_mutate(&t, "bound", (char *[]){ "fakeblock.short.f32", NULL });
    cr_assert_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "fakeblock.short.f32 is FAIL unmutated"), "%s", p.out);
    cr_assert(strstr(p.out, "caught=0"), "%s", p.out);
    kc_proc_free(&p);
    const char *opt[2] = { "--merge-json", "--iterate" };
    for (int k = 0; k < 2; k++) {
        p = sel_mutate(&t, "bound", (char *[]){ (char *)opt[k], axpy, "fakeblock.short.f32", NULL });
        cr_expect_eq(p.status, 2, "%s of another selection: exit %d\n%s%s", opt[k], p.status, p.out, p.err);
        cr_expect(strstr(p.err, opt[k]) && strstr(p.err, axpy) &&
                  strstr(p.err, "its mutants were judged by another selection of contracts") &&
                  strstr(p.err, "only in that report: fake.axpy.f32; only in this run: fakeblock.short.f32"),
                  "%s", p.err);
        cr_expect(!strstr(p.out, "caught=1") && !strstr(p.out, "carried="), "the catch is not taken:\n%s", p.out);
        kc_proc_free(&p);
        /* more contracts than the report's */
        p = sel_mutate(&t, "bound", (char *[]){ (char *)opt[k], axpy, "fake.axpy.f32", "fakeblock.axpy.f32", NULL });
        cr_expect_eq(p.status, 2, "%s: exit %d\n%s%s", opt[k], p.status, p.out, p.err);
        cr_expect(strstr(p.err, "only in that report: none; only in this run: fakeblock.axpy.f32"), "%s", p.err);
        kc_proc_free(&p);
    }
    /* fewer: a report of two contracts merged under one of them */
    p = sel_mutate(&t, "bound", (char *[]){ "--json", two, "fake.axpy.f32", "fakeblock.axpy.f32", NULL });
    cr_assert_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    for (int k = 0; k < 2; k++) {
        p = sel_mutate(&t, "bound", (char *[]){ (char *)opt[k], two, "fake.axpy.f32", NULL });
        cr_expect_eq(p.status, 2, "%s: exit %d\n%s%s", opt[k], p.status, p.out, p.err);
        cr_expect(strstr(p.err, "only in that report: fakeblock.axpy.f32; only in this run: none"), "%s", p.err);
        kc_proc_free(&p);
    }
    kc_rm_rf(t.dir);
}

/* text with the first `from` replaced by `to`, written to path. */
static void edited(const char *text, const char *from, const char *to, const char *path)
{
    const char *p = strstr(text, from);
    cr_assert(p, "no '%s' in:\n%s", from, text);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    cr_assert(out);
    snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    kc_write_file(path, out);
    free(out);
}

/* What a report that does not tie its verdicts to this selection gets:
 * one written before reports recorded their selection (refused, saying to
 * run again: which contracts judged it is not known), one whose mutant
 * line's item is another contract's, and one whose names were changed
 * under its hash. */
Test(mutate_select, a_report_without_its_selection_or_with_an_item_outside_it_is_refused, .timeout = 120)
{
    sel_run t;
    sel_setup(&t, "mutsel-bad");
    char axpy[700], bad[700];
    snprintf(axpy, sizeof axpy, "%s/axpy.json", t.dir);
    snprintf(bad, sizeof bad, "%s/bad.json", t.dir);
    axpy_report(&t, axpy);
    char *text = strdup(kc_out_file(axpy));
    cr_assert(text);
    /* no selection: the "mutation" line as reports before ended it */
    char *sel = strstr(text, ",\"selection\":\"");
    cr_assert(sel);
    char *old = strdup(text);
    cr_assert(old);
    strcpy(old + (sel - text), "}\n");
    kc_write_file(bad, old);
    free(old);
    const char *opt[2] = { "--merge-json", "--iterate" };
    for (int k = 0; k < 2; k++) {
        kc_proc p = sel_mutate(&t, "bound", (char *[]){ (char *)opt[k], bad, "fake.axpy.f32", NULL });
        cr_expect_eq(p.status, 2, "%s: exit %d\n%s%s", opt[k], p.status, p.out, p.err);
        cr_expect(strstr(p.err, "the report does not say which contracts judged its mutants") &&
                  strstr(p.err, "run mutate again with --json"), "%s", p.err);
        kc_proc_free(&p);
    }
    /* a mutant's item of a contract the selection does not hold */
    edited(text, "\"item\":\"fake.axpy.f32:", "\"item\":\"fakeblock.short.f32:", bad);
    for (int k = 0; k < 2; k++) {
        kc_proc p = sel_mutate(&t, "bound", (char *[]){ (char *)opt[k], bad, "fake.axpy.f32", NULL });
        cr_expect_eq(p.status, 2, "%s: exit %d\n%s%s", opt[k], p.status, p.out, p.err);
        cr_expect(strstr(p.err, "bad.json:1: mutant ") &&
                  strstr(p.err, "was judged by contract fakeblock.short.f32, which this run's selection does not hold"),
                  "%s", p.err);
        kc_proc_free(&p);
    }
    /* the names changed, the hash kept */
    edited(text, "\"contracts\":[\"fake.axpy.f32\"]", "\"contracts\":[\"fakeblock.short.f32\"]", bad);
    kc_proc p = sel_mutate(&t, "bound", (char *[]){ "--merge-json", bad, "fakeblock.short.f32", NULL });
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "is not that of the contracts it names"), "%s", p.err);
    kc_proc_free(&p);
    free(text);
    kc_rm_rf(t.dir);
}

/* The selection is the set of contracts, not the patterns' spelling: a
 * report of "fake.axpy.f32 fakeblock.axpy.f32" merges and iterates under
 * 'fake*.axpy.f32' and under the names the other way round, and the merged
 * report records the same selection (so it merges again). */
Test(mutate_select, the_same_contracts_by_another_spelling_merge_and_iterate, .timeout = 120)
{
    sel_run t;
    sel_setup(&t, "mutsel-spell");
    char two[700], merged[700];
    snprintf(two, sizeof two, "%s/two.json", t.dir);
    snprintf(merged, sizeof merged, "%s/merged.json", t.dir);
    kc_proc p = sel_mutate(&t, "bound", (char *[]){ "--json", two, "fake.axpy.f32", "fakeblock.axpy.f32", NULL });
    cr_assert_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    p = sel_mutate(&t, "bound", (char *[]){ "--merge-json", two, "--json", merged, "fake*.axpy.f32", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "caught=1 missed=0 timeout=0 score=1.00"), "%s%s", p.out, p.err);
    kc_proc_free(&p);
    char want[200];
    const char *sel = strstr(kc_out_file(two), "\"selection\":\"");
    cr_assert(sel);
    snprintf(want, sizeof want, "%.32s", sel);
    cr_expect(strstr(kc_out_file(merged), want), "the merged report's selection is the shards':\n%s",
              kc_out_file(merged));
    p = sel_mutate(&t, "bound", (char *[]){ "--iterate", merged, "fakeblock.axpy.f32", "fake.axpy.f32", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "caught=1 missed=0 timeout=0 carried=1 score=1.00"), "%s%s", p.out, p.err);
    kc_proc_free(&p);
    kc_rm_rf(t.dir);
}

/* Shards of one selection still merge: --shard 0/2 and 1/2 of two
 * contracts' two mutants (each shard runs one), merged whole. */
Test(mutate_select, shards_of_one_selection_merge, .timeout = 120)
{
    sel_run t;
    sel_setup(&t, "mutsel-shards");
    char s0[700], s1[700];
    snprintf(s0, sizeof s0, "%s/s0.json", t.dir);
    snprintf(s1, sizeof s1, "%s/s1.json", t.dir);
    char *shard[2] = { "0/2", "1/2" }, *json[2] = { s0, s1 };
    for (int k = 0; k < 2; k++) {
        kc_proc p = sel_mutate(&t, "bound,relational", (char *[]){ "--shard", shard[k], "--json", json[k],
                                                                   "fake.axpy.f32", "fakeblock.axpy.f32", NULL });
        cr_assert_eq(p.status, 1, "the other shard's mutant not run here: exit %d\n%s%s", p.status, p.out, p.err);
        cr_assert(strstr(p.out, "generated=2 ") && strstr(p.out, "caught=1 missed=0"), "%s", p.out);
        kc_proc_free(&p);
    }
    kc_proc p = sel_mutate(&t, "bound,relational", (char *[]){ "--merge-json", s0, "--merge-json", s1,
                                                              "fake.axpy.f32", "fakeblock.axpy.f32", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "the reports of 2 shards merged"), "%s", p.out);
    cr_expect(strstr(p.out, "MUTATION modules=1 generated=2 unviable=0 equivalent=0 viable=2 caught=2 missed=0 "
                            "timeout=0 score=1.00"), "%s%s", p.out, p.err);
    kc_proc_free(&p);
    kc_rm_rf(t.dir);
}
