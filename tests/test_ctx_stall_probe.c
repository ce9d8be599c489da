/* test_ctx_stall_probe.c — bench/ctx_stall_probe.c through the fake driver:
 * its operations that need no kernel (device and page-locked allocations,
 * /proc reads) run for the seconds asked and end with one BENCH line; a
 * kernel the driver cannot load, and bad arguments, are refused with a
 * message naming what failed and exit 2. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/run_output.h"
#include "support/spawn.h"

/* The probe with args on the fake driver ($KC_FAKE_CUDA): the one beside
 * kcontract in the build under test ($KC_BIN's folder: build/, or
 * build-asan/, whose fake driver an uninstrumented probe cannot load). */
static kc_proc probe(char *a1, char *a2, char *a3)
{
    static char env_cuda[1024], bin[1024];
    const char *lib = getenv("KC_FAKE_CUDA"), *kc = kc_test_bin(), *slash = strrchr(kc, '/');
    snprintf(env_cuda, sizeof env_cuda, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_cuda.so");
    snprintf(bin, sizeof bin, "%.*skc_ctx_stall_probe", slash ? (int)(slash - kc + 1) : 0, kc);
    char *env[] = { env_cuda, NULL };
    char *argv[] = { bin, a1, a2, a3, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 30, &p), 0, "cannot start %s", bin);
    return p;
}

Test(ctx_stall_probe, each_operation_without_a_kernel_ends_with_its_bench_line, .timeout = 60)
{
    const char *ops[] = { "alloc", "host", "proc" };
    for (int i = 0; i < 3; i++) {
        kc_proc p = probe("1", "20", (char *)ops[i]);
        cr_expect_eq(p.status, 0, "%s: exit %d\n%s%s", ops[i], p.status, p.out, p.err);
        char want[64], line[512];
        snprintf(want, sizeof want, "BENCH probe=ctx_stall op=%s seconds=1.0 launches=", ops[i]);
        cr_expect(kc_out_line(p.out, want, line, sizeof line) == 0, "%s: %s", ops[i], p.out);
        unsigned long n = 0;
        const char *l = strstr(line, "launches=");
        cr_expect(l && sscanf(l, "launches=%lu", &n) == 1 && n > 0, "%s: no iteration counted: %s", ops[i], line);
        cr_expect(strstr(line, " p50_us=") && strstr(line, " max_ms=") && strstr(line, " stalled_s="), "%s", line);
        kc_proc_free(&p);
    }
}

Test(ctx_stall_probe, a_kernel_the_driver_cannot_load_and_bad_arguments_are_refused, .timeout = 60)
{
    kc_proc p = probe("1", "20", "launch");
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "kc_ctx_stall_probe: cuModuleLoadData (PTX) failed: CUDA_ERROR_INVALID_IMAGE"), "%s", p.err);
    kc_proc_free(&p);
    char *bad[][3] = { { "0", "20", "alloc" }, { "1", "0", "alloc" }, { "1", "20", "sleep" }, { "x", NULL, NULL } };
    for (int i = 0; i < 4; i++) {
        p = probe(bad[i][0], bad[i][1], bad[i][2]);
        cr_expect_eq(p.status, 2, "%s %s %s: exit %d\n%s", bad[i][0], bad[i][1] ? bad[i][1] : "",
                     bad[i][2] ? bad[i][2] : "", p.status, p.err);
        cr_expect(strstr(p.err, "usage: kc_ctx_stall_probe SECONDS [THRESHOLD_MS [OP]]"), "%s", p.err);
        kc_proc_free(&p);
    }
}
