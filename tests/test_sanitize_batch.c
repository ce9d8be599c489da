/* test_sanitize_batch.c — racecheck over several :sanitize items in one
 * request (kc_sanitize_batch, src/gates/sanitize.h; the holder's side:
 * kc_item_run_batch, worker_lanes.c) through whole runs of the fixture
 * binary under the fake driver and the fake compute-sanitizer: a batch gives
 * the verdicts of one item at a time, a report sends each item of its batch
 * alone, reports the runs alone do not account for fail them all (another
 * item's race explains one report, never a second; a report past what a
 * window keeps is still counted), a hang in a batch (in the tool, or in the worker)
 * ends with each item decided alone, as does a process left running after
 * it; without a GPU each item is SKIP once. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/sanitize_runs.h"
#include "support/spawn.h"

#define ITEMS "*:sanitize"
#define NSAN 12             /* the fixture's :sanitize items */

/* Every :sanitize item of the fixture: its name and state, "name STATE\n"
 * each, sorted by name into buf; and how many said they were in a batch. */
static int verdicts(const kc_proc *p, char *buf, size_t cap)
{
    char names[NSAN][200], line[8192];
    int n = 0, batched = 0;
    for (const char *l = p->out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *s = strncmp(l, "[w", 2) == 0 ? strchr(l, ' ') + 1 : l;
        char st[16], name[160];
        if (sscanf(s, "%15s %159s", st, name) != 2 || !strstr(name, ":sanitize") || n == NSAN) continue;
        if (strcmp(st, "PASS") && strcmp(st, "FAIL") && strcmp(st, "TIMEOUT") && strcmp(st, "CRASH")) continue;
        snprintf(names[n++], sizeof names[0], "%s %s\n", name, st);
        const char *e = strchr(l, '\n');
        snprintf(line, sizeof line, "%.*s", e ? (int)(e - l) : (int)strlen(l), l);
        batched += strstr(line, ", a batch of ") != NULL || strstr(line, "the racecheck batch of ") != NULL;
        cr_expect(strcmp(st, "PASS") || !strstr(line, "rerun:"), "a PASS line carries a rerun command: %s", line);
    }
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    buf[0] = 0;
    for (int i = 0; i < n; i++) strncat(buf, names[i], cap - strlen(buf) - 1);
    return batched;
}

/* items (NULL-ended, at most 8) on one worker with lanes (--jobs 1
 * --inflight 4) and a cost table of its own (the default one is written by
 * the tests beside this one, and its order decides the batches), under the
 * fake sanitizer with the environment words env (NULL-ended, at most 6). */
static kc_proc one_worker(char *const *items, char *const *env)
{
    char costs[256], *argv[20], *envv[10];
    int a = 0, e = 0;
    kc_tmp_path(costs, sizeof costs, "sanbatch", "costs");
    argv[a++] = "run";
    for (; *items; items++) {
        cr_assert(a < 9, "at most 8 items");
        argv[a++] = *items;
    }
    char *const rest[] = { "--jobs", "1", "--inflight", "4", "--costs", costs, NULL };
    for (int k = 0; rest[k]; k++) argv[a++] = rest[k];
    argv[a] = NULL;
    envv[e++] = kc_san_test_env();
    envv[e++] = "PATH=/usr/bin:/bin";
    for (; *env; env++) {
        cr_assert(e < 8, "at most 6 environment words");
        envv[e++] = *env;
    }
    envv[e] = NULL;
    kc_proc p = kc_run_fake(argv, envv, 120);
    unlink(costs);
    return p;
}

/* A holder with lanes runs racecheck over its :sanitize items in batches,
 * and every verdict is the one a serial run gives (SUMMARY and each item's
 * state); KC_SANITIZE_BATCH=0, or no lanes, runs none. */
Test(sanitize_batch, a_batch_gives_the_verdicts_of_one_item_at_a_time, .timeout = 120)
{
    char serial[4096], batched[4096], off[4096], s1[2048], s2[2048], s3[2048];
    kc_proc p = kc_san_test_run((char *[]){ "run", ITEMS, "--jobs", "1", NULL }, 0, NULL, NULL);
    cr_expect_eq(verdicts(&p, serial, sizeof serial), 0, "no lanes, no batch: %s", p.out);
    kc_out_summary(p.out, s1, sizeof s1);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", ITEMS, "--jobs", "2", "--inflight", "4", NULL }, 0, NULL, NULL);
    cr_expect_gt(verdicts(&p, batched, sizeof batched), 1, "items in batches: %s", p.out);
    kc_out_summary(p.out, s2, sizeof s2);
    cr_expect_str_eq(batched, serial);
    cr_expect_str_eq(s2, s1);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", ITEMS, "--jobs", "2", "--inflight", "4", NULL }, 0, "KC_SANITIZE_BATCH=0", NULL);
    cr_expect_eq(verdicts(&p, off, sizeof off), 0, "KC_SANITIZE_BATCH=0: %s", p.out);
    kc_out_summary(p.out, s3, sizeof s3);
    cr_expect_str_eq(off, serial);
    cr_expect_str_eq(s3, s1);
    kc_proc_free(&p);
}

/* A race reported in a batch sends every item of it to racecheck alone: the
 * item whose report it is FAILs by its own run, the others pass, as
 * serially. */
Test(sanitize_batch, an_error_in_a_batch_is_decided_by_each_item_alone, .timeout = 120)
{
    const char *env = "KC_FAKE_SANITIZER=error:racecheck:fakeedges.copy.f16:sanitize";
    char serial[4096], batched[4096], line[8192];
    kc_proc p = kc_san_test_run((char *[]){ "run", ITEMS, "--jobs", "1", NULL }, 0, env, NULL);
    verdicts(&p, serial, sizeof serial);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", ITEMS, "--jobs", "2", "--inflight", "4", NULL }, 0, env, NULL);
    verdicts(&p, batched, sizeof batched);
    cr_expect_str_eq(batched, serial);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedges.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "racecheck: Error: Race reported between Write access") &&
              !strstr(line, "batch"), "its own run decides it: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakeedgesmem.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
}

/* A report in a batch that no item of it reproduces alone (out of order, or
 * the batch's own) is never green: every item of that batch FAILs, naming
 * the batch and the way out; with KC_SANITIZE_BATCH=0 there is no batch and
 * no such report. */
Test(sanitize_batch, a_report_no_item_reproduces_alone_fails_the_whole_batch, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", ITEMS, "--jobs", "1", "--inflight", "8", NULL }, 0,
                                "KC_FAKE_SANITIZER=batchonly:racecheck", NULL);
    char line[8192];
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    int failed = kc_out_count(p.out, "reported what its items' runs alone do not account for (racecheck: Error: Race "
                                     "reported between Write access");
    cr_expect_geq(failed, 2, "every item of the batch: %s", p.out);
    cr_expect(strstr(p.out, "the racecheck batch of ") && strstr(p.out, "it cannot be pinned on an item, so the "
                                                                       "batch's clean verdicts cannot be trusted") &&
              strstr(p.out, "rerun the selection with KC_SANITIZE_BATCH=0"), "%s", p.out);
    char all[4096];
    cr_expect_eq(verdicts(&p, all, sizeof all), failed, "every item that was in a batch FAILs: %s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", ITEMS, "--jobs", "1", "--inflight", "8", NULL }, 0,
                        "KC_FAKE_SANITIZER=batchonly:racecheck", "KC_SANITIZE_BATCH=0");
    cr_expect_eq(kc_out_count(p.out, "do not account for"), 0, "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakeedges.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
}

/* A batch whose session hangs at one item reaches the tool's time limit;
 * each item of it then runs racecheck alone: the one that hangs is TIMEOUT
 * by its own run, the others pass. */
Test(sanitize_batch, a_batch_that_hangs_in_the_tool_runs_each_item_alone, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakeedges*:sanitize", "fakesan.copy.f16:sanitize", "--jobs", "1",
                                            "--inflight", "8", NULL }, 0,
                                "KC_FAKE_SANITIZER=hang:racecheck:fakeedgesmem.copy.f16:sanitize", "KC_SANITIZE_TIMEOUT_S=2");
    char line[8192];
    cr_expect(kc_out_item_line(p.out, "TIMEOUT", "fakeedgesmem.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "racecheck: compute-sanitizer did not finish in 2 s"), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakeedges.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
}

/* A worker that hangs in its batch is stopped at the batch's time limit
 * (the sum of its items' limits: they run in turn), and every item of the
 * batch is put back and decided by a run alone: the one that hangs is
 * TIMEOUT, the others pass. */
Test(sanitize_batch, a_worker_that_hangs_in_a_batch_puts_every_item_back_alone, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakeedges.copy.f16:sanitize", "fakesan.copy.f16:sanitize", "--jobs",
                                            "1", "--inflight", "4", "--timeout", "2", NULL }, 0,
                                "KC_FAULT_HANG_ITEM=fakesan.copy.f16:sanitize", NULL);
    char line[8192];
    cr_expect(strstr(p.out, "a batch of 2 :sanitize items (") &&
              strstr(p.out, "; which of them holds it up is not known) exceeded its time limit of 4 s on worker 0"),
              "the batch is named, not one item of it: %s", p.out);
    cr_expect_eq(kc_out_count(p.out, "in flight on worker 0 "), 2, "both put back: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "TIMEOUT", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakeedges.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    char s[2048];
    kc_out_summary(p.out, s, sizeof s);
    cr_expect(strstr(s, "2 sanitizer checks: 1 clean, 0 with errors") && strstr(s, "; 1 timed out"), "%s", s);
    kc_proc_free(&p);
}

/* An item failed by its own run, whose reports in the batch were others
 * (on an H100 a planted race gave another pair of places in a batch than
 * alone): the batch's reports cannot be matched with the runs alone, so the
 * items that passed alone run together again without it, and that batch
 * decides them. Clean, they PASS; a report there that no run alone gives
 * FAILs each of them; a batch of one would be its run alone again, which
 * decides it. */
Test(sanitize_batch, an_item_failed_alone_leaves_the_others_to_a_batch_without_it, .timeout = 120)
{
    char *three[] = { "run", "fakeedges.copy.f16:sanitize", "fakesan.copy.f16:sanitize", "fakeedgesmem.copy.f16:sanitize",
                      "--jobs", "1", "--inflight", "4", NULL };
    char line[8192];
    /* the racy item's batch report is another than its own alone */
    kc_proc p = kc_san_test_run(three, 0, "KC_FAKE_SANITIZER=error:racecheck:fakeedges.copy.f16:sanitize",
                                "KC_FAKE_SANITIZER_BATCHONLY=racecheck:fakeedges.copy.f16:sanitize");
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedges.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "racecheck: Error: Race reported between Write access at fake_copy_f16(__half *, const "
                           "__half *, long)+0x1b0"), "its own race: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    /* its line names the three runs: the batch, alone, the batch without it */
    cr_expect(kc_out_item_line(p.out, "PASS", "fakeedgesmem.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, " s (edge shapes, a batch of 3 items: not clean), racecheck ") &&
              strstr(line, "(edge shapes, a batch of 2 items, launched together)"), "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "do not account for"), 0, "%s", p.out);
    kc_proc_free(&p);
    /* a neighbour's report that only a batch gives, again without the racy item */
    p = kc_san_test_run(three, 0, "KC_FAKE_SANITIZER=error:racecheck:fakeedges.copy.f16:sanitize",
                        "KC_FAKE_SANITIZER_BATCHONLY=racecheck:fakesan.copy.f16:sanitize");
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedges.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "+0x1b0") && !strstr(line, "batch"), "its own race: %s", p.out);
    for (int i = 0; i < 2; i++) {
        const char *name = i ? "fakeedgesmem.copy.f16:sanitize" : "fakesan.copy.f16:sanitize";
        cr_expect(kc_out_item_line(p.out, "FAIL", name, line, sizeof line) &&
                  strstr(line, "the racecheck batch of 2 items (") && strstr(line, "fakesan.copy.f16:sanitize") &&
                  strstr(line, "fakeedgesmem.copy.f16:sanitize") && !strstr(line, "fakeedges.copy") &&
                  strstr(line, ") reported what its items' runs alone do not account for (racecheck: Error: Race "
                               "reported between Write access at fake_copy_f16(__half *, const __half *, long)+0x2b0"),
                  "the report no run alone gave, in the batch without the racy item: %s", p.out);
    }
    kc_proc_free(&p);
    /* two items: the other one's run alone decides it */
    p = kc_san_test_run((char *[]){ "run", "fakeedges.copy.f16:sanitize", "fakesan.copy.f16:sanitize", "--jobs", "1",
                                    "--inflight", "4", NULL }, 0,
                        "KC_FAKE_SANITIZER=error:racecheck:fakeedges.copy.f16:sanitize",
                        "KC_FAKE_SANITIZER_BATCHONLY=racecheck:fakesan.copy.f16:sanitize");
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedges.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
}

/* Only an item FAILed by a report of its own run alone sends the others to a
 * batch without it. In the runs alone, an item's report that comes late
 * lands in the next item's window: that item's run outside the session is
 * clean, so it FAILs for a report out of order, and the item whose report it
 * was is clean alone. Neither failed by a report of its own: the batch's
 * report, which no run alone accounts for, FAILs both (found by a review:
 * the racy item read PASS). */
Test(sanitize_batch, a_report_out_of_order_in_the_runs_alone_is_no_items_own, .timeout = 120)
{
    char line[8192];
    kc_proc p = one_worker((char *[]){ "fakeedges.copy.f16:sanitize", "fakesan.copy.f16:sanitize", NULL },
                           (char *[]){ "KC_FAKE_SANITIZER=late:racecheck:fakeedges.copy.f16:sanitize", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedges.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "reported what its items' runs alone do not account for"), "never green: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
}

/* A run alone stopped at its time limit whose window holds an earlier
 * item's late report is not a report of the item's own: the batch keeps the
 * old rule (no batch without it), and the session is not trusted. */
Test(sanitize_batch, a_window_stopped_at_its_limit_is_no_items_own_report, .timeout = 120)
{
    char line[8192];
    kc_proc p = one_worker((char *[]){ "fakeedges.copy.f16:sanitize", "fakeedgesmem.copy.f16:sanitize",
                                       "fakesan.copy.f16:sanitize", NULL },
                           (char *[]){ "KC_SANITIZE_TIMEOUT_S=3", "KC_FAKE_SANITIZER=hang:racecheck:fakesan.copy.f16:sanitize",
                                       "KC_FAKE_SANITIZER_BATCHOF=3:racecheck:fakeedges.copy.f16:sanitize",
                                       "KC_FAKE_SANITIZER_LATE=racecheck:fakeedgesmem.copy.f16:sanitize", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_eq(kc_out_count(p.out, "a batch of 2 items"), 0, "no batch without it: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedges.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedgesmem.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(strstr(p.out, "which it stopped at its time limit after "), "%s", p.out);
    kc_proc_free(&p);
}

/* A registered known race (kc_known, racecheck) in a batch with a racy
 * item: KNOWN by its runs alone, noted once though it runs alone twice (its
 * report makes the second batch not clean too); the clean items PASS. */
Test(sanitize_batch, a_known_race_in_a_batch_stays_known_and_is_noted_once, .timeout = 120)
{
    char line[8192];
    kc_proc p = one_worker((char *[]){ "fakeedges.copy.f16:sanitize", "fakeraceknown.copy.f16:sanitize",
                                       "fakeedgesmem.copy.f16:sanitize", "fakesan.copy.f16:sanitize", NULL },
                           (char *[]){ "KC_FAKE_SANITIZER=error:racecheck:fakeraceknown.copy.f16:sanitize",
                                       "KC_FAKE_SANITIZER_ERROR=racecheck:fakeedges.copy.f16:sanitize", NULL });
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedges.copy.f16:sanitize", line, sizeof line) &&
              !strstr(line, "batch"), "its own race: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "KNOWN", "fakeraceknown.copy.f16:sanitize", line, sizeof line) &&
              kc_out_count(line, "[a race the fixture registers]") == 1, "noted once: %s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakeedgesmem.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakesan.copy.f16:sanitize", line, sizeof line), "%s", p.out);
    kc_proc_free(&p);
}

/* A report hidden in more output than a window keeps (after the flood of
 * notes of the same item, whatever the batch's order) is still counted: the
 * batch's summary counts more reports than its items' runs alone gave, so
 * the batch's items FAIL. */
Test(sanitize_batch, a_report_past_what_is_kept_is_still_counted, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakeedges.copy.f16:sanitize", "fakesan.copy.f16:sanitize", "--jobs",
                                            "1", "--inflight", "4", NULL }, 0,
                                "KC_FAKE_SANITIZER=flood:fakesan.copy.f16:sanitize",
                                "KC_FAKE_SANITIZER_BATCHONLY=racecheck:fakesan.copy.f16:sanitize");
    char line[8192];
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakesan.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "(its racecheck summary counts 1 report, its items' runs alone 0)"), "%s", p.out);
    kc_proc_free(&p);
}

/* Without a GPU every :sanitize item handed for a batch is SKIP, once, at
 * once (none waits for a time limit). */
Test(sanitize_batch, a_batch_without_a_gpu_skips_each_item_once, .timeout = 60)
{
    char *env[] = { kc_san_test_env(), "KC_LIBCUDA=none", NULL };
    kc_proc p = kc_run_fixture_env((char *[]){ "run", ITEMS, "--jobs", "1", "--inflight", "4", "--timeout", "20", NULL },
                                   env, 50);
    char s[2048], st[16];
    kc_out_summary(p.out, s, sizeof s);
    cr_expect(strstr(s, "12 sanitizer checks: 0 clean, 0 with errors") && strstr(s, "12 skipped"), "%s", s);
    cr_expect_eq(kc_out_state_lines(p.out, "fakesan.copy.f16:sanitize", st, sizeof st), 1, "%s", p.out);
    cr_expect_str_eq(st, "SKIP");
    cr_expect_eq(kc_out_count(p.out, "exceeded its time limit"), 0, "%s", p.out);
    kc_proc_free(&p);
}

/* A process left running after a batch may be any item's: no item of the
 * batch takes LEAK from it there; each is decided by a run alone, where
 * only the item that leaves it is LEAK, as serially, with one line each. */
Test(sanitize_batch, a_process_left_after_a_batch_is_blamed_by_runs_alone, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakeedges.copy.f16:sanitize", "fakesan.copy.f16:sanitize",
                                            "fakeedgesmem.copy.f16:sanitize", "--jobs", "1", "--inflight", "4", NULL },
                                0, "KC_FAULT_LEAVE_CHILD=fakesan.copy.f16:sanitize", NULL);
    char st[16];
    cr_expect_eq(kc_out_state_lines(p.out, "fakesan.copy.f16:sanitize", st, sizeof st), 1, "%s", p.out);
    cr_expect_str_eq(st, "LEAK");
    cr_expect_eq(kc_out_state_lines(p.out, "fakeedges.copy.f16:sanitize", st, sizeof st), 1, "%s", p.out);
    cr_expect_str_eq(st, "PASS");
    cr_expect_eq(kc_out_state_lines(p.out, "fakeedgesmem.copy.f16:sanitize", st, sizeof st), 1, "%s", p.out);
    cr_expect_str_eq(st, "PASS");
    cr_expect_geq(kc_out_count(p.out, "LEAK in a batch of :sanitize items"), 1, "%s", p.out);
    kc_proc_free(&p);
}
