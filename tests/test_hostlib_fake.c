/* test_hostlib_fake.c — library kernels (kc_contract.library) through the real
 * gates without a GPU: build/kcontract-fixture with the fake driver
 * (KC_LIBCUDA=$KC_FAKE_CUDA) calls the entry of build/lib/libkc_fakelib.so
 * (tests/fake/libkc_fakelib.c) for tests/fixtures/fake_library_contracts.c.
 * The clean library passes gates 1-4 and its limits; skip_last is RED at
 * gate 2, error_return and runtime_error RED at gate 1; a missing library is a gate-1 FAIL that
 * names the path looked at; a library call that fails for every build (an
 * environment fault) leaves every control MISSED, never RED. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/spawn.h"

static kc_proc fakelib_run(char **args, const char *libdir)
{
    static char env_lib[1024];
    snprintf(env_lib, sizeof env_lib, "KC_LIBDIR=%s", libdir ? libdir : "");
    char *env[] = { env_lib, NULL };
    return kc_run_fake(args, env, 30);
}


Test(hostlib_fake, clean_library_passes_gates_1_to_4_and_has_no_limits_item)
{
    kc_proc p = fakelib_run((char *[]){ "run", "fakelib.double.f32", NULL }, NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    char line[4096];
    cr_expect(kc_out_item_line(p.out, "PASS", "fakelib.double.f32", line, sizeof line) &&
              strstr(line, "gates 1-4 on 5 cases (3 shapes x up to 2 distributions)"), "%s", p.out);
    kc_proc_free(&p);
    /* No CUfunction, so nothing for a :limits item to measure: none is made. */
    p = fakelib_run((char *[]){ "run", "fakelib.double.f32:limits", NULL }, NULL);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "pattern 'fakelib.double.f32:limits' matches no item"), "%s", p.err);
    kc_proc_free(&p);
}

Test(hostlib_fake, controls_are_red_at_gates_2_and_1)
{
    kc_proc p = fakelib_run((char *[]){ "run", "fakelib.double.f32:control.*", NULL }, NULL);
    cr_expect_eq(p.status, 0, "every control RED is a green run: exit %d\n%s%s", p.status, p.out, p.err);
    char line[4096];
    cr_expect(kc_out_item_line(p.out, "RED", "fakelib.double.f32:control.skip_last", line, sizeof line) &&
              strstr(line, "caught by gate 2 (bounds and writes; planted for gate 2): shape model.hidden.4096 (n=4096), dist uniform: output y: 1 of 4096 elements never written (poison 0xFF after the launch, 0x7F after a relaunch), first y[4095]"),
              "%s", p.out);
    cr_expect(kc_out_item_line(p.out, "RED", "fakelib.double.f32:control.error_return", line, sizeof line) &&
              strstr(line, "caught by gate 1 (launch and fit; planted for gate 1)") &&
              strstr(line, "library call kc_fakelib_double_f32 (libkc_fakelib.so) returned: CUDA_ERROR_INVALID_VALUE"),
              "%s", p.out);
    /* a cudaError_t with no CUresult twin is not called a CUresult */
    cr_expect(kc_out_item_line(p.out, "RED", "fakelib.double.f32:control.runtime_error", line, sizeof line) &&
              strstr(line, "caught by gate 1 (launch and fit; planted for gate 1)") &&
              strstr(line, "library call kc_fakelib_double_f32 (libkc_fakelib.so) returned cudaErrorInvalidConfiguration "
                           "(error 9, a cudaError_t of the CUDA runtime)"),
              "%s", p.out);
    kc_proc_free(&p);
}

Test(hostlib_fake, missing_library_fails_gate_1_naming_the_path)
{
    kc_proc p = fakelib_run((char *[]){ "run", "fakelib.missing.f32", NULL }, NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    char line[4096];
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakelib.missing.f32", line, sizeof line) &&
              strstr(line, "gate 1 (launch and fit): library kc_nosuchlib not found: ") &&
              strstr(line, "/lib/libkc_nosuchlib.so (looked in: ") &&
              strstr(line, "/lib, ") && strstr(line, "/../lib/kcontract; the build makes it from "
                                                             "libkc_nosuchlib.cu, KC_LIBDIR sets the directories)"),
              "%s", p.out);
    kc_proc_free(&p);
    /* KC_LIBDIR moves where libraries are looked for: the clean one is then missing too. */
    p = fakelib_run((char *[]){ "run", "fakelib.double.f32", NULL }, "/nonexistent/kc-libdir");
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakelib.double.f32", line, sizeof line) &&
              strstr(line, "library kc_fakelib not found: /nonexistent/kc-libdir/libkc_fakelib.so"), "%s", p.out);
    kc_proc_free(&p);
}

/* Issue 21: a library call that fails for every build (an environment fault:
 * KC_FAKELIB_ENV_FAULT makes the clean library and each control's return
 * CUDA_ERROR_NOT_INITIALIZED) is no catch. Each control is MISSED, as one
 * whose own build does not load, and the clean kernel FAILs; before, every
 * control counted RED "caught by gate 1" and the controls' run was green. */
Test(hostlib_fake, controls_are_missed_when_the_clean_build_fails_the_same_way)
{
    char *env[] = { "KC_FAKELIB_ENV_FAULT=1", NULL };
    kc_proc p = kc_run_fake((char *[]){ "run", "fakelib.double.f32:control.*", NULL }, env, 30);
    cr_expect_eq(p.status, 1, "controls that prove nothing fail the run: exit %d, expected 1\n%s%s", p.status, p.out,
                 p.err);
    const char *ctl[] = { "error_return", "runtime_error", "skip_last" };
    char name[128], line[4096];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "fakelib.double.f32:control.%s", ctl[i]);
        cr_expect(!kc_out_item_line(p.out, "RED", name, line, sizeof line), "%s counted RED:\n%s", name, line);
        cr_expect(kc_out_item_line(p.out, "MISSED", name, line, sizeof line) &&
                  strstr(line, "gate 1 (launch and fit): shape model.hidden.4096 (n=4096), dist uniform: library call "
                               "kc_fakelib_double_f32 (libkc_fakelib.so) returned: CUDA_ERROR_NOT_INITIALIZED; the clean "
                               "build fails the same way: library call kc_fakelib_double_f32 (libkc_fakelib.so) returned: "
                               "CUDA_ERROR_NOT_INITIALIZED (the control's build is broken, so it was not checked)"),
                  "expected %s MISSED, naming the clean build's failure:\n%s", name, p.out);
    }
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_CONTROL][KC_RED], 0, "control.red=%ld, expected 0", t.n[KC_KIND_CONTROL][KC_RED]);
    cr_expect_eq(t.n[KC_KIND_CONTROL][KC_MISSED], 3, "control.missed=%ld, expected 3", t.n[KC_KIND_CONTROL][KC_MISSED]);
    kc_proc_free(&p);
    /* The clean kernel says why: gate 1 on every case. */
    p = kc_run_fake((char *[]){ "run", "fakelib.double.f32", NULL }, env, 30);
    cr_expect_eq(p.status, 1, "exit %d, expected 1\n%s", p.status, p.out);
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakelib.double.f32", line, sizeof line) &&
              strstr(line, "returned: CUDA_ERROR_NOT_INITIALIZED; 5 of 5 cases failed"), "%s", p.out);
    kc_proc_free(&p);
}

/* Lines of file path equal to line. */
static int lines_equal(const char *path, const char *line)
{
    FILE *f = fopen(path, "r");
    char buf[256];
    int n = 0;
    while (f && fgets(buf, sizeof buf, f)) n += strcmp(buf, line) == 0;
    if (f) fclose(f);
    return n;
}

/* A library's kc_host_release (what it keeps between calls, a cuBLAS handle)
 * is called once after every item that used it, and after a control's
 * comparison with the clean build for that build too; a release that fails
 * is said on the item's line, whose verdict stands, and the process is
 * replaced. */
Test(hostlib_fake, the_librarys_release_runs_after_each_item_and_a_failed_one_is_said)
{
    char log[256], env_log[300];
    kc_tmp_path(log, sizeof log, "release", "log");
    snprintf(env_log, sizeof env_log, "KC_FAKELIB_RELEASE_LOG=%s", log);
    char *env[] = { "KC_LIBDIR=", env_log, NULL };
    kc_proc p = kc_run_fake((char *[]){ "run", "fakelib.double.f32", "fakelib.double.f32:control.*", NULL }, env, 60);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    /* the kernel, and the clean build each gate-1 control is compared with */
    cr_expect_eq(lines_equal(log, "release clean\n"), 3, "see %s\n%s", log, p.out);
    cr_expect_eq(lines_equal(log, "release skip_last\n"), 1, "see %s", log);
    cr_expect_eq(lines_equal(log, "release error_return\n"), 1, "see %s", log);
    cr_expect_eq(lines_equal(log, "release runtime_error\n"), 1, "see %s", log);
    cr_expect_null(strstr(p.out, "kc_host_release"), "%s", p.out);
    kc_proc_free(&p);
    unlink(log);

    char *fail[] = { "KC_LIBDIR=", "KC_FAKELIB_RELEASE_FAIL=1", NULL };
    p = kc_run_fake((char *[]){ "run", "fakelib.double.f32", NULL }, fail, 30);
    cr_expect_eq(p.status, 0, "the verdict stands: exit %d\n%s%s", p.status, p.out, p.err);
    char line[4096];
    cr_expect(kc_out_item_line(p.out, "PASS", "fakelib.double.f32", line, sizeof line) &&
              strstr(line, "; libkc_fakelib.so's kc_host_release failed: CUDA_ERROR_INVALID_VALUE: this process is "
                           "replaced"), "%s", p.out);
    kc_proc_free(&p);
}

/* A release that fails with a sticky error loses the context: a kernel
 * that passed every case FAILs as after any lost context, and its worker is
 * replaced as after one; one that fails only in the clean build a control
 * was compared with leaves the control RED, says so, and replaces the
 * worker. */
Test(hostlib_fake, a_sticky_or_clean_builds_failed_release_replaces_the_process)
{
    char *sticky[] = { "KC_LIBDIR=", "KC_FAKELIB_RELEASE_FAIL=700", NULL };
    kc_proc p = kc_run_fake((char *[]){ "run", "fakelib.double.f32", "fakelib.double.f32:control.skip_last", "--jobs",
                                        "1", NULL }, sticky, 30);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    char line[4096];
    cr_expect(kc_out_item_line(p.out, "FAIL", "fakelib.double.f32", line, sizeof line) &&
              strstr(line, "the CUDA context was lost; libkc_fakelib.so's kc_host_release failed: "
                           "CUDA_ERROR_ILLEGAL_ADDRESS (the CUDA context is now unusable): this process is replaced"),
              "%s", p.out);
    cr_expect(strstr(p.out, "after a CUDA context loss reported by fakelib.double.f32\n") ||
              strstr(p.err, "after a CUDA context loss reported by fakelib.double.f32\n"), "%s%s", p.out, p.err);
    kc_proc_free(&p);

    char *clean[] = { "KC_LIBDIR=", "KC_FAKELIB_RELEASE_FAIL=1", "KC_FAKELIB_RELEASE_FAIL_BUILD=clean", NULL };
    p = kc_run_fake((char *[]){ "run", "fakelib.double.f32:control.error_return",
                                "fakelib.double.f32:control.skip_last", "--jobs", "1", NULL }, clean, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(kc_out_item_line(p.out, "RED", "fakelib.double.f32:control.error_return", line, sizeof line) &&
              strstr(line, "caught by gate 1 (launch and fit; planted for gate 1)") &&
              strstr(line, "; libkc_fakelib.so's kc_host_release failed: CUDA_ERROR_INVALID_VALUE: this process is "
                           "replaced"), "%s", p.out);
    cr_expect(strstr(p.out, "after GPU state left by fakelib.double.f32:control.error_return\n") ||
              strstr(p.err, "after GPU state left by fakelib.double.f32:control.error_return\n"), "%s%s", p.out, p.err);
    kc_proc_free(&p);
}

/* Under the sanitizer the target releases too: a release that fails keeps
 * the item's launch summary, fails it, and ends the session (what the
 * library keeps is unknown), so a second request is never begun. */
Test(hostlib_fake, the_sanitizer_target_releases_and_a_failed_release_ends_its_session)
{
    static char env_cuda[1024];
    const char *lib = getenv("KC_FAKE_CUDA");
    snprintf(env_cuda, sizeof env_cuda, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_cuda.so");
    char *env[] = { env_cuda, "KC_LIBDIR=", "KC_FAKELIB_RELEASE_FAIL=1", NULL };
    char *argv[] = { "/bin/sh", "-c", "printf '%s' \"$1\" | \"$0\" run --sanitize-target --seed 7 --device 0",
                     (char *)kc_test_fixture_bin(),
                     "fakelib.double.f32:control.skip_last all\nfakelib.double.f32:control.skip_last all\n", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 30, &p), 0);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "kcontract-sanitize-target: FAIL: 2 launches of fakelib.double.f32@skip_last (dist uniform): "
                            "edge.33 model.hidden.4096; but libkc_fakelib@skip_last.so's kc_host_release failed: "
                            "CUDA_ERROR_INVALID_VALUE: the session ends\n"), "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kcontract-sanitize-target: begin "), 1, "%s", p.out);
    kc_proc_free(&p);
}
