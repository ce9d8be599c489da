/* fork_before_main.c — an LD_PRELOAD library (build/libkc_preload_fork.so,
 * for tests/test_lifeline.c) whose constructor forks a helper before main,
 * as a profiler's or a telemetry agent's library may: the helper puts its
 * descriptors on /dev/null (it holds none of its process's pipes), sleeps
 * $KC_PRELOAD_SLEEP_S seconds (default 5) and exits. The process itself
 * appends the helper's "PID\n" to $KC_PRELOAD_PIDS when that is set, before
 * its main: the file lists the helpers in the order their processes
 * started (the parent's before its workers'; when each helper wrote its
 * own, a slow parent's helper came second, CI run at 0589c49). Every process of the run that loads it
 * (the parent, each worker, a serial run) gets one: no item started it, so
 * no item may be blamed for it (issue 21). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((constructor)) static void kc_preload_fork(void)
{
    pid_t p = fork();
    if (p > 0) {                    /* the process itself: the helper's pid, then on to main */
        const char *path = getenv("KC_PRELOAD_PIDS");
        if (path && *path) {
            char line[32];
            int n = snprintf(line, sizeof line, "%ld\n", (long)p);
            int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
            if (fd >= 0) {
                ssize_t w = write(fd, line, (size_t)n);
                (void)w;
                close(fd);
            }
        }
        return;
    }
    if (p < 0) return;              /* fork failed: no helper */
    for (int fd = 0; fd < 1024; fd++) close(fd);
    int nul = open("/dev/null", O_RDWR);
    if (nul == 0) {
        dup2(0, 1);
        dup2(0, 2);
    }
    const char *s = getenv("KC_PRELOAD_SLEEP_S");
    long secs = s && *s ? atol(s) : 5;
    struct timespec ts = { secs, 0 };
    while (nanosleep(&ts, &ts) != 0) {}
    _exit(0);
}
