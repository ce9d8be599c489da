/* live.c — test support: processes kept running under a test (live.h). */
#include "live.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proctree.h"
#include "spawn.h"

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void kc_live_start(kc_live *l, const char *bin, char **args)
{
    kc_live_start_env(l, bin, args, NULL);
}

void kc_live_start_env(kc_live *l, const char *bin, char **args, char *const *env)
{
    int p[2];
    memset(l, 0, sizeof *l);
    cr_assert_eq(pipe(p), 0);
    char *argv[32] = { (char *)bin };
    int a = 1;
    for (; a < 31 && args[a - 1]; a++) argv[a] = args[a - 1];
    argv[a] = NULL;
    char costs[4096];
    kc_test_costs_path(costs, sizeof costs);
    l->pid = fork();
    cr_assert_geq(l->pid, 0);
    if (l->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* a test that fails or times out leaves nothing running */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        putenv("KC_LIBCUDA=none");
        kc_test_costs_env(costs);
        for (int e = 0; env && env[e]; e++) putenv(env[e]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    l->fd = p[0];
}

int kc_live_read_until(kc_live *l, int (*pred)(const kc_live *), double secs)
{
    double end = mono() + secs;
    while (!pred(l)) {
        int ms = (int)((end - mono()) * 1000);
        if (ms <= 0) return -1;
        struct pollfd pf = { l->fd, POLLIN, 0 };
        if (poll(&pf, 1, ms) <= 0) continue;
        if (l->len + 1 >= sizeof l->out) return -1;
        ssize_t n = read(l->fd, l->out + l->len, sizeof l->out - 1 - l->len);
        if (n <= 0) return pred(l) ? 0 : -1;
        l->len += (size_t)n;
        l->out[l->len] = 0;
    }
    return 0;
}

int kc_alive(pid_t pid)
{
    return kill(pid, 0) == 0 && kc_proc_life_of(pid, NULL, 0) == KC_PROC_RUNNING;
}

int kc_wait_status(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int kc_live_pids(const kc_live *l, pid_t *pids, int max)
{
    int n = 0;
    for (const char *p = l->out; n < max && (p = strstr(p, " pid ")); p += 5) pids[n++] = (pid_t)atol(p + 5);
    return n;
}
