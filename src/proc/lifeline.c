/* lifeline.c — owns the run's cookie and the --parent child's sentinel
 * (lifeline.h: why this design). */
#include "lifeline.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* ---- the sentinel ---- */

#define MAX_PIPES 2

/* What the sentinel knows, filled in by the child before the clone. */
typedef struct sentinel_args {
    pid_t worker, parent;           /* the child it watches, and the run's parent */
    unsigned long long parent_start; /* kc_proc_boot_ticks; 0 unknown */
    char token[80];                 /* the parent's token in the cookie; "" none */
    unsigned long ino[MAX_PIPES];   /* the child's stdout and stderr pipes, when the parent's */
    int nino;
    int own_group;                  /* the child leads its own process group (the supervisor's children do) */
} sentinel_args;

static sentinel_args args;

/* The last ':'-separated word of the child's KC_RUN_COOKIE, when it is
 * parent's ("PARENT.") into tok; else tok "" (no cookie sweep). */
static void parent_token(pid_t parent, char *tok, size_t cap)
{
    tok[0] = 0;
    const char *v = getenv(KC_RUN_COOKIE_VAR);
    if (!v) return;
    const char *last = strrchr(v, ':');
    last = last ? last + 1 : v;
    char want[32];
    snprintf(want, sizeof want, "%ld.", (long)parent);
    if (strncmp(last, want, strlen(want)) == 0 && strlen(last) < cap) snprintf(tok, cap, "%s", last);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
}

/* Whether the run's parent still lives: not gone, not a zombie, and the
 * same process (its start time) as when the child started. */
static int parent_alive(const sentinel_args *a)
{
    char st;
    pid_t pp, pg;
    unsigned long long start;
    if (kc_proc_stat(a->parent, &st, &pp, &pg, &start) == 0)
        return st != 'Z' && st != 'X' && (!a->parent_start || start == a->parent_start);
    if (kc_proc_stat(getpid(), &st, &pp, &pg, &start) == 0) return 0;      /* /proc reads: it is gone */
    return kill(a->parent, 0) == 0 || errno == EPERM;       /* no /proc: a zombie reads alive, so no sweep */
}

/* SIGKILL to p[0..n) (n as a lookup returned: may exceed KC_PROC_MAX, or -1). */
static int kill_all(const pid_t *p, int n)
{
    for (int i = 0; i < n && i < KC_PROC_MAX; i++) kill(p[i], SIGKILL);
    return n > 0 ? n : 0;
}

/* The parent and the worker are gone: every process of the run's cookie,
 * of the worker's group (started before now: a group id cannot be reused
 * while the group has members, but its number may be once it has none) and
 * holding the worker's pipes, killed, in rounds until none is found. */
static void sweep(const sentinel_args *a)
{
    unsigned long long died = kc_proc_boot_ticks() + 1;
    for (int round = 0; round < 100; round++) {
        pid_t p[KC_PROC_MAX];
        int found = 0;
        if (a->own_group) {
            int n = kc_proc_find(a->worker, NULL, 0, died, p, KC_PROC_MAX);
            if (n < 0) kill(-a->worker, SIGKILL);   /* no /proc: the group as such, at least */
            found += kill_all(p, n);
        }
        if (a->nino) found += kill_all(p, kc_proc_find(0, a->ino, a->nino, 0, p, KC_PROC_MAX));
        if (a->token[0]) found += kill_all(p, kc_proc_find_cookie(KC_RUN_COOKIE_VAR, a->token, p, KC_PROC_MAX));
        if (!found) break;
        sleep_ms(10);
    }
}

/* No descriptor of the worker's (its pipes would read as held by a leftover
 * of it); /dev/null on 0..2. */
static void close_all(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 0u, ~0u, 0u) != 0)
#endif
    {
        struct rlimit rl;
        long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (long)rl.rlim_cur : 65536;
        for (long fd = 0; fd < max; fd++) close((int)fd);
    }
    int fd = open("/dev/null", O_RDWR);
    if (fd == 0) {
        dup2(0, 1);
        dup2(0, 2);
    }
}

/* Its own environment's cookie overwritten (/proc/self/environ shows the
 * memory it started with, which getenv points into), so the run's other
 * sentinels, sweeping for the same token, leave it be. */
static void wipe_cookie(void)
{
    char *v = getenv(KC_RUN_COOKIE_VAR);
    for (; v && *v; v++) *v = '-';
}

/* The sentinel: a copy of the worker (clone), which may have had other
 * threads, so it calls nothing that allocates or takes a lock another
 * thread may have held: system calls, and proctree.h's lookups (stack
 * buffers only). It never returns. */
_Noreturn static void sentinel(const sentinel_args *a)
{
    setpgid(0, 0);
    prctl(PR_SET_NAME, "kc-lifeline");
    sigset_t wake;
    sigemptyset(&wake);
    sigaddset(&wake, SIGUSR1);
    sigprocmask(SIG_BLOCK, &wake, NULL);
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    close_all();
    if (chdir("/")) {}              /* it pins no directory of the run's */
    wipe_cookie();
    while (getppid() == a->worker) {
        struct timespec ts = { KC_LIFELINE_WAKE_S, 0 };
        sigtimedwait(&wake, NULL, &ts);
    }
    if (!parent_alive(a)) sweep(a);
    _exit(0);
}

pid_t kc_lifeline_start(pid_t parent, char *why, size_t cap)
{
    pid_t self = getpid();
    const char *had = getenv(KC_LIFELINE_VAR);
    if (had && *had) {                          /* an earlier image of this process (a re-exec) started it */
        char *end, st;
        long v = strtol(had, &end, 10);
        pid_t pp, pg;
        unsigned long long start;
        if (!*end && v > 0 && kc_proc_stat((pid_t)v, &st, &pp, &pg, &start) == 0 && pp == self && st != 'Z' &&
            st != 'X') {
            kc_proc_own((pid_t)v);
            return (pid_t)v;
        }
    }
    sentinel_args *a = &args;
    memset(a, 0, sizeof *a);
    a->worker = self;
    a->parent = parent;
    char st;
    pid_t pp, pg;
    if (kc_proc_stat(parent, &st, &pp, &pg, &a->parent_start)) a->parent_start = 0;
    parent_token(parent, a->token, sizeof a->token);
    a->own_group = getpgrp() == self;
    /* Stdout and stderr, when they are pipes to the parent: a supervisor
     * (the cookie says so) made them and kept only its reading ends, which it
     * holds now; once it is gone, whoever holds one is this process's. Any
     * other pipe may have holders that are none of the run's (a shell's
     * pipeline, a test's reading end, make's jobserver on an inherited
     * descriptor): left alone. */
    for (int fd = 1; fd <= 2 && a->token[0]; fd++) {
        struct stat sb;
        if (fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode) && kc_proc_holds_pipe(parent, (unsigned long)sb.st_ino))
            a->ino[a->nino++] = (unsigned long)sb.st_ino;
    }
    /* clone without an exit signal: wait() and waitpid(-1) do not see it
     * (an item's own wait loop must not wait for it, nor the leak check
     * look at /proc after every item); fork where that is refused. */
    long pid = syscall(SYS_clone, 0ul, NULL, NULL, NULL, 0ul);
    if (pid < 0) pid = fork();
    if (pid < 0) {
        snprintf(why, cap, "no sentinel process: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) sentinel(a);
    kc_proc_own((pid_t)pid);
    char num[24];
    snprintf(num, sizeof num, "%ld", pid);
    setenv(KC_LIFELINE_VAR, num, 1);
    return (pid_t)pid;
}
