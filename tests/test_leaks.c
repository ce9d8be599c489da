/* test_leaks.c — processes an item leaves behind (issue 13), with real
 * processes: the fixture items fixture.leak.* fork a grandchild that holds
 * the item's stdout for 25 s (fixture_suites.c). An item that passes but
 * leaves one is LEAK, serially and on a worker, and the grandchild is
 * killed; a worker that dies leaving one is CRASH with its true duration and
 * the run does not wait for the grandchild; so is a timed-out one; SIGTERM
 * during such a leak ends the run within seconds with the item NOTRUN; a
 * static shard that leaves one fails the merge. No run waits 25 s. And how
 * an outcome words a leak: only a would-be green one becomes LEAK. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "item_run.h"
#include "support/live.h"
#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Runs the fixture binary to its end; *wall its wall time. */
static kc_proc timed(char **args, double *wall)
{
    double t0 = mono();
    kc_proc p = kc_run_fixture(args, 30);
    *wall = mono() - t0;
    return p;
}

/* The grandchild the item named ("<item>: grandchild pid N"). */
static pid_t grandchild(const char *out, const char *item)
{
    char key[96];
    snprintf(key, sizeof key, "%s: grandchild pid ", item);
    const char *p = strstr(out, key);
    cr_assert(p, "%s did not start its grandchild:\n%s", item, out);
    return (pid_t)atol(p + strlen(key));
}

static void expect_state(const char *out, const char *name, const char *state)
{
    char st[16] = "";
    int n = kc_out_state_lines(out, name, st, sizeof st);
    cr_expect_eq(n, 1, "%s is on %d state lines:\n%s", name, n, out);
    cr_expect_str_eq(st, state, "%s:\n%s", name, out);
}

/* The "(S s)" of name's state line: the last "  (" before its rerun command. */
static double line_seconds(const char *out, const char *state, const char *name)
{
    char key[128], line[4096];
    snprintf(key, sizeof key, "%-6s %s  ", state, name);
    const char *p = strstr(out, key);
    cr_assert(p, "no '%s' line:\n%s", key, out);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
    char *r = strstr(line, "  rerun: ");
    if (r) *r = 0;
    char *q = NULL;
    for (char *x = strstr(line, "  ("); x; x = strstr(x + 1, "  (")) q = x;
    double v = -1;
    cr_assert(q && sscanf(q, "  (%lf s)", &v) == 1, "no seconds in '%s'", line);
    return v;
}

static void expect_dead(pid_t g)
{
    usleep(100000);
    cr_expect(!kc_alive(g), "the grandchild %ld outlived the run", (long)g);
}

Test(leaks, passing_item_that_leaves_a_process_is_LEAK_on_a_worker, .timeout = 40)
{
    char costs[256];
    double wall;
    kc_tmp_path(costs, sizeof costs, "leaks", "pass");
    char *a[] = { "run", "fixture.leak.pass", "fixture.pass.0*", "--jobs", "2", "--costs", costs, NULL };
    kc_proc p = timed(a, &wall);
    pid_t g = grandchild(p.out, "fixture.leak.pass");
    cr_expect_eq(p.status, 1, "LEAK fails the run: exit %d\n%s%s", p.status, p.out, p.err);
    expect_state(p.out, "fixture.leak.pass", "LEAK");
    char want[160];
    snprintf(want, sizeof want, "left 1 process running after it: pid %ld (", (long)g);
    cr_expect(strstr(p.out, want), "want '%s' in:\n%s", want, p.out);
    cr_expect(strstr(p.out, "still there 500 ms after it ended; killed (SIGKILL) (otherwise PASS: suite passed)"), "%s", p.out);
    cr_expect(strstr(p.out, "rerun: "), "a LEAK line ends with its rerun command:\n%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_LEAK], 1);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 10);
    char sum[1024];
    kc_out_summary(p.out, sum, sizeof sum);
    cr_expect(strstr(sum, "; 1 left processes or GPU state behind"), "%s", sum);
    cr_expect_lt(wall, 10, "the run took %.1f s (the grandchild lives 25 s)", wall);
    expect_dead(g);
    kc_proc_free(&p);
    unlink(costs);
}

Test(leaks, passing_item_that_leaves_a_process_is_LEAK_serially, .timeout = 40)
{
    double wall;
    char *a[] = { "run", "fixture.leak.pass", "fixture.pass.00", NULL };
    kc_proc p = timed(a, &wall);
    pid_t g = grandchild(p.out, "fixture.leak.pass");
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_state(p.out, "fixture.leak.pass", "LEAK");
    expect_state(p.out, "fixture.pass.00", "PASS");
    cr_expect_lt(line_seconds(p.out, "LEAK", "fixture.leak.pass"), 0.5, "its seconds are its own, not the leak timeout's");
    cr_expect_lt(wall, 10, "the run took %.1f s: it waited for the grandchild holding its stdout", wall);
    expect_dead(g);
    kc_proc_free(&p);
}

/* Issue 13's report: the worker dies, its grandchild holds the worker's
 * stdout for 25 s; the run was held 25 s and the CRASH said 23.5 s. */
Test(leaks, dying_worker_that_leaves_a_process_is_CRASH_with_its_true_duration, .timeout = 40)
{
    char costs[256];
    double wall;
    kc_tmp_path(costs, sizeof costs, "leaks", "crash");
    char *a[] = { "run", "fixture.leak.crash", "fixture.pass.*", "--jobs", "2", "--costs", costs, NULL };
    kc_proc p = timed(a, &wall);
    pid_t g = grandchild(p.out, "fixture.leak.crash");
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_state(p.out, "fixture.leak.crash", "CRASH");
    for (int i = 0; i < 12; i++) {
        char name[32];
        snprintf(name, sizeof name, "fixture.pass.%02d", i);
        expect_state(p.out, name, "PASS");
    }
    char want[200];
    snprintf(want, sizeof want, "killed by signal 9 (SIGKILL) while running it; it left processes behind: pid %ld (", (long)g);
    cr_expect(strstr(p.out, want), "want '%s' in:\n%s", want, p.out);
    cr_expect(strstr(p.out, "still ran 500 ms after it ended: killed (SIGKILL)"), "%s", p.out);
    cr_expect_lt(line_seconds(p.out, "CRASH", "fixture.leak.crash"), 1, "the CRASH's duration is the worker's, to its death");
    cr_expect_lt(wall, 10, "the run took %.1f s", wall);
    expect_dead(g);
    kc_proc_free(&p);
    unlink(costs);
}

Test(leaks, timed_out_worker_that_leaves_a_process_is_TIMEOUT, .timeout = 40)
{
    char costs[256];
    double wall;
    kc_tmp_path(costs, sizeof costs, "leaks", "timeout");
    char *a[] = { "run", "fixture.leak.hang", "fixture.pass.00", "--jobs", "2", "--timeout", "1", "--costs", costs, NULL };
    kc_proc p = timed(a, &wall);
    pid_t g = grandchild(p.out, "fixture.leak.hang");
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    expect_state(p.out, "fixture.leak.hang", "TIMEOUT");
    cr_expect(strstr(p.out, "exceeded its time limit of 1 s;") && strstr(p.out, "; it left processes behind: pid "),
              "%s", p.out);
    char then[160];     /* what the worker was doing at its limit: the grandchild, a fork of it */
    snprintf(then, sizeof then, "; the worker's processes then: pid %ld kcontract-fixture run --worker (S, ", (long)g);
    cr_expect(strstr(p.out, then), "want '%s' in:\n%s", then, p.out);
    double s = line_seconds(p.out, "TIMEOUT", "fixture.leak.hang");
    cr_expect(s >= 0.95 && s < 2, "TIMEOUT after %.2f s, limit 1 s", s);
    cr_expect_lt(wall, 10, "the run took %.1f s", wall);
    expect_dead(g);
    kc_proc_free(&p);
    unlink(costs);
}

static int leak_started(const kc_live *l) { return strstr(l->out, "fixture.leak.hang pid ") != NULL; }
static int never(const kc_live *l) { (void)l; return 0; }

/* SIGTERM while a grandchild that ignores SIGTERM, in a session of its own,
 * holds the worker's pipes: the run ends within seconds, the item NOTRUN. */
Test(leaks, sigterm_during_a_leak_ends_the_run_within_seconds, .timeout = 40)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "leaks", "term");
    char *args[] = { "run", "fixture.leak.hang", "--jobs", "1", "--costs", costs, NULL };
    kc_live l;
    kc_live_start(&l, kc_test_fixture_bin(), args);
    cr_assert_eq(kc_live_read_until(&l, leak_started, 10), 0, "fixture.leak.hang did not start:\n%s", l.out);
    pid_t g = grandchild(l.out, "fixture.leak.hang");
    double t0 = mono();
    cr_assert_eq(kill(l.pid, SIGTERM), 0);
    kc_live_read_until(&l, never, 20);
    int st = kc_wait_status(l.pid);
    double took = mono() - t0;
    cr_expect_eq(st, 143, "exit %d\n%s", st, l.out);
    cr_expect_lt(took, 5, "SIGTERM took %.1f s to end the run", took);
    expect_state(l.out, "fixture.leak.hang", "NOTRUN");
    cr_expect(strstr(l.out, "not run: interrupted by SIGTERM while running on worker 0") &&
              strstr(l.out, "it left processes behind: pid "), "%s", l.out);
    cr_expect(strstr(l.out, "kcontract-fixture: interrupted by SIGTERM: 0 of 1 items finished, 1 not run"), "%s", l.out);
    cr_expect(strstr(l.out, "\nTALLY v=4 "), "%s", l.out);
    expect_dead(g);
    close(l.fd);
    unlink(costs);
}

Test(leaks, static_shard_that_leaves_a_process_fails_the_merge, .timeout = 40)
{
    double wall;
    /* Sorted: leak.crash (shard 0), leak.pass (shard 1), pass.00 (shard 0). */
    char *a[] = { "run", "fixture.leak.crash", "fixture.leak.pass", "fixture.pass.00", "--jobs", "2", "--schedule",
                  "static", NULL };
    kc_proc p = timed(a, &wall);
    pid_t g = grandchild(p.out, "fixture.leak.crash");
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: shard 0/2 left processes behind: pid "), "%s", p.out);
    cr_expect(strstr(p.out, "shard 0/2: no TALLY: killed by signal 9 (SIGKILL); left processes behind: pid "), "%s", p.out);
    cr_expect(!strstr(p.out, "\nTALLY "), "no merged TALLY:\n%s", p.out);
    cr_expect_lt(wall, 10, "the run took %.1f s", wall);
    expect_dead(g);
    kc_proc_free(&p);
}

/* How an outcome words what its item left behind (kc_result_left_behind):
 * what would read green becomes LEAK; any other verdict stands, noted. */
Test(leaks, left_behind_turns_only_green_outcomes_into_LEAK)
{
    static const struct { kc_state in, out; const char *msg, *want; } cases[] = {
        { KC_PASS, KC_LEAK, "suite passed", "left 1 process running (otherwise PASS: suite passed)" },
        { KC_KNOWN, KC_LEAK, "matches a known finding", "left 1 process running (otherwise KNOWN: matches a known finding)" },
        { KC_FAIL, KC_FAIL, "gate 3 (accuracy): y[1] = 2", "gate 3 (accuracy): y[1] = 2; it also left 1 process running" },
        { KC_RED, KC_RED, "caught by gate 2", "caught by gate 2; it also left 1 process running" },
        { KC_MISSED, KC_MISSED, "all four gates passed", "all four gates passed; it also left 1 process running" },
        { KC_LIMIT, KC_LIMIT, "registers 300 > 255", "registers 300 > 255; it also left 1 process running" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kc_item_result o;
        memset(&o, 0, sizeof o);
        o.state = cases[i].in;
        o.gate = 3;
        snprintf(o.msg, sizeof o.msg, "%s", cases[i].msg);
        kc_result_left_behind(&o, "1 process running");
        cr_expect_eq(o.state, cases[i].out, "%s", kc_state_name(cases[i].in));
        cr_expect_str_eq(o.msg, cases[i].want);
        cr_expect_eq(o.gate, cases[i].out == KC_LEAK ? 0 : 3, "%s", kc_state_name(cases[i].in));
    }
}
