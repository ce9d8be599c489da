/* test_sanitize_target.c — the sanitizer's target (src/gates/sanitize_target.h)
 * run as a session under the fake driver, without compute-sanitizer: the
 * hang watchdog it raises, racecheck's edge shapes launched together, a
 * round that faults or is refused, a batch of several items in one request,
 * and what a killed session leaves. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/sanitize_runs.h"
#include "support/spawn.h"

/* Runs the fixture binary's --sanitize-target as a session under the fake
 * driver (seed 7, device 0), its stdin the request lines of `requests`
 * ("KC_SAN_TEST_ITEM edge\n..."), killed after timeout_s. */
static kc_proc target_session_env(const char *requests, double timeout_s, const char *extra, const char *extra2)
{
    static char env_cuda[1024];
    const char *lib = getenv("KC_FAKE_CUDA");
    snprintf(env_cuda, sizeof env_cuda, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_cuda.so");
    char *env[] = { env_cuda, (char *)extra, (char *)extra2, NULL };
    char *argv[] = { "/bin/sh", "-c", "printf '%s' \"$1\" | \"$0\" run --sanitize-target --seed 7 --device 0",
                     (char *)kc_test_fixture_bin(), (char *)requests, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, timeout_s, &p), 0);
    return p;
}

static kc_proc target_session(const char *requests, double timeout_s)
{
    return target_session_env(requests, timeout_s, NULL, NULL);
}

/* A module with a hang watchdog (kcontract_watchdog.cuh; the fake's
 * KC_FAKE_WATCHDOG gives every module of a kernel under test one) gets
 * KC_WATCHDOG_UNDER_TOOL_NS in the sanitizer's target before its launches,
 * and the target says so; a module without one, or whose own bound is
 * higher, is left alone; one whose variable is not 8 bytes, or that the
 * driver cannot read, fails the item, naming the module and why; a sticky
 * error there ends the session. */
Test(sanitize, the_target_raises_a_modules_hang_watchdog, .timeout = 120)
{
    kc_proc p = target_session_env("fakesan.copy.f16:sanitize all\n", 60, "KC_FAKE_WATCHDOG=8", NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: watchdog: kc_watchdog_ns 10 s under the tool (the module's "
                            "0.250 s)\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: "), "%s", p.out);
    kc_proc_free(&p);
    p = target_session("fakesan.copy.f16:sanitize all\n", 60);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_null(strstr(p.out, "watchdog"), "a module without one: %s", p.out);
    kc_proc_free(&p);
    p = target_session_env("fakesan.copy.f16:sanitize all\n", 60, "KC_FAKE_WATCHDOG=8",
                           "KC_FAKE_WATCHDOG_NS=20000000000");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_null(strstr(p.out, "watchdog"), "a module whose own bound (20 s) is higher keeps it: %s", p.out);
    kc_proc_free(&p);
    p = target_session_env("fakesan.copy.f16:sanitize all\n", 60, "KC_FAKE_WATCHDOG=4", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: FAIL: the kernel's hang watchdog: module fake_copy's "
                            "kc_watchdog_ns is 4 bytes, expected 8 (unsigned long long nanoseconds, as "
                            "kcontract_watchdog.cuh declares it)\n"), "%s", p.out);
    kc_proc_free(&p);
    p = target_session_env("fakesan.copy.f16:sanitize all\n", 60, "KC_FAKE_WATCHDOG=fail", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: FAIL: the kernel's hang watchdog: setting module fake_copy's "
                            "kc_watchdog_ns failed: CUDA_ERROR_INVALID_CONTEXT\n"), "%s", p.out);
    kc_proc_free(&p);
    /* A sticky error there (an earlier fault, seen first at this call): the
     * context is lost, the line says so, and the session serves nothing more. */
    p = target_session_env("fakesan.copy.f16:sanitize all\nfakesan.copy.f16:sanitize edge\n", 60,
                           "KC_FAKE_WATCHDOG=lost", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: FAIL: the kernel's hang watchdog: setting module fake_copy's "
                            "kc_watchdog_ns failed: CUDA_ERROR_ILLEGAL_ADDRESS (the CUDA context is now unusable)\n"),
              "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kcontract-sanitize-target: begin "), 1,
                 "one request served, the second never begun on a lost context:\n%s", p.out);
    kc_proc_free(&p);
}

/* Through the gate: the gates' launches keep the module's bound, the
 * sanitizer's get the raised one (the fake's launch log gives the value at
 * each launch), and the clean line says so; a variable of the wrong size
 * FAILs the :sanitize item. */
Test(sanitize, only_the_sanitizers_launches_get_the_raised_watchdog, .timeout = 120)
{
    char log[256], env_log[300];
    kc_tmp_path(log, sizeof log, "watchdog", "log");
    snprintf(env_log, sizeof env_log, "KC_FAKE_LAUNCH_LOG=%s", log);
    kc_proc p = kc_san_test_run((char *[]){ "run", "fakesan.copy.f16", KC_SAN_TEST_ITEM, NULL }, 0, env_log, "KC_FAKE_WATCHDOG=8");
    char line[8192];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "PASS", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "; watchdog kc_watchdog_ns 10 s under the tool (the module's 0.250 s)]"), "%s", p.out);
    kc_proc_free(&p);
    FILE *f = fopen(log, "r");
    cr_assert_not_null(f, "no launch log %s", log);
    int module = 0, raised = 0, other = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "fake_copy_f16 ", 14) != 0) continue;
        if (strstr(line, " watchdog_ns=250000000\n")) module++;
        else if (strstr(line, " watchdog_ns=10000000000\n")) raised++;
        else other++;
    }
    fclose(f);
    unlink(log);
    cr_expect_gt(module, 0, "the gates' launches keep the module's 250 ms");
    cr_expect_gt(raised, 0, "the sanitizer's launches get 10 s");
    cr_expect_eq(other, 0, "%d launches with another value or none", other);
    p = kc_san_test_run((char *[]){ "run", KC_SAN_TEST_ITEM, NULL }, 0, "KC_FAKE_WATCHDOG=4", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", KC_SAN_TEST_ITEM, line, sizeof line) &&
              strstr(line, "memcheck: the target failed under compute-sanitizer: the kernel's hang watchdog: module "
                           "fake_copy's kc_watchdog_ns is 4 bytes, expected 8"), "%s", p.out);
    kc_proc_free(&p);
}

/* racecheck's request ("<item> edge") launches the edge shapes together,
 * one stream each (gates.h); every other request, and the command a failure
 * line gives, launches them one at a time. A fault among launches made
 * together names each shape launched, not one it cannot single out. */
Test(sanitize, racecheck_launches_the_edge_shapes_together, .timeout = 120)
{
    kc_proc p = target_session("fakeedges.copy.f16:sanitize edge\nfakeedges.copy.f16:sanitize all\n"
                               "fakeedges.copy.f16:control.fault edge\nfakeedges.copy.f16:sanitize edge\n", 60);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: 3 launches of fakeedges.copy.f16 (dist uniform): edge.1 "
                            "edge.31 edge.33 (up to 3 launched together, one stream each)\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: 4 launches of fakeedges.copy.f16 (dist uniform): edge.1 "
                            "edge.31 edge.33 model.heads.1024\n"), "%s", p.out);
    /* edge.1's fault is met at edge.31's calls: edge.31 never launched */
    cr_expect(strstr(p.out, "kcontract-sanitize-target: FAIL: gate 1 (launch and fit): shape edge.1, dist uniform, "
                            "launched together (one stream each): a fault met at the calls of the next launch (edge.31, "
                            "not launched): CUDA_ERROR_ILLEGAL_ADDRESS (the CUDA context is now unusable); the sanitizer "
                            "command launches them one at a time\n"),
              "%s", p.out);
    /* the context is lost: the session ends after that item */
    cr_expect_eq(kc_out_count(p.out, "kcontract-sanitize-target: begin "), 3, "%s", p.out);
    kc_proc_free(&p);
    /* through the gate: racecheck's cost says so, and its errors still decide */
    p = kc_san_test_run((char *[]){ "run", "fakeedges.copy.f16:sanitize", NULL }, 0, NULL, NULL);
    char line[8192];
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakeedges.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, " s (edge shapes, launched together), initcheck "), "%s", p.out);
    kc_proc_free(&p);
    p = kc_san_test_run((char *[]){ "run", "fakeedges.copy.f16:sanitize", NULL }, 0, "KC_FAKE_SANITIZER=error:racecheck", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakeedges.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, "racecheck"), "%s", p.out);
    kc_proc_free(&p);
}

/* An edge shape the contract leaves out of racecheck (kc_shape.no_racecheck)
 * is not in racecheck's request, which is "edge" though the contract has
 * edge shapes only, and the item's line names it; the other tools run it. */
Test(sanitize, an_edge_shape_left_out_of_racecheck_runs_under_the_other_tools, .timeout = 120)
{
    kc_proc p = target_session("fakeedgesrace.copy.f16:sanitize edge\nfakeedgesrace.copy.f16:sanitize all\n", 60);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: 2 launches of fakeedgesrace.copy.f16 (dist uniform): edge.1 "
                            "edge.33 (up to 2 launched together, one stream each); 1 edge shape left to the other "
                            "tools (no_racecheck)\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: 3 launches of fakeedgesrace.copy.f16 (dist uniform): edge.1 "
                            "edge.31 edge.33\n"), "%s", p.out);
    kc_proc_free(&p);
    char line[8192];
    p = kc_san_test_run((char *[]){ "run", "fakeedgesrace.copy.f16:sanitize", NULL }, 0, NULL, NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "PASS", "fakeedgesrace.copy.f16:sanitize", line, sizeof line) &&
              strstr(line, " s (edge shapes but edge.31, launched together), initcheck "), "%s", p.out);
    kc_proc_free(&p);
}

/* A round launched together in which a later shape's launch is refused
 * (gate 1, no CUDA error) while the ones launched before it fault (seen at
 * the synchronize): the context is lost, so the session ends there, and the
 * line says so; the next request is never served in a dead context (it
 * would fail there with the earlier item's fault). */
Test(sanitize, a_refused_launch_beside_faulting_ones_ends_the_session, .timeout = 120)
{
    kc_proc p = target_session("fakeedgeblock.copy.f16:control.late_fault edge\nfakeedges.copy.f16:sanitize edge\n",
                               60);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: FAIL: gate 1 (launch and fit): shape edge.1025 (n=1025), dist "
                            "uniform: block of 1025 threads > 1024 the function allows (registers or __launch_bounds__); "
                            "the shapes launched together before it, edge.1 edge.33, then failed at synchronize: "
                            "CUDA_ERROR_ILLEGAL_ADDRESS (the CUDA context is now unusable)\n"), "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kcontract-sanitize-target: begin "), 1, "%s", p.out);
    cr_expect(!strstr(p.out, "fakeedges.copy.f16"), "%s", p.out);
    kc_proc_free(&p);
}

/* A round launched together holds no more device memory than the memory
 * plan admits the :sanitize item with (kc_item_memory: its largest shape's
 * case, one at a time): four edge shapes of 6 MiB each in the target, 18.5
 * MiB admitted, launch three together and then one. */
Test(sanitize, a_round_fits_the_memory_the_item_was_admitted_with, .timeout = 120)
{
    kc_proc p = target_session("fakeedgesbig.copy.f16:sanitize edge\n", 90);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: 4 launches of fakeedgesbig.copy.f16 (dist uniform): "
                            "edge.1048575 edge.1048576 edge.1048577 edge.1048579 (up to 3 launched together, one "
                            "stream each)\n"), "%s", p.out);
    cr_expect(!strstr(p.err, "never destroyed"), "the target leaves streams behind: %s", p.err);
    kc_proc_free(&p);
}

/* A round whose second launch first raises the function's shared-memory
 * limit, and the first launch's fault is seen there (cuFuncSetAttribute
 * answers with it): that is the first launch's fault, not the second
 * shape's gate 1 failure; the line names the shape launched. */
Test(sanitize, a_fault_seen_at_a_later_launchs_attribute_call_names_the_shapes_launched, .timeout = 120)
{
    kc_proc p = target_session("fakeedgesmem.copy.f16:control.late_fault edge\n", 60);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: FAIL: gate 1 (launch and fit): shape edge.1, dist uniform, "
                            "launched together (one stream each): a fault met at the calls of the next launch (edge.33, "
                            "not launched): CUDA_ERROR_ILLEGAL_ADDRESS (the CUDA context is now unusable); the sanitizer "
                            "command launches them one at a time\n"), "%s", p.out);
    kc_proc_free(&p);
}

/* A batch request (several "<item> edge" words separated by tabs) launches
 * every item's racecheck edge shapes together and answers each item between
 * its own begin and end lines, in order; a shape left out of racecheck stays
 * out. One item that fails leaves every other "not decided" (the gate then
 * runs each alone); a control, or a scope other than edge, is refused for
 * every item of the line, and the next request is still served. */
Test(sanitize, a_batch_launches_several_items_together_and_answers_each, .timeout = 120)
{
    kc_proc p = target_session("fakeedges.copy.f16:sanitize edge\tfakeedgesrace.copy.f16:sanitize edge\t"
                               "fakesan.copy.f16:sanitize edge\n", 60);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: begin fakeedges.copy.f16:sanitize\n"
                            "kcontract-sanitize-target: smem: 256\n"
                            "kcontract-sanitize-target: ok: 3 launches of fakeedges.copy.f16 (dist uniform): edge.1 "
                            "edge.31 edge.33 (in a batch of 3 items, up to 6 launched together, one stream each)\n"
                            "kcontract-sanitize-target: end fakeedges.copy.f16:sanitize\n"
                            "kcontract-sanitize-target: begin fakeedgesrace.copy.f16:sanitize\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: 2 launches of fakeedgesrace.copy.f16 (dist uniform): edge.1 "
                            "edge.33 (in a batch of 3 items, up to 6 launched together, one stream each); 1 edge shape "
                            "left to the other tools (no_racecheck)\n"
                            "kcontract-sanitize-target: end fakeedgesrace.copy.f16:sanitize\n"), "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: 1 launch of fakesan.copy.f16 (dist uniform): edge.31 (in a "
                            "batch of 3 items, up to 6 launched together, one stream each)\n"
                            "kcontract-sanitize-target: end fakesan.copy.f16:sanitize\n"), "%s", p.out);
    cr_expect(!strstr(p.err, "never destroyed"), "the target leaves streams behind: %s", p.err);
    kc_proc_free(&p);
    p = target_session_env("fakeedges.copy.f16:sanitize edge\tfakesan.copy.f16:sanitize edge\n", 60,
                           "KC_FAKE_WATCHDOG=4", NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: FAIL: the kernel's hang watchdog: module fake_copy's "
                            "kc_watchdog_ns is 4 bytes, expected 8"), "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: begin fakesan.copy.f16:sanitize\n"
                            "kcontract-sanitize-target: smem: 0\n"
                            "kcontract-sanitize-target: FAIL: not decided: the batch of 2 items failed at "
                            "fakeedges.copy.f16 (its line says why)\n"
                            "kcontract-sanitize-target: end fakesan.copy.f16:sanitize\n"), "%s", p.out);
    kc_proc_free(&p);
    p = target_session("fakeedges.copy.f16:sanitize edge\tfakeedges.copy.f16:control.fault edge\n"
                       "fakesan.copy.f16:sanitize edge\tfakeedges.copy.f16:sanitize all\n"
                       "fakesan.copy.f16:sanitize edge\n", 60);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_eq(kc_out_count(p.out, "kcontract-sanitize-target: FAIL: bad batch: 'fakeedges.copy.f16:control.fault' is "
                                     "no :sanitize item of this binary (a batch takes :sanitize items only, never a "
                                     "control)\n"), 2, "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kcontract-sanitize-target: FAIL: bad batch: 'fakeedges.copy.f16:sanitize all': "
                                     "expected 'edge' after each item (racecheck's request)\n"), 2, "%s", p.out);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: ok: 1 launch of fakesan.copy.f16 (dist uniform): edge.31\n"),
              "the next request is served: %s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kcontract-sanitize-target: begin "), 5, "%s", p.out);
    kc_proc_free(&p);
}
