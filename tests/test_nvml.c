/* test_nvml.c — NVML loaded at run time, against build/libfake_nvml.so
 * (tests/fake/fake_nvml.c: one device at PCI bus id 0000:3B:00.0, its
 * process list read from a file at every query): per-process MiB rounded up,
 * a device that is not there, a list longer than the first buffer, and the
 * sampler's peak per pid (reset by each take, -1 for a pid never listed). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvml.h"
#include "support/spawn.h"

static char procs[128];

static void set_procs(const char *text)
{
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.new", procs);
    FILE *f = fopen(tmp, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
    cr_assert_eq(rename(tmp, procs), 0);   /* the sampler thread never sees half a file */
}

static void use_fake(void)
{
    const char *lib = getenv("KC_FAKE_NVML");
    if (!lib || !*lib) lib = "build/libfake_nvml.so";
    if (access(lib, R_OK)) cr_skip_test("%s not built", lib);
    setenv("KC_LIBNVML", lib, 1);
    snprintf(procs, sizeof procs, "%s/kc_test_nvml_%ld", kc_test_tmpdir(), (long)getpid());
    setenv("KC_FAKE_NVML_PROCS", procs, 1);
    set_procs("");
    char why[512];
    cr_assert_eq(kc_nvml_init(why, sizeof why), 0, "%s", why);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

Test(nvml, pid_memory_by_pci_bus_id)
{
    use_fake();
    char why[512] = "";
    set_procs("100 1048576\n4242 1048577\n");
    cr_expect_eq(kc_nvml_pid_mib("0000:3B:00.0", 4242, why, sizeof why), 2, "rounded up: %s", why);
    cr_expect_eq(kc_nvml_pid_mib("0000:3B:00.0", 100, why, sizeof why), 1);
    cr_expect_eq(kc_nvml_pid_mib("0000:3B:00.0", 7, why, sizeof why), 0, "not listed: no memory");
    cr_expect_eq(kc_nvml_pid_mib("0000:AF:00.0", 4242, why, sizeof why), -1);
    cr_expect(strstr(why, "0000:AF:00.0") && strstr(why, "Not Found"), "%s", why);
    /* more processes than the first buffer holds */
    char *big = malloc(200 * 32), *p = big;
    for (int i = 1; i <= 200; i++) p += sprintf(p, "%d %d\n", i, i << 20);
    set_procs(big);
    free(big);
    cr_expect_eq(kc_nvml_pid_mib("0000:3B:00.0", 150, why, sizeof why), 150, "%s", why);
    unlink(procs);
}

Test(nvml, sampler_keeps_each_pids_peak)
{
    use_fake();
    cr_assert_eq(kc_gpu_sampler_start(100), 0);
    cr_assert_eq(kc_gpu_sampler_watch_bus(4242, "0000:3B:00.0"), 0);
    cr_assert_eq(kc_gpu_sampler_watch_bus(4343, "0000:3B:00.0"), 0);
    cr_expect_eq(kc_gpu_sampler_take_peak(9999), -1, "not watched");
    set_procs("4242 524288000\n");              /* 500 MiB for a while ... */
    sleep_ms(350);
    set_procs("4242 10485760\n");               /* ... then 10 MiB */
    cr_expect_eq(kc_gpu_sampler_take_peak(4242), 500, "the peak, not the last sample");
    cr_expect_eq(kc_gpu_sampler_take_peak(4242), 10, "a take starts a new peak");
    cr_expect_eq(kc_gpu_sampler_take_peak(4343), -1, "never listed: unknown");
    set_procs("");
    cr_expect_eq(kc_gpu_sampler_take_peak(4242), 0, "listed before, gone now: no memory");
    kc_gpu_sampler_unwatch(4242);
    cr_expect_eq(kc_gpu_sampler_take_peak(4242), -1, "unwatched");
    kc_gpu_sampler_stop();
    unlink(procs);
}

Test(nvml, absent_gives_minus_one_and_says_why_once, .init = cr_redirect_stderr)
{
    setenv("KC_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
    char why[512] = "";
    cr_expect_eq(kc_nvml_init(why, sizeof why), -1);
    cr_expect(strstr(why, "/nonexistent/libnvidia-ml.so.1 not found"), "%s", why);
    cr_expect_eq(kc_nvml_pid_mib("0000:01:00.0", (long)getpid(), why, sizeof why), -1);
    cr_expect_eq(kc_gpu_sampler_start(0), -1);
    cr_expect_eq(kc_gpu_sampler_start(0), -1);
    fflush(stderr);
    char err[2048];
    size_t n = fread(err, 1, sizeof err - 1, cr_get_redirected_stderr());
    err[n] = 0;
    const char *say = "kcontract: no GPU memory figures: /nonexistent/libnvidia-ml.so.1 not found";
    cr_expect(strstr(err, say) && !strstr(strstr(err, say) + 1, say), "said once: %s", err);
    cr_expect_eq(kc_gpu_sampler_watch_bus((long)getpid(), "0000:01:00.0"), -1);
    cr_expect_eq(kc_gpu_sampler_take_peak((long)getpid()), -1);
    kc_gpu_sampler_unwatch((long)getpid());
    kc_gpu_sampler_stop();
}
