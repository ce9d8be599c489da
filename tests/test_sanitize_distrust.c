/* test_sanitize_distrust.c — when a sanitizer session's output may hold an
 * earlier item's report (src/gates/sanitize.c, sanitize_session.c,
 * sanitize_batch.c, src/run/worker_lanes.c), the items the session called
 * clean are not trusted: the run fails, and the results cache keeps none of
 * that process's sanitizer verdicts, so a second run with the same cache
 * does not read green either. Each test runs the fixture binary twice on one
 * cache directory through the fake driver and the fake compute-sanitizer
 * (tests/fake/compute-sanitizer's modes). Found by a review: each of these
 * read green, in the first run or in the cached second. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/sanitize_runs.h"
#include "support/spawn.h"

#define A "fakenosmem.copy.f16:sanitize"
#define B "fakesan.copy.f16:sanitize"

/* Whether a line of out names item and says it was reused from the cache. */
static int reused(const char *out, const char *item)
{
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *end = strchr(l, '\n'), *c = strstr(l, "[cached:"), *n = strstr(l, item);
        if (c && n && (!end || (c < end && n < end))) return 1;
    }
    return 0;
}

/* Runs args twice with the fake tool, the extra variables env (NULL-ended,
 * at most 6) and one results cache: each run must fail and say `why` (or
 * or_why, when not NULL), and the second must not reuse A's verdict (the
 * item the session called clean). */
static void fails_twice_either(char **args, const char *const *env, const char *why, const char *or_why)
{
    char dir[512], cache[600];
    kc_tmp_dir(dir, sizeof dir, "san-distrust");
    snprintf(cache, sizeof cache, "KC_CACHE_DIR=%s", dir);
    for (int run = 1; run <= 2; run++) {
        char *e[10] = { kc_san_test_env(), "PATH=/usr/bin:/bin", cache };
        int n = 3;
        for (int i = 0; env[i] && n < 9; i++) e[n++] = (char *)env[i];
        e[n] = NULL;
        kc_proc p = kc_run_fake(args, e, 120);
        cr_expect_eq(p.status, 1, "run %d: exit %d\n%s%s", run, p.status, p.out, p.err);
        cr_expect(strstr(p.out, why) || (or_why && strstr(p.out, or_why)), "run %d: no \"%s\":\n%s", run, why, p.out);
        cr_expect(!reused(p.out, A), "run %d reused a verdict of a distrusted session:\n%s", run, p.out);
        kc_proc_free(&p);
    }
    kc_rm_rf(dir);
}

static void fails_twice(char **args, const char *const *env, const char *why)
{
    fails_twice_either(args, env, why, NULL);
}

/* A late report of A's opens B's window, where B's own error is: B fails
 * alone too, so no count tells the late report apart; A's PASS falls. */
Test(sanitize_distrust, a_late_report_beside_the_next_items_own_error, .timeout = 120)
{
    fails_twice((char *[]){ "run", A, B, NULL },
                (const char *[]){ "KC_FAKE_SANITIZER=lateexit:memcheck:" A, "KC_FAKE_SANITIZER_LATEEXIT_S=2",
                                  "KC_FAKE_SANITIZER_ERROR=memcheck:" B, NULL },
                "the memcheck session's window for " B ", after 1 item it called clean, was not clean, and the item "
                "fails alone too, so its reports cannot be told from theirs (");
}

/* A late report of A's beside the next item's registered known finding:
 * KNOWN is not a failure, and the run read green. */
Test(sanitize_distrust, a_late_report_beside_a_known_finding, .timeout = 120)
{
    fails_twice((char *[]){ "run", A, "fakesanknown.copy.f16:sanitize", NULL },
                (const char *[]){ "KC_FAKE_SANITIZER=late:memcheck:" A,
                                  "KC_FAKE_SANITIZER_ERROR=memcheck:fakesanknown.copy.f16:sanitize", NULL },
                "(a report the item alone does not give: Invalid __global__ read of size 2 bytes)");
}

/* A report past the 256 KiB a window keeps, in a request after the first:
 * the window is not clean, the item is clean alone, and only the session's
 * summary counts the error. */
Test(sanitize_distrust, a_report_past_what_a_window_keeps, .timeout = 120)
{
    fails_twice((char *[]){ "run", A, B, NULL }, (const char *[]){ "KC_FAKE_SANITIZER_FLOODLATE=memcheck:" B, NULL },
                "(it counted 1 error, the item alone 0)");
}

/* The same, in a window its time limit stopped: no report line is kept
 * there either, only the session's count. */
Test(sanitize_distrust, a_report_past_what_a_window_stopped_at_its_limit_keeps, .timeout = 120)
{
    fails_twice((char *[]){ "run", A, B, NULL },
                (const char *[]){ "KC_SANITIZE_TIMEOUT_S=3", "KC_FAKE_SANITIZER=hang:memcheck:" B,
                                  "KC_FAKE_SANITIZER_FLOODLATE=memcheck:" B, NULL },
                "the memcheck session reported an error while " B " ran, which it stopped at its time limit after 1 "
                "item it called clean");
}

/* A session that died between items with no late report and no summary:
 * what it saw is unknown (sessions off, the same tool is a CRASH). Seen
 * between the items when the kill lands before the next request, else in
 * the next item's window (a race the gate cannot win; both distrust). */
Test(sanitize_distrust, a_session_that_died_without_its_summary, .timeout = 120)
{
    fails_twice_either((char *[]){ "run", A, B, NULL },
                       (const char *[]){ "KC_FAKE_SANITIZER_QUIETEXIT=memcheck:" A, NULL },
                       "the memcheck session ended between items with no summary to count what it saw (killed by signal 9",
                       "the memcheck session's window for " B ", after 1 item it called clean, was not clean, and the "
                       "item alone does not account for what the session printed (it ended without its summary)");
}

/* A session that does not end within its time limit once its input closes
 * never printed its summary (sessions off, the same tool is a TIMEOUT). */
Test(sanitize_distrust, a_session_that_hangs_at_its_end, .timeout = 120)
{
    fails_twice((char *[]){ "run", A, NULL },
                (const char *[]){ "KC_SANITIZE_TIMEOUT_S=2", "KC_FAKE_SANITIZER_END_S=8", NULL },
                "the memcheck session ended without its summary (stopped at its time limit)");
}

/* A session that crashed in a later item's window: the earlier items'
 * clean verdicts fall with it (the crashed item is a CRASH either way). */
Test(sanitize_distrust, a_session_that_crashed_in_a_later_window, .timeout = 120)
{
    fails_twice((char *[]){ "run", A, B, NULL }, (const char *[]){ "KC_FAKE_SANITIZER=crash:" B, NULL },
                "the memcheck session's window for " B ", after 1 item it called clean, was not clean");
}

/* A --jobs worker with lanes that loses its CUDA context ended without
 * checking its sessions: a report its session printed after A's window
 * was never read, and the run read green. The cost table puts A first. */
Test(sanitize_distrust, a_worker_with_lanes_checks_its_sessions_after_a_context_loss, .timeout = 120)
{
    char costs[512], env_costs[600];
    kc_tmp_path(costs, sizeof costs, "costs", "lanes-loss");
    FILE *f = fopen(costs, "w");
    cr_assert_not_null(f);
    fprintf(f, "# kcontract costs v1\n# item\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tfailed\n%s\t4\t4160\t-1\t0\n"
               "fake.axpy.f32:control.fault\t1\t4160\t-1\t0\n", A);
    fclose(f);
    snprintf(env_costs, sizeof env_costs, "%s", costs);
    fails_twice((char *[]){ "run", A, "fake.axpy.f32:control.fault", "--jobs", "1", "--inflight", "2", "--costs",
                            env_costs, NULL },
                (const char *[]){ "KC_FAKE_SANITIZER=lateexit:memcheck:" A, "KC_SANITIZER_HOST_MIB=0",
                                  "KC_SANITIZER_GPU_MIB=0", NULL },
                "the memcheck session counted 1 error that no item's window held");
    unlink(costs);
}

/* The other way round: a session this process stops at an item's time
 * limit, where it was that session's first request, ended by no fault of
 * the items after it (served by a fresh session): the hung item is TIMEOUT,
 * the rest stay trusted and cached (found by a review: the stopped session
 * was taken for one that died between items, and every :sanitize verdict of
 * the process was distrusted). */
Test(sanitize_distrust, a_session_stopped_at_an_items_limit_leaves_the_others_trusted, .timeout = 120)
{
    char dir[512], cache[600], line[8192];
    kc_tmp_dir(dir, sizeof dir, "san-distrust-hang");
    snprintf(cache, sizeof cache, "KC_CACHE_DIR=%s", dir);
    for (int run = 1; run <= 2; run++) {
        char *env[] = { kc_san_test_env(), "PATH=/usr/bin:/bin", cache, "KC_SANITIZE_TIMEOUT_S=3",
                        "KC_FAKE_SANITIZER=hang:memcheck:fakeedges.copy.f16:sanitize", NULL };
        kc_proc p = kc_run_fake((char *[]){ "run", "fakeedges.copy.f16:sanitize", A, B, NULL }, env, 120);
        cr_expect_eq(p.status, 1, "run %d: exit %d\n%s%s", run, p.status, p.out, p.err);
        cr_expect(kc_out_item_line(p.out, "TIMEOUT", "fakeedges.copy.f16:sanitize", line, sizeof line), "run %d:\n%s",
                  run, p.out);
        cr_expect(!strstr(p.out, "not trusted"), "run %d distrusted the items after the stopped session:\n%s", run, p.out);
        if (run == 2) cr_expect(reused(p.out, A) && reused(p.out, B), "run 2 did not reuse the clean items:\n%s", p.out);
        kc_proc_free(&p);
    }
    kc_rm_rf(dir);
}
