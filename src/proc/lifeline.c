/* lifeline.c — owns the run's cookie and the run's sentinel (lifeline.h:
 * why this design): the sentinel's own life, and the parent's side. */
#include "lifeline.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proctree.h"

extern char **environ;

/* ---- the cookie ---- */

static char token[80];
static pid_t token_pid;             /* the process token[] is of (a fork computes its own) */

const char *kc_lifeline_token(void)
{
    pid_t self = getpid();
    if (token_pid == self) return token;
    char st;
    pid_t pp, pg;
    unsigned long long start = 0;
    uint64_t r = 0;
    if (kc_proc_stat(self, &st, &pp, &pg, &start)) start = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {     /* no entropy yet: the clock */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^ ((uint64_t)self << 32);
    }
    snprintf(token, sizeof token, "%ld.%llu.%016llx", (long)self, start, (unsigned long long)r);
    token_pid = self;
    return token;
}

char **kc_lifeline_env(void)
{
    const char *tok = kc_lifeline_token();
    size_t n = 0, vl = strlen(KC_RUN_COOKIE_VAR);
    while (environ && environ[n]) n++;
    char **envp = calloc(n + 2, sizeof *envp);
    if (!envp) return NULL;
    const char *old = NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!old && strncmp(environ[i], KC_RUN_COOKIE_VAR, vl) == 0 && environ[i][vl] == '=') {
            old = environ[i] + vl + 1;
            continue;
        }
        envp[m++] = environ[i];
    }
    size_t cap = vl + (old ? strlen(old) + 1 : 0) + strlen(tok) + 2;
    char *ours = malloc(cap);
    if (!ours) {
        free(envp);
        errno = ENOMEM;
        return NULL;
    }
    snprintf(ours, cap, "%s=%s%s%s", KC_RUN_COOKIE_VAR, old && *old ? old : "", old && *old ? ":" : "", tok);
    envp[m++] = ours;               /* last: the pointer kc_lifeline_env_free frees */
    envp[m] = NULL;
    return envp;
}

void kc_lifeline_env_free(char **envp)
{
    if (!envp) return;
    size_t m = 0;
    while (envp[m]) m++;
    if (m) free(envp[m - 1]);
    free(envp);
}

/* ---- the sentinel, in its own process ---- */

#define SENTINEL_ARG0 "kc-lifeline"
#define SENTINEL_FLAG "--kc-lifeline-sentinel"
#define MAX_CHILDREN 1024
#define MAX_PIPES 2

typedef struct run_child {
    pid_t pid;                      /* also its process group */
    int nino;
    unsigned long ino[MAX_PIPES];   /* its stdout and stderr pipes */
} run_child;

typedef struct sentinel_state {
    pid_t parent;
    char token[80];                 /* the parent's token; "" none */
    run_child c[MAX_CHILDREN];      /* the parent's live --parent children */
    int n;
} sentinel_state;

/* One line from the parent: "+PID NINO INO INO" or "-PID". */
static void on_line(sentinel_state *s, const char *line)
{
    long pid;
    if (line[0] == '+') {
        run_child c = { 0 };
        if (sscanf(line + 1, "%ld %d %lu %lu", &pid, &c.nino, &c.ino[0], &c.ino[1]) != 4 || pid <= 0 || c.nino < 0 ||
            c.nino > MAX_PIPES || s->n >= MAX_CHILDREN)
            return;
        c.pid = (pid_t)pid;
        s->c[s->n++] = c;
    } else if (line[0] == '-' && sscanf(line + 1, "%ld", &pid) == 1) {
        for (int i = 0; i < s->n; i++)
            if (s->c[i].pid == (pid_t)pid) {
                s->c[i] = s->c[--s->n];
                break;
            }
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
}

/* SIGKILL to p[0..n) (n as a lookup returned: may exceed KC_PROC_MAX, or -1). */
static int kill_all(const pid_t *p, int n)
{
    for (int i = 0; i < n && i < KC_PROC_MAX; i++) kill(p[i], SIGKILL);
    return n > 0 ? n : 0;
}

/* The parent is dead: every carrier of its token, every member of a live
 * child's group (started before now: a group id cannot be reused while the
 * group has members, but its number may be once it has none) and every
 * holder of a live child's pipes, killed, in rounds until none is found. */
static void sweep(const sentinel_state *s)
{
    unsigned long long now = kc_proc_boot_ticks() + 1;
    for (int round = 0; round < 100; round++) {
        pid_t p[KC_PROC_MAX];
        int found = 0;
        for (int i = 0; i < s->n; i++) {
            const run_child *c = &s->c[i];
            int n = kc_proc_find(c->pid, NULL, 0, now, p, KC_PROC_MAX);
            if (n < 0) kill(-c->pid, SIGKILL);      /* no /proc: the group as such, at least */
            found += kill_all(p, n);
            if (c->nino) found += kill_all(p, kc_proc_find(0, c->ino, c->nino, 0, p, KC_PROC_MAX));
        }
        if (s->token[0]) found += kill_all(p, kc_proc_find_cookie(KC_RUN_COOKIE_VAR, s->token, p, KC_PROC_MAX));
        if (!found) break;
        sleep_ms(10);
    }
}

/* Descriptors: 0 the parent's pipe, 1 and 2 /dev/null, no other (the
 * parent's, inherited across the exec, would read as held by it). */
static void keep_only_the_pipe(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 1u, ~0u, 0u) != 0)
#endif
    {
        struct rlimit rl;
        long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (long)rl.rlim_cur : 65536;
        for (long fd = 1; fd < max; fd++) close((int)fd);
    }
    if (open("/dev/null", O_RDWR) == 1) dup2(1, 2);
}

static void on_wake(int signo) { (void)signo; }

/* The sentinel's life: reads the parent's lines until the parent is dead,
 * then sweeps. Dead means this process was reparented (getppid(); the death
 * signal says when): the end of file on the parent's socket comes as its
 * descriptors close, while it is still exiting, or when it exec'd (its end
 * is close-on-exec), after which it stays our parent: then, after 1 s, the
 * sentinel exits without a sweep. Never returns. */
_Noreturn static void sentinel(sentinel_state *s)
{
    setpgid(0, 0);
    prctl(PR_SET_NAME, SENTINEL_ARG0);
    keep_only_the_pipe();
    if (chdir("/")) {}              /* it pins no directory of the run's */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_wake;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigset_t wake, none;
    sigemptyset(&wake);
    sigaddset(&wake, SIGUSR1);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &wake, NULL);     /* the parent blocked every signal around its start */
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    char buf[4096];
    size_t len = 0;
    int eof = 0;
    while (getppid() == s->parent) {
        if (eof) {                  /* dying (reparented any moment now) or exec'd (never) */
            struct timespec t = { 1, 0 };
            if (ppoll(NULL, 0, &t, &none) == 0 && getppid() == s->parent) _exit(0);
            continue;
        }
        struct pollfd pf = { 0, POLLIN, 0 };
        if (ppoll(&pf, 1, NULL, &none) < 0) continue;      /* SIGUSR1: look at getppid() */
        ssize_t got = read(0, buf + len, sizeof buf - 1 - len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            eof = 1;
            continue;
        }
        len += (size_t)got;
        buf[len] = 0;
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n'))) {
            *nl = 0;
            on_line(s, line);
            line = nl + 1;
        }
        len = strlen(line);
        if (len == sizeof buf - 1) len = 0;         /* no line is that long */
        memmove(buf, line, len);
    }
    sweep(s);
    _exit(0);
}

/* The sentinel's entry: this binary exec'd as "kc-lifeline
 * --kc-lifeline-sentinel 'PARENT TOKEN'" (start_sentinel). A
 * constructor of the first priority, so it runs before the program's others
 * (the contracts' registrations) and none of them, nor main, runs; glibc
 * passes (argc, argv, envp) to constructors. No other command line matches. */
__attribute__((constructor(101))) static void sentinel_entry(int argc, char **argv, char **envp)
{
    (void)envp;
    static sentinel_state s;
    long parent;
    if (argc != 3 || !argv || strcmp(argv[0], SENTINEL_ARG0) != 0 || strcmp(argv[1], SENTINEL_FLAG) != 0) return;
    if (sscanf(argv[2], "%ld %79s", &parent, s.token) != 2 || parent <= 0) _exit(2);
    s.parent = (pid_t)parent;
    if (strcmp(s.token, "-") == 0) s.token[0] = 0;
    sentinel(&s);
}

/* ---- the parent's side ---- */

static pid_t sentinel_pid, sentinel_owner;      /* the run's sentinel, and the process it watches */
static int sentinel_fd = -1;                    /* our end of its socket */

pid_t kc_lifeline_sentinel(void)
{
    return sentinel_owner == getpid() ? sentinel_pid : 0;
}

/* At this process's normal exit (its children are gone: nothing left to
 * guard): the sentinel is ended and reaped. Not in a forked copy of this
 * process that calls exit(). */
static void end_sentinel(void)
{
    if (getpid() != sentinel_owner || sentinel_pid <= 0) return;
    kill(sentinel_pid, SIGKILL);
    while (waitpid(sentinel_pid, NULL, __WALL) < 0 && errno == EINTR) {}
    close(sentinel_fd);
    sentinel_fd = -1;
    sentinel_pid = 0;
}

typedef struct exec_ctx {
    char *const *argv, *const *envp;
    int fd;                         /* the sentinel's end of the socket, on its fd 0 */
    volatile int err;               /* the child's errno (it shares this memory until it execs) */
} exec_ctx;

/* The clone's child (CLONE_VM | CLONE_VFORK: on its own stack, in this
 * process's memory, this process suspended): fd 0 and exec, nothing else. */
static int exec_sentinel(void *p)
{
    exec_ctx *x = p;
    if (dup2(x->fd, 0) == 0) execve("/proc/self/exe", x->argv, x->envp);
    x->err = errno ? errno : ENOEXEC;
    _exit(127);
}

/* Starts the run's sentinel: this binary exec'd (a fresh process: nothing
 * of ours shared copy-on-write), without an exit signal (a "clone" child:
 * wait() and waitpid(-1) do not see it). The loader's LD_LIBRARY_PATH is
 * kept; nothing else of the environment (no LD_PRELOAD, no cookie). */
static int start_sentinel(char *why, size_t cap)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(why, cap, "socketpair: %s", strerror(errno));
        return -1;
    }
    char spec[160], ldp[4096];
    pid_t self = getpid();
    snprintf(spec, sizeof spec, "%ld %s", (long)self, kc_lifeline_token());
    char *argv[] = { SENTINEL_ARG0, SENTINEL_FLAG, spec, NULL };
    char *envp[2] = { NULL, NULL };
    const char *lp = getenv("LD_LIBRARY_PATH");
    if (lp && snprintf(ldp, sizeof ldp, "LD_LIBRARY_PATH=%s", lp) < (int)sizeof ldp) envp[0] = ldp;
    size_t ssz = 64 * 1024;
    char *stack = mmap(NULL, ssz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    exec_ctx x = { argv, envp, sv[1], 0 };
    pid_t pid = -1;
    int e = ENOMEM;
    if (stack != MAP_FAILED) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);   /* no handler of ours may run on the child's stack */
        pid = clone(exec_sentinel, stack + ssz, CLONE_VM | CLONE_VFORK, &x);     /* no exit signal */
        e = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        munmap(stack, ssz);
    }
    close(sv[1]);
    if (pid > 0 && x.err) {                     /* it could not exec: reap it (a clone child: __WALL) */
        waitpid(pid, NULL, __WALL);
        pid = -1;
        e = x.err;
    }
    if (pid < 0) {
        close(sv[0]);
        snprintf(why, cap, "cannot start the run's sentinel: %s", strerror(e));
        return -1;
    }
    kc_proc_own(pid);
    if (sentinel_owner == 0) atexit(end_sentinel);  /* once per image (a fork's copy checks its pid) */
    sentinel_pid = pid;
    sentinel_owner = self;
    sentinel_fd = sv[0];
    return 0;
}

/* A line to the sentinel, never blocking nor raising SIGPIPE (a sentinel
 * killed by hand costs the run its guard, nothing else). */
static void tell(const char *line, size_t len)
{
    if (sentinel_fd >= 0) send(sentinel_fd, line, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int kc_lifeline_started(pid_t pid, const unsigned long *ino, int nino, char *why, size_t cap)
{
    if (sentinel_owner != getpid() && start_sentinel(why, cap)) return -1;
    char line[128];
    int n = snprintf(line, sizeof line, "+%ld %d %lu %lu\n", (long)pid, nino > MAX_PIPES ? MAX_PIPES : nino,
                     nino > 0 ? ino[0] : 0, nino > 1 ? ino[1] : 0);
    tell(line, (size_t)n);
    return 0;
}

void kc_lifeline_gone(pid_t pid)
{
    if (sentinel_owner != getpid()) return;
    char line[32];
    int n = snprintf(line, sizeof line, "-%ld\n", (long)pid);
    tell(line, (size_t)n);
}
