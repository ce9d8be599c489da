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

#include "report_json.h"
#include "report_junit.h"
#include "report_timeline.h"
#include "safe_file.h"

typedef int (*report_fn)(FILE *f, const kc_records *rs, int which);

static int write_final(FILE *f, const kc_records *rs, int which)
{
    return which == 0 ? kc_report_json(f, rs) : which == 1 ? kc_report_junit(f, rs, "kcontract") : kc_report_timeline_svg(f, rs);
}

/* What a report says until the run that writes it has finished. */
static int write_incomplete(FILE *f, const kc_records *rs, int which)
{
    char why[256];
    (void)rs;
    snprintf(why, sizeof why, "the kcontract run (pid %ld) that writes this report has not finished: it is still running, "
             "or it ended before writing it (killed, crashed or refused); this is not a result", (long)getpid());
    if (which == 0) {
        fprintf(f, "{\"type\":\"incomplete\",\"pid\":%ld,\"message\":\"%s\"}\n", (long)getpid(), why);
    } else if (which == 1) {
        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<testsuites name=\"kcontract\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
                   "  <testsuite name=\"kcontract\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
                   "    <testcase classname=\"run\" name=\"kcontract.incomplete\" time=\"0.000\">\n"
                   "      <error type=\"INCOMPLETE\" message=\"%s\">%s</error>\n"
                   "    </testcase>\n  </testsuite>\n</testsuites>\n", why, why);
    } else {
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"incomplete\" width=\"1200\" height=\"60\" "
                   "font-family=\"sans-serif\" font-size=\"13\">\n<text x=\"10\" y=\"34\">%s</text>\n</svg>\n", why);
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
        fprintf(stderr, "kcontract: %s %s: %s\n", opt, path, strerror(ENOMEM));
        return -1;
    }
    int fd = direct ? open(path, O_WRONLY | O_CLOEXEC) : kc_temp_beside(path, tmp, n);
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
    if (rc) fprintf(stderr, "kcontract: %s %s: %s\n", opt, path, strerror(err ? err : EIO));
    free(tmp);
    return rc;
}

int kc_reports_begin(const char *json, const char *junit, const char *timeline)
{
    int rc = 0;
    rc |= write_one("--json", json, NULL, 0, write_incomplete);
    rc |= write_one("--junit", junit, NULL, 1, write_incomplete);
    rc |= write_one("--timeline", timeline, NULL, 2, write_incomplete);
    return rc ? -1 : 0;
}

int kc_reports_write(const kc_records *rs, const char *json, const char *junit, const char *timeline)
{
    int rc = 0;
    rc |= write_one("--json", json, rs, 0, write_final);
    rc |= write_one("--junit", junit, rs, 1, write_final);
    rc |= write_one("--timeline", timeline, rs, 2, write_final);
    return rc ? -1 : 0;
}
