/* test_steps.c — contracts that are a sequence of kernels (kc_step, issue
 * 22): the registry's view of their steps (core/steps.h: each step's
 * arguments as the contract's indices, a contract without steps as one
 * step, and every malformed sequence refused with a line naming it), and,
 * under the fake driver (tests/fake/fake_cuda.c), the launch path: each
 * step launched in order on one stream with its own parameters,
 * the dependent with programmatic stream serialization and the producer
 * without, gates 2-4 on the whole sequence's outputs, a gate 1 failure
 * naming the step, the :limits item's figures per step, the sanitizer's
 * exact launches of both. The fixtures are tests/fixtures/fake_launch_contracts.c's
 * fakepdl.* contracts. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fatbin.h"
#include "registry.h"
#include "steps.h"
#include "support/item_lines.h"
#include "support/run_output.h"

/* ---- the registry's view ---- */

static void launch_any(const kc_shape *s, const kc_device *dev, kc_launch *l) { (void)s, (void)dev, (void)l; }
static void ref_any(const kc_ref *r) { (void)r; }
static size_t count_any(const kc_shape *s) { (void)s; return 1; }
static double value_any(const kc_shape *s) { (void)s; return 1; }
static const kc_shape shapes_any[] = { { "edge.1", KC_SHAPE_EDGE, { 1 } }, { 0 } };

/* The pair's module: a text image (the fake driver's kind), whose made-up
 * kernel names the registry leaves to gate 1 (an nvcc image's would be
 * checked against its sm_90 code), registered once per test process. */
static const char *steps_module(void)
{
    static const unsigned char img[] = "KCFAKE t_steps -\n";
    static int registered;
    if (!registered++) kc_register_module("t_steps", NULL, img, img + sizeof img - 1, "0123456789abcdef", KC_ABI_VERSION);
    return "t_steps";
}

/* A valid producer/dependent pair: out (0), mid (1), in (2), n (3). */
static kc_contract pair(void)
{
    return (kc_contract){
        .name = "t.pair", .module = steps_module(),
        .args = { KC_BUFFER("out", KC_F32, KC_OUT, count_any), KC_BUFFER("mid", KC_F32, KC_OUT, count_any),
                  KC_BUFFER("in", KC_F32, KC_IN, count_any), KC_SCALAR("n", KC_I64, value_any) },
        .steps = { { "producer", { "mid", "in", "n" }, launch_any },
                   { "dependent", { "out", "mid", "n" }, launch_any, .programmatic = 1 } },
        .shapes = shapes_any, .reference = ref_any,
    };
}

/* kc_contract_check's verdict on c: its problem lines in err; how many. */
static int problems_of(const kc_contract *c, char *err, size_t cap)
{
    return -kc_contract_check(c, err, cap);
}

Test(steps, a_pair_maps_each_steps_arguments_to_the_contracts_indices)
{
    kc_contract c = pair();
    kc_step_plan p[KC_MAX_STEPS];
    char err[1024];
    cr_assert_eq(kc_contract_steps(&c, p, err, sizeof err), 2, "%s", err);
    cr_expect_str_eq(p[0].symbol, "producer");
    cr_expect_eq(p[0].nargs, 3);
    cr_expect(p[0].arg[0] == 1 && p[0].arg[1] == 2 && p[0].arg[2] == 3, "producer takes mid in n: %d %d %d", p[0].arg[0],
              p[0].arg[1], p[0].arg[2]);
    cr_expect_eq(p[0].programmatic, 0);
    cr_expect_str_eq(p[1].symbol, "dependent");
    cr_expect(p[1].nargs == 3 && p[1].arg[0] == 0 && p[1].arg[1] == 1 && p[1].arg[2] == 3,
              "dependent takes out mid n: %d args %d %d %d", p[1].nargs, p[1].arg[0], p[1].arg[1], p[1].arg[2]);
    cr_expect_eq(p[1].programmatic, 1);
    cr_expect_eq(problems_of(&c, err, sizeof err), 0, "%s", err);
    char label[96];
    kc_step_label(&p[1], 1, 2, label, sizeof label);
    cr_expect_str_eq(label, "step 2 of 2 (dependent): ");
    kc_step_label(&p[0], 0, 1, label, sizeof label);
    cr_expect_str_eq(label, "");
}

Test(steps, a_contract_without_steps_is_one_step_taking_every_argument)
{
    kc_contract c = pair();
    memset(c.steps, 0, sizeof c.steps);
    c.symbol = "one";
    c.launch = launch_any;
    kc_step_plan p[KC_MAX_STEPS];
    char err[512];
    cr_assert_eq(kc_contract_steps(&c, p, err, sizeof err), 1, "%s", err);
    cr_expect_str_eq(p[0].symbol, "one");
    cr_expect_eq(p[0].launch, launch_any);
    cr_expect_eq(p[0].nargs, 4);
    for (int a = 0; a < 4; a++) cr_expect_eq(p[0].arg[a], a);
    cr_expect_eq(p[0].programmatic, 0);
    cr_expect_eq(problems_of(&c, err, sizeof err), 0, "%s", err);
}

/* Each malformed sequence is refused with a line that names it. */
Test(steps, malformed_sequences_are_refused_naming_the_step)
{
    static const struct {
        const char *what, *want;
    } cases[] = {
        { "unknown", "contract t.pair: step 2 (dependent) takes argument outt, which the contract does not have (its arguments: out mid in n)" },
        { "twice", "contract t.pair: step 1 (producer) takes argument in twice (parameters 2 and 3)" },
        { "untaken", "contract t.pair: argument n is taken by no step" },
        { "first_programmatic", "contract t.pair: step 1 (producer) is programmatic, but there is no step before it" },
        { "programmatic_2", "contract t.pair: step 2 (dependent) has programmatic 2 (expected 0 or 1)" },
        { "no_launch", "contract t.pair: step 2 (dependent) has no launch function" },
        { "symbol_too", "contract t.pair: steps and a symbol of the contract's own" },
        { "launch_too", "contract t.pair: steps and a launch of the contract's own" },
        { "gap", "contract t.pair: step 3 (late) follows a step without a symbol" },
        { "no_symbol", "contract t.pair: step 2 has no symbol (a step names its kernel)" },
        { "no_first", "contract t.pair: step 2 is given, but step 1 has no symbol" },
        { "library", "contract t.pair: library kc_x with steps" },
        { "no_module", "contract t.pair: missing module (its steps' kernels are in one module)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kc_contract c = pair();
        const char *w = cases[i].what;
        if (!strcmp(w, "unknown")) c.steps[1].args[0] = "outt";
        if (!strcmp(w, "twice")) c.steps[0].args[2] = "in";
        if (!strcmp(w, "untaken")) c.steps[0].args[2] = NULL, c.steps[1].args[2] = NULL;
        if (!strcmp(w, "first_programmatic")) c.steps[0].programmatic = 1;
        if (!strcmp(w, "programmatic_2")) c.steps[1].programmatic = 2;
        if (!strcmp(w, "no_launch")) c.steps[1].launch = NULL;
        if (!strcmp(w, "symbol_too")) c.symbol = "x";
        if (!strcmp(w, "launch_too")) c.launch = launch_any;
        if (!strcmp(w, "gap")) c.steps[2] = c.steps[1], c.steps[2].symbol = "late", c.steps[1].symbol = NULL;
        if (!strcmp(w, "no_symbol")) c.steps[1].symbol = NULL;
        if (!strcmp(w, "no_first")) c.steps[0].symbol = NULL, c.symbol = "x", c.launch = launch_any;
        if (!strcmp(w, "library")) c.library = "kc_x", c.entry = "e", c.module = NULL;
        if (!strcmp(w, "no_module")) c.module = NULL;
        char err[2048];
        int n = problems_of(&c, err, sizeof err);
        cr_expect_gt(n, 0, "%s: not refused", w);
        cr_expect(strstr(err, cases[i].want), "%s: want '%s' in:\n%s", w, cases[i].want, err);
        kc_step_plan p[KC_MAX_STEPS];
        char serr[2048];
        if (strcmp(w, "no_module")) cr_expect_lt(kc_contract_steps(&c, p, serr, sizeof serr), 0, "%s: steps accepted", w);
    }
}

/* ---- the launch path under the fake driver ---- */


/* What the fake driver's launch log says of the fakepdl launches: each
 * producer launch followed at once by its dependent's, on the same stream;
 * the producer's without programmatic stream serialization, the
 * dependent's with it (through cuLaunchKernelEx). */
typedef struct pdl_log {
    int pairs;              /* producer lines followed by their dependent's, as above */
    int producers, dependents, control_pairs;
    char bad[600];          /* the first line that breaks the rule */
} pdl_log;

static void read_pdl_log(const char *path, pdl_log *g)
{
    memset(g, 0, sizeof *g);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "no launch log %s", path);
    char line[512], prev[512] = "";
    while (fgets(line, sizeof line, f)) {
        int producer = strncmp(line, "fake_pdl_rowmax_f32 ", 20) == 0;
        int dependent = strncmp(line, "fake_pdl_scale_f32 ", 19) == 0;
        g->producers += producer;
        g->dependents += dependent;
        if (producer && !strstr(line, " programmatic=0 ") && !g->bad[0])
            snprintf(g->bad, sizeof g->bad, "producer launched programmatically: %s", line);
        if (dependent) {
            const char *ps = strstr(prev, " stream="), *ds = strstr(line, " stream=");
            int follows = strncmp(prev, "fake_pdl_rowmax_f32 ", 20) == 0 && ps && ds && strcmp(ps, ds) == 0;
            int attr = strstr(line, " via=cuLaunchKernelEx ") && strstr(line, " programmatic=1 ");
            if (follows && attr) {
                g->pairs++;
                g->control_pairs += strstr(line, " control=no_wait ") != NULL;
            } else if (!g->bad[0]) {
                snprintf(g->bad, sizeof g->bad, "dependent not right after its producer on its stream, or not "
                         "programmatic:\n  %s  %s", prev, line);
            }
        }
        snprintf(prev, sizeof prev, "%s", line);
    }
    fclose(f);
}

/* The pair passes gates 1-4 on every case only if both steps ran with
 * their own parameters (a launch with the other's reads a scalar as a
 * pointer; without the dependent, y stays unwritten); the control that
 * does not wait is RED only when the dependent was launched
 * programmatically (the fake runs it before its producer's writes only
 * then); the log shows every launch, the sanitizer's exact ones included,
 * as a pair on one stream. */
Test(steps_fake, a_producer_and_its_dependent_launch_in_order_on_one_stream, .timeout = 60)
{
    char log[256], env_log[300], san[PATH_MAX], env_san[PATH_MAX + 32];
    kc_tmp_path(log, sizeof log, "steps", "log");
    snprintf(env_log, sizeof env_log, "KC_FAKE_LAUNCH_LOG=%s", log);
    cr_assert_not_null(realpath("tests/fake/compute-sanitizer", san));
    snprintf(env_san, sizeof env_san, "KC_COMPUTE_SANITIZER=%s", san);
    kc_proc p = kc_run_fake((char *[]){ "run", "fakepdl.rowscale.f32*", NULL }, (char *[]){ env_log, env_san, NULL }, 60);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "PASS", "fakepdl.rowscale.f32", KC_TEXTS("gates 1-4 on 7 cases"));
    kc_expect_item(p.out, "RED", "fakepdl.rowscale.f32:control.no_wait",
                   KC_TEXTS("caught by gate 3 (accuracy; planted for gate 3): shape model.32x128 (rows=32, cols=128), dist uniform: y[0] = nan"));
    kc_expect_item(p.out, "PASS", "fakepdl.rowscale.f32:limits",
                   KC_TEXTS("step fake_pdl_rowmax_f32: 20 registers, 1024+0 B shared, 0 B local, 32 blocks/SM at shape large.512x1000; "
                            "step fake_pdl_scale_f32: 12 registers, 0+0 B shared, 0 B local, 8 blocks/SM at shape large.512x1000; "
                            "4 shapes within the device's launch limits"));
    kc_expect_item(p.out, "PASS", "fakepdl.rowscale.f32:sanitize", KC_TEXTS("launches of fakepdl.rowscale.f32"));
    kc_proc_free(&p);
    pdl_log g;
    read_pdl_log(log, &g);
    cr_expect(!g.bad[0], "%s", g.bad);
    /* 7 cases launched for gates 1 and 4; the control's first case; 3
     * exact launches (edge.1x1, edge.3x33, model.32x128) under each of the
     * fake sanitizer's tools */
    cr_expect_eq(g.control_pairs, 1, "the control ran one case before gate 3 caught it: %d", g.control_pairs);
    cr_expect_eq(g.producers, g.dependents, "%d producer launches, %d dependent launches", g.producers, g.dependents);
    cr_expect_eq(g.pairs, g.producers, "%d of %d producer launches followed by their dependent", g.pairs, g.producers);
    cr_expect_geq(g.pairs, 14 + 1 + 3, "%d pairs", g.pairs);
    unlink(log);
}

/* Gate 1 checks every step before any is launched and names the one that
 * does not fit: nothing of the sequence runs. */
Test(steps_fake, gate_1_names_the_step_that_does_not_fit_and_launches_nothing, .timeout = 30)
{
    char log[256], env_log[300];
    kc_tmp_path(log, sizeof log, "steps-wide", "log");
    snprintf(env_log, sizeof env_log, "KC_FAKE_LAUNCH_LOG=%s", log);
    kc_proc p = kc_run_fake((char *[]){ "run", "fakepdl.wideblock.f32*", NULL }, (char *[]){ env_log, NULL }, 30);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "FAIL", "fakepdl.wideblock.f32",
                   KC_TEXTS("gate 1 (launch and fit): shape model.32x128 (rows=32, cols=128), dist uniform: step 2 of 2 "
                            "(fake_pdl_scale_f32): block of 2048 threads > 1024 the function allows (registers or "
                            "__launch_bounds__); 7 of 7 cases failed"));
    kc_expect_item(p.out, "LIMIT", "fakepdl.wideblock.f32:limits",
                   KC_TEXTS("step fake_pdl_scale_f32: shape model.32x128: block of 2048 threads > 1024 allowed"));
    kc_proc_free(&p);
    cr_expect_neq(access(log, F_OK), 0, "a launch was made although step 2 does not fit:\n%s",
                  access(log, F_OK) == 0 ? kc_out_file(log) : "");
    unlink(log);
}

/* A launch record of a sequence (docs/launch-records.md) is a kernel item
 * of the recorded shape that runs both steps as the contract does. */
Test(steps_fake, a_launch_record_of_a_sequence_runs_both_steps, .timeout = 30)
{
    char log[256], env_log[300], recs[256];
    kc_tmp_path(log, sizeof log, "steps-rec", "log");
    kc_tmp_path(recs, sizeof recs, "steps-rec", "recs");
    snprintf(env_log, sizeof env_log, "KC_FAKE_LAUNCH_LOG=%s", log);
    kc_write_file(recs, "fakepdl.rowscale.f32 rows=5 cols=7 name=t5\n");
    kc_proc p = kc_run_fake((char *[]){ "run", "--records", recs, "fakepdl.rowscale.f32@t5", NULL },
                            (char *[]){ env_log, NULL }, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "PASS", "fakepdl.rowscale.f32@t5", KC_TEXTS("gates 1-4 on 2 cases"));
    kc_proc_free(&p);
    pdl_log g;
    read_pdl_log(log, &g);
    cr_expect(!g.bad[0], "%s", g.bad);
    cr_expect_eq(g.pairs, 4, "2 cases, each launched for gates 1 and 4: %d pairs", g.pairs);
    cr_expect_eq(g.producers, 4, "%d producer launches", g.producers);
    unlink(log);
    unlink(recs);
}
