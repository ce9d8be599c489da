/* test_rerun_failed.c — `run --rerun-failed [PATTERN...]` with real
 * processes (the fixture binary, no GPU): it runs exactly the items the cost
 * table records as failed, intersected with the patterns, serial and on the
 * --jobs work queue (selected once, in the parent); it writes the table back,
 * so what passes drops out of the next --rerun-failed; a table with no
 * failure among the selection runs every selected item, saying so; a missing
 * table is exit 2 naming the file; --schedule static is refused; a merge of
 * shards records its verdicts for the next round. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "costs.h"
#include "support/run_output.h"
#include "support/spawn.h"

/* The row of name in the table at path; failed -1 and seconds -2 when absent. */
static kc_cost row_in(const char *path, const char *name)
{
    kc_costs c;
    int found = 0;
    char err[512];
    cr_assert_eq(kc_costs_load(path, &c, &found, err, sizeof err), 0, "%s", err);
    const kc_cost *e = kc_costs_find(&c, name);
    kc_cost r = e ? *e : (kc_cost){ .seconds = -2, .failed = -1 };
    kc_costs_free(&c);
    return r;
}

/* The failed column of name in the table at path: 0/1, or -1 when absent. */
static int failed_in(const char *path, const char *name) { return row_in(path, name).failed; }

/* A serial run given --costs records fixture.fail as failed; --rerun-failed
 * then runs it alone (not the passing items of the first run), fails again,
 * and keeps it failed in the table. */
Test(rerun_failed, serial_runs_only_what_failed, .timeout = 60)
{
    char path[256];
    kc_tmp_path(path, sizeof path, "rerun-failed", "serial");
    char *first[] = { "run", "--costs", path, "fixture.fail", "fixture.pass.0[01]", NULL };
    kc_proc p = kc_run_fixture(first, 30);
    cr_assert_eq(p.status, 1, "first run: exit %d\n%s", p.status, p.out);
    kc_proc_free(&p);
    cr_assert_eq(failed_in(path, "fixture.fail"), 1);
    cr_assert_eq(failed_in(path, "fixture.pass.00"), 0);
    char *again[] = { "run", "--rerun-failed", "--costs", path, NULL };
    p = kc_run_fixture(again, 30);
    cr_expect_eq(p.status, 1, "fixture.fail fails again: exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "kcontract-fixture: 1 item selected"), "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-fixture: --rerun-failed: runs the 1 item the cost table "), "%s", p.out);
    char st[16];
    cr_expect_eq(kc_out_state_lines(p.out, "fixture.fail", st, sizeof st), 1, "%s", p.out);
    cr_expect_str_eq(st, "FAIL");
    cr_expect_eq(kc_out_state_lines(p.out, "fixture.pass.00", st, sizeof st), 0, "a passing item ran:\n%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.items, 1);
    kc_proc_free(&p);
    cr_expect_eq(failed_in(path, "fixture.fail"), 1, "still failed in the table");
    /* the patterns intersect: among fixture.pass.* nothing failed, so every
     * one of them runs (pytest's --last-failed: running nothing read green) */
    char *none[] = { "run", "--rerun-failed", "--costs", path, "fixture.pass.*", NULL };
    p = kc_run_fixture(none, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "kcontract-fixture: --rerun-failed: the cost table "), "%s", p.out);
    cr_expect(strstr(p.out, "records no failed item among those selected, so every one runs"), "%s", p.out);
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.items, 12, "%s", p.out);
    cr_expect_eq(kc_out_count_lines(p.out, "PASS "), 12, "%s", p.out);
    kc_proc_free(&p);
    unlink(path);
}

/* `run || run --rerun-failed`, a CI's retry: a first run without a GPU
 * (exit 3: its GPU items SKIP, only its host items recorded, all passed)
 * made the retry run nothing and exit 0 (a new user's find). With no
 * failure recorded the retry runs every selected item, so it says no GPU
 * again (3); and a retry after a run that recorded nothing at all (refused,
 * killed) runs them all too. */
Test(rerun_failed, a_retry_after_a_run_without_a_gpu_is_not_green, .timeout = 60)
{
    char path[256];
    kc_tmp_path(path, sizeof path, "rerun-failed", "nogpu");
    char *first[] = { "run", "--costs", path, "fake.axpy.f32", "fixture.pass.00", NULL };
    kc_proc p = kc_run_fixture(first, 30);
    cr_assert_eq(p.status, 3, "first run: exit %d\n%s", p.status, p.out);
    kc_proc_free(&p);
    cr_assert_eq(failed_in(path, "fixture.pass.00"), 0);
    char *again[] = { "run", "--rerun-failed", "--costs", path, "fake.axpy.f32", "fixture.pass.00", NULL };
    p = kc_run_fixture(again, 30);
    cr_expect_eq(p.status, 3, "the retry: exit %d\n%s", p.status, p.out);
    char st[16];
    cr_expect_eq(kc_out_state_lines(p.out, "fake.axpy.f32", st, sizeof st), 1, "%s", p.out);
    cr_expect_str_eq(st, "SKIP");
    kc_proc_free(&p);
    unlink(path);
}

/* `run || run --rerun-failed` where the table is an earlier --jobs run's
 * (KC_COSTS, as beside the binary): that run failed fixture.chdir (its
 * directory missing), which passes now; the run retried fails fixture.fail,
 * which was not in it: a serial run, or a --schedule static one. Before,
 * a run that makes no table (serial without --costs or --rerun-failed,
 * static) left the table as it was, so the retry ran fixture.chdir alone
 * and exited 0 right after the run it retries failed, nothing changed
 * between them. Such a run now records its verdicts in a table that is
 * there (a static run's shards, each its own items). */
Test(rerun_failed, a_retry_reruns_what_a_run_that_makes_no_table_failed, .timeout = 60)
{
    for (int stat = 0; stat < 2; stat++) {
        char path[256], env_costs[300];
        kc_tmp_path(path, sizeof path, "rerun-failed", stat ? "static-stale" : "serial-stale");
        snprintf(env_costs, sizeof env_costs, "KC_COSTS=%s", path);
        unlink(path);
        char *earlier[] = { "run", "--jobs", "1", "fixture.chdir", NULL };
        kc_proc p = kc_run_fixture_env(earlier, (char *[]){ env_costs, "KC_FIXTURE_CHDIR=/nonexistent/kc", NULL }, 30);
        cr_assert_eq(p.status, 1, "the earlier --jobs run: exit %d\n%s", p.status, p.out);
        kc_proc_free(&p);
        cr_assert_eq(failed_in(path, "fixture.chdir"), 1);
        char *run[] = { "run", "fixture.chdir", "fixture.fail", stat ? "--jobs" : NULL, "2", "--schedule", "static",
                        NULL };
        p = kc_run_fixture_env(run, (char *[]){ env_costs, NULL }, 30);
        cr_assert_eq(p.status, 1, "static %d: the run: exit %d\n%s", stat, p.status, p.out);
        kc_proc_free(&p);
        char *retry[] = { "run", "--rerun-failed", "fixture.chdir", "fixture.fail", NULL };
        p = kc_run_fixture_env(retry, (char *[]){ env_costs, NULL }, 30);
        cr_expect_eq(p.status, 1, "static %d: the retry of a run that failed fixture.fail: exit %d\n%s", stat, p.status,
                     p.out);
        char st[16];
        cr_expect_eq(kc_out_state_lines(p.out, "fixture.fail", st, sizeof st), 1,
                     "static %d: the retry did not run fixture.fail:\n%s", stat, p.out);
        cr_expect_eq(kc_out_state_lines(p.out, "fixture.chdir", st, sizeof st), 0, "static %d: the retry ran what "
                     "passed:\n%s", stat, p.out);
        kc_proc_free(&p);
        unlink(path);
    }
}

/* On the work queue: the parent selects from the table (fixture.pass.00
 * marked failed, fixture.pass.01 not, fixture.fail failed but outside the
 * pattern) and hands out only that item; the run writes it back as passed, so
 * the next --rerun-failed finds no failure among the pattern's and runs them
 * all. */
Test(rerun_failed, jobs_selects_in_the_parent_and_writes_back, .timeout = 60)
{
    char path[256];
    kc_tmp_path(path, sizeof path, "rerun-failed", "jobs");
    kc_write_file(path, "# kcontract costs v1\n"
                     "fixture.fail\t0.010\t-1\t-1\t1\n"
                     "fixture.pass.00\t0.010\t-1\t-1\t1\n"
                     "fixture.pass.01\t0.010\t-1\t-1\t0\n");
    char *args[] = { "run", "--jobs", "2", "--rerun-failed", "--costs", path, "fixture.pass.*", NULL };
    kc_proc p = kc_run_fixture(args, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: 1 item selected"), "%s", p.out);
    cr_expect(strstr(p.out, "a work queue of 1 worker"), "%s", p.out);
    char st[16];
    cr_expect_eq(kc_out_state_lines(p.out, "fixture.pass.00", st, sizeof st), 1, "%s", p.out);
    cr_expect_str_eq(st, "PASS");
    cr_expect_eq(kc_out_state_lines(p.out, "fixture.pass.01", st, sizeof st), 0, "not failed last time, yet ran:\n%s", p.out);
    cr_expect_eq(kc_out_state_lines(p.out, "fixture.fail", st, sizeof st), 0, "outside the pattern, yet ran:\n%s", p.out);
    kc_proc_free(&p);
    cr_expect_eq(failed_in(path, "fixture.pass.00"), 0, "passed now: the table says so");
    cr_expect_eq(failed_in(path, "fixture.fail"), 1, "not run: its row stays");
    p = kc_run_fixture(args, 30);      /* none failed among fixture.pass.*: every one runs */
    cr_expect_eq(p.status, 0, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "records no failed item among those selected, so every one runs"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 12, "%s", p.out);
    kc_proc_free(&p);
    /* a shard's note says its slice runs, not every selected item */
    char *shard[] = { "run", "--shard", "1/2", "--rerun-failed", "--costs", path, "fixture.pass.*", NULL };
    p = kc_run_fixture(shard, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "records no failed item among those selected, so every one of this shard's slice runs"),
              "%s", p.out);
    kc_proc_free(&p);
    unlink(path);
}

/* No table: exit 2, the file named, nothing run. */
Test(rerun_failed, missing_table_is_a_usage_error, .timeout = 60)
{
    char path[256];
    kc_tmp_path(path, sizeof path, "rerun-failed", "missing");
    char *args[] = { "run", "--jobs", "2", "--rerun-failed", "--costs", path, NULL };
    kc_proc p = kc_run_fixture(args, 30);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    char want[400];
    snprintf(want, sizeof want, "kcontract-fixture: --costs %s: no such file: --rerun-failed reruns", path);
    cr_expect(strstr(p.err, want), "%s", p.err);
    cr_expect(!strstr(p.out, "TALLY"), "%s", p.out);
    kc_proc_free(&p);
    char *serial[] = { "run", "--rerun-failed", "--costs", path, NULL };
    p = kc_run_fixture(serial, 30);
    cr_expect_eq(p.status, 2, "serial: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, want), "%s", p.err);
    kc_proc_free(&p);
    cr_expect_neq(access(path, F_OK), 0, "a refused run wrote %s", path);
}

/* A run without a GPU measures nothing and writes no table, so the
 * --rerun-failed after it found "no such file" and said only that a --jobs
 * run or a serial run given --costs writes one: the run just made was such
 * a run. The refusal says that a run of SKIP items writes none. */
Test(rerun_failed, missing_table_after_a_run_without_a_gpu_says_why, .timeout = 60)
{
    char path[256];
    kc_tmp_path(path, sizeof path, "rerun-failed", "nogpu");
    char *env[] = { "KC_LIBCUDA=none", NULL };
    char *first[] = { (char *)kc_test_fixture_bin(), "run", "--jobs", "2", "--costs", path, "fake.axpy.f32", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(first, env, 30, &p), 0);
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    cr_expect_neq(access(path, F_OK), 0, "a run of SKIP items wrote %s", path);
    char *again[] = { (char *)kc_test_fixture_bin(), "run", "--rerun-failed", "--costs", path, "fake.axpy.f32", NULL };
    cr_assert_eq(kc_spawn(again, env, 30, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "no such file: --rerun-failed reruns") &&
                  strstr(p.err, "a run whose every item was SKIP, as without a GPU, or reused from the results cache "
                                "makes none"),
              "%s", p.err);
    kc_proc_free(&p);
    unlink(path);
}

/* list shows the selection; static shards (which would each read the table)
 * refuse the option. */
Test(rerun_failed, list_and_refusals, .timeout = 60)
{
    char path[256];
    kc_tmp_path(path, sizeof path, "rerun-failed", "list");
    kc_write_file(path, "# kcontract costs v1\nfixture.fail\t0.010\t-1\t-1\t1\nfixture.pass.00\t0.010\t-1\t-1\t0\n");
    char *list[] = { "list", "--rerun-failed", "--costs", path, NULL };
    kc_proc p = kc_run_fixture(list, 30);
    cr_expect_eq(p.status, 0, "%s", p.err);
    cr_expect(strstr(p.out, "suite    fixture.fail\n"), "%s", p.out);
    /* where the selection came from (a new user read the header as the whole filter) */
    cr_expect(strstr(p.out, "--rerun-failed: listed are the 1 item the cost table "), "%s", p.out);
    cr_expect(strstr(p.out, " records failed, of the "), "%s", p.out);
    cr_expect(strstr(p.out, "\n1 item: "), "%s", p.out);
    kc_proc_free(&p);
    /* none failed among fixture.pass.*: each is listed, and the line says a
     * list runs nothing (it read "so every one runs") */
    char *none[] = { "list", "--rerun-failed", "--costs", path, "fixture.pass.*", NULL };
    p = kc_run_fixture(none, 30);
    cr_expect_eq(p.status, 0, "%s", p.err);
    cr_expect(strstr(p.out, "so every one is listed: a run would run every one"), "%s", p.out);
    cr_expect(!strstr(p.out, "so every one runs"), "%s", p.out);
    cr_expect(strstr(p.out, "\n12 items: "), "%s", p.out);
    kc_proc_free(&p);
    char *stat[] = { "run", "--jobs", "2", "--schedule", "static", "--rerun-failed", "--costs", path, NULL };
    p = kc_run_fixture(stat, 30);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--rerun-failed does not apply to --schedule static"), "%s", p.err);
    kc_proc_free(&p);
    unlink(path);
}

/* Multi-host: --rerun-failed --shard K/N --costs F on each host selects the
 * same failed items (each shard reads F and leaves it), and `merge
 * --rerun-failed --costs F` checks the slices against that selection, gives
 * one TALLY of just those items and writes F back: what passes now (here
 * fixture.pass.00 and .01, marked failed by hand) drops out of the next
 * --rerun-failed, what still fails (fixture.fail) stays. A shard run over the
 * whole selection instead does not merge as a --rerun-failed one. */
Test(rerun_failed, shards_select_alike_and_their_merge_writes_the_table_back, .timeout = 60)
{
    char path[256], log[2][256];
    kc_tmp_path(path, sizeof path, "rerun-failed", "shards");
    const char *table = "# kcontract costs v1\nfixture.fail\t0.010\t-1\t-1\t1\nfixture.pass.00\t0.010\t-1\t-1\t1\n"
                        "fixture.pass.01\t0.010\t-1\t-1\t1\nfixture.pass.02\t0.010\t-1\t-1\t0\n";
    kc_write_file(path, table);
    for (int k = 0; k < 2; k++) {
        char tag[16], shard[8];
        snprintf(tag, sizeof tag, "shard%d", k);
        snprintf(shard, sizeof shard, "%d/2", k);
        kc_tmp_path(log[k], sizeof log[k], "rerun-failed", tag);
        char *args[] = { "run", "--rerun-failed", "--costs", path, "--shard", shard, "fixture.fail", "fixture.pass.*", NULL };
        kc_proc p = kc_run_fixture(args, 30);
        kc_write_file(log[k], p.out);
        kc_proc_free(&p);
    }
    cr_expect_str_eq(kc_out_file(path), table, "a shard rewrote the table its peers select from");
    char *merge[] = { "merge", "--rerun-failed", "--costs", path, "--log", log[0], "--log", log[1], "fixture.fail",
                      "fixture.pass.*", NULL };
    kc_proc p = kc_run_fixture(merge, 30);
    cr_expect_eq(p.status, 1, "fixture.fail fails again: exit %d\n%s%s", p.status, p.out, p.err);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.items, 3, "the three failed items, once each:\n%s", p.out);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 2, "%s", p.out);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_FAIL], 1, "%s", p.out);
    kc_proc_free(&p);
    cr_expect_eq(failed_in(path, "fixture.fail"), 1);
    cr_expect_eq(failed_in(path, "fixture.pass.00"), 0, "passed now: written back");
    cr_expect_eq(failed_in(path, "fixture.pass.01"), 0, "passed now: written back");
    /* a shard of the whole selection is no slice of the --rerun-failed selection */
    char *whole[] = { "run", "--costs", path, "--shard", "0/2", "fixture.fail", "fixture.pass.*", NULL };
    p = kc_run_fixture(whole, 30);
    kc_write_file(log[0], p.out);
    kc_proc_free(&p);
    p = kc_run_fixture(merge, 30);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "the merge failed"), "%s", p.out);
    cr_expect(!strstr(p.out, "\nSUMMARY"), "%s", p.out);
    kc_proc_free(&p);
    unlink(path);
    unlink(log[0]);
    unlink(log[1]);
}


/* Several hosts: the shards of a plain run, each given a copy of one table
 * (its host's), cut their slices by its seconds; their merge records this
 * round's verdicts in the original (seconds kept, so the same logs merge
 * again), and the next --rerun-failed round reruns what failed here, not
 * what an older run failed. Before, the merge left the table as it was:
 * the retry round ran fixture.pass.00 (an older failure, passing now) and
 * merged green, fixture.fail never rerun. */
Test(rerun_failed, a_merge_records_its_verdicts_for_the_next_round, .timeout = 60)
{
    char path[256], log[2][256], host[2][256];
    const char *table = "# kcontract costs v1\nfixture.fail\t0.020\t-1\t-1\t0\nfixture.pass.00\t0.010\t-1\t-1\t1\n"
                        "fixture.pass.01\t0.030\t-1\t-1\t0\n";
    kc_tmp_path(path, sizeof path, "rerun-failed", "merge-verdicts");
    kc_write_file(path, table);
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 2; k++) {
            char tag[16], shard[8];
            snprintf(tag, sizeof tag, "shard%d", k);
            snprintf(shard, sizeof shard, "%d/2", k);
            kc_tmp_path(log[k], sizeof log[k], "rerun-failed", tag);
            snprintf(tag, sizeof tag, "host%d", k);
            kc_tmp_path(host[k], sizeof host[k], "rerun-failed", tag);
            kc_write_file(host[k], table);
            char *plain[] = { "run", "--costs", host[k], "--shard", shard, "fixture.fail", "fixture.pass.*", NULL };
            char *retry[] = { "run", "--rerun-failed", "--costs", path, "--shard", shard, "fixture.fail",
                              "fixture.pass.*", NULL };
            kc_proc p = kc_run_fixture(round ? retry : plain, 30);
            kc_write_file(log[k], p.out);
            kc_proc_free(&p);
        }
        char *plain[] = { "merge", "--costs", path, "--log", log[0], "--log", log[1], "fixture.fail", "fixture.pass.*",
                          NULL };
        char *retry[] = { "merge", "--rerun-failed", "--costs", path, "--log", log[0], "--log", log[1],
                          "fixture.fail", "fixture.pass.*", NULL };
        kc_proc p = kc_run_fixture(round ? retry : plain, 30);
        cr_expect_eq(p.status, 1, "round %d: fixture.fail fails: exit %d\n%s%s", round, p.status, p.out, p.err);
        kc_tally t;
        kc_out_tally(p.out, &t);
        if (round) {
            cr_expect_eq(t.items, 1, "the retry reruns what failed in the merged round, alone:\n%s", p.out);
            cr_expect_eq(t.n[KC_KIND_SUITE][KC_FAIL], 1, "%s", p.out);
            kc_proc_free(&p);
            break;
        }
        cr_expect(strstr(p.out, "verdicts recorded, seconds kept"), "the merge says what it wrote:\n%s", p.out);
        kc_proc_free(&p);
        cr_expect_eq(failed_in(path, "fixture.fail"), 1, "this round's failure recorded");
        cr_expect_eq(failed_in(path, "fixture.pass.00"), 0, "an older failure that passed now is cleared");
        cr_expect(strstr(kc_out_file(path), "fixture.pass.01\t0.030\t"), "seconds kept:\n%s", kc_out_file(path));
        p = kc_run_fixture(plain, 30);     /* the table the shards were cut by is still theirs */
        cr_expect_eq(p.status, 1, "a second merge of the same logs: exit %d\n%s%s", p.status, p.out, p.err);
        cr_expect(!strstr(p.out, "the merge failed") && strstr(p.out, "\nSUMMARY"), "%s%s", p.out, p.err);
        kc_proc_free(&p);
    }
    unlink(path);
    for (int k = 0; k < 2; k++) {
        unlink(log[k]);
        unlink(host[k]);
    }
}

/* The seconds field of name in the table at path, -2 when absent. */
static double seconds_in(const char *path, const char *name) { return row_in(path, name).seconds; }

/* A failed row whose item the results cache then reuses as a pass (it
 * passed since, in a run that kept no table): the reused PASS is a verdict,
 * no measurement. Before, a run skipped it (the row stayed failed, rerun by
 * every --rerun-failed after), and a merge, which did not read a line's
 * cached label, wrote its "(0.00 s)" as the item's cost. Now both clear the
 * failed column and keep the seconds. */
Test(rerun_failed, a_reused_pass_clears_failed_and_keeps_its_seconds, .timeout = 60)
{
    char path[256], other[256], cache[256], env_cache[300], log[2][256];
    kc_tmp_path(path, sizeof path, "rerun-failed", "reused");
    kc_tmp_path(other, sizeof other, "rerun-failed", "reused-other");
    kc_tmp_dir(cache, sizeof cache, "reused-cache");
    snprintf(env_cache, sizeof env_cache, "KC_CACHE_DIR=%s", cache);
    char *env[] = { env_cache, NULL };
    const char *table = "# kcontract costs v1\nfixture.fail\t0.010\t-1\t-1\t1\nfixture.pass.00\t5.000\t-1\t-1\t1\n";
    kc_proc p = kc_run_fixture_env((char *[]){ "run", "fixture.pass.00", "--costs", other, NULL }, env, 30);
    cr_assert_eq(p.status, 0, "the pass the cache keeps: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    for (int mode = 0; mode < 2; mode++) {      /* one host; two shards and their merge */
        kc_write_file(path, table);
        if (mode == 0) {
            p = kc_run_fixture_env((char *[]){ "run", "--rerun-failed", "--costs", path, "fixture.fail", "fixture.pass.00",
                                               NULL }, env, 30);
            cr_expect(strstr(p.out, "[cached: earned "), "fixture.pass.00 reused:\n%s", p.out);
            kc_proc_free(&p);
        } else {
            for (int k = 0; k < 2; k++) {
                char tag[16], shard[8];
                snprintf(tag, sizeof tag, "reused%d", k);
                snprintf(shard, sizeof shard, "%d/2", k);
                kc_tmp_path(log[k], sizeof log[k], "rerun-failed", tag);
                p = kc_run_fixture_env((char *[]){ "run", "--rerun-failed", "--costs", path, "--shard", shard,
                                                   "fixture.fail", "fixture.pass.00", NULL }, env, 30);
                kc_write_file(log[k], p.out);
                kc_proc_free(&p);
            }
            p = kc_run_fixture_env((char *[]){ "merge", "--rerun-failed", "--costs", path, "--log", log[0], "--log",
                                               log[1], "fixture.fail", "fixture.pass.00", NULL }, env, 30);
            cr_expect_eq(p.status, 1, "merge: fixture.fail fails: exit %d\n%s%s", p.status, p.out, p.err);
            kc_proc_free(&p);
            unlink(log[0]);
            unlink(log[1]);
        }
        cr_expect_eq(failed_in(path, "fixture.pass.00"), 0, "mode %d: the reused pass left the row failed:\n%s", mode,
                     kc_out_file(path));
        cr_expect_eq(seconds_in(path, "fixture.pass.00"), 5.0, "mode %d: the reused pass's seconds:\n%s", mode,
                     kc_out_file(path));
        cr_expect_eq(failed_in(path, "fixture.fail"), 1, "mode %d", mode);
    }
    unlink(path);
    unlink(other);
    kc_rm_rf(cache);
}

/* A CI job per shard, `run --shard K/N || run --shard K/N --rerun-failed`:
 * a --shard run recorded nothing in the table, and the retry cut its slice
 * among the failures an older run had left there, so the shard whose try
 * failed retried an old failure that passes now, or nothing, and exited 0
 * (a red-team's find; the same under Bazel's shard variables). Now a shard
 * records its verdicts, seconds kept, and its retry reruns the failures of
 * its own slice: the shard that failed fails again, the other runs nothing. */
Test(rerun_failed, a_shard_retries_the_failures_of_its_own_try, .timeout = 90)
{
    static const char *const items[] = { "fixture.fail", "fixture.pass.00", "fixture.pass.01", "fixture.pass.02" };
    /* an older run left fixture.pass.00 failed; the seconds cut the slices */
    const char *table = "# kcontract costs v1\nfixture.fail\t0.400\t-1\t-1\t0\nfixture.pass.00\t0.300\t-1\t-1\t1\n"
                        "fixture.pass.01\t0.200\t-1\t-1\t0\nfixture.pass.02\t0.100\t-1\t-1\t0\n";
    for (int mode = 0; mode < 2; mode++) {     /* --shard K/2 --costs T; Bazel's variables and KC_COSTS=T */
        char path[256], costs_env[300], costs_arg[300];
        kc_tmp_path(path, sizeof path, "rerun-failed", mode ? "bazel" : "shard");
        kc_write_file(path, table);
        snprintf(costs_env, sizeof costs_env, "KC_COSTS=%s", path);
        snprintf(costs_arg, sizeof costs_arg, "--costs=%s", path);
        int failed_shards = 0;
        for (int k = 0; k < 2; k++) {
            char shard[8], index_env[32];
            snprintf(shard, sizeof shard, "%d/2", k);
            snprintf(index_env, sizeof index_env, "TEST_SHARD_INDEX=%d", k);
            char *env[] = { "KC_CACHE_DIR=off", mode ? costs_env : NULL, mode ? index_env : NULL,
                            "TEST_TOTAL_SHARDS=2", NULL };
            if (!mode) env[1] = NULL;
            char *try[9] = { "run", (char *)items[0], (char *)items[1], (char *)items[2], (char *)items[3], NULL };
            char *retry[10] = { "run", "--rerun-failed", (char *)items[0], (char *)items[1], (char *)items[2],
                                (char *)items[3], NULL };
            if (!mode) {
                try[5] = "--shard", try[6] = shard, try[7] = costs_arg;
                retry[6] = "--shard", retry[7] = shard, retry[8] = costs_arg;
            }
            kc_proc a = kc_run_fixture_env(try, env, 30);
            cr_assert(a.status == 0 || a.status == 1, "mode %d shard %d: try exit %d\n%s%s", mode, k, a.status, a.out,
                      a.err);
            kc_proc b = kc_run_fixture_env(retry, env, 30);
            char st[16];
            int has_fail = kc_out_state_lines(a.out, "fixture.fail", st, sizeof st) == 1;
            failed_shards += a.status == 1;
            cr_expect_eq(a.status == 1, has_fail, "mode %d shard %d: try exit %d\n%s", mode, k, a.status, a.out);
            cr_expect_eq(b.status, a.status, "mode %d shard %d: the try exited %d, its retry %d\ntry:\n%s\nretry:\n%s",
                         mode, k, a.status, b.status, a.out, b.out);
            if (has_fail) {
                cr_expect_eq(kc_out_state_lines(b.out, "fixture.fail", st, sizeof st), 1, "%s", b.out);
                cr_expect_str_eq(st, "FAIL");
            } else
                cr_expect(strstr(b.out, "is empty: the cost table ") && strstr(b.out, "records no failure in its slice"),
                          "mode %d shard %d: the empty retry does not say why:\n%s", mode, k, b.out);
            cr_expect_eq(kc_out_state_lines(b.out, "fixture.pass.00", st, sizeof st), 0,
                         "mode %d shard %d: the retry ran the old failure its try had passed:\n%s", mode, k, b.out);
            kc_proc_free(&a);
            kc_proc_free(&b);
        }
        cr_expect_eq(failed_shards, 1, "mode %d", mode);
        cr_expect_eq(failed_in(path, "fixture.fail"), 1, "mode %d: the try's failure is not recorded", mode);
        cr_expect_eq(failed_in(path, "fixture.pass.00"), 0, "mode %d: the try's pass is not recorded", mode);
        kc_cost r = row_in(path, "fixture.pass.00");
        cr_expect(r.seconds > 0.299 && r.seconds < 0.301, "mode %d: the seconds the slices were cut by changed: %.3f",
                  mode, r.seconds);
        unlink(path);
    }
}

/* A retry keeps of its slice what the table records failed, which is why a
 * shard records its slice failed as it starts and each verdict at its end:
 * a try that never reached its end (SIGKILL) or whose items no end records
 * (SKIP without a GPU) recorded nothing, and with another shard's failure
 * in the table its retry ran nothing and exited 0, as did the merge of the
 * retries (a red team's find). Each such retry now runs its slice again. */
Test(rerun_failed, a_shard_whose_try_recorded_nothing_retries_its_slice, .timeout = 90)
{
    char path[256], costs_arg[300];
    kc_tmp_path(path, sizeof path, "rerun-failed", "killed");
    snprintf(costs_arg, sizeof costs_arg, "--costs=%s", path);
    /* by index, in name order: shard 0 fixture.fail and fixture.pass.00,
     * shard 1 fixture.hang.0 and fixture.pass.01 */
    kc_write_file(path, "# kcontract costs v1\n");
    char *sel[] = { "fixture.fail", "fixture.hang.0", "fixture.pass.00", "fixture.pass.01" };
    char *try0[] = { "run", "--shard", "0/2", costs_arg, sel[0], sel[1], sel[2], sel[3], NULL };
    char *try1[] = { "run", "--shard", "1/2", costs_arg, sel[0], sel[1], sel[2], sel[3], NULL };
    char *retry1[] = { "run", "--rerun-failed", "--shard", "1/2", costs_arg, sel[0], sel[1], sel[2], sel[3], NULL };
    char *env[] = { "KC_CACHE_DIR=off", NULL };
    kc_proc p = kc_run_fixture_env(try0, env, 30);
    cr_expect_eq(p.status, 1, "shard 0's try: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    p = kc_run_fixture_env(try1, env, 2);       /* fixture.hang.0 hangs: killed (SIGKILL) at 2 s */
    cr_expect(p.signaled, "shard 1's try was not killed: exit %d\n%s", p.status, p.out);
    kc_proc_free(&p);
    cr_expect_eq(failed_in(path, "fixture.hang.0"), 1, "the killed slice's items are not recorded failed:\n%s",
                 kc_out_file(path));
    cr_expect_eq(failed_in(path, "fixture.pass.01"), 1, "%s", kc_out_file(path));
    p = kc_run_fixture_env(retry1, env, 2);
    cr_expect(p.signaled || p.status != 0, "the killed shard's retry exited 0:\n%s%s", p.out, p.err);
    cr_expect(strstr(p.out, "fixture.hang.0 pid "), "the killed shard's retry did not run its slice:\n%s", p.out);
    kc_proc_free(&p);
    /* without a GPU: shard 0's items SKIP (fake.axpy.f32 is a GPU item), shard 1 fails */
    kc_write_file(path, "# kcontract costs v1\n");
    char *gsel[] = { "fake.axpy.f32", "fixture.fail" };
    char *gtry0[] = { "run", "--shard", "0/2", costs_arg, gsel[0], gsel[1], NULL };
    char *gtry1[] = { "run", "--shard", "1/2", costs_arg, gsel[0], gsel[1], NULL };
    char *gretry0[] = { "run", "--rerun-failed", "--shard", "0/2", costs_arg, gsel[0], gsel[1], NULL };
    p = kc_run_fixture_env(gtry0, env, 30);
    cr_expect_eq(p.status, 3, "shard 0's try without a GPU: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    p = kc_run_fixture_env(gtry1, env, 30);
    cr_expect_eq(p.status, 1, "shard 1's try: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    p = kc_run_fixture_env(gretry0, env, 30);
    cr_expect_eq(p.status, 3, "shard 0's retry without a GPU: exit %d (0 ran nothing)\n%s%s", p.status, p.out, p.err);
    char st[16];
    cr_expect_eq(kc_out_state_lines(p.out, "fake.axpy.f32", st, sizeof st), 1, "%s", p.out);
    kc_proc_free(&p);
    unlink(path);
}

/* A serial, --jobs or --schedule static try killed before its end (SIGKILL:
 * a CI's time limit, the OOM killer) recorded nothing, and the table kept
 * an older run's failure (fixture.pass.00, which passes now): its retry
 * `run --rerun-failed` ran that one item and exited 0, though the try's
 * fixture.hang.0 had never been judged. Every run that records its
 * verdicts now records its selection failed as it starts, so the retry
 * runs the killed try's items. (A static schedule takes its table from
 * KC_COSTS, not --costs, and its retry is the work queue's: --rerun-failed
 * does not apply to it.) */
Test(rerun_failed, a_try_killed_before_its_end_leaves_its_items_to_the_retry, .timeout = 120)
{
    const char *modes[][4] = { { NULL }, { "--jobs", "2", NULL }, { "--jobs", "2", "--schedule", "static" } };
    for (int m = 0; m < 3; m++) {
        char path[256], costs_arg[300], costs_env[300];
        kc_tmp_path(path, sizeof path, "rerun-failed", "killed-try");
        snprintf(costs_arg, sizeof costs_arg, "--costs=%s", path);
        snprintf(costs_env, sizeof costs_env, "KC_COSTS=%s", path);
        kc_write_file(path, "# kcontract costs v1\nfixture.pass.00\t0.1\t-1\t-1\t1\n");
        char *env[] = { "KC_CACHE_DIR=off", m == 2 ? costs_env : NULL, NULL };
        char *try[12] = { "run" }, *retry[12] = { "run", "--rerun-failed", costs_arg };
        int a = 1, b = 3;
        if (m != 2) try[a++] = costs_arg;
        for (int i = 0; i < 4 && modes[m][i]; i++) try[a++] = (char *)modes[m][i];
        for (int i = 0; i < 2 && modes[m][i]; i++) retry[b++] = (char *)modes[m][i];
        try[a++] = retry[b++] = "fixture.hang.0";
        try[a++] = retry[b++] = "fixture.pass.00";
        try[a++] = retry[b++] = "fixture.pass.01";
        try[a] = retry[b] = NULL;
        kc_proc p = kc_run_fixture_env(try, env, 3);    /* fixture.hang.0 hangs: killed (SIGKILL) at 3 s */
        cr_expect(p.signaled, "mode %d: the try was not killed: exit %d\n%s%s", m, p.status, p.out, p.err);
        kc_proc_free(&p);
        cr_expect_eq(failed_in(path, "fixture.hang.0"), 1, "mode %d: the killed try's items are not recorded "
                     "failed:\n%s", m, kc_out_file(path));
        p = kc_run_fixture_env(retry, env, 3);
        cr_expect(p.signaled || p.status != 0, "mode %d: the killed try's retry exited 0:\n%s%s", m, p.out, p.err);
        cr_expect(strstr(p.out, "fixture.hang.0 pid "), "mode %d: the retry did not run the killed try's items:\n%s",
                  m, p.out);
        kc_proc_free(&p);
        unlink(path);
    }
}

/* `run --jobs N || run --jobs N --rerun-failed` on a fresh checkout (no
 * table yet: the try's end makes it) without a GPU: the try fails
 * fixture.chdir, SKIPs fake.axpy.f32. Its start marked nothing (no table
 * to mark), and its end recorded no SKIP, so the retry ran fixture.chdir
 * alone, which passes now, and exited 0: green, the GPU item never judged
 * (a red team's find). The same through shards and their merge, which no
 * start marks at all: the merge's table left the SKIP out and the retry
 * round merged green. A SKIP is now recorded failed at the end too (a row
 * never measured), so the retry runs it again and SKIPs it again: 3. */
Test(rerun_failed, a_skip_in_a_table_its_run_makes_is_recorded_failed, .timeout = 90)
{
    char path[256], costs_env[300];
    kc_tmp_path(path, sizeof path, "rerun-failed", "fresh-skip");
    snprintf(costs_env, sizeof costs_env, "KC_COSTS=%s", path);
    char *fail_env[] = { "KC_CACHE_DIR=off", "KC_LIBCUDA=none", costs_env, "KC_FIXTURE_CHDIR=/nonexistent/kc", NULL };
    char *pass_env[] = { "KC_CACHE_DIR=off", "KC_LIBCUDA=none", costs_env, NULL };
    unlink(path);
    char *try[] = { "run", "--jobs", "2", "fake.axpy.f32", "fixture.chdir", "fixture.pass.00", NULL };
    kc_proc p = kc_run_fixture_env(try, fail_env, 30);
    cr_assert_eq(p.status, 1, "the try: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    cr_expect_eq(failed_in(path, "fake.axpy.f32"), 1, "the SKIP is not recorded failed:\n%s", kc_out_file(path));
    char *retry[] = { "run", "--jobs", "2", "--rerun-failed", "fake.axpy.f32", "fixture.chdir", "fixture.pass.00", NULL };
    p = kc_run_fixture_env(retry, pass_env, 30);
    cr_expect_eq(p.status, 3, "the retry of a try whose GPU item was SKIP: exit %d\n%s%s", p.status, p.out, p.err);
    char st[16];
    cr_expect_eq(kc_out_state_lines(p.out, "fake.axpy.f32", st, sizeof st), 1, "not run again:\n%s", p.out);
    kc_proc_free(&p);
    unlink(path);

    /* shards cut by a table not there yet, their merge makes it */
    char log[2][256];
    const char *pats[] = { "fake.axpy.f32", "fixture.chdir", "fixture.pass.00", "fixture.pass.01" };
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 2; k++) {
            char tag[16], shard[8];
            snprintf(tag, sizeof tag, "fresh%d.%d", round, k);
            snprintf(shard, sizeof shard, "%d/2", k);
            kc_tmp_path(log[k], sizeof log[k], "rerun-failed", tag);
            char *args[] = { "run", "--costs", path, "--shard", shard, (char *)pats[0], (char *)pats[1],
                             (char *)pats[2], (char *)pats[3], round ? "--rerun-failed" : NULL, NULL };
            p = kc_run_fixture_env(args, round ? pass_env : fail_env, 30);
            kc_write_file(log[k], p.out);
            kc_proc_free(&p);
        }
        char *merge[] = { "merge", "--costs", path, "--log", log[0], "--log", log[1], round ? "--rerun-failed" : "--",
                          (char *)pats[0], (char *)pats[1], (char *)pats[2], (char *)pats[3], NULL };
        p = kc_run_fixture_env(merge, pass_env, 30);
        cr_expect_eq(p.status, round ? 3 : 1, "round %d's merge: exit %d\n%s%s", round, p.status, p.out, p.err);
        kc_proc_free(&p);
        cr_expect_eq(failed_in(path, "fake.axpy.f32"), 1, "round %d: the SKIP is not recorded failed:\n%s", round,
                     kc_out_file(path));
        unlink(log[0]);
        unlink(log[1]);
    }
    unlink(path);
}

/* A lock file planted as a symbolic link beside a shared table: no run
 * writes the table (it refuses to follow the link, and its exit status is
 * its items'), so the try's failure (fixture.fail) never reaches it, and its
 * retry ran the failure an older run left there (fixture.pass.00), which
 * passes, and exited 0 right after the try exited 1 (a red team's find). A
 * --rerun-failed run or merge is now refused (2), naming the link; a list
 * still shows what the table says. */
Test(rerun_failed, a_table_no_run_can_write_is_no_retry_list, .timeout = 60)
{
    char path[256], lock[300];
    kc_tmp_path(path, sizeof path, "rerun-failed", "lock-link");
    snprintf(lock, sizeof lock, "%s.lock", path);
    kc_write_file(path, "# kcontract costs v1\nfixture.pass.00\t0.010\t-1\t-1\t1\nfixture.fail\t0.010\t-1\t-1\t0\n");
    unlink(lock);
    cr_assert_eq(symlink("/nonexistent/kc-lock-target", lock), 0);
    char *env[] = { "KC_CACHE_DIR=off", NULL };
    const char *modes[][3] = { { NULL }, { "--jobs", "2", NULL }, { "--shard", "0/1", NULL } };
    for (int m = 0; m < 3; m++) {
        char *try[10] = { "run", "--costs", path }, *retry[10] = { "run", "--rerun-failed", "--costs", path };
        int a = 3, b = 4;
        for (int i = 0; i < 2 && modes[m][i]; i++) try[a++] = retry[b++] = (char *)modes[m][i];
        try[a++] = retry[b++] = "fixture.fail";
        try[a++] = retry[b++] = "fixture.pass.00";
        try[a] = retry[b] = NULL;
        kc_proc p = kc_run_fixture_env(try, env, 30);
        cr_expect_eq(p.status, 1, "mode %d: the try: exit %d\n%s%s", m, p.status, p.out, p.err);
        kc_proc_free(&p);
        p = kc_run_fixture_env(retry, env, 30);
        cr_expect_eq(p.status, 2, "mode %d: the retry of a try that failed: exit %d\n%s%s", m, p.status, p.out, p.err);
        cr_expect(strstr(p.err, "is a symbolic link"), "mode %d:\n%s", m, p.err);
        kc_proc_free(&p);
    }
    char *list[] = { "list", "--rerun-failed", "--costs", path, "fixture.fail", "fixture.pass.00", NULL };
    kc_proc p = kc_run_fixture_env(list, env, 30);
    cr_expect_eq(p.status, 0, "list: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    unlink(lock);
    unlink(path);
}
