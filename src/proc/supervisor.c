/* supervisor.c — owns the child processes of a --jobs parent: spawning,
 * states, reaping, signals passed on, stops, and the leak timeout
 * (supervisor.h). The only global is the self-pipe's write end (sigpipe.c). */
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "lifeline.h"
#include "proctree.h"
#include "progname.h"
#include "signame.h"

double kc_sup_now(void) { return kc_now_s(); }

void kc_sup_describe_status(int wstatus, char *buf, size_t cap)
{
    char sb[32];
    if (wstatus == KC_SUP_STATUS_TAKEN)
        snprintf(buf, cap, "ended, its exit status taken by another wait of this process (unknown)");
    else if (WIFSIGNALED(wstatus))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(wstatus), kc_signal_name(WTERMSIG(wstatus), sb, sizeof sb));
    else
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(wstatus));
}

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static int alive(const kc_child *c)
{
    return c->state == KC_CHILD_STARTING || c->state == KC_CHILD_IDLE || c->state == KC_CHILD_RUNNING ||
           c->state == KC_CHILD_STOPPING;
}

static int pipes_open(const kc_child *c)
{
    for (int k = 0; k < KC_SUP_STREAMS; k++)
        if (c->fd[k] >= 0) return 1;
    return 0;
}

/* ---- the run's sentinel (lifeline.h) ---- */

/* Whether argv starts a run's child: one that checks its parent (--parent,
 * jobs.h), a worker or a shard. */
static int has_parent_option(char *const argv[])
{
    for (int i = 1; argv[i]; i++)
        if (strcmp(argv[i], "--parent") == 0) return 1;
    return 0;
}

/* c, a run's child, to the run's sentinel: its group and its stdout and
 * stderr pipes (lifeline.h); said once when there is no sentinel. */
static void tell_sentinel(kc_child *c)
{
    static int said;
    unsigned long ino[2];
    int nino = 0;
    struct stat st;
    for (int k = KC_SUP_OUT; k <= KC_SUP_ERR; k++)
        if (c->fd[k] >= 0 && fstat(c->fd[k], &st) == 0) ino[nino++] = (unsigned long)st.st_ino;
    char why[256];
    if (kc_lifeline_started(c->pid, ino, nino, why, sizeof why) == 0) c->run_child = 1;
    else if (!said++)
        kc_say(stderr, "%s; what the run's items start may outlive a SIGKILL of this process\n", why);
}

/* c is gone or killed and reaped: the run's sentinel forgets it. */
static void forget_child(kc_child *c)
{
    if (c->run_child) kc_lifeline_gone(c->pid);
    c->run_child = 0;
}

/* ---- setting up and tearing down ---- */

int kc_sup_init(kc_sup *s, int n, const kc_sup_ops *ops, void *ctx, int ignore_sigpipe)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->ops = ops;
    s->ctx = ctx;
    s->sp.rfd = -1;
    s->c = calloc((size_t)(n ? n : 1), sizeof *s->c);
    s->pf = calloc((size_t)n * KC_SUP_STREAMS + 1, sizeof *s->pf);
    s->who = calloc((size_t)n * KC_SUP_STREAMS + 1, sizeof *s->who);
    if (!s->c || !s->pf || !s->who) goto fail;
    for (int i = 0; i < n; i++) {
        kc_child *c = &s->c[i];
        c->slot = i;
        c->in = -1;
        for (int k = 0; k < KC_SUP_STREAMS; k++) c->fd[k] = -1;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < KC_SUP_STREAMS; k++)
            if (kc_linebuf_init(&s->c[i].lb[k])) goto fail;
    if (kc_sigpipe_install(&s->sp, ignore_sigpipe)) goto fail;
    return 0;
fail:
    for (int i = 0; s->c && i < n; i++)
        for (int k = 0; k < KC_SUP_STREAMS; k++) kc_linebuf_free(&s->c[i].lb[k]);
    free(s->c);
    free(s->pf);
    free(s->who);
    memset(s, 0, sizeof *s);
    s->sp.rfd = -1;
    errno = ENOMEM;
    return -1;
}

void kc_sup_free(kc_sup *s)
{
    for (int i = 0; s->c && i < s->n; i++) {
        kc_child *c = &s->c[i];
        if (alive(c)) {
            kill(-c->pid, SIGKILL);
            while (waitpid(c->pid, &c->wstatus, 0) < 0 && errno == EINTR) {}
        }
        forget_child(c);
        close_fd(&c->in);
        for (int k = 0; k < KC_SUP_STREAMS; k++) {
            close_fd(&c->fd[k]);
            kc_linebuf_free(&c->lb[k]);
        }
    }
    if (s->sp.rfd >= 0) kc_sigpipe_restore(&s->sp);
    free(s->c);
    free(s->pf);
    free(s->who);
    memset(s, 0, sizeof *s);
    s->sp.rfd = -1;
}

void kc_sup_pause(kc_sup *s)
{
    if (s->sp.rfd >= 0) kc_sigpipe_restore(&s->sp);
    s->sp.rfd = -1;
}

int kc_sup_resume(kc_sup *s, int ignore_sigpipe)
{
    return s->sp.rfd >= 0 ? 0 : kc_sigpipe_install(&s->sp, ignore_sigpipe);
}

/* ---- starting ---- */

/* A close-on-exec copy of fd at 10 or above (so that putting the child's
 * ends on 0..3 never meets one of them there), the original closed. */
static int lift(int fd)
{
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    int e = errno;
    close(fd);
    errno = e;
    return hi;
}

/* The pipes: [0] stdin (ours the write end), [1..3] stdout, stderr, result
 * (ours the read ends, non-blocking). Unused ones stay -1. */
static int make_pipes(int p[4][2], int flags)
{
    for (int i = 0; i < 4; i++) p[i][0] = p[i][1] = -1;
    for (int i = 0; i < 4; i++) {
        if ((i == 0 && !(flags & KC_SUP_STDIN)) || (i == 3 && !(flags & KC_SUP_RESULT))) continue;
        if (pipe2(p[i], O_CLOEXEC)) return -1;
        int child_end = i == 0 ? 0 : 1;
        if ((p[i][child_end] = lift(p[i][child_end])) < 0) return -1;
        /* our read ends never block: a stream read by kc_sup_drain from an
         * owner's callback may still carry this round's poll readiness */
        if (i > 0 && fcntl(p[i][0], F_SETFL, fcntl(p[i][0], F_GETFL) | O_NONBLOCK)) return -1;
    }
    return 0;
}

static void close_pipes(int p[4][2])
{
    for (int i = 0; i < 4; i++) {
        close_fd(&p[i][0]);
        close_fd(&p[i][1]);
    }
}

/* The child's descriptors: 0 from the stdin pipe or /dev/null, 1..3 the
 * pipes' write ends, nothing else (closefrom where glibc has it; every
 * descriptor of ours is close-on-exec in any case). */
static int file_actions(posix_spawn_file_actions_t *fa, int p[4][2])
{
    int rc = posix_spawn_file_actions_init(fa);
    if (rc) return rc;
    if (p[0][0] >= 0) rc = posix_spawn_file_actions_adddup2(fa, p[0][0], 0);
    else rc = posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
    for (int i = 1; i < 4 && !rc; i++)
        if (p[i][1] >= 0) rc = posix_spawn_file_actions_adddup2(fa, p[i][1], i);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    if (!rc) rc = posix_spawn_file_actions_addclosefrom_np(fa, p[3][1] >= 0 ? 4 : 3);
#endif
    if (rc) posix_spawn_file_actions_destroy(fa);
    return rc;
}

/* Own process group; default dispositions for what this process catches or
 * ignores (sigpipe.h); an empty mask. */
static int spawn_attr(posix_spawnattr_t *at)
{
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGTERM);
    sigaddset(&dfl, SIGCHLD);
    sigaddset(&dfl, SIGPIPE);
    int rc = posix_spawnattr_init(at);
    if (rc) return rc;
    rc = posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!rc) rc = posix_spawnattr_setpgroup(at, 0);
    if (!rc) rc = posix_spawnattr_setsigmask(at, &none);
    if (!rc) rc = posix_spawnattr_setsigdefault(at, &dfl);
    if (rc) posix_spawnattr_destroy(at);
    return rc;
}

int kc_sup_start(kc_sup *s, int slot, const char *path, char *const argv[], int flags)
{
    kc_child *c = &s->c[slot];
    if (s->interrupted || c->state != KC_CHILD_GONE) {
        errno = s->interrupted ? EINTR : EBUSY;
        return -1;
    }
    int p[4][2];
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    if (make_pipes(p, flags)) {
        int e = errno;
        close_pipes(p);
        errno = e;
        return -1;
    }
    int rc = file_actions(&fa, p);
    if (!rc) {
        rc = spawn_attr(&at);
        if (rc) posix_spawn_file_actions_destroy(&fa);
    }
    pid_t pid = 0;
    if (!rc) {
        char **envp = kc_lifeline_env();    /* this process's environment and the run's cookie (lifeline.h) */
        fflush(stdout);
        fflush(stderr);
        rc = envp ? posix_spawn(&pid, path, &fa, &at, argv, envp) : ENOMEM;
        kc_lifeline_env_free(envp);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&at);
    }
    if (rc) {
        close_pipes(p);
        errno = rc;
        return -1;
    }
    close_fd(&p[0][0]);                         /* the child's ends */
    for (int i = 1; i < 4; i++) close_fd(&p[i][1]);
    c->pid = pid;
    c->state = KC_CHILD_STARTING;
    c->in = p[0][1];
    for (int k = 0; k < KC_SUP_STREAMS; k++) {
        c->fd[k] = p[k + 1][0];
        c->lb[k].len = c->lb[k].cut = 0;
    }
    c->started = kc_sup_now();
    c->exited = c->kill_at = c->leak_at = c->drain_at = 0;
    c->wstatus = c->stop_signal = c->killed = c->leaked = 0;
    c->leak[0] = 0;
    c->run_child = 0;
    if (has_parent_option(argv)) tell_sentinel(c);
    return 0;
}

/* ---- the owner's controls ---- */

void kc_sup_swap(kc_sup *s, int a, int b)
{
    if (a == b || a < 0 || b < 0 || a >= s->n || b >= s->n) return;
    kc_child t = s->c[a];
    s->c[a] = s->c[b];
    s->c[b] = t;
    s->c[a].slot = a;
    s->c[b].slot = b;
}

void kc_sup_mark(kc_child *c, kc_child_state st)
{
    int ok = (c->state == KC_CHILD_STARTING && (st == KC_CHILD_IDLE || st == KC_CHILD_RUNNING)) ||
             (c->state == KC_CHILD_IDLE && st == KC_CHILD_RUNNING) ||
             (c->state == KC_CHILD_RUNNING && st == KC_CHILD_IDLE);
    if (ok) c->state = st;
}

void kc_sup_stop(kc_sup *s, kc_child *c, int signo, int grace_ms)
{
    (void)s;
    if (!alive(c)) return;
    kill(-c->pid, signo);
    if (!c->stop_signal) c->stop_signal = signo;
    c->state = KC_CHILD_STOPPING;
    if (signo == SIGKILL) {
        c->killed = 1;
        c->kill_at = 0;
        return;
    }
    double at = kc_sup_now() + grace_ms / 1000.0;
    if (!c->killed && (!c->kill_at || at < c->kill_at)) c->kill_at = at;
}

int kc_sup_write(kc_child *c, const char *buf, size_t len)
{
    while (len) {
        if (c->in < 0 || !alive(c)) return -1;
        ssize_t w = write(c->in, buf, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

void kc_sup_close_stdin(kc_child *c)
{
    close_fd(&c->in);
}

int kc_sup_live(const kc_sup *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++) n += s->c[i].state != KC_CHILD_GONE;
    return n;
}

/* ---- signals ---- */

static void on_interrupt(kc_sup *s, int signo)
{
    int again = s->interrupted != 0, n = 0;
    if (!again) s->interrupted = signo;
    for (int i = 0; i < s->n; i++) {
        kc_child *c = &s->c[i];
        if (!alive(c)) continue;
        kc_sup_close_stdin(c);
        kc_sup_stop(s, c, again ? SIGKILL : signo, KC_SUP_GRACE_MS);
        n++;
    }
    if (s->ops->interrupted) s->ops->interrupted(s->ctx, s, signo, again, n);
}

static void drain_signals(kc_sup *s)
{
    unsigned char b[64];
    ssize_t got;
    while ((got = read(s->sp.rfd, b, sizeof b)) > 0)
        for (ssize_t i = 0; i < got; i++)
            if (b[i] == SIGINT || b[i] == SIGTERM) on_interrupt(s, b[i]);
    /* SIGCHLD: reaped below. */
}

/* ---- output ---- */

typedef struct line_ctx { kc_sup *s; kc_child *c; int stream; } line_ctx;

static void on_line(void *ctx, const char *line, size_t len, size_t cut)
{
    line_ctx *l = ctx;
    l->s->ops->line(l->s->ctx, l->s, l->c, l->stream, line, len, cut);
}

static void end_stream(kc_sup *s, kc_child *c, int k)
{
    line_ctx l = { s, c, k };
    kc_linebuf_flush(&c->lb[k], on_line, &l);
    close_fd(&c->fd[k]);
}

static void read_stream(kc_sup *s, kc_child *c, int k)
{
    char buf[65536];
    ssize_t got = read(c->fd[k], buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (got <= 0) {
        end_stream(s, c, k);
        return;
    }
    line_ctx l = { s, c, k };
    kc_linebuf_feed(&c->lb[k], buf, (size_t)got, on_line, &l);
}

void kc_sup_drain(kc_sup *s, kc_child *c, int k)
{
    /* bounded: a child that keeps writing cannot hold the owner here */
    for (int round = 0; round < 64 && c->fd[k] >= 0; round++) {
        struct pollfd p = { .fd = c->fd[k], .events = POLLIN };
        if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) return;
        read_stream(s, c, k);
    }
}

/* ---- ends and leaks ---- */

/* The inode numbers of c's open pipes (what holders have open too). */
static int pipe_inodes(const kc_child *c, unsigned long *ino)
{
    int n = 0;
    struct stat st;
    for (int k = 0; k < KC_SUP_STREAMS; k++)
        if (c->fd[k] >= 0 && fstat(c->fd[k], &st) == 0) ino[n++] = (unsigned long)st.st_ino;
    return n;
}

/* Processes c left behind: in its group, or holding its pipes. */
static int leftovers(const kc_child *c, pid_t *out, int max)
{
    unsigned long ino[KC_SUP_STREAMS];
    int nino = pipe_inodes(c, ino);
    return kc_proc_find(c->pid, ino, nino, c->exited_ticks + 1, out, max);
}

/* Children whose exit status came: EXITED. Returns how many. */
static int reap(kc_sup *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        kc_child *c = &s->c[i];
        int st;
        if (!alive(c)) continue;
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r < 0 && errno == ECHILD) st = KC_SUP_STATUS_TAKEN;    /* it ended; another wait took its status */
        else if (r != c->pid) continue;
        n++;
        c->wstatus = st;
        c->exited = kc_sup_now();
        c->exited_ticks = kc_proc_boot_ticks();
        c->state = KC_CHILD_EXITED;
        c->kill_at = 0;
        kc_sup_close_stdin(c);
        pid_t p[1];
        if (pipes_open(c) || leftovers(c, p, 1) > 0) c->leak_at = c->exited + KC_LEAK_TIMEOUT_MS / 1000.0;
    }
    return n;
}

/* The leak timeout of c ran out: SIGKILL to every process of its group and
 * every process holding its pipes, each by its pid (found started before c
 * ended, so never one that reused a pid since), named in c->leak. Only when
 * /proc cannot be read, to its process group as such. */
static void end_leak(kc_child *c, double t)
{
    pid_t p[KC_PROC_MAX];
    int n = leftovers(c, p, KC_PROC_MAX);
    c->leak_at = 0;
    if (n == 0 && !pipes_open(c)) return;
    if (n < 0) {
        snprintf(c->leak, sizeof c->leak, "/proc could not be read %d ms after it ended: its process group was killed "
                 "(SIGKILL)", KC_LEAK_TIMEOUT_MS);
        kill(-c->pid, SIGKILL);
        c->leaked = 1;
    } else if (n > 0) {
        char who[400];
        kc_proc_describe(p, n < KC_PROC_MAX ? n : KC_PROC_MAX, who, sizeof who);
        snprintf(c->leak, sizeof c->leak, "%s still ran %d ms after it ended: killed (SIGKILL)", who, KC_LEAK_TIMEOUT_MS);
        for (int i = 0; i < n && i < KC_PROC_MAX; i++) kill(p[i], SIGKILL);
        c->leaked = n;
    } else {
        snprintf(c->leak, sizeof c->leak, "its pipes were still open %d ms after it ended, held by processes /proc does not show",
                 KC_LEAK_TIMEOUT_MS);
        c->leaked = 1;
    }
    c->drain_at = t + KC_SUP_DRAIN_MS / 1000.0;
}

static void timers(kc_sup *s)
{
    double t = kc_sup_now();
    for (int i = 0; i < s->n; i++) {
        kc_child *c = &s->c[i];
        if (c->state == KC_CHILD_STOPPING && c->kill_at && t >= c->kill_at) kc_sup_stop(s, c, SIGKILL, 0);
        if (c->state != KC_CHILD_EXITED) continue;
        if (c->leak_at && t >= c->leak_at) end_leak(c, t);
        if (c->drain_at && t >= c->drain_at && pipes_open(c)) {
            for (int k = 0; k < KC_SUP_STREAMS; k++)
                if (c->fd[k] >= 0) end_stream(s, c, k);
            size_t l = strlen(c->leak);
            snprintf(c->leak + l, sizeof c->leak - l, "; its pipes, still open %d ms later, were closed", KC_SUP_DRAIN_MS);
        }
    }
}

/* EXITED children whose pipes are closed, and whose leak timeout ran out or
 * whose group is empty: GONE, and the owner is told. Returns how many. */
static int settle(kc_sup *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        kc_child *c = &s->c[i];
        if (c->state != KC_CHILD_EXITED || pipes_open(c)) continue;
        pid_t p[1];
        if (c->leak_at && leftovers(c, p, 1) > 0) continue;     /* its group still has members: wait */
        c->leak_at = c->drain_at = 0;
        c->state = KC_CHILD_GONE;
        forget_child(c);
        n++;
        s->ops->gone(s->ctx, s, c);
    }
    return n;
}

/* The earliest deadline of the supervisor's own, or `until`. */
static double next_deadline(const kc_sup *s, double until)
{
    double d = until;
    for (int i = 0; i < s->n; i++) {
        const kc_child *c = &s->c[i];
        double x[3] = { c->state == KC_CHILD_STOPPING ? c->kill_at : 0, c->leak_at, c->drain_at };
        for (int j = 0; j < 3; j++)
            if (x[j] > 0 && (d <= 0 || x[j] < d)) d = x[j];
    }
    return d;
}

int kc_sup_wait(kc_sup *s, double until)
{
    /* What happened since the last round (a child reaped or gone) goes back
     * to the owner first: waiting now could wait for an event already past. */
    int changed = reap(s);
    timers(s);
    changed += settle(s);
    if (changed || !kc_sup_live(s)) return 0;
    int np = 0;
    s->pf[np++] = (struct pollfd){ s->sp.rfd, POLLIN, 0 };
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < KC_SUP_STREAMS; k++)
            if (s->c[i].fd[k] >= 0) {
                s->who[np] = i * KC_SUP_STREAMS + k;
                s->pf[np++] = (struct pollfd){ s->c[i].fd[k], POLLIN, 0 };
            }
    double d = next_deadline(s, until);
    /* While a leak timeout runs, look again every 50 ms: its group may empty early. */
    for (int i = 0; i < s->n; i++)
        if (s->c[i].leak_at && !pipes_open(&s->c[i]) && (d <= 0 || kc_sup_now() + 0.05 < d)) d = kc_sup_now() + 0.05;
    int ms = -1;
    if (d > 0) {
        double left = (d - kc_sup_now()) * 1000;
        ms = left < 0 ? 0 : (int)left + 1;
    }
    int r = poll(s->pf, (nfds_t)np, ms);
    if (r < 0 && errno != EINTR) return -1;
    if (r > 0) {
        if (s->pf[0].revents) drain_signals(s);
        for (int p = 1; p < np; p++) {
            kc_child *c = &s->c[s->who[p] / KC_SUP_STREAMS];
            int k = s->who[p] % KC_SUP_STREAMS;
            if ((s->pf[p].revents & (POLLIN | POLLHUP | POLLERR)) && c->fd[k] == s->pf[p].fd) read_stream(s, c, k);
        }
    }
    reap(s);
    timers(s);
    settle(s);
    return 0;
}

/* ---- what a gone child left outside its group ---- */

static int among(pid_t pid, const pid_t *pids, int n)
{
    for (int i = 0; i < n; i++)
        if (pids[i] == pid) return 1;
    return 0;
}

int kc_sup_end_orphans(kc_sup *s, const kc_child *c, int timeout_ms, char *what, size_t cap)
{
    if (what && cap) what[0] = 0;
    for (int i = 0; i < s->n; i++)
        if (&s->c[i] != c && s->c[i].state == KC_CHILD_EXITED) return 0;
    pid_t *keep = malloc((size_t)(s->n + KC_PROC_MAX) * sizeof *keep), kids[KC_PROC_MAX];
    if (!keep) return 0;
    int nkeep = 0;
    for (int i = 0; i < s->n; i++)
        if (&s->c[i] != c && s->c[i].state != KC_CHILD_GONE) keep[nkeep++] = s->c[i].pid;
    int nchildren = nkeep, nk = kc_proc_children(kids, KC_PROC_MAX);
    for (int i = 0; i < nk && i < KC_PROC_MAX; i++) {
        pid_t g = getpgid(kids[i]);
        if (g > 0 && !among(kids[i], keep, nchildren) && among(g, keep, nchildren)) keep[nkeep++] = kids[i];
    }
    int n = kc_proc_end_leftovers(timeout_ms, keep, nkeep, what, cap);
    free(keep);
    return n;
}
