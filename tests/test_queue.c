/* test_queue.c — the --jobs work queue with real processes, real signals and
 * the fixture binary (no GPU): its TALLY and SUMMARY equal the serial run's;
 * every item is on exactly one state line; a crashing worker turns its item
 * into CRASH naming the signal, a fresh worker takes over; a hanging item
 * becomes TIMEOUT (SIGKILL for one that ignores SIGTERM) and the run goes on;
 * restarts are capped; --fail-fast leaves the rest NOTRUN; the cost table is
 * written with the measured figures and orders the next run; SIGINT reaches
 * every worker; SIGKILL of the parent leaves no worker alive. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "costs.h"
#include "support/run_output.h"
#include "support/live.h"
#include "support/spawn.h"
#include "tally.h"


static kc_proc fixture(char **args) { return kc_run_fixture(args, 40); }

static void expect_once(const char *out, const char *name, const char *state)
{
    char st[16] = "";
    int n = kc_out_state_lines(out, name, st, sizeof st);
    cr_expect_eq(n, 1, "%s is on %d state lines:\n%s", name, n, out);
    if (state) cr_expect_str_eq(st, state, "%s", name);
}

/* The queue never made a change of phase its table refuses (worker_phase.h). */
static void expect_phases_kept(const kc_proc *p)
{
    cr_expect(!strstr(p->err, "cannot go from") && !strstr(p->out, "cannot go from"),
              "a worker's phase change was refused:\n%s%s", p->out, p->err);
}

static const char *pass_name(int i)
{
    static char buf[12][32];
    snprintf(buf[i], sizeof buf[i], "fixture.pass.%02d", i);
    return buf[i];
}

Test(queue, tally_and_summary_equal_serial, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "eq");
    char *sa[] = { "run", "fixture.pass.*", "fixture.fail", "fixture.cost.0*", "--seed", "9", NULL };
    char *ja[] = { "run", "fixture.pass.*", "fixture.fail", "fixture.cost.0*", "--seed", "9", "--jobs", "3", "--costs", costs, NULL };
    kc_proc s = fixture(sa), j = fixture(ja);
    kc_tally ts, tj;
    kc_out_tally(s.out, &ts);
    kc_out_tally(j.out, &tj);
    cr_expect(kc_tally_counts_equal(&ts, &tj), "serial and queue tallies differ:\n%s\n---\n%s", s.out, j.out);
    cr_expect_eq(tj.items, 23);
    cr_expect_eq(tj.shard_n, 1);
    char ss[1024], sj[1024];
    kc_out_summary(s.out, ss, sizeof ss);
    kc_out_summary(j.out, sj, sizeof sj);
    cr_expect_str_eq(sj, ss);
    cr_expect_eq(s.status, 1);
    cr_expect_eq(j.status, s.status, "%s", j.out);
    for (int i = 0; i < 12; i++) expect_once(j.out, pass_name(i), "PASS");
    expect_once(j.out, "fixture.fail", "FAIL");
    cr_expect(strstr(j.out, "[w"), "worker lines are prefixed:\n%s", j.out);
    cr_expect(strstr(j.out, "a work queue of 3 workers"), "%s", j.out);
    /* The second run reads the table: fixture.fail failed, so it goes first. */
    kc_proc j2 = fixture(ja);
    cr_expect(strstr(j2.out, "costs "), "%s", j2.out);
    cr_expect(strstr(j2.out, "23 of 23 measured"), "%s", j2.out);
    kc_tally t2;
    kc_out_tally(j2.out, &t2);
    cr_expect(kc_tally_counts_equal(&ts, &t2), "second run:\n%s", j2.out);
    kc_proc_free(&s);
    kc_proc_free(&j);
    kc_proc_free(&j2);
    unlink(costs);
}

Test(queue, jobs_1_and_more_workers_than_items, .timeout = 30)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "one");
    char *a[] = { "run", "fixture.pass.0*", "--jobs", "1", "--costs", costs, NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    for (int i = 0; i < 10; i++) expect_once(p.out, pass_name(i), "PASS");
    cr_expect(strstr(p.out, "a work queue of 1 worker,"), "%s", p.out);
    kc_proc_free(&p);
    char *b[] = { "run", "fixture.pass.00", "fixture.pass.01", "--jobs", "8", "--costs", costs, NULL };
    p = fixture(b);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "a work queue of 2 workers"), "no more workers than items:\n%s", p.out);
    kc_proc_free(&p);
    unlink(costs);
}

Test(queue, crashing_workers_become_CRASH_and_every_item_is_reported_once, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "crash");
    char *a[] = { "run", "fixture.pass.*", "fixture.crash", "fixture.kill", "fixture.latecrash", "fixture.silent",
                  "fixture.fail", "--jobs", "2", "--costs", costs, NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    for (int i = 0; i < 12; i++) expect_once(p.out, pass_name(i), "PASS");
    expect_once(p.out, "fixture.fail", "FAIL");
    expect_once(p.out, "fixture.crash", "CRASH");
    expect_once(p.out, "fixture.kill", "CRASH");
    expect_once(p.out, "fixture.latecrash", "CRASH");
    expect_once(p.out, "fixture.silent", "CRASH");
    cr_expect(strstr(p.out, "killed by signal 11 (SIGSEGV) while running it"), "%s", p.out);
    cr_expect(strstr(p.out, "killed by signal 9 (SIGKILL) while running it"), "%s", p.out);
    cr_expect(strstr(p.out, "killed by signal 6 (SIGABRT) while running it"), "%s", p.out);
    cr_expect(strstr(p.out, "ended the process with status 0 before the run finished"), "%s", p.out);
    cr_expect(strstr(p.out, "    | [w") && strstr(p.out, "fixture.kill: about to die by SIGKILL"),
              "the worker's last lines follow a CRASH:\n%s", p.out);
    cr_expect(strstr(p.out, "rerun: "), "%s", p.out);
    cr_expect(strstr(p.out, "restarted (pid "), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_CRASH], 4);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 12);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_FAIL], 1);
    cr_expect_eq(t.items, 17);
    char sum[1024];
    kc_out_summary(p.out, sum, sizeof sum);
    cr_expect(strstr(sum, "4 crashed"), "%s", sum);
    expect_phases_kept(&p);
    kc_proc_free(&p);
    unlink(costs);
}

Test(queue, hanging_item_becomes_TIMEOUT_and_the_run_goes_on, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "hang");
    char *a[] = { "run", "fixture.hang.0", "fixture.stubborn", "fixture.pass.0*", "--jobs", "2", "--timeout", "1",
                  "--costs", costs, NULL };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kc_proc p = fixture(a);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_once(p.out, "fixture.hang.0", "TIMEOUT");
    expect_once(p.out, "fixture.stubborn", "TIMEOUT");
    for (int i = 0; i < 10; i++) expect_once(p.out, pass_name(i), "PASS");
    cr_expect(strstr(p.out, "exceeded its time limit of 1 s"), "%s", p.out);
    cr_expect(strstr(p.out, "SIGKILL after 2000 ms); the worker's processes then: none\n"), "they start none:\n%s", p.out);
    cr_expect(strstr(p.out, "got SIGTERM, then SIGKILL after the grace"), "stubborn ignores SIGTERM:\n%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_TIMEOUT], 2);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 10);
    cr_expect_lt(wall, 10, "took %.1f s", wall);
    expect_phases_kept(&p);
    kc_proc_free(&p);
    unlink(costs);
}

Test(queue, restarts_are_capped, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "cap");
    /* By name (no costs recorded, equal estimates): crash, kill, pass.*: two crashes, cap 1. */
    char *a[] = { "run", "fixture.crash", "fixture.kill", "fixture.pass.*", "--jobs", "1", "--restarts", "1",
                  "--costs", costs, NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_once(p.out, "fixture.crash", "CRASH");
    expect_once(p.out, "fixture.kill", "CRASH");
    for (int i = 0; i < 12; i++) expect_once(p.out, pass_name(i), "NOTRUN");
    cr_expect(strstr(p.out, "restart cap: 1 workers were replaced after a crash, a timeout or a failed start"), "%s", p.out);
    cr_expect(strstr(p.out, "not starting another worker: the 12 items not handed out yet are NOTRUN"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_NOTRUN], 12);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_CRASH], 2);
    expect_phases_kept(&p);
    kc_proc_free(&p);
    unlink(costs);
}

Test(queue, fail_fast_reports_the_rest_as_NOTRUN, .timeout = 30)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "ff");
    char *a[] = { "run", "fixture.fail", "fixture.pass.*", "--jobs", "1", "--fail-fast", "--costs", costs, NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_once(p.out, "fixture.fail", "FAIL");
    for (int i = 0; i < 12; i++) expect_once(p.out, pass_name(i), "NOTRUN");
    cr_expect(strstr(p.out, "NOTRUN fixture.pass.00  not run: --fail-fast: the run stopped after fixture.fail (FAIL)"),
              "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_NOTRUN], 12);
    cr_expect_eq(kc_tally_exit_status(&t), 1);
    char sum[1024];
    kc_out_summary(p.out, sum, sizeof sum);
    cr_expect(strstr(sum, "12 not run"), "%s", sum);
    kc_proc_free(&p);
    unlink(costs);
}

/* Reads the table the run wrote and checks one row. */
static kc_cost row(const char *path, const char *name)
{
    kc_costs c;
    int found;
    char err[512];
    cr_assert_eq(kc_costs_load(path, &c, &found, err, sizeof err), 0, "%s", err);
    cr_assert(found, "no cost table at %s", path);
    const kc_cost *e = kc_costs_find(&c, name);
    cr_assert(e, "%s is not in the cost table", name);
    kc_cost r = *e;
    kc_costs_free(&c);
    return r;
}

Test(queue, cost_table_records_time_memory_and_failures_and_orders_the_next_run, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "tab");
    char *a[] = { "run", "fixture.mem.64m", "fixture.fail", "fixture.cost.00", "fixture.pass.0*", "--jobs", "2",
                  "--costs", costs, NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: cost table "), "%s", p.out);
    kc_proc_free(&p);
    kc_cost m = row(costs, "fixture.mem.64m"), f = row(costs, "fixture.fail"), c = row(costs, "fixture.cost.00"),
            ps = row(costs, "fixture.pass.03");
    cr_expect_geq(m.peak_rss_kib, 65536, "peak RSS of the 64 MiB item: %ld KiB", m.peak_rss_kib);
    cr_expect_eq(m.failed, 0);
    cr_expect_eq(f.failed, 1);
    cr_expect_geq(c.seconds, 0.29, "fixture.cost.00 sleeps 300 ms: %.3f", c.seconds);
    cr_expect_geq(ps.seconds, 0.019, "fixture.pass.03 sleeps 20 ms: %.3f", ps.seconds);
    cr_expect_eq(ps.peak_gpu_mib, -1);
    /* Next run, one worker: failed first (fail), then longest first (cost.00, then the 20 ms passes). */
    char *b[] = { "run", "fixture.fail", "fixture.cost.00", "fixture.pass.0*", "--jobs", "1", "--costs", costs, NULL };
    p = fixture(b);
    const char *pf = strstr(p.out, "FAIL   fixture.fail "), *pc = strstr(p.out, "PASS   fixture.cost.00 "),
               *p3 = strstr(p.out, "PASS   fixture.pass.03 "), *p0 = strstr(p.out, "PASS   fixture.pass.00 ");
    cr_assert(pf && pc && p3 && p0, "%s", p.out);
    cr_expect(pf < pc && pc < p3 && p3 < p0, "order: fail, cost.00, pass.03 (20 ms), pass.00:\n%s", p.out);
    kc_proc_free(&p);
    unlink(costs);
}

/* A serial run given --costs records its items too, so the first --jobs run
 * after it is already ordered by measured cost; without --costs it writes
 * nothing. */
Test(queue, serial_run_with_costs_writes_the_table, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "serial");
    char *a[] = { "run", "fixture.fail", "fixture.cost.00", "fixture.pass.03", "--costs", costs, NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: cost table ") && strstr(p.out, ": 3 items measured"), "%s", p.out);
    kc_proc_free(&p);
    kc_cost f = row(costs, "fixture.fail"), c = row(costs, "fixture.cost.00");
    cr_expect_eq(f.failed, 1);
    cr_expect_geq(c.seconds, 0.29, "fixture.cost.00 sleeps 300 ms: %.3f", c.seconds);
    unlink(costs);
    char *b[] = { "run", "fixture.pass.03", NULL };
    p = fixture(b);
    cr_expect(!strstr(p.out, "kcontract-fixture: cost table "), "a serial run without --costs writes no table:\n%s", p.out);
    kc_proc_free(&p);
}

Test(queue, bad_queue_options_are_refused, .timeout = 30)
{
    char *a[] = { "run", "fixture.pass.00", "--jobs", "2", "--schedule", "static", "--fail-fast", NULL };
    kc_proc p = fixture(a);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--fail-fast applies to the work queue (a serial run, --shard K/N, --jobs N), not to "
                            "--schedule static"), "%s", p.err);
    kc_proc_free(&p);
    char *b[] = { "run", "fixture.pass.00", "--jobs", "2", "--timeout", "0", NULL };
    p = fixture(b);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--timeout: expected seconds above 0"), "%s", p.err);
    kc_proc_free(&p);
    char *c[] = { "run", "fixture.pass.00", "--jobs", "2", "--schedule", "fifo", NULL };
    p = fixture(c);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--schedule: expected 'queue' or 'static', got 'fifo'"), "%s", p.err);
    kc_proc_free(&p);
    char *d[] = { "run", "fixture.pass.00", "--worker", NULL };
    p = fixture(d);
    cr_expect_eq(p.status, 2);
    kc_proc_free(&p);
}





static int three_pids(const kc_live *l) { return kc_out_count(l->out, " pid ") >= 3; }
static int never(const kc_live *l) { (void)l; return 0; }



static void start_three_hangs(kc_live *l, pid_t pids[3], const char *costs)
{
    char *args[] = { "run", "fixture.hang.*", "--jobs", "3", "--costs", (char *)costs, NULL };
    kc_live_start(l, kc_test_fixture_bin(), args);
    cr_assert_eq(kc_live_read_until(l, three_pids, 10), 0, "the three hang fixtures did not start:\n%s", l->out);
    cr_assert_eq(kc_live_pids(l, pids, 3), 3);
    for (int i = 0; i < 3; i++) cr_assert(kc_alive(pids[i]), "worker %ld is not running", (long)pids[i]);
}

Test(queue, sigint_reaches_every_worker, .timeout = 30)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "int");
    kc_live l;
    pid_t pids[3];
    start_three_hangs(&l, pids, costs);
    cr_assert_eq(kill(l.pid, SIGINT), 0);
    kc_live_read_until(&l, never, 10);
    cr_expect_eq(kc_wait_status(l.pid), 130, "%s", l.out);
    cr_expect(strstr(l.out, "kcontract-fixture: SIGINT: passed on to 3 workers"), "%s", l.out);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "fixture.hang.%d", i);
        expect_once(l.out, name, "NOTRUN");
        cr_expect(!kc_alive(pids[i]), "worker %ld still alive", (long)pids[i]);
    }
    cr_expect(strstr(l.out, "not run: interrupted by SIGINT while running on worker"), "%s", l.out);
    cr_expect(strstr(l.out, "kcontract-fixture: interrupted by SIGINT: 0 of 3 items finished, 3 not run"), "%s", l.out);
    cr_expect(strstr(l.out, "\nTALLY v=4 "), "%s", l.out);
    cr_expect(!strstr(l.out, "cannot go from"), "a worker's phase change was refused:\n%s", l.out);
    close(l.fd);
    unlink(costs);
}

Test(queue, sigkill_of_parent_leaves_no_worker, .timeout = 30)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "kill");
    kc_live l;
    pid_t pids[3];
    start_three_hangs(&l, pids, costs);
    cr_assert_eq(kill(l.pid, SIGKILL), 0);
    cr_expect_eq(kc_wait_status(l.pid), 128 + SIGKILL);
    sleep(1);
    for (int i = 0; i < 3; i++) cr_expect(!kc_alive(pids[i]), "worker %ld outlived its parent by 1 s", (long)pids[i]);
    close(l.fd);
    unlink(costs);
}

/* A worker whose CUDA context is lost reports its item, exits, and a fresh
 * worker takes its place; every item is still reported once and the counts
 * equal the serial run's (the loss is injected: no GPU here). */
Test(queue, lost_context_replaces_the_worker_and_loses_nothing, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "lost");
    /* One worker: the items after pass.03 can only run on its replacement
     * (with two, the other worker could drain the queue first). */
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.*", "--jobs", "1", "--costs", costs, NULL };
    char *env[] = { "KC_LIBCUDA=none", "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.03", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 40, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "restarted") && strstr(p.out, ") after a CUDA context loss reported by fixture.pass.03\n"), "no replacement:\n%s", p.out);
    for (int i = 0; i < 12; i++) expect_once(p.out, pass_name(i), "PASS");
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 12);
    cr_expect_eq(t.items, 12);
    expect_phases_kept(&p);
    kc_proc_free(&p);
    unlink(costs);
}

/* An item that hangs while another item's worker loses its CUDA context
 * beside it is not decided by that run: it runs again alone (here it
 * passes then), and only that line counts. Without a fault beside it a
 * hang stays TIMEOUT (hanging_item_becomes_TIMEOUT_and_the_run_goes_on). */
Test(queue, item_disturbed_by_a_neighbours_fault_runs_again_alone, .timeout = 60)
{
    char costs[256], mark[256];
    kc_tmp_path(costs, sizeof costs, "queue", "alone");
    kc_tmp_path(mark, sizeof mark, "queue", "alone-mark");
    unlink(mark);
    char menv[300];
    snprintf(menv, sizeof menv, "KC_FIXTURE_MARK=%s", mark);
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.once.hang", "fixture.pass.0[0-5]", "--jobs", "2",
                     "--timeout", "0.5", "--costs", costs, NULL };
    char *env[] = { "KC_LIBCUDA=none", "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.01", menv, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 40, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "fixture.once.hang: TIMEOUT while another item on the same GPU faulted beside it; its "
                            "verdict is not its own: it runs again alone"), "no rerun alone:\n%s", p.out);
    expect_once(p.out, "fixture.once.hang", "PASS");
    for (int i = 0; i < 6; i++) expect_once(p.out, pass_name(i), "PASS");
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 7);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_TIMEOUT], 0);
    cr_expect(strstr(p.out, "\nran again alone: 1 item whose first verdict was not known to be its own"), "%s", p.out);
    expect_phases_kept(&p);
    kc_proc_free(&p);
    unlink(costs);
    unlink(mark);
}

/* Items a and b under --jobs 2 (and --inflight 2 when inflight), without
 * a GPU, the items named in `lose` (KC_FAULT_LOSE_CONTEXT_AFTER) reporting
 * their CUDA context lost: the run's exit is `status`, each of a and b is
 * on one state line (`sa`, `sb`), and no worker's phase change was
 * refused. The run's output for more checks; kc_proc_free it. */
static kc_proc loss_run(const char *a, const char *b, const char *lose, int inflight, int status, const char *sa,
                        const char *sb)
{
    char costs[256], lenv[300];
    kc_tmp_path(costs, sizeof costs, "queue", "losses");
    snprintf(lenv, sizeof lenv, "KC_FAULT_LOSE_CONTEXT_AFTER=%s", lose);
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", (char *)a, (char *)b, "--jobs", "2", "--costs", costs,
                     inflight ? "--inflight" : NULL, "2", NULL };
    char *env[] = { "KC_LIBCUDA=none", lenv, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 40, &p), 0);
    cr_expect_eq(p.status, status, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_once(p.out, a, sa);
    expect_once(p.out, b, sb);
    expect_phases_kept(&p);
    unlink(costs);
    return p;
}

/* Two items on one GPU that lose their CUDA contexts with runs that
 * overlap: which fault ended which context cannot be told (on an H200 one
 * process's trap ended another's context, queue_holds.c), so neither
 * verdict stands; each runs again alone, and that run decides it (here
 * each passes, losing its context again: alone, that is its own). Each
 * item is on one line: the workers print no verdict reached with the
 * context lost. With items in flight (--inflight 2) the same. */
Test(queue, two_context_losses_that_overlap_run_again_alone, .timeout = 60)
{
    const char *names[] = { "fixture.cost.00", "fixture.cost.16" };
    for (int v = 0; v < 2; v++) {
        kc_proc p = loss_run(names[0], names[1], "fixture.cost.00,fixture.cost.16", v, 0, "PASS", "PASS");
        for (int i = 0; i < 2; i++) {
            char said[128];
            snprintf(said, sizeof said, "%s: PASS with the CUDA context lost while %s, on the same GPU, lost its own or its worker",
                     names[i], names[1 - i]);
            cr_expect(strstr(p.out, said), "inflight %d: no '%s':\n%s", v, said, p.out);
        }
        kc_tally t;
        kc_out_tally(p.out, &t);
        cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 2);
        cr_expect_eq(t.items, 2);
        kc_proc_free(&p);
    }
}

/* One item's context loss beside another item that loses nothing: its
 * verdict waits for that neighbour (here 300 ms against none: its line
 * comes after the neighbour's), then stands (no run again), printed once,
 * by the parent, with its worker's tag. */
Test(queue, one_context_loss_beside_a_clean_item_stands, .timeout = 60)
{
    kc_proc p = loss_run("fixture.cost.00", "fixture.pass.01", "fixture.pass.01", 0, 0, "PASS", "PASS");
    cr_expect_null(strstr(p.out, "runs again alone"), "a lone loss ran again:\n%s", p.out);
    const char *held = strstr(p.out, "PASS   fixture.pass.01  "), *beside = strstr(p.out, "PASS   fixture.cost.00  ");
    cr_expect(held && beside && beside < held, "the loss's line waits for the item beside it:\n%s", p.out);
    cr_expect(held && held - p.out >= 5 && !strncmp(held - 5, "[w", 2), "its worker's tag:\n%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 2);
    kc_proc_free(&p);
}

/* One item's context loss (fixture.pass.01) waits for the item beside it
 * (fixture.pass.00, 5 s), which a SIGINT ends before it said whether it
 * lost its own context too: the wait never ended, so the verdict is not
 * known to be its own, and the run is stopping: NOTRUN, recorded failed.
 * Before, the interrupted neighbour counted as one that lost nothing: the
 * held PASS stood in the TALLY, the reports and the cost table (failed 0),
 * so a retry --rerun-failed never ran it (as for the clean :sanitize
 * verdicts an interrupt leaves unvouched, queue_vouch.c). */
Test(queue, an_interrupt_before_a_held_loss_was_decided_leaves_it_not_run, .timeout = 60)
{
    char costs[256], cenv[300];
    kc_tmp_path(costs, sizeof costs, "queue", "held-int");
    unlink(costs);
    snprintf(cenv, sizeof cenv, "KC_COSTS=%s", costs);
    kc_live l;
    kc_live_start_env(&l, kc_test_fixture_bin(), (char *[]){ "run", "fixture.pass.00", "fixture.pass.01", "--jobs", "2",
                                                              NULL },
                      (char *[]){ "KC_LIBCUDA=none", "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.01",
                                  "KC_FAULT_SLOW_ITEM=fixture.pass.00@5", cenv, NULL });
    usleep(1500 * 1000);            /* fixture.pass.01 reported, fixture.pass.00 still sleeps */
    cr_assert_eq(kill(l.pid, SIGINT), 0);
    kc_live_read_until(&l, never, 30);
    cr_expect_eq(kc_wait_status(l.pid), 130, "%s", l.out);
    cr_expect_null(strstr(l.out, "PASS   fixture.pass.01"), "the held verdict stood:\n%s", l.out);
    cr_expect(strstr(l.out, "NOTRUN fixture.pass.01 "), "%s", l.out);
    cr_expect(strstr(l.out, " suite.pass=0 ") && strstr(l.out, " suite.notrun=2 "), "%s", l.out);
    kc_costs c;
    int found = 0;
    char err[512];
    cr_assert_eq(kc_costs_load(costs, &c, &found, err, sizeof err), 0, "%s", err);
    const kc_cost *e = kc_costs_find(&c, "fixture.pass.01");
    cr_expect(e && e->failed, "fixture.pass.01 is not recorded failed: --rerun-failed would not run it");
    kc_costs_free(&c);
    close(l.fd);
    unlink(costs);
}

/* A lost context is torn down until its worker ends (on an H100 that took
 * seconds and ended another worker's context, fault_spans.h). Here
 * fixture.pass.00 loses its context and its worker takes 1.5 s to end
 * (KC_FAULT_TEARDOWN_S); fixture.pass.01 starts after that loss was
 * reported, on the worker that ran fixture.cost.00 (300 ms; first by the
 * cost table), and loses its own: its verdict is not known to be its own
 * and runs again alone. The first loss's verdict stands: the later one
 * began after it. */
Test(queue, a_context_loss_while_another_is_torn_down_runs_again_alone, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "teardown");
    kc_write_file(costs, "# kcontract costs v1\n# item\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tfailed\n"
                         "fixture.cost.00\t5\t-1\t-1\t0\nfixture.pass.00\t1\t-1\t-1\t0\nfixture.pass.01\t0.5\t-1\t-1\t0\n");
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.cost.00", "fixture.pass.00", "fixture.pass.01",
                     "--jobs", "2", "--costs", costs, NULL };
    char *env[] = { "KC_LIBCUDA=none", "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.00,fixture.pass.01",
                    "KC_FAULT_TEARDOWN_S=1.5", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 50, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_once(p.out, "fixture.pass.00", "PASS");
    expect_once(p.out, "fixture.pass.01", "PASS");
    expect_once(p.out, "fixture.cost.00", "PASS");
    cr_expect(strstr(p.out, "fixture.pass.01: PASS with the CUDA context lost while the context fixture.pass.00 lost, "
                            "on the same GPU, was being torn down"), "%s", p.out);
    cr_expect_null(strstr(p.out, "fixture.pass.00: PASS with the CUDA context lost while"), "%s", p.out);
    cr_expect(strstr(p.out, " s after fixture.pass.00 reported its CUDA context lost; until then that context was being "
                            "torn down"), "the long teardown is not said:\n%s", p.out);
    cr_expect(strstr(p.out, "\nran again alone: 1 item whose first verdict was not known to be its own"), "%s", p.out);
    expect_phases_kept(&p);
    kc_proc_free(&p);
    unlink(costs);
}

/* A worker that does not end after its item lost the context (its teardown
 * hangs: KC_FAULT_TEARDOWN_S=60) is stopped once the end limit passes
 * (KC_SANITIZE_TIMEOUT_S=1 + KC_FAULT_END_EXTRA_S=1: 2 s), said once, and
 * the run ends; before, the run waited for it without limit. Serially with
 * the fake driver the standby has taken its place, and it ends in the
 * standby's slot (queue_standby.c); with --jobs in its own. */
Test(queue, a_worker_that_does_not_end_after_a_loss_is_stopped_at_the_end_limit, .timeout = 120)
{
    char costs[256], fake[1024];
    kc_tmp_path(costs, sizeof costs, "queue", "overdue");
    const char *lib = getenv("KC_FAKE_CUDA");
    snprintf(fake, sizeof fake, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_cuda.so");
    for (int jobs = 0; jobs < 2; jobs++) {
        char *serial[] = { (char *)kc_test_fixture_bin(), "run", "fake.axpy.f32:control.fault", "fake.axpy.f32",
                           "fake.copy.f16", "--costs", costs, NULL };
        char *queue[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.00", "fixture.pass.01", "--costs", costs,
                          "--jobs", "1", NULL };
        char *env[] = { jobs ? "KC_LIBCUDA=none" : fake, "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.00",
                        "KC_FAULT_TEARDOWN_S=60", "KC_SANITIZE_TIMEOUT_S=1", "KC_FAULT_END_EXTRA_S=1", "KC_CACHE_DIR=off",
                        NULL };
        kc_proc p;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        cr_assert_eq(kc_spawn(jobs ? queue : serial, env, 100, &p), 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        expect_once(p.out, jobs ? "fixture.pass.00" : "fake.axpy.f32:control.fault", jobs ? "PASS" : "RED");
        expect_once(p.out, jobs ? "fixture.pass.01" : "fake.copy.f16", "PASS");
        const char *said = "did not end within 2 s after its input closed (its item lost the CUDA context; it had "
                           "written its end line, so its sessions vouched); SIGTERM";

        cr_expect(strstr(p.out, said) || strstr(p.err, said), "jobs %d: the overdue worker is not said:\n%s%s", jobs,
                  p.out, p.err);
        cr_expect(!strstr(p.out, "killed by signal 15") && !strstr(p.err, "killed by signal 15"),
                  "jobs %d: its stop is said twice:\n%s%s", jobs, p.out, p.err);
        cr_expect(wall >= 2 && wall < 30, "jobs %d: the run took %.1f s, want 2 s and a little (the hook holds it 60)",
                  jobs, wall);
        cr_expect_eq(p.status, 0, "jobs %d: exit %d: no verdict depended on it\n%s%s", jobs, p.status, p.out, p.err);
        expect_phases_kept(&p);
        kc_proc_free(&p);
    }
    unlink(costs);
}

/* `run ITEMS --jobs 2` of the fixture with a cost table and a mark file of
 * its own (tag), its environment the fake-less driver's, `mark_env` with
 * %s the mark's path, and `more` (NULL-ended; up to 4). */
static kc_proc run_marked(const char *tag, const char *mark_env, char *const *items, char *const *more)
{
    char costs[256], mark[256], menv[400];
    kc_tmp_path(costs, sizeof costs, "queue", tag);
    snprintf(menv, sizeof menv, "%s-mark", tag);
    kc_tmp_path(mark, sizeof mark, "queue", menv);
    unlink(mark);
    snprintf(menv, sizeof menv, mark_env, mark);
    char *argv[16] = { (char *)kc_test_fixture_bin(), "run" }, *env[8] = { "KC_LIBCUDA=none", menv };
    int a = 2, e = 2;
    for (; *items && a < 10; items++) argv[a++] = *items;
    argv[a++] = "--jobs", argv[a++] = "2", argv[a++] = "--costs", argv[a++] = costs, argv[a] = NULL;
    for (; more && *more && e < 6; more++) env[e++] = *more;
    env[e] = NULL;
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 60, &p), 0);
    unlink(costs);
    unlink(mark);
    return p;
}

/* An item that ends its worker with _exit(0) while another item's worker
 * loses its context beside it runs again alone and passes: the run is
 * green. Its worker wrote no end line, but its item was in hand, and the
 * item's end settles it (queue_workers.c, kc_q_end_vouched); before, the
 * missing end line alone made the run not green (a review's find). */
Test(queue, an_item_that_exits_0_beside_a_fault_and_then_passes_alone_leaves_the_run_green, .timeout = 60)
{
    kc_proc p = run_marked("exit0-alone", "KC_FIXTURE_MARK=%s", (char *[]){ "fixture.once.exit0", "fixture.pass.0[0-5]", NULL },
                           (char *[]){ "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.01", NULL });
    cr_expect(strstr(p.out, "fixture.once.exit0: CRASH while another item on the same GPU faulted beside it"),
              "no rerun alone:\n%s%s", p.out, p.err);
    expect_once(p.out, "fixture.once.exit0", "PASS");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(!strstr(p.out, "without its end line") && !strstr(p.err, "without its end line"),
              "an item's exit under it was taken for an exit after the items:\n%s%s", p.out, p.err);
    expect_phases_kept(&p);
    kc_proc_free(&p);
}

/* A worker whose input closes while it is still starting (here 4 s late:
 * KC_FAULT_WORKER_START=slow) has its whole end limit from when it is
 * ready (KC_SANITIZE_TIMEOUT_S=1 + KC_FAULT_END_EXTRA_S=1), not from the
 * close: it ends by itself, unstopped; before, it was stopped the moment
 * it was ready (a review's find). */
Test(queue, a_worker_whose_input_closes_while_it_starts_is_given_its_end_limit_once_ready, .timeout = 90)
{
    kc_proc p = run_marked("slow-start", "KC_FAULT_WORKER_START=slow:4:%s",
                           (char *[]){ "fixture.pass.00", "fixture.pass.01", NULL },
                           (char *[]){ "KC_SANITIZE_TIMEOUT_S=1", "KC_FAULT_END_EXTRA_S=1", NULL });
    expect_once(p.out, "fixture.pass.00", "PASS");
    expect_once(p.out, "fixture.pass.01", "PASS");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(!strstr(p.out, "did not end within") && !strstr(p.err, "did not end within"),
              "a worker that started late was stopped as overdue:\n%s%s", p.out, p.err);
    expect_phases_kept(&p);
    kc_proc_free(&p);
}

/* A worker that dies under its item beside an item that lost its context
 * is a loss too (queue_holds.c): the held verdict runs again alone. */
Test(queue, a_context_loss_beside_a_worker_that_dies_runs_again_alone, .timeout = 60)
{
    kc_proc p = loss_run("fixture.latecrash", "fixture.cost.00", "fixture.cost.00", 0, 1, "CRASH", "PASS");
    cr_expect(strstr(p.out, "fixture.cost.00: PASS with the CUDA context lost while fixture.latecrash, on the same GPU, "
                            "lost its own or its worker"), "%s", p.out);
    kc_proc_free(&p);
}

/* A worker that dies before it says READY (here: the test hook) costs no
 * item: nothing was handed to it. Its replacements count against the
 * restart cap, so a worker that can never start ends the run with every
 * item NOTRUN, not in a loop. */
Test(queue, worker_that_dies_before_it_is_ready_costs_no_item, .timeout = 60)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "queue", "start");
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.0*", "--jobs", "2", "--restarts", "3",
                     "--costs", costs, NULL };
    char *env[] = { "KC_LIBCUDA=none", "KC_FAULT_WORKER_START=exit", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 40, &p), 0);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_eq(kc_out_count(p.out, ") exited with status 3 before it was ready\n"), 5, "2 workers and 3 restarts:\n%s",
                 p.out);
    cr_expect(strstr(p.out, "restart cap: 3 workers were replaced after a crash, a timeout or a failed start (at most 3, --restarts)"),
              "%s", p.out);
    cr_expect(!strstr(p.out, "CRASH "), "no item was handed out, so none crashed:\n%s", p.out);
    for (int i = 0; i < 10; i++) expect_once(p.out, pass_name(i), "NOTRUN");
    expect_phases_kept(&p);
    kc_proc_free(&p);
    unlink(costs);
}

/* A serial run keeps a standby worker, started with the first and with its
 * CUDA context opened at once: when an item loses the context, the standby
 * takes its place, and the next item waits neither for a process and a
 * context started only then (here each context takes 1.5 s to open) nor for
 * the old process's end (1.5 s to tear its context down). It holds no item,
 * so at the run's end it is stopped without a word, and the run's verdicts
 * are those of a run without it. */
static void standby_case(int exclusive)
{
    char json[256];
    kc_tmp_path(json, sizeof json, "queue", "standby.json");
    char *args[] = { "run", "fakeedges.copy.f16:control.fault", "fakesan.copy.f16", "--json", json, NULL };
    char *env[] = { "KC_FAKE_CTX_RETAIN_S=1.5", "KC_FAKE_CTX_TEARDOWN_S=1.5",
                    exclusive ? "KC_FAKE_COMPUTE_MODE=3" : NULL, NULL };    /* 3: CU_COMPUTEMODE_EXCLUSIVE_PROCESS */
    kc_proc p = kc_run_fake(args, env, 40);
    char line[8192];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "RED", "fakeedges.copy.f16:control.fault", line, sizeof line) &&
              strstr(line, "caught by gate 1"), "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "continuing in a fresh process"), 1, "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16", line, sizeof line), "%s", p.out);
    cr_expect(!strstr(p.out, "standby") && !strstr(p.err, "standby"), "the standby's end was said:\n%s%s", p.out,
              p.err);
    const char *text = kc_out_file(json);
    const char *fa = "fakeedges.copy.f16:control.fault", *fb = "fakesan.copy.f16";
    double pa = kc_out_json_number(text, fa, "pid"), pb = kc_out_json_number(text, fb, "pid");
    double sb = kc_out_json_number(text, fb, "start_s"), eb = kc_out_json_number(text, fb, "end_s"),
           ea = kc_out_json_number(text, fa, "end_s");
    cr_assert(pa > 0 && pb > 0 && sb >= 0 && eb >= 0 && ea >= 0, "%s", text);
    cr_expect_neq(pa, pb, "one process ran both:\n%s", text);
    /* from its request to its result, as the parent saw it: the context's
     * 1.5 s would be in it had its process started after the fault */
    double took = eb - sb;
    double gap = sb - ea;
    if (exclusive) {
        cr_expect(took > 1.4, "the item after the lost context found a context open (%.2f s): a standby ran\n%s", took,
                  text);
    } else {
        cr_expect(took < 1.0, "the item after the lost context waited %.2f s for its process:\n%s", took, text);
        cr_expect(gap < 1.0, "the item after the lost context waited %.2f s for the old process to end:\n%s", gap,
                  text);
    }
    kc_proc_free(&p);
    unlink(json);
}

Test(queue, a_serial_runs_standby_worker_takes_the_place_of_one_that_lost_its_context, .timeout = 60)
{
    standby_case(0);
}

/* ... but not on a device in an exclusive compute mode: a standby's context
 * would keep the worker's out. The item after the lost context then waits
 * for its process's context, as before there was a standby. */
Test(queue, no_standby_worker_on_an_exclusive_device, .timeout = 60)
{
    standby_case(1);
}
