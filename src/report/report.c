/* report.c — writing the reports asked for (report.h): dispatches to the
 * writers (report_json.c, report_junit.c, report_timeline.c), each below it,
 * and makes every report appear whole or say it is incomplete. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progname.h"
#include "report_json.h"
#include "report_junit.h"
#include "report_text.h"
#include "report_timeline.h"
#include "safe_file.h"

typedef int (*report_fn)(FILE *f, const kc_records *rs, int which);

static const kc_junit_run *final_run;   /* kc_reports_write's, for the JUnit report */

static int write_final(FILE *f, const kc_records *rs, int which)
{
    return which == 0 ? kc_report_json(f, rs) : which == 1 ? kc_report_junit(f, rs, final_run) : kc_report_timeline_svg(f, rs);
}

/* What a report says until the run that writes it has finished. The
 * program's name (progname.h) is escaped as any text of a report. */
static int write_incomplete(FILE *f, const kc_records *rs, int which)
{
    char why[512];
    const char *prog = kc_prog();
    (void)rs;
    snprintf(why, sizeof why, "the %s run (pid %ld) that writes this report has not finished: it is still running, "
             "or it ended before writing it (killed, crashed or refused); this is not a result", prog, (long)getpid());
    if (which == 0) {
        fprintf(f, "{\"type\":\"incomplete\",\"pid\":%ld,\"message\":", (long)getpid());
        kc_json_string(f, why, sizeof why);
        fputs("}\n", f);
    } else if (which == 1) {
        const char *count = " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n";
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", f);
        kc_xml_text(f, prog, strlen(prog), 1);
        fprintf(f, "\"%s  <testsuite name=\"", count);
        kc_xml_text(f, prog, strlen(prog), 1);
        fprintf(f, "\"%s    <testcase classname=\"run\" name=\"", count);
        kc_xml_text(f, prog, strlen(prog), 1);
        fputs(".incomplete\" time=\"0.000\">\n      <error type=\"INCOMPLETE\" message=\"", f);
        kc_xml_text(f, why, sizeof why, 1);
        fputs("\">", f);
        kc_xml_text(f, why, sizeof why, 0);
        fputs("</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n", f);
    } else {
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"incomplete\" width=\"1200\" height=\"60\" "
                   "font-family=\"sans-serif\" font-size=\"13\">\n<text x=\"10\" y=\"34\">");
        kc_xml_text(f, why, sizeof why, 0);
        fputs("</text>\n</svg>\n", f);
    }
    return ferror(f) ? -1 : 0;
}

/* Writes one report through a temporary file renamed into place, so a reader
 * never sees half a report; straight into a path that exists and is not a
 * regular file (/dev/stdout, a pipe), where the placeholder is not written.
 * The temporary file is a new file at an unguessable name (safe_file.h): a
 * symbolic link planted beside the report is never followed. */
static int write_one(const char *opt, const char *path, const kc_records *rs, int which, report_fn fn)
{
    if (!path) return 0;
    struct stat st;
    int direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (direct && fn == write_incomplete) return 0;
    size_t n = strlen(path) + 64;
    char *tmp = malloc(n);
    if (!tmp) {
        kc_say(stderr, "%s %s: %s\n", opt, path, strerror(ENOMEM));
        return -1;
    }
    /* A FIFO with no reader: ENXIO at once, not an open that waits for ever. */
    int fd = direct ? open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK) : kc_temp_beside(path, tmp, n);
    if (direct && fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int rc = -1, err = 0;
    if (f) {
        errno = 0;
        rc = fn(f, rs, which);
        if (rc || ferror(f)) rc = -1, err = errno;
        if (fclose(f) && !rc) rc = -1, err = errno;
        if (!direct && !rc && rename(tmp, path)) rc = -1, err = errno;
        if (!direct && rc) unlink(tmp);
    } else {
        err = errno;
        if (fd >= 0) {
            close(fd);
            if (!direct) unlink(tmp);
        }
    }
    if (rc) kc_say(stderr, "%s %s: %s\n", opt, path, strerror(err ? err : EIO));
    free(tmp);
    return rc;
}

/* ---- a run owns its report paths (issue 21) ----
 * Each report path P that is a regular file (or none yet) is owned by the
 * run through a POSIX record lock (fcntl F_SETLK) on "P.lock", taken before
 * the placeholder is written and held until the final report is in place.
 * A record lock belongs to the process: it survives the serial runner's
 * re-exec (the fd is not close-on-exec) and is not inherited by a child, so
 * an item's leftover process never holds it. The file holds the owner's pid
 * and is removed by its owner, while held, when the run ends. */

static struct held_lock {
    int fd;         /* -1: none */
    char *lock;     /* "P.lock" */
} held[3] = { { -1, NULL }, { -1, NULL }, { -1, NULL } };
static pid_t owner;     /* the process that took them (a forked child's exit() must not remove them) */

/* The pid the lock file open on fd names (0: none). */
static long pid_in(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = 0;
    return strtol(buf, NULL, 10);
}

/* The pid of the process holding the lock on fd's file: the lock's owner as
 * the kernel knows it, else the pid the file holds; 0 unknown. */
static long lock_holder(int fd)
{
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK && fl.l_pid > 0) return (long)fl.l_pid;
    return pid_in(fd);
}

static void release_all(void)
{
    for (int k = 0; k < 3; k++) {
        if (held[k].fd < 0) continue;
        unlink(held[k].lock);   /* while held: a run waiting for it re-checks the name (take_lock) */
        close(held[k].fd);      /* closing releases the record lock */
        held[k].fd = -1;
        free(held[k].lock);
        held[k].lock = NULL;
    }
}

static void release_at_exit(void)
{
    if (getpid() == owner) release_all();
}

/* Takes the lock of report k (path, given as opt): 0; or 2 after naming on
 * stderr the run that holds it, or why the lock file cannot be used; 4 out
 * of memory. */
static int take_lock(int k, const char *opt, const char *path)
{
    size_t n = strlen(path) + 8;
    char *lock = malloc(n), err[1024];
    if (!lock) {
        kc_say(stderr, "%s %s: %s\n", opt, path, strerror(ENOMEM));
        return 4;
    }
    snprintf(lock, n, "%s.lock", path);
    for (;;) {
        int fd = kc_lock_file_open(lock, 0, err, sizeof err);   /* not close-on-exec: the serial re-exec keeps it */
        if (fd < 0) {
            kc_say(stderr, "%s %s: %s\n", opt, path, err);
            free(lock);
            return 2;
        }
        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int e = errno;
            long pid = e == EACCES || e == EAGAIN ? lock_holder(fd) : 0;
            close(fd);
            if (e == EACCES || e == EAGAIN)
                kc_say(stderr, "%s %s: another kcontract run (pid %ld) is writing this report (it holds %s); "
                        "a run owns its report paths until it ends, so that one run's result is never read as "
                        "another's: wait for it to end, or give this run another path\n", opt, path, pid, lock);
            else
                kc_say(stderr, "%s %s: cannot lock %s: %s\n", opt, path, lock, strerror(e));
            free(lock);
            return 2;
        }
        /* The run before us removes the file at its end, while it holds it:
         * the lock counts only on the file the name still holds. */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && lstat(lock, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            char pid[32];
            int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {}   /* for people; the lock is what counts */
            held[k].fd = fd;
            held[k].lock = lock;
            return 0;
        }
        close(fd);
    }
}

int kc_reports_begin(const char *json, const char *junit, const char *timeline)
{
    const char *opt[3] = { "--json", "--junit", "--timeline" }, *path[3] = { json, junit, timeline };
    owner = getpid();
    static int registered;
    if (!registered) registered = atexit(release_at_exit) == 0;
    for (int k = 0; k < 3; k++) {
        struct stat st;
        if (!path[k] || (stat(path[k], &st) == 0 && !S_ISREG(st.st_mode))) continue;   /* /dev/stdout: no lock */
        int rc = take_lock(k, opt[k], path[k]);
        if (rc) {
            release_all();
            return rc;
        }
    }
    int rc = 0;
    rc |= write_one("--json", json, NULL, 0, write_incomplete);
    rc |= write_one("--junit", junit, NULL, 1, write_incomplete);
    rc |= write_one("--timeline", timeline, NULL, 2, write_incomplete);
    return rc ? 4 : 0;
}

/* At the end: lets go of the reports' locks: those this process took, and
 * those a process before the serial runner's re-exec took (held by this
 * process still, their files naming its pid). */
static void reports_end(const char *const *path)
{
    if (held[0].fd >= 0 || held[1].fd >= 0 || held[2].fd >= 0) {
        release_all();
        return;
    }
    for (int k = 0; k < 3; k++) {
        if (!path[k]) continue;
        size_t n = strlen(path[k]) + 8;
        char *lock = malloc(n);
        if (!lock) continue;
        snprintf(lock, n, "%s.lock", path[k]);
        /* removed before this fd closes: closing any fd of the file releases this process's lock */
        int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 && pid_in(fd) == (long)getpid()) unlink(lock);
        if (fd >= 0) close(fd);
        free(lock);
    }
}

int kc_reports_write(const kc_records *rs, const char *json, const char *junit, const char *timeline,
                     const kc_junit_run *run)
{
    int rc = 0;
    final_run = run;
    rc |= write_one("--json", json, rs, 0, write_final);
    rc |= write_one("--junit", junit, rs, 1, write_final);
    rc |= write_one("--timeline", timeline, rs, 2, write_final);
    const char *path[3] = { json, junit, timeline };
    reports_end(path);
    final_run = NULL;
    return rc ? -1 : 0;
}
