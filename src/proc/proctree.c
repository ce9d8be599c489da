/* proctree.c — owns looking processes up in /proc and ending the ones an
 * item left behind (proctree.h). */
#include "proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

int kc_proc_adopt_orphans(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

unsigned long long kc_proc_boot_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0) hz = 100;
    return (unsigned long long)ts.tv_sec * (unsigned long long)hz + (unsigned long long)ts.tv_nsec / (1000000000ull / (unsigned long long)hz);
}

/* From /proc/PID/stat: state, parent, process group and start time (field
 * 22, clock ticks since boot). 0, or -1 when the process is gone or the line
 * does not parse (a name may hold spaces and parentheses: the fields follow
 * the last ')'). */
static int read_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp, unsigned long long *start)
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

/* Whether pid has a descriptor open on one of the pipes ino[0..nino). */
static int holds_pipe(pid_t pid, const unsigned long *ino, int nino)
{
    char path[64], link[64], want[40];
    snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(path);
    if (!d) return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
        if (n <= 0) continue;
        link[n] = 0;
        for (int i = 0; i < nino && !found; i++) {
            snprintf(want, sizeof want, "pipe:[%lu]", ino[i]);
            found = strcmp(link, want) == 0;
        }
    }
    closedir(d);
    return found;
}

/* Every live process other than this one for which the predicate holds:
 * children of this process (children set), or members of pgid, or holders
 * of one of the pipes. */
static int scan(int children, pid_t pgid, const unsigned long *ino, int nino, unsigned long long born_by, pid_t *out,
                int max)
{
    DIR *d = opendir("/proc");
    if (!d) return -1;
    pid_t self = getpid();
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (*end || v <= 0 || (pid_t)v == self) continue;
        pid_t pid = (pid_t)v, ppid, pgrp;
        char st;
        unsigned long long start;
        if (read_stat(pid, &st, &ppid, &pgrp, &start) || st == 'Z' || st == 'X') continue;
        if (born_by && start > born_by) continue;
        int match = children ? ppid == self : (pgid > 0 && pgrp == pgid) || (nino > 0 && holds_pipe(pid, ino, nino));
        if (!match) continue;
        if (n < max) out[n] = pid;
        n++;
    }
    closedir(d);
    return n;
}

int kc_proc_children(pid_t *out, int max)
{
    return scan(1, 0, NULL, 0, 0, out, max);
}

int kc_proc_find(pid_t pgid, const unsigned long *ino, int nino, unsigned long long born_by, pid_t *out, int max)
{
    return scan(0, pgid, ino, nino, born_by, out, max);
}

static void comm_of(pid_t pid, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) n = snprintf(buf, cap, "?");
    buf[n] = 0;
    buf[strcspn(buf, "\n")] = 0;
}

void kc_proc_describe(const pid_t *pids, int n, char *buf, size_t cap)
{
    size_t len = 0;
    if (!cap) return;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        char name[32], one[64];
        comm_of(pids[i], name, sizeof name);
        int w = snprintf(one, sizeof one, "%spid %ld (%s)", i ? ", " : "", (long)pids[i], name);
        if (len + (size_t)w + 4 >= cap) {       /* room for "..." */
            snprintf(buf + len, cap - len, "%s...", i ? ", " : "");
            return;
        }
        memcpy(buf + len, one, (size_t)w + 1);
        len += (size_t)w;
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
}

/* Reaps every child that has ended; 1 when live children remain, 0 when
 * there are none (ECHILD). */
static int kept(pid_t p, const pid_t *keep, int nkeep)
{
    for (int i = 0; i < nkeep; i++)
        if (keep[i] == p) return 1;
    return 0;
}

/* Reaps this process's children that ended, except those in keep (their
 * owner reaps them). 1 while a child not kept is still running, else 0. */
static int reap_ended(const pid_t *keep, int nkeep)
{
    if (nkeep > 0) {
        pid_t p[KC_PROC_MAX];
        int n = kc_proc_children(p, KC_PROC_MAX), running = 0;
        for (int i = 0; i < n && i < KC_PROC_MAX; i++) {
            int st;
            if (!kept(p[i], keep, nkeep) && waitpid(p[i], &st, WNOHANG) == 0) running = 1;
        }
        return running || n < 0;
    }
    for (;;) {
        int st;
        pid_t r = waitpid(-1, &st, WNOHANG);
        if (r > 0) continue;
        if (r == 0) return 1;
        if (errno == EINTR) continue;
        return 0;
    }
}

/* The children in p[0..n) that are not kept, moved to its front. */
static int drop_kept(pid_t *p, int n, const pid_t *keep, int nkeep)
{
    int m = 0;
    for (int i = 0; i < n && i < KC_PROC_MAX; i++)
        if (!kept(p[i], keep, nkeep)) p[m++] = p[i];
    return m;
}

int kc_proc_end_leftovers(int timeout_ms, const pid_t *keep, int nkeep, char *what, size_t cap)
{
    if (what && cap) what[0] = 0;
    if (!reap_ended(keep, nkeep)) return 0;     /* the usual case: no child at all */
    double end = kc_now_s() + timeout_ms / 1000.0;
    while (kc_now_s() < end) {
        sleep_ms(5);
        if (!reap_ended(keep, nkeep)) return 0;
    }
    pid_t p[KC_PROC_MAX];
    int found = kc_proc_children(p, KC_PROC_MAX);
    if (found > 0) found = drop_kept(p, found, keep, nkeep);
    if (found <= 0) {                       /* racing with their end, or /proc unreadable */
        if (!reap_ended(keep, nkeep)) return 0;
        if (what) snprintf(what, cap, "children that /proc does not list");
        return 1;
    }
    if (what) kc_proc_describe(p, found < KC_PROC_MAX ? found : KC_PROC_MAX, what, cap);
    for (int round = 0; round < 20; round++) {
        int n = kc_proc_children(p, KC_PROC_MAX);
        n = n > 0 ? drop_kept(p, n, keep, nkeep) : n;
        for (int i = 0; i < n && i < KC_PROC_MAX; i++) {
            if (getpgid(p[i]) == p[i]) kill(-p[i], SIGKILL);    /* a group of its own: its members too */
            kill(p[i], SIGKILL);
        }
        sleep_ms(10);
        if (!reap_ended(keep, nkeep)) break;
    }
    return found;
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
