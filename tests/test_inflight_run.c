/* test_inflight_run.c — --inflight K end to end through the fake driver
 * (issue 23, part 1): K items side by side in each worker give the serial
 * run's TALLY, SUMMARY and per-item states; a control that loses the
 * context beside passing items is RED by the same gate as serially, its
 * neighbours PASS, each item on one line; a hanging item beside others is
 * TIMEOUT, decided by its run alone; a kernel's PASS in flight stands
 * only when every item beside it reached a final verdict there
 * (queue_neighbours.c), else it is decided alone; K outside 1..64 is
 * refused. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "support/live.h"
#include "support/run_output.h"
#include "tally.h"

/* Every "STATE  NAME" of out, worker prefixes dropped, sorted: one string. */
static char *states(const char *out)
{
    size_t cap = strlen(out) + 1, n = 0, nl = 0;
    char **lines = calloc(cap, sizeof *lines), *all = calloc(cap, 1);
    cr_assert(lines && all);
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *q = p;
        if (*q == '[' && strchr(q, ']')) q = strchr(q, ']') + 2;
        char st[16], name[256];
        if (sscanf(q, "%15[A-Z] %255s", st, name) != 2 || strcmp(st, "TALLY") == 0 || strcmp(st, "SUMMARY") == 0)
            continue;
        if (q[strlen(st)] != ' ') continue;
        char *l = malloc(300);
        snprintf(l, 300, "%s %s\n", st, name);
        lines[nl++] = l;
    }
    for (size_t i = 0; i < nl; i++)
        for (size_t j = i + 1; j < nl; j++)
            if (strcmp(lines[j], lines[i]) < 0) {
                char *t = lines[i];
                lines[i] = lines[j];
                lines[j] = t;
            }
    for (size_t i = 0; i < nl; i++) {
        memcpy(all + n, lines[i], strlen(lines[i]));
        n += strlen(lines[i]);
        free(lines[i]);
    }
    free(lines);
    return all;
}

static void expect_same_run(const kc_proc *s, const kc_proc *k)
{
    kc_tally ts, tk;
    kc_out_tally(s->out, &ts);
    kc_out_tally(k->out, &tk);
    cr_expect(kc_tally_counts_equal(&ts, &tk), "serial and --inflight tallies differ:\n%s\n---\n%s", s->out, k->out);
    char ss[1024], sk[1024];
    kc_out_summary(s->out, ss, sizeof ss);
    kc_out_summary(k->out, sk, sizeof sk);
    char *p = strstr(ss, "  ("), *q = strstr(sk, "  (");     /* the wall time differs */
    if (p) *p = 0;
    if (q) *q = 0;
    cr_expect_str_eq(sk, ss);
    char *a = states(s->out), *b = states(k->out);
    cr_expect_str_eq(b, a, "per-item states differ:\n%s\n---\n%s", s->out, k->out);
    free(a);
    free(b);
    cr_expect_eq(k->status, s->status, "%s%s", k->out, k->err);
    cr_expect(!strstr(k->err, "internal error") && !strstr(k->out, "internal error: worker"), "%s%s", k->out, k->err);
}

Test(inflight_run, four_in_flight_give_the_serial_verdicts, .timeout = 60)
{
    char *sa[] = { "run", "fake.*", "fakeacc.*", "fakeargs.*", "--seed", "5", "--no-cache", NULL };
    char *ka[] = { "run", "fake.*", "fakeacc.*", "fakeargs.*", "--seed", "5", "--no-cache", "--jobs", "2", "--inflight", "4",
                   NULL };
    kc_proc s = kc_run_fake(sa, NULL, 30), k = kc_run_fake(ka, NULL, 30);
    expect_same_run(&s, &k);
    cr_expect(strstr(k.out, "decided by a run with nothing beside it"), "FAIL and MISSED verdicts are rerun alone:\n%s",
              k.out);
    kc_proc_free(&s);
    kc_proc_free(&k);
}

/* Every item of the fixture binary but those that end or stall a run on
 * purpose (tested apart): suites that crash, leave processes or GPU state
 * behind, fail; kernels that fail, fault, are KNOWN; controls; :limits and
 * :sanitize items, some of which go in flight and some alone. Two workers
 * of four lanes, and one serial worker of three, give the serial run's
 * verdicts, SUMMARY and exit status, item by item. Before the lanes watched
 * the GPU state of the items they run alone, fixture.gpu.c.pending (an
 * error left pending) read PASS here and LEAK serially. */
Test(inflight_run, every_fixture_item_gives_the_serial_verdict_in_flight, .timeout = 240)
{
    char nvml[1024], procs[300], san[PATH_MAX + 32], costs[300], sanpath[PATH_MAX];
    const char *lib = getenv("KC_FAKE_NVML");
    snprintf(nvml, sizeof nvml, "KC_LIBNVML=%s", lib && *lib ? lib : "build/libfake_nvml.so");
    snprintf(procs, sizeof procs, "KC_FAKE_NVML_PROCS=%s/kc-every.%ld.procs", kc_test_tmpdir(), (long)getpid());
    snprintf(costs, sizeof costs, "%s/kc-every.%ld.costs.tsv", kc_test_tmpdir(), (long)getpid());
    cr_assert(realpath("tests/fake/compute-sanitizer", sanpath));
    snprintf(san, sizeof san, "KC_COMPUTE_SANITIZER=%s", sanpath);
    char *env[] = { nvml, procs, san, "KC_CACHE_DIR=off", NULL };
#define EVERY "run", "*", "--exclude", "fixture.hang*", "--exclude", "fixture.cost.*", "--exclude", "fixture.break.*", \
        "--exclude", "fixture.trust.*", "--exclude", "fixture.leak.daemon", "--exclude", "fixture.leak.hang", \
        "--exclude", "fixture.stubborn", "--exclude", "gpu.harness.*", "--timeout", "20", "--no-cache"
    char *sa[] = { EVERY, NULL };
    char *ka[] = { EVERY, "--jobs", "2", "--inflight", "4", "--costs", costs, NULL };
    char *ia[] = { EVERY, "--inflight", "3", NULL };
#undef EVERY
    kc_proc s = kc_run_fake(sa, env, 75), k = kc_run_fake(ka, env, 75), i = kc_run_fake(ia, env, 75);
    cr_expect_eq(s.status, 1, "the fixture's failures fail the serial run: %s%s", s.out, s.err);
    cr_expect_gt(kc_out_count(s.out, "\nLEAK   "), 0, "some items leave state behind:\n%s", s.out);
    cr_expect_gt(kc_out_count(k.out, "[w0] RED    ") + kc_out_count(k.out, "[w1] RED    "), 20, "%s", k.out);
    expect_same_run(&s, &k);
    expect_same_run(&s, &i);
    cr_expect(strstr(i.out, "up to 3 items in flight (--inflight): each line comes once its verdict stands, so not in "
                            "name order"), "a serial run in flight says why its lines leave name order:\n%s", i.out);
    cr_expect(!strstr(s.out, "items in flight (--inflight)"), "%s", s.out);
    unlink(costs);
    unlink(procs + strlen("KC_FAKE_NVML_PROCS="));
    kc_proc_free(&s);
    kc_proc_free(&k);
    kc_proc_free(&i);
}

/* An item in flight whose host code raises a limit of the context (the
 * malloc heap size, fakelimit.copy.f16's reference): the items beside it ran
 * with it, so when the next item is over the limit is set back, the worker
 * says so without naming who changed it, and each of the three runs again
 * alone (marked, or sent by the neighbours' rule beside a marked one);
 * alone, fakelimit's own watch names the change and sets it back, as
 * serially. Same verdicts as serially; without a driver that lets it be set
 * back, the worker is replaced. */
Test(inflight_run, a_limit_changed_in_flight_sends_the_passes_beside_it_to_run_alone, .timeout = 90)
{
    char *sa[] = { "run", "fakelimit.copy.f16", "fake.axpy.f32", "fake.copy.f16", "--no-cache", NULL };
    char *ka[] = { "run", "fakelimit.copy.f16", "fake.axpy.f32", "fake.copy.f16", "--no-cache", "--inflight", "3", NULL };
    for (int stick = 0; stick < 2; stick++) {
        char *env[] = { stick ? "KC_FAKE_LIMITS_STICK=1" : "KC_FAKE_LIMITS_STICK=0", NULL };
        kc_proc s = kc_run_fake(sa, env, 30), k = kc_run_fake(ka, env, 30);
        expect_same_run(&s, &k);
        const char *how = stick ? ", which could not be set back (CUDA_ERROR_INVALID_VALUE): this process is replaced"
                                : " (set back)";
        char line[300];
        snprintf(line, sizeof line, "PASS   fakelimit.copy.f16  gates 1-4 on 5 cases (3 shapes x up to 2 "
                 "distributions); it changed the CUDA context's malloc heap size limit from 8388608 to 67108864 "
                 "bytes%s  (", how);
        cr_expect(strstr(s.out, line), "serially: %s\n%s", line, s.out);
        cr_expect(strstr(k.out, line), "alone, after it went back: %s\n%s", line, k.out);
        /* named when the first item over after the change is (it, or one beside it) */
        cr_expect(strstr(k.err, " (in flight): the CUDA context's malloc heap size limit was changed from 8388608 to "
                                "67108864 bytes"), "the worker names the change:\n%s", k.err);
        cr_expect(strstr(k.out, ": LEAK ") && strstr(k.out, "its verdict is decided by a run with nothing beside it"),
                  "%s", k.out);
        cr_expect(strstr(k.out, "ran again alone: 3 items"), "%s", k.out);
        kc_proc_free(&s);
        kc_proc_free(&k);
    }
}

Test(inflight_run, a_control_that_loses_the_context_is_red_by_its_gate_beside_passing_items, .timeout = 60)
{
    char *sa[] = { "run", "fakeedgesmem.*", "fake.axpy.f32", "fake.copy.f16", "--no-cache", NULL };
    char *ka[] = { "run", "fakeedgesmem.*", "fake.axpy.f32", "fake.copy.f16", "--no-cache", "--inflight", "4", NULL };
    kc_proc s = kc_run_fake(sa, NULL, 30), k = kc_run_fake(ka, NULL, 30);
    expect_same_run(&s, &k);
    char ls[2048], lk[2048];
    const char *a = kc_out_item_line(s.out, "RED", "fakeedgesmem.copy.f16:control.late_fault", ls, sizeof ls);
    const char *b = kc_out_item_line(k.out, "RED", "fakeedgesmem.copy.f16:control.late_fault", lk, sizeof lk);
    cr_assert(a && b, "the gate-1 control is RED in both:\n%s\n---\n%s", s.out, k.out);
    cr_expect(strstr(b, "caught by gate 1") && strstr(b, "CUDA_ERROR_ILLEGAL_ADDRESS"), "%s", b);
    char *ca = strstr(ls, "shape "), *cb = strstr(lk, "shape ");     /* its own shape, as serially */
    cr_assert(ca && cb, "%s\n%s", ls, lk);
    cr_expect_eq(strncmp(ca, cb, 40), 0, "serially: %s\nin flight: %s", ls, lk);
    /* A control planted for gate 1 runs alone in its worker (inflight.h):
     * its loss of the context ends no item in flight beside it. */
    cr_expect_null(strstr(k.out, "in flight beside other items"), "%s", k.out);
    char buf[1024];
    cr_expect(kc_out_item_line(k.out, "PASS", "fake.axpy.f32", buf, sizeof buf), "%s", k.out);
    kc_proc_free(&s);
    kc_proc_free(&k);
}

/* A worker with nothing in flight takes the items that may not share
 * first (dispatch.h): controls planted for gate 1 (one at a time), :limits
 * and :sanitize items start before the first item that goes in flight,
 * where they waited for every worker's lanes to empty at the run's end
 * before; the verdicts are the serial run's. */
Test(inflight_run, the_items_that_may_not_share_start_before_those_in_flight, .timeout = 60)
{
    char json[256], costs[256];
    kc_tmp_path(json, sizeof json, "inflight", "alone-first.json");
    /* a cost table of its own: the binary's default one is written by the
     * tests running beside this one, and a :sanitize item recorded there at
     * 0 s (SKIP, no sanitizer) leaves no sanitizer work to keep together,
     * so it is handed out by cost, last (seen once in `make test`) */
    kc_tmp_path(costs, sizeof costs, "inflight", "alone-first-costs");
    char *sa[] = { "run", "fakeedgesmem.*", "fake.axpy.f32*", "--no-cache", "--costs", costs, NULL };
    /* one worker: with two, one whose items end while the other's control
     * planted for gate 1 runs finds only the next such control pending,
     * which waits for it (one at a time), and takes a share */
    char *ka[] = { "run", "fakeedgesmem.*", "fake.axpy.f32*", "--no-cache", "--jobs", "1", "--inflight", "4", "--json",
                   json, "--costs", costs, NULL };
    kc_proc s = kc_run_fake(sa, NULL, 30), k = kc_run_fake(ka, NULL, 30);
    expect_same_run(&s, &k);
    const char *rep = kc_out_file(json);
    const char *alone[] = { "fakeedgesmem.copy.f16:control.late_fault", "fake.axpy.f32:control.fault",
                            "fakeedgesmem.copy.f16:limits", "fake.axpy.f32:limits", "fakeedgesmem.copy.f16:sanitize" };
    const char *shares[] = { "fakeedgesmem.copy.f16", "fake.axpy.f32", "fake.axpy.f32:control.wrong_value",
                             "fake.axpy.f32:control.blind", "fake.axpy.f32:control.write_input",
                             "fake.axpy.f32:control.nondeterministic" };
    double last = -1, first = 1e9;
    for (int i = 0; i < 5; i++) {
        double t = kc_out_json_number(rep, alone[i], "start_s");
        cr_expect_geq(t, 0, "%s has no start_s:\n%s", alone[i], rep);
        if (t > last) last = t;
    }
    for (int i = 0; i < 6; i++) {
        double t = kc_out_json_number(rep, shares[i], "start_s");
        cr_expect_geq(t, 0, "%s has no start_s:\n%s", shares[i], rep);
        if (t < first) first = t;
    }
    cr_expect_leq(last, first, "an item that goes in flight started at %.3f s, before the last that may not share "
                  "(%.3f s):\n%s", first, last, rep);
    unlink(json);
    unlink(costs);
    kc_proc_free(&s);
    kc_proc_free(&k);
}

/* An item that loses the context in flight (the test hook) ends its
 * neighbours' runs too: it and every item in flight beside it go back
 * undecided and are decided by a run with nothing beside them; the
 * verdicts are the serial run's, each on one line. */
Test(inflight_run, a_context_lost_in_flight_sends_back_the_items_beside_it, .timeout = 60)
{
    char *env[] = { "KC_FAULT_LOSE_CONTEXT_AFTER=fake.axpy.f32", NULL };
    char *sa[] = { "run", "fake.axpy.f32", "fake.copy.f16", "fakeacc.dot.f32", "fakeacc.sumsq.f32", "--no-cache", NULL };
    char json[256];
    kc_tmp_path(json, sizeof json, "inflight", "lost.json");
    char *ka[] = { "run", "fake.axpy.f32", "fake.copy.f16", "fakeacc.dot.f32", "fakeacc.sumsq.f32", "--no-cache",
                   "--inflight", "4", "--json", json, NULL };
    kc_proc s = kc_run_fake(sa, env, 30), k = kc_run_fake(ka, env, 30);
    expect_same_run(&s, &k);
    cr_expect(strstr(kc_out_file(json), ",\"ran_again\":4,"), "%s", kc_out_file(json));
    unlink(json);
    cr_expect(strstr(k.out, "fake.axpy.f32: PASS with the CUDA context lost in flight beside other items; its verdict "
                            "is decided by a run with nothing beside it"), "%s", k.out);
    const char *names[] = { "fake.axpy.f32", "fake.copy.f16", "fakeacc.dot.f32", "fakeacc.sumsq.f32" };
    for (int i = 0; i < 4; i++) cr_expect_eq(kc_out_state_lines(k.out, names[i], NULL, 0), 1, "%s:\n%s", names[i], k.out);
    cr_expect(strstr(k.out, "\nran again alone: 4 items whose first verdict was not known to be their own"), "%s", k.out);
    cr_expect_null(strstr(s.out, "ran again alone"), "%s", s.out);
    kc_proc_free(&s);
    kc_proc_free(&k);
}

Test(inflight_run, a_hanging_item_beside_others_is_timeout_alone, .timeout = 60)
{
    /* The limit leaves the other three time to end in flight, also under
     * ASan on a busy machine (axpy took 0.95 s there). */
    char *env[] = { "KC_FAULT_HANG_ITEM=fake.copy.f16", NULL };
    char *ka[] = { "run", "fake.axpy.f32", "fake.copy.f16", "fakeacc.dot.f32", "fakeacc.sumsq.f32", "--no-cache",
                   "--inflight", "4", "--timeout", "4", NULL };
    kc_proc k = kc_run_fake(ka, env, 30);
    char buf[2048];
    cr_expect_eq(kc_out_state_lines(k.out, "fake.copy.f16", NULL, 0), 1, "%s", k.out);
    cr_expect(kc_out_item_line(k.out, "TIMEOUT", "fake.copy.f16", buf, sizeof buf), "%s", k.out);
    cr_expect(strstr(k.out, "fake.copy.f16: in flight on worker 0"), "first in flight, then alone:\n%s", k.out);
    cr_expect(kc_out_item_line(k.out, "PASS", "fake.axpy.f32", buf, sizeof buf), "%s", k.out);
    cr_expect(kc_out_item_line(k.out, "PASS", "fakeacc.dot.f32", buf, sizeof buf), "%s", k.out);
    cr_expect_eq(k.status, 1, "%s%s", k.out, k.err);
    /* The neighbours that passed before the worker was stopped waited for
     * it (queue_neighbours.c): with no verdict beside them, they ran alone. */
    cr_expect(strstr(k.out, ": PASS in flight beside fake.copy.f16, whose verdict there (none: it was in flight "
                            "when its worker ended) is not final"), "%s", k.out);
    kc_proc_free(&k);
}

/* A kernel that fails in flight may have been hit by a neighbour's write
 * outside its buffers, or may itself have written into a neighbour's (on
 * the H200 a 32-bit offset that wrapped landed in another item's memory
 * instead of faulting): a PASS beside it is decided by a run alone, both
 * when the PASS ends first (it waits) and when it ends last (it is marked). */
Test(inflight_run, a_pass_in_flight_beside_a_fail_is_decided_alone, .timeout = 60)
{
    const char *slow[] = { "KC_FAULT_SLOW_ITEM=fake.wrong.f32@0.5", "KC_FAULT_SLOW_ITEM=fake.axpy.f32@0.5" };
    for (int i = 0; i < 2; i++) {
        char *env[] = { (char *)slow[i], NULL };
        char *sa[] = { "run", "fake.wrong.f32", "fake.axpy.f32", "--no-cache", NULL };
        char *ka[] = { "run", "fake.wrong.f32", "fake.axpy.f32", "--no-cache", "--inflight", "2", NULL };
        kc_proc s = kc_run_fake(sa, env, 30), k = kc_run_fake(ka, env, 30);
        expect_same_run(&s, &k);
        cr_expect(strstr(k.out, "fake.axpy.f32: PASS in flight beside fake.wrong.f32, whose verdict there (FAIL) is not "
                                "final; a verdict reached in flight stands only when every item beside it reached a "
                                "final one, since a write outside one item's buffers can land in another's instead of "
                                "faulting; so this one is not known to be its own; its verdict is decided by a run with "
                                "nothing beside it"),
                  "%s:\n%s", slow[i], k.out);
        cr_expect_eq(kc_out_state_lines(k.out, "fake.axpy.f32", NULL, 0), 1, "%s", k.out);
        /* Both ran again alone (the FAIL is not final in flight either), and the end says how many. */
        cr_expect(strstr(k.out, "\nran again alone: 2 items whose first verdict was not known to be their own (a "
                                "line above names each and why); the SUMMARY counts the runs alone\n"), "%s:\n%s", slow[i], k.out);
        kc_proc_free(&s);
        kc_proc_free(&k);
    }
}

/* A PASS in flight that ends before its neighbour waits for it, and is
 * printed by the parent once the neighbour's PASS lets it stand: after the
 * neighbour's line, with the worker's tag, and not run again. */
Test(inflight_run, a_pass_in_flight_waits_for_its_neighbour_and_stands_beside_a_pass, .timeout = 60)
{
    /* copy starts 3 s late: axpy ends first, also under ASan on a busy
     * machine (0.95 s there). */
    char *env[] = { "KC_FAULT_SLOW_ITEM=fake.copy.f16@3", NULL };
    char *ka[] = { "run", "fake.copy.f16", "fake.axpy.f32", "--no-cache", "--jobs", "1", "--inflight", "2", NULL };
    kc_proc k = kc_run_fake(ka, env, 30);
    cr_expect_eq(k.status, 0, "%s%s", k.out, k.err);
    const char *copy = strstr(k.out, "[w0] PASS   fake.copy.f16  "), *axpy = strstr(k.out, "[w0] PASS   fake.axpy.f32  ");
    cr_assert(copy && axpy, "both PASS, tagged:\n%s", k.out);
    cr_expect_lt(copy, axpy, "fake.axpy.f32 ended first but stands only once its neighbour passed:\n%s", k.out);
    cr_expect_null(strstr(k.out, "not known to be its own"), "%s", k.out);
    cr_expect_null(strstr(k.out, "nothing beside it"), "%s", k.out);
    cr_expect_null(strstr(k.out, "ran again alone"), "%s", k.out);
    /* Its memory plan charges the worker the guarded buffers it may keep (plan.h). */
    cr_expect(strstr(k.out, "memory: each worker 192 MiB host + 2880 MiB GPU;"), "%s", k.out);
    cr_expect_eq(kc_out_state_lines(k.out, "fake.axpy.f32", NULL, 0), 1, "%s", k.out);
    kc_proc_free(&k);
    /* Serially (no tag) the line still gives the item's own seconds, not
     * the parent's view of it, which holds copy's 3 s head start. */
    char *sa[] = { "run", "fake.copy.f16", "fake.axpy.f32", "--no-cache", "--inflight", "2", NULL };
    kc_proc s = kc_run_fake(sa, env, 30);
    char line[2048];
    const char *l = kc_out_item_line(s.out, "PASS", "fake.copy.f16", line, sizeof line);
    cr_assert(l, "%s", s.out);
    const char *open = strrchr(line, '(');
    double secs = open ? atof(open + 1) : -1;
    cr_expect(secs >= 0 && secs < 3, "fake.copy.f16's own seconds, without the 3 s before it started: %s", line);
    kc_proc_free(&s);
}

/* A worker with lanes and no GPU (none on the machine, or its context
 * could not be opened) runs every item on its main thread, in the one lane
 * of the items that go alone. Items handed to it in flight went there too,
 * each over the last while that one still waited for its nonce: the
 * result of the first was lost, and the run waited for it until its time
 * limit (600 s by default: `--jobs 4 --inflight 4` on a CI machine without
 * a GPU ran 10 minutes and more), then ran it again. Each now has a lane
 * of its own; the run ends at once, every item SKIP on one line. */
Test(inflight_run, without_a_gpu_the_items_in_flight_end_at_once_not_at_their_time_limit, .timeout = 120)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "inflight", "nogpu");
    char *runs[][12] = {
        { "run", "fake.axpy.*", "--inflight", "2", "--timeout", "30", "--costs", costs, NULL },
        { "run", "fake.axpy.*", "--jobs", "2", "--inflight", "3", "--timeout", "30", "--costs", costs, NULL },
    };
    const char *names[] = { "fake.axpy.f32", "fake.axpy.f32:control.blind", "fake.axpy.f32:control.write_input",
                            "fake.axpy.f32:limits" };
    for (int i = 0; i < 2; i++) {
        kc_proc p = kc_run_fixture(runs[i], 100);
        cr_expect_eq(p.status, 3, "run %d: exit %d\n%s%s", i, p.status, p.out, p.err);
        cr_expect(!strstr(p.out, "exceeded its time limit") && !strstr(p.err, "exceeded its time limit"),
                  "run %d: an item without a GPU waited for its time limit:\n%s%s", i, p.out, p.err);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            char st[16] = "";
            int n = kc_out_state_lines(p.out, names[k], st, sizeof st);
            cr_expect(n == 1 && strcmp(st, "SKIP") == 0, "run %d: %s on %d state lines, the last %s:\n%s", i, names[k],
                      n, st, p.out);
        }
        kc_proc_free(&p);
    }
    unlink(costs);
}

Test(inflight_run, items_in_flight_outside_one_to_sixty_four_are_refused, .timeout = 30)
{
    const char *bad[] = { "0", "65", "x" };
    for (int i = 0; i < 3; i++) {
        char *a[] = { "run", "fake.axpy.f32", "--inflight", (char *)bad[i], NULL };
        kc_proc p = kc_run_fake(a, NULL, 10);
        cr_expect_eq(p.status, 2, "--inflight %s: exit %d\n%s%s", bad[i], p.status, p.out, p.err);
        char want[128];
        snprintf(want, sizeof want, "--inflight: expected the items in flight per worker, 1 to 64, got '%s'", bad[i]);
        cr_expect(strstr(p.err, want), "--inflight %s:\n%s", bad[i], p.err);
        kc_proc_free(&p);
    }
}

/* A worker with lanes gives back every buffer by its end: guarded buffers
 * (guarded_alloc.h: those of each item's cases, the lanes' input caches,
 * the kept list) unmapped, their handles released and their reservations
 * freed; or, on a device without virtual memory management, each item's
 * stream-ordered memory, the pool trimmed when the item is over (the pool keeps
 * every freed byte while an item runs, and memory a worker kept after its
 * items is memory the plan does not count: 61 GB in one worker on the
 * H200, and out of memory in other processes). The fake driver logs each
 * process's allocations at exit. */
Test(inflight_run, each_item_in_flight_gives_its_memory_back, .timeout = 60)
{
    for (int vmm = 1; vmm >= 0; vmm--) {
        char log[256], env[300];
        snprintf(log, sizeof log, "%s/kc-pool.%ld.%d", kc_test_tmpdir(), (long)getpid(), vmm);
        snprintf(env, sizeof env, "KC_FAKE_POOL_LOG=%s", log);
        char *ka[] = { "run", "fake.axpy.f32", "fake.copy.f16", "fakeacc.dot.f32", "fakeacc.sumsq.f32", "--no-cache",
                       "--inflight", "2", NULL };
        kc_proc k = kc_run_fake(ka, (char *[]){ env, vmm ? NULL : "KC_FAKE_NO_VMM=1", NULL }, 30);
        cr_expect_eq(k.status, 0, "%s%s", k.out, k.err);
        const char *l = kc_out_file(log);
        long pid, made, live, trims, maps, mapped, reserved, handles;
        cr_assert(l && sscanf(l, "pool pid=%ld made=%ld live=%ld trims=%ld maps=%ld mapped=%ld reserved=%ld handles=%ld",
                              &pid, &made, &live, &trims, &maps, &mapped, &reserved, &handles) == 8,
                  "the worker's allocations were not logged: %s", l ? l : "(no log)");
        if (vmm) {
            cr_expect_gt(maps, 0, "the lanes' buffers must be guarded: %s", l);
            cr_expect_eq(made, 0, "no buffer from the pool where guards are had: %s", l);
            cr_expect(mapped == 0 && reserved == 0 && handles == 0, "every guarded buffer given back: %s", l);
        } else {
            cr_expect_gt(made, 0, "without virtual memory management, the pool's buffers: %s", l);
            cr_expect_eq(maps, 0, "%s", l);
        }
        if (!vmm) cr_expect_eq(live, 0, "%s", l);
        cr_expect_geq(trims, 4, "one trim per item over (4 items on 2 lanes), at least: %s", l);
        unlink(log);
        kc_proc_free(&k);
    }
}

static int both_put_back(const kc_live *l) { return kc_out_count(l->out, "decided by a run with nothing beside it") >= 2; }
static int never(const kc_live *l) { (void)l; return 0; }

/* "ran again alone: N" counts the items put back that a run alone then
 * decided, never one that the run's interruption left NOTRUN: fake.copy.f16
 * hangs in flight and again alone, and SIGINT comes while it (or fake.axpy.f32
 * before it) runs alone. Whatever the order, N is the put-back items whose
 * verdict is not NOTRUN. */
Test(inflight_run, an_item_interrupted_in_its_run_alone_is_not_counted_as_ran_again, .timeout = 60)
{
    static char cuda[1024];
    const char *lib = getenv("KC_FAKE_CUDA");
    snprintf(cuda, sizeof cuda, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_cuda.so");
    char *env[] = { cuda, "KC_CACHE_DIR=off", "KC_FAULT_HANG_ITEM=fake.copy.f16", NULL };
    char *args[] = { "run", "fake.copy.f16", "fake.axpy.f32", "--no-cache", "--inflight", "2", "--timeout", "3", NULL };
    kc_live l;
    kc_live_start_env(&l, kc_test_fixture_bin(), args, env);
    cr_assert_eq(kc_live_read_until(&l, both_put_back, 30), 0, "both items not put back:\n%s", l.out);
    usleep(1500 * 1000);         /* axpy alone takes well under 1.5 s; copy alone hangs for 3 */
    cr_assert_eq(kill(l.pid, SIGINT), 0);
    kc_live_read_until(&l, never, 20);
    cr_expect_eq(kc_wait_status(l.pid), 130, "%s", l.out);
    cr_expect(kc_out_item_line(l.out, "NOTRUN", "fake.copy.f16", (char[2048]){ 0 }, 2048), "%s", l.out);
    const int axpy = kc_out_item_line(l.out, "PASS", "fake.axpy.f32", (char[2048]){ 0 }, 2048) != NULL;
    if (axpy)
        cr_expect(strstr(l.out, "\nran again alone: 1 item whose first verdict was not known to be its own"), "%s",
                  l.out);
    else
        cr_expect_null(strstr(l.out, "ran again alone"), "%s", l.out);
    close(l.fd);
}

/* A merge's JSON summary sums its shards' "ran again alone: N" lines. */
Test(inflight_run, a_merge_sums_its_shards_ran_again, .timeout = 90)
{
    char *env[] = { "KC_FAULT_LOSE_CONTEXT_AFTER=fake.axpy.f32,fake.copy.f16", NULL };
    char logs[2][256], json[256];
    int sum = 0;
    for (int k = 0; k < 2; k++) {
        char shard[16];
        snprintf(shard, sizeof shard, "%d/2", k);
        kc_tmp_path(logs[k], sizeof logs[k], "inflight", k ? "shard1.log" : "shard0.log");
        char *a[] = { "run", "fake.*", "fakeacc.*", "--no-cache", "--inflight", "4", "--shard", shard, NULL };
        kc_proc p = kc_run_fake(a, env, 60);
        kc_write_file(logs[k], p.out);
        const char *r = strstr(p.out, "\nran again alone: ");
        if (r) sum += atoi(r + strlen("\nran again alone: "));
        kc_proc_free(&p);
    }
    cr_assert_gt(sum, 0, "no shard ran an item again: the test shows nothing");
    kc_tmp_path(json, sizeof json, "inflight", "merged.json");
    char *m[] = { "merge", "fake.*", "fakeacc.*", "--log", logs[0], "--log", logs[1], "--json", json, NULL };
    kc_proc p = kc_run_fake(m, NULL, 30);
    char want[64];
    snprintf(want, sizeof want, ",\"ran_again\":%d,", sum);
    cr_expect(strstr(kc_out_file(json), want), "want %s:\n%s\n%s", want, kc_out_file(json), p.out);
    kc_proc_free(&p);
    unlink(logs[0]);
    unlink(logs[1]);
    unlink(json);
}

/* Items a (which leaves a child running: KC_FAULT_LEAVE_CHILD) and b
 * (starting 1 s late, so it is in flight when a is over), serially and with
 * --inflight 2: the same run (expect_same_run); into *s and *k, to free. */
static void leftover_runs(const char *a, const char *b, kc_proc *s, kc_proc *k)
{
    char leave[256], slow[256];
    snprintf(leave, sizeof leave, "KC_FAULT_LEAVE_CHILD=%s", a);
    snprintf(slow, sizeof slow, "KC_FAULT_SLOW_ITEM=%s@1", b);
    char *env[] = { leave, slow, NULL };
    char *sa[] = { "run", (char *)a, (char *)b, "--no-cache", NULL };
    char *ka[] = { "run", (char *)a, (char *)b, "--no-cache", "--inflight", "2", NULL };
    *s = kc_run_fake(sa, env, 60);
    *k = kc_run_fake(ka, env, 60);
    expect_same_run(s, k);
}

/* A process an item in flight leaves running is found, ended and carried by
 * every item in flight then (whose it is is not known); each runs again
 * alone, where the item that starts it is LEAK and the other PASS: the
 * serial run's verdicts. */
Test(inflight_run, a_process_left_running_in_flight_is_decided_alone, .timeout = 90)
{
    kc_proc s, k;
    leftover_runs("fake.axpy.f32", "fake.copy.f16", &s, &k);
    char buf[2048];
    cr_expect(kc_out_item_line(s.out, "LEAK", "fake.axpy.f32", buf, sizeof buf), "%s", s.out);
    cr_expect(kc_out_item_line(k.out, "LEAK", "fake.axpy.f32", buf, sizeof buf), "%s", k.out);
    cr_expect(kc_out_item_line(k.out, "PASS", "fake.copy.f16", buf, sizeof buf), "%s", k.out);
    cr_expect(strstr(k.err, "1 process was running in this worker after fake.axpy.f32, still there 500 ms after it "
                            "ended: pid "), "%s", k.err);
    cr_expect(strstr(k.out, "fake.axpy.f32: LEAK in flight beside other items"), "%s", k.out);
    cr_expect(strstr(k.out, "fake.copy.f16: LEAK in flight beside other items"), "%s", k.out);
    cr_expect(strstr(k.out, "\nran again alone: 2 items"), "%s", k.out);
    kc_proc_free(&s);
    kc_proc_free(&k);
}

/* The same beside a control: it is RED as alone, its line without the
 * process (a process left running never changes a control's verdict), and
 * the kernel that started it is LEAK alone. The control runs again alone
 * too, by the neighbours' rule (its neighbour's LEAK in flight is not final). */
Test(inflight_run, a_control_beside_a_process_left_running_is_red_as_alone, .timeout = 90)
{
    kc_proc s, k;
    leftover_runs("fake.copy.f16", "fake.axpy.f32:control.wrong_value", &s, &k);
    char buf[2048];
    cr_expect(kc_out_item_line(k.out, "LEAK", "fake.copy.f16", buf, sizeof buf), "%s", k.out);
    cr_expect(kc_out_item_line(k.out, "RED", "fake.axpy.f32:control.wrong_value", buf, sizeof buf), "%s", k.out);
    cr_expect_null(strstr(buf, "process"), "%s", buf);
    cr_expect(strstr(k.out, "\nran again alone: 2 items"), "%s", k.out);
    kc_proc_free(&s);
    kc_proc_free(&k);
}
