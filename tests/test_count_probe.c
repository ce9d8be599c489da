/* test_count_probe.c — a contract whose element count ends its process on
 * one of its shapes (a negative dim, which kc_count_d0 refuses by aborting)
 * is refused at start naming the contract, the shape and the buffer (exit 2),
 * serially, with --jobs, in list and in --help: before, the first memory
 * plan called that count in the run's own process, which ended with SIGABRT
 * (status 134) and no SUMMARY (src/core/count_probe.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "support/run_output.h"
#include "support/spawn.h"

static char *const negative_env[] = { "KC_CACHE_DIR=off", "KC_FIXTURE_NEGATIVE_DIM=1", NULL };
static const char *const named =
    "contract fake.stale.f32: shape edge.36: the element count of buffer out ended the process (SIGABRT";

static void expect_refused(char **args, const char *what)
{
    kc_proc p = kc_run_fake(args, negative_env, 60);
    cr_expect_eq(p.status, 2, "%s: exit %d, expected 2 (a mistake in a contract)\n%s%s", what, p.status, p.out, p.err);
    cr_expect(strstr(p.err, named), "%s: no line names the contract, shape and buffer\n%s", what, p.err);
    cr_expect(strstr(p.err, "shape edge.36: d[0] = -36 is negative"), "%s: the count's own reason is lost\n%s", what,
              p.err);
    cr_expect(!strstr(p.out, "SUMMARY"), "%s: a run started on a contract it refused\n%s", what, p.out);
    kc_proc_free(&p);
}

Test(count_probe, a_count_that_aborts_refuses_its_contract_by_name, .timeout = 120)
{
    expect_refused((char *[]){ "run", "fakethread.vec4.f32", NULL }, "serial");
    expect_refused((char *[]){ "run", "--jobs", "2", "fakethread.vec4.f32", "fake.axpy.f32", NULL }, "--jobs 2");
    expect_refused((char *[]){ "list", NULL }, "list");
}

/* --help still prints the usage (exit 0) and says why it has no memory plan. */
Test(count_probe, help_names_the_contract_instead_of_ending, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "--help", NULL }, negative_env, 30);
    cr_expect_eq(p.status, 0, "exit %d, expected 0\n%s", p.status, p.err);
    cr_expect(strstr(p.out, "PATTERN"), "no usage printed\n%s", p.out);
    cr_expect(!strstr(p.out, "memory plan per process"), "a plan was computed over a count that aborts\n%s", p.out);
    cr_expect(strstr(p.err, named), "no line names the contract\n%s", p.err);
    kc_proc_free(&p);
}

/* Without the planted dim the same run passes: the probe refuses no good contract. */
Test(count_probe, good_contracts_pass_the_probe, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakethread.vec4.f32", NULL }, (char *[]){ "KC_CACHE_DIR=off", NULL }, 60);
    cr_expect_eq(p.status, 0, "exit %d, expected 0\n%s%s", p.status, p.out, p.err);
    cr_expect(!strstr(p.err, "ended the process"), "the probe refused a good contract\n%s", p.err);
    kc_proc_free(&p);
}

/* The arithmetic's terms function (kc_arith.terms), which the build
 * identity calls on every shape at start, is tried the same way. */
Test(count_probe, an_arithmetic_that_aborts_refuses_its_contract_by_name, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeacc.dot.bf16", NULL },
                            (char *[]){ "KC_CACHE_DIR=off", "KC_FIXTURE_TERMS_ABORT=1", NULL }, 60);
    cr_expect_eq(p.status, 2, "exit %d, expected 2 (a mistake in a contract)\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "contract fakeacc.dot.bf16: shape "), "no line names the contract\n%s", p.err);
    cr_expect(strstr(p.err, ": the arithmetic's terms ended the process (SIGABRT"), "no line names the function\n%s",
              p.err);
    kc_proc_free(&p);
}
