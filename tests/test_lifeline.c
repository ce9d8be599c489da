/* test_lifeline.c — issue 21 ("No green that was not earned"), with real
 * processes: a process forked before main (an LD_PRELOAD library's
 * constructor) is no item's: the item PASSes, serially and on workers, and
 * a real leak beside it is still LEAK, naming only the item's process; and
 * the children that predate the run, in proctree's terms. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proctree.h"
#include "support/live.h"
#include "support/run_output.h"
#include "support/spawn.h"

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- a process forked before main (LD_PRELOAD) ---- */

static const char *preload_lib(void)
{
    const char *lib = getenv("KC_PRELOAD_FORK");
    return lib && *lib ? lib : "build/libkc_preload_fork.so";
}

/* Runs the fixture binary with args under the preload library; its helpers'
 * pids (one per process that loaded it) into pids, how many in *npids. */
static kc_proc run_preloaded(char **args, const char *tag, pid_t *pids, int *npids)
{
    static char pre[1024], file[256], pidsvar[300], asan[2048];
    cr_assert_eq(access(preload_lib(), R_OK), 0, "%s: build it with make test", preload_lib());
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", preload_lib());
    kc_tmp_path(file, sizeof file, "preload", tag);
    snprintf(pidsvar, sizeof pidsvar, "KC_PRELOAD_PIDS=%s", file);
    char *env[] = { pre, pidsvar, "KC_PRELOAD_SLEEP_S=5", NULL, NULL };
    const char *ao = getenv("ASAN_OPTIONS");        /* tools/sanitize-test.sh: a library before the runtime */
    if (ao) {
        snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s:verify_asan_link_order=0", ao);
        env[3] = asan;
    }
    kc_proc p = kc_run_fixture_env(args, env, 30);
    *npids = 0;
    FILE *f = fopen(file, "r");
    long v;
    while (f && *npids < 8 && fscanf(f, "%ld", &v) == 1) pids[(*npids)++] = (pid_t)v;
    if (f) fclose(f);
    unlink(file);
    return p;
}

/* The line that names the process forked before main, without blame. */
static void expect_noted(const char *out, pid_t helper)
{
    char want[96];
    snprintf(want, sizeof want, "kcontract: pid %ld (", (long)helper);
    const char *p = strstr(out, want);
    cr_expect(p && strstr(p, "running in this process since before its first item") &&
              strstr(p, "no item was blamed for it"), "no line says that %ld is no item's:\n%s", (long)helper, out);
}

Test(lifeline, a_process_forked_before_main_is_no_items_leak_serially, .timeout = 40)
{
    pid_t pids[8];
    int n;
    char *args[] = { "run", "fixture.pass.00", "fixture.pass.01", NULL };
    kc_proc p = run_preloaded(args, "serial", pids, &n);
    cr_assert_eq(n, 1, "the library forked %d helpers (one expected: the run):\n%s%s", n, p.out, p.err);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "\nPASS   fixture.pass.00  ") && strstr(p.out, "\nPASS   fixture.pass.01  "), "%s", p.out);
    cr_expect(!strstr(p.out, "LEAK"), "%s", p.out);
    expect_noted(p.out, pids[0]);
    cr_expect_eq(kc_out_count(p.out, "no item was blamed"), 1, "said once:\n%s", p.out);
    kc_proc_free(&p);
    if (n) kill(pids[0], SIGKILL);
}

Test(lifeline, a_process_forked_before_main_is_no_items_leak_on_workers, .timeout = 40)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "lifel", "preload");
    pid_t pids[8];
    int n;
    char *args[] = { "run", "fixture.pass.00", "fixture.pass.01", "--jobs", "2", "--costs", costs, NULL };
    kc_proc p = run_preloaded(args, "jobs", pids, &n);
    cr_assert_geq(n, 2, "the library forked %d helpers (the parent's, each worker's):\n%s%s", n, p.out, p.err);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "PASS   fixture.pass.00  ") && strstr(p.out, "PASS   fixture.pass.01  "), "%s", p.out);
    cr_expect(!strstr(p.out, "LEAK") && !strstr(p.out, "CRASH"), "%s", p.out);
    cr_expect_geq(kc_out_count(p.out, "no item was blamed for it"), 1, "%s", p.out);
    kc_proc_free(&p);
    for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
    unlink(costs);
}

/* No false green beside it: the item that does leave a process is LEAK,
 * and its line names that process alone, not the library's. */
Test(lifeline, a_real_leak_beside_a_process_forked_before_main_is_still_LEAK, .timeout = 40)
{
    pid_t pids[8];
    int n;
    char *args[] = { "run", "fixture.leak.pass", "fixture.pass.00", NULL };
    kc_proc p = run_preloaded(args, "leak", pids, &n);
    cr_assert_eq(n, 1, "%s%s", p.out, p.err);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *g = strstr(p.out, "fixture.leak.pass: grandchild pid ");
    cr_assert(g, "%s", p.out);
    char want[160];
    snprintf(want, sizeof want, "LEAK   fixture.leak.pass  left 1 process running after it: pid %ld (",
             atol(g + strlen("fixture.leak.pass: grandchild pid ")));
    cr_expect(strstr(p.out, want), "want '%s' in:\n%s", want, p.out);
    cr_expect(strstr(p.out, "\nPASS   fixture.pass.00  "), "%s", p.out);
    expect_noted(p.out, pids[0]);
    kc_proc_free(&p);
    if (n) kill(pids[0], SIGKILL);
}

/* ---- the pieces ---- */

/* In a process that runs items: a child that was there before the run is
 * neither waited for, killed nor named, and costs the leak check no wait;
 * one started after it is the item's. */
Test(lifeline, children_from_before_the_run_are_no_items, .timeout = 10)
{
    pid_t old = fork();
    cr_assert_geq(old, 0);
    if (old == 0) {
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    usleep(50000);
    cr_assert_eq(kc_proc_adopt_orphans(), 0);
    char what[256], want[64];
    double t0 = mono();
    kc_proc_item_begin();
    cr_expect_eq(kc_proc_end_leftovers(500, NULL, 0, what, sizeof what), 0, "%s", what);
    cr_expect_lt(mono() - t0, 0.2, "no leak timeout for a child from before the run");
    pid_t p[8];
    cr_expect_eq(kc_proc_predating(p, 8), 1);
    cr_expect_eq(p[0], old);
    cr_expect_eq(kc_proc_children(p, 8), 0);
    kc_proc_item_begin();
    pid_t item = fork();
    cr_assert_geq(item, 0);
    if (item == 0) {
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    usleep(50000);
    cr_expect_eq(kc_proc_end_leftovers(100, NULL, 0, what, sizeof what), 1);
    snprintf(want, sizeof want, "pid %ld (sleep)", (long)item);
    cr_expect_str_eq(what, want);
    cr_expect(!kc_alive(item));
    cr_expect(kc_alive(old), "the child from before the run was killed");
    kill(old, SIGKILL);
    waitpid(old, NULL, 0);
}
