/* test_count_probe.c — a contract whose element count ends its process on
 * one of its shapes (a negative dim, which kc_count_d0 refuses by aborting)
 * is refused at start naming the contract, the shape and the buffer (exit 2),
 * serially, with --jobs, in list and in --help: before, the first memory
 * plan called that count in the run's own process, which ended with SIGABRT
 * (status 134) and no SUMMARY (src/core/count_probe.h). A count, terms,
 * depth or scalar value that reads a dim the contract does not name (d[i]
 * past .dims: 0 on every shape) is refused the same way, naming the dim and
 * the dims the contract has; before, it read 0 and the contract ran on an
 * empty buffer as if fine. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count_probe.h"
#include "kcontract.h"
#include "support/live.h"
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

/* --version and version print the build identity, which calls every
 * arithmetic's terms: one that aborts is named as for a run (exit 2).
 * Before, both ended with SIGABRT (status 134), naming nothing. */
Test(count_probe, version_names_an_arithmetic_that_aborts, .timeout = 60)
{
    const char *const how[] = { "--version", "version" };
    for (int i = 0; i < 2; i++) {
        kc_proc p = kc_run_fake((char *[]){ (char *)how[i], NULL },
                                (char *[]){ "KC_CACHE_DIR=off", "KC_FIXTURE_TERMS_ABORT=1", NULL }, 60);
        cr_expect_eq(p.status, 2, "%s: exit %d, expected 2 (a mistake in a contract)\n%s%s", how[i], p.status, p.out,
                     p.err);
        cr_expect(strstr(p.err, "contract fakeacc.dot.bf16: shape ") &&
                  strstr(p.err, ": the arithmetic's terms ended the process (SIGABRT"),
                  "%s: no line names the contract and the function\n%s", how[i], p.err);
        kc_proc_free(&p);
    }
    kc_proc p = kc_run_fake((char *[]){ "--version", NULL }, (char *[]){ "KC_CACHE_DIR=off", NULL }, 60);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, ", build "), "%s", p.out);
    kc_proc_free(&p);
}

/* A count that never returns (KC_FIXTURE_COUNT_HANG=1: fakeacc's count of
 * x sleeps for ever) is refused by name once the probe's time limit (10 s)
 * is past, for a run of another contract's item too. Before, every
 * command that probes hung there for ever, having printed nothing. */
Test(count_probe, a_count_that_never_returns_refuses_its_contract_by_name, .timeout = 90)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fixture.pass.00", NULL },
                            (char *[]){ "KC_CACHE_DIR=off", "KC_FIXTURE_COUNT_HANG=1", NULL }, 40);
    cr_expect(!p.signaled, "the run hung in the probe (killed after 40 s)\n%s%s", p.out, p.err);
    cr_expect_eq(p.status, 2, "exit %d, expected 2 (a mistake in a contract)\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "contract fakeacc.") && strstr(p.err, ": the element count of buffer x did not return "
                                                                  "within 10 s"),
              "no line names the contract, shape and buffer\n%s", p.err);
    cr_expect(!strstr(p.out, "SUMMARY"), "a run started on a contract it refused\n%s", p.out);
    kc_proc_free(&p);
}

/* The probe's child, "pid" in /proc/<pid>/task/<pid>/children; 0 none yet. */
static pid_t probe_child(pid_t pid)
{
    char path[96];
    long c = 0;
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid, (long)pid);
    FILE *f = fopen(path, "r");
    if (f && fscanf(f, "%ld", &c) != 1) c = 0;
    if (f) fclose(f);
    return (pid_t)c;
}

static int never(const kc_live *l) { (void)l; return 0; }

/* A SIGTERM to kcontract while a count it probes loops (a CI's time limit,
 * a supervisor that signals the process it started) ends the probe's child
 * with it. Before, the child stayed, adopted by init, looping for ever. */
Test(count_probe, a_signal_to_the_run_ends_the_probes_child, .timeout = 60)
{
    kc_live l;
    char fake[1024];
    snprintf(fake, sizeof fake, "KC_LIBCUDA=%s", getenv("KC_FAKE_CUDA") ? getenv("KC_FAKE_CUDA") : "build/libfake_cuda.so");
    kc_live_start_env(&l, kc_test_fixture_bin(), (char *[]){ "run", "fixture.pass.00", NULL },
                      (char *[]){ fake, "KC_CACHE_DIR=off", "KC_FIXTURE_COUNT_HANG=1", NULL });
    pid_t child = 0;
    for (int i = 0; i < 50 && !child; i++) {
        usleep(100 * 1000);
        child = probe_child(l.pid);
    }
    cr_assert(child > 0, "no probe child under pid %ld", (long)l.pid);
    usleep(300 * 1000);                 /* in the count's loop */
    cr_assert_eq(kill(l.pid, SIGTERM), 0);
    cr_expect_eq(kc_wait_status(l.pid), 128 + SIGTERM);
    int left = 1;
    for (int i = 0; i < 20 && left; i++) {     /* at once; 2 s at most, well within the probe's own 10 s */
        left = kc_alive(child);
        if (left) usleep(100 * 1000);
    }
    if (left) kill(child, SIGKILL);     /* leave nothing behind either way */
    cr_expect(!left, "the probe's child (pid %ld) outlived the run it probed for", (long)child);
    kc_live_read_until(&l, never, 1);
    close(l.fd);
}

/* ---- a dim the contract does not name ---- */

/* KC_FIXTURE_UNNAMED_DIM=1: fakeacc's count of w is kc_count_d0d1d2 in a
 * contract that names two dims (rows, k): d[2] is 0 on every shape, so w
 * had no elements and the contract ran as if fine. Refused at start naming
 * the contract, the shape, the buffer, the dim and the dims it has. */
Test(count_probe, a_count_of_a_dim_the_contract_does_not_name_is_refused, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeacc.dot.f32", NULL },
                            (char *[]){ "KC_CACHE_DIR=off", "KC_FIXTURE_UNNAMED_DIM=1", NULL }, 60);
    cr_expect_eq(p.status, 2, "exit %d, expected 2 (a mistake in a contract)\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "contract fakeacc.") &&
              strstr(p.err, ": shape model.64x768: the element count of buffer w reads d[2], a dim the contract does "
                            "not name (its dims: d[0] rows, d[1] k): d[2] is 0 on this shape"),
              "no line names the contract, shape, buffer, dim and the dims it has\n%s", p.err);
    cr_expect(!strstr(p.out, "SUMMARY"), "a run started on a contract it refused\n%s", p.out);
    kc_proc_free(&p);
}

static void ref_none(const kc_ref *r) { (void)r; }
static size_t count_rows_cols(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1]); }
static int64_t third_dim(const kc_shape *s) { return s->d[2]; }
static double second_dim(const kc_shape *s) { return (double)s->d[1]; }

/* Two dims named; the edge shape's second is 0, legitimately (an empty
 * batch): reading it is no mistake. */
static const kc_shape two_dims[] = { { "model.4x8", KC_SHAPE_MODEL, { 4, 8 } },
                                     { "edge.3x0", KC_SHAPE_EDGE, { 3, 0 } }, { 0 } };

/* A contract over two_dims named "probe.<what>", its output counted by count. */
static kc_contract two_dim_contract(const char *name, size_t (*count)(const kc_shape *))
{
    return (kc_contract){ .name = name, .library = "kc_fakelib", .entry = "e", .reference = ref_none,
                          .dims = { "rows", "cols" }, .shapes = two_dims,
                          .args = { KC_BUFFER("y", KC_F32, KC_OUT, count) } };
}

/* The probe's answer with c registered: its return, and why in *why. */
static int probe_with(const kc_contract *c, char *why, size_t cap)
{
    kc_register_contract(c, KC_ABI_VERSION, sizeof *c);
    why[0] = 0;
    return kc_count_probe(why, cap);
}

/* A named dim that is 0 on a shape is read as 0: no refusal. */
Test(count_probe, a_named_dim_of_zero_is_no_mistake)
{
    static kc_contract c;
    c = two_dim_contract("probe.zero", count_rows_cols);
    c.args[1] = (kc_arg)KC_SCALAR_DIM("cols", KC_I64, 1);
    char why[2048];
    cr_expect_eq(probe_with(&c, why, sizeof why), 0, "%s", why);
}

/* KC_COUNT_DIMS of d[0] and d[2] over two named dims. */
KC_COUNT_DIMS(count_rows_d2, 0, 2)

Test(count_probe, a_count_past_the_named_dims_is_refused_in_process)
{
    static kc_contract c;
    c = two_dim_contract("probe.count", count_rows_d2);
    char why[2048];
    cr_expect_eq(probe_with(&c, why, sizeof why), -1, "a count of d[2] over dims rows, cols passed");
    cr_expect(strstr(why, "contract probe.count: shape model.4x8: the element count of buffer y reads d[2], a dim the "
                          "contract does not name (its dims: d[0] rows, d[1] cols): d[2] is 0 on this shape"),
              "%s", why);
}

/* The arithmetic's terms read dims as a count does. */
Test(count_probe, terms_past_the_named_dims_are_refused)
{
    static kc_contract terms;
    char why[2048];
    terms = two_dim_contract("probe.terms", count_rows_cols);
    terms.arith = (kc_arith){ .acc = KC_F32, .terms = third_dim };
    cr_expect_eq(probe_with(&terms, why, sizeof why), -1, "terms of d[2] passed");
    cr_expect(strstr(why, "contract probe.terms: shape model.4x8: the arithmetic's terms reads d[2], a dim the "
                          "contract does not name (its dims: d[0] rows, d[1] cols)"), "%s", why);
}

/* So does a scalar's value (a float one here: KC_SCALAR_DIM's integers
 * the registry checks by the index it names). */
Test(count_probe, a_value_past_the_named_dims_is_refused)
{
    static kc_contract value;
    static const kc_shape one_dim[] = { { "edge.5", KC_SHAPE_EDGE, { 5 } }, { 0 } };
    char why[2048];
    value = two_dim_contract("probe.value", kc_count_d0);
    value.dims[1] = NULL;
    value.shapes = one_dim;
    value.args[1] = (kc_arg)KC_SCALAR("width", KC_F32, second_dim);
    cr_expect_eq(probe_with(&value, why, sizeof why), -1, "a scalar of d[1] passed");
    cr_expect(strstr(why, "contract probe.value: shape edge.5: the value of scalar width reads d[1], a dim the "
                          "contract does not name (its dims: d[0] rows)"), "%s", why);
}

/* A struct's scalar field is named with its struct. */
Test(count_probe, a_struct_field_past_the_named_dims_is_refused)
{
    static const kc_param_struct layout = { .size = 8, .align = 8,
                                            .fields = { { "depth", 0, NULL, KC_I64, NULL, third_dim } } };
    static kc_contract c;
    char why[2048];
    c = two_dim_contract("probe.field", count_rows_cols);
    c.args[1] = (kc_arg)KC_STRUCT("params", &layout);
    cr_expect_eq(probe_with(&c, why, sizeof why), -1, "a field of d[2] passed");
    cr_expect(strstr(why, "contract probe.field: shape model.4x8: the value of field depth of struct params reads d[2]"),
              "%s", why);
}

/* A contract that names no dims says nothing of its shapes' dims: not checked. */
Test(count_probe, a_contract_that_names_no_dims_is_not_held_to_them)
{
    static kc_contract c;
    char why[2048];
    c = two_dim_contract("probe.nodims", count_rows_d2);
    c.dims[0] = c.dims[1] = NULL;
    cr_expect_eq(probe_with(&c, why, sizeof why), 0, "%s", why);
}


/* A count may copy its shape: a helper that takes a kc_shape by value (not
 * inlined: the whole struct is copied, its unnamed dims too), or a copy
 * with a dim rounded up, counted by a library helper. The copy reads every
 * dim, named or not, but its result depends on the named ones only: no
 * mistake (a first design, which made the unnamed dims unreadable, refused
 * it as "reads d[2]"). */
__attribute__((noipa)) static size_t rows_cols_of(kc_shape s) { return (size_t)(s.d[0] * s.d[1]); }
static size_t count_by_value(const kc_shape *s) { return rows_cols_of(*s); }
__attribute__((noipa)) static size_t count_padded(const kc_shape *s)
{
    kc_shape t = *s;
    t.d[1] = (t.d[1] + 15) / 16 * 16;
    return kc_count_d0d1(&t);
}

Test(count_probe, a_count_that_copies_its_shape_is_no_mistake)
{
    static kc_contract c, p;
    char why[2048];
    c = two_dim_contract("probe.byvalue", count_by_value);
    cr_expect_eq(probe_with(&c, why, sizeof why), 0, "a count of a shape passed by value refused: %s", why);
    p = two_dim_contract("probe.padded", count_padded);
    cr_expect_eq(probe_with(&p, why, sizeof why), 0, "a count of a padded copy refused: %s", why);
}

/* no_racecheck is a field of the shape: a function may read it (an edge
 * shape's count, here). A first design, which made the memory past the
 * named dims unreadable, ended the probe there: "ended the process
 * (SIGSEGV ...)". */
__attribute__((noipa)) static size_t count_reads_no_racecheck(const kc_shape *s)
{
    return s->no_racecheck && s->no_racecheck[0] == '!' ? 0 : (size_t)(s->d[0] * s->d[1]);
}

Test(count_probe, a_count_that_reads_no_racecheck_is_no_mistake)
{
    static kc_contract c;
    char why[2048];
    c = two_dim_contract("probe.norace", count_reads_no_racecheck);
    cr_expect_eq(probe_with(&c, why, sizeof why), 0, "a count that reads no_racecheck refused: %s", why);
}

/* A copy that then reads an unnamed dim of it is still refused, naming it. */
__attribute__((noipa)) static size_t count_copy_d2(const kc_shape *s)
{
    kc_shape t = *s;
    return (size_t)(t.d[0] * t.d[1] * (t.d[2] + 1));
}

Test(count_probe, a_copy_that_reads_an_unnamed_dim_is_refused)
{
    static kc_contract c;
    char why[2048];
    c = two_dim_contract("probe.copyd2", count_copy_d2);
    cr_expect_eq(probe_with(&c, why, sizeof why), -1, "a count of a copy's d[2] passed");
    cr_expect(strstr(why, "contract probe.copyd2: shape model.4x8: the element count of buffer y reads d[2], a dim the "
                          "contract does not name"), "%s", why);
}
