/* test_sanitize_session_faults.c — the sanitizer gate's compute-sanitizer
 * sessions (src/gates/sanitize_session.h) when what they print or how they
 * end cannot be taken at its word, through whole runs of the fixture binary
 * under the fake driver and the fake compute-sanitizer: reports out of order
 * (in the next item's window, in a window stopped at its time limit, after
 * the last item, left by a session that died), every session's summary
 * checked when the pool ends and across a serial re-exec, sessions that hang,
 * crash or print more than is kept, sessions never used, a control's
 * sessions of its own, sessions left by a killed worker or shard and the
 * files they leave, and clean verdicts a worker ended before vouching for
 * (also by an interrupt or a --fail-fast stop).
 * Sessions serving items as they should: test_sanitize_sessions.c. */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "sanitize_session.h"
#include "support/live.h"
#include "support/run_output.h"
#include "support/sanitize_runs.h"
#include "support/spawn.h"

/* Reports that come after their item's end line (out of order) never make a
 * green run: the next item's window holds the report, the item alone does
 * not reproduce it, and that item fails saying so; a report after the last
 * item is counted in the session's summary and fails the run. */
Test(sanitize, reports_out_of_order_are_never_green, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:sanitize", NULL }, 0,
                                "KC_FAKE_SANITIZER=late:memcheck:fakenosmem.copy.f16:sanitize", NULL);
    char line[8192];
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakesan.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "the memcheck session reported an error while this item ran that the item alone does not "
                           "reproduce") && strstr(line, "KC_SANITIZE_SESSIONS=0"), "%s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16:sanitize", NULL }, 0, "KC_FAKE_SANITIZER=late:memcheck", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: the memcheck session counted 1 error that no item's window held"), "%s", p.out);
    kc_proc_free(&p);
}

/* A report out of order can also land in the window of an item that hangs:
 * the window, stopped at its time limit, is judged as it stands, and no run
 * alone can tell whose the report is. So the items the session called clean
 * are not trusted and the run fails (a review found the racy item reading
 * PASS, which the results cache would then have kept). */
Test(sanitize, a_report_in_a_window_stopped_at_its_limit_distrusts_the_session, .timeout = 120)
{
    char *env[] = { kc_san_test_env(), "PATH=/usr/bin:/bin", "KC_SANITIZE_TIMEOUT_S=3",
                    "KC_FAKE_SANITIZER=hang:racecheck:fakesan.copy.f16:sanitize",
                    "KC_FAKE_SANITIZER_LATE=racecheck:fakeedgesmem.copy.f16:sanitize", NULL };
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeedgesmem.copy.f16:sanitize", "fakesan.copy.f16:sanitize", NULL },
                            env, 120);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: the racecheck session reported an error while "
                            "fakesan.copy.f16:sanitize ran, which it stopped at its time limit after 1 item it called "
                            "clean, so the report may be theirs, out of order") &&
              strstr(p.out, "are not trusted"), "%s%s", p.out, p.err);
    kc_proc_free(&p);
}

/* A session that dies between items after a report out of order leaves that
 * report to the next request of its tool, which a fresh session serves: the
 * report is the dead session's, never the new session's first window's, and
 * it fails the run (the items the dead session called clean are not trusted).
 * Which of two lines says so depends on a race the gate cannot win: when
 * the next request reaches the session before its kill lands (a loaded host;
 * seen once under a CI run beside the tests), the late report opens that
 * item's window, and the item, clean alone, FAILs because its window held a
 * report it does not reproduce. Either way the run fails on the dead
 * session's report and no item is called clean on it.
 * A control after it runs in sessions of its own and is RED by its own error;
 * the dead session's report still fails the run when the pool ends. */
Test(sanitize, a_report_left_by_a_session_that_died_fails_the_run, .timeout = 120)
{
    char line[8192];
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:sanitize", NULL }, 0,
                                "KC_FAKE_SANITIZER=lateexit:memcheck:fakenosmem.copy.f16:sanitize", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    int between = strstr(p.out, "kcontract-fixture: the memcheck session ended between items with an error report that no "
                                "item's window held") != NULL;
    int in_next = kc_out_item_line(p.out, "FAIL", "fakesan.copy.f16:sanitize", line, sizeof line) &&
                  strstr(line, "the memcheck session reported an error while this item ran that the item alone does not "
                               "reproduce");
    cr_expect(between || in_next, "neither the between-items line nor the next item's FAIL:\n%s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:control.masked_tail_read_oob", NULL },
                        0, "KC_FAKE_SANITIZER=lateexit:memcheck:fakenosmem.copy.f16:sanitize", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", line, sizeof line), "%s",
              p.out);
    cr_expect(strstr(p.out, "kcontract-fixture: the memcheck session counted 1 error that no item's window held"), "%s",
              p.out);
    kc_proc_free(&p);
}

/* The same session dying only after the next request reached it: its late
 * report opens that item's window, and the item, clean alone, FAILs. The
 * report is an earlier item's, so their clean verdicts fall too: the run
 * fails, and the results cache keeps none of them (it kept the earlier
 * item's PASS, and the second run read green). */
Test(sanitize, a_late_report_in_the_next_window_distrusts_the_items_before, .timeout = 120)
{
    char dir[512], cache[600], line[8192];
    kc_tmp_dir(dir, sizeof dir, "san-late-next");
    snprintf(cache, sizeof cache, "KC_CACHE_DIR=%s", dir);
    for (int run = 0; run < 2; run++) {
        char *env[] = { kc_san_test_env(), "PATH=/usr/bin:/bin", cache, "KC_FAKE_SANITIZER_LATEEXIT_S=2",
                        "KC_FAKE_SANITIZER=lateexit:memcheck:fakenosmem.copy.f16:sanitize", NULL };
        kc_proc p = kc_run_fake((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:sanitize", NULL },
                                env, 120);
        cr_expect_eq(p.status, 1, "run %d: exit %d\n%s%s", run + 1, p.status, p.out, p.err);
        cr_expect(kc_out_item_line(p.out, "FAIL", "fakesan.copy.f16:sanitize", line, sizeof line) &&
                  strstr(line, "that the item alone does not reproduce"), "run %d:\n%s", run + 1, p.out);
        cr_expect(strstr(p.out, "kcontract-fixture: the memcheck session reported an error while fakesan.copy.f16:sanitize "
                                "ran after 1 item it called clean, and that item alone does not reproduce it"),
                  "run %d:\n%s", run + 1, p.out);
        cr_expect(!strstr(p.out, "results cache:"), "run %d reused a verdict of the distrusted session:\n%s", run + 1,
                  p.out);
        kc_proc_free(&p);
    }
    kc_rm_rf(dir);
}

/* A session that ends between items (here killed) after a report that came
 * after its item's end line leaves that report to no window of its own: the
 * next session's first window opens with it, so that window is not the
 * first of its session and decides no error (the control the sanitizer is
 * blind to stays MISSED, not RED on another item's report). */
Test(sanitize, a_session_that_ends_between_items_leaves_no_first_window_its_report, .timeout = 120)
{
    char line[8192];
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:control.sanitizer_blind",
                                            NULL }, 0, "KC_FAKE_SANITIZER=lateexit:memcheck:fakenosmem.copy.f16:sanitize", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(!kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.sanitizer_blind", line, sizeof line),
              "caught by another item's report: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "MISSED", "fakesan.copy.f16:control.sanitizer_blind", line, sizeof line), "%s",
              p.out);
    kc_proc_free(&p);
}

/* A session that ended between items after a report out of order, with no
 * item after it: its report still fails the run when the pool ends. */
Test(sanitize, a_session_that_ended_still_has_its_summary_checked, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", NULL }, 0,
                "KC_FAKE_SANITIZER=lateexit:memcheck:fakenosmem.copy.f16:sanitize", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: the memcheck session counted 1 error that no item's window held"), "%s", p.out);
    kc_proc_free(&p);
}

/* The pool ends every session at once: a session that ends while the pool
 * waits for another still has its summary checked. Each tool's report that
 * came after the last item's end line fails the run (an item after it
 * leaves the report in the session's output well before the end). */
Test(sanitize, every_sessions_summary_is_checked_when_they_end_together, .timeout = 120)
{
    const char *tools[] = { "memcheck", "racecheck", "initcheck", "synccheck" };
    for (int t = 0; t < 4; t++) {
        char mode[64], want[96];
        snprintf(mode, sizeof mode, "KC_FAKE_SANITIZER=late:%s", tools[t]);
        snprintf(want, sizeof want, "kcontract-fixture: the %s session counted 1 error that no item's window held", tools[t]);
        kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, "fixture.cost.00", NULL }, 0, mode, "KC_FIXTURE_COST_SCALE=2");
        cr_expect_eq(p.status, 1, "%s: exit %d\n%s%s", tools[t], p.status, p.out, p.err);
        cr_expect(strstr(p.out, want), "%s: %s", tools[t], p.out);
        kc_proc_free(&p);
    }
}

/* A serial run that re-executes itself after a CUDA context loss ends its
 * sessions first: the items after it are not LEAK (a session still ending),
 * and a session's unattributed error still fails the run from the new
 * process image. */
Test(sanitize, sessions_end_before_a_serial_re_exec, .timeout = 120)
{
    char line[8192];
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:sanitize", NULL }, 0,
                                "KC_FAULT_LOSE_CONTEXT_AFTER=fakenosmem.copy.f16:sanitize", NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakenosmem.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:sanitize", NULL }, 0,
                        "KC_FAULT_LOSE_CONTEXT_AFTER=fakenosmem.copy.f16:sanitize",
                        "KC_FAKE_SANITIZER=late:memcheck:fakenosmem.copy.f16:sanitize");
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-fixture: the memcheck session counted 1 error that no item's window held"), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
}
/* A serial run that replaces itself after a context loss ends its sessions
 * first and checks their summaries: a report that came after the last
 * window, before the re-exec, still fails the run (the fresh process carries
 * that, and says it once). */
Test(sanitize, a_reexec_still_checks_the_sessions_it_leaves, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fixture.pass.03", "fixture.pass.04", NULL },
                                0, "KC_FAKE_SANITIZER=late:memcheck:fakenosmem.copy.f16:sanitize",
                                "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.03");
    char line[8192];
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "continuing in a fresh process"), "the re-exec happened: %s", p.out);
    const char *u = strstr(p.out, "kcontract-fixture: the memcheck session counted 1 error that no item's window held");
    cr_expect(u, "%s", p.out);
    cr_expect(u && !strstr(u + 20, "the memcheck session counted"), "said once: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fixture.pass.04", line, sizeof line), "the run went on: %s", p.out);
    kc_proc_free(&p);
}

/* A session that hangs or crashes while it serves an item fails that item
 * (TIMEOUT, CRASH), and the next item gets a fresh session and passes. */
Test(sanitize, a_session_that_hangs_or_crashes_mid_item_is_replaced, .timeout = 120)
{
    char line[8192];
    /* every tool of every item gets the limit: 6 s leaves the clean ones
     * room under ASan and a loaded CI machine */
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_THREE_ITEMS, NULL }, 0,
                                "KC_FAKE_SANITIZER=hang:fakenosmem.copy.f16:sanitize", "KC_SANITIZE_TIMEOUT_S=6");
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "TIMEOUT", "fakenosmem.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "memcheck: compute-sanitizer did not finish in 6 s"), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakenorace.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "after: %s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_THREE_ITEMS, NULL }, 0, "KC_FAKE_SANITIZER=crash:fakenosmem.copy.f16:sanitize",
                        NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "CRASH", "fakenosmem.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "memcheck: compute-sanitizer killed by signal 11"), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakenorace.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "after: %s", p.out);
    kc_proc_free(&p);
}

/* Sessions started ahead of their item's request (kc_san_warm) that never
 * served one hold no item's output: when the run ends, they are not waited
 * on for a whole time limit. A sanitizer that hangs from its start: memcheck
 * times out (10 s) and decides the item; the other three tools' sessions,
 * hanging unused, must not add another 10 s at the end. */
Test(sanitize, unused_sessions_do_not_hold_up_the_end, .timeout = 120)
{
    double t0 = kc_now_s();
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER=hang", "KC_SANITIZE_TIMEOUT_S=10");
    double took = kc_now_s() - t0;
    char line[8192];
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "TIMEOUT", KC_SAN_TEST_ITEM, line, sizeof line), "%s", p.out);
    cr_expect_lt(took, 17.0, "the run took %.1f s: its unused sessions were waited on", took);
    kc_proc_free(&p);
}

/* Ending a session that has already ended (reaped while another session
 * was waited on) still hands what it printed after its last window, its
 * summary, to the caller: that summary counts the error its window held,
 * so the pool's end finds no error that no window held. */
Test(sanitize, ending_a_session_that_ended_already_hands_over_its_last_lines, .timeout = 60)
{
    char *served[] = { "/bin/sh", "-c",
                       "read r; echo '========= Invalid __global__ read of size 2 bytes'; "
                       "echo 'kcontract-sanitize-target: end x'; echo '========= ERROR SUMMARY: 1 error'; exit 86", NULL };
    char *idle[] = { "/bin/sh", "-c", "cat >/dev/null", NULL };
    char why[800] = "";
    kc_san_window w = { .out = malloc(KC_SAN_OUT_MAX) };
    cr_assert_not_null(w.out);
    kc_san_pool *p = kc_san_pool_new();
    cr_assert_not_null(p);
    cr_assert_eq(kc_san_ask(p, 0, served, "x all", 10, &w, why, sizeof why), 0, "%s", why);
    cr_expect(w.ended && strstr(w.out, "Invalid __global__ read"), "%s", w.out);
    for (int i = 0; i < 3; i++) {                       /* it exits; another session's wait reaps it */
        usleep(200 * 1000);
        cr_assert_eq(kc_san_warm(p, 1, idle, why, sizeof why), 0, "%s", why);
    }
    pid_t left[KC_SAN_POOL_PIDS];
    cr_assert_eq(kc_san_pool_pids(p, left), 1, "only the idle session runs");
    kc_san_end(p, 0, 10, &w);
    cr_expect(strstr(w.out, "========= ERROR SUMMARY: 1 error"), "the summary: %s", w.out);
    cr_expect_eq(kc_san_pool_free(p, why, sizeof why), 0, "%s", why);
    free(w.out);
}

/* A control planted for the sanitizer runs in sessions of its own (all
 * its tools started together), never in the process's: an earlier item's
 * report that comes out of order is not taken for the control's, the control
 * is RED by its own error, and the process's memcheck session, not ended by
 * the control, passes the late report to the next :sanitize item's window,
 * where it fails that item (the item alone does not reproduce it). */
Test(sanitize, a_control_runs_in_sessions_of_its_own, .timeout = 120)
{
    char log[256], logenv[300], line[8192];
    kc_san_test_log(log, logenv, "kc-san-ctl");
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", "fakesan.copy.f16:control.masked_tail_read_oob",
                                            "fakesan.copy.f16:sanitize", NULL }, 0,
                                "KC_FAKE_SANITIZER=late:memcheck:fakenosmem.copy.f16:sanitize", logenv);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", line, sizeof line), "%s",
              p.out);
    cr_expect(strstr(line, "Invalid __global__ read of size 2 bytes"), "its own error: %s", line);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakesan.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "that the item alone does not reproduce"),
              "the late report reached the next item of the process's session:\n%s", p.out);
    cr_expect_eq(kc_san_test_sessions_started(log, "memcheck"), 3,
                 "the process's session, the control's own, and the next item alone: %s", kc_out_file(log));
    unlink(log);
    kc_proc_free(&p);
}

/* A window of more output than is kept (KC_SAN_OUT_MAX) keeps the target's
 * own lines and the summary: 400 KiB of notes leave a clean item PASS, and
 * an error after them (past what is kept) still fails it, never green. */
Test(sanitize, output_past_what_is_kept_neither_fails_nor_hides, .timeout = 120)
{
    char line[8192];
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_THREE_ITEMS, NULL }, 0,
                                "KC_FAKE_SANITIZER=flood:fakenosmem.copy.f16:sanitize", NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%.3000s", p.status, p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakenosmem.copy.f16:sanitize", line, sizeof line), "%.3000s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_THREE_ITEMS, NULL }, 0,
                        "KC_FAKE_SANITIZER=flood:initcheck:fakenosmem.copy.f16:sanitize", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%.3000s", p.status, p.out);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakenosmem.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "initcheck: ") && strstr(line, "it counted errors this parser did not find"), "%.3000s",
              p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "%.3000s", p.out);
    kc_proc_free(&p);
}

/* A worker killed (SIGKILL: it cannot end its sessions) while its session
 * hangs mid-item leaves nothing running once the run ends: the parent
 * adopts the session and ends it. */
static pid_t ppid_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *e = strrchr(buf, ')');
    long pp = -1;
    char st;
    return e && sscanf(e + 1, " %c %ld", &st, &pp) == 2 ? (pid_t)pp : -1;
}

/* Runs KC_SAN_TEST_ITEM with `schedule` ("queue" or "static") and one process, its
 * memcheck session hanging in the item, SIGKILLs that process (the
 * session's parent) and checks that the session did not outlive the run. */
static void kill_the_sessions_parent(const char *schedule)
{
    char fake[PATH_MAX], env_san[PATH_MAX + 32], env_cuda[PATH_MAX + 16], log[256], env_log[300], costs[256];
    cr_assert_not_null(realpath("tests/fake/compute-sanitizer", fake));
    snprintf(env_san, sizeof env_san, "KC_COMPUTE_SANITIZER=%s", fake);
    const char *lib = getenv("KC_FAKE_CUDA");
    snprintf(env_cuda, sizeof env_cuda, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_cuda.so");
    kc_san_test_log(log, env_log, "kc-san-kill");
    snprintf(costs, sizeof costs, "%s/kc-san-kill-costs.%ld", kc_test_tmpdir(), (long)getpid());
    unlink(log);
    char *env[] = { env_san, env_cuda, env_log, "KC_FAKE_SANITIZER=hang:" KC_SAN_TEST_ITEM, "KC_SANITIZE_TIMEOUT_S=50", NULL };
    kc_live l;
    int queue = strcmp(schedule, "queue") == 0;       /* a static schedule writes no cost table and takes none */
    kc_live_start_env(&l, kc_test_fixture_bin(),
                      (char *[]){ "run", KC_SAN_TEST_ITEM, "--jobs", "1", "--schedule", (char *)schedule, queue ? "--costs" : NULL,
                                  costs, NULL }, env);
    pid_t session = 0;
    for (int i = 0; i < 300 && !session; i++) {         /* memcheck's session started */
        usleep(100 * 1000);
        FILE *f = fopen(log, "r");        /* the four sessions start at once: any order */
        char l[128];
        long pid;
        while (f && !session && fgets(l, sizeof l, f))
            if (sscanf(l, "memcheck %ld", &pid) == 1) session = (pid_t)pid;
        if (f) fclose(f);
    }
    cr_assert(session > 0, "no memcheck session started (log %s)", log);
    usleep(500 * 1000);                                 /* it hangs in the item */
    pid_t worker = ppid_of(session);
    cr_assert(worker > 1 && worker != l.pid, "the session's parent is %ld, not a worker or shard", (long)worker);
    cr_assert_eq(kill(worker, SIGKILL), 0);
    int st = kc_wait_status(l.pid);
    int left = kc_alive(session);
    if (left) kill(-session, SIGKILL);                  /* leave nothing behind either way */
    cr_expect(!left, "%s: the session (pid %ld) outlived its run (exit %d)", schedule, (long)session, st);
    cr_expect_eq(st, 1, "%s: the item is not green: exit %d", schedule, st);
    close(l.fd);
    unlink(log);
    unlink(costs);
}

Test(sanitize, a_killed_worker_leaves_no_session_running, .timeout = 60)
{
    kill_the_sessions_parent("queue");
}

Test(sanitize, a_killed_static_shard_leaves_no_session_running, .timeout = 60)
{
    kill_the_sessions_parent("static");
}

/* Issue 21: `make test` left files in the temporary directory: the fake
 * compute-sanitizer kept the target's exit status and its report count in
 * "$TMPDIR/tmp.XXXXXX" and ".rc" files, which a session killed mid-item
 * (a crash, a time limit) never removed. Run with a TMPDIR of its own, a
 * run whose session crashes mid-item leaves it empty. */
Test(sanitize, killed_sessions_leave_nothing_in_tmpdir, .timeout = 120)
{
    char dir[256], env[300], names[1024];
    kc_tmp_dir(dir, sizeof dir, "santmp");
    snprintf(env, sizeof env, "TMPDIR=%s", dir);
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_THREE_ITEMS, NULL }, 0,
                                "KC_FAKE_SANITIZER=crash:fakenosmem.copy.f16:sanitize", env);
    cr_expect(kc_out_item_line(p.out, "CRASH", "fakenosmem.copy.f16:sanitize", names, sizeof names), "%s", p.out);
    kc_proc_free(&p);
    int n = kc_dir_entries(dir, names, sizeof names);
    cr_expect_eq(n, 0, "a crashed session left %d file(s) in TMPDIR %s: %s", n, dir, names);
    kc_rm_rf(dir);
}

/* A worker whose sessions gave fakesan.copy.f16:sanitize its PASS, and
 * which then ends under fixture.once.exit0 (its first run's _exit(0)) while
 * fixture.pass.01's worker loses its context beside it, never checked its
 * sessions' summaries: the item it ended under runs again alone and passes,
 * and so does the clean :sanitize verdict, decided by the sessions of the
 * worker that runs it again (queue_vouch.c). With the memcheck session's late error
 * (KC_FAKE_SANITIZER=late:memcheck: an error no item's window held) the run
 * is then not green. Before, that verdict stood unvouched and the run
 * exited 0 with either sanitizer. The costs hand fakesan's item to one
 * worker and fixture.pass.01 to the other; fixture.pass.01 starts only once
 * fixture.once.exit0 has made its mark (KC_FAULT_WAIT_FILE), so it runs on
 * the first worker after fakesan's item, and its loss comes while
 * fixture.once.exit0 waits its 4 s before it ends its worker. Before these
 * events, the order hung on sleeps, which a slow machine (ASan in CI) did
 * not keep. */
Test(sanitize, a_worker_that_ends_under_an_item_runs_its_clean_sanitizer_verdicts_again, .timeout = 120)
{
    char costs[256], mark[256], env_mark[300], env_wait[320];
    snprintf(costs, sizeof costs, "%s/kc-san-again-costs.%ld", kc_test_tmpdir(), (long)getpid());
    snprintf(mark, sizeof mark, "%s/kc-san-again-mark.%ld", kc_test_tmpdir(), (long)getpid());
    snprintf(env_mark, sizeof env_mark, "KC_FIXTURE_MARK=%s", mark);
    snprintf(env_wait, sizeof env_wait, "KC_FAULT_WAIT_FILE=fixture.pass.01@%s", mark);
    for (int late = 0; late < 2; late++) {
        FILE *f = fopen(costs, "w");
        cr_assert_not_null(f);
        fprintf(f, "# kcontract costs v1\n# item\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tfailed\n"
                   "fakesan.copy.f16:sanitize\t3\t-1\t-1\t0\nfixture.pass.01\t2\t-1\t-1\t0\n"
                   "fixture.once.exit0\t1\t-1\t-1\t0\nfixture.pass.00\t0.5\t-1\t-1\t0\n");
        fclose(f);
        unlink(mark);
        char *env[] = { kc_san_test_env(), "PATH=/usr/bin:/bin", env_mark, env_wait, "KC_FIXTURE_EXIT0_S=4",
                        "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.01",
                        late ? "KC_FAKE_SANITIZER=late:memcheck" : "KC_FAKE_SANITIZER=clean", NULL };
        kc_proc p = kc_run_fake((char *[]){ "run", "fakesan.copy.f16:sanitize", "fixture.once.exit0", "fixture.pass.00",
                                            "fixture.pass.01", "--jobs", "2", "--costs", costs, "--no-cache", NULL },
                                env, 60);
        unlink(costs);
        unlink(mark);
        cr_assert(strstr(p.out, "fixture.once.exit0: CRASH while another item on the same GPU faulted beside it"),
                  "late %d: fixture.once.exit0 did not end its worker beside the loss:\n%s%s", late, p.out, p.err);
        cr_expect(strstr(p.out, "ended under an item before it said its compute-sanitizer sessions vouch (worker.h), so "
                                "the clean verdict they gave (fakesan.copy.f16:sanitize) is not vouched for: it goes "
                                "back to run again alone, and only that run counts"), "late %d: no run again:\n%s%s",
                  late, p.out, p.err);
        cr_expect_eq(kc_out_count(p.out, "PASS   fakesan.copy.f16:sanitize "), 1, "late %d: one line, the run "
                     "alone's:\n%s", late, p.out);
        cr_expect(strstr(p.out, "\nran again alone: 3 items"), "late %d:\n%s", late, p.out);
        cr_expect_eq(p.status, late, "late %d: exit %d\n%s%s", late, p.status, p.out, p.err);
        cr_expect(!late == !strstr(p.out, "; not trusted (a line above says why)"), "late %d:\n%s", late, p.out);
        kc_proc_free(&p);
    }
}

/* Serially, a clean :sanitize line comes when the worker's end line
 * vouched for its sessions, after the other items' lines, and the header
 * says why; a :sanitize FAIL (an error found is the item's own) and a run
 * without :sanitize items keep the selection's order and no such note. */
Test(sanitize, a_serial_run_prints_clean_sanitizer_lines_once_vouched, .timeout = 120)
{
    const char *note = "a clean :sanitize verdict is printed once the compute-sanitizer sessions that gave it vouch";
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16:sanitize", "fakesanknown.copy.f16:sanitize",
                                            "fixture.pass.00", "--no-cache", NULL }, 0, NULL, NULL);
    cr_expect_eq(p.status, 1, "fakesanknown's stale finding fails it: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, note), "%s", p.out);
    const char *clean = strstr(p.out, "\nPASS   fakesan.copy.f16:sanitize "),
               *fail = strstr(p.out, "\nFAIL   fakesanknown.copy.f16:sanitize "),
               *suite = strstr(p.out, "\nPASS   fixture.pass.00 ");
    cr_assert(clean && fail && suite, "%s", p.out);
    cr_expect(fail < suite && suite < clean, "the FAIL in order, the clean line after the others:\n%s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16:limits", "fixture.pass.00", "--no-cache", NULL }, 0, NULL,
                        NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_null(strstr(p.out, note), "%s", p.out);
    kc_proc_free(&p);
    /* No compute-sanitizer (none on $PATH; a KC_COMPUTE_SANITIZER that names no executable is refused,
     * test_cli.c): every :sanitize item is SKIP, none waits. */
    p = kc_run_fake((char *[]){ "run", "fakesan.copy.f16:sanitize", "fixture.pass.00", "--no-cache", NULL },
                    (char *[]){ "KC_COMPUTE_SANITIZER=", "PATH=/usr/bin:/bin", NULL }, 120);
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "\nSKIP   fakesan.copy.f16:sanitize "), "%s", p.out);
    cr_expect_null(strstr(p.out, note), "no tool, no late lines to explain:\n%s", p.out);
    kc_proc_free(&p);
}

/* Serially, a worker whose sessions gave clean verdicts and which a crash
 * ends sends them back once, to run after the other items: the fresh
 * worker's later crash (fixture.kill) finds none waiting on it. Before,
 * the serial order took them back at once, and each later crash sent
 * them again, each time with sessions of its own (a review's find). */
Test(sanitize, a_serial_run_sends_unvouched_verdicts_back_once_to_run_last, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16:sanitize", "fixture.crash", "fixture.kill",
                                            "fixture.pass.00", "--no-cache", NULL }, 0, NULL, NULL);
    cr_expect_eq(p.status, 1, "the crashes fail it: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_eq(kc_out_count(p.out, "is not vouched for: it goes back to run again alone"), 1, "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "PASS   fakesan.copy.f16:sanitize "), 1, "%s", p.out);
    const char *clean = strstr(p.out, "\nPASS   fakesan.copy.f16:sanitize "), *suite = strstr(p.out, "\nPASS   fixture.pass.00 ");
    cr_assert(clean && suite, "%s", p.out);
    cr_expect(suite < clean, "it ran again after the other items:\n%s", p.out);
    kc_proc_free(&p);
}

/* The sanitizer item ran first, fixture.pass.00 after it: its line means
 * the clean verdict waits on the sessions' summaries. */
static int suite_passed(const kc_live *l) { return strstr(l->out, "PASS   fixture.pass.00 ") != NULL; }
static int run_ended(const kc_live *l) { (void)l; return 0; }

/* A SIGINT or SIGTERM after a clean :sanitize verdict was given but before
 * its sessions' summaries were checked (they take 5 s here) leaves that
 * item NOTRUN, in a serial and a --jobs run (of one worker, so that the
 * order holds). A red team found it counted as
 * given: PASS in the TALLY, the JUnit report with no failure, and `merge`
 * of such a --shard log exited 0, while the same run uninterrupted failed
 * on a report that only its summary held. */
Test(sanitize, an_interrupt_before_the_sessions_vouch_leaves_their_clean_verdicts_not_run, .timeout = 60)
{
    const char *const sigs[] = { "SIGINT", "SIGTERM" };
    for (int m = 0; m < 2; m++) {
        char *args[] = { "run", "fakesan.copy.f16:sanitize", "fixture.pass.00", "--no-cache", m ? "--jobs" : NULL,
                         "1", NULL };
        char fake[PATH_MAX + 16];
        snprintf(fake, sizeof fake, "KC_LIBCUDA=%s", getenv("KC_FAKE_CUDA"));
        char *env[] = { fake, kc_san_test_env(), "PATH=/usr/bin:/bin", "KC_FAKE_SANITIZER_END_S=5", NULL };
        kc_live l;
        kc_live_start_env(&l, kc_test_fixture_bin(), args, env);
        cr_assert_eq(kc_live_read_until(&l, suite_passed, 30), 0, "%s", l.out);
        cr_assert_eq(kill(l.pid, m ? SIGTERM : SIGINT), 0);
        kc_live_read_until(&l, run_ended, 30);
        cr_expect_eq(kc_wait_status(l.pid), m ? 143 : 130, "%s", l.out);
        char want[200];
        snprintf(want, sizeof want, "NOTRUN fakesan.copy.f16:sanitize  not run: interrupted by %s, before worker 0 (pid ",
                 sigs[m]);
        cr_expect(strstr(l.out, want), "want '%s' in:\n%s", want, l.out);
        cr_expect(strstr(l.out, "said its compute-sanitizer sessions vouch (worker.h): their summaries were never "
                                "checked"), "%s", l.out);
        cr_expect_null(strstr(l.out, "PASS   fakesan.copy.f16:sanitize"), "%s", l.out);
        cr_expect(strstr(l.out, " sanitize.pass=0 ") && strstr(l.out, " sanitize.notrun=1 "), "%s", l.out);
        close(l.fd);
    }
}

/* --fail-fast stops the run at a crash that ended the worker holding a
 * clean :sanitize verdict before its sessions vouched: that verdict is
 * NOTRUN, recorded failed, so the retry --rerun-failed runs it. Before, it
 * was PASS (failed 0 in the cost table), and the retry never ran it, though
 * the run without --fail-fast failed on a report only the summary held. */
Test(sanitize, fail_fast_leaves_unvouched_clean_verdicts_not_run_and_recorded_failed, .timeout = 60)
{
    char costs[600], env_costs[640];
    snprintf(costs, sizeof costs, "%s/ff-unvouched.%ld.tsv", kc_test_tmpdir(), (long)getpid());
    snprintf(env_costs, sizeof env_costs, "KC_COSTS=%s", costs);
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16:sanitize", "fixture.crash", "fixture.pass.00",
                                            "--fail-fast", "--costs", costs, "--no-cache", NULL },
                                0, "KC_FAKE_SANITIZER_LATE=memcheck:fakesan.copy.f16:sanitize", env_costs);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "NOTRUN fakesan.copy.f16:sanitize  not run: --fail-fast: the run stopped after fixture.crash "
                            "(CRASH), before worker 0 (pid "), "%s", p.out);
    cr_expect_null(strstr(p.out, "PASS   fakesan.copy.f16:sanitize"), "%s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "list", "--rerun-failed", "--costs", costs, NULL }, 0, NULL, NULL);
    cr_expect(strstr(p.out, "fakesan.copy.f16:sanitize"), "the retry does not run it:\n%s%s", p.out, p.err);
    kc_proc_free(&p);
    unlink(costs);
}
