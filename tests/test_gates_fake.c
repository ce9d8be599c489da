/* test_gates_fake.c — the gate pipeline without a GPU: the real fixture binary
 * loads the fake driver (build/libfake_cuda.so, tests/fake/fake_cuda.c, through
 * KC_LIBCUDA) and checks the fake kernels of tests/fixtures/fake_*contracts.c.
 * Clean kernels pass gates 1-4; every planted control turns RED naming the gate
 * that caught it, the blind one is MISSED and fails the run; a FAIL line names
 * the case, the element, both values, the error and the allowance, and ends with
 * the rerun command; limit problems carry figure and budget; known findings are
 * KNOWN and stale ones FAIL; a sticky fault makes the serial run continue in a
 * fresh process and the work queue replace its worker, with the same counts.
 * Cluster and cooperative launches, a limits query the driver refuses, shared
 * memory poison and sticky errors at a lookup or a load: test_gates_fake_driver.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/item_lines.h"
#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"

/* The fixture binary under the fake driver (tests/support: kc_run_fake). */
static kc_proc fake_run(char **args)
{
    return kc_run_fake(args, NULL, 30);
}

/* The line of out that starts with `prefix` (after an optional "[wK] " or
 * "[K/N] " tag) into buf; 0, or -1 when there is none. */
static int line_of(const char *out, const char *prefix, char *buf, size_t cap)
{
    size_t pl = strlen(prefix);
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *q = p;
        if (*q == '[' && strchr(q, ']') && strchr(q, ']')[1] == ' ') q = strchr(q, ']') + 2;
        if (strncmp(q, prefix, pl) != 0) continue;
        const char *e = strchr(q, '\n');
        snprintf(buf, cap, "%.*s", (int)(e ? e - q : (long)strlen(q)), q);
        return 0;
    }
    return -1;
}

/* Every fake item and its state with the fake driver. */
static const struct { const char *name, *state; } ALL[] = {
    { "fake.axpy.f32", "PASS" },
    { "fake.axpy.f32:control.blind", "MISSED" },
    { "fake.axpy.f32:control.fault", "RED" },
    { "fake.axpy.f32:control.nondeterministic", "RED" },
    { "fake.axpy.f32:control.write_input", "RED" },
    { "fake.axpy.f32:control.wrong_value", "RED" },
    { "fake.axpy.f32:limits", "PASS" },
    { "fake.copy.f16", "PASS" },
    { "fake.copy.f16:control.broken_build", "MISSED" },
    { "fake.copy.f16:control.masked_tail_read", "RED" },
    { "fake.copy.f16:control.oob_write", "RED" },
    { "fake.copy.f16:control.tail_skip", "RED" },
    { "fake.copy.f16:limits", "PASS" },
    { "fake.known.f32", "KNOWN" },
    { "fake.known.f32:limits", "PASS" },
    { "fake.spill.f32", "PASS" },
    { "fake.spill.f32:limits", "LIMIT" },
    { "fake.stale.f32", "FAIL" },
    { "fake.stale.f32:limits", "PASS" },
    { "fake.wrong.f32", "FAIL" },
    { "fake.wrong.f32:limits", "PASS" },
};
#define NALL (int)(sizeof ALL / sizeof ALL[0])

static void expect_all_once(const char *out)
{
    for (int i = 0; i < NALL; i++) kc_expect_item(out, ALL[i].state, ALL[i].name, NULL);
}

static void expect_all_counts(const kc_tally *t)
{
    cr_expect_eq(t->items, NALL);
    cr_expect_eq(t->n[KC_KIND_KERNEL][KC_PASS], 3);
    cr_expect_eq(t->n[KC_KIND_KERNEL][KC_FAIL], 2);
    cr_expect_eq(t->n[KC_KIND_KERNEL][KC_KNOWN], 1);
    cr_expect_eq(t->n[KC_KIND_CONTROL][KC_RED], 7);
    cr_expect_eq(t->n[KC_KIND_CONTROL][KC_MISSED], 2);
    cr_expect_eq(t->n[KC_KIND_LIMIT][KC_PASS], 5);
    cr_expect_eq(t->n[KC_KIND_LIMIT][KC_LIMIT], 1);
    cr_expect_eq(t->limit_problems, 3);
    cr_expect_eq(t->stale, 1);
    cr_expect_str_eq(t->device, "kcontract fake GPU");
    cr_expect_eq(t->cc_major, 9);
    cr_expect_eq(t->sm_count, 4);
}

Test(gates_fake, clean_kernels_pass_gates_1_to_4_with_case_counts)
{
    kc_proc p = fake_run((char *[]){ "run", "fake.axpy.f32", "fake.copy.f16", "fake.spill.f32", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "device 0: kcontract fake GPU (compute capability 9.0, 4 SMs, driver 13.0)"), "%s", p.out);
    kc_expect_item(p.out, "PASS", "fake.axpy.f32", KC_TEXTS("gates 1-4 on 7 cases (4 shapes x up to 2 distributions)"));
    kc_expect_item(p.out, "PASS", "fake.copy.f16", KC_TEXTS("gates 1-4 on 5 cases (3 shapes x up to 2 distributions)"));
    kc_expect_item(p.out, "PASS", "fake.spill.f32", KC_TEXTS("gates 1-4 on 5 cases (3 shapes x up to 2 distributions)"));
    cr_expect(!strstr(p.out, "rerun:"), "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_KERNEL][KC_PASS], 3);
    kc_proc_free(&p);
}

Test(gates_fake, controls_turn_red_naming_the_gate_and_blind_is_missed)
{
    kc_proc p = fake_run((char *[]){ "run", "fake.*:control.*", NULL });
    cr_expect_eq(p.status, 1, "MISSED must fail the run: exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "RED", "fake.axpy.f32:control.fault",
                   KC_TEXTS("caught by gate 1 (launch and fit; planted for gate 1): shape model.hidden.4096 (n=4096), dist uniform: launch grid 16x1x1 block 256x1x1",
                            "CUDA_ERROR_ILLEGAL_ADDRESS (the CUDA context is now unusable)"));
    kc_expect_item(p.out, "RED", "fake.axpy.f32:control.write_input",
                   KC_TEXTS("caught by gate 2 (bounds and writes; planted for gate 2): shape model.hidden.4096 (n=4096), dist uniform: input x modified: 1 of 4096 elements changed, first x[0] was "));
    kc_expect_item(p.out, "RED", "fake.axpy.f32:control.wrong_value",
                   KC_TEXTS("caught by gate 3 (accuracy; planted for gate 3): shape model.hidden.4096 (n=4096), dist uniform: y[2048] = ",
                            "(rtol 1.3e-06, atol 1e-05); 1 of 4096 elements out of tolerance"));
    kc_expect_item(p.out, "RED", "fake.axpy.f32:control.nondeterministic",
                   KC_TEXTS("caught by gate 4 (determinism; planted for gate 4): shape model.hidden.4096 (n=4096), dist uniform: relaunch on other buffers differs: 1 of 4096 elements of y, first y[0] "));
    kc_expect_item(p.out, "RED", "fake.copy.f16:control.oob_write",
                   KC_TEXTS("caught by gate 2 (bounds and writes; planted for gate 2): shape model.heads.1024 (n=1024), dist uniform: out: written past its end (byte 0 after the last of 1024 elements, element index 1024)"));
    kc_expect_item(p.out, "RED", "fake.copy.f16:control.tail_skip",
                   KC_TEXTS("caught by gate 2 (bounds and writes; planted for gate 2): shape model.heads.1024 (n=1024), dist uniform: output out: 1 of 1024 elements never written (poison 0xFF after the launch, 0x7F after a relaunch), first out[1023]"));
    /* A read one past the input's end, multiplied by zero: the guard band's
     * NaN read canary reaches the output (a finite canary would vanish). */
    kc_expect_item(p.out, "RED", "fake.copy.f16:control.masked_tail_read",
                   KC_TEXTS("caught by gate 3 (accuracy; planted for gate 3): shape model.heads.1024 (n=1024), dist uniform: out[1023] = nan, reference ",
                            "1 of 1024 elements out of tolerance"));
    kc_expect_item(p.out, "MISSED", "fake.axpy.f32:control.blind",
                   KC_TEXTS("passed gates 1-4 on all 7 cases: the suite is blind to this bug (a redundant store of the right value, which no gate can see; planted for gate 2)"));
    kc_expect_rerun(p.out, "fake.axpy.f32:control.blind", "1");
    char line[4096];
    cr_assert_eq(line_of(p.out, "RED    fake.axpy.f32:control.fault  ", line, sizeof line), 0, "%s", p.out);
    cr_expect(!strstr(line, "rerun:"), "a RED control is no failure: no rerun command\n%s", line);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_CONTROL][KC_RED], 7);
    cr_expect_eq(t.n[KC_KIND_CONTROL][KC_MISSED], 2);
    kc_expect_item(p.out, "MISSED", "fake.copy.f16:control.broken_build",
                   (const char *const[]){ "function fake_copy_f16 not found in module fake_copy",
                                       "the control's build is broken, so it was not checked", NULL });
    kc_proc_free(&p);
    /* The same controls without the blind one: all RED, and that is a green run. */
    p = fake_run((char *[]){ "run", "fake.*:control.[!b]*", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(!strstr(p.out, "rerun:") && !strstr(p.out, "MISSED"), "%s", p.out);
    kc_proc_free(&p);
}

Test(gates_fake, fail_line_names_case_element_values_error_allowance_and_rerun)
{
    kc_proc p = fake_run((char *[]){ "run", "fake.wrong.f32", "--seed", "7", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    char line[4096];
    cr_assert_eq(line_of(p.out, "FAIL   fake.wrong.f32  ", line, sizeof line), 0, "%s", p.out);
    cr_expect(strstr(line, "  gate 3 (accuracy): shape edge.35 (n=35), dist uniform: out["), "%s", line);
    cr_expect(strstr(line, "3 of 35 elements out of tolerance; 4 of 7 cases failed  ("), "%s", line);
    cr_expect(strstr(line, "(rtol 1.3e-06, atol 1e-05)"), "%s", line);
    size_t idx = 0;
    double out = 0, ref = 0, err = 0, allowed = 0;
    const char *v = strstr(line, "out[");
    cr_assert(v && sscanf(v, "out[%zu] = %lf, reference %lf, error %lf > allowed %lf", &idx, &out, &ref, &err, &allowed) == 5,
              "%s", line);
    cr_expect(idx >= 32 && idx < 35, "the bad element is in the n %% 4 tail: %zu", idx);
    cr_expect(fabs(ref - 2 * out) <= 1e-6 * fabs(ref), "the kernel copied instead of doubling: %g vs %g", out, ref);
    cr_expect(fabs(err - fabs(out - ref)) <= 1e-2 * err, "error %g is |%g - %g|", err, out, ref);
    cr_expect(err > allowed && fabs(allowed - (1e-5 + 1.3e-6 * fabs(ref))) <= 1e-2 * allowed, "allowed %g", allowed);
    kc_expect_rerun(p.out, "fake.wrong.f32", "7");
    int also = 0;
    for (const char *q = p.out; (q = strstr(q, "\n    also: gate 3 (accuracy): shape edge.")); q++) also++;
    cr_expect_eq(also, 3, "the other failing cases follow as also: lines\n%s", p.out);
    kc_proc_free(&p);
}

Test(gates_fake, limit_problems_carry_figure_and_budget)
{
    kc_proc p = fake_run((char *[]){ "run", "fake.*:limits", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "LIMIT", "fake.spill.f32:limits",
                   KC_TEXTS("3 problems: registers 128 per thread > budget 64; local memory 64 bytes per thread > budget 0 (spills or stack arrays); occupancy 2 resident blocks per SM (block 256 threads, 0 bytes dynamic shared memory) < budget 4"));
    kc_expect_rerun(p.out, "fake.spill.f32:limits", "1");
    kc_expect_item(p.out, "PASS", "fake.axpy.f32:limits",
                   KC_TEXTS("16 registers, 0+0 B shared, 0 B local, 8 blocks/SM at shape large.1e6; 4 shapes within the device's launch limits"));
    kc_expect_item(p.out, "PASS", "fake.known.f32:limits",
                   KC_TEXTS("24 registers, 2048+0 B shared, 0 B local, 8 blocks/SM at shape large.2e5; 4 shapes within the device's launch limits"));
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_LIMIT][KC_LIMIT], 1);
    cr_expect_eq(t.n[KC_KIND_LIMIT][KC_PASS], 5);
    cr_expect_eq(t.limit_problems, 3);
    kc_proc_free(&p);
}

/* A device reference's local memory: what the driver reserves for it in the
 * context (local x 2048 threads x 4 SMs under the fake), a problem past the
 * 64 MiB an item may leave allocated; a figure when it has any. */
Test(gates_fake, limits_measure_the_device_references_local_memory)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.axpy.f32:limits", NULL }, (char *[]){ "KC_FAKE_REF_LOCAL=16384", NULL }, 30);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "LIMIT", "fake.axpy.f32:limits",
                   KC_TEXTS("1 problem: device reference fake_axpy_ref: 16384 bytes of local memory a thread make the driver "
                            "reserve 128 MiB (2048 threads x 4 SMs), more than the 64 MiB an item may leave allocated: every "
                            "item of fake.axpy.f32 would replace its worker (a kc_dref taken by reference from a kernel "
                            "parameter that is not const __grid_constant__ copies it to the stack)"));
    kc_proc_free(&p);
    p = kc_run_fake((char *[]){ "run", "fake.axpy.f32:limits", NULL }, (char *[]){ "KC_FAKE_REF_LOCAL=512", NULL }, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "PASS", "fake.axpy.f32:limits",
                   KC_TEXTS("16 registers, 0+0 B shared, 0 B local, 8 blocks/SM at shape large.1e6; device reference "
                            "fake_axpy_ref: 512 B local (4 MiB reserved in the context); 4 shapes within the device's launch limits"));
    kc_proc_free(&p);
}

Test(gates_fake, known_findings_are_known_and_stale_ones_fail)
{
    kc_proc p = fake_run((char *[]){ "run", "fake.known.f32", NULL });
    cr_expect_eq(p.status, 0, "KNOWN alone is no failure: exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "KNOWN", "fake.known.f32", KC_TEXTS("4 of 7 cases fail as registered known findings"));
    int known = 0;
    for (const char *q = p.out; (q = strstr(q, "\n    known: gate 3 (accuracy): shape edge.")); q++) known++;
    cr_expect_eq(known, 4, "%s", p.out);
    cr_expect(strstr(p.out, "[the n % 4 tail is not scaled (fixture)]\n"), "%s", p.out);
    cr_expect(!strstr(p.out, "rerun:"), "%s", p.out);
    kc_proc_free(&p);

    p = fake_run((char *[]){ "run", "fake.stale.f32", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "FAIL", "fake.stale.f32", KC_TEXTS("1 stale known finding (listed below); gates 1-4 pass on 5 cases"));
    cr_expect(strstr(p.out, "\n    stale known finding: gate 3 on shapes edge.* (the n % 4 tail is not scaled (fixture)) no longer fails: remove it from the contract\n"),
              "%s", p.out);
    kc_expect_rerun(p.out, "fake.stale.f32", "1");
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.stale, 1);
    cr_expect_eq(t.n[KC_KIND_KERNEL][KC_FAIL], 1);
    kc_proc_free(&p);
}

Test(gates_fake, known_findings_are_keyed_by_distribution)
{
    kc_proc p = fake_run((char *[]){ "run", "fakeknown.normal.f32", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    /* normal alone registered: the uniform cases of the edge shapes are failures, the normal ones known */
    kc_expect_item(p.out, "FAIL", "fakeknown.normal.f32", KC_TEXTS("gate 3 (accuracy): shape edge."));
    cr_expect(strstr(p.out, "fakeknown.normal.f32  gate 3 (accuracy): shape edge.35 (n=35), dist uniform:"), "%s", p.out);
    int known = 0, also = 0;
    for (const char *q = p.out; (q = strstr(q, "\n    known: gate 3 (accuracy): shape edge.")); q++) {
        known++;
        const char *eol = strchr(q + 1, '\n');
        cr_expect(strstr(q, "dist normal:") && strstr(q, "dist normal:") < eol, "a known line of another distribution: %.*s",
                  (int)(eol - q), q);
    }
    for (const char *q = p.out; (q = strstr(q, "\n    also: gate 3 (accuracy): shape edge.")); q++) also++;
    cr_expect_eq(known, 2, "%s", p.out);
    cr_expect_eq(also, 1, "%s", p.out);
    kc_proc_free(&p);
    /* both registered (the glob *[lm] matches normal and uniform) */
    p = fake_run((char *[]){ "run", "fakeknown.both.f32", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "KNOWN", "fakeknown.both.f32", KC_TEXTS("4 of 7 cases fail as registered known findings"));
    kc_proc_free(&p);
}

/* A registered finding whose case loses the CUDA context (gates/known_fault.h):
 * KNOWN after it failed so again alone in a fresh process, the cases after it
 * run in another; the same under the work queue; an unregistered fault among
 * them still FAILs naming the cases it left unrun. */
Test(gates_fake, known_findings_hold_a_fault_run_alone_in_a_fresh_process, .timeout = 30)
{
    const char *const again = "(it lost the CUDA context; alone in a fresh process it failed so again)";
    /* serially; one worker; two workers, whose verdicts reached with the
     * context lost the parent prints, with the lines under them
     * (queue_holds.c, result_line.h) */
    for (int jobs = 0; jobs < 3; jobs++) {
        char costs[256];
        kc_tmp_path(costs, sizeof costs, "gates-fake", "knownfault");
        kc_proc p = fake_run(jobs == 2 ? (char *[]){ "run", "fakefault.known.f32", "fake.axpy.f32", "-j", "2", "--no-cache",
                                                     "--costs", costs, NULL }
                             : jobs ? (char *[]){ "run", "fakefault.known.f32", "-j", "2", "--no-cache", "--costs", costs, NULL }
                                    : (char *[]){ "run", "fakefault.known.f32", NULL });
        cr_expect_eq(p.status, 0, "a registered fault is no failure: exit %d\n%s%s", p.status, p.out, p.err);
        /* 7 cases: model.4096 x 2, edge.35 x 2, edge.7 x 2 (both fault), large */
        kc_expect_item(p.out, "KNOWN", "fakefault.known.f32", KC_TEXTS("2 of 7 cases fail as registered known findings"));
        int n = 0;
        for (const char *q = p.out; (q = strstr(q, "    known: gate 1 (launch and fit): shape edge.7 (n=7), dist ")); q++) {
            const char *eol = strchr(q, '\n');
            cr_expect(strstr(q, again) && strstr(q, again) < eol, "%.*s", (int)(eol - q), q);
            n++;
        }
        cr_expect_eq(n, 2, "run %d: both edge.7 cases known:\n%s", jobs, p.out);
        cr_expect(!strstr(p.out, "kcontract-cases"), "the --cases processes' lines are read, not shown:\n%s", p.out);
        kc_proc_free(&p);
        unlink(costs);
    }
    /* uniform registered: edge.7's normal case faults unregistered, in the process of the cases after the first */
    kc_proc p = fake_run((char *[]){ "run", "fakefault.uniform.f32", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "FAIL", "fakefault.uniform.f32",
                   KC_TEXTS("gate 1 (launch and fit): shape edge.7 (n=7), dist normal:", "2 of 6 cases failed; 1 more case not run"));
    cr_expect(strstr(p.out, "dist uniform: launch") && strstr(p.out, again), "%s", p.out);
    kc_proc_free(&p);
    /* the internal option is refused without its one kernel item */
    p = fake_run((char *[]){ "run", "fakefault.*", "--cases", "2:1", NULL });
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--cases: internal option needs I:J with I < J, got '2:1'"), "%s", p.err);
    kc_proc_free(&p);
}

/* Block sizes as launch variants (kc_contract.block_sizes): every case runs
 * under each; a failure names its block size and its rerun selects it
 * (--block-size), which runs that variant alone; a launch function that
 * ignores the variant fails gate 1 naming both; a variant the contract does
 * not list is refused before anything runs, naming the list. */
Test(gates_fake, block_sizes_are_launch_variants_of_every_case, .timeout = 30)
{
    kc_proc p = fake_run((char *[]){ "run", "fakeblock.axpy.f32", "--no-cache", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    /* 3 shapes x 2 distributions, each under 3 block sizes */
    kc_expect_item(p.out, "PASS", "fakeblock.axpy.f32", KC_TEXTS("gates 1-4 on 18 cases (3 shapes x up to 2 distributions) under "
                                                      "block sizes 128, 256, 512"));
    kc_proc_free(&p);
    p = fake_run((char *[]){ "run", "fakeblock.short.f32", "--no-cache", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "FAIL", "fakeblock.short.f32",
                   KC_TEXTS("gate 3 (accuracy): shape model.hidden.4096 (n=4096), dist uniform, block 256: y[", "2 of 12 cases failed",
                            " run fakeblock.short.f32 --seed 1 --device 0 --block-size 256"));
    cr_expect(!strstr(p.out, ", block 128: "), "block 128 passes:\n%s", p.out);
    kc_proc_free(&p);
    p = fake_run((char *[]){ "run", "fakeblock.short.f32", "--no-cache", "--block-size", "128", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "PASS", "fakeblock.short.f32", KC_TEXTS("gates 1-4 on 6 cases", "under block size 128  ("));
    kc_proc_free(&p);
    p = fake_run((char *[]){ "run", "fakeblock.short.f32", "--no-cache", "--block-size", "100", NULL });
    cr_expect_eq(p.status, 2, "a block size the contract does not list is bad usage: exit %d\n%s%s", p.status, p.out,
                 p.err);
    cr_expect(strstr(p.err, "--block-size 100: the selected contract does not list that block size: fakeblock.short.f32 "
                            "(lists 128, 256)"), "%s", p.err);
    cr_expect(!strstr(p.out, "TALLY"), "nothing may run:\n%s", p.out);
    kc_proc_free(&p);
    p = fake_run((char *[]){ "run", "fakeblock.ignored.f32", "--no-cache", NULL });
    kc_expect_item(p.out, "FAIL", "fakeblock.ignored.f32",
                   KC_TEXTS("dist uniform, block 64: the launch function made a block of 256x1x1 = 256 threads for the block-size "
                            "variant 64 (kc_launch.block_size)"));
    kc_proc_free(&p);
}

/* A harness control (kc_control.harness = KC_HARNESS_BLOCK_SHORT): no image
 * of its own, the clean build launched one block short; gate 2 sees the last
 * block's outputs unwritten. */
Test(gates_fake, a_harness_control_needs_no_build_of_its_own, .timeout = 30)
{
    kc_proc p = fake_run((char *[]){ "run", "fakehctl.copy.f16:control.block_short", "--no-cache", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "RED", "fakehctl.copy.f16:control.block_short",
                   KC_TEXTS("caught by gate 2 (bounds and writes; planted for gate 2): shape model.heads.1024 (n=1024), dist "
                            "uniform: output out: 256 of 1024 elements never written", "first out[768]"));
    kc_proc_free(&p);
}

Test(gates_fake, fault_continues_the_serial_run_in_a_fresh_process)
{
    char *nonvml_env[] = { "KC_LIBNVML=none", NULL };
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.*", NULL }, nonvml_env, 30);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *fault = strstr(p.out, "RED    fake.axpy.f32:control.fault  ");
    const char *fresh = strstr(p.out, "\nkcontract-fixture: the CUDA context is unusable after that item; continuing in a fresh process\n");
    const char *next = strstr(p.out, "RED    fake.axpy.f32:control.nondeterministic  ");
    cr_expect(fault && fresh && next && fault < fresh && fresh < next,
              "the re-exec comes right after the faulting item:\n%s", p.out);
    cr_expect(fresh && !strstr(strchr(fresh + 1, '\n'), "fresh process"), "one re-exec only:\n%s", p.out);
    expect_all_once(p.out);
    /* without NVML the run says so once (docs/reports.md), not once per process */
    const char *nonvml = strstr(p.err, "no GPU memory figures: ");
    cr_expect(nonvml && !strstr(nonvml + 1, "no GPU memory figures: "), "said once:\n%s", p.err);
    kc_tally t;
    kc_out_tally(p.out, &t);
    expect_all_counts(&t);
    kc_proc_free(&p);
}

Test(gates_fake, jobs_2_replaces_the_worker_after_the_fault_with_serial_counts)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "gates-fake", "queue");
    char json[256];
    kc_tmp_path(json, sizeof json, "gates-fake", "queue.json");
    kc_proc s = fake_run((char *[]){ "run", "fake.*", NULL });
    kc_proc j = fake_run((char *[]){ "run", "fake.*", "--jobs", "2", "--costs", costs, "--json", json, NULL });
    cr_expect_eq(j.status, s.status, "exit %d\n%s%s", j.status, j.out, j.err);
    /* The worker process whose item left the context unusable runs no other
     * item (its record's pid is on no other record): it is replaced when
     * items are still waiting (when the other worker took them all
     * meanwhile, as it may under load, it just ends). Its line is the
     * parent's, printed once the other worker's item beside it ended
     * (queue_holds.c), so the report, not the order of lines, tells. */
    cr_expect(strstr(j.out, "RED    fake.axpy.f32:control.fault  "), "%s", j.out);
    FILE *jf = fopen(json, "r");
    cr_assert(jf, "no report %s", json);
    char line[8192];
    long fault_pid = 0, pid[64];
    double fault_start = 0, start[64];
    int n = 0;
    while (fgets(line, sizeof line, jf)) {
        const char *p = strstr(line, "\"pid\":"), *t = strstr(line, "\"start_s\":");
        if (!p || !t || !strstr(line, "\"type\":\"item\"")) continue;
        if (strstr(line, "\"name\":\"fake.axpy.f32:control.fault\"")) {
            fault_pid = atol(p + 6);
            fault_start = atof(t + 10);
        } else if (n < 64) {
            pid[n] = atol(p + 6);
            start[n++] = atof(t + 10);
        }
    }
    fclose(jf);
    unlink(json);
    cr_assert(fault_pid > 0 && n > 0, "no pid in the control's record, or no other record");
    for (int i = 0; i < n; i++)
        cr_expect(pid[i] != fault_pid || start[i] < fault_start,
                  "process %ld ran an item at %.3f s, after its context was lost at %.3f s:\n%s", fault_pid, start[i],
                  fault_start, j.out);
    cr_expect(strstr(j.out, ") after a CUDA context loss reported by fake.axpy.f32:control.fault\n") || !strstr(j.out, "restarted"),
              "%s", j.out);
    cr_expect(!strstr(j.out, "CRASH"), "%s", j.out);
    expect_all_once(j.out);
    kc_tally ts, tj;
    kc_out_tally(s.out, &ts);
    kc_out_tally(j.out, &tj);
    expect_all_counts(&tj);
    cr_expect(kc_tally_counts_equal(&ts, &tj), "serial and queue tallies differ:\n%s\n---\n%s", s.out, j.out);
    kc_proc_free(&s);
    kc_proc_free(&j);
    unlink(costs);
}

Test(gates_fake, jobs_2_static_shards_give_the_serial_counts)
{
    kc_proc j = fake_run((char *[]){ "run", "fake.*", "--jobs", "2", "--schedule", "static", NULL });
    cr_expect_eq(j.status, 1, "exit %d\n%s%s", j.status, j.out, j.err);
    cr_expect(strstr(j.out, "] kcontract-fixture: the CUDA context is unusable after that item; continuing in a fresh process\n"),
              "the shard that faulted re-executes itself:\n%s", j.out);
    expect_all_once(j.out);
    kc_tally t;
    kc_out_tally(j.out, &t);
    expect_all_counts(&t);
    cr_expect_eq(t.shard_n, 1);
    kc_proc_free(&j);
}

Test(gates_fake, info_lists_the_fake_device)
{
    kc_proc p = fake_run((char *[]){ "info", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "driver: CUDA 13.0 (") && strstr(p.out, "libfake_cuda.so)\n"), "%s", p.out);
    cr_expect(strstr(p.out, "device 0: kcontract fake GPU, compute capability 9.0, 4 SMs, 16.0 GiB, 227 KiB shared memory per block (opt-in), discrete\n"),
              "%s", p.out);
    cr_expect(strstr(p.out, "devices: 1\n"), "%s", p.out);
    cr_expect(strstr(p.out, "parameter sizes: checked against each kernel's (cuFuncGetParamInfo)\n"), "%s", p.out);
    cr_expect(strstr(p.out, "tensor maps: encoded (cuTensorMapEncodeTiled)\n"), "%s", p.out);
    kc_proc_free(&p);
}

/* The value of "key": in a JSON object line (a number), or -1. */
static double json_num(const char *obj, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(obj, pat);
    return p ? atof(p + strlen(pat)) : -1;
}

/* Each GPU item's time splits into inputs, GPU work, the float64 reference and
 * checks, in the serial runner and through the work queue's result lines; the
 * parts are measured, non-negative, and add up to no more than the item. */
Test(gates_fake, time_split_reaches_the_json_report_serial_and_queue, .timeout = 30)
{
    for (int queue = 0; queue < 2; queue++) {
        char json[128], costs[128];
        snprintf(json, sizeof json, "%s/kc-split-%ld-%d.json", kc_test_tmpdir(), (long)getpid(), queue);
        snprintf(costs, sizeof costs, "%s/kc-split-%ld.tsv", kc_test_tmpdir(), (long)getpid());
        char *serial[] = { "run", "fake.axpy.f32", "--json", json, NULL };
        char *jobs[] = { "run", "fake.axpy.f32", "--json", json, "--jobs", "2", "--costs", costs, NULL };
        kc_proc p = fake_run(queue ? jobs : serial);
        cr_expect_eq(p.status, 0, "%s%s", p.out, p.err);
        kc_proc_free(&p);
        FILE *f = fopen(json, "r");
        cr_assert(f, "no report %s", json);
        char line[8192];
        int seen = 0;
        while (fgets(line, sizeof line, f)) {
            if (!strstr(line, "\"name\":\"fake.axpy.f32\"")) continue;
            seen++;
            double in = json_num(line, "inputs_s"), gpu = json_num(line, "gpu_s"), ref = json_num(line, "reference_s"),
                   chk = json_num(line, "checks_s"), all = json_num(line, "seconds");
            cr_expect(in > 0 && gpu > 0 && ref > 0 && chk > 0, "queue %d: split %g %g %g %g in %s", queue, in, gpu, ref, chk, line);
            cr_expect_leq(in + gpu + ref + chk, all + 0.01, "queue %d: parts exceed the item: %s", queue, line);
        }
        fclose(f);
        cr_expect_eq(seen, 1, "queue %d", queue);
        unlink(json);
        unlink(costs);
    }
}

/* An int32 output of -1 is bitwise the 0xFF poison. Gate 2 confirms with a
 * relaunch poisoned 0x7F before it calls an element unwritten: the clean
 * kernel passes, and the one that skips its last element is still caught. */
Test(gates_fake, outputs_equal_to_the_poison_are_not_unwritten)
{
    kc_proc p = fake_run((char *[]){ "run", "fakesent.*", NULL });
    kc_expect_item(p.out, "PASS", "fakesent.i32", NULL);
    kc_expect_item(p.out, "RED", "fakesent.i32:control.tail_skip",
                   (const char *const[]){ "caught by gate 2 (bounds and writes; planted for gate 2)",
                                       "1 of", "elements never written (poison 0xFF after the launch, 0x7F after a relaunch)",
                                       NULL });
    cr_expect_eq(p.status, 0, "%s", p.out);
    kc_proc_free(&p);
}

/* The gate 2-4 scans and the reference's NaN fill run in chunks on --threads
 * threads; over a buffer of four chunks the FAIL line (element, values, count)
 * is the same on one thread and on three. */
Test(gates_fake, chunked_scans_report_the_same_on_any_thread_count, .timeout = 60)
{
    char line1[4096], line3[4096];
    kc_proc p = fake_run((char *[]){ "run", "fakebig.wrong.f32", "--threads", "1", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *f = strstr(p.out, "FAIL   fakebig.wrong.f32  ");
    cr_assert(f, "%s", p.out);
    snprintf(line1, sizeof line1, "%.*s", (int)(strstr(f, "  (") - f), f);   /* without the time */
    cr_expect(strstr(line1, "out[3145728] = ") && strstr(line1, "; 3 of 3145731 elements out of tolerance"),
              "the tail's three elements, in the last chunk:\n%s", line1);
    kc_proc_free(&p);
    p = fake_run((char *[]){ "run", "fakebig.wrong.f32", "--threads", "3", NULL });
    f = strstr(p.out, "FAIL   fakebig.wrong.f32  ");
    cr_assert(f, "%s", p.out);
    snprintf(line3, sizeof line3, "%.*s", (int)(strstr(f, "  (") - f), f);
    cr_expect_str_eq(line3, line1);
    kc_proc_free(&p);
}

/* Gate 3's reference follows --reference: every fake.* item ends in the same
 * state whether its reference runs on the (fake) device, on the host, or
 * both, with the same counts. */
Test(gates_fake, every_reference_mode_gives_the_same_states, .timeout = 60)
{
    static const char *const modes[] = { "host", "both" };
    for (int m = 0; m < 2; m++) {
        kc_proc p = fake_run((char *[]){ "run", "fake.*", "--reference", (char *)modes[m], NULL });
        expect_all_once(p.out);
        kc_tally t;
        kc_out_tally(p.out, &t);
        expect_all_counts(&t);
        kc_proc_free(&p);
    }
}

/* --reference both runs the device and the host reference on every case and
 * fails the case where they differ (bitwise, the default bound): the line
 * names the element, both values and the bound, and the rerun keeps the mode.
 * Alone, the device reference is the one used (its one-ulp error hides under
 * the f16 tolerance); a faulting device reference fails the item as an
 * internal error, and --reference host does not run it. */
Test(gates_fake, reference_both_fails_a_disagreeing_device_reference, .timeout = 30)
{
    kc_proc p = fake_run((char *[]){ "run", "fakeref.*", "--reference", "both", NULL });
    kc_expect_item(p.out, "FAIL", "fakeref.off.f16",
                   KC_TEXTS("internal error: shape model.heads.1024 (n=1024), dist uniform: the device reference fake_copy_ref_off disagrees with the host reference: out[512] device ",
                            "difference 1.11e-16 > bound 0 (bitwise); 1 of 1024 elements differ",
                            "--reference both"));
    kc_expect_item(p.out, "FAIL", "fakeref.fault.f32",
                   KC_TEXTS("the device reference fake_ref_fault (module fake_ref) failed: CUDA_ERROR_ILLEGAL_ADDRESS"));
    cr_expect_eq(p.status, 1);
    kc_proc_free(&p);
    p = fake_run((char *[]){ "run", "fakeref.*", NULL });
    kc_expect_item(p.out, "PASS", "fakeref.off.f16", NULL);
    kc_expect_item(p.out, "FAIL", "fakeref.fault.f32", KC_TEXTS("the device reference fake_ref_fault"));
    kc_proc_free(&p);
    p = fake_run((char *[]){ "run", "fakeref.*", "--reference", "host", NULL });
    kc_expect_item(p.out, "PASS", "fakeref.off.f16", NULL);
    kc_expect_item(p.out, "PASS", "fakeref.fault.f32", NULL);
    cr_expect_eq(p.status, 0, "%s", p.out);
    kc_proc_free(&p);
}

/* How the host waits for the GPU comes from KC_CUDA_SCHED, else a worker's
 * internal --gpu-wait; a value that is not one of the four is refused before
 * anything runs, naming it, and so is --gpu-wait given to a run. */
Test(gates_fake, cuda_sched_is_checked)
{
    char *env_bad[] = { "KC_LIBCUDA=build/libfake_cuda.so", "KC_CUDA_SCHED=fast", NULL };
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fake.axpy.f32", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env_bad, 30, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "kcontract-fixture: KC_CUDA_SCHED='fast': expected block, spin, yield or auto"), "%s", p.err);
    kc_proc_free(&p);
    char parent[32];
    snprintf(parent, sizeof parent, "%ld", (long)getpid());
    char *argv_wait[] = { (char *)kc_test_fixture_bin(), "run", "--worker", "--parent", parent, "--gpu-wait", "fast", NULL };
    char *env_fake[] = { "KC_LIBCUDA=build/libfake_cuda.so", NULL };
    cr_assert_eq(kc_spawn(argv_wait, env_fake, 30, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "kcontract-fixture: --gpu-wait='fast': expected block, spin, yield or auto"), "%s", p.err);
    kc_proc_free(&p);
    char *argv_run[] = { (char *)kc_test_fixture_bin(), "run", "fake.axpy.f32", "--gpu-wait", "spin", NULL };
    cr_assert_eq(kc_spawn(argv_run, env_fake, 30, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--gpu-wait: internal option a run gives its worker (needs --worker); to choose how every "
                            "process of a run waits for the GPU, set KC_CUDA_SCHED"), "%s", p.err);
    kc_proc_free(&p);
    char *env_spin[] = { "KC_LIBCUDA=build/libfake_cuda.so", "KC_CUDA_SCHED=spin", NULL };
    cr_assert_eq(kc_spawn(argv, env_spin, 30, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "PASS", "fake.axpy.f32", NULL);
    kc_proc_free(&p);
}

/* A run of one worker with one item in flight polls the GPU, yielding (the
 * parent gives its worker --gpu-wait yield): serial, --jobs 1, a --shard
 * slice, a --jobs run with one item to run; several workers, items in flight
 * or static shards (their own processes, no queue) block; KC_CUDA_SCHED, when
 * set, decides for every process. Read from the
 * flags each process gave its context (the fake driver's KC_FAKE_SCHED_LOG):
 * every line must carry the expected CU_CTX_SCHED_* value. */
enum { SCHED_SPIN = 1, SCHED_YIELD = 2, SCHED_BLOCKING_SYNC = 4 };   /* cuda.h's CU_CTX_SCHED_* */

Test(gates_fake, a_run_of_one_worker_polls_and_several_block, .timeout = 90)
{
    static const struct { const char *what; char *args[8]; const char *env; unsigned flags; } runs[] = {
        { "serial", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", NULL }, NULL, SCHED_YIELD },
        { "--jobs 1", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", "--jobs", "1", NULL }, NULL, SCHED_YIELD },
        { "--shard 0/2", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", "--shard", "0/2", NULL }, NULL,
          SCHED_YIELD },
        { "--jobs 2", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", "--jobs", "2", NULL }, NULL, SCHED_BLOCKING_SYNC },
        { "--jobs 4, one item", { "run", "fake.axpy.f32", "--jobs", "4", NULL }, NULL, SCHED_YIELD },
        { "--inflight 2", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", "--inflight", "2", NULL }, NULL,
          SCHED_BLOCKING_SYNC },
        { "--jobs 1 --schedule static", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", "--jobs", "1", "--schedule",
          "static", NULL }, NULL, SCHED_BLOCKING_SYNC },
        { "--jobs 1 --inflight 2", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", "--jobs", "1", "--inflight", "2", NULL }, NULL,
          SCHED_BLOCKING_SYNC },
        { "serial, KC_CUDA_SCHED=block", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", NULL }, "KC_CUDA_SCHED=block",
          SCHED_BLOCKING_SYNC },
        { "--jobs 2, KC_CUDA_SCHED=spin", { "run", "fake.axpy.f32", "fake.axpy.f32:control.fault", "--jobs", "2", NULL }, "KC_CUDA_SCHED=spin",
          SCHED_SPIN },
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        char log[512], env_log[600];
        kc_tmp_path(log, sizeof log, "sched", "log");
        snprintf(env_log, sizeof env_log, "KC_FAKE_SCHED_LOG=%s", log);
        char *env[] = { env_log, (char *)runs[r].env, NULL };
        kc_proc p = kc_run_fake((char **)runs[r].args, env, 60);
        cr_expect_eq(p.status, 0, "%s: exit %d\n%s%s", runs[r].what, p.status, p.out, p.err);
        kc_expect_item(p.out, "PASS", "fake.axpy.f32", NULL);
        const char *text = kc_out_file(log);
        char want[64];
        snprintf(want, sizeof want, "flags=%u\n", runs[r].flags);
        int lines = kc_out_count_lines(text, "sched pid="), right = kc_out_count(text, want);
        /* a serial run's worker and its standby, which takes over after the
         * control's fault: both open a context */
        if (!strcmp(runs[r].what, "serial")) cr_expect_geq(lines, 2, "serial: the worker and its standby\n%s", text);
        cr_expect(lines > 0 && right == lines, "%s: %d of %d contexts opened with flags %u (CU_CTX_SCHED_*), "
                  "expected every one:\n%s", runs[r].what, right, lines, runs[r].flags, text);
        unlink(log);
        kc_proc_free(&p);
    }
}

/* The harness's own GPU suites, through the fake driver (which emulates the
 * harness module with the same rules): the device streams equal the host's,
 * the device checks count as the host scans do. On a GPU the same suites
 * check the CUDA module. */
Test(gates_fake, harness_suites_pass, .timeout = 60)
{
    kc_proc p = fake_run((char *[]){ "run", "gpu.harness.*", NULL });
    static const char *const dtypes[] = { "f64", "f32", "f16", "bf16", "e4m3", "i64", "i32", "u32", "i8", "u8" };
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++) {
        char name[64];
        snprintf(name, sizeof name, "gpu.harness.streams.%s", dtypes[i]);
        kc_expect_item(p.out, "PASS", name, NULL);
    }
    kc_expect_item(p.out, "PASS", "gpu.harness.checks", NULL);
    cr_expect_eq(p.status, 0, "%s%s", p.out, p.err);
    kc_proc_free(&p);
}

/* A contract's controls run on its own case seeds, so in one process they
 * reuse the inputs its kernel item made: the JSON report counts them per
 * item, and the figures under the SUMMARY say so. */
Test(gates_fake, controls_reuse_the_kernels_inputs, .timeout = 30)
{
    char json[128];
    snprintf(json, sizeof json, "%s/kc-reuse-%ld.json", kc_test_tmpdir(), (long)getpid());
    kc_proc p = fake_run((char *[]){ "run", "fake.copy.f16*", "--json", json, NULL });
    cr_expect(strstr(p.out, "input buffers: 5 made by the GPU, 0 by contracts' generators on the host, 3 reused from an earlier item\n"),
              "%s", p.out);
    kc_proc_free(&p);
    FILE *f = fopen(json, "r");
    cr_assert(f, "no report %s", json);
    char line[8192];
    int kernel = 0, control = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "\"name\":\"fake.copy.f16\"")) {
            kernel = 1;
            cr_expect(json_num(line, "inputs_made_gpu") == 5 && json_num(line, "inputs_reused") == 0, "%s", line);
        }
        if (strstr(line, "\"name\":\"fake.copy.f16:control.tail_skip\"")) {
            control = 1;
            cr_expect(json_num(line, "inputs_made_gpu") == 0 && json_num(line, "inputs_reused") == 1, "%s", line);
        }
    }
    fclose(f);
    unlink(json);
    cr_expect(kernel && control);
}

/* A ranged input is made on the device (no host generator); a table is made
 * on the host once per shape and reused by the shape's other cases; a table
 * generator that draws random numbers is refused as an internal error; a
 * generator for the normal distribution alone (gen_on) runs on its cases,
 * the uniform ones are the built-in stream, made on the device. */
Test(gates_fake, ranged_inputs_on_the_device_and_tables_once_per_shape, .timeout = 30)
{
    char json[128];
    snprintf(json, sizeof json, "%s/kc-gen-%ld.json", kc_test_tmpdir(), (long)getpid());
    kc_proc p = fake_run((char *[]){ "run", "fakegen.*", "--json", json, NULL });
    kc_expect_item(p.out, "PASS", "fakegen.range.f32", KC_TEXTS("gates 1-4 on 5 cases"));
    kc_expect_item(p.out, "PASS", "fakegen.table.f32", KC_TEXTS("gates 1-4 on 5 cases"));
    kc_expect_item(p.out, "PASS", "fakegen.rows.f32", KC_TEXTS("gates 1-4 on 5 cases"));
    kc_expect_item(p.out, "FAIL", "fakegen.badtable.f32",
                   KC_TEXTS("internal error: shape model.4096 (n=4096), dist uniform: input in: the contract's table generator (KC_BUFFER_TABLE) drew from kc_rand_*"));
    kc_proc_free(&p);
    FILE *f = fopen(json, "r");
    cr_assert(f, "no report %s", json);
    char line[8192];
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "\"name\":\"fakegen.range.f32\"")) {
            seen++;
            cr_expect(json_num(line, "inputs_made_gpu") == 5 && json_num(line, "inputs_made_host") == 0, "%s", line);
        }
        if (strstr(line, "\"name\":\"fakegen.table.f32\"")) {   /* 3 shapes, 5 cases */
            seen++;
            cr_expect(json_num(line, "inputs_made_host") == 3 && json_num(line, "inputs_reused") == 2, "%s", line);
        }
        if (strstr(line, "\"name\":\"fakegen.rows.f32\"")) {    /* 2 normal cases, 3 uniform */
            seen++;
            cr_expect(json_num(line, "inputs_made_host") == 2 && json_num(line, "inputs_made_gpu") == 3, "%s", line);
        }
    }
    fclose(f);
    unlink(json);
    cr_expect_eq(seen, 3);
}

/* Gate 3's error statistics: a truncating f16 store and a value rounded twice
 * stay within f16's tolerance (under an ulp) and are RED by the statistics
 * alone, naming the test and its figures; the clean kernel passes. */
Test(gates_fake, error_statistics_catch_what_the_tolerance_cannot, .timeout = 30)
{
    kc_proc p = fake_run((char *[]){ "run", "fakestat.*", NULL });
    kc_expect_item(p.out, "PASS", "fakestat.scale.f16", KC_TEXTS("gates 1-4 on 5 cases"));
    kc_expect_item(p.out, "RED", "fakestat.scale.f16:control.truncating_store",
                   KC_TEXTS("caught by gate 3 (accuracy; planted for gate 3): shape model.hidden.4096 (n=4096), dist uniform: out: every element within tolerance, but errors lean toward zero: mean e*sign(ref) -0.",
                            "of f16 over "));
    kc_expect_item(p.out, "RED", "fakestat.scale.f16:control.rounded_twice",
                   KC_TEXTS("out: every element within tolerance, but ", "% of errors exceed half an ulp", "rounded twice?"));
    cr_expect_eq(p.status, 0, "%s", p.out);
    kc_proc_free(&p);
}

/* Issue 15: a 64-bit integer scalar (KC_SCALAR_INT) reaches the kernel and
 * the reference exactly, beyond 2^53 (tests/fixtures/fake_data_contracts.c). */
Test(gates_fake, integer_scalars_pass_exactly_beyond_2_pow_53, .timeout = 30)
{
    kc_proc p = fake_run((char *[]){ "run", "fakeint.*", NULL });
    kc_expect_item(p.out, "PASS", "fakeint.lowbits.i32", KC_TEXTS("gates 1-4 on "));
    cr_expect_eq(p.status, 0, "%s", p.out);
    kc_proc_free(&p);
}
