/* test_lifeline.c — issue 21 ("No green that was not earned"), with real
 * processes:
 *   - nothing a run started survives a SIGKILL of its parent (lifeline.h):
 *     a --jobs parent killed while an item holds a setsid'd helper and a
 *     double-forked daemon with no descriptor of the run's; the same for a
 *     --worker child and a serial run under --parent whose parent (a shell)
 *     is killed — the serial case once serial runs go through a worker. Every
 *     process the run started carries a mark in its environment, so "nothing
 *     survives" is checked over the whole of /proc;
 *   - a run that ends normally leaves nothing either, and the sentinels are
 *     never named as leaks;
 *   - a process forked before main (an LD_PRELOAD library's constructor) is
 *     no item's: the item PASSes, serially and on workers, and a real leak
 *     beside it is still LEAK, naming only the item's process;
 *   - the cookie's pieces: the environment a child gets, the lookup by
 *     token, the children that predate the run. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lifeline.h"
#include "proctree.h"
#include "supervisor.h"
#include "support/live.h"
#include "support/run_output.h"
#include "support/spawn.h"

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A mark no other run carries: "KC_TEST_MARK=<test pid>-<tag>-<ns>". */
static void make_mark(char *buf, size_t cap, const char *tag)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(buf, cap, "KC_TEST_MARK=%ld-%s-%ld", (long)getpid(), tag, ts.tv_nsec);
}

/* Whether pid's environment holds the entry `entry` exactly. */
static int has_entry(pid_t pid, const char *entry)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
        if (strcmp(buf + i, entry) == 0) return 1;
    return 0;
}

/* The live processes (zombies aside) whose environment holds `entry`: up to
 * max into out; how many, named in what. */
static int marked(const char *entry, pid_t *out, int max, char *what, size_t cap)
{
    FILE *ls = popen("ls /proc", "r");
    cr_assert(ls);
    char name[64];
    int n = 0;
    size_t len = 0;
    if (cap) what[0] = 0;
    while (fgets(name, sizeof name, ls)) {
        char *end;
        long v = strtol(name, &end, 10);
        if (v <= 0 || *end != '\n' || v == getpid() || !kc_alive((pid_t)v) || !has_entry((pid_t)v, entry)) continue;
        if (n < max) out[n] = (pid_t)v;
        n++;
        char one[96];
        kc_proc_describe((pid_t[]){ (pid_t)v }, 1, one, sizeof one);
        len += (size_t)snprintf(what + len, len < cap ? cap - len : 0, "%s%s", n > 1 ? ", " : "", one);
        if (len >= cap) len = cap - 1;
    }
    pclose(ls);
    return n;
}

/* Waits up to secs for no live process to carry entry; how many still do. */
static int wait_unmarked(const char *entry, double secs, char *what, size_t cap)
{
    pid_t p[64];
    double end = mono() + secs;
    int n;
    while ((n = marked(entry, p, 64, what, cap)) > 0 && mono() < end) usleep(50000);
    return n;
}

static int wait_dead(pid_t pid, double secs)
{
    double end = mono() + secs;
    while (kc_alive(pid) && mono() < end) usleep(20000);
    return !kc_alive(pid);
}

/* The pid after "<item>: grandchild pid " in out; 0 none yet. */
static pid_t grandchild_of(const char *out, const char *item)
{
    char key[96];
    snprintf(key, sizeof key, "%s: grandchild pid ", item);
    const char *p = strstr(out, key);
    return p ? (pid_t)atol(p + strlen(key)) : 0;
}

/* The pid after "<item> pid " (the worker, or the serial run, running it). */
static pid_t runner_of(const char *out, const char *item)
{
    char key[96];
    snprintf(key, sizeof key, "%s pid ", item);
    const char *p = strstr(out, key);
    return p ? (pid_t)atol(p + strlen(key)) : 0;
}

/* Whether pid is a sentinel (named kc-lifeline) of the run whose parent is
 * `parent` (its command line's SPEC starts with the parent's pid). */
static int is_sentinel_of(pid_t pid, pid_t parent)
{
    char path[64], buf[512], want[32];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    snprintf(want, sizeof want, "%ld ", (long)parent);
    const char *arg1 = buf + strlen(buf) + 1, *arg2 = arg1 < buf + n ? arg1 + strlen(arg1) + 1 : buf + n;
    return strcmp(buf, "kc-lifeline") == 0 && arg2 < buf + n && strncmp(arg2, want, strlen(want)) == 0;
}

/* The live sentinel of the run whose parent is `parent`; 0 none. */
static pid_t sentinel_of(pid_t parent)
{
    FILE *ls = popen("ls /proc", "r");
    cr_assert(ls);
    char name[64];
    pid_t found = 0;
    while (!found && fgets(name, sizeof name, ls)) {
        pid_t v = (pid_t)atol(name);
        if (v > 0 && kc_alive(v) && is_sentinel_of(v, parent)) found = v;
    }
    pclose(ls);
    return found;
}

static int both_hangs_started(const kc_live *l)
{
    return runner_of(l->out, "fixture.leak.hang") && runner_of(l->out, "fixture.leak.daemon") &&
           grandchild_of(l->out, "fixture.leak.hang") && grandchild_of(l->out, "fixture.leak.daemon");
}

/* The case: kill -KILL of a --jobs parent while one item holds a
 * helper that left the group (setsid) and another a daemon that
 * double-forked and closed every descriptor. Within 3 s nothing of the run
 * is left: helpers, daemon, workers and the run's sentinel. With
 * --schedule static the children are serial runs under --parent. */
static void sigkill_of_a_jobs_parent(const char *schedule, const char *tag)
{
    char costs[256], mark[128], what[1024];
    kc_tmp_path(costs, sizeof costs, "lifel", tag);
    make_mark(mark, sizeof mark, tag);
    char *args[] = { "run", "fixture.leak.hang", "fixture.leak.daemon", "--jobs", "2", "--schedule", (char *)schedule,
                     strcmp(schedule, "queue") == 0 ? "--costs" : NULL, costs, NULL };
    char *env[] = { mark, NULL };
    kc_live l;
    kc_live_start_env(&l, kc_test_fixture_bin(), args, env);
    cr_assert_eq(kc_live_read_until(&l, both_hangs_started, 15), 0, "the items did not start:\n%s", l.out);
    pid_t helper = grandchild_of(l.out, "fixture.leak.hang"), daemon = grandchild_of(l.out, "fixture.leak.daemon");
    pid_t w[2] = { runner_of(l.out, "fixture.leak.hang"), runner_of(l.out, "fixture.leak.daemon") };
    pid_t s = sentinel_of(l.pid);
    cr_expect(s > 0, "the run (parent %ld) has no sentinel", (long)l.pid);
    cr_assert(kc_alive(helper) && kc_alive(daemon), "%s", l.out);
    pid_t x[64];
    cr_expect_geq(marked(mark, x, 64, what, sizeof what), 5, "parent, 2 workers, helper, daemon: %s", what);
    cr_assert_eq(kill(l.pid, SIGKILL), 0);
    double t0 = mono();
    cr_expect_eq(kc_wait_status(l.pid), 128 + SIGKILL);
    cr_expect(wait_dead(helper, 3), "the setsid'd helper %ld outlived the parent by 3 s", (long)helper);
    cr_expect(wait_dead(daemon, 3), "the daemon %ld outlived the parent by 3 s", (long)daemon);
    for (int i = 0; i < 2; i++) cr_expect(wait_dead(w[i], 3), "child %ld outlived the parent", (long)w[i]);
    cr_expect(s <= 0 || wait_dead(s, 3), "the sentinel %ld outlived its sweep", (long)s);
    cr_expect_eq(wait_unmarked(mark, 3, what, sizeof what), 0, "still running 3 s after the parent's SIGKILL: %s", what);
    cr_expect_lt(mono() - t0, 3.5);
    close(l.fd);
    unlink(costs);
}

Test(lifeline, sigkill_of_a_jobs_parent_leaves_nothing_the_items_started, .timeout = 40)
{
    sigkill_of_a_jobs_parent("queue", "queue");
}

Test(lifeline, sigkill_of_a_static_parent_leaves_nothing_its_serial_shards_started, .timeout = 40)
{
    sigkill_of_a_jobs_parent("static", "static");
}

/* ---- a parent that is neither the queue nor the static schedule ---- */

static void on_child_line(void *ctx, kc_sup *s, kc_child *c, int stream, const char *line, size_t len, size_t cut)
{
    (void)ctx, (void)s, (void)c, (void)cut;
    if (stream == KC_SUP_RES) return;
    if (write(1, line, len) < 0 || write(1, "\n", 1) < 0) _exit(3);
}

static void on_child_gone(void *ctx, kc_sup *s, kc_child *c) { (void)ctx, (void)s, (void)c; _exit(0); }

static const kc_sup_ops HELPER_OPS = { on_child_line, on_child_gone, NULL };

/* In a forked process of this test: a supervising parent of its own (the
 * supervisor, kc_sup_start, as any parent will use it: the serial run to
 * come, supervising one worker) that starts one --worker with --parent,
 * hands it `item`, prints its lines and waits. Never returns. */
static void be_a_parent(const char *item)
{
    kc_sup sup;
    char parent[32], line[128];
    snprintf(parent, sizeof parent, "%ld", (long)getpid());
    snprintf(line, sizeof line, "%s\n", item);   /* a request: the item's name (worker.h) */
    setenv("KC_LIBCUDA", "none", 1);
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "--worker", "--seed", "1", "--device", "0", "--parent", parent,
                     NULL };
    if (kc_sup_init(&sup, 1, &HELPER_OPS, NULL, 1) ||
        kc_sup_start(&sup, 0, kc_test_fixture_bin(), argv, KC_SUP_STDIN | KC_SUP_RESULT))
        _exit(2);
    kc_sup_mark(&sup.c[0], KC_CHILD_RUNNING);
    kc_sup_write(&sup.c[0], line, strlen(line));
    for (;;) kc_sup_wait(&sup, 0);
}

static int daemon_started(const kc_live *x)
{
    return runner_of(x->out, "fixture.leak.daemon") && grandchild_of(x->out, "fixture.leak.daemon");
}

/* The serial case: serial runs will run their items in a --worker child of
 * a supervising parent, exactly as --jobs workers do. The mechanism is the
 * supervisor's and the child's, not the queue's: a parent made of nothing
 * but the supervisor gets the run's sentinel, and its SIGKILL ends the
 * daemon its worker's item started. */
Test(lifeline, sigkill_of_any_supervising_parent_leaves_nothing_its_worker_started, .timeout = 40)
{
    char mark[128], what[1024];
    make_mark(mark, sizeof mark, "sup");
    int p[2];
    cr_assert_eq(pipe(p), 0);
    kc_live l;
    memset(&l, 0, sizeof l);
    l.pid = fork();
    cr_assert_geq(l.pid, 0);
    if (l.pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* a failing test leaves nothing running */
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        putenv(mark);
        be_a_parent("fixture.leak.daemon");
    }
    close(p[1]);
    l.fd = p[0];
    cr_assert_eq(kc_live_read_until(&l, daemon_started, 15), 0, "the item did not start:\n%s", l.out);
    pid_t daemon = grandchild_of(l.out, "fixture.leak.daemon"), w = runner_of(l.out, "fixture.leak.daemon");
    pid_t s = sentinel_of(l.pid);
    cr_expect(s > 0, "the parent %ld has no sentinel", (long)l.pid);
    cr_assert(kc_alive(daemon));
    cr_assert_eq(kill(l.pid, SIGKILL), 0);
    cr_expect_eq(kc_wait_status(l.pid), 128 + SIGKILL);
    /* 10 s: what is asserted is that nothing outlives the parent, not how
     * fast the sweep is; beside other test runs a 3 s wait once failed */
    cr_expect(wait_dead(daemon, 10), "the daemon %ld outlived the parent by 10 s:\n%s", (long)daemon, l.out);
    cr_expect(wait_dead(w, 10), "the worker %ld outlived its parent", (long)w);
    cr_expect(s <= 0 || wait_dead(s, 10), "the sentinel %ld outlived its sweep", (long)s);
    cr_expect_eq(wait_unmarked(mark, 10, what, sizeof what), 0, "still running 10 s after the SIGKILL: %s", what);
    close(l.fd);
}

/* A run that ends as usual: its sentinel is never named as a leftover and
 * ends with it, and nothing of the run outlives it; the real leak beside
 * it is named alone. */
static int never(const kc_live *l) { (void)l; return 0; }

Test(lifeline, a_finished_run_leaves_no_sentinel_and_names_none, .timeout = 40)
{
    char costs[256], mark[128], what[1024];
    kc_tmp_path(costs, sizeof costs, "lifel", "done");
    make_mark(mark, sizeof mark, "done");
    char *args[] = { "run", "fixture.pass.*", "fixture.leak.pass", "--jobs", "2", "--costs", costs, NULL };
    char *env[] = { mark, NULL };
    kc_live l;
    kc_live_start_env(&l, kc_test_fixture_bin(), args, env);
    pid_t s = 0;
    double end = mono() + 20;
    while (!(s = sentinel_of(l.pid)) && kc_alive(l.pid) && mono() < end) usleep(10000);
    cr_expect(s > 0, "the run (parent %ld) had no sentinel", (long)l.pid);
    kc_live_read_until(&l, never, 30);         /* to the end of its output */
    int st = kc_wait_status(l.pid);
    cr_expect_eq(st, 1, "the leak fails the run: exit %d\n%s", st, l.out);
    cr_expect(strstr(l.out, "LEAK   fixture.leak.pass  left 1 process running after it: pid "), "%s", l.out);
    cr_expect(!strstr(l.out, "kc-lifeline") && !strstr(l.out, "sentinel"), "a sentinel was named:\n%s", l.out);
    cr_expect(!strstr(l.out, "left processes behind") && !strstr(l.out, "running after it ended"), "%s", l.out);
    cr_expect_eq(kc_out_count(l.out, "PASS   fixture.pass."), 12, "%s", l.out);
    cr_expect(s <= 0 || !kc_alive(s), "the sentinel %ld outlived its run", (long)s);
    cr_expect_eq(wait_unmarked(mark, 2, what, sizeof what), 0, "after the run: %s", what);
    close(l.fd);
    unlink(costs);
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
    snprintf(want, sizeof want, "kcontract-fixture: pid %ld (", (long)helper);
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
    /* A serial run is a parent and its worker (issue 21): the library forks in both. */
    cr_assert_eq(n, 2, "the library forked %d helpers (two expected: the parent's, the worker's):\n%s%s", n, p.out,
                 p.err);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "\nPASS   fixture.pass.00  ") && strstr(p.out, "\nPASS   fixture.pass.01  "), "%s", p.out);
    cr_expect(!strstr(p.out, "LEAK"), "%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "no item was blamed"), 1, "said once (by the worker):\n%s", p.out);
    kc_proc_free(&p);
    for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
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
    cr_assert_eq(n, 2, "the parent's and the worker's: %s%s", p.out, p.err);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *g = strstr(p.out, "fixture.leak.pass: grandchild pid ");
    cr_assert(g, "%s", p.out);
    char want[160];
    snprintf(want, sizeof want, "LEAK   fixture.leak.pass  left 1 process running after it: pid %ld (",
             atol(g + strlen("fixture.leak.pass: grandchild pid ")));
    cr_expect(strstr(p.out, want), "want '%s' in:\n%s", want, p.out);
    cr_expect(strstr(p.out, "\nPASS   fixture.pass.00  "), "%s", p.out);
    expect_noted(p.out, pids[1]);      /* the worker's (the parent's helper is its own, before any worker) */
    kc_proc_free(&p);
    for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
}

/* ---- the pieces ---- */

Test(lifeline, a_childs_environment_carries_this_processs_token_after_any_outer_runs)
{
    const char *tok = kc_lifeline_token();
    char want[64];
    snprintf(want, sizeof want, "%ld.", (long)getpid());
    cr_expect_eq(strncmp(tok, want, strlen(want)), 0, "%s", tok);
    cr_expect_str_eq(kc_lifeline_token(), tok, "computed once");
    unsetenv(KC_RUN_COOKIE_VAR);
    char **e = kc_lifeline_env();
    cr_assert(e);
    char entry[200];
    snprintf(entry, sizeof entry, "%s=%s", KC_RUN_COOKIE_VAR, tok);
    int found = 0, n = 0;
    for (; e[n]; n++) found += strcmp(e[n], entry) == 0;
    cr_expect_eq(found, 1);
    kc_lifeline_env_free(e);
    setenv(KC_RUN_COOKIE_VAR, "1.2.outer", 1);
    e = kc_lifeline_env();
    snprintf(entry, sizeof entry, "%s=1.2.outer:%s", KC_RUN_COOKIE_VAR, tok);
    found = 0;
    int old = 0;
    for (int i = 0; e[i]; i++) {
        found += strcmp(e[i], entry) == 0;
        old += strncmp(e[i], KC_RUN_COOKIE_VAR "=", strlen(KC_RUN_COOKIE_VAR) + 1) == 0;
    }
    cr_expect_eq(found, 1, "the outer run's token kept, this one's after it");
    cr_expect_eq(old, 1, "one cookie variable");
    kc_lifeline_env_free(e);
    unsetenv(KC_RUN_COOKIE_VAR);
}

/* A child started with a cookie is found by each of its words, and only by
 * whole words; after it left its group and closed its descriptors too. */
Test(lifeline, processes_are_found_by_a_whole_word_of_their_cookie, .timeout = 10)
{
    pid_t c = fork();
    cr_assert_geq(c, 0);
    if (c == 0) {
        setsid();
        for (int fd = 0; fd < 64; fd++) close(fd);
        char *const argv[] = { "sleep", "30", NULL };
        char *const envp[] = { "A=1", KC_RUN_COOKIE_VAR "=11.22.aa:33.44.bb", "Z=2", NULL };
        execve("/bin/sleep", argv, envp);
        _exit(127);
    }
    usleep(100000);
    pid_t out[8];
    const char *hit[] = { "11.22.aa", "33.44.bb" }, *miss[] = { "11.22.a", "3.44.bb", "22.aa", "11.22.aa:33.44.bb" };
    for (int i = 0; i < 2; i++) {
        int n = kc_proc_find_cookie(KC_RUN_COOKIE_VAR, hit[i], out, 8);
        cr_expect_eq(n, 1, "%s: %d", hit[i], n);
        cr_expect_eq(out[0], c);
    }
    for (int i = 0; i < 4; i++) cr_expect_eq(kc_proc_find_cookie(KC_RUN_COOKIE_VAR, miss[i], out, 8), 0, "%s", miss[i]);
    cr_expect_eq(kc_proc_find_cookie("B", "11.22.aa", out, 8), 0, "another variable");
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
}

/* A child running `sleep 30`, exec'd (named sleep) when this returns. */
static pid_t start_sleep(void)
{
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    usleep(50000);
    return p;
}

/* start_sleep, then this process adopts orphans: the child is from before
 * the run (kc_proc_adopt_orphans takes the run's start). */
static pid_t child_from_before_the_run(void)
{
    pid_t old = start_sleep();
    cr_assert_eq(kc_proc_adopt_orphans(), 0);
    return old;
}

/* In a process that runs items: a child that was there before the run is
 * neither waited for, killed nor named, and costs the leak check no wait;
 * one started after it is the item's. */
Test(lifeline, children_from_before_the_run_are_no_items, .timeout = 10)
{
    pid_t old = child_from_before_the_run();
    char what[256], want[64];
    double t0 = mono();
    kc_proc_item_begin(0);
    cr_expect_eq(kc_proc_end_leftovers(500, NULL, 0, what, sizeof what), 0, "%s", what);
    cr_expect_lt(mono() - t0, 0.2, "no leak timeout for a child from before the run");
    pid_t p[8];
    cr_expect_eq(kc_proc_predating(p, 8), 1);
    cr_expect_eq(p[0], old);
    cr_expect_eq(kc_proc_children(p, 8), 0);
    kc_proc_item_begin(0);
    pid_t item = start_sleep();
    cr_expect_eq(kc_proc_end_leftovers(100, NULL, 0, what, sizeof what), 1);
    snprintf(want, sizeof want, "pid %ld (sleep)", (long)item);
    cr_expect_str_eq(what, want);
    cr_expect(!kc_alive(item));
    cr_expect(kc_alive(old), "the child from before the run was killed");
    kill(old, SIGKILL);
    waitpid(old, NULL, 0);
}

/* The first review of stop 50: with a child from before the run, an item
 * run alone while a worker's items are in flight took every child as from
 * before it, so a lane item's leftover (a child here too) went unnamed.
 * With items beside it (kc_proc_item_begin(1)) the list is kept, and that
 * child is an item's; with none, what runs before an item is no item's. */
Test(lifeline, leftovers_of_items_in_flight_are_not_taken_as_from_before_an_item, .timeout = 10)
{
    pid_t old = child_from_before_the_run();
    pid_t lane[2];
    char what[256], want[64];
    for (int beside = 1; beside >= 0; beside--) {
        lane[beside] = start_sleep();       /* an item in flight's leftover, running as the next item begins */
        kc_proc_item_begin(beside);
        int n = kc_proc_end_leftovers(100, NULL, 0, what, sizeof what);
        if (beside) {
            cr_expect_eq(n, 1, "%s", what);
            snprintf(want, sizeof want, "pid %ld (sleep)", (long)lane[beside]);
            cr_expect_str_eq(what, want);
            cr_expect(!kc_alive(lane[beside]), "the leftover of an item in flight lives on, unnamed");
        } else {
            cr_expect_eq(n, 0, "nothing in flight: a child there before the item is no item's: %s", what);
            kill(lane[beside], SIGKILL);
            waitpid(lane[beside], NULL, 0);
        }
    }
    cr_expect(kc_alive(old), "the child from before the run was killed");
    kill(old, SIGKILL);
    waitpid(old, NULL, 0);
}
