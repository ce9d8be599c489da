/* spawn.c — test support: fork/exec with stdout and stderr captured through
 * pipes (poll loop), a wall-clock limit, and the exit status. */
#include "spawn.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int grow_append(char **buf, size_t *len, size_t *cap, const char *src, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 4096);
        while (nc < *len + n + 1) nc *= 2;
        char *nb = realloc(*buf, nc);
        if (!nb) return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, src, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
}

int kc_spawn(char *const argv[], char *const env_extra[], double timeout_s, kc_proc *p)
{
    memset(p, 0, sizeof *p);
    int po[2], pe[2];
    if (pipe(po) || pipe(pe)) return -1;
    char costs[4096];
    kc_test_costs_path(costs, sizeof costs);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        kc_test_costs_env(costs);
        for (int i = 0; env_extra && env_extra[i]; i++) putenv(env_extra[i]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    size_t ocap = 0, ecap = 0;
    grow_append(&p->out, &p->out_len, &ocap, "", 0);
    grow_append(&p->err, &p->err_len, &ecap, "", 0);
    struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
    int open_fds = 2, killed = 0;
    double end = mono() + timeout_s;
    char buf[65536];
    while (open_fds > 0) {
        int ms = (int)((end - mono()) * 1000);
        if (ms <= 0) {
            if (!killed) kill(pid, SIGKILL);
            killed = 1;
            ms = 1000;
        }
        int r = poll(fds, 2, ms);
        if (r < 0 && errno == EINTR) continue;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            } else if (i == 0) {
                grow_append(&p->out, &p->out_len, &ocap, buf, (size_t)n);
            } else {
                grow_append(&p->err, &p->err_len, &ecap, buf, (size_t)n);
            }
        }
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(st)) {
        p->signaled = 1;
        p->status = 128 + WTERMSIG(st);
    } else {
        p->status = WEXITSTATUS(st);
    }
    return 0;
}

void kc_proc_free(kc_proc *p)
{
    free(p->out);
    free(p->err);
    memset(p, 0, sizeof *p);
}

const char *kc_test_bin(void)
{
    const char *b = getenv("KC_BIN");
    return b && *b ? b : "build/kcontract";
}

const char *kc_test_fixture_bin(void)
{
    const char *b = getenv("KC_FIXTURE_BIN");
    return b && *b ? b : "build/kcontract-fixture";
}

const char *kc_test_tmpdir(void)
{
    const char *d = getenv("TMPDIR");
    return d && d[0] ? d : "/tmp";
}

void kc_test_costs_path(char *buf, size_t cap)
{
    const struct criterion_test *t = criterion_current_test;
    if (t)
        snprintf(buf, cap, "%s/kc-costs.%ld.%s.%s.tsv", kc_test_tmpdir(), (long)getppid(), t->category, t->name);
    else    /* outside a test (a hook): this process's own */
        snprintf(buf, cap, "%s/kc-costs.%ld.pid%ld.tsv", kc_test_tmpdir(), (long)getppid(), (long)getpid());
}

void kc_test_costs_env(const char *path)
{
    const char *set = getenv("KC_COSTS");
    if (set && set[0]) return;
    setenv("KC_COSTS", path, 1);
}

/* This run's cost tables (kc_test_costs_path), once the last test has
 * ended: make test requires an empty TMPDIR (each test removes what it
 * makes, and these are the support's); another run's, in a shared /tmp,
 * are left alone. Runs in Criterion's runner process. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    char prefix[64];
    int np = snprintf(prefix, sizeof prefix, "kc-costs.%ld.", (long)getpid());
    DIR *d = opendir(kc_test_tmpdir());
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, (size_t)np) != 0 || n < 4 || strcmp(e->d_name + n - 4, ".tsv") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", kc_test_tmpdir(), e->d_name);
        unlink(path);
    }
    closedir(d);
}
