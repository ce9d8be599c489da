/* sigpipe.c — the --jobs parent's self-pipe for signals (sigpipe.h). */
#include "sigpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const int CAUGHT[3] = { SIGINT, SIGTERM, SIGCHLD };
static int sig_w = -1;      /* the pipe's write end, for the handler */

static void on_signal(int signo)
{
    int saved = errno;
    unsigned char b = (unsigned char)signo;
    ssize_t r = write(sig_w, &b, 1);
    (void)r;
    errno = saved;
}

int kc_sigpipe_install(kc_sigpipe *sp, int ignore_sigpipe)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK)) return -1;
    sig_w = p[1];
    sp->rfd = p[0];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < 3; i++) {
        sigaction(CAUGHT[i], &sa, &sp->old[i]);
        sigaddset(&set, CAUGHT[i]);
    }
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, ignore_sigpipe ? &ign : NULL, &sp->old[3]);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    return 0;
}

void kc_sigpipe_restore(kc_sigpipe *sp)
{
    for (int i = 0; i < 3; i++) sigaction(CAUGHT[i], &sp->old[i], NULL);
    sigaction(SIGPIPE, &sp->old[3], NULL);
    close(sp->rfd);
    close(sig_w);
    sp->rfd = sig_w = -1;
}
