/* proctree.c — owns looking processes up in /proc and ending the ones an
 * item left behind (proctree.h). */
#include "proctree.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/* ---- children that are no item's ---- */

typedef struct proc_id {
    pid_t pid;
    unsigned long long start;       /* kc_proc_boot_ticks; 0 unknown */
} proc_id;

#define OWN_MAX 4
static proc_id own[OWN_MAX];        /* this process's own (the run's sentinel) */
static int nown;
static proc_id before[KC_PROC_MAX]; /* there before the run's first item, or before the current one */
static int nbefore;
static unsigned long long run_start; /* the run's start (kc_proc_adopt_orphans); 0 not taken */

static int listed(const proc_id *v, int n, pid_t pid, unsigned long long start)
{
    for (int i = 0; i < n; i++)
        if (v[i].pid == pid && (!v[i].start || v[i].start == start)) return 1;
    return 0;
}

/* Children an item left ending (kc_proc_end_leftovers): no item's from
 * then on, reaped when they end, named once when overdue. Under ending_mu:
 * a worker's lanes and its main thread may end items at once. */
typedef struct ending_id {
    pid_t pid;
    unsigned long long start;
    double since;                   /* kc_now_s when first found ending */
    int said;                       /* named by kc_proc_ending_overdue */
} ending_id;
#define ENDING_MAX (4 * KC_PROC_MAX) /* full: a further one is counted as the item's (kc_proc_end_leftovers) */
static ending_id ending[ENDING_MAX];
static atomic_int nending;          /* changed under ending_mu; read alone as a quick "none" check */
static pthread_mutex_t ending_mu = PTHREAD_MUTEX_INITIALIZER;

static int is_ending(pid_t pid, unsigned long long start)
{
    pthread_mutex_lock(&ending_mu);
    int found = 0;
    for (int i = 0; i < nending && !found; i++) found = ending[i].pid == pid && ending[i].start == start;
    pthread_mutex_unlock(&ending_mu);
    return found;
}

/* A child (pid, started at start) that is no item's. Started before the
 * run's start (strictly: ticks are 10 ms, and the run's first item starts
 * after it) is never an item's; otherwise only the listed ones, and those
 * an item left ending. */
static int not_items(pid_t pid, unsigned long long start)
{
    return listed(own, nown, pid, start) || listed(before, nbefore, pid, start) || (run_start && start < run_start) ||
           (nending && is_ending(pid, start));
}

void kc_proc_own(pid_t pid)
{
    unsigned long long start = 0;
    char st;
    pid_t pp, pg;
    if (kc_proc_stat(pid, &st, &pp, &pg, &start)) start = 0;
    if (nown < OWN_MAX) own[nown++] = (proc_id){ pid, start };
}

/* ---- /proc, without malloc ---- */

struct dirent64_raw {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

int kc_proc_each_number(const char *path, int (*fn)(long v, int dirfd, void *ctx), void *ctx)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    _Alignas(8) char buf[8192];
    long got;
    while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long off = 0; off < got;) {
            const struct dirent64_raw *d = (const void *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
            char *end;
            long v = strtol(d->d_name, &end, 10);
            if (*end || v < 0) continue;
            if (fn(v, fd, ctx)) {
                close(fd);
                return 0;
            }
        }
    close(fd);
    return 0;
}

unsigned long long kc_proc_boot_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0) hz = 100;
    return (unsigned long long)ts.tv_sec * (unsigned long long)hz + (unsigned long long)ts.tv_nsec / (1000000000ull / (unsigned long long)hz);
}

/* The fields follow the last ')': a name may hold spaces and parentheses. */
int kc_proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp, unsigned long long *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    const char *rp = strrchr(buf, ')');
    long pp, pg;
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
     * utime stime cutime cstime priority nice threads itrealvalue starttime */
    if (!rp || sscanf(rp + 1, " %c %ld %ld %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", state,
                      &pp, &pg, start) != 4)
        return -1;
    *ppid = (pid_t)pp;
    *pgrp = (pid_t)pg;
    return 0;
}

/* PF_EXITING of include/linux/sched.h: set on a thread by do_exit, before
 * it closes its files and drops its memory. */
#define KC_PF_EXITING 0x4u

typedef struct life_ctx {
    pid_t pid, runs;            /* runs: a thread that runs, 0 none */
    int tasks;
    pid_t *tids;                /* NULL, or where the listed threads' ids go (up to captids) */
    int ntids, captids;
    char *wchan;
    size_t cap;
} life_ctx;

int kc_proc_task_runs(const char *stat)
{
    const char *rp = strrchr(stat, ')');    /* a name may hold spaces and parentheses */
    char st;
    unsigned flags;
    /* state ppid pgrp session tty tpgid flags */
    if (!rp || sscanf(rp + 1, " %c %*d %*d %*d %*d %*d %u", &st, &flags) != 2) return -1;
    return st != 'Z' && st != 'X' && !(flags & KC_PF_EXITING);
}

/* One thread of l->pid: counted, and whether it runs; the first waiting
 * thread's wchan taken. */
static int life_task(long tid, int dirfd, void *ctx)
{
    (void)dirfd;
    life_ctx *l = ctx;
    char path[96], buf[1024];
    if (l->tids && l->ntids < l->captids) l->tids[l->ntids++] = (pid_t)tid;
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", (long)l->pid, tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    int runs = kc_proc_task_runs(buf);
    if (runs < 0) return 0;
    l->tasks++;
    if (runs) {
        l->runs = (pid_t)tid;
        return 1;
    }
    const char *rp = strrchr(buf, ')');
    if (rp[1] && (rp[2] == 'Z' || rp[2] == 'X')) return 0;    /* no wait channel */
    if (l->cap && !l->wchan[0]) {
        snprintf(path, sizeof path, "/proc/%ld/task/%ld/wchan", (long)l->pid, tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        n = fd >= 0 ? read(fd, l->wchan, l->cap - 1) : -1;
        if (fd >= 0) close(fd);
        l->wchan[n > 0 ? n : 0] = 0;
        l->wchan[strcspn(l->wchan, "\n")] = 0;
        if (strcmp(l->wchan, "0") == 0) l->wchan[0] = 0;
    }
    return 0;
}

/* Reads l->pid's threads (/proc/PID/task) into l: how many, one that runs,
 * their ids and a wait channel as asked (life_task). Its kc_proc_life. */
static kc_proc_life read_life(life_ctx *l)
{
    char path[64];
    if (l->cap) l->wchan[0] = 0;
    snprintf(path, sizeof path, "/proc/%ld/task", (long)l->pid);
    if (kc_proc_each_number(path, life_task, l) < 0) l->tasks = 0;
    if (l->runs && l->cap) l->wchan[0] = 0;
    return l->runs ? KC_PROC_RUNNING : l->tasks ? KC_PROC_ENDING : KC_PROC_GONE;
}

/* A thread of pid that runs (kc_proc_task_runs), 0 none. */
static pid_t thread_that_runs(pid_t pid)
{
    life_ctx l = { .pid = pid };
    read_life(&l);
    return l.runs;
}

kc_proc_life kc_proc_life_of(pid_t pid, char *wchan, size_t cap)
{
    life_ctx l = { .pid = pid, .wchan = wchan, .cap = cap };
    return read_life(&l);
}

typedef struct fd_ctx {
    const unsigned long *ino;
    int nino, found;
} fd_ctx;

static int fd_is_pipe(long v, int dirfd, void *ctx)
{
    fd_ctx *f = ctx;
    char name[24], link[64], want[40];
    snprintf(name, sizeof name, "%ld", v);
    ssize_t n = readlinkat(dirfd, name, link, sizeof link - 1);
    if (n <= 0) return 0;
    link[n] = 0;
    for (int i = 0; i < f->nino && !f->found; i++) {
        snprintf(want, sizeof want, "pipe:[%lu]", f->ino[i]);
        f->found = strcmp(link, want) == 0;
    }
    return f->found;
}

/* Whether pid has a descriptor open on one of the pipes ino[0..nino), read
 * through its thread tid (the table is the process's; its main thread's is
 * gone once that thread ended). */
static int holds_pipe(pid_t pid, pid_t tid, const unsigned long *ino, int nino)
{
    char path[80];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/fd", (long)pid, (long)tid);
    fd_ctx f = { ino, nino, 0 };
    kc_proc_each_number(path, fd_is_pipe, &f);
    return f.found;
}

/* Whether the NUL-separated entry e[0..len) is var=... with token among the
 * value's ':'-separated words. */
static int entry_has(const char *e, size_t len, const char *var, const char *token)
{
    size_t vl = strlen(var), tl = strlen(token);
    if (len <= vl || memcmp(e, var, vl) != 0 || e[vl] != '=') return 0;
    for (size_t i = vl + 1; i + tl <= len; i++)
        if ((i == vl + 1 || e[i - 1] == ':') && memcmp(e + i, token, tl) == 0 && (i + tl == len || e[i + tl] == ':'))
            return 1;
    return 0;
}

/* Whether pid's environment holds var with token (kc_proc_find_cookie),
 * read through its thread tid (as holds_pipe): read in pieces, entries
 * longer than 4 KiB matched on their first 4 KiB. */
static int environ_has(pid_t pid, pid_t tid, const char *var, const char *token)
{
    char path[80], buf[4096], ent[4096];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/environ", (long)pid, (long)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t el = 0;
    int found = 0;
    ssize_t got;
    while (!found && ((got = read(fd, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)))
        for (ssize_t i = 0; i < got && !found; i++) {
            if (buf[i]) {
                if (el < sizeof ent) ent[el++] = buf[i];
                continue;
            }
            found = entry_has(ent, el, var, token);
            el = 0;
        }
    if (!found && el) found = entry_has(ent, el, var, token);
    close(fd);
    return found;
}

enum { BY_CHILDREN, BY_CHILDREN_REAP, BY_PREDATING, BY_PARENT, BY_GROUP_OR_PIPE, BY_COOKIE };

typedef struct scan_ctx {
    int by;
    pid_t self, pgid, parent;
    const unsigned long *ino;
    int nino;
    unsigned long long born_by;
    const char *var, *token;
    pid_t *out;
    int max, n;
} scan_ctx;

static int scan_one(long v, int dirfd, void *ctx)
{
    (void)dirfd;
    scan_ctx *s = ctx;
    pid_t pid = (pid_t)v, ppid, pgrp;
    char st;
    unsigned long long start;
    if (pid <= 0 || pid == s->self || kc_proc_stat(pid, &st, &ppid, &pgrp, &start)) return 0;
    int zombie = st == 'Z' || st == 'X';
    pid_t tid = pid;            /* where its descriptors and environment are read */
    /* a zombie whose other threads run is live (its main thread ended): read through one of those */
    if (zombie && s->by != BY_CHILDREN_REAP && !(tid = thread_that_runs(pid))) return 0;
    if (s->born_by && start > s->born_by) return 0;
    int match;
    switch (s->by) {
    case BY_CHILDREN:
    case BY_CHILDREN_REAP: match = ppid == s->self && !not_items(pid, start); break;
    case BY_PREDATING:
        match = ppid == s->self && not_items(pid, start) && !listed(own, nown, pid, start) && !(nending && is_ending(pid, start));
        break;
    case BY_PARENT: match = ppid == s->parent; break;
    case BY_GROUP_OR_PIPE: match = (s->pgid > 0 && pgrp == s->pgid) || (s->nino > 0 && holds_pipe(pid, tid, s->ino, s->nino)); break;
    default: match = environ_has(pid, tid, s->var, s->token); break;
    }
    if (!match) return 0;
    if (s->n < s->max) s->out[s->n] = pid;
    s->n++;
    return 0;
}

/* Every process other than this one that matches s->by: its children
 * (zombies too for BY_CHILDREN_REAP), members of a group or holders of a
 * pipe, or carriers of a cookie. How many (may exceed s->max), or -1. */
static int scan(scan_ctx *s)
{
    s->self = getpid();
    s->n = 0;
    return kc_proc_each_number("/proc", scan_one, s) < 0 ? -1 : s->n;
}

static int children_by(int by, pid_t *out, int max)
{
    scan_ctx s = { .by = by, .out = out, .max = max };
    return scan(&s);
}

int kc_proc_children(pid_t *out, int max)
{
    return children_by(BY_CHILDREN, out, max);
}

int kc_proc_children_of(pid_t parent, pid_t *out, int max)
{
    scan_ctx s = { .by = BY_PARENT, .parent = parent, .out = out, .max = max };
    return scan(&s);
}

int kc_proc_predating(pid_t *out, int max)
{
    return children_by(BY_PREDATING, out, max);
}

int kc_proc_find(pid_t pgid, const unsigned long *ino, int nino, unsigned long long born_by, pid_t *out, int max)
{
    scan_ctx s = { .by = BY_GROUP_OR_PIPE, .pgid = pgid, .ino = ino, .nino = nino, .born_by = born_by, .out = out, .max = max };
    return scan(&s);
}

int kc_proc_find_cookie(const char *var, const char *token, pid_t *out, int max)
{
    if (!token[0] || strchr(token, ':')) return 0;      /* a word, never several */
    scan_ctx s = { .by = BY_COOKIE, .var = var, .token = token, .out = out, .max = max };
    return scan(&s);
}

/* Every live child now (but this process's own) into before[]: no item's. */
static void take_before(void)
{
    pid_t p[KC_PROC_MAX];
    siginfo_t si;
    nbefore = 0;
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0 && errno == ECHILD) return;  /* no child: no scan */
    unsigned long long keep = run_start;
    run_start = 0;                  /* list every child, not only those after the run's start */
    int n = children_by(BY_CHILDREN, p, KC_PROC_MAX);
    run_start = keep;
    for (int i = 0; i < n && i < KC_PROC_MAX; i++) {
        char st;
        pid_t pp, pg;
        unsigned long long start;
        if (kc_proc_stat(p[i], &st, &pp, &pg, &start) == 0 && !listed(own, nown, p[i], start))
            before[nbefore++] = (proc_id){ p[i], start };
    }
}

int kc_proc_adopt_orphans(void)
{
    int rc = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    int e = errno;
    if (!run_start) {
        run_start = kc_proc_boot_ticks();
        take_before();
    }
    errno = e;
    return rc;
}

static void reap_ending(void);

void kc_proc_item_begin(int beside)
{
    if (nending) reap_ending();
    if (nbefore && !beside) take_before();  /* none: only items' processes can be children, and none is left */
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
}

static int kept(pid_t p, const pid_t *keep, int nkeep)
{
    for (int i = 0; i < nkeep; i++)
        if (keep[i] == p) return 1;
    return 0;
}

/* Reaps this process's children that ended, except those in keep (their
 * owner reaps them) and those that are no item's. 1 while a child that may
 * be the item's is still running, else 0. Without keep, no /proc scan unless
 * some child runs (waitpid says so): the usual item leaves none. */
static int reap_ended(const pid_t *keep, int nkeep)
{
    if (nkeep == 0)
        for (;;) {
            int st;
            pid_t r = waitpid(-1, &st, WNOHANG);
            if (r > 0) continue;
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return 0;            /* no child at all */
            break;                          /* some run: which? */
        }
    pid_t p[KC_PROC_MAX];
    int n = children_by(BY_CHILDREN_REAP, p, KC_PROC_MAX), running = n > KC_PROC_MAX;
    for (int i = 0; i < n && i < KC_PROC_MAX; i++) {
        int st;
        if (!kept(p[i], keep, nkeep) && waitpid(p[i], &st, WNOHANG | __WALL) == 0) running = 1;
    }
    return running || n < 0;
}

/* The children in p[0..n) that are not kept, moved to its front. */
static int drop_kept(pid_t *p, int n, const pid_t *keep, int nkeep)
{
    int m = 0;
    for (int i = 0; i < n && i < KC_PROC_MAX; i++)
        if (!kept(p[i], keep, nkeep)) p[m++] = p[i];
    return m;
}

/* pid's life as kc_proc_life_of reads it, with the ids of the threads it
 * listed into tids[0..*ntids) (up to cap). */
static kc_proc_life life_listing(pid_t pid, pid_t *tids, int cap, int *ntids)
{
    life_ctx l = { .pid = pid, .tids = tids, .captids = cap };
    kc_proc_life life = read_life(&l);
    *ntids = l.ntids;
    return life;
}

/* kc_proc_life_of, ENDING only when a second reading 2 ms later says so
 * too and lists no thread the first did not: a thread in the exit path
 * never starts another, while a process whose threads start successors
 * and exit can read as ending once (its new thread started after the
 * threads were listed, the listed ones gone by the time they are read). */
static kc_proc_life life_confirmed(pid_t pid)
{
    pid_t first[KC_PROC_MAX], second[KC_PROC_MAX];
    int n1, n2;
    kc_proc_life l = life_listing(pid, first, KC_PROC_MAX, &n1);
    if (l != KC_PROC_ENDING) return l;
    sleep_ms(2);
    l = life_listing(pid, second, KC_PROC_MAX, &n2);
    for (int i = 0; i < n2; i++) {
        int seen = 0;
        for (int j = 0; j < n1 && !seen; j++) seen = second[i] == first[j];
        if (!seen) return KC_PROC_RUNNING;
    }
    return l == KC_PROC_GONE ? KC_PROC_ENDING : l;
}

/* The children left after a wait (not kept, not reaped now): those that
 * run into run[0..*nrun), those ending (kc_proc_life_of) into end[0..*nend).
 * -1 when /proc cannot be read, else 0. */
static int split_left(const pid_t *keep, int nkeep, pid_t *run, int *nrun, pid_t *end, int *nend)
{
    pid_t p[KC_PROC_MAX];
    int n = children_by(BY_CHILDREN_REAP, p, KC_PROC_MAX);
    *nrun = *nend = 0;
    for (int i = 0; i < n && i < KC_PROC_MAX; i++) {
        int st;
        if (kept(p[i], keep, nkeep) || waitpid(p[i], &st, WNOHANG | __WALL) != 0) continue;
        switch (life_confirmed(p[i])) {
        case KC_PROC_RUNNING: run[(*nrun)++] = p[i]; break;
        case KC_PROC_ENDING: end[(*nend)++] = p[i]; break;
        default: break;                     /* ended since the scan */
        }
    }
    return n < 0 ? -1 : 0;
}

/* The ending children end[0..n) go on the ending list; their descendants
 * that run (an ending process's children are still its own until the very
 * end of its exit, exit_notify) are the item's, appended to
 * run[*nrun..KC_PROC_MAX). One the full list cannot take is the item's
 * too (said, not dropped). */
static void defer_ending(const pid_t *end, int n, pid_t *run, int *nrun)
{
    double now = kc_now_s();
    for (int i = 0; i < n; i++) {
        char st;
        pid_t pp, pg, kids[KC_PROC_MAX];
        unsigned long long start;
        int nk = kc_proc_descendants(end[i], kids, KC_PROC_MAX);
        for (int k = 0; k < nk && k < KC_PROC_MAX && *nrun < KC_PROC_MAX; k++)
            if (kc_proc_life_of(kids[k], NULL, 0) == KC_PROC_RUNNING) run[(*nrun)++] = kids[k];
        if (kc_proc_stat(end[i], &st, &pp, &pg, &start)) continue;
        pthread_mutex_lock(&ending_mu);
        int full = nending == ENDING_MAX;
        if (!full) ending[nending++] = (ending_id){ end[i], start, now, 0 };
        pthread_mutex_unlock(&ending_mu);
        if (full && *nrun < KC_PROC_MAX) run[(*nrun)++] = end[i];
    }
}

/* Reaps the ending children that ended and forgets them; forgets one whose
 * pid is no longer that process (reaped by a waitpid(-1) meanwhile: a pid
 * reused since is another child's to reap), and one that runs after all
 * (kc_proc_life_of: it is a child like any other again, an item's
 * leftover). */
static void reap_ending(void)
{
    pthread_mutex_lock(&ending_mu);
    int k = 0;
    for (int i = 0; i < nending; i++) {
        char st;
        pid_t pp, pg;
        unsigned long long start;
        int ws;
        if (kc_proc_stat(ending[i].pid, &st, &pp, &pg, &start) || start != ending[i].start) continue;
        if (kc_proc_life_of(ending[i].pid, NULL, 0) == KC_PROC_RUNNING) continue;
        if (waitpid(ending[i].pid, &ws, WNOHANG | __WALL) == 0) ending[k++] = ending[i];   /* still ending */
    }
    nending = k;
    pthread_mutex_unlock(&ending_mu);
}

/* Whether one of p[0..n) still runs (kc_proc_life_of). */
static int any_runs(const pid_t *p, int n)
{
    for (int i = 0; i < n; i++)
        if (kc_proc_life_of(p[i], NULL, 0) == KC_PROC_RUNNING) return 1;
    return 0;
}

int kc_proc_end_leftovers(int timeout_ms, const pid_t *keep, int nkeep, char *what, size_t cap)
{
    if (what && cap) what[0] = 0;
    if (nending) reap_ending();
    if (!reap_ended(keep, nkeep)) return 0;     /* the usual case: no child at all */
    double end_at = kc_now_s() + timeout_ms / 1000.0;
    while (kc_now_s() < end_at) {
        sleep_ms(5);
        if (!reap_ended(keep, nkeep)) return 0;
    }
    pid_t run[KC_PROC_MAX], end[KC_PROC_MAX];
    int nrun, nend, bad = split_left(keep, nkeep, run, &nrun, end, &nend);
    int ours = nrun;                            /* this process's children among run[] */
    if (!bad) defer_ending(end, nend, run, &nrun);  /* they run none of its code: no leftover */
    if (bad || nrun == 0) {     /* none runs (the ending ones deferred), or racing with their end, or /proc unreadable */
        if (!reap_ended(keep, nkeep)) return 0;
        if (what) snprintf(what, cap, "children that /proc does not list");
        return 1;
    }
    if (what) kc_proc_describe(run, nrun, what, cap);
    pid_t p[KC_PROC_MAX];
    for (int round = 0; round < 20; round++) {
        int n = kc_proc_children(p, KC_PROC_MAX);
        n = n > 0 ? drop_kept(p, n, keep, nkeep) : n;
        for (int i = 0; i < n && i < KC_PROC_MAX; i++) {
            if (getpgid(p[i]) == p[i]) kill(-p[i], SIGKILL);    /* a group of its own: its members too */
            kill(p[i], SIGKILL);
        }
        for (int i = ours; i < nrun; i++) {     /* an ending child's: its orphans come here */
            if (getpgid(run[i]) == run[i]) kill(-run[i], SIGKILL);
            kill(run[i], SIGKILL);
        }
        sleep_ms(10);
        if (!reap_ended(keep, nkeep) && !any_runs(run + ours, nrun - ours)) break;
    }
    return nrun;
}

void kc_proc_ending_settle(int after_ms)
{
    for (;;) {
        if (!nending) return;
        reap_ending();
        double now = kc_now_s();
        int young = 0;
        pthread_mutex_lock(&ending_mu);
        for (int i = 0; i < nending && !young; i++) young = (now - ending[i].since) * 1000.0 < after_ms;
        pthread_mutex_unlock(&ending_mu);
        if (!young) return;
        sleep_ms(5);
    }
}

int kc_proc_ending_overdue(int after_ms, char *what, size_t cap)
{
    if (what && cap) what[0] = 0;
    if (!nending) return 0;
    reap_ending();
    pid_t due[KC_PROC_MAX];
    int n = 0;
    double now = kc_now_s();
    pthread_mutex_lock(&ending_mu);
    for (int i = 0; i < nending && n < KC_PROC_MAX; i++)     /* more: named by a later call */
        if (!ending[i].said && (now - ending[i].since) * 1000.0 >= after_ms) {
            ending[i].said = 1;
            due[n++] = ending[i].pid;
        }
    pthread_mutex_unlock(&ending_mu);
    if (what && cap) kc_proc_describe(due, n, what, cap);
    return n;
}

int kc_self_exe(char *buf, size_t cap)
{
    buf[0] = 0;
    if (cap < 2) return -1;
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0 || (size_t)n >= cap - 1) {   /* a full buffer may be a cut path */
        buf[0] = 0;
        return -1;
    }
    buf[n] = 0;
    return 0;
}
