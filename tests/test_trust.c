/* test_trust.c — issue 21, "no green that was not earned": a run, a report
 * or an item can no longer claim a pass it did not earn. Each test is a case
 * of the break-it list that let a failed run read green, run through the real
 * binaries: an item that ends the process (exit(0), _exit(0)) in a serial and
 * a --shard run, a forged result line, the reports after a re-exec with no
 * writable TMPDIR, a serial run's time limit and signals, a driver library
 * whose constructor exits 0. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/live.h"
#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"

static kc_proc fixture(char **args) { return kc_run_fixture(args, 40); }

static void expect_state(const char *out, const char *name, const char *state)
{
    char st[16] = "";
    int n = kc_out_state_lines(out, name, st, sizeof st);
    cr_expect_eq(n, 1, "%s is on %d state lines:\n%s", name, n, out);
    cr_expect_str_eq(st, state, "%s:\n%s", name, out);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The break-it case: a FAIL, then an item that ends the process with status
 * 0 (_exit(0)), serially: exit 1, the second item CRASH, every item reported
 * once, the TALLY and SUMMARY there. */
Test(trust, an_item_that_exits_0_after_a_FAIL_fails_a_serial_run, .timeout = 60)
{
    char *a[] = { "run", "fixture.fail", "fixture.silent", "fixture.trust.zpass", NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_state(p.out, "fixture.fail", "FAIL");
    expect_state(p.out, "fixture.silent", "CRASH");
    expect_state(p.out, "fixture.trust.zpass", "PASS");     /* the run goes on in a fresh process */
    cr_expect(strstr(p.out, "ended the process with status 0 before the run finished"), "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-fixture: that item ended the process; continuing in a fresh process"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_CRASH], 1);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_FAIL], 1);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 1);
    kc_proc_free(&p);
}

/* exit(0) (not _exit) under an item, in a --shard K/N run (the unit of the
 * Slurm and Bazel recipes) and serially alone: CRASH, the exit guard's words
 * in its tail, the run fails, and the JUnit report counts it. */
Test(trust, exit_0_under_an_item_fails_a_shard_and_its_junit, .timeout = 60)
{
    char junit[256];
    kc_tmp_path(junit, sizeof junit, "trust", "exit0.xml");
    char *a[] = { "run", "fixture.trust.exit0", "--shard", "0/1", "--junit", junit, NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_state(p.out, "fixture.trust.exit0", "CRASH");
    cr_expect(strstr(p.out, "exit(0) called while running item fixture.trust.exit0: the process ended before the run "
                            "finished") || strstr(p.err, "exit(0) called while running item fixture.trust.exit0"),
              "%s%s", p.out, p.err);
    cr_expect(strstr(p.out, "    | fixture.trust.exit0: calling exit(0)"), "its own line in its tail:\n%s", p.out);
    const char *x = kc_out_file(junit);
    cr_expect(strstr(x, "tests=\"1\"") && !strstr(x, "failures=\"0\" errors=\"0\""), "%s", x);
    kc_proc_free(&p);
    unlink(junit);
}

/* An item that writes a PASS of its own on fd 3 (the worker's result
 * descriptor before issue 21) reaches nobody: its real FAIL stands, serially
 * and on a --jobs worker. */
Test(trust, a_pass_forged_on_fd_3_is_not_taken, .timeout = 60)
{
    char *a[] = { "run", "fixture.trust.forge3", NULL };
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "trust", "forge3");
    char *b[] = { "run", "fixture.trust.forge3", "fixture.pass.00", "--jobs", "2", "--costs", costs, NULL };
    char **runs[] = { a, b };
    for (int i = 0; i < 2; i++) {
        kc_proc p = fixture(runs[i]);
        cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
        expect_state(p.out, "fixture.trust.forge3", "FAIL");
        cr_expect(!strstr(p.out, "forged  ("), "%s", p.out);
        kc_proc_free(&p);
    }
    unlink(costs);
}

/* An item that finds the worker's real result pipe and writes a PASS on it:
 * the line lacks its request's nonce, so the item is CRASH "protocol
 * violated", serially and with --jobs; never PASS. */
Test(trust, a_pass_forged_on_the_result_pipe_is_a_protocol_violation, .timeout = 60)
{
    char *a[] = { "run", "fixture.trust.forgepipe", "fixture.pass.00", NULL };
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "trust", "forgepipe");
    char *b[] = { "run", "fixture.trust.forgepipe", "fixture.pass.00", "--jobs", "2", "--costs", costs, NULL };
    char **runs[] = { a, b };
    for (int i = 0; i < 2; i++) {
        kc_proc p = fixture(runs[i]);
        cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
        /* The worker may print its own line before it is stopped; the run's
         * line for the item, the last, is CRASH, and so is its count. */
        char st[16] = "";
        cr_expect_geq(kc_out_state_lines(p.out, "fixture.trust.forgepipe", st, sizeof st), 1);
        cr_expect_str_eq(st, "CRASH", "%s", p.out);
        expect_state(p.out, "fixture.pass.00", "PASS");
        kc_tally t;
        kc_out_tally(p.out, &t);
        cr_expect_eq(t.n[KC_KIND_SUITE][KC_CRASH], 1, "%s", p.out);
        cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 1, "%s", p.out);
        cr_expect_eq(t.n[KC_KIND_SUITE][KC_FAIL], 0, "%s", p.out);
        cr_expect(strstr(p.out, "protocol violated: a result line without its item's nonce"), "%s", p.out);
        cr_expect(!strstr(p.err, "cannot go from") && !strstr(p.out, "cannot go from"),
                  "a worker's phase change was refused (worker_phase.h):\n%s%s", p.out, p.err);
        kc_proc_free(&p);
    }
    unlink(costs);
}

/* The break-it case: a lost CUDA context with no writable TMPDIR. The run's
 * parent holds the records, so the JUnit report has every item and counts
 * the failing ones. */
Test(trust, junit_after_a_lost_context_without_tmpdir_has_every_item, .timeout = 60)
{
    char junit[256], env_tmp[] = "TMPDIR=/nonexistent";
    kc_tmp_path(junit, sizeof junit, "trust", "reexec.xml");
    char *env[] = { env_tmp, NULL };
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.axpy.f32*", "--junit", junit, NULL }, env, 60);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "continuing in a fresh process"), "a context was lost:\n%s", p.out);
    const char *x = kc_out_file(junit);
    cr_expect(strstr(x, "tests=\"7\""), "%s\n%s", x, p.out);
    cr_expect(!strstr(x, "failures=\"0\" errors=\"0\""), "%s", x);
    cr_expect(!strstr(x, "INCOMPLETE"), "%s", x);
    kc_proc_free(&p);
    unlink(junit);
}

/* --timeout in a serial run and a --shard K/N run: the hanging item is
 * TIMEOUT within seconds, the next one runs, the run fails. */
Test(trust, timeout_applies_to_serial_and_shard_runs, .timeout = 60)
{
    char *a[] = { "run", "fixture.hang.0", "fixture.pass.00", "--timeout", "1", NULL };
    char *b[] = { "run", "fixture.hang.0", "fixture.pass.00", "--timeout", "1", "--shard", "0/1", NULL };
    char **runs[] = { a, b };
    for (int i = 0; i < 2; i++) {
        double t0 = mono();
        kc_proc p = fixture(runs[i]);
        double took = mono() - t0;
        cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
        expect_state(p.out, "fixture.hang.0", "TIMEOUT");
        expect_state(p.out, "fixture.pass.00", "PASS");
        cr_expect_lt(took, 10, "took %.1f s", took);
        kc_proc_free(&p);
    }
}

static int hang_started(const kc_live *l) { return strstr(l->out, "fixture.leak.hang pid ") != NULL; }
static int never(const kc_live *l) { (void)l; return 0; }

/* SIGTERM to a serial run while its item hangs with a helper in a session of
 * its own: the run ends within seconds with 128 + 15, the item NOTRUN, and
 * the helper is gone (it was reparented to init before issue 21). */
Test(trust, sigterm_ends_a_serial_run_and_what_its_item_started, .timeout = 60)
{
    char *args[] = { "run", "fixture.leak.hang", NULL };
    kc_live l;
    kc_live_start(&l, kc_test_fixture_bin(), args);
    cr_assert_eq(kc_live_read_until(&l, hang_started, 10), 0, "fixture.leak.hang did not start:\n%s", l.out);
    const char *g = strstr(l.out, "fixture.leak.hang: grandchild pid ");
    cr_assert(g, "%s", l.out);
    pid_t helper = (pid_t)atol(g + strlen("fixture.leak.hang: grandchild pid "));
    double t0 = mono();
    cr_assert_eq(kill(l.pid, SIGTERM), 0);
    kc_live_read_until(&l, never, 20);
    int st = kc_wait_status(l.pid);
    cr_expect_eq(st, 143, "exit %d\n%s", st, l.out);
    cr_expect_lt(mono() - t0, 5);
    expect_state(l.out, "fixture.leak.hang", "NOTRUN");
    cr_expect(strstr(l.out, "\nTALLY v=4 "), "%s", l.out);
    usleep(200 * 1000);
    cr_expect(!kc_alive(helper), "the helper %ld outlived the run", (long)helper);
    close(l.fd);
}

static int both_passed(const kc_live *l) { return strstr(l->out, "PASS   fixture.pass.00") != NULL; }

/* SIGTERM to a --shard run (serially and with --jobs 1) after its every item
 * passed, while its worker is still ending (fixture.atexit.slow: an exit
 * handler that takes 60 s, as a CUDA context's teardown can): the run exits
 * 143, and its log, its --junit and its --json must not read green either,
 * nor a merge of its log. Before, the TALLY and the reports were a finished
 * run's (every item PASS), and `merge` of the log exited 0 where the shard
 * exited 143. */
Test(trust, a_run_interrupted_after_its_items_is_not_green_in_its_log_or_reports, .timeout = 90)
{
    char dir[512];
    kc_tmp_dir(dir, sizeof dir, "intr");
    for (int jobs = 0; jobs < 2; jobs++) {
        char junit[700], json[700], logp[700];
        snprintf(junit, sizeof junit, "%s/r%d.xml", dir, jobs);
        snprintf(json, sizeof json, "%s/r%d.json", dir, jobs);
        snprintf(logp, sizeof logp, "%s/shard%d.log", dir, jobs);
        char *serial[] = { "run", "fixture.atexit.slow", "fixture.pass.00", "--shard", "0/1", "--junit", junit,
                           "--json", json, NULL };
        char *queue[] = { "run", "fixture.atexit.slow", "fixture.pass.00", "--shard", "0/1", "--jobs", "1", "--junit",
                          junit, "--json", json, NULL };
        kc_live l;
        kc_live_start(&l, kc_test_fixture_bin(), jobs ? queue : serial);
        cr_assert_eq(kc_live_read_until(&l, both_passed, 20), 0, "jobs %d: the items did not pass:\n%s", jobs, l.out);
        usleep(200 * 1000);                                     /* the worker is in its exit handler */
        cr_assert_eq(kill(l.pid, SIGTERM), 0);
        kc_live_read_until(&l, never, 20);
        int st = kc_wait_status(l.pid);
        close(l.fd);
        cr_expect_eq(st, 143, "jobs %d: exit %d\n%s", jobs, st, l.out);
        cr_assert(strstr(l.out, "\nTALLY v=4 "), "jobs %d: %s", jobs, l.out);
        cr_expect(strstr(l.out, " untrusted=1 ") && strstr(l.out, "; not trusted (a line above says why)"),
                  "jobs %d: the TALLY and SUMMARY of an interrupted run read green:\n%s", jobs, l.out);
        const char *x = kc_out_file(junit);
        cr_expect(strstr(x, "name=\"interrupted\"") && strstr(x, "<error type=\"INTERRUPTED\"") &&
                  strstr(x, "errors=\"1\""), "jobs %d: the JUnit report reads green:\n%s", jobs, x);
        const char *j = kc_out_file(json);
        cr_expect(strstr(j, "\"untrusted\":1"), "jobs %d: the JSON report reads green:\n%s", jobs, j);
        kc_write_file(logp, l.out);
        char *merge[] = { "merge", "fixture.atexit.slow", "fixture.pass.00", "--log", logp, NULL };
        kc_proc p = fixture(merge);
        cr_expect_eq(p.status, 1, "jobs %d: the merge of an interrupted shard's log: exit %d\n%s%s", jobs, p.status,
                     p.out, p.err);
        kc_proc_free(&p);
    }
    kc_rm_rf(dir);
}

/* A driver library (KC_LIBCUDA) whose constructor calls exit(0): `info` and
 * `run` fail and say so, never exit 0 silently (the driver is loaded in a
 * child that probes it; test_break.c has the _exit(0) twin). */
Test(trust, a_driver_library_that_exits_0_when_loaded_fails_info_and_run, .timeout = 60)
{
    const char *lib = getenv("KC_FAKE_EXIT0");
    char env_lib[512];
    snprintf(env_lib, sizeof env_lib, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_exit0.so");
    char *env[] = { env_lib, NULL };
    char *runs[][4] = { { "info", NULL }, { "run", "fixture.gpu.d.pass", NULL } };
    for (int i = 0; i < 2; i++) {
        kc_proc p = kc_run_fixture_env(runs[i], env, 30);
        cr_expect_neq(p.status, 0, "%s: exit %d\n%s%s", runs[i][0], p.status, p.out, p.err);
        cr_expect(strstr(p.err, "loading the CUDA driver (") && strstr(p.err, "ended the process"), "%s: %s%s",
                  runs[i][0], p.out, p.err);
        kc_proc_free(&p);
    }
}

/* A CRASH's tail is that item's output only: the line an earlier item on the
 * same worker printed is not in it (serially and with --jobs 1). */
Test(trust, a_crash_tail_holds_only_that_items_lines, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "trust", "tail");
    char *a[] = { "run", "fixture.trust.chatty", "fixture.trust.exit0", NULL };
    char *b[] = { "run", "fixture.trust.chatty", "fixture.trust.exit0", "--jobs", "1", "--costs", costs, NULL };
    char **runs[] = { a, b };
    for (int i = 0; i < 2; i++) {
        kc_proc p = fixture(runs[i]);
        cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
        const char *crash = strstr(p.out, "CRASH  fixture.trust.exit0");
        cr_assert(crash, "%s", p.out);
        cr_expect(strstr(crash, "| fixture.trust.exit0: calling exit(0)") || strstr(crash, "| [w0] fixture.trust.exit0"),
                  "%s", p.out);
        cr_expect(!strstr(crash, "| fixture.trust.chatty") && !strstr(crash, "| [w0] fixture.trust.chatty"),
                  "an earlier item's line in the tail:\n%s", p.out);
        kc_proc_free(&p);
    }
    unlink(costs);
}

/* An item whose time limit runs out as it ends had two state lines: its
 * worker printed its verdict (SKIP, PASS), and the parent, past the limit
 * before the result came, printed TIMEOUT (a new user's find, --timeout
 * 1e-9: two or three items of seven every run). Now a worker sends its line
 * with its result and the parent prints one line per item, the verdict it
 * took or its own, in every mode; the TALLY counts what the lines say. */
Test(trust, an_item_whose_limit_runs_out_as_it_ends_has_one_state_line, .timeout = 120)
{
    const char *names[] = { "fixture.pass.00", "fixture.pass.01", "fixture.pass.02", "fixture.pass.03", "fixture.pass.04",
                            "fixture.pass.05", "fixture.pass.06", "fixture.pass.07", "fixture.pass.08", "fixture.pass.09" };
    const char *modes[][5] = { { NULL }, { "--jobs", "2", NULL }, { "--jobs", "2", "--inflight", "2", NULL },
                               { "--shard", "0/1", NULL } };
    for (int m = 0; m < 4; m++)
        for (int round = 0; round < 3; round++) {
            char *a[24] = { "run", "fixture.pass.0*", "--timeout", "1e-9", "--no-cache" };
            int n = 5;
            for (int k = 0; modes[m][k]; k++) a[n++] = (char *)modes[m][k];
            kc_proc p = fixture(a);
            int timeouts = 0, passes = 0;
            for (int i = 0; i < 10; i++) {
                char st[16] = "";
                int lines = kc_out_state_lines(p.out, names[i], st, sizeof st);
                cr_expect_eq(lines, 1, "mode %d round %d: %s is on %d state lines:\n%s", m, round, names[i], lines,
                             p.out);
                timeouts += strcmp(st, "TIMEOUT") == 0;
                passes += strcmp(st, "PASS") == 0;
            }
            kc_tally t;
            kc_out_tally(p.out, &t);
            long tt = t.n[KC_KIND_SUITE][KC_TIMEOUT], tp = t.n[KC_KIND_SUITE][KC_PASS];
            cr_expect_eq(tt, timeouts, "mode %d round %d: TALLY %ld TIMEOUT, lines %d:\n%s", m, round, tt, timeouts,
                         p.out);
            cr_expect_eq(tp, passes, "mode %d round %d: TALLY %ld PASS, lines %d:\n%s", m, round, tp, passes, p.out);
            kc_proc_free(&p);
        }
}
