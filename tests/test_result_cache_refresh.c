/* test_result_cache_refresh.c — what removes a pass from the results cache
 * (run/result_cache.h, issue 23), through the fixture binary and the fake
 * driver: a compute-sanitizer session that cannot vouch keeps no pass; a
 * --no-cache run that fails, or whose session is not trusted, removes the
 * pass of the same inputs, serially, with --jobs and as static shards; a
 * worker that ends on its own vouches for no session; one stopped after
 * its end line keeps its sessions' verdicts. The cache's reuse:
 * test_result_cache.c. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/cache_runs.h"
#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"

/* KC_COMPUTE_SANITIZER=<the fake tool> (tests/fake/compute-sanitizer), for
 * a run's environment. */
static char *fake_sanitizer_env(void)
{
    static char san[PATH_MAX + 32];
    char fake[PATH_MAX];
    cr_assert_not_null(realpath("tests/fake/compute-sanitizer", fake));
    snprintf(san, sizeof san, "KC_COMPUTE_SANITIZER=%s", fake);
    return san;
}

/* A compute-sanitizer session whose summary counts an error no item's
 * window held (here a report after the last item's end line) leaves the
 * items it called clean untrusted and the run not green; their PASS is not
 * kept, so the same run again is not green either (it was, reusing it). A
 * run whose sessions end clean keeps it. Serial and --jobs. */
Test(result_cache, a_sanitizer_session_that_is_not_trusted_keeps_no_pass, .timeout = 60)
{
    char *san = fake_sanitizer_env();
    const char *modes[2][4] = { { "run", "fakesan.copy.f16:sanitize" },
                                { "run", "--jobs", "2", "fakesan.copy.f16:sanitize" } };
    for (int m = 0; m < 2; m++) {
        kc_cache_dir c;
        kc_cache_new(&c, "rcache-san");
        char *args[6] = { 0 };
        for (int i = 0; i < 4 && modes[m][i]; i++) args[i] = (char *)modes[m][i];
        char *late[] = { c.env, san, "PATH=/usr/bin:/bin", "KC_FAKE_SANITIZER=late:memcheck", NULL };
        char *clean[] = { c.env, san, "PATH=/usr/bin:/bin", NULL };
        for (int k = 0; k < 4; k++) {
            kc_proc p = kc_run_fake(args, k < 2 ? late : clean, 60);
            kc_tally t;
            kc_out_tally(p.out, &t);
            int want_status = k < 2, want_cached = k == 3;
            cr_expect_eq(p.status, want_status, "%s, run %d (%s): exit %d, want %d\n%s%s", args[1], k + 1,
                         k < 2 ? "a session not trusted" : "clean sessions", p.status, want_status, p.out, p.err);
            cr_expect_eq(t.cached, want_cached, "%s, run %d: cached=%ld, want %d\n%s", args[1], k + 1, t.cached,
                         want_cached, p.out);
            kc_proc_free(&p);
        }
        kc_rm_rf(c.dir);
    }
}

/* One run of a sequence on one cache: with --no-cache or not, in the
 * environment env[which] (0: the item passes, 1: it does not), and what it
 * must give (cached -1: not checked; a static run whose shard died prints
 * no TALLY of its own). */
typedef struct refresh_step {
    int no_cache, which, status, cached;
    const char *what;
} refresh_step;

/* How a sequence's runs go: serially, through a work queue of two
 * workers, or as two static shards. */
static const char *const HOW[][5] = { { NULL }, { "--jobs", "2", NULL }, { "--jobs", "2", "--schedule", "static", NULL } };

/* Runs the items (NULL-terminated) once per step, as HOW[how] says, each
 * in its step's environment, and checks exit status and the TALLY's cached
 * count. */
static void run_steps(const char *const *items, char **env[2], const refresh_step *st, size_t n, int how)
{
    for (size_t k = 0; k < n; k++) {
        char *args[16] = { "run" };
        int a = 1;
        if (st[k].no_cache) args[a++] = "--no-cache";
        for (int i = 0; HOW[how][i]; i++) args[a++] = (char *)HOW[how][i];
        for (int i = 0; items[i] && a < 15; i++) args[a++] = (char *)items[i];
        kc_proc p = kc_run_fake(args, env[st[k].which], 60);
        cr_expect_eq(p.status, st[k].status, "%s, run %d, step %zu (%s): exit %d, want %d\n%s%s", items[0], how,
                     k + 1, st[k].what, p.status, st[k].status, p.out, p.err);
        if (st[k].cached >= 0) {
            kc_tally t;
            kc_out_tally(p.out, &t);
            cr_expect_eq(t.cached, st[k].cached, "%s, run %d, step %zu (%s): cached=%ld, want %d\n%s", items[0], how,
                         k + 1, st[k].what, t.cached, st[k].cached, p.out);
        }
        kc_proc_free(&p);
    }
}

/* The latest verdict on an input decides (result_cache.h). fixture.chdir
 * fails under KC_FIXTURE_CHDIR=/nonexistent, which its key cannot see; the
 * docs say to run with --no-cache after such a change. A --no-cache run that
 * FAILs it removes the pass kept for the same inputs, so the next cached run
 * runs it and fails too (before, it reused the pass and exited 0); a
 * --no-cache run that passes keeps its pass for the next. */
Test(result_cache, a_no_cache_failure_removes_the_pass_of_the_same_inputs, .timeout = 90)
{
    static const refresh_step st[] = {
        { 0, 0, 0, 0, "fills the cache" },
        { 1, 1, 1, 0, "--no-cache, the item fails" },
        { 0, 1, 1, 0, "cached run after the failure: must run the item, not reuse the pass" },
        { 1, 0, 0, 0, "--no-cache, the item passes" },
        { 0, 0, 0, 1, "cached run after it: reuses the pass --no-cache kept" },
    };
    for (int jobs = 0; jobs < 2; jobs++) {
        kc_cache_dir c;
        kc_cache_new(&c, "rcache-refresh");
        char *ok[] = { c.env, NULL }, *bad[] = { c.env, "KC_FIXTURE_CHDIR=/nonexistent", NULL };
        char **env[2] = { ok, bad };
        run_steps((const char *[]){ "fixture.chdir", NULL }, env, st, sizeof st / sizeof st[0], jobs);
        kc_rm_rf(c.dir);
    }
}

/* The same for a sanitizer check: a --no-cache run whose session is not
 * trusted (the fake tool's late report) removes the clean verdict kept for
 * the same inputs (KC_FAKE_SANITIZER is not in the key, as a real tool's
 * behaviour with one executable is not), so the next cached run runs the
 * item and fails as well. */
Test(result_cache, a_no_cache_run_whose_session_is_not_trusted_removes_the_pass, .timeout = 90)
{
    static const refresh_step st[] = {
        { 0, 0, 0, 0, "clean sessions fill the cache" },
        { 1, 1, 1, 0, "--no-cache, a session not trusted" },
        { 0, 1, 1, 0, "cached run after it: must run the item, not reuse the clean verdict" },
    };
    char *san = fake_sanitizer_env();
    for (int jobs = 0; jobs < 2; jobs++) {
        kc_cache_dir c;
        kc_cache_new(&c, "rcache-san-refresh");
        char *clean[] = { c.env, san, "PATH=/usr/bin:/bin", NULL };
        char *late[] = { c.env, san, "PATH=/usr/bin:/bin", "KC_FAKE_SANITIZER=late:memcheck", NULL };
        char **env[2] = { clean, late };
        run_steps((const char *[]){ "fakesan.copy.f16:sanitize", NULL }, env, st, sizeof st / sizeof st[0], jobs);
        kc_rm_rf(c.dir);
    }
}

/* No verdict is no evidence: a --no-cache run whose worker is killed for
 * another item's time limit (fixture.cost.00, scaled to 9 s under --timeout
 * 2) leaves the passes of the :sanitize items its sessions served but could
 * not vouch for as they were; the next cached run reuses them. Before, the
 * killed worker counted as distrusted and both passes were removed. */
Test(result_cache, a_no_cache_worker_killed_for_another_items_limit_removes_no_pass, .timeout = 90)
{
    char *san = fake_sanitizer_env();
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-unvouched");
    char *env[] = { c.env, san, "PATH=/usr/bin:/bin", NULL };
    char *slow[] = { c.env, san, "PATH=/usr/bin:/bin", "KC_FIXTURE_COST_SCALE=30", NULL };
    char *run[] = { "run", "fakesan.copy.f16:sanitize", "fakenorace.copy.f16:sanitize", "fixture.cost.00", NULL };
    char *fresh[] = { "run", "--no-cache", "--timeout", "2", "fakesan.copy.f16:sanitize", "fakenorace.copy.f16:sanitize",
                      "fixture.cost.00", NULL };
    kc_proc a = kc_run_fake(run, env, 60);
    cr_assert_eq(a.status, 0, "filling the cache: exit %d\n%s%s", a.status, a.out, a.err);
    kc_proc b = kc_cache_run_line(fresh, slow, "TIMEOUT", "fixture.cost.00");
    kc_cache_expect_reused(run, env, 2, "the 2 :sanitize passes");
    kc_proc_free(&a);
    kc_proc_free(&b);
    kc_rm_rf(c.dir);
}

/* fakesan.copy.f16:sanitize beside item `beside` (serially, then with
 * --jobs 1), its session counting an error no window held (the fake tool's
 * late report), so that the item alone is never green: `beside` ends with
 * `state`, and when `said` is not NULL the run exits 1 with that line; then
 * the item alone must run again (no verdict reused) and exit 1. */
static void expect_no_session_vouched_beside(const char *beside, const char *state, const char *said)
{
    char *san = fake_sanitizer_env();
    for (int jobs = 0; jobs < 2; jobs++) {
        kc_cache_dir c;
        kc_cache_new(&c, "rcache-unvouched");
        char *late[] = { c.env, san, "PATH=/usr/bin:/bin", "KC_FAKE_SANITIZER=late:memcheck", NULL };
        char *both[] = { "run", "--jobs", "1", "fakesan.copy.f16:sanitize", (char *)beside, NULL };
        char *alone[] = { "run", "fakesan.copy.f16:sanitize", NULL };
        if (!jobs) memmove(both + 1, both + 3, 3 * sizeof *both);     /* serially */
        kc_proc a = kc_cache_run_line(both, late, state, beside);
        if (said) {
            cr_expect_eq(a.status, 1, "jobs %d: the run beside %s exit %d, want 1\n%s%s", jobs, beside, a.status, a.out,
                         a.err);
            cr_expect(strstr(a.out, said) || strstr(a.err, said), "jobs %d: no line says '%s':\n%s%s", jobs, said, a.out,
                      a.err);
        }
        kc_tally t;
        kc_proc b = kc_cache_run_tallied(alone, late, &t);
        cr_expect_eq(b.status, 1, "jobs %d: the run after it exit %d, want 1 (its session is never trusted)\n%s%s", jobs,
                     b.status, b.out, b.err);
        cr_expect_eq(t.cached, 0, "jobs %d: the run after it reused a verdict no session vouched for:\n%s", jobs, b.out);
        kc_proc_free(&a);
        kc_proc_free(&b);
        kc_rm_rf(c.dir);
    }
}

/* A worker that an item ends with status 0 (fixture.silent's _exit(0), which
 * no exit guard sees) never checked its sanitizer sessions' summaries: the
 * clean verdict they gave an item before is not vouched for and is not
 * kept. Before, the run beside fixture.silent kept its pass and the next
 * run reused it and exited 0. */
Test(result_cache, a_worker_an_item_ended_with_status_0_vouches_for_no_session, .timeout = 90)
{
    expect_no_session_vouched_beside("fixture.silent", "CRASH", NULL);
}

/* The same after the items: fixture.atexit0 leaves an exit handler that ends
 * its worker with status 0 whatever status the worker meant. The worker
 * finds at its end that its session counted an error no window held and
 * exits KC_WORKER_UNTRUSTED; the handler makes that 0. Before the end line
 * (worker.h) the parent took the 0 for vouched sessions: the run exited 0,
 * kept the pass, and the next run reused it. */
Test(result_cache, a_worker_whose_status_an_exit_handler_replaced_vouches_for_no_session, .timeout = 90)
{
    expect_no_session_vouched_beside("fixture.atexit0", "PASS", "exited with status 0 without its end line");
}

/* A run whose sanitizer sessions could not vouch says so in its TALLY
 * (untrusted=1, tally.h), so that no merge of it reads green where it did
 * not: a static schedule's shards (also when an exit handler,
 * fixture.atexit0's, replaced the shard's exit status with 0), and
 * `kcontract merge` of --shard K/N logs. Before, the TALLY had every
 * item clean: the merge of the logs exited 0, and the static schedule
 * exited 0 behind fixture.atexit0 (a review's find). */
Test(result_cache, a_shard_whose_sessions_could_not_vouch_is_not_green_merged, .timeout = 120)
{
    char *san = fake_sanitizer_env();
    char *env[] = { san, "PATH=/usr/bin:/bin", "KC_FAKE_SANITIZER=late:memcheck", "KC_CACHE_DIR=off", NULL };
    const char *said = "; not trusted";
    kc_proc a = kc_run_fake((char *[]){ "run", "fakesan.copy.f16:sanitize", "fakesanknown.copy.f16", "fixture.pass.00",
                                        "--jobs", "2", "--schedule", "static", NULL }, env, 60);
    cr_expect_eq(a.status, 1, "static schedule: exit %d\n%s%s", a.status, a.out, a.err);
    cr_expect(strstr(a.out, said), "static schedule: the SUMMARY does not say it:\n%s", a.out);
    cr_expect_null(strstr(a.out, "merge failed"), "static schedule: an untrusted shard is a result, not a merge "
                   "problem:\n%s", a.out);
    kc_proc b = kc_run_fake((char *[]){ "run", "fakesan.copy.f16:sanitize", "fakesanknown.copy.f16", "fixture.atexit0",
                                        "fixture.pass.00", "--jobs", "2", "--schedule", "static", NULL }, env, 60);
    cr_expect_eq(b.status, 1, "static schedule beside fixture.atexit0: exit %d\n%s%s", b.status, b.out, b.err);
    cr_expect(strstr(b.out, "exit status 0, but its counts explain 1"), "%s", b.out);
    char logs[2][512];
    for (int k = 0; k < 2; k++) {
        char shard[8];
        snprintf(shard, sizeof shard, "%d/2", k);
        kc_proc s = kc_run_fake((char *[]){ "run", "fakesan.copy.f16:sanitize", "fakesanknown.copy.f16", "fixture.pass.00",
                                            "--shard", shard, NULL }, env, 60);
        kc_tmp_path(logs[k], sizeof logs[k], "rcache", k ? "merge-1" : "merge-0");
        kc_write_file(logs[k], s.out);
        kc_proc_free(&s);
    }
    kc_proc m = kc_run_fake((char *[]){ "merge", "fakesan.copy.f16:sanitize", "fakesanknown.copy.f16", "fixture.pass.00",
                                        "--log", logs[0], "--log", logs[1], NULL }, env, 30);
    cr_expect_eq(m.status, 1, "kcontract merge: exit %d\n%s%s", m.status, m.out, m.err);
    cr_expect(strstr(m.out, said), "kcontract merge: the SUMMARY does not say it:\n%s", m.out);
    unlink(logs[0]);
    unlink(logs[1]);
    /* the reports say it too: a JUnit reader, or a --json one, sees the run not green */
    char junit[512], json[512];
    kc_tmp_path(junit, sizeof junit, "rcache", "untrusted.xml");
    kc_tmp_path(json, sizeof json, "rcache", "untrusted.jsonl");
    kc_proc r = kc_run_fake((char *[]){ "run", "fakesan.copy.f16:sanitize", "--junit", junit, "--json", json, NULL }, env,
                            60);
    cr_expect_eq(r.status, 1, "exit %d\n%s%s", r.status, r.out, r.err);
    static char x[65536], j[65536];     /* kc_out_file's buffer is one: a copy of each */
    snprintf(x, sizeof x, "%s", kc_out_file(junit));
    snprintf(j, sizeof j, "%s", kc_out_file(json));
    cr_expect(strstr(x, "tests=\"2\" failures=\"0\" errors=\"1\"") &&
                  strstr(x, "name=\"sanitizer sessions\"") && strstr(x, "<error type=\"UNTRUSTED\""),
              "the JUnit report reads green:\n%s", x);
    cr_expect(strstr(j, "\"untrusted\":1"), "the JSON summary does not say it:\n%s", j);
    unlink(junit);
    unlink(json);
    kc_proc_free(&r);
    kc_proc_free(&a);
    kc_proc_free(&b);
    kc_proc_free(&m);
}

/* A worker that wrote its end line (its sessions vouched) but then takes
 * too long to end (fixture.atexit.slow's exit handler) is stopped at its
 * end limit (KC_SANITIZE_TIMEOUT_S=1 + 20 s: no test hook, which would turn
 * the cache off), and its sessions' verdicts
 * are still kept: the run is green, and the item alone is reused next. */
Test(result_cache, a_worker_stopped_after_its_end_line_keeps_its_sessions_verdicts, .timeout = 120)
{
    char *san = fake_sanitizer_env();
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-slowend");
    char *env[] = { c.env, san, "PATH=/usr/bin:/bin", "KC_SANITIZE_TIMEOUT_S=1", NULL };
    char *both[] = { "run", "--jobs", "1", "fakesan.copy.f16:sanitize", "fixture.atexit.slow", NULL };
    char *alone[] = { "run", "fakesan.copy.f16:sanitize", NULL };
    kc_proc a = kc_cache_run_line(both, env, "PASS", "fixture.atexit.slow");
    const char *said = "it had written its end line, so its sessions vouched";
    cr_expect(strstr(a.out, said) || strstr(a.err, said), "no line says the stopped worker had vouched:\n%s%s", a.out,
              a.err);
    cr_expect_eq(a.status, 0, "the run exit %d, want 0: its sessions vouched\n%s%s", a.status, a.out, a.err);
    kc_cache_expect_reused(alone, env, 1, "the vouched :sanitize pass");
    kc_proc_free(&a);
    kc_rm_rf(c.dir);
}

/* The same where the item ends the very process it runs in: a static shard
 * runs its items in its own process, so an item that kills it reaches no
 * verdict the cache could act on. fixture.break.tally passes, but under
 * KC_BREAK_TALLY (which its key cannot see) prints that line and exits its
 * shard: the --no-cache run fails, and the next cached run must run the
 * item and fail too (before, it reused the pass and exited 0). */
Test(result_cache, a_no_cache_item_that_ends_its_static_shard_removes_the_pass, .timeout = 90)
{
    static const refresh_step st[] = {
        { 0, 0, 0, 0, "fills the cache" },
        { 1, 1, 1, -1, "--no-cache, the item ends its shard" },
        { 0, 1, 1, -1, "cached run after it: must run the item, which ends its shard again" },
    };
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-static-refresh");
    char *ok[] = { c.env, NULL }, *bad[] = { c.env, "KC_BREAK_TALLY=kc-test-shard-ends-here", NULL };
    char **env[2] = { ok, bad };
    run_steps((const char *[]){ "fixture.break.tally", "fixture.pass.00", NULL }, env, st, sizeof st / sizeof st[0], 2);
    kc_rm_rf(c.dir);
}
