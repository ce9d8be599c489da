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
/* A thread's own "what" (kc_exit_guard_thread_what): an item running on a
 * thread beside others; "" for the process's. */
static __thread char thread_what[256];

static void on_exit_handler(int status, void *arg)
{
    (void)arg;
    if (!guard.armed_pid || guard.armed_pid != getpid()) return;
    fflush(stdout);
    kc_say(stderr, "exit(%d) called while %s: the process ended before the run finished\n", status,
            thread_what[0] ? thread_what : guard.what);
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

void kc_exit_guard_thread_what(const char *what)
{
    snprintf(thread_what, sizeof thread_what, "%s", what ? what : "");
}

void kc_exit_guard_disarm(void)
{
    guard.armed_pid = 0;
}
