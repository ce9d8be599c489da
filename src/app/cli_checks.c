/* cli_checks.c — owns the command line's refusals and its checks beyond
 * one option's value (cli.c parses; the option table's own checks, given
 * twice and applies to, stay there with it): the words of every refusal
 * (kc_cli_usage_error); the combinations the parallel options (--jobs,
 * --shard, --schedule static, --devices) and the internal ones refuse
 * (kc_cli_check_parallel, which the parse runs); whether two names are one
 * file (kc_cli_same_file); and the files a run will write at its end, the
 * reports and the cost table: each its own file and writable, tried before
 * anything runs (kc_cli_check_reports), then made absolute against the
 * directory the run started in, as is the results cache's KC_CACHE_DIR
 * (kc_cli_resolve_paths, issue 21). */
#include "cli_checks.h"
#include "costs.h"
#include "safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progname.h"

int kc_cli_usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", kc_prog());     /* the program's own name (progname.h) */
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(%s --help lists the options)\n", kc_prog());
    return 2;
}

/* The combinations --shard, --jobs and --devices refuse (which command takes
 * which option is the table's: check_commands, cli.c). */
int kc_cli_check_parallel(const kc_opts *o)
{
    char why[256];
    if (o->jobs && o->sharded && o->schedule_static) {
        snprintf(why, sizeof why, "--schedule static and --shard %d/%d do not combine (static runs every shard itself; "
                 "--shard K/N --jobs %d runs slice K on the work queue)", o->shard_k, o->shard_n, o->jobs);
        return kc_cli_usage_error("%s%s", why, "");
    }
    if (o->schedule_given && !o->jobs) return kc_cli_usage_error("--schedule needs --jobs%s%s", "", "");
    if (o->jobs && o->schedule_static && (o->timeout_s > 0 || o->fail_fast || o->max_restarts >= 0))
        return kc_cli_usage_error("%s applies to the work queue (a serial run, --shard K/N, --jobs N), not to --schedule "
                                  "static%s", o->fail_fast ? "--fail-fast" : o->timeout_s > 0 ? "--timeout" : "--restarts", "");
    if (o->rerun_failed && o->jobs && o->schedule_static)   /* its shards would each re-read the table */
        return kc_cli_usage_error("--rerun-failed does not apply to --schedule static (its shards would each read the cost "
                                  "table again; the work queue selects once, in the parent)%s%s", "", "");
    if (o->costs_given && o->jobs && o->schedule_static)
        return kc_cli_usage_error("--costs does not apply to --schedule static (its shards are item i %% N)%s%s", "", "");
    if (o->sanitize_target && (o->cmd != KC_CMD_RUN || o->jobs || o->sharded || o->worker || o->npatterns > 1))
        return kc_cli_usage_error("--sanitize-target: internal option of a :sanitize item (run, one item name or none: "
                                  "requests on stdin; no --jobs, --shard or --worker)%s%s", "", "");
    if (o->cases_given && (o->cmd != KC_CMD_RUN || o->jobs || o->sharded || o->worker || o->sanitize_target || o->npatterns != 1))
        return kc_cli_usage_error("--cases: internal option of a known finding's fault (run, one kernel item; no --jobs, "
                                  "--shard, --worker or --sanitize-target)%s%s", "", "");
    if (o->worker && (!o->parent || o->jobs || o->sharded))
        return kc_cli_usage_error("--worker: internal option of a --jobs parent (needs --parent, no --jobs or --shard)%s%s", "", "");
    /* Only a worker reads it: given to a run, its workers would still wait
     * as their parent chose, and the value would be taken for nothing. */
    if (o->gpu_wait && !o->worker)
        return kc_cli_usage_error("--gpu-wait: internal option a run gives its worker (needs --worker); to choose how "
                                  "every process of a run waits for the GPU, set KC_CUDA_SCHED=block|spin|yield|auto%s%s",
                                  "", "");
    if (o->gpu_shared && !o->worker)
        return kc_cli_usage_error("--gpu-shared: internal option a --jobs run gives its workers (needs --worker)%s%s", "", "");
    if (o->ndevices && (!o->jobs || o->device_given)) {
        size_t n = (size_t)snprintf(why, sizeof why, "--devices ");
        for (int i = 0; i < o->ndevices && n < sizeof why; i++)
            n += (size_t)snprintf(why + n, sizeof why - n, "%s%d", i ? "," : "", o->devices[i]);
        return kc_cli_usage_error("%s %s", why, o->jobs ? "and --device do not combine" : "needs --jobs (one process takes --device D)");
    }
    return 0;
}

/* The directory path's file is in, into dir: "/" for "/x", "." for "x". */
static void path_dir(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (slash == path) snprintf(dir, cap, "/");
    else if (slash) snprintf(dir, cap, "%.*s", (int)(slash - path), path);
    else snprintf(dir, cap, ".");
}

/* path made absolute, with its directory resolved (the file itself need not
 * exist yet), for telling whether two options name one file. */
static void canon_path(const char *path, char *out, size_t cap)
{
    char dir[PATH_MAX], res[PATH_MAX];
    if (realpath(path, res)) {
        snprintf(out, cap, "%s", res);
        return;
    }
    const char *slash = strrchr(path, '/');
    path_dir(path, dir, sizeof dir);
    if (realpath(dir, res)) snprintf(out, cap, "%s/%s", strcmp(res, "/") ? res : "", slash ? slash + 1 : path);
    else snprintf(out, cap, "%s", path);
}

/* Nonzero when a and b are one file: the same inode, or the same path once
 * resolved (./r.json and r.json; a file neither has created yet). */
int kc_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    if (strcmp(a, b) == 0) return 1;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    canon_path(a, ca, sizeof ca);
    canon_path(b, cb, sizeof cb);
    return strcmp(ca, cb) == 0;
}

int kc_cli_input_holds(const char *input, const char *path)
{
    struct stat si, sp;
    if (kc_cli_same_file(input, path)) return 1;
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".log") != 0 || stat(input, &si) != 0 || !S_ISDIR(si.st_mode) ||
        stat(path, &sp) != 0 || !S_ISREG(sp.st_mode))
        return 0;
    char ri[PATH_MAX], rp[PATH_MAX];     /* merge_logs.c reads every *.log under the directory */
    if (!realpath(input, ri) || !realpath(path, rp)) return 0;
    size_t l = strlen(ri);
    return strncmp(rp, ri, l) == 0 && (rp[l] == '/' || (l == 1 && ri[0] == '/'));
}

/* Whether the run will be able to write path when it ends, tried before
 * anything runs: reports and the cost table are written to a new
 * PATH.tmp.PID.XXXXXXXX renamed over PATH (report.c, costs.c, safe_file.h),
 * so such a file is created and removed again here; a report may also go
 * straight into a PATH that exists and is no regular file (/dev/stdout, a
 * pipe), when direct_ok. what names the file in the message ("the report",
 * "the cost table"). */
static int check_writable(const char *opt, const char *path, int direct_ok, const char *what)
{
    struct stat st;
    char why[2 * PATH_MAX + 160];
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(why, sizeof why, "%s %s: is a directory, expected a file name", opt, path);
        return kc_cli_usage_error("%s%s", why, "");
    }
    if (exists && !S_ISREG(st.st_mode)) {
        if (!direct_ok) {
            snprintf(why, sizeof why, "%s %s: not a regular file (it is replaced through a temporary file beside it)", opt, path);
            return kc_cli_usage_error("%s%s", why, "");
        }
        /* A FIFO is not opened here: its reader would take the close for the
         * end of the report, and an open waits for a reader (report.c opens
         * it at the run's end, without waiting). */
        int fd = S_ISFIFO(st.st_mode) ? (access(path, W_OK) == 0 ? -2 : -1) : open(path, O_WRONLY | O_CLOEXEC);
        if (fd == -1) {
            snprintf(why, sizeof why, "%s %s: %s", opt, path, strerror(errno));
            return kc_cli_usage_error("%s%s", why, "");
        }
        if (fd >= 0) close(fd);
        return 0;
    }
    char tmp[PATH_MAX + 64];
    int fd = kc_temp_beside(path, tmp, sizeof tmp);   /* a new file, never through a planted symlink */
    if (fd < 0) {       /* the folder, not the temporary file's name, is what the user can fix */
        int e = errno;
        char dir[PATH_MAX];
        path_dir(path, dir, sizeof dir);
        snprintf(why, sizeof why, "%s %s: cannot create a file in %s (%s is written there and renamed into "
                 "place): %s", opt, path, dir, what, strerror(e));
        return kc_cli_usage_error("%s%s", why, "");
    }
    close(fd);
    unlink(tmp);
    return 0;
}

/* --json, --junit, --timeline (the commands that take them: the table): not
 * with --schedule static, each its own file, none a file the run reads
 * (kc_cli_input_holds), and every file the run writes (these, and the cost table when it
 * writes one) can be written; all checked before anything runs. */
int kc_cli_check_reports(const kc_opts *o)
{
    const char *opt[4] = { "--json", "--junit", "--timeline", kc_costs_origin(o) };
    const char *costs = o->costs ? o->costs : o->jobs && !o->schedule_static ? o->costs_default : NULL;
    const char *path[4] = { o->json, o->junit, o->timeline, costs };
    for (int k = 0; k < 4; k++) {
        if (!path[k]) continue;
        if (k < 3 && o->jobs && o->schedule_static)
            return kc_cli_usage_error("%s needs a serial run or the --jobs work queue; --schedule static writes no reports%s",
                                      opt[k], "");
        for (int j = k + 1; j < 4; j++)
            if (path[j] && kc_cli_same_file(path[k], path[j]))
            {
                char why[2 * PATH_MAX + 64];
                snprintf(why, sizeof why, "%s and %s name the same file ('%s' and '%s')", opt[k], opt[j], path[k], path[j]);
                return kc_cli_usage_error("%s: each needs its own%s", why, "");
            }
        /* a report replaces its file as the run starts (report.h: incomplete
         * until its end): never one the run reads, a merge's log or a
         * launch record file (given as --json, the log was gone before it was read) */
        for (int i = 0; k < 3 && i < o->nlogs + o->nrecords; i++) {
            const char *in = i < o->nlogs ? o->logs[i] : o->records[i - o->nlogs];
            if (kc_cli_input_holds(in, path[k])) {
                char why[2 * PATH_MAX + 160];
                snprintf(why, sizeof why, "%s %s: the file %s %s %s, which this %s reads: a report replaces its file "
                         "as the run starts; expected a file of its own", opt[k], path[k],
                         kc_cli_same_file(in, path[k]) ? "given as" : "is a log under", i < o->nlogs ? "--log" : "--records",
                         in, o->cmd == KC_CMD_MERGE ? "merge" : "run");
                return kc_cli_usage_error("%s%s", why, "");
            }
        }
        if (k < 3 ? check_writable(opt[k], path[k], 1, "the report")
                  : kc_cli_writes_costs(o) ? check_writable(opt[k], path[k], 0, "the cost table") : 0)
            return 2;
    }
    return 0;
}

/* Points *val, and its value word in every kind of child's inherited
 * options (o->inherit: "--json" "V"), at abs; abs is kept in o->resolved[k]
 * (freed by kc_opts_free). 0, or -1 out of memory. */
static int use_resolved(kc_opts *o, const char *opt, const char **val, char *abs, int k)
{
    for (int kind = 0; kind < KC_ARGV_KINDS; kind++) {     /* the children's words: the re-exec's */
        kc_strvec *sv = &o->inherit[kind];
        for (size_t i = 0; i + 1 < sv->n; i++)
            if (strcmp(sv->v[i], opt) == 0 && strcmp(sv->v[i + 1], *val) == 0) {
                char *w = strdup(abs);
                if (!w) return -1;
                free(sv->v[i + 1]);
                sv->v[i + 1] = w;
            }
    }
    *val = abs;
    o->resolved[k] = abs;
    return 0;
}

/* A relative KC_CACHE_DIR (result_cache.h) made absolute against cwd in
 * this process's environment, which its children and its re-exec inherit:
 * a static shard keeps and removes entries in its own process, after items
 * that may have called chdir() (a pass its --no-cache run found failing
 * was removed from the wrong folder, and the next run reused it). "off"
 * and empty stay as they are. 0, or 4 out of memory. */
/* "CWD/V", malloc'd; NULL out of memory (said on stderr). */
static char *join_cwd(const char *cwd, const char *v)
{
    size_t n = strlen(cwd) + strlen(v) + 2;
    char *abs = malloc(n);
    if (abs) snprintf(abs, n, "%s/%s", cwd, v);
    else kc_say(stderr, "out of memory\n");
    return abs;
}

static int resolve_cache_dir(const char *cwd)
{
    const char *v = getenv("KC_CACHE_DIR");
    if (!v || !v[0] || v[0] == '/' || strcasecmp(v, "off") == 0) return 0;
    char *abs = join_cwd(cwd, v);
    if (!abs) return 4;
    int rc = setenv("KC_CACHE_DIR", abs, 1);
    free(abs);
    if (rc) kc_say(stderr, "out of memory\n");
    return rc ? 4 : 0;
}

/* Issue 21: the files a run writes at its end are fixed where the command
 * line named them, before anything runs: a relative --json, --junit,
 * --timeline or --costs becomes absolute against the directory the run
 * started in, so an item that calls chdir() cannot move them (nor the
 * serial runner's re-exec, which reads the same words); so does the
 * results cache's KC_CACHE_DIR. 0, or 4 out of memory; a working directory
 * that cannot be read leaves them as given. */
int kc_cli_resolve_paths(kc_opts *o)
{
    const char *opt[4] = { "--json", "--junit", "--timeline", "--costs" };
    const char **val[4] = { &o->json, &o->junit, &o->timeline, &o->costs };
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return 0;
    if (resolve_cache_dir(cwd)) return 4;
    for (int k = 0; k < 4; k++) {
        const char *v = *val[k];
        if (!v || !v[0] || v[0] == '/') continue;
        char *abs = join_cwd(cwd, v);
        if (!abs) return 4;
        if (use_resolved(o, opt[k], val[k], abs, k)) {
            free(abs);
            kc_say(stderr, "out of memory\n");
            return 4;
        }
    }
    return 0;
}
