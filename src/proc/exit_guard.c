/* exit_guard.c — the on_exit(3) handler that turns an unexpected exit()
 * into a said failure (exit_guard.h). */
#include "exit_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progname.h"

static struct {
    int registered;
    pid_t armed_pid;        /* 0: disarmed; the guard acts only in this process */
    int zero_status;
    char what[256];
} guard;

static void on_exit_handler(int status, void *arg)
{
    (void)arg;
    if (!guard.armed_pid || guard.armed_pid != getpid()) return;
    fflush(stdout);
    kc_say(stderr, "exit(%d) called while %s: the process ended before the run finished\n", status,
            guard.what);
    fflush(stderr);
    _exit(status == 0 ? guard.zero_status : status);
}

int kc_exit_guard_arm(const char *what, int zero_status)
{
    if (!guard.registered) {
        if (on_exit(on_exit_handler, NULL) != 0) {
            kc_say(stderr, "cannot register the exit guard\n");
            return -1;
        }
        guard.registered = 1;
    }
    guard.zero_status = zero_status;
    kc_exit_guard_what(what);
    guard.armed_pid = getpid();
    return 0;
}

void kc_exit_guard_what(const char *what)
{
    snprintf(guard.what, sizeof guard.what, "%s", what ? what : "running");
}

void kc_exit_guard_disarm(void)
{
    guard.armed_pid = 0;
}
