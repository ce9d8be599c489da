/* test_registration.c — issue 15's registration and API for outside users:
 * registrations of another ABI are refused and named, every mistake of every
 * contract is reported at once, module images register once, library
 * kernels are found along the search path, references read arguments by
 * name, integer scalars are checked for one value function. Each Criterion
 * test runs in a process of its own, so registering here leaves the other
 * tests' registry as linked. */
#include <criterion/criterion.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fatbin.h"
#include "hostlib.h"
#include "registry.h"
#include "support/spawn.h"

static double one(const kc_shape *s) { (void)s; return 1; }
static int64_t one_i(const kc_shape *s) { (void)s; return 1; }
static void ref_noop(const kc_ref *r) { (void)r; }
static void launch_noop(const kc_shape *s, const kc_device *d, kc_launch *l) { (void)s; (void)d; (void)l; }
static const kc_shape shapes[] = { { "edge.1", KC_SHAPE_EDGE, { 1 } }, { 0 } };

/* A registry that refuses returns minus the number of problems, all named. */
static int items_problems(char *err, size_t cap)
{
    kc_item *items = NULL;
    int n = kc_registry_items(&items, err, cap);
    free(items);
    return n;
}

static const kc_contract no_reference = {
    .name = "bad.no_reference", .library = "kc_fakelib", .entry = "e",
    .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes,
    .known = { { 7, NULL, "a gate that does not exist" },     /* a second problem in the same contract */
               { 3, NULL, "a distribution misspelt", "normall" } },   /* and a third */
};
static const kc_contract tol_without_reason = {
    .name = "bad.tolerance", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
    .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes, .tol = { 1e-3, 0, NULL },
};
static const kc_contract control_not_in_source = {
    .name = "bad.control", .module = "harness", .symbol = "kc_gen_fill", .launch = launch_noop,
    .reference = ref_noop, .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes,
    .controls = { { "no_such_switch", 2, "planted nowhere" } },
};

/* Gate-5 known findings (kc_known's tool, kernel, error): a tool is needed and
 * must match one; no shape or distribution (the report does not say); not on
 * a contract without a :sanitize item; gates 1-4 name no sanitizer field. */
static const kc_contract bad_gate5 = {
    .name = "bad.gate5", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
    .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes,
    .known = { { .gate = KC_GATE_SANITIZE, .reason = "no tool" },
               { .gate = KC_GATE_SANITIZE, .tool = "memchek", .reason = "a misspelt tool" },
               { .gate = KC_GATE_SANITIZE, .tool = "*check", .shape = "edge.*", .reason = "a shape" },
               { .gate = 3, .error = "Invalid*", .reason = "a sanitizer error on gate 3" } },
};
static const kc_contract gate5_without_sanitize = {
    .name = "bad.gate5_nosan", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
    .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes, .no_sanitize = "a host library",
    .known = { { .gate = KC_GATE_SANITIZE, .tool = "racecheck", .reason = "never run" } },
};

static const kc_contract bad_blocks = {
    .name = "bad.blocks", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
    .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes, .no_sanitize = "a library",
    .block_sizes = { 128, 2048, 128 },
};

static const kc_control harness_bad[] = {
    { "lib_short", 2, "a harness control of a library", KC_HARNESS_BLOCK_SHORT },
    { "unknown", 2, "a harness control that does not exist", 7 },
};
static const kc_contract bad_harness = {
    .name = "bad.harness", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
    .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) }, .shapes = shapes, .no_sanitize = "a library",
    .controls = { harness_bad[0], harness_bad[1] },
};

Test(registration, harness_controls_are_checked)
{
    kc_register_contract(&bad_harness, KC_ABI_VERSION, sizeof(kc_contract));
    char err[16384];
    int n = items_problems(err, sizeof err);
    cr_expect(n < 0, "%s", err);
    cr_expect(strstr(err, "contract bad.harness: control lib_short is a harness control of a library kernel (its entry "
                          "launches, not the harness)"), "%s", err);
    cr_expect(strstr(err, "contract bad.harness: control unknown names harness control 7 (expected 0: a build of its "
                          "own, or 1: KC_HARNESS_BLOCK_SHORT)"), "%s", err);
}

Test(registration, block_sizes_are_checked)
{
    kc_register_contract(&bad_blocks, KC_ABI_VERSION, sizeof(kc_contract));
    char err[16384];
    int n = items_problems(err, sizeof err);
    cr_expect_eq(n, -3, "expected 3 problems, got %d: %s", n, err);
    cr_expect(strstr(err, "contract bad.blocks: block sizes on a library kernel (its entry launches)"), "%s", err);
    cr_expect(strstr(err, "contract bad.blocks: block size 2048 is past CUDA's 1024 threads per block"), "%s", err);
    cr_expect(strstr(err, "contract bad.blocks: block size 128 is listed twice"), "%s", err);
}

/* gen_on (a generator for some distributions): distributions that exist,
 * each one the contract runs, a generator, no table; a range beside a
 * generator only with gen_on; a good one is accepted. */
static void gen_noop(kc_gen *g) { (void)g; }
static void range_01(const kc_shape *s, double *lo, double *hi) { (void)s; *lo = 0; *hi = 1; }
static const kc_contract bad_gen_on = {
    .name = "bad.gen_on", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
    .args = { KC_BUFFER_GEN_ON("x", KC_F32, KC_IN, kc_count_d0, gen_noop, KC_DIST_BIT(KC_LARGE)),   /* not run */
              { .kind = KC_ARG_BUFFER, .name = "w", .dtype = KC_F32, .role = KC_IN, .count = kc_count_d0,
                .gen_on = KC_DIST_BIT(KC_UNIFORM) },                                                  /* no gen */
              { .kind = KC_ARG_BUFFER, .name = "t", .dtype = KC_F32, .role = KC_IN, .count = kc_count_d0,
                .gen = gen_noop, .table = 1, .gen_on = KC_DIST_BIT(KC_NORMAL) },                     /* a table */
              KC_BUFFER_GEN_ON("z", KC_F32, KC_IN, kc_count_d0, gen_noop, 1u << 20),                  /* unknown */
              KC_BUFFER_GEN_ON("u", KC_F32, KC_IN, kc_count_d0, gen_noop,                             /* one of two */
                               KC_DIST_BIT(KC_UNIFORM) | KC_DIST_BIT(KC_SPECIALS)),
              { .kind = KC_ARG_BUFFER, .name = "r", .dtype = KC_F32, .role = KC_IN, .count = kc_count_d0,
                .gen = gen_noop, .range = range_01 },                                                 /* range unused */
              KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) },
    .shapes = shapes,
};
static const kc_contract good_gen_on = {
    .name = "good.gen_on", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
    .args = { KC_BUFFER_GEN_ON("x", KC_F32, KC_IN, kc_count_d0, gen_noop, KC_DIST_BIT(KC_LARGE)),
              { .kind = KC_ARG_BUFFER, .name = "r", .dtype = KC_F32, .role = KC_IN, .count = kc_count_d0,
                .gen = gen_noop, .range = range_01, .gen_on = KC_DIST_BIT(KC_LARGE) },
              KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0) },
    .shapes = shapes, .dists = { KC_UNIFORM, KC_LARGE },
};

Test(registration, a_generators_distributions_are_checked)
{
    kc_register_contract(&good_gen_on, KC_ABI_VERSION, sizeof(kc_contract));
    char err[16384];
    int n = items_problems(err, sizeof err);
    cr_assert_gt(n, 0, "a generator for large (and a range for the rest) on a contract that runs large was refused: %s",
                 err);
    kc_register_contract(&bad_gen_on, KC_ABI_VERSION, sizeof(kc_contract));
    n = items_problems(err, sizeof err);
    cr_expect_eq(n, -6, "expected 6 problems, got %d: %s", n, err);
    const char *want[] = {
        "contract bad.gen_on: buffer x: gen_on names large, which the contract does not run (it runs uniform, normal, "
        "the default without dists): its generator would never run there (drop it from gen_on, or add it to the "
        "contract's dists)",
        "contract bad.gen_on: buffer w: gen_on names the distributions of a generator, but the buffer has none (gen)",
        "contract bad.gen_on: buffer t: a table (KC_BUFFER_TABLE) is the same on every distribution: no gen_on",
        "contract bad.gen_on: buffer z: gen_on 0x100000 has bits that are no distribution (expected KC_DIST_BIT(d) of "
        "KC_UNIFORM .. KC_INT_EXTREMES, or'd)",
        "contract bad.gen_on: buffer u: gen_on names specials, which the contract does not run",
        "contract bad.gen_on: buffer r has a generator and a range: the range is never used (drop one, or list the "
        "generator's distributions in gen_on: the range makes the rest)",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) cr_expect(strstr(err, want[i]), "'%s' not in:\n%s", want[i], err);
}

Test(registration, known_findings_of_gate_5_name_a_tool_and_no_shape)
{
    kc_register_contract(&bad_gate5, KC_ABI_VERSION, sizeof(kc_contract));
    kc_register_contract(&gate5_without_sanitize, KC_ABI_VERSION, sizeof(kc_contract));
    char err[16384];
    int n = items_problems(err, sizeof err);
    cr_expect_eq(n, -5, "expected 5 problems, got %d: %s", n, err);
    const char *want[] = {
        "contract bad.gate5: known finding of gate 5 needs its tool (a glob over memcheck, racecheck, initcheck, synccheck)",
        "contract bad.gate5: known finding's tool 'memchek' matches no sanitizer tool",
        "contract bad.gate5: known finding of gate 5 names a shape ('edge.*'): the sanitizer's report does not say",
        "contract bad.gate5: known finding of gate 3 names a sanitizer error ('Invalid*'): those are gate 5's (5)",
        "contract bad.gate5_nosan: known finding of gate 5, but the contract has no :sanitize item (no_sanitize: a host library)",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) cr_expect(strstr(err, want[i]), "'%s' not in:\n%s", want[i], err);
}

Test(registration, every_mistake_of_every_contract_at_once)
{
    kc_register_contract(&no_reference, KC_ABI_VERSION, sizeof(kc_contract));
    kc_register_contract(&tol_without_reason, KC_ABI_VERSION, sizeof(kc_contract));
    kc_register_contract(&control_not_in_source, KC_ABI_VERSION, sizeof(kc_contract));
    char err[16384];
    int n = items_problems(err, sizeof err);
    cr_assert_eq(n, -5, "expected 5 problems, got %d: %s", n, err);
    cr_expect(strstr(err, "contract bad.no_reference: no .reference function (the float64 reference the outputs are "
                          "checked against)\n"
                          "contract bad.no_reference: known finding names gate 7 (expected 1-4, or 5: KC_GATE_SANITIZE)"), "%s", err);
    cr_expect(strstr(err, "contract bad.no_reference: known finding's distribution 'normall' matches no distribution "
                          "(expected a glob over uniform, normal, large, "), "%s", err);
    cr_expect(strstr(err, "bad.tolerance: tolerance override (rtol 0.001, atol 0) without a reason"), "%s", err);
    cr_expect(strstr(err, "contract bad.control: control no_such_switch has no fatbin: is KC_CONTROL_no_such_switch "
                          "used in harness.cu? (or, for a patch control, is no_such_switch.patch in the build's "
                          "KC_PATCHES_harness / PATCHES_harness?)"), "%s", err);
}

Test(registration, another_abi_is_refused_and_named)
{
    kc_contract c = no_reference;
    c.name = "old.abi";
    memset(c.known, 0, sizeof c.known);
    size_t before;
    const kc_contract *const *cs;
    before = kc_registry_contracts(&cs);
    kc_register_contract(&c, KC_ABI_VERSION + 1, sizeof(kc_contract));
    kc_register_contract(&c, KC_ABI_VERSION, sizeof(kc_contract) - 8);
    kc_suite s = { "old.suite", 0, NULL };
    kc_register_suite(&s, KC_ABI_VERSION - 1, sizeof(kc_suite));
    kc_register_module("old_image", "ctl", (const unsigned char *)"x", (const unsigned char *)"x" + 1, NULL, 0);
    cr_expect_eq(kc_registry_contracts(&cs), before, "a refused contract was registered");
    cr_expect_null(kc_fatbin_find("old_image", "ctl"));
    char err[16384], want[256];
    int n = items_problems(err, sizeof err);
    cr_assert_eq(n, -4, "expected 4 problems, got %d: %s", n, err);
    snprintf(want, sizeof want, "contract old.abi was compiled against kcontract ABI %d (struct size %zu), this library "
             "is ABI %d", KC_ABI_VERSION + 1, sizeof(kc_contract), KC_ABI_VERSION);
    cr_expect(strstr(err, want), "no '%s' in: %s", want, err);
    snprintf(want, sizeof want, "(struct size %zu)", sizeof(kc_contract) - 8);
    cr_expect(strstr(err, want), "no '%s' in: %s", want, err);
    snprintf(want, sizeof want, "suite old.suite was compiled against kcontract ABI %d", KC_ABI_VERSION - 1);
    cr_expect(strstr(err, want), "no '%s' in: %s", want, err);
    cr_expect(strstr(err, "kernel image old_image@ctl was embedded for kcontract ABI 0"), "%s", err);
}

Test(registration, an_image_registers_once)
{
    static const unsigned char img[] = "KCFAKE twice -\n";
    kc_register_module("twice", NULL, img, img + sizeof img - 1, "0123456789abcdef", KC_ABI_VERSION);
    cr_assert_not_null(kc_fatbin_find("twice", NULL));
    cr_expect_null(kc_fatbin_find("twice", "ctl"), "a control's image found for the clean one");
    kc_register_module("twice", NULL, img, img + sizeof img - 1, "0123456789abcdef", KC_ABI_VERSION);
    char err[4096];
    int n = items_problems(err, sizeof err);
    cr_assert_eq(n, -1, "%d: %s", n, err);
    cr_expect(strstr(err, "kernel image twice is registered twice"), "%s", err);
}

Test(registration, the_linked_images_registered_themselves)
{
    /* build/kc_tests links the objects of build/fatbin/: each registered itself at load. */
    cr_expect_gt(kc_fatbin_count(), 100, "only %d images registered", kc_fatbin_count());
    const kc_fatbin *h = kc_fatbin_find("harness", NULL);
    cr_assert_not_null(h);
    cr_expect_gt(h->end - h->start, 1000);
    cr_expect_eq(h->start[0], 0x50, "the harness image does not start with the fatbin magic");
}

/* A contract of the project's own module without .launch is told which
 * function it lacks (it used to read "missing launch or reference"). */
/* c is refused, the refusal (in err, for further checks) saying want. */
static void expect_refused(const kc_contract *c, const char *want, char *err, size_t cap)
{
    cr_expect_neq(kc_contract_check(c, err, cap), 0, "%s was not refused", c->name);
    cr_expect(strstr(err, want), "want '%s' in: %s", want, err);
}

/* A good contract of the harness module's kernel `symbol` (an embedded
 * sm_90 image every test binary has), launched by `launch`. */
static kc_contract harness_contract(const char *symbol, void (*launch)(const kc_shape *, const kc_device *, kc_launch *))
{
    kc_contract c = tol_without_reason;
    c.tol = (kc_tol){ 0 };
    c.library = NULL;
    c.entry = NULL;
    c.module = "harness";
    c.symbol = symbol;
    c.launch = launch;
    return c;
}

Test(registration, a_missing_launch_is_named)
{
    kc_contract c = harness_contract("kc_gen_fill", NULL);
    char err[1024];
    expect_refused(&c, "contract bad.tolerance: no .launch function (it sets the grid and block of a shape",
                       err, sizeof err);
    cr_expect_null(strstr(err, ".reference"), "%s", err);
}

Test(registration, a_scalar_has_one_value_function)
{
    kc_contract c = tol_without_reason;
    c.tol = (kc_tol){ 0 };
    c.args[1] = (kc_arg)KC_SCALAR_INT("n", KC_I64, one_i);
    char err[1024];
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
    c.args[1].value = one;
    expect_refused(&c, "scalar n needs one value function (value or, for integers, ivalue), not both", err, sizeof err);
    c.args[1] = (kc_arg)KC_SCALAR_INT("a", KC_F32, one_i);
    expect_refused(&c, "scalar a is f32, a float, but its value comes as an integer (KC_SCALAR_DIM, KC_SCALAR_INT "
                       "or .ivalue are for integer dtypes", err, sizeof err);
}

/* ---- references by argument name ---- */

static kc_ref named_ref(float *x, double *y)
{
    kc_ref r = { .shape = &shapes[0], .nargs = 3 };
    r.name[0] = "y"; r.dtype[0] = KC_F32; r.out[0] = y; r.count[0] = 2;
    r.name[1] = "x"; r.dtype[1] = KC_F32; r.host[1] = x; r.count[1] = 2;
    r.name[2] = "n"; r.dtype[2] = KC_I64; r.iscalar[2] = (int64_t)1 << 60;
    return r;
}

Test(registration, references_read_arguments_by_name)
{
    float x[2] = { 1.5f, -2.0f };
    double y[2] = { 0, 0 };
    kc_ref r = named_ref(x, y);
    cr_expect_eq(kc_ref_arg(&r, "x"), 1);
    cr_expect_eq(kc_ref_arg(&r, "n"), 2);
    cr_expect_eq(kc_ref_in_named(&r, "x", 1), -2.0);
    cr_expect_eq(kc_ref_out_named(&r, "y"), y);
    cr_expect_eq(r.iscalar[kc_ref_arg(&r, "n")], (int64_t)1 << 60);
    /* Reordered: the same names find the same data. */
    kc_ref s = r;
    s.name[0] = "x"; s.dtype[0] = KC_F32; s.host[0] = x; s.out[0] = NULL;
    s.name[1] = "y"; s.host[1] = NULL; s.out[1] = y;
    cr_expect_eq(kc_ref_in_named(&s, "x", 0), 1.5);
    cr_expect_eq(kc_ref_out_named(&s, "y"), y);
}

/* A reference that names an argument the contract lacks aborts, saying which
 * name, the contract's names and the shape (its stderr is read here, not
 * left in the test run's output). */
Test(registration, an_unknown_argument_name_aborts_naming_it)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        struct rlimit no_core = { 0, 0 };
        setrlimit(RLIMIT_CORE, &no_core);
        float x[2] = { 0 };
        double y[2] = { 0 };
        kc_ref r = named_ref(x, y);
        kc_ref_in_named(&r, "z", 0);
        _exit(0);
    }
    close(fds[1]);
    char err[1024] = "";
    size_t len = 0;
    ssize_t got;
    while (len < sizeof err - 1 && (got = read(fds[0], err + len, sizeof err - 1 - len)) > 0) len += (size_t)got;
    err[len] = 0;
    close(fds[0]);
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status %d", st);
    cr_expect(strstr(err, "kcontract: the reference asks for argument \"z\", which the contract does not have (its "
                          "arguments: y, x, n; shape edge.1)"), "%s", err);
}

/* ---- the library-kernel search path ---- */

Test(registration, library_kernels_along_the_search_path)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/kc-libdir-XXXXXX", kc_test_tmpdir());
    cr_assert_not_null(mkdtemp(dir));
    char a[200], b[200], so[300], env[500];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    cr_assert_eq(mkdir(a, 0700), 0);
    cr_assert_eq(mkdir(b, 0700), 0);
    snprintf(so, sizeof so, "%s/libkc_x@ctl.so", b);
    FILE *f = fopen(so, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(env, sizeof env, "%s:%s", a, b);
    setenv("KC_LIBDIR", env, 1);
    char dirs[KC_HOSTLIB_MAX_DIRS][4096], path[4200];
    cr_expect_eq(kc_hostlib_dirs(dirs, KC_HOSTLIB_MAX_DIRS), 2);
    kc_hostlib_path("kc_x", "ctl", path, sizeof path);
    cr_expect_str_eq(path, so, "found in the second directory");
    kc_hostlib_path("kc_x", NULL, path, sizeof path);
    snprintf(so, sizeof so, "%s/libkc_x.so", a);
    cr_expect_str_eq(path, so, "a missing library is named in the first directory");
    kc_host_entry fn;
    char why[2048];
    cr_expect_neq(kc_hostlib_load("kc_x", NULL, "e", &fn, NULL, why, sizeof why), 0);
    cr_expect(strstr(why, "looked in: ") && strstr(why, a) && strstr(why, b), "%s", why);
    /* Unset: lib/ next to the binary, then ../lib/kcontract/ (an installed suite). */
    unsetenv("KC_LIBDIR");
    cr_assert_eq(kc_hostlib_dirs(dirs, KC_HOSTLIB_MAX_DIRS), 2);
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert_gt(len, 0);
    exe[len] = 0;
    *strrchr(exe, '/') = 0;     /* build/ or build-asan/: the test binary's directory */
    char want[4200];
    snprintf(want, sizeof want, "%s/lib", exe);
    cr_expect_str_eq(dirs[0], want);
    snprintf(want, sizeof want, "%s/../lib/kcontract", exe);
    cr_expect_str_eq(dirs[1], want);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

/* A kernel name the module's sm_90 image does not have (a typo, a C++
 * kernel named unmangled) is refused at start, naming the functions the
 * image has, where before only gate 1 on a GPU said so and a machine
 * without one listed and SKIPped the contract as a good one. The same for a
 * device reference's symbol. An image with no sm_90 ELF (the fake driver's
 * text images) is left to gate 1. */
Test(registration, a_symbol_the_module_lacks_is_named)
{
    kc_contract c = harness_contract("kc_gen_fil", launch_noop);
    char err[4096];
    expect_refused(&c, "contract bad.tolerance: symbol kc_gen_fil is not a function of module harness (its sm_90 "
                       "image has: ", err, sizeof err);
    cr_expect(strstr(err, "kc_gen_fill"), "the image's functions are not named: %s", err);
    c.symbol = "kc_gen_fill";
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
    c.device_reference = (kc_device_ref){ .module = "harness", .symbol = "no_such_ref" };
    expect_refused(&c, "contract bad.tolerance: device reference no_such_ref is not a function of module harness",
                       err, sizeof err);
    static const unsigned char img[] = "KCFAKE textimage -\n";
    kc_register_module("textimage", NULL, img, img + sizeof img - 1, "0123456789abcdef", KC_ABI_VERSION);
    c.device_reference = (kc_device_ref){ 0 };
    c.module = "textimage";
    c.symbol = "anything";
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "a text image's symbol refused: %s", err);
}

/* A hand-set tolerance must be finite, and an empty reason is none. */
Test(registration, a_tolerance_is_finite_and_has_a_reason)
{
    kc_contract c = tol_without_reason;
    char err[4096];
    c.tol = (kc_tol){ NAN, 0, "not a number" };
    expect_refused(&c, "contract bad.tolerance: tolerance (rtol nan, atol 0) is not finite", err, sizeof err);
    c.tol = (kc_tol){ 0, INFINITY, "anything goes" };
    expect_refused(&c, "contract bad.tolerance: tolerance (rtol 0, atol inf) is not finite", err, sizeof err);
    c.tol = (kc_tol){ 1e-3, 0, "" };
    expect_refused(&c, "contract bad.tolerance: tolerance override (rtol 0.001, atol 0) without a reason",
                       err, sizeof err);
    c.args[0].tol = (kc_tol){ 0, 0, "" };
    c.tol = (kc_tol){ 1e-3, 0, "measured" };
    expect_refused(&c, "contract bad.tolerance, output y: tolerance override (rtol 0, atol 0) without a reason",
                       err, sizeof err);
    c.args[0].tol = (kc_tol){ 0, 0, "exact: a copy" };
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "%s", err);
}

/* A module no image has is named once, with the embedded modules a typo
 * away from it, and its controls are not each refused again. */
Test(registration, a_module_not_embedded_is_named_once_with_a_suggestion)
{
    kc_contract c = control_not_in_source;
    c.module = "harnes";
    char err[4096];
    expect_refused(&c, "contract bad.control: module harnes is not embedded (expected a harnes.cu built by the "
                       "kcontract rules); did you mean 'harness'?", err, sizeof err);
    cr_expect_null(strstr(err, "no_such_switch"), "the control was refused again: %s", err);
    c.module = "zzzzqqqq";
    expect_refused(&c, "module zzzzqqqq is not embedded (expected a zzzzqqqq.cu built by the kcontract rules)",
                       err, sizeof err);
    cr_expect_null(strstr(err, "did you mean"), "%s", err);
}

/* KC_SCALAR_DIM of a dim the contract does not name (.dims) passes 0 on
 * every shape: refused naming the index and the dims; one it names passes. */
Test(registration, a_scalar_dim_past_the_named_dims_is_refused)
{
    kc_contract c = {
        .name = "bad.scalar_dim", .library = "kc_fakelib", .entry = "e", .reference = ref_noop,
        .dims = { "n" },
        .args = { KC_BUFFER("y", KC_F32, KC_OUT, kc_count_d0), KC_SCALAR_DIM("n", KC_I64, 1) }, .shapes = shapes,
    };
    char err[1024];
    cr_expect_lt(kc_contract_check(&c, err, sizeof err), 0, "KC_SCALAR_DIM of d[1] on a contract of one dim passed");
    cr_expect(strstr(err, "contract bad.scalar_dim: scalar n is KC_SCALAR_DIM of d[1], but the contract names 1 dim (n)"),
              "%s", err);
    c.args[1] = (kc_arg)KC_SCALAR_DIM("n", KC_I64, 0);
    cr_expect_eq(kc_contract_check(&c, err, sizeof err), 0, "KC_SCALAR_DIM of d[0], a named dim, refused: %s", err);
}

/* A control image no contract of its module lists (KC_CONTROL_ghost left in
 * a source, or a contract's .controls entry deleted) would be built,
 * embedded and never run: refused at start, naming the module and the
 * control. */
Test(registration, a_control_image_no_contract_lists_is_refused)
{
    static const unsigned char bytes[] = "KCFAKE orphan_mod ghost";
    kc_register_module("orphan_mod", NULL, bytes, bytes + sizeof bytes, NULL, KC_ABI_VERSION);
    char err[8192];
    cr_assert_geq(items_problems(err, sizeof err), 0, "a clean image with no contract was refused: %s", err);
    kc_register_module("orphan_mod", "ghost", bytes, bytes + sizeof bytes, NULL, KC_ABI_VERSION);
    cr_expect_eq(items_problems(err, sizeof err), -1, "an image of a control no contract lists passed: %s", err);
    cr_expect(strstr(err, "module orphan_mod has an image of control ghost (KC_CONTROL_ghost in orphan_mod.cu, or a "
                          "patch), but no contract of module orphan_mod lists it"), "%s", err);
}

/* Two contracts of one name are said once, naming both, not once for each
 * of their items (kernel, :limits, controls, :sanitize). */
Test(registration, a_contract_name_registered_twice_is_said_once)
{
    static kc_contract a, b;
    a = control_not_in_source;
    a.name = "twice.named";
    a.symbol = "kc_gen_fill";
    memset(a.controls, 0, sizeof a.controls);
    b = a;
    b.module = "harness";
    kc_register_contract(&a, KC_ABI_VERSION, sizeof(kc_contract));
    kc_register_contract(&b, KC_ABI_VERSION, sizeof(kc_contract));
    char err[8192];
    int n = items_problems(err, sizeof err);
    cr_expect_eq(n, -1, "expected 1 problem, got %d: %s", n, err);
    cr_expect(strstr(err, "contract name twice.named is registered twice (modules or libraries harness and harness)"),
              "%s", err);
    cr_expect(!strstr(err, "item name twice.named:"), "an item of the pair was named again: %s", err);
}
