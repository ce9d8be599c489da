/* test_jobs.c — `run --jobs N` with real processes and real signals, through
 * the fixture binary on a machine with no GPU: the merged TALLY equals the
 * serial one; --jobs 1 prints each line once; a crashed or silent shard fails
 * the merge, names the shard and stops the others; malformed and duplicate
 * TALLY lines are refused; a line over 64 KiB is cut and its shard's TALLY
 * still counts; SIGINT and SIGTERM reach every child; killing the parent
 * with SIGKILL leaves no child alive a second later; a child whose parent is
 * not --parent refuses to run. All with --schedule static (the slice-per-child
 * schedule; test_queue.c covers the default work queue). */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/live.h"
#include "support/spawn.h"
#include "tally.h"


static kc_proc fixture(char **args) { return kc_run_fixture(args, 30); }

/* The unprefixed line starting with `key` ("TALLY ", "SUMMARY "), copied. */


/* The SUMMARY without its trailing "  (N.N s)". */


Test(jobs, merged_tally_equals_serial, .timeout = 30)
{
    char *serial_args[] = { "run", "fixture.pass.*", "fixture.fail", "--seed", "9", NULL };
    char *jobs_args[] = { "run", "fixture.pass.*", "fixture.fail", "--seed", "9", "--jobs", "3", "--schedule", "static", NULL };
    kc_proc s = fixture(serial_args), j = fixture(jobs_args);
    kc_tally ts, tj;
    kc_out_tally(s.out, &ts);
    kc_out_tally(j.out, &tj);
    cr_expect(kc_tally_counts_equal(&ts, &tj), "serial and --jobs 3 tallies differ:\n%s\n---\n%s", s.out, j.out);
    cr_expect_eq(tj.shard_k, 0);
    cr_expect_eq(tj.shard_n, 1);
    cr_expect_eq(tj.items, 13);
    char ss[1024], sj[1024];
    kc_out_summary(s.out, ss, sizeof ss);
    kc_out_summary(j.out, sj, sizeof sj);
    cr_expect_str_eq(sj, ss);
    cr_expect_eq(s.status, 1, "fixture.fail fails");
    cr_expect_eq(j.status, s.status, "--jobs exit %d, serial %d\n%s", j.status, s.status, j.out);
    for (int k = 0; k < 3; k++) {
        char pre[32];
        snprintf(pre, sizeof pre, "\n[%d/3] TALLY v=4 ", k);
        cr_expect_eq(kc_out_count(j.out, pre), 1, "shard %d's TALLY, prefixed:\n%s", k, j.out);
    }
    cr_expect_eq(kc_out_count(j.out, "FAIL   fixture.fail "), 1, "%s", j.out);
    cr_expect_eq(kc_out_count(j.out, "PASS   fixture.pass.07 "), 1, "%s", j.out);
    kc_proc_free(&s);
    kc_proc_free(&j);
}

Test(jobs, jobs_1_prints_each_line_once, .timeout = 30)
{
    char *args[] = { "run", "fixture.pass.0*", "--jobs", "1", "--schedule", "static", NULL };
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    for (int i = 0; i < 10; i++) {
        char name[64];
        snprintf(name, sizeof name, "PASS   fixture.pass.0%d ", i);
        cr_expect_eq(kc_out_count(p.out, name), 1, "%s\n%s", name, p.out);
    }
    cr_expect_eq(kc_out_count(p.out, "TALLY v=4"), 2, "the child's and the merged one:\n%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "\n[0/1] TALLY v=4"), 1, "%s", p.out);
    kc_proc_free(&p);
}

Test(jobs, more_jobs_than_items, .timeout = 30)
{
    char *args[] = { "run", "fixture.pass.00", "fixture.pass.01", "--jobs", "4", "--schedule", "static", NULL };
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "[3/4] kcontract-fixture: shard 3/4 is empty"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.items, 2);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 2);
    kc_proc_free(&p);
}

Test(jobs, crashed_shard_fails_merge_and_stops_the_others, .timeout = 30)
{
    /* Sorted: crash, hang.0, hang.1, hang.2: shard 0 crashes at once, 1 and 2 hang. */
    char *args[] = { "run", "fixture.crash", "fixture.hang.*", "--jobs", "3", "--schedule", "static", NULL };
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: shard 0/3 did not finish (killed by signal 11 (SIGSEGV)); stopping shards 1/3, 2/3"),
              "%s", p.out);
    cr_expect(strstr(p.out, "shard 0/3: no TALLY: killed by signal 11 (SIGSEGV)"), "%s", p.out);
    cr_expect(strstr(p.out, "shard 1/3: no TALLY: killed by signal 15 (SIGTERM) after kcontract stopped it"), "%s", p.out);
    cr_expect(!strstr(p.out, "\nTALLY ") && !strstr(p.out, "\nSUMMARY "), "no merged TALLY for a failed run:\n%s", p.out);
    kc_proc_free(&p);
}

Test(jobs, shard_ignoring_sigterm_is_killed_after_the_grace, .timeout = 30)
{
    /* Sorted: latecrash (shard 0, aborts after 800 ms), stubborn (shard 1, ignores SIGTERM). */
    char *args[] = { "run", "fixture.latecrash", "fixture.stubborn", "--jobs", "2", "--schedule", "static", NULL };
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "[1/2] fixture.stubborn pid "), "stubborn had not started:\n%s", p.out);
    cr_expect(strstr(p.out, "shard 0/2 did not finish (killed by signal 6 (SIGABRT)); stopping shard 1/2 (SIGTERM, SIGKILL after 2000 ms)"),
              "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-fixture: shard 1/2 did not stop within 2000 ms; killed (SIGKILL)"), "%s", p.out);
    cr_expect(strstr(p.out, "shard 1/2: no TALLY: killed by signal 9 (SIGKILL) after kcontract stopped it"), "%s", p.out);
    kc_proc_free(&p);
}

Test(jobs, silent_shard_fails_merge, .timeout = 30)
{
    /* Sorted: hang.0 (shard 0, hangs), silent (shard 1, exits 0 without a TALLY). */
    char *args[] = { "run", "fixture.silent", "fixture.hang.0", "--jobs", "2", "--schedule", "static", NULL };
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "shard 1/2 did not finish (exited with status 0 without a TALLY); stopping shard 0/2"), "%s",
              p.out);
    cr_expect(strstr(p.out, "shard 1/2: no TALLY: exited with status 0 without a TALLY"), "%s", p.out);
    kc_proc_free(&p);
}

Test(jobs, malformed_and_duplicate_tally_refused, .timeout = 30)
{
    char *a1[] = { "run", "fixture.badtally", "fixture.pass.00", "--jobs", "2", "--schedule", "static", NULL };
    kc_proc p = fixture(a1);
    cr_expect_eq(p.status, 1, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "shard 0/2: malformed TALLY: bad number 'zero' for kernel.pass"), "%s", p.out);
    cr_expect(!strstr(p.out, "\nTALLY "), "a malformed TALLY never counts:\n%s", p.out);
    kc_proc_free(&p);
    char *a2[] = { "run", "fixture.duptally", "fixture.pass.00", "--jobs", "2", "--schedule", "static", NULL };
    p = fixture(a2);
    cr_expect_eq(p.status, 1, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "shard 0/2: printed 2 TALLY lines"), "%s", p.out);
    kc_proc_free(&p);
}

Test(jobs, long_line_cut_and_tally_still_counts, .timeout = 30)
{
    char *args[] = { "run", "fixture.bigline", "fixture.pass.0*", "--jobs", "2", "--schedule", "static", NULL };
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 0, "exit %d\n%.2000s", p.status, p.out);
    const char *marker = " [... cut 3080192 bytes]\n";     /* 3 MiB line, 64 KiB kept */
    const char *m = strstr(p.out, marker);
    cr_assert(m, "no cut marker in the output");
    const char *start = m;
    while (start > p.out && start[-1] != '\n') start--;
    cr_expect_eq(strncmp(start, "[0/2] BIGLINE xxx", 17), 0, "%.40s", start);
    cr_expect_eq((size_t)(m - start), strlen("[0/2] ") + 65536, "kept %zu bytes", (size_t)(m - start));
    cr_expect_lt(p.out_len, 100000, "the 3 MiB line must not be passed on whole");
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 11, "bigline + 10 passes");
    kc_proc_free(&p);
}




static int three_pids(const kc_live *l) { return kc_out_count(l->out, " pid ") >= 3; }
static int never(const kc_live *l) { (void)l; return 0; }




static void start_three_hangs(kc_live *l, pid_t pids[3])
{
    char *args[] = { "run", "fixture.hang.*", "--jobs", "3", "--schedule", "static", NULL };
    kc_live_start(l, kc_test_fixture_bin(), args);
    cr_assert_eq(kc_live_read_until(l, three_pids, 10), 0, "the three hang fixtures did not start:\n%s", l->out);
    cr_assert_eq(kc_live_pids(l, pids, 3), 3);
    for (int i = 0; i < 3; i++) cr_assert(kc_alive(pids[i]), "child %ld is not running", (long)pids[i]);
}

Test(jobs, sigkill_of_parent_leaves_no_child, .timeout = 30)
{
    kc_live l;
    pid_t pids[3];
    start_three_hangs(&l, pids);
    cr_assert_eq(kill(l.pid, SIGKILL), 0);
    cr_expect_eq(kc_wait_status(l.pid), 128 + SIGKILL);
    sleep(1);
    for (int i = 0; i < 3; i++) cr_expect(!kc_alive(pids[i]), "child %ld outlived its parent by 1 s", (long)pids[i]);
    close(l.fd);
}

static void interrupt_reaches_every_child(int signo, const char *name)
{
    kc_live l;
    pid_t pids[3];
    start_three_hangs(&l, pids);
    cr_assert_eq(kill(l.pid, signo), 0);
    kc_live_read_until(&l, never, 10);       /* to the end of its output */
    cr_expect_eq(kc_wait_status(l.pid), 128 + signo, "%s", l.out);
    for (int k = 0; k < 3; k++) {
        char want[128];
        snprintf(want, sizeof want, "kcontract-fixture: shard %d/3 stopped: killed by signal %d (%s)", k, signo, name);
        cr_expect(strstr(l.out, want), "want '%s' in:\n%s", want, l.out);
    }
    char want[128];
    snprintf(want, sizeof want, "interrupted by %s: 0 shards finished, 3 stopped", name);
    cr_expect(strstr(l.out, want), "%s", l.out);
    for (int i = 0; i < 3; i++) cr_expect(!kc_alive(pids[i]), "child %ld still alive", (long)pids[i]);
    close(l.fd);
}

Test(jobs, sigint_reaches_every_child, .timeout = 30) { interrupt_reaches_every_child(SIGINT, "SIGINT"); }
Test(jobs, sigterm_reaches_every_child, .timeout = 30) { interrupt_reaches_every_child(SIGTERM, "SIGTERM"); }

/* Both hangs started and shard 2 finished. */
static int two(const kc_live *x) { return kc_out_count(x->out, " pid ") >= 2 && strstr(x->out, "kcontract-fixture: shard 2/3 finished in "); }

Test(jobs, interrupt_reports_finished_shards, .timeout = 30)
{
    /* Sorted: hang.0, hang.1, pass.00: shards 0 and 1 hang until the SIGINT, shard 2 finishes. */
    char *args[] = { "run", "fixture.pass.00", "fixture.hang.0", "fixture.hang.1", "--jobs", "3", "--schedule", "static", NULL };
    kc_live l;
    kc_live_start(&l, kc_test_fixture_bin(), args);
    cr_assert_eq(kc_live_read_until(&l, two, 10), 0, "%s", l.out);
    cr_assert_eq(kill(l.pid, SIGINT), 0);
    kc_live_read_until(&l, never, 10);
    cr_expect_eq(kc_wait_status(l.pid), 130, "%s", l.out);
    cr_expect(strstr(l.out, "kcontract-fixture: shard 2/3 finished (exit status 0)\n"), "%s", l.out);
    cr_expect(strstr(l.out, "kcontract-fixture: shard 0/3 stopped") && strstr(l.out, "kcontract-fixture: shard 1/3 stopped"), "%s", l.out);
    cr_expect(strstr(l.out, "interrupted by SIGINT: 1 shard finished, 2 stopped"), "%s", l.out);
    close(l.fd);
}

Test(jobs, child_refuses_without_its_parent, .timeout = 30)
{
    char wrong[32], right[32];
    snprintf(wrong, sizeof wrong, "%ld", (long)getpid() + 100000);
    char *a1[] = { "run", "fixture.pass.00", "--parent", wrong, NULL };
    kc_proc p = fixture(a1);
    cr_expect_eq(p.status, 2, "exit %d\n%s", p.status, p.out);
    char want[160];
    snprintf(want, sizeof want, "--parent %s: this process's parent is %ld, not %s", wrong, (long)getpid(), wrong);
    cr_expect(strstr(p.err, want), "want '%s' in:\n%s", want, p.err);
    cr_expect(!strstr(p.out, "PASS"), "it ran anyway:\n%s", p.out);
    kc_proc_free(&p);
    snprintf(right, sizeof right, "%ld", (long)getpid());
    char *a2[] = { "run", "fixture.pass.00", "--parent", right, NULL };
    p = fixture(a2);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
}
