/* sigpipe.h — how the supervisor of a --jobs parent (supervisor.c, for the
 * static shards and the work queue) learns of SIGINT, SIGTERM and SIGCHLD
 * inside its poll loop: a self-pipe the handler writes the signal number to.
 * The work queue also ignores SIGPIPE (a dead worker's stdin gives EPIPE, not
 * death); the static parent writes to no child, so a closed stdout still ends
 * it. One per process: the handler needs the write end in a global, the only
 * one. */
#ifndef KC_SIGPIPE_H
#define KC_SIGPIPE_H
#include <signal.h>

typedef struct kc_sigpipe {
    int rfd;                       /* poll this; read signal numbers (one byte each) */
    struct sigaction old[4];       /* SIGINT, SIGTERM, SIGCHLD, SIGPIPE as they were */
} kc_sigpipe;

/* Installs the handlers and creates the pipe (non-blocking, close-on-exec).
 * Returns 0, or -1 with errno set. */
int kc_sigpipe_install(kc_sigpipe *sp, int ignore_sigpipe);
/* Puts the old dispositions back and closes the pipe. */
void kc_sigpipe_restore(kc_sigpipe *sp);
#endif
