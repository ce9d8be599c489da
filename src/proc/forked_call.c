/* forked_call.c — a function run in a forked child, its answer on a pipe
 * (forked_call.h). */
#include "forked_call.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

int kc_forked_call(int (*fn)(void *ctx, void *out), void *ctx, void *out, size_t size, int *rc, int *wstatus)
{
    int p[2];
    *wstatus = 0;
    if (pipe2(p, O_CLOEXEC)) {
        *rc = fn(ctx, out);
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        *rc = fn(ctx, out);
        return 1;
    }
    if (pid == 0) {
        close(p[0]);
        /* The child dies with the process that waits for it: a driver load
         * that hangs, then a SIGTERM to the run, left it hanging, adopted by
         * init, for ever (a red team's find). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        int r = fn(ctx, out);
        fflush(stdout);
        fflush(stderr);
        int ok = write(p[1], &r, sizeof r) == (ssize_t)sizeof r && (!size || write(p[1], out, size) == (ssize_t)size);
        _exit(ok ? 0 : 1);
    }
    close(p[1]);
    int got = read_full(p[0], rc, sizeof *rc) == 0 && (!size || read_full(p[0], out, size) == 0);
    close(p[0]);
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR) {}
    return got ? 0 : -1;
}
