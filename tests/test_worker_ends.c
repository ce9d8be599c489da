/* test_worker_ends.c — a worker that ends on its own without its end line
 * (src/run/queue_deaths.c), found by a red-team helper: a thread an item
 * leaves behind (fakethread.vec4.f32, tests/fixtures/fake_contracts.c)
 * calls exit(0) while the worker runs later items. With items in flight
 * the run read green once their runs alone passed; serially the next item
 * was CRASH, but the culprit's pass stayed in the results cache and the
 * cost table, so the next cached run, or --rerun-failed, read green.
 * Now: the run is not green, and the passes finished before such an end
 * are neither kept nor recorded as passes. Each failed before the change. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "support/run_output.h"
#include "support/sanitize_runs.h"
#include "support/spawn.h"
#include "tally.h"

/* Env for a run whose culprit's thread ends one process (once: FILE) ms
 * after it starts, or, with under (an item's name; NULL: none), ms after
 * that item starts (KC_FAULT_TOUCH_FILE); cache: its KC_CACHE_DIR=...
 * entry or "KC_CACHE_DIR=off". e->env has room for one more entry. */
typedef struct ends_env {
    char once[300], once_env[340], cache_env[340], touch_env[400], after_env[360];
    char *env[10];
} ends_env;

static void ends_env_init(ends_env *e, const char *dir, const char *tag, const char *ms, const char *cache,
                          const char *under)
{
    snprintf(e->once, sizeof e->once, "%s/%s.once", dir, tag);
    snprintf(e->once_env, sizeof e->once_env, "KC_FIXTURE_EXIT_THREAD_ONCE=%s", e->once);
    snprintf(e->cache_env, sizeof e->cache_env, "KC_CACHE_DIR=%s", cache);
    int n = 0;
    e->env[n++] = e->once_env;
    e->env[n++] = e->cache_env;
    e->env[n++] = (char *)ms;
    e->env[n++] = "KC_FIXTURE_REF_SLEEP_MS=100";     /* fakeslow.vec4.f32: 0.5 s, in flight when the thread fires */
    /* fixture.cost.00: 900 ms; a thread fired 300-400 ms into it ends that
     * item and no other, with room on both sides (counted from fakethread's
     * first reference, on a loaded machine fakethread itself sometimes took
     * longer and the exit came under it: a CRASH of the wrong item; counted
     * from the item's start, under, it cannot) */
    e->env[n++] = "KC_FIXTURE_COST_SCALE=3";
    if (under) {
        snprintf(e->touch_env, sizeof e->touch_env, "KC_FAULT_TOUCH_FILE=%s@%s/%s.under", under, dir, tag);
        snprintf(e->after_env, sizeof e->after_env, "KC_FIXTURE_EXIT_THREAD_FILE=%s/%s.under", dir, tag);
        e->env[n++] = e->touch_env;
        e->env[n++] = e->after_env;
    }
    e->env[n] = NULL;
}

/* --inflight 4: the thread ends the worker while fakeslow.vec4.f32 and the
 * others are in flight; each goes back and passes alone. A serial run has
 * that end's CRASH: the --inflight run must not read green either. */
Test(worker_ends, an_end_no_item_explains_makes_an_inflight_run_not_green, .timeout = 60)
{
    char dir[256];
    kc_tmp_dir(dir, sizeof dir, "ends-inflight");
    const char *modes[][4] = { { "--inflight", "4", NULL }, { "--jobs", "2", "--inflight", "4" } };
    for (int m = 0; m < 2; m++) {
        ends_env e;
        char tag[16];
        snprintf(tag, sizeof tag, "m%d", m);
        ends_env_init(&e, dir, tag, "KC_FIXTURE_EXIT_THREAD_MS=20", "off", NULL);
        char *args[16] = { "run" };
        int n = 1;
        for (int i = 0; i < 4 && modes[m][i]; i++) args[n++] = (char *)modes[m][i];
        args[n++] = "fakethread.vec4.f32";
        args[n++] = "fakeslow.vec4.f32";
        args[n++] = "fake.axpy.f32";
        args[n++] = "fake.copy.f16";
        args[n] = NULL;
        kc_proc p = kc_run_fake(args, e.env, 60);
        kc_tally t;
        kc_out_tally(p.out, &t);
        cr_expect_eq(p.status, 1, "mode %d: exit %d, expected 1 (not green)\n%s%s", m, p.status, p.out, p.err);
        cr_expect_eq(t.untrusted, 1, "mode %d: the TALLY does not say untrusted=1\n%s", m, p.out);
        cr_expect(strstr(p.out, "and each passed its run alone: what ended the process is not known"),
                  "mode %d: no line says the end is not explained\n%s%s", m, p.out, p.err);
        cr_expect(strstr(p.out, "; not trusted (a line above says why)"), "mode %d: the SUMMARY reads green\n%s", m,
                  p.out);
        kc_proc_free(&p);
    }
    kc_rm_rf(dir);
}

/* Serially the thread ends the worker under fixture.cost.00 (900 ms), which
 * is CRASH; fakethread.vec4.f32, which passed before in that process, is a
 * suspect: not kept in the cache, recorded failed in the cost table. The
 * next run (its thread started again) runs it and is red again; before, it
 * read its pass from the cache. --rerun-failed runs both. */
Test(worker_ends, passes_before_an_end_on_its_own_are_neither_kept_nor_recorded_passed, .timeout = 90)
{
    char dir[256], cache[300], costs[300], costs_arg[320];
    kc_tmp_dir(dir, sizeof dir, "ends-serial");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    snprintf(costs, sizeof costs, "%s/costs.tsv", dir);
    snprintf(costs_arg, sizeof costs_arg, "--costs=%s", costs);
    for (int k = 0; k < 2; k++) {
        ends_env e;
        char tag[16];
        snprintf(tag, sizeof tag, "run%d", k);
        ends_env_init(&e, dir, tag, "KC_FIXTURE_EXIT_THREAD_MS=300", cache, "fixture.cost.00");
        kc_proc p = kc_run_fake((char *[]){ "run", costs_arg, "fakethread.vec4.f32", "fixture.cost.00", NULL }, e.env,
                                60);
        kc_tally t;
        kc_out_tally(p.out, &t);
        char line[2048];
        cr_expect_eq(p.status, 1, "run %d: exit %d\n%s%s", k, p.status, p.out, p.err);
        cr_expect(kc_out_item_line(p.out, "CRASH", "fixture.cost.00", line, sizeof line), "run %d: no CRASH\n%s", k,
                  p.out);
        cr_expect_eq(t.cached, 0, "run %d reused the pass of an item its ended worker ran before\n%s", k, p.out);
        cr_expect(strstr(p.out, "so the 1 item it passed (fakethread.vec4.f32) is not kept in the results cache"),
                  "run %d: the suspect is not named\n%s", k, p.out);
        kc_proc_free(&p);
    }
    const char *t = kc_out_file(costs), *row = strstr(t, "\nfakethread.vec4.f32\t");
    const char *eol = row ? strchr(row + 1, '\n') : NULL;
    cr_expect(eol && eol - row > 2 && strncmp(eol - 2, "\t1", 2) == 0,
              "the cost table does not record the suspect failed:\n%s", t);
    ends_env e;
    ends_env_init(&e, dir, "rerun", "KC_FIXTURE_EXIT_THREAD_MS=300", "off", "fixture.cost.00");
    kc_proc r = kc_run_fake((char *[]){ "run", "--rerun-failed", costs_arg, "fakethread.vec4.f32", "fixture.cost.00",
                                        NULL }, e.env, 60);
    char line[2048];
    cr_expect(kc_out_item_line(r.out, "PASS", "fakethread.vec4.f32", line, sizeof line) &&
                  kc_out_item_line(r.out, "CRASH", "fixture.cost.00", line, sizeof line),
              "--rerun-failed did not run the suspect with the item it ended under:\n%s", r.out);
    cr_expect_eq(r.status, 1, "--rerun-failed: exit %d\n%s", r.status, r.out);
    kc_proc_free(&r);
    kc_rm_rf(dir);
}

/* A static shard runs its items in its own process and keeps their passes
 * itself: a shard the thread ends under fixture.cost.00 does not finish (the
 * run is not green), and it keeps no pass, so the next run, whose thread
 * ends no one, runs fakethread.vec4.f32 again rather than reading it from
 * the cache (before, it was cached and the next run read green). */
Test(worker_ends, a_static_shard_that_dies_keeps_none_of_its_passes, .timeout = 90)
{
    char dir[256], cache[300];
    kc_tmp_dir(dir, sizeof dir, "ends-static");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    char *args[] = { "run", "--jobs", "1", "--schedule", "static", "fakethread.vec4.f32", "fixture.cost.00", NULL };
    ends_env e;
    ends_env_init(&e, dir, "first", "KC_FIXTURE_EXIT_THREAD_MS=300", cache, "fixture.cost.00");
    kc_proc a = kc_run_fake(args, e.env, 60);
    cr_expect_eq(a.status, 1, "the shard the thread ended: exit %d\n%s%s", a.status, a.out, a.err);
    kc_proc_free(&a);
    ends_env_init(&e, dir, "second", "KC_FIXTURE_EXIT_THREAD_MS=5000", cache, NULL);
    kc_proc b = kc_run_fake(args, e.env, 60);
    kc_tally t;
    kc_out_tally(b.out, &t);
    cr_expect_eq(t.cached, 0, "the pass of the dead shard was kept and reused:\n%s", b.out);
    kc_proc_free(&b);
    kc_rm_rf(dir);
}

/* --jobs 2: one worker runs fake.axpy.f32:control.fault, whose lost context
 * is torn down for 1.5 s (KC_FAULT_TEARDOWN_S), and while it is no other
 * control planted for gate 1 is handed out; the other worker passes
 * fakethread.vec4.f32 and waits, idle, for fakeedges.copy.f16:control.fault.
 * The thread it left raises SIGABRT then: the worker ends with no item in
 * hand. This run read green (exit 0) once both controls were RED, with only
 * the suspect's cache entry and cost row to say otherwise; with an item
 * after fakethread.vec4.f32 that outlasts the thread (fixture.cost.00 under
 * KC_FIXTURE_COST_SCALE=4) the serial run was red (that item's CRASH) while
 * --jobs 3, whose worker sat idle, exited 0. */
Test(worker_ends, an_end_on_its_own_with_no_item_in_hand_makes_the_run_not_green, .timeout = 60)
{
    char *env[] = { "KC_CACHE_DIR=off", "KC_FIXTURE_EXIT_THREAD_MS=500", "KC_FIXTURE_EXIT_THREAD_SIG=6",
                    "KC_FAULT_TEARDOWN_S=1.5", NULL };
    kc_proc p = kc_run_fake((char *[]){ "run", "--jobs", "2", "fake.axpy.f32:control.fault",
                                        "fakeedges.copy.f16:control.fault", "fakethread.vec4.f32", NULL }, env, 60);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_assert(strstr(p.out, "killed by signal 6 (SIGABRT) between items"),
              "the thread did not end an idle worker (the test's premise)\n%s%s", p.out, p.err);
    cr_expect_eq(p.status, 1, "exit %d, expected 1 (not green)\n%s%s", p.status, p.out, p.err);
    cr_expect_eq(t.untrusted, 1, "the TALLY does not say untrusted=1\n%s", p.out);
    cr_expect(strstr(p.out, "with no item in hand, after 1 item it passed: no verdict explains that end"),
              "no line says why the run is not green\n%s", p.out);
    kc_proc_free(&p);
}

/* Serially: fixture.gpu.e.limit leaves a limit the fake driver will not set
 * back (KC_FAKE_LIMITS_STICK), so its worker is replaced by the standby
 * and ends in the standby's slot, waiting 1.5 s for its sanitizer
 * sessions' summaries (KC_FAKE_SANITIZER_END_S); fakethread.vec4.f32's
 * thread ends it then (exit(0), 300 ms after the standby starts
 * fixture.pass.00), before its end line. The run is not green;
 * but fakethread.vec4.f32's pass stayed in the results cache (the
 * replaced worker's end had no suspects), and the next run, whose thread
 * never started, read it from there and was green. */
Test(worker_ends, the_worker_a_standby_replaced_has_its_suspects_too, .timeout = 90)
{
    char dir[256], cache_env[340], once[300], once_env[340], touch_env[400], after_env[360];
    kc_tmp_dir(dir, sizeof dir, "ends-retired");
    snprintf(cache_env, sizeof cache_env, "KC_CACHE_DIR=%s/cache", dir);
    char *args[] = { "run", KC_SAN_TEST_ITEM, "fakethread.vec4.f32", "fixture.gpu.e.limit", "fixture.pass.00", NULL };
    for (int k = 0; k < 2; k++) {
        snprintf(once, sizeof once, "%s/run%d.once", dir, k);
        snprintf(once_env, sizeof once_env, "KC_FIXTURE_EXIT_THREAD_ONCE=%s", once);
        /* the thread fires 300 ms after the standby starts fixture.pass.00,
         * while the replaced worker waits its 1.5 s */
        snprintf(touch_env, sizeof touch_env, "KC_FAULT_TOUCH_FILE=fixture.pass.00@%s/run%d.under", dir, k);
        snprintf(after_env, sizeof after_env, "KC_FIXTURE_EXIT_THREAD_FILE=%s/run%d.under", dir, k);
        char *env[] = { kc_san_test_env(), cache_env, once_env, touch_env, after_env, "KC_FIXTURE_EXIT_THREAD_MS=300",
                        "KC_FAKE_LIMITS_STICK=1", "KC_FAKE_SANITIZER_END_S=1.5", NULL };
        kc_proc p = kc_run_fake(args, env, 60);
        kc_tally t;
        kc_out_tally(p.out, &t);
        char line[2048];
        cr_assert(strstr(p.out, "this process is replaced"), "run %d: no worker was replaced (the test's premise)\n%s%s",
                  k, p.out, p.err);
        cr_expect_eq(p.status, 1, "run %d: exit %d, expected 1\n%s%s", k, p.status, p.out, p.err);
        cr_expect(!kc_out_item_line(p.out, "PASS", "fakethread.vec4.f32", line, sizeof line) ||
                      !strstr(line, "[cached: "),
                  "run %d reused the pass of an item its ended worker ran before\n%s", k, p.out);
        cr_expect(strstr(p.out, "items it passed (fakethread.vec4.f32, fixture.gpu.e.limit) are not kept in the "
                                "results cache"), "run %d: the suspects are not named\n%s", k, p.out);
        kc_proc_free(&p);
    }
    kc_rm_rf(dir);
}

/* The status a worker exits with when its sanitizer sessions do not vouch
 * (KC_WORKER_UNTRUSTED, 5) was taken for its word: a thread an item left
 * that calls exit(5) ended the worker under fixture.cost.00 (CRASH), but
 * no suspects were taken, fakethread.vec4.f32's pass stayed in the results
 * cache, and the next run reused it and exited 0. The status is the
 * worker's own only after it said so on its result pipe (UNTRUSTED). */
Test(worker_ends, an_exit_with_the_untrusted_status_is_not_taken_for_the_workers_word, .timeout = 90)
{
    char dir[256], cache[300];
    kc_tmp_dir(dir, sizeof dir, "ends-status5");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    for (int k = 0; k < 2; k++) {
        ends_env e;
        char tag[16];
        snprintf(tag, sizeof tag, "run%d", k);
        ends_env_init(&e, dir, tag, "KC_FIXTURE_EXIT_THREAD_MS=300", cache, "fixture.cost.00");
        e.env[7] = "KC_FIXTURE_EXIT_THREAD_STATUS=5";
        e.env[8] = NULL;
        kc_proc p = kc_run_fake((char *[]){ "run", "fakethread.vec4.f32", "fixture.cost.00", NULL }, e.env, 60);
        kc_tally t;
        kc_out_tally(p.out, &t);
        cr_expect_eq(p.status, 1, "run %d: exit %d\n%s%s", k, p.status, p.out, p.err);
        cr_expect_eq(t.cached, 0, "run %d reused the pass of an item its ended worker ran before\n%s", k, p.out);
        cr_expect(strstr(p.out, "so the 1 item it passed (fakethread.vec4.f32) is not kept in the results cache"),
                  "run %d: the suspect is not named\n%s", k, p.out);
        kc_proc_free(&p);
    }
    kc_rm_rf(dir);
}
