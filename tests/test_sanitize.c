/* test_sanitize.c — the sanitizer gate (src/gates/sanitize.h) without a GPU or
 * compute-sanitizer: the report parser on each tool's documented output,
 * finding the tool, the registry's rules for no_sanitize and gate-5
 * controls, the cost estimate, and whole runs of the fixture binary with the
 * fake driver and the fake compute-sanitizer (tests/fake/compute-sanitizer)
 * on fakesan.copy.f16: SKIP when none is found (saying where it looked),
 * PASS, FAIL with the parsed line and both rerun commands, a sanitizer that
 * crashes or hangs, a target that launches nothing, the controls planted for
 * gate 5 RED and MISSED, and the counts in TALLY, SUMMARY and --jobs runs. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "costs.h"
#include "registry.h"
#include "sanitize.h"
#include "support/run_output.h"
#include "support/sanitize_runs.h"
#include "support/spawn.h"

/* ---- the parser ---- */

#define K "fake_copy_f16(__half *, const __half *, long)"

Test(sanitize, parses_memcheck_out_of_bounds_read)
{
    const char *text =
        "========= COMPUTE-SANITIZER\n"
        "kcontract-sanitize-target: ok: 2 launches\n"
        "========= Invalid __global__ read of size 2 bytes\n"
        "=========     at " K "+0x90 in /kc/copy.cu:12\n"
        "=========     by thread (30,0,0) in block (2,0,0)\n"
        "=========     Address 0x7f3a2c00003e is out of bounds\n"
        "=========     and is 0 bytes after the nearest allocation at 0x7f3a2c000000 of size 62 bytes\n"
        "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
        "=========         Host Frame: [0x2f1e3] in libcuda.so.1\n"
        "=========\n"
        "========= Invalid __global__ read of size 2 bytes\n"
        "=========     at " K "+0x90 in /kc/copy.cu:12\n"
        "=========     by thread (31,0,0) in block (2,0,0)\n"
        "========= ERROR SUMMARY: 2 errors\n";
    kc_san_error e;
    cr_assert_eq(kc_sanitizer_parse(text, &e), 1);
    cr_expect_str_eq(e.what, "Invalid __global__ read of size 2 bytes");
    cr_expect_str_eq(e.kernel, "fake_copy_f16");
    cr_expect_str_eq(e.where, "at " K "+0x90 in /kc/copy.cu:12");
    cr_expect_str_eq(e.thread, "(30,0,0)");                       /* the first error's, not the second's */
    cr_expect_str_eq(e.block, "(2,0,0)");
    cr_expect_str_eq(e.address, "Address 0x7f3a2c00003e is out of bounds and is 0 bytes after the nearest "
                                "allocation at 0x7f3a2c000000 of size 62 bytes");
    cr_expect_eq(e.errors, 2);
    char line[2048];
    kc_sanitizer_describe("memcheck", &e, line, sizeof line);
    cr_expect_str_eq(line, "memcheck: Invalid __global__ read of size 2 bytes in kernel fake_copy_f16 at " K
                           "+0x90 in /kc/copy.cu:12, thread (30,0,0) block (2,0,0), Address 0x7f3a2c00003e is out "
                           "of bounds and is 0 bytes after the nearest allocation at 0x7f3a2c000000 of size 62 "
                           "bytes (2 errors in all)");
}

Test(sanitize, parses_racecheck_initcheck_and_synccheck)
{
    kc_san_error e;
    cr_assert_eq(kc_sanitizer_parse("========= COMPUTE-SANITIZER\n"
                                    "========= Error: Race reported between Write access at " K "+0x1b0 in r.cu:20\n"
                                    "=========     and Read access at " K "+0x1f0 in r.cu:24 [64 hazards]\n"
                                    "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n", &e), 1);
    cr_expect(strstr(e.what, "Race reported between Write access at"), "%s", e.what);
    cr_expect_str_eq(e.kernel, "fake_copy_f16");
    cr_expect(strstr(e.where, "and Read access at " K "+0x1f0 in r.cu:24 [64 hazards]"), "%s", e.where);
    cr_expect_eq(e.errors, 1);
    cr_assert_eq(kc_sanitizer_parse("========= Uninitialized __global__ memory read of size 4 bytes\n"
                                    "=========     at void k2<float>(float *)+0x70 in i.cu:9\n"
                                    "=========     by thread (0,0,0) in block (0,0,0)\n"
                                    "=========     Address 0x7f00\n", &e), 1);
    cr_expect_str_eq(e.what, "Uninitialized __global__ memory read of size 4 bytes");
    cr_expect_str_eq(e.kernel, "k2<float>");
    cr_expect_str_eq(e.address, "Address 0x7f00");
    cr_expect_eq(e.errors, -1, "no summary: unknown count");
    cr_assert_eq(kc_sanitizer_parse("========= Barrier error detected. Divergent thread(s) in warp\n"
                                    "=========     at 0x40 in /s.cu:15:divergent(int*)\n"          /* the older format */
                                    "=========     by thread (3,0,0) in block (1,0,0)\n", &e), 1);
    cr_expect_str_eq(e.what, "Barrier error detected. Divergent thread(s) in warp");
    cr_expect_str_eq(e.kernel, "divergent");
    cr_expect_str_eq(e.block, "(1,0,0)");
}

Test(sanitize, a_clean_report_or_the_targets_exit_note_is_no_error)
{
    kc_san_error e;
    cr_expect_eq(kc_sanitizer_parse("========= COMPUTE-SANITIZER\nplain target output\n"
                                    "========= ERROR SUMMARY: 0 errors\n", &e), 0);
    cr_expect_eq(e.errors, 0);
    cr_expect_eq(kc_sanitizer_parse("========= COMPUTE-SANITIZER\n"
                                    "========= Error: process didn't terminate successfully\n"
                                    "========= Target application returned an error\n"
                                    "========= ERROR SUMMARY: 0 errors\n", &e), 0);
    cr_expect_eq(kc_sanitizer_parse("", &e), 0);
    /* racecheck's INFO: two writes of one value, benign by its own analysis */
    cr_expect_eq(kc_sanitizer_parse("========= Info: Race reported between Write access at k+0x10 in a.cu:3\n"
                                    "=========     and Write access at k+0x10 in a.cu:3 [2 hazards]\n", &e), 0);
}

/* A racecheck batch's reports against its items' runs alone (sanitize_batch.c):
 * a pair of places is one report whatever its hazard count, which changes
 * from run to run (H100: 2292 hazards alone, 2324 in a batch, for one pair);
 * another pair, or a second report of the same pair, is unaccounted for. */
Test(sanitize, a_batch_report_is_its_pair_of_places_not_its_hazard_count)
{
#define RACE(second, count) "========= Error: Race reported between Write access at " K "+0xae0 in r.cu:98\n" \
                            "=========     and Read access at " K "+" second " in r.cu:115 [" count "]\n=========\n"
    const char *alone = RACE("0xbb0", "2292 hazards");
    char first[2048] = "";
    cr_expect_eq(kc_sanitizer_unmatched(RACE("0xbb0", "2324 hazards"), alone, first, sizeof first), 0, "%s", first);
    cr_expect_eq(kc_sanitizer_unmatched(RACE("0xbb0", "1 hazard"), alone, first, sizeof first), 0, "%s", first);
    cr_expect_eq(kc_sanitizer_unmatched(RACE("0xbc0", "2292 hazards"), alone, first, sizeof first), 1);
    cr_expect(strstr(first, "+0xbc0 in r.cu:115") && !strstr(first, "hazard"), "%s", first);
    cr_expect_eq(kc_sanitizer_unmatched(RACE("0xbb0", "7 hazards") RACE("0xbb0", "9 hazards"), alone, first,
                                        sizeof first), 1, "one run alone explains one report, not two");
    /* a line past what a report keeps (4095 characters: a C++ template name
     * runs to thousands, its offset after it) never equals another, whatever
     * follows the cut */
    char *name = malloc(5000), *a = malloc(12000), *b = malloc(12000);
    cr_assert(name && a && b);
    memset(name, 'T', 4999);
    name[4999] = 0;
    snprintf(a, 12000, "========= Error: Race reported between Write access at %s+0x10 in r.cu:1\n"
                       "=========     and Read access at %s+0x20 in r.cu:2 [3 hazards]\n", name, name);
    snprintf(b, 12000, "========= Error: Race reported between Write access at %s+0x90 in r.cu:9\n"
                       "=========     and Read access at %s+0x20 in r.cu:2 [3 hazards]\n", name, name);
    cr_expect_eq(kc_sanitizer_unmatched(b, a, first, sizeof first), 1, "another place past the cut");
    cr_expect_eq(kc_sanitizer_unmatched(a, a, first, sizeof first), 1, "not even itself: past the cut it is unknown");
    cr_expect_eq(kc_sanitizer_count(a), 1);
    free(name), free(a), free(b);
    /* only a trailing count of hazards is cut */
    cr_expect_eq(kc_sanitizer_unmatched(RACE("0xbb0", "2292 hazards"), RACE("0xbb0", "2292 notes"), first,
                                        sizeof first), 1);
#undef RACE
}

/* ---- finding it ---- */

Test(sanitize, finds_the_tool_or_says_where_it_looked)
{
    char path[4096], why[2048];
    setenv("KC_COMPUTE_SANITIZER", "/no/such/compute-sanitizer", 1);
    cr_expect_eq(kc_sanitizer_find(path, sizeof path, why, sizeof why), 1);
    cr_expect(strstr(why, "KC_COMPUTE_SANITIZER=/no/such/compute-sanitizer: No such file or directory"), "%s", why);
    setenv("KC_COMPUTE_SANITIZER", "tests", 1);    /* there, but no executable file */
    cr_expect_eq(kc_sanitizer_find(path, sizeof path, why, sizeof why), 1);
    cr_expect(strstr(why, "KC_COMPUTE_SANITIZER=tests is not an executable file"), "%s", why);
    char fake[PATH_MAX], dir[PATH_MAX + 16];
    cr_assert_not_null(realpath("tests/fake/compute-sanitizer", fake));
    setenv("KC_COMPUTE_SANITIZER", fake, 1);
    cr_expect_eq(kc_sanitizer_find(path, sizeof path, why, sizeof why), 0);
    cr_expect_str_eq(path, fake);
    unsetenv("KC_COMPUTE_SANITIZER");
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(fake, '/') - fake), fake);
    setenv("PATH", dir, 1);
    cr_expect_eq(kc_sanitizer_find(path, sizeof path, why, sizeof why), 0, "%s", why);
    cr_expect_str_eq(path, fake);
    setenv("PATH", "/nonexistent-kc-dir", 1);
    int rc = kc_sanitizer_find(path, sizeof path, why, sizeof why);
    if (access("/usr/local/cuda/bin/compute-sanitizer", X_OK) == 0) {
        cr_expect_eq(rc, 0);
        cr_expect_str_eq(path, "/usr/local/cuda/bin/compute-sanitizer");
    } else {
        cr_expect_eq(rc, 1);
        cr_expect_str_eq(why, "compute-sanitizer not found (looked in $KC_COMPUTE_SANITIZER, unset; $PATH "
                              "(1 directory); /usr/local/cuda/bin/compute-sanitizer): install the CUDA toolkit's "
                              "compute-sanitizer or set KC_COMPUTE_SANITIZER=/path/to/compute-sanitizer");
        /* A long $PATH is named by its count of directories (empty entries
         * search nothing), not repeated on every :sanitize item's line. */
        setenv("PATH", "/nonexistent-kc-a:/nonexistent-kc-b::/nonexistent-kc-c/with/a/long/name/that/nobody/reads:"
                       "/nonexistent-kc-d:", 1);
        cr_expect_eq(kc_sanitizer_find(path, sizeof path, why, sizeof why), 1);
        cr_expect(strstr(why, "; $PATH (4 directories); ") && !strstr(why, "nonexistent-kc"), "%s", why);
        unsetenv("PATH");
        cr_expect_eq(kc_sanitizer_find(path, sizeof path, why, sizeof why), 1);
        cr_expect(strstr(why, "; $PATH, unset; "), "%s", why);
    }
}

/* ---- the registry and the costs ---- */

static double one(const kc_shape *s) { (void)s; return 1; }
static size_t count1(const kc_shape *s) { (void)s; return 1; }
static void ref(const kc_ref *r) { (void)r; }
static void launch1(const kc_shape *s, const kc_device *d, kc_launch *l) { (void)s, (void)d, (void)l; }
static const kc_shape shapes[] = { { "model.8", KC_SHAPE_MODEL, { 8 } }, { "model.4", KC_SHAPE_MODEL, { 4 } },
                                   { "edge.1", KC_SHAPE_EDGE, { 1 } }, { "large.1e6", KC_SHAPE_LARGE, { 1000000 } },
                                   { 0 } };

static kc_contract contract(void)
{
    kc_contract c = {
        .name = "t.san", .module = "elementwise", .symbol = "x", .launch = launch1, .reference = ref,
        .shapes = shapes,
        .args = { KC_BUFFER("y", KC_F32, KC_OUT, count1), KC_SCALAR("n", KC_I64, one) },
    };
    return c;
}

Test(sanitize, registry_wants_a_reason_to_opt_out_and_gates_1_to_5)
{
    char err[1024];
    kc_contract c = contract();
    c.module = NULL, c.library = "kc_x", c.entry = "e", c.launch = NULL, c.symbol = NULL;   /* no fatbin lookup */
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
    c.no_sanitize = "";
    cr_expect_neq(kc_contract_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "contract t.san: no_sanitize needs a reason"), "%s", err);
    c.no_sanitize = "a reason";
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
    c.controls[0] = (kc_control){ "planted", KC_GATE_SANITIZE, "a discarded read past the end" };
    cr_expect_neq(kc_contract_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "control planted is planted for the sanitizer, but the contract opts out of it "
                          "(no_sanitize: a reason)"), "%s", err);
    c.controls[0].gate = 6;
    cr_expect_neq(kc_contract_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "control planted names gate 6 (expected 1-4, or 5: the sanitizer)"), "%s", err);
}

Test(sanitize, shapes_are_the_edges_and_the_smallest_model_shape)
{
    kc_contract c = contract();
    const kc_shape *s[8];
    cr_assert_eq(kc_sanitize_shapes(&c, s, 8), 2);
    cr_expect_str_eq(s[0]->name, "edge.1");
    cr_expect_str_eq(s[1]->name, "model.8", "equal footprints (count1): the first model shape");
    cr_expect_eq(kc_sanitize_shapes(&c, s, 1), 1);
}

Test(sanitize, an_unmeasured_sanitize_item_is_estimated_as_slow)
{
    kc_contract c = contract();
    kc_item it = { .kind = KC_KIND_SANITIZE, .contract = &c };
    snprintf(it.name, sizeof it.name, "t.san:sanitize");
    cr_expect_geq(kc_cost_estimate(&it), KC_COST_EST_SANITIZE_S);
    kc_item k = { .kind = KC_KIND_KERNEL, .contract = &c };
    cr_expect_lt(kc_cost_estimate(&k), kc_cost_estimate(&it), "a kernel of 5 tiny shapes costs less");
    kc_control ct = { "planted", KC_GATE_SANITIZE, "bug" };
    kc_item ctl = { .kind = KC_KIND_CONTROL, .contract = &c, .control = &ct };
    cr_expect_geq(kc_cost_estimate(&ctl), KC_COST_EST_SANITIZE_S, "gates 1-4, then the sanitizer");
}

/* no_racecheck on a shape: only an edge shape, with a reason, and not on
 * every edge shape of a contract that racecheck runs. */
Test(sanitize, registry_checks_a_shapes_no_racecheck)
{
    char err[1024];
    kc_contract c = contract();
    c.module = NULL, c.library = "kc_x", c.entry = "e", c.launch = NULL, c.symbol = NULL;
    kc_shape sh[] = { { "m.4", KC_SHAPE_MODEL, { 4 } }, { "edge.1", KC_SHAPE_EDGE, { 1 } },
                      { "edge.33", KC_SHAPE_EDGE, { 33 } }, { 0 } };
    c.shapes = sh;
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
    sh[2].no_racecheck = "";
    cr_expect_neq(kc_contract_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "contract t.san: shape edge.33: no_racecheck needs a reason"), "%s", err);
    sh[2].no_racecheck = "the blocks of edge.1 again";
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
    sh[0].no_racecheck = "a reason";
    cr_expect_neq(kc_contract_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "contract t.san: shape m.4: no_racecheck on a model shape (racecheck runs the edge shapes "
                          "only)"), "%s", err);
    sh[0].no_racecheck = NULL;
    sh[1].no_racecheck = "a reason";
    cr_expect_neq(kc_contract_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "contract t.san: no_racecheck on every edge shape"), "%s", err);
    c.no_racecheck = "a vendor kernel";
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
}

/* ---- whole runs ---- */

Test(sanitize, skip_when_compute_sanitizer_is_not_found, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 1, NULL, NULL);
    char line[8192];
    if (access("/usr/local/cuda/bin/compute-sanitizer", X_OK) == 0) {
        kc_proc_free(&p);
        cr_skip_test("/usr/local/cuda/bin/compute-sanitizer exists: nothing to miss here");
    }
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "SKIP", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "compute-sanitizer not found (looked in $KC_COMPUTE_SANITIZER, unset; $PATH (2 directories); "
                           "/usr/local/cuda/bin/compute-sanitizer): install the CUDA toolkit's compute-sanitizer or "
                           "set KC_COMPUTE_SANITIZER=/path/to/compute-sanitizer"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SANITIZE][KC_SKIP], 1);
    kc_proc_free(&p);
}

Test(sanitize, clean_under_every_tool_passes, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, NULL, NULL);
    char line[8192], sum[2048];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "PASS", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "memcheck, racecheck, initcheck and synccheck clean on 2 launches of fakesan.copy.f16 "
                           "(dist uniform): edge.31 model.heads.1024 (buffers of exact size)"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SANITIZE][KC_PASS], 1);
    kc_out_summary(p.out, sum, sizeof sum);
    cr_expect(strstr(sum, "; 1 sanitizer check: 1 clean, 0 with errors;"), "%s", sum);
    kc_proc_free(&p);
}

/* A gate-5 known finding (kc_known with tool, kernel, error): KNOWN when that
 * report comes, the other tools still run; stale (FAIL) when it no longer
 * comes; another tool's error still FAILs. */
Test(sanitize, a_known_finding_of_gate_5_is_known_until_stale, .timeout = 120)
{
    const char *item = "fakesanknown.copy.f16:sanitize";
    kc_proc p = kc_san_test_run((char *[]){ "run", (char *)item, NULL }, 0, "KC_FAKE_SANITIZER=error:memcheck", NULL);
    char line[8192];
    cr_expect_eq(p.status, 0, "KNOWN is no failure: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "KNOWN", item, line, sizeof line) &&
              strstr(line, "registered known finding: memcheck: Invalid __global__ read of size 2 bytes in kernel "
                           "fake_copy_f16") &&
              strstr(line, "[reads one past n on purpose (fixture)]; the other tools of memcheck, racecheck, initcheck "
                           "and synccheck clean on 2 launches of fakesanknown.copy.f16"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SANITIZE][KC_KNOWN], 1, "%s", p.out);
    kc_proc_free(&p);
    /* nothing reports it: stale */
    p = kc_san_test_run((char *[]){ "run", (char *)item, NULL }, 0, NULL, NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", item, line, sizeof line) &&
              strstr(line, "1 stale known finding of gate 5, no longer reported: memcheck in kernel fake_copy_f16, "
                           "error Invalid __global__ read of size * (reads one past n on purpose (fixture)): remove it"),
              "%s", p.out);
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.stale, 1, "%s", p.out);
    kc_proc_free(&p);
    /* another tool's error is no known finding */
    p = kc_san_test_run((char *[]){ "run", (char *)item, NULL }, 0, "KC_FAKE_SANITIZER=error:racecheck", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", item, line, sizeof line) && strstr(line, "  racecheck: Error: Race"),
              "%s", p.out);
    kc_proc_free(&p);
}

/* A kernel that uses no shared memory (the target's memcheck run says so)
 * is not run under racecheck, which checks shared memory only; the line says
 * why, and what each tool cost. */
Test(sanitize, no_shared_memory_leaves_racecheck_out, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenosmem.copy.f16:sanitize", NULL }, 0,
                                "KC_FAKE_SANITIZER=error:racecheck", NULL);
    char line[8192];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakenosmem.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "memcheck, initcheck and synccheck (racecheck not run: no launch uses shared memory) "
                           "clean on 2 launches"), "%s", p.out);
    cr_expect(strstr(line, "[memcheck ") && strstr(line, " s, initcheck ") && !strstr(line, "racecheck 0") &&
              strstr(line, "; slowest launch "), "%s", line);
    kc_proc_free(&p);
    /* the same kernel with shared memory runs racecheck on its edge shape */
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, NULL, NULL);
    cr_expect(kc_out_item_line(p.out, "PASS", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "[memcheck ") && strstr(line, " s (edge shapes), initcheck "), "%s", p.out);
    kc_proc_free(&p);
}

/* A contract that leaves racecheck out (no_racecheck, with its reason)
 * runs the other three tools, says so, and never sees racecheck's errors. */
Test(sanitize, no_racecheck_runs_the_other_three_tools, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakenorace.copy.f16:sanitize", NULL }, 0, "KC_FAKE_SANITIZER=error:racecheck",
                                NULL);
    char line[8192];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakenorace.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "memcheck, initcheck and synccheck (racecheck not run: a vendor kernel's hazards (fixture)) "
                           "clean on 2 launches"), "%s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", "fakenorace.copy.f16:sanitize", NULL }, 0, "KC_FAKE_SANITIZER=error:initcheck", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakenorace.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "initcheck: "), "%s", p.out);
    kc_proc_free(&p);
    char err[1024];
    kc_contract c = contract();
    c.module = NULL, c.library = "kc_x", c.entry = "e", c.launch = NULL, c.symbol = NULL;
    c.no_racecheck = "";
    cr_expect_neq(kc_contract_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "contract t.san: no_racecheck needs a reason"), "%s", err);
}

Test(sanitize, an_error_fails_with_the_parsed_line_and_both_commands, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, "--seed", "7", NULL }, 0, "KC_FAKE_SANITIZER=error:racecheck", NULL);
    char line[8192], sum[2048];
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_assert(kc_out_item_line(p.out, "FAIL", KC_SAN_TEST_ITEM, line, sizeof line), "%s", p.out);
    cr_expect(strstr(line, "  racecheck: Error: Race reported between Write access at " K "+0x1b0 in "
                           "/kc/tests/fake/fake_copy.cu:20 in kernel fake_copy_f16"), "%s", line);
    cr_expect(strstr(line, "and Read access at " K "+0x1f0"), "%s", line);
    cr_expect(strstr(line, "; sanitizer command: ") && strstr(line, "compute-sanitizer --tool racecheck --error-exitcode 86 ")
              && strstr(line, "kcontract-fixture run " KC_SAN_TEST_ITEM " --sanitize-target --seed 7 --device 0"), "%s", line);
    /* the harness's own kernels are left out; racecheck gets every online
     * CPU, not this process's share */
    char cpus[64];
    snprintf(cpus, sizeof cpus, " --racecheck-num-workers %ld ", sysconf(_SC_NPROCESSORS_ONLN));
    cr_expect(strstr(line, " --kernel-name-exclude kne=kc_gen_fill ") && strstr(line, cpus), "%s", line);
    cr_expect(strstr(line, "rerun: ") && strstr(line, " run " KC_SAN_TEST_ITEM " --seed 7 --device 0"), "%s", line);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SANITIZE][KC_FAIL], 1);
    kc_out_summary(p.out, sum, sizeof sum);
    cr_expect(strstr(sum, "; 1 sanitizer check: 0 clean, 1 with an error;"), "%s", sum);
    kc_proc_free(&p);
    /* initcheck checks every kernel: the harness's generator writes the inputs */
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER=error:initcheck", NULL);
    cr_assert(kc_out_item_line(p.out, "FAIL", KC_SAN_TEST_ITEM, line, sizeof line), "%s", p.out);
    cr_expect(strstr(line, "compute-sanitizer --tool initcheck ") && !strstr(line, "--kernel-name"), "%s", line);
    kc_proc_free(&p);
    /* memcheck's first error names thread, block and address */
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER=error:memcheck", NULL);
    cr_expect(kc_out_item_line(p.out, "FAIL", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "memcheck: Invalid __global__ read of size 2 bytes in kernel fake_copy_f16") &&
              strstr(line, "thread (30,0,0) block (0,0,0), Address 0x7f3a2c00003e is out of bounds"), "%s", p.out);
    kc_proc_free(&p);
    /* synccheck runs last: the three before it ran clean */
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER=error:synccheck", NULL);
    cr_expect(kc_out_item_line(p.out, "FAIL", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "synccheck: Barrier error detected") && strstr(line, "--tool synccheck"), "%s", p.out);
    kc_proc_free(&p);
}

Test(sanitize, a_crash_a_hang_or_no_launches_is_never_green, .timeout = 120)
{
    char line[8192];
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER=crash", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "CRASH", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "memcheck: compute-sanitizer killed by signal 11") && strstr(line, "rerun: "), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SANITIZE][KC_CRASH], 1);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER=hang", "KC_SANITIZE_TIMEOUT_S=1");
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "TIMEOUT", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "memcheck: compute-sanitizer did not finish in 1 s"), "%s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_SANITIZER=notarget", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "memcheck: the target reported no launches under compute-sanitizer"), "%s", p.out);
    kc_proc_free(&p);
}

Test(sanitize, controls_planted_for_gate_5, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16:control.*", NULL }, 0, NULL, NULL);
    char line[8192];
    cr_expect_eq(p.status, 1, "the blind control fails the run: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "RED", "fakesan.copy.f16:control.masked_tail_read_oob", line, sizeof line) &&
              strstr(line, "caught by gate 5 (sanitizer; planted for gate 5; gates 1-4 passed all 5 cases): memcheck: "
                           "Invalid __global__ read of size 2 bytes"), "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "MISSED", "fakesan.copy.f16:control.sanitizer_blind", line, sizeof line) &&
              strstr(line, "gates 1-4 passed all 5 cases, and memcheck, racecheck, initcheck and synccheck found no "
                           "error on 2 launches of fakesan.copy.f16@sanitizer_blind") &&
              strstr(line, "the suite is blind to this bug"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_CONTROL][KC_RED], 1);
    cr_expect_eq(t.n[KC_KIND_CONTROL][KC_MISSED], 1);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16:control.masked_tail_read_oob", NULL }, 1, NULL, NULL);
    if (access("/usr/local/cuda/bin/compute-sanitizer", X_OK) != 0) {
        cr_expect_eq(p.status, 3, "no sanitizer: the control is SKIP, never RED: exit %d\n%s", p.status, p.out);
        cr_expect(kc_out_item_line(p.out, "SKIP", "fakesan.copy.f16:control.masked_tail_read_oob", line, sizeof line) &&
                  strstr(line, "(the control planted for the sanitizer was not checked by it)"), "%s", p.out);
    }
    kc_proc_free(&p);
}

Test(sanitize, work_queue_runs_and_measures_them, .timeout = 120)
{
    char costs[256];
    snprintf(costs, sizeof costs, "%s/kc-san-costs-XXXXXX", kc_test_tmpdir());
    int fd = mkstemp(costs);
    cr_assert_geq(fd, 0);
    close(fd);
    unlink(costs);
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakesan.*", "--jobs", "2", "--costs", costs, NULL }, 0, NULL, NULL);
    cr_expect_eq(p.status, 1, "the blind control: exit %d\n%s%s", p.status, p.out, p.err);
    char line[8192];
    cr_expect(kc_out_item_line(p.out, "PASS", KC_SAN_TEST_ITEM, line, sizeof line), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SANITIZE][KC_PASS], 1);
    cr_expect_eq(t.n[KC_KIND_CONTROL][KC_RED], 1);
    cr_expect_eq(t.items, 5);
    const char *table = kc_out_file(costs);
    cr_expect(strstr(table, KC_SAN_TEST_ITEM "\t"), "%s", table);
    unlink(costs);
    kc_proc_free(&p);
}

/* KC_DISPATCH_SANITIZER_FIRST was removed (measured twice to gain nothing,
 * queue.c): a run that sets it to anything but 0 is refused before anything
 * runs, serial or not, instead of running without it; 0 runs. */
Test(sanitize, the_removed_sanitizer_first_setting_is_refused, .timeout = 120)
{
    kc_proc p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, "--jobs", "2", NULL }, 0, "KC_DISPATCH_SANITIZER_FIRST=1", NULL);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "KC_DISPATCH_SANITIZER_FIRST = '1': this setting was removed (handing the sanitizer's "
                            "items out first was measured twice and gained nothing: docs/parallel-runs.md); unset it"),
              "%s", p.err);
    cr_expect_null(strstr(p.out, KC_SAN_TEST_ITEM), "nothing ran: %s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_DISPATCH_SANITIZER_FIRST=yes", NULL);
    cr_expect_eq(p.status, 2, "serial too: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_DISPATCH_SANITIZER_FIRST=0", NULL);
    cr_expect_eq(p.status, 0, "0 is the old default: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
}
