/* test_break.c — a skeptical pass over issue 21's fix ("no green that was not
 * earned"): each test is a way found to make a failed run read green (exit
 * 0, a TALLY, SUMMARY or report without failures), or to break another
 * promise of docs/output-format.md ("What a run promises", "One item, one
 * line"), run through the real binaries and the items of
 * tests/fixtures/fixture_break.c. Each failed when it was written: it states
 * what the docs promise, not what the code does. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"

static kc_proc fixture(char **args) { return kc_run_fixture(args, 40); }

/* Replaces the first occurrence of from in s (in place, s has room). */
static int replace(char *s, size_t cap, const char *from, const char *to)
{
    char *p = strstr(s, from);
    if (!p) return -1;
    size_t fl = strlen(from), tl = strlen(to), rest = strlen(p + fl);
    if (strlen(s) - fl + tl + 1 > cap) return -1;
    memmove(p + tl, p + fl, rest + 1);
    memcpy(p, to, tl);
    return 0;
}

/* 1. A driver library (KC_LIBCUDA) whose constructor calls _exit(0), not
 * exit(0): the parent loads the driver itself, and no on_exit guard sees
 * _exit, so `run` of a selection with a FAIL exits 0 having printed nothing
 * (not even the FAIL), and `info` exits 0 silently. docs/output-format.md:
 * an exit in kcontract's own process before the run's end "ends it with
 * status 4, never 0"; issue 21: "an atexit guard alone cannot see _exit". */
Test(break, a_driver_library_that_calls__exit_0_when_loaded_makes_a_failing_run_exit_0, .timeout = 60)
{
    const char *lib = getenv("KC_FAKE_EXIT0_RAW");
    char env_lib[512];
    snprintf(env_lib, sizeof env_lib, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_exit0_raw.so");
    char *env[] = { env_lib, NULL };
    char *runs[][6] = { { "run", "fixture.fail", "fixture.gpu.d.pass", NULL },
                        { "run", "fixture.fail", "fixture.gpu.d.pass", "--shard", "0/1", NULL },
                        { "info", NULL } };
    for (int i = 0; i < 3; i++) {
        kc_proc p = kc_run_fixture_env(runs[i], env, 30);
        cr_expect_neq(p.status, 0, "%s %s: exit 0 (a FAIL selected) with stdout:\n%s\nstderr:\n%s", runs[i][0],
                      runs[i][1] ? runs[i][1] : "", p.out, p.err);
        kc_proc_free(&p);
    }
}

/* 2. The nonce does not stop an item from forging its result: the item runs
 * in the worker's process, so it reads the request ("name\tnonce\n", still
 * in stdin's stdio buffer), writes a sealed PASS on the hidden result pipe
 * (found through /proc/self/fd) and puts /dev/null over that pipe so the
 * worker's real FAIL reaches nobody. Serially and with --jobs: the item's
 * FAIL line is printed, yet TALLY, SUMMARY, JUnit and exit status say pass. */
Test(break, a_pass_sealed_with_the_nonce_read_from_the_workers_memory_is_taken, .timeout = 60)
{
    char junit[256], costs[256];
    kc_tmp_path(junit, sizeof junit, "break", "nonce.xml");
    kc_tmp_path(costs, sizeof costs, "break", "nonce");
    char *a[] = { "run", "fixture.break.nonce", "--junit", junit, NULL };
    /* alone on its worker: a later item's result would go to /dev/null too */
    char *b[] = { "run", "fixture.break.nonce", "--jobs", "2", "--costs", costs, "--junit", junit, NULL };
    char **runs[] = { a, b };
    for (int i = 0; i < 2; i++) {
        kc_proc p = fixture(runs[i]);
        cr_expect_eq(p.status, 1, "run %d: exit %d for an item that fails\n%s%s", i, p.status, p.out, p.err);
        kc_tally t;
        kc_out_tally(p.out, &t);
        cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 0, "run %d: the failing item counted PASS:\n%s", i, p.out);
        const char *x = kc_out_file(junit);
        cr_expect(!strstr(x, "failures=\"0\" errors=\"0\""), "run %d: a green JUnit report:\n%s", i, x);
        kc_proc_free(&p);
    }
    unlink(junit);
    unlink(costs);
    char lock[300];
    snprintf(lock, sizeof lock, "%s.lock", costs);
    unlink(lock);
}

/* 3. A fork whose child returns into its caller (an exec that failed, a
 * helper's error path without _exit: a common bug in library code) makes a
 * second worker: the child, a copy of the worker, reports the item PASS with
 * the request's nonce before the real worker's FAIL; the parent takes the
 * PASS and calls the real FAIL, which comes after, a protocol violation
 * "between items". The run exits 1 ("the run fails"), but its TALLY and
 * SUMMARY say every suite passed, its JUnit report has no failure and no
 * error, its JSON has the item PASS: the failed run reads green to every
 * reader but the exit status, and the item's real FAIL is lost. */
Test(break, a_forked_child_returning_into_the_worker_leaves_a_green_tally_and_junit_on_a_failed_run, .timeout = 60)
{
    char junit[256], json[256];
    kc_tmp_path(junit, sizeof junit, "break", "fork.xml");
    kc_tmp_path(json, sizeof json, "break", "fork.json");
    char *a[] = { "run", "fixture.break.forkreturn", "fixture.pass.00", "--junit", junit, "--json", json, NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_lt(t.n[KC_KIND_SUITE][KC_PASS], 2, "the TALLY of a failed run says every suite passed:\n%s", p.out);
    char sum[1024];
    kc_out_summary(p.out, sum, sizeof sum);
    cr_expect(!strstr(sum, "2 suites: 2 pass"),
              "the SUMMARY of a failed run reads green: %s", sum);
    const char *x = kc_out_file(junit);
    cr_expect(!strstr(x, "failures=\"0\" errors=\"0\""), "a green JUnit report for a failed run:\n%s", x);
    const char *j = kc_out_file(json);
    cr_expect(!strstr(j, "\"name\":\"fixture.break.forkreturn\",\"kind\":\"suite\",\"state\":\"PASS\""),
              "the JSON report has the failing item PASS:\n%s", j);
    kc_proc_free(&p);
    unlink(junit);
    unlink(json);
}

/* 4. --jobs N --schedule static: a shard runs its items in its own process
 * and reports its TALLY on the stdout its items share. An item that prints
 * the shard's TALLY (here an honest run's, edited to say fixture.fail
 * passed) and ends the process with _exit(0) (no exit guard sees it) gives
 * the parent exactly one well-formed TALLY and an exit status its counts
 * explain: the merged run exits 0 and says "2 suites: 2 pass, 0 fail", though
 * fixture.fail was selected and neither item finished (no item line at all
 * was printed). */
Test(break, a_static_shard_item_that_prints_a_tally_and_calls__exit_0_makes_the_run_green, .timeout = 60)
{
    char *h[] = { "run", "--shard", "0/1", "fixture.break.tally", "fixture.fail", NULL };
    kc_proc p = fixture(h);
    cr_assert_eq(p.status, 1, "the honest shard: exit %d\n%s%s", p.status, p.out, p.err);
    char env[8192] = "KC_BREAK_TALLY=";
    size_t pre = strlen(env);
    cr_assert_eq(kc_out_line(p.out, "TALLY ", env + pre, sizeof env - pre), 0, "%s", p.out);
    cr_assert_eq(replace(env, sizeof env, "suite.pass=1 suite.fail=1", "suite.pass=2 suite.fail=0"), 0, "%s", env);
    kc_proc_free(&p);
    char *envs[] = { env, NULL };
    char *a[] = { "run", "--jobs", "1", "--schedule", "static", "fixture.break.tally", "fixture.fail", NULL };
    p = kc_run_fixture_env(a, envs, 30);
    cr_expect_eq(p.status, 1, "exit %d with fixture.fail selected\n%s%s", p.status, p.out, p.err);
    cr_expect(!strstr(p.out, "\nSUMMARY ") || !strstr(p.out, "2 suites: 2 pass"), "a green SUMMARY:\n%s", p.out);
    kc_proc_free(&p);
}

/* 5. A serial or --shard run passes its items' stdout lines on unprefixed,
 * so an item's lines can stand in for the run's own TALLY and SUMMARY: an
 * item prints a finished log of its shard (here an honest one, edited to
 * say fixture.fail passed: item lines, TALLY, SUMMARY) and its parent is
 * then SIGKILLed (here by the item; the OOM killer or a scheduler's limit
 * does the same). The shard exits 137 and never ran fixture.fail, yet
 * `kcontract merge` of its saved log exits 0 with a green SUMMARY.
 * docs/output-format.md: "the parent always prints the TALLY and SUMMARY
 * itself, so item output can never stand in for them". */
/* The merge of a shard's log, saved after its parent was SIGKILLed by
 * fixture.break.forgelog, which printed an honest log edited to say
 * fixture.fail passed; on_stderr: printed on its stderr, and the log saved
 * as `2>&1` (Slurm's --output, Bazel's test.log) saves it: the parent's
 * stdout, its header alone, then that. Returns the merge's exit status. */
static int merge_of_a_forged_log(int on_stderr)
{
    char *h[] = { "run", "--shard", "0/1", "fixture.break.forgelog", "fixture.fail", NULL };
    kc_proc p = fixture(h);
    cr_assert_eq(p.status, 1, "the honest shard: exit %d\n%s%s", p.status, p.out, p.err);
    static char forged[65536];
    forged[0] = 0;
    for (char *line = strtok(p.out, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "kcontract: ", 11) == 0 || strncmp(line, "kcontract-fixture: ", 19) == 0) continue;
        if (strncmp(line, "FAIL   fixture.fail ", 20) == 0) line = "PASS   fixture.fail  suite passed  (0.00 s)";
        strncat(forged, line, sizeof forged - strlen(forged) - 2);
        strcat(forged, "\n");
    }
    kc_proc_free(&p);
    cr_assert_eq(replace(forged, sizeof forged, "suite.pass=1 suite.fail=1", "suite.pass=2 suite.fail=0"), 0, "%s", forged);
    cr_assert_eq(replace(forged, sizeof forged, "2 suites: 1 pass, 1 fail", "2 suites: 2 pass, 0 fail"), 0, "%s", forged);
    char dir[256], src[320], log[320], env[400];
    kc_tmp_dir(dir, sizeof dir, "break-forgelog");
    snprintf(src, sizeof src, "%s/forged.txt", dir);
    snprintf(log, sizeof log, "%s/shard-0.log", dir);
    kc_write_file(src, forged);
    snprintf(env, sizeof env, "KC_BREAK_LOG=%s", src);
    char *envs[] = { env, on_stderr ? "KC_BREAK_LOG_STDERR=1" : NULL, NULL };
    p = kc_run_fixture_env(h, envs, 30);
    cr_expect_eq(p.status, 137, "the shard whose parent was killed: exit %d\n%s%s", p.status, p.out, p.err);
    static char saved[2 * 65536 + 1];
    snprintf(saved, sizeof saved, "%s%s", p.out, on_stderr ? p.err : "");
    kc_write_file(log, saved);
    kc_proc_free(&p);
    char *m[] = { "merge", "fixture.break.forgelog", "fixture.fail", "--log", log, NULL };
    p = fixture(m);
    int status = p.status;
    if (status == 0) cr_log_error("merge of a shard that was killed before it finished: exit 0\n%s%s", p.out, p.err);
    kc_proc_free(&p);
    kc_rm_rf(dir);
    return status;
}

Test(break, merge_takes_a_tally_and_summary_an_item_printed_before_its_shard_was_killed, .timeout = 60)
{
    cr_expect_neq(merge_of_a_forged_log(0), 0);
}

/* 5b. The same on the item's stderr: a serial run gave an item's stdout
 * TALLY and SUMMARY lines the worker's prefix, but passed its stderr lines
 * on unprefixed, and a shard's log saved with 2>&1 (the documented Slurm
 * recipe's --output, Bazel's test.log) holds them: merge exited 0 with a
 * green SUMMARY for a shard that never ran fixture.fail (a red-team). */
Test(break, merge_takes_a_tally_and_summary_an_item_printed_on_stderr_before_its_shard_was_killed, .timeout = 60)
{
    cr_expect_neq(merge_of_a_forged_log(1), 0);
}

/* 6. One item, one line: an item whose output ends without a newline (a
 * progress "..." printf, common) gets its own state line glued to it:
 * "partial output without a newline: FAIL   fixture.break.partial ...", so
 * `grep '^FAIL'` and every line reader lose the item (and merge refuses the
 * log: its TALLY no longer adds up). Serially and with --jobs. */
Test(break, an_items_output_without_a_newline_starts_its_state_line_mid_line, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "break", "partial");
    char *a[] = { "run", "fixture.break.partial", "fixture.break.rawpartial", "fixture.pass.00", NULL };
    char *b[] = { "run", "fixture.break.partial", "fixture.break.rawpartial", "fixture.pass.00", "--jobs", "2", "--costs",
                  costs, NULL };
    char **runs[] = { a, b };
    const char *names[] = { "fixture.break.partial", "fixture.break.rawpartial" };
    for (int i = 0; i < 2; i++) {
        kc_proc p = fixture(runs[i]);
        cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
        for (int k = 0; k < 2; k++) {
            char st[16] = "";
            int n = kc_out_state_lines(p.out, names[k], st, sizeof st);
            cr_expect_eq(n, 1, "run %d: %s is on %d state lines (a line reader's count):\n%s", i, names[k], n, p.out);
            cr_expect_str_eq(st, "FAIL", "run %d: %s:\n%s", i, names[k], p.out);
        }
        kc_proc_free(&p);
    }
    unlink(costs);
}

/* 6b. What an item printed comes before its state line: the worker ends
 * the item's last line with its line marker, and the parent prints the
 * item's line once it has read it (kc_sup_drain). The marker was left in
 * the worker's stdio buffer (no flush after it, now that the worker prints
 * no item line), so output without a newline reached the log only with the
 * next item's output, after the item's line: a PASS an item printed for
 * itself came after the run's FAIL, the line a reader takes as the item's
 * (the last), and the text of one item sat among another's. */
Test(break, an_items_output_without_a_newline_comes_before_its_state_line, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "break", "lastword");
    char *a[] = { "run", "fixture.break.lastword", "fixture.break.partial", "fixture.pass.00", NULL };
    char *b[] = { "run", "fixture.break.lastword", "fixture.break.partial", "fixture.pass.00", "--jobs", "1",
                  "--costs", costs, NULL };
    char **runs[] = { a, b };
    for (int i = 0; i < 2; i++) {
        kc_proc p = fixture(runs[i]);
        cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
        char st[16] = "";
        kc_out_state_lines(p.out, "fixture.break.lastword", st, sizeof st);
        cr_expect_str_eq(st, "FAIL", "run %d: the last state line of fixture.break.lastword says %s:\n%s", i, st,
                         p.out);
        const char *text = strstr(p.out, "partial output without a newline:"),
                   *line = strstr(p.out, "FAIL   fixture.break.partial ");
        cr_expect(text && line && text < line, "run %d: fixture.break.partial's output is not before its line:\n%s",
                  i, p.out);
        kc_proc_free(&p);
    }
    unlink(costs);
}

/* 7. The parent prints no line for an item its worker reported: the worker
 * does. An item that redirects its process's stdout (dup2 of /dev/null, a
 * library's freopen of stdout to a log file) takes every later item's state
 * line with it: in a serial run the rest of the run's item lines are gone.
 * Here the log shows one line, a PASS the item printed for itself, and no
 * FAIL at all, while the SUMMARY counts 2 failed. */
Test(break, an_item_that_redirects_stdout_hides_the_state_lines_of_every_later_item, .timeout = 60)
{
    char *a[] = { "run", "fixture.break.devnull", "fixture.fail", "fixture.pass.00", NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *names[] = { "fixture.break.devnull", "fixture.fail", "fixture.pass.00" };
    const char *states[] = { "FAIL", "FAIL", "PASS" };
    for (int k = 0; k < 3; k++) {
        char st[16] = "";
        int n = kc_out_state_lines(p.out, names[k], st, sizeof st);
        cr_expect_geq(n, 1, "%s is on no state line:\n%s", names[k], p.out);
        cr_expect_str_eq(st, states[k], "%s: its last state line says %s:\n%s", names[k], st, p.out);
    }
    kc_proc_free(&p);
}

/* 8. A report on a FIFO (docs: a report may go "straight into a PATH that
 * exists and is no regular file (/dev/stdout, a pipe)"): the check before
 * the run opens it for writing and closes it, so the reader sees end of
 * file and goes; at the run's end the report's open waits for a reader for
 * ever. The run hangs after its SUMMARY (no --timeout applies) and the
 * reader got nothing. */
Test(break, a_report_on_a_fifo_reaches_its_reader_and_the_run_ends, .timeout = 60)
{
    char dir[256], fifo[320], got[320];
    kc_tmp_dir(dir, sizeof dir, "break-fifo");
    snprintf(fifo, sizeof fifo, "%s/junit.fifo", dir);
    snprintf(got, sizeof got, "%s/got.xml", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pid_t reader = fork();
    cr_assert_geq(reader, 0);
    if (reader == 0) {      /* reads one stream, to its end, into got */
        int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char buf[4096];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n) break;
        _exit(0);
    }
    char *a[] = { "run", "fixture.pass.00", "--junit", fifo, NULL };
    kc_proc p = kc_run_fixture(a, 10);
    cr_expect(!p.signaled && p.status == 0, "exit %d (killed after 10 s: %s)\n%s%s", p.status,
              p.signaled ? "yes" : "no", p.out, p.err);
    kc_proc_free(&p);
    for (int i = 0; i < 50 && waitpid(reader, NULL, WNOHANG) == 0; i++) usleep(20 * 1000);
    kill(reader, SIGKILL);
    waitpid(reader, NULL, 0);
    const char *x = kc_out_file(got);
    cr_expect(strstr(x, "<testsuites"), "the reader of the FIFO got: '%s'", x);
    kc_rm_rf(dir);
}

/* 9. A worker moves its result pipe to a descriptor at or above 64
 * (F_DUPFD_CLOEXEC, 64): under `ulimit -n 64` (or less) that fails, so no
 * worker ever starts and every item of a serial run is NOTRUN ("cannot move
 * the result pipe off fd 3: Invalid argument"): a run that passed before
 * issue 21 cannot run at all. */
Test(break, a_serial_run_under_ulimit_n_64_runs_its_items, .timeout = 60)
{
    char *argv[] = { "/bin/sh", "-c", "ulimit -n 64 && exec \"$0\" run fixture.pass.00", (char *)kc_test_fixture_bin(), NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, KC_NO_GPU_ENV, 30, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    char st[16] = "";
    kc_out_state_lines(p.out, "fixture.pass.00", st, sizeof st);
    cr_expect_str_eq(st, "PASS", "%s%s", p.out, p.err);
    kc_proc_free(&p);
}

/* An item that closes every descriptor above 2 (daemonizing code) closes
 * its worker's result pipe: its verdict cannot reach the run, which counts
 * the item CRASH. The worker used to print the verdict's line too (FAIL,
 * then the parent's CRASH): two state lines for one item, and merge
 * refused the honest log ("suite.fail: TALLY 0, item lines 1"). One line
 * now, and the log merges; a note keeps the verdict that could not reach. */
Test(break, an_item_that_closes_the_result_pipe_has_one_state_line, .timeout = 60)
{
    kc_proc p = fixture((char *[]){ "run", "--shard", "0/1", "fixture.break.closeall", NULL });
    char st[16] = "";
    int lines = kc_out_state_lines(p.out, "fixture.break.closeall", st, sizeof st);
    cr_expect(lines == 1 && strcmp(st, "CRASH") == 0, "%d state lines, the last %s; one, CRASH, expected:\n%s%s", lines,
              st, p.out, p.err);
    cr_expect(strstr(p.out, "its verdict (FAIL: fixture.break.closeall fails on purpose) cannot reach the run"),
              "%s%s", p.out, p.err);
    char dir[256], log[300];
    kc_tmp_dir(dir, sizeof dir, "closeall");
    snprintf(log, sizeof log, "%s/s0.log", dir);
    kc_write_file(log, p.out);
    kc_proc m = fixture((char *[]){ "merge", "fixture.break.closeall", "--log", log, NULL });
    cr_expect_eq(m.status, 1, "merge of the honest log: exit %d (1: its CRASH)\n%s%s", m.status, m.out, m.err);
    cr_expect_null(strstr(m.out, "merge failed"), "the honest log was refused:\n%s", m.out);
    kc_proc_free(&m);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}
