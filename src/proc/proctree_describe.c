/* proctree_describe.c — owns describing processes in words for the lines
 * that name them (proctree.h: kc_proc_describe, kc_proc_descendants,
 * kc_proc_describe_tree): their pids, names, arguments, states and ages,
 * read from /proc without malloc. Moved out of proctree.c unchanged. */
#include "proctree.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Appends entry `one` (snprintf's w into its onecap bytes: cut there when
 * larger) of a list to buf at *len, or, when it and "..." would not fit
 * cap, "..." (after ", " unless first) instead. 0 appended; -1 cut (the
 * list ends there). */
static int list_append(char *buf, size_t cap, size_t *len, const char *one, size_t onecap, int w, int first)
{
    if (w >= 0 && (size_t)w >= onecap) w = (int)strlen(one);
    if (w < 0 || *len + (size_t)w + 4 >= cap) {        /* room for "..." */
        snprintf(buf + *len, cap - *len, "%s...", first ? "" : ", ");
        return -1;
    }
    memcpy(buf + *len, one, (size_t)w + 1);
    *len += (size_t)w;
    return 0;
}

void kc_proc_describe(const pid_t *pids, int n, char *buf, size_t cap)
{
    size_t len = 0;
    if (!cap) return;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        char name[32], wchan[64], one[200];
        comm_of(pids[i], name, sizeof name);
        int ending = kc_proc_life_of(pids[i], wchan, sizeof wchan) == KC_PROC_ENDING;
        int w = snprintf(one, sizeof one, "%spid %ld (%s%s%s%s)", i ? ", " : "", (long)pids[i], name,
                         ending ? ": every thread in the kernel's exit path" : "", wchan[0] ? ", in " : "", wchan);
        if (list_append(buf, cap, &len, one, sizeof one, w, i == 0))
            return;
    }
}

typedef struct tree_ctx {
    pid_t pid[KC_PROC_TABLE], ppid[KC_PROC_TABLE];
    int n;
} tree_ctx;

static int tree_one(long v, int dirfd, void *ctx)
{
    (void)dirfd;
    tree_ctx *t = ctx;
    char st;
    pid_t pp, pg;
    unsigned long long start;
    if (t->n >= KC_PROC_TABLE) return 1;
    if (kc_proc_stat((pid_t)v, &st, &pp, &pg, &start)) return 0;
    if ((st == 'Z' || st == 'X') && kc_proc_life_of((pid_t)v, NULL, 0) != KC_PROC_RUNNING) return 0;
    t->pid[t->n] = (pid_t)v;
    t->ppid[t->n++] = pp;
    return 0;
}

int kc_proc_descendants(pid_t root, pid_t *out, int max)
{
    static tree_ctx t;      /* 64 KiB, no malloc here: one caller at a time (proctree.h) */
    t.n = 0;
    if (kc_proc_each_number("/proc", tree_one, &t) < 0) return -1;
    pid_t got[KC_PROC_MAX * 4];
    int n = 0, cap = (int)(sizeof got / sizeof got[0]);
    /* breadth first: root's children, then each found one's */
    for (int parent = -1; parent < n; parent++) {
        pid_t p = parent < 0 ? root : got[parent];
        for (int i = 0; i < t.n && n < cap; i++)
            if (t.ppid[i] == p && t.pid[i] != root) got[n++] = t.pid[i];
    }
    for (int i = 0; i < n && i < max; i++) out[i] = got[i];
    return n;
}

/* "compute-sanitizer --tool memcheck": the base name of pid's first
 * argument and its next two, from /proc/PID/cmdline; its comm when that is
 * empty (a kernel thread) or gone. */
static void args_of(pid_t pid, char *buf, size_t cap)
{
    char path[64], raw[512];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, raw, sizeof raw - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) {
        comm_of(pid, buf, cap);
        return;
    }
    raw[n] = 0;
    size_t len = 0;
    buf[0] = 0;
    const char *a = raw;
    for (int i = 0; i < 3 && a < raw + n; i++, a += strlen(a) + 1) {
        const char *word = a;
        if (i == 0 && strrchr(a, '/')) word = strrchr(a, '/') + 1;
        int w = snprintf(buf + len, cap - len, "%s%s", i ? " " : "", word);
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
    }
}

void kc_proc_describe_tree(pid_t root, char *buf, size_t cap)
{
    pid_t p[KC_PROC_MAX];
    if (!cap) return;
    int n = kc_proc_descendants(root, p, KC_PROC_MAX);
    if (n < 0) {
        snprintf(buf, cap, "unknown (/proc cannot be read)");
        return;
    }
    if (n == 0) {
        snprintf(buf, cap, "none");
        return;
    }
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0) hz = 100;
    unsigned long long now = kc_proc_boot_ticks();
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n && i < KC_PROC_MAX; i++) {
        char args[160], one[240], st = '?';
        pid_t pp, pg;
        unsigned long long start = now;
        args_of(p[i], args, sizeof args);
        kc_proc_stat(p[i], &st, &pp, &pg, &start);
        int w = snprintf(one, sizeof one, "%spid %ld %s (%c, %.1f s)", i ? ", " : "", (long)p[i], args, st,
                         start <= now ? (double)(now - start) / (double)hz : 0.0);
        if (list_append(buf, cap, &len, one, sizeof one, w, i == 0)) return;
    }
    if (n > KC_PROC_MAX && len + 5 < cap) snprintf(buf + len, cap - len, ", ...");
}
