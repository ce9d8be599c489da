/* test_sanitize_sessions.c — the sanitizer gate's compute-sanitizer sessions
 * (src/gates/sanitize_session.h) through whole runs of the fixture binary
 * under the fake driver and the fake compute-sanitizer: one session per
 * tool serving every item, errors decided by the item alone, sessions
 * started ahead and together (by a serial run's standby too), sessions
 * stopped rather than waited for, and under --jobs the worker that holds
 * them and takes the sanitizer's controls first. Sessions that go wrong
 * (reports out of order, sessions that die, hang, crash or are left by a
 * killed parent): test_sanitize_session_faults.c. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "support/run_output.h"
#include "support/sanitize_runs.h"
#include "support/spawn.h"

/* The sessions the fake sanitizer logged in `log` (one line each: "<tool>
 * <pid> backtrace=<b> parent=<ppid>"): expects none of them still running
 * (the run has ended); returns how many, and the distinct parents seen, up
 * to two, in parents[2] (0 where none). */
static int sessions_gone(const char *log, long parents[2])
{
    FILE *f = fopen(log, "r");
    char l[256], tool[32];
    long pid, parent;
    int n = 0;
    parents[0] = parents[1] = 0;
    while (f && fgets(l, sizeof l, f)) {
        if (sscanf(l, "%31s %ld backtrace=%*s parent=%ld", tool, &pid, &parent) != 3) continue;
        n++;
        cr_expect(kill((pid_t)pid, 0) != 0, "the %s session (pid %ld) is still running after the run", tool, pid);
        if (!parents[0] || parents[0] == parent) parents[0] = parent;
        else parents[1] = parent;
    }
    if (f) fclose(f);
    return n;
}

/* The line of item `name` in state `state` into line[8192], which must hold
 * `has` (asserted); returns the seconds it ends with, -1 when none. */
static double item_seconds(const kc_proc *p, const char *state, const char *name, const char *has, char *line)
{
    cr_assert(kc_out_item_line(p->out, state, name, line, 8192) && strstr(line, has), "%s %s (%s): %s", state, name,
              has, p->out);
    const char *secs = strrchr(line, '(');
    return secs ? atof(secs + 1) : -1;
}

/* Expects no line of a run saying processes were left running after an item
 * or a worker (what: whose they would be). */
static void expect_none_left(const kc_proc *p, const char *what)
{
    cr_expect(!strstr(p->out, "running after it") && !strstr(p->err, "running after it") &&
              !strstr(p->out, "left processes"), "%s were left running:\n%s%s", what, p->out, p->err);
}

/* One compute-sanitizer session per tool serves every :sanitize item of a
 * process (sanitize_session.h); KC_SANITIZE_SESSIONS=0 starts one per item
 * and tool. The verdicts are the same. */
Test(sanitize, one_session_per_tool_serves_every_item, .timeout = 120)
{
    char log[256], env_log[300], line[8192];
    kc_san_test_log(log, env_log, "kc-san-log");
    for (int pass = 0; pass < 2; pass++) {
        unlink(log);
        kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_THREE_ITEMS, NULL }, 0, env_log,
                                    pass ? "KC_SANITIZE_SESSIONS=0" : NULL);
        cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
        const char *names[] = { KC_SAN_TEST_THREE_ITEMS };
        for (int i = 0; i < 3; i++)
            cr_expect(kc_out_item_line(p.out, "PASS", names[i], line, sizeof line), "%s: %s", names[i], p.out);
        /* racecheck runs for fakesan only (fakenosmem uses no shared memory,
         * fakenorace opts out) */
        int want[2][4] = { { 1, 1, 1, 1 }, { 3, 1, 3, 3 } };
        const char *tools[] = { "memcheck", "racecheck", "initcheck", "synccheck" };
        for (int t = 0; t < 4; t++)
            cr_expect_eq(kc_san_test_sessions_started(log, tools[t]), want[pass][t], "%s sessions (%s)", tools[t],
                         pass ? "KC_SANITIZE_SESSIONS=0" : "sessions");
        kc_proc_free(&p);
    }
    unlink(log);
}

/* In a session, an error ends it and the item alone decides: the control
 * planted for memcheck is RED between two clean items, which stay PASS. */
Test(sanitize, an_error_in_a_session_is_decided_by_the_item_alone, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:control.masked_tail_read_oob",
                                            "fakesan.copy.f16:sanitize", NULL }, 0, NULL, NULL);
    char line[8192];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", line, sizeof line) &&
              strstr(line, "caught by gate 5") && strstr(line, "memcheck: Invalid __global__ read of size 2 bytes"),
              "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakenosmem.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
}

/* An error in a session's first window is that item's (the session printed
 * nothing for another): it decides, with no session of the item alone. After
 * an item the session called clean, the item alone confirms it. */
Test(sanitize, an_error_in_a_sessions_first_window_needs_no_second_run, .timeout = 120)
{
    char log[256], env_log[300], line[8192];
    kc_san_test_log(log, env_log, "kc-san-first");
    for (int after_clean = 0; after_clean < 2; after_clean++) {
        unlink(log);
        char *one[] = { "run", "fakesan.copy.f16:control.masked_tail_read_oob", NULL };
        char *two[] = { "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:control.masked_tail_read_oob", NULL };
        kc_proc p = kc_san_test_run(after_clean ? two : one, 0, env_log, NULL);
        cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
        cr_expect(kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", line, sizeof line) &&
                  strstr(line, "caught by gate 5 (sanitizer; planted for gate 5; gates 1-4 passed all 5 cases): "
                               "memcheck: Invalid __global__ read of size 2 bytes"), "%s", p.out);
        cr_expect_eq(kc_san_test_sessions_started(log, "memcheck"), after_clean ? 2 : 1, "memcheck sessions%s: %s",
                     after_clean ? " after a clean item" : "", kc_out_file(log));
        kc_proc_free(&p);
    }
    unlink(log);
}

/* An item's tools start their sessions together: with each start taking
 * 1 s, the four cost about 1 s, not 4. */
Test(sanitize, the_tools_sessions_start_together, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER_START_S=1", NULL);
    char line[8192];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    double secs = item_seconds(&p, "PASS", KC_SAN_TEST_ITEM, "racecheck", line);
    cr_expect(secs >= 0 && secs < 2.5, "the sessions started one after another: %s", line);
    kc_proc_free(&p);
}

/* A serial run starts the sessions of a control planted for the sanitizer
 * ahead of it, while the item before it runs: with each start taking 2 s,
 * the control after a :sanitize item (whose own sessions take that second)
 * finds its sessions started, and none is started twice for it. The same
 * with the worker's items in flight (--inflight 2: the worker's main thread
 * runs both, neither goes beside another). */
Test(sanitize, a_sanitizer_controls_sessions_start_ahead_of_it, .timeout = 120)
{
    char log[256], env_log[300], line[8192];
    kc_san_test_log(log, env_log, "kc-san-ahead");
    for (int lanes = 0; lanes < 2; lanes++) {
        unlink(log);
        kc_proc p = kc_san_test_run((char *[]){ "run", "--inflight", lanes ? "2" : "1", "fakenosmem.copy.f16:sanitize",
                                                "fakesan.copy.f16:control.masked_tail_read_oob", NULL },
                                    0, "KC_FAKE_SANITIZER_START_S=2", env_log);
        cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
        double secs = item_seconds(&p, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", "caught by gate 5", line);
        cr_expect(secs >= 0 && secs < 1.5, "the control waited for its sessions to start (--inflight %d): %s",
                  lanes ? 2 : 1, line);
        /* the :sanitize item's four (racecheck not: it uses no shared
         * memory, but its session starts with the others), the control's
         * memcheck and racecheck: memcheck catches it, so its initcheck and
         * synccheck never start */
        cr_expect_eq(kc_san_test_sessions_started(log, "memcheck"), 2, "memcheck sessions: %s", kc_out_file(log));
        cr_expect_eq(kc_san_test_sessions_started(log, "racecheck"), 2, "racecheck sessions: %s", kc_out_file(log));
        cr_expect_eq(kc_san_test_sessions_started(log, "initcheck"), 1, "initcheck sessions: %s", kc_out_file(log));
        cr_expect_eq(kc_san_test_sessions_started(log, "synccheck"), 1, "synccheck sessions: %s", kc_out_file(log));
        kc_proc_free(&p);
    }
    unlink(log);
}

/* A serial run starts the sessions of every control planted for the
 * sanitizer within its next items at once: of two controls back to back,
 * the second finds its sessions started when the first began (each start
 * 2 s here), where starting them only one item ahead made each wait its
 * whole start. */
Test(sanitize, a_serial_run_starts_the_next_controls_sessions_together, .timeout = 120)
{
    char log[256], env_log[300], line[8192];
    kc_san_test_log(log, env_log, "kc-san-ahead2");
    unlink(log);
    const char *second = "fakesan.copy.f16:control.masked_tail_read_oob";
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenorace.copy.f16:control.masked_tail_read_oob", (char *)second, NULL },
                                0, "KC_FAKE_SANITIZER_START_S=2", env_log);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    double secs = item_seconds(&p, "RED", second, "caught by gate 5", line);
    cr_expect(secs >= 0 && secs < 1.0, "the second control waited for its sessions to start: %s", line);
    cr_expect_eq(kc_san_test_sessions_started(log, "memcheck"), 2, "memcheck sessions: %s", kc_out_file(log));
    kc_proc_free(&p);
    unlink(log);
}

/* ... but not past a control planted for gate 1: it loses the CUDA context,
 * the run goes on in a fresh process, and sessions started for the items
 * after it would end unused. The control after it starts its own sessions
 * once, in the fresh process. */
Test(sanitize, no_sessions_start_ahead_past_a_control_planted_for_gate_1, .timeout = 120)
{
    char log[256], env_log[300], line[8192];
    kc_san_test_log(log, env_log, "kc-san-ahead-gate1");
    unlink(log);
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakeedges.copy.f16:control.fault",
                                            "fakesan.copy.f16:control.masked_tail_read_oob", NULL }, 0, env_log, NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "RED", "fakeedges.copy.f16:control.fault", line, sizeof line) &&
              strstr(line, "caught by gate 1"), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", line, sizeof line) &&
              strstr(line, "caught by gate 5"), "%s", p.out);
    cr_expect(strstr(p.err, "continuing in a fresh process") || strstr(p.out, "continuing in a fresh process"),
              "the fault did not re-execute the run: %s%s", p.out, p.err);
    cr_expect_eq(kc_san_test_sessions_started(log, "memcheck"), 1, "memcheck sessions: %s", kc_out_file(log));
    /* at most one: the control's racecheck session starts beside memcheck, which catches the
     * planted bug at once, and the session ended unused may be gone before the fake tool logs
     * its start (CI, 4 test workers on 2 cores: 0 sessions logged) */
    cr_expect_leq(kc_san_test_sessions_started(log, "racecheck"), 1, "racecheck sessions: %s", kc_out_file(log));
    kc_proc_free(&p);
    unlink(log);
}

/* A serial run's standby worker starts the sessions of the control planted
 * for the sanitizer that comes right after a control planted for gate 1
 * (whose lost context makes the standby the worker): here the fault takes
 * 3.5 s to come and a session 2 s to start, so the control after it finds
 * its sessions started, where it waited their whole start before. Still one
 * session per tool. */
Test(sanitize, the_standby_starts_the_sessions_of_the_control_after_a_fault, .timeout = 120)
{
    char log[256], env_log[300], line[8192];
    kc_san_test_log(log, env_log, "kc-san-standby");
    unlink(log);
    const char *ctl = "fakesan.copy.f16:control.masked_tail_read_oob";
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeedges.copy.f16:control.fault", (char *)ctl, NULL },
                            (char *[]){ kc_san_test_env(), "PATH=/usr/bin:/bin", "KC_FAKE_SANITIZER_START_S=2",
                                        "KC_FAKE_FAULT_S=3.5", env_log, NULL }, 120);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    item_seconds(&p, "RED", "fakeedges.copy.f16:control.fault", "caught by gate 1", line);
    double secs = item_seconds(&p, "RED", ctl, "caught by gate 5", line);
    cr_expect(secs >= 0 && secs < 1.0, "the control waited for its sessions to start: %s", line);
    cr_expect_eq(kc_san_test_sessions_started(log, "memcheck"), 1, "memcheck sessions: %s", kc_out_file(log));
    cr_expect_eq(kc_san_test_sessions_started(log, "racecheck"), 1, "racecheck sessions: %s", kc_out_file(log));
    kc_proc_free(&p);
    unlink(log);
}

/* A standby that started sessions for a control after a control planted
 * for gate 1 that did not lose the context (a launch refused: the worker
 * goes on) never takes over; at the run's end it is killed and the queue
 * ends its sessions at once without a word, where they were said as
 * processes a worker left behind. Sessions come from two processes (the
 * worker and the standby), and none runs once the run has ended. (A
 * racecheck session takes 4 s to start here, the control is decided by
 * memcheck at 1 s: the standby's racecheck session is still starting when
 * the standby is killed, and outlives the queue's 500 ms wait for orphans.) */
Test(sanitize, a_standby_never_needed_ends_the_sessions_it_started, .timeout = 120)
{
    char log[256], env_log[300];
    kc_san_test_log(log, env_log, "kc-san-standby-unused");
    unlink(log);
    kc_proc p = kc_run_fake((char *[]){ "run", "fakecluster.copy.f32:control.reg_growth",
                                        "fakesan.copy.f16:control.masked_tail_read_oob", KC_SAN_TEST_ITEM, NULL },
                            (char *[]){ kc_san_test_env(), "PATH=/usr/bin:/bin", env_log, "KC_FAKE_SANITIZER_START_S=1",
                                        "KC_FAKE_SANITIZER_RACECHECK_START_S=3", NULL }, 120);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", (char[8192]){ 0 }, 8192),
              "%s", p.out);
    expect_none_left(&p, "the standby's sessions");
    long parents[2];
    sessions_gone(log, parents);
    cr_expect(parents[0] && parents[1], "sessions from one process only (%ld): the standby started none (%s)",
              parents[0], kc_out_file(log));
    kc_proc_free(&p);
    unlink(log);
}

/* A control caught by memcheck is decided before its racecheck session has
 * started (3 s here): that session served no request, so it is stopped, not
 * waited for, and the control does not take the 3 s. */
Test(sanitize, a_session_that_served_no_request_is_not_waited_for, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16:control.masked_tail_read_oob", NULL }, 0,
                                "KC_FAKE_SANITIZER_RACECHECK_START_S=3", NULL);
    char line[8192];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    double secs = item_seconds(&p, "RED", "fakesan.copy.f16:control.masked_tail_read_oob",
                               "memcheck: Invalid __global__ read", line);
    cr_expect(secs >= 0 && secs < 2.0, "the control waited for its racecheck session: %s", line);
    kc_proc_free(&p);
}

/* The gate's sessions keep device backtraces only (it reads an error's
 * kind, kernel, place and thread, and the host backtrace's symbols took
 * most of a reporting run); the command a line shows for running the item
 * by hand keeps the tool's default, for a person. */
Test(sanitize, sessions_keep_device_backtraces_and_the_command_by_hand_all, .timeout = 120)
{
    char log[256], env_log[300], line[8192], l[256];
    kc_san_test_log(log, env_log, "kc-san-backtrace");
    unlink(log);
    const char *ctl = "fakesan.copy.f16:control.masked_tail_read_oob";
    kc_proc p = kc_san_test_run((char *[]){ "run", (char *)ctl, NULL }, 0, env_log, NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_assert(kc_out_item_line(p.out, "RED", ctl, line, sizeof line) && strstr(line, "sanitizer command: "), "%s", p.out);
    cr_expect(!strstr(line, "--show-backtrace"), "the command by hand drops host backtraces: %s", line);
    FILE *f = fopen(log, "r");
    int sessions = 0;
    while (f && fgets(l, sizeof l, f)) {
        sessions++;
        cr_expect(strstr(l, " backtrace=device "), "a session with host backtraces: %s", l);
    }
    if (f) fclose(f);
    cr_expect_geq(sessions, 1, "no session logged in %s", log);
    kc_proc_free(&p);
    unlink(log);
}

/* A control RED by memcheck does not wait for its own sessions' end (2 s
 * here: each target's CUDA context torn down under its tool): they are
 * killed, the item after it is not blamed for them (the leftover check
 * leaves them be), and none is left running once the run has ended. */
Test(sanitize, a_red_controls_sessions_are_killed_not_waited_for, .timeout = 120)
{
    char log[256], env_log[300], line[8192];
    kc_san_test_log(log, env_log, "kc-san-let-end");
    unlink(log);
    const char *ctl = "fakesan.copy.f16:control.masked_tail_read_oob";
    kc_proc p = kc_san_test_run((char *[]){ "run", (char *)ctl, KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER_END_S=2", env_log);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    double secs = item_seconds(&p, "RED", ctl, "caught by gate 5", line);
    cr_expect(secs >= 0 && secs < 1.5, "the control waited for its sessions' end: %s", line);
    item_seconds(&p, "PASS", KC_SAN_TEST_ITEM, "", line);
    expect_none_left(&p, "the control's sessions (blamed on an item)");
    long parents[2];
    cr_expect_geq(sessions_gone(log, parents), 5, "sessions logged: the control's memcheck and racecheck, the item's "
                  "four (%s)", kc_out_file(log));
    kc_proc_free(&p);
    /* the control alone, its sessions 5 s to end: killed, the run does not
     * wait for them at its end either (told to end, it waited the 5 s) */
    double t0 = kc_now_s();
    p = kc_san_test_run((char *[]){ "run", (char *)ctl, NULL }, 0, "KC_FAKE_SANITIZER_END_S=5", NULL);
    double wall = kc_now_s() - t0;
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(wall < 2.5, "the run waited %.2f s for the control's sessions to end", wall);
    kc_proc_free(&p);
    unlink(log);
}

/* With --jobs, the workers that hold sessions take the sanitizer's items:
 * one worker's sessions serve the three :sanitize items while the other
 * runs the rest (their table costs say the sessions' share is small), so
 * each tool starts one session, not one per worker. */
Test(sanitize, one_worker_holds_the_sessions_when_their_share_is_small, .timeout = 120)
{
    char costs[256], log[256], env_log[300];
    snprintf(costs, sizeof costs, "%s/kc-san-hold-costs.%ld", kc_test_tmpdir(), (long)getpid());
    kc_san_test_log(log, env_log, "kc-san-hold-log");
    unlink(log);
    FILE *f = fopen(costs, "w");
    cr_assert_not_null(f);
    fprintf(f, "# kcontract costs v1\n# item\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tfailed\n"
               "fakenorace.copy.f16:sanitize\t0.2\t-1\t-1\t0\nfakenosmem.copy.f16:sanitize\t0.2\t-1\t-1\t0\n"
               "fakesan.copy.f16:sanitize\t0.2\t-1\t-1\t0\nfixture.cost.00\t2\t-1\t-1\t0\n"
               "fixture.cost.16\t2\t-1\t-1\t0\n");
    fclose(f);
    /* the two fixture items (first in the table's order) sleep 0.6 s each:
     * handed out by cost alone, each worker would run one and then the
     * :sanitize items beside the other */
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_THREE_ITEMS, "fixture.cost.00", "fixture.cost.16", "--jobs", "2",
                                            "--costs", costs, NULL }, 0, env_log, "KC_FIXTURE_COST_SCALE=2");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *names[] = { KC_SAN_TEST_THREE_ITEMS };
    char line[8192];
    for (int i = 0; i < 3; i++)
        cr_expect(kc_out_item_line(p.out, "PASS", names[i], line, sizeof line), "%s: %s", names[i], p.out);
    cr_expect_eq(kc_san_test_sessions_started(log, "memcheck"), 1, "memcheck sessions: %s\n%s", kc_out_file(log), p.out);
    cr_expect_eq(kc_san_test_sessions_started(log, "initcheck"), 1, "initcheck sessions: %s", kc_out_file(log));
    kc_proc_free(&p);
    /* With KC_SANITIZE_SESSIONS=0 no worker keeps sessions: the items go by
     * cost alone, both workers run the two fixture items first and then share
     * the three :sanitize items. */
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_THREE_ITEMS, "fixture.cost.00", "fixture.cost.16", "--jobs", "2",
                                    "--costs", costs, NULL }, 0, "KC_SANITIZE_SESSIONS=0", "KC_FIXTURE_COST_SCALE=2");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    int on[2] = { 0, 0 };
    for (int i = 0; i < 3; i++)
        for (int w = 0; w < 2; w++) {
            char want[128];
            snprintf(want, sizeof want, "[w%d] PASS   %s ", w, names[i]);
            on[w] += strstr(p.out, want) != NULL;
        }
    cr_expect(on[0] + on[1] == 3 && on[0] > 0 && on[1] > 0, "the :sanitize items ran %d on w0, %d on w1: %s", on[0],
              on[1], p.out);
    unlink(costs);
    unlink(log);
    kc_proc_free(&p);
}

/* A worker that takes the sanitizer's items takes the controls planted for
 * it first, whatever their cost: each ends its session with an error, which
 * a session's first window decides without a second run. */
Test(sanitize, the_controls_planted_for_the_sanitizer_go_first, .timeout = 120)
{
    char costs[256], log[256], env_log[300], line[8192];
    snprintf(costs, sizeof costs, "%s/kc-san-ctl-costs.%ld", kc_test_tmpdir(), (long)getpid());
    kc_san_test_log(log, env_log, "kc-san-ctl-log");
    unlink(log);
    FILE *f = fopen(costs, "w");
    cr_assert_not_null(f);
    fprintf(f, "# kcontract costs v1\n# item\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tfailed\n"
               "fakenosmem.copy.f16:sanitize\t9\t-1\t-1\t0\n"
               "fakesan.copy.f16:control.masked_tail_read_oob\t0.1\t-1\t-1\t0\n");
    fclose(f);
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:control.masked_tail_read_oob",
                                            "--jobs", "1", "--costs", costs, NULL }, 0, env_log, NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *ctl = strstr(p.out, "RED    fakesan.copy.f16:control.masked_tail_read_oob");
    const char *item = strstr(p.out, "PASS   fakenosmem.copy.f16:sanitize");
    cr_expect(ctl && item && ctl < item, "the control ran first: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", line, sizeof line) &&
              strstr(line, "memcheck: Invalid __global__ read"), "%s", p.out);
    /* its session's first window decided it: one memcheck session for it,
     * one for the item after it */
    cr_expect_eq(kc_san_test_sessions_started(log, "memcheck"), 2, "memcheck sessions: %s", kc_out_file(log));
    unlink(costs);
    unlink(log);
    kc_proc_free(&p);
}
