/* cli.c — command-line parsing and the help text. */
#include "cli.h"
#include "costs.h"
#include "parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KC_STR_(x) #x
#define KC_STR(x) KC_STR_(x)   /* a macro's value as a string literal */

void kc_cli_usage(FILE *out, const char *prog)
{
    const char *slash = prog ? strrchr(prog, '/') : NULL;
    const char *p = slash ? slash + 1 : prog && *prog ? prog : "kcontract";
    fprintf(out, "usage: %s [run] [options] [PATTERN...]   check items (default: all)\n"
                 "       %s list [PATTERN...]            list items and their kinds\n"
                 "       %s merge [PATTERN...] --log F...  one TALLY and SUMMARY from the saved outputs\n"
                 "                                              of the --shard K/N runs of a multi-host run\n"
                 "       %s info                         driver and devices\n", p, p, p, p);
    fputs("\n"
          "PATTERN is a shell glob over item names, e.g. 'rmsnorm.*' or '*:control.*'.\n"
          "  --exclude G   leave out the items glob G matches (repeatable; '!G' as a PATTERN is the same)\n"
          "Items: <contract> (gates 1-4), <contract>:limits, <contract>:control.<name>,\n"
          "<contract>:sanitize (compute-sanitizer: docs/sanitizer-gate.md), suites.\n"
          "\n"
          "options:\n"
          "  --seed S      run seed (default 1); every input derives from it and the item's name\n"
          "  --device D    CUDA device ordinal (default 0)\n"
          "  --shard K/N   run slice K of N (K = 0..N-1): item i of the filtered, name-sorted list\n"
          "                belongs to shard i % N; the TALLY records K/N, the slice's items and digest;\n"
          "                with --jobs M, slice K runs on M workers. 'auto': K/N from Bazel's, GoogleTest's,\n"
          "                Slurm's (job array) or Kubernetes' (Indexed Job, KC_SHARDS) variables; a run\n"
          "                honours Bazel's and GoogleTest's without --shard too (docs/multi-host.md)\n"
          "  --jobs N      run the selected items in N worker processes (a work queue, see\n"
          "                --schedule); each worker line is printed as it comes, prefixed [wK] ([K/N]\n"
          "                with --schedule static), then one TALLY and SUMMARY equal to the serial\n"
          "                run's; workers go round robin over the visible GPUs (CUDA_VISIBLE_DEVICES\n"
          "                applies) or over --devices\n"
          "  --devices L   with --jobs: device ordinals to spread the children over, e.g. 0,2,3\n"
          "  --log F       merge: the saved output of one --shard K/N run, or a directory: every *.log\n"
          "                under it (Bazel's bazel-testlogs); repeat it; merge also takes the shards'\n"
          "                patterns, --records, --seed and --costs, and --json, --junit\n"
          "  --allow-mixed-gpus  merge: shards that ran on different GPU models, compute\n"
          "                capabilities or SM counts merge (refused by default)\n"
          "  --records F   check the launches recorded in file F (docs/launch-records.md): one kernel\n"
          "                item <contract>@<label> per line, gates 1-4 on exactly that shape; with no\n"
          "                PATTERN only the record items are selected (add '*' for every item too);\n"
          "                repeat it for several files (labels must differ across them)\n"
          "  --schedule S  with --jobs: 'queue' (default): N long-lived workers take one item at\n"
          "                a time, items that failed last time first, then longest first by the\n"
          "                cost table; a crash or hang costs one item (CRASH, TIMEOUT), a fresh worker\n"
          "                takes over; 'static': N shards, item i in shard i % N, as --shard does\n"
          "  --costs FILE  the cost table (default ./.kcontract-costs.tsv): read by a --jobs run to\n"
          "                order the queue and written after it (a serial run writes it only when\n"
          "                given --costs); with --shard K/N the partition is by cost (longest\n"
          "                first onto the least-loaded shard) instead of i % N\n"
          "  --timeout S   with --jobs: every item's time limit in seconds (default: the contract's\n"
          "                timeout_s, else max(60, 5 x recorded seconds), 600 with no record)\n"
          "  --fail-fast   with --jobs: stop handing out items after the first failure; the rest\n"
          "                are NOTRUN\n"
          "  --rerun-failed  run (or list) only the items the cost table (--costs) records as failed\n"
          "                last time, among those the PATTERNs select; none: nothing runs, exit 0;\n"
          "                no table: exit 2. The run writes the table back (docs/parallel-runs.md)\n"
          "  --restarts M  with --jobs: replace at most M workers that crashed, timed out or did not start\n"
          "                (default 2 x N + 8); then the items not handed out yet are NOTRUN\n"
          "  --json FILE   write a JSON Lines report: one object per item (state, worker, times,\n"
          "                peak RSS and GPU memory, message), one per worker, one summary\n"
          "  --junit FILE  write a JUnit XML report (one testcase per item) for CI\n"
          "  --timeline FILE.svg  write an SVG timeline: one row per worker, one bar per item\n"
          "                (docs/reports.md describes the three reports)\n"
          "  --threads T   host threads per process for custom input generators and host\n"
          "                references, 1 to " KC_STR(KC_MAX_THREADS) " (default: every CPU up to that; with --jobs N,\n"
          "                CPUs / N per worker)\n"
          "  --reference R which float64 reference gate 3 compares with: 'device' (default): the\n"
          "                contract's CUDA reference where it has one, else its host reference;\n"
          "                'host': always the host reference (the oracle); 'both': both on every\n"
          "                case, failing the case where they differ beyond the contract's bound\n"
          "  --help        this text\n"
          "\n"
          "Each item prints one line: PASS, FAIL, KNOWN, RED, MISSED, LIMIT, LEAK (it left processes\n"
          "or GPU state behind) or SKIP (a --jobs run also CRASH, TIMEOUT, NOTRUN), ending with its\n"
          "time; then a machine-readable TALLY line and a SUMMARY line (docs/output-format.md).\n"
          "exit status: 0 everything ran and passed; 1 a failure, missed control, limit problem,\n"
          "stale known finding, LEAK, CRASH, TIMEOUT or NOTRUN; 2 bad usage (also a malformed cost\n"
          "table, or mistakes in the registered contracts: all of them are named); 3 nothing failed\n"
          "but items were skipped (e.g. no GPU); 4 internal error.\n"
          "--schedule static: 1 also when a shard did not finish or the merge failed (the reasons\n"
          "name the shard). --jobs: 128+signal when interrupted (130 for SIGINT). info: 0 with a\n"
          "device, 3 with none (no driver or no device).\n"
          "docs/parallel-runs.md describes --shard, --jobs (the work queue, the cost table, faults),\n"
          "--schedule static, the merge and the memory plan.\n"
          "\n"
          "environment:\n"
          "  KC_LIBCUDA    the CUDA driver library to load (default libcuda.so.1; the tests' fake driver)\n"
          "  KC_LIBNVML    the NVML library for the GPU-state watch (default libnvidia-ml.so.1)\n"
          "  KC_LIBDIR     ':'-separated directories of library kernels' lib<name>.so (default: lib/\n"
          "                next to the binary, then ../lib/kcontract/ from it)\n"
          "  KC_CUDA_SCHED how a waiting host thread waits for the GPU: block (default), spin, yield, auto\n"
          "  KC_COMPUTE_SANITIZER  the compute-sanitizer of the :sanitize items (default: PATH, then\n"
          "                /usr/local/cuda/bin; docs/sanitizer-gate.md)\n"
          "  KC_SANITIZE_TIMEOUT_S  seconds per sanitizer tool run of a :sanitize item\n"
          "  CUDA_VISIBLE_DEVICES  the devices the driver shows, as for any CUDA program\n"
          "  NO_COLOR      set: no colour in the output, even on a terminal\n",
          out);
}

int kc_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) return -1;
    *out = v;
    return 0;
}

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "kcontract: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(kcontract --help lists the options)\n");
    return 2;
}

/* One of --shard K/N, --jobs N, --devices LIST, --parent PID (internal). */
static int parse_parallel(const char *a, const char *v, kc_opts *o)
{
    char why[256];
    uint64_t x;
    if (!v) return usage_error("%s needs a value%s", a, "");
    if (strcmp(a, "--shard") == 0) {
        if (strcmp(v, "auto") == 0) o->shard_auto = 1;   /* 0/1 until main reads the engine's variables */
        else if (kc_shard_parse(v, &o->shard_k, &o->shard_n, why, sizeof why))
            return usage_error("--shard: %s (or 'auto': from Bazel's, GoogleTest's, Slurm's or Kubernetes' variables)%s", why, "");
        o->sharded = 1;
    } else if (strcmp(a, "--jobs") == 0) {
        if (kc_parse_u64(v, KC_MAX_SHARDS, &x) || x == 0) {
            snprintf(why, sizeof why, "--jobs: expected a number of processes from 1 to %d, got '%.64s'", KC_MAX_SHARDS, v);
            return usage_error("%s%s", why, "");
        }
        o->jobs = (int)x;
    } else if (strcmp(a, "--devices") == 0) {
        int n = kc_devices_parse(v, o->devices, KC_MAX_DEVLIST, why, sizeof why);
        if (n < 0) return usage_error("--devices: %s%s", why, "");
        o->ndevices = n;
    } else {
        if (kc_parse_u64(v, INT_MAX, &x) || x == 0)
            return usage_error("--parent: internal option, expected a process id, got '%s'%s", v, "");
        o->parent = (long)x;
    }
    return 0;
}

/* One of --schedule queue|static, --costs FILE, --timeout S. */
static int parse_queue(const char *a, const char *v, kc_opts *o)
{
    if (!v) return usage_error("%s needs a value%s", a, "");
    if (strcmp(a, "--schedule") == 0) {
        if (strcmp(v, "static") && strcmp(v, "queue"))
            return usage_error("--schedule: expected 'queue' or 'static', got '%.64s'%s", v, "");
        o->schedule_static = v[0] == 's';
        o->schedule_given = 1;
    } else if (strcmp(a, "--costs") == 0) {
        if (!*v) return usage_error("--costs: expected a file name, got ''%s%s", "", "");
        o->costs = v;
        o->costs_given = 1;
    } else if (strcmp(a, "--restarts") == 0) {
        uint64_t x;
        if (kc_parse_u64(v, 1000000, &x))
            return usage_error("--restarts: expected a number of worker restarts from 0 to 1000000, got '%.64s'%s", v, "");
        o->max_restarts = (int)x;
    } else {
        char *end;
        errno = 0;
        double t = strtod(v, &end);
        if (!*v || *end || errno || !(t > 0) || t > 1e7 || strpbrk(v, "xXnNiI"))
            return usage_error("--timeout: expected seconds above 0 (e.g. 30 or 0.5), got '%.64s'%s", v, "");
        o->timeout_s = t;
    }
    return 0;
}

/* The combinations --shard, --jobs and --devices refuse. */
static int check_parallel(const kc_opts *o)
{
    char why[256];
    if (o->jobs && o->sharded && o->schedule_static) {
        snprintf(why, sizeof why, "--schedule static and --shard %d/%d do not combine (static runs every shard itself; "
                 "--shard K/N --jobs %d runs slice K on the work queue)", o->shard_k, o->shard_n, o->jobs);
        return usage_error("%s%s", why, "");
    }
    if (o->jobs && o->cmd != KC_CMD_RUN) return usage_error("--jobs applies to run only%s%s", "", "");
    if (o->schedule_given && !o->jobs) return usage_error("--schedule needs --jobs%s%s", "", "");
    if (!o->worker && !(o->jobs && !o->schedule_static) && (o->timeout_s > 0 || o->fail_fast || o->max_restarts >= 0))
        return usage_error("%s applies to --jobs N with the work queue (not to a serial run or --schedule static)%s",
                           o->fail_fast ? "--fail-fast" : o->timeout_s > 0 ? "--timeout" : "--restarts", "");
    if (o->rerun_failed && o->jobs && o->schedule_static)   /* its shards would each re-read the table */
        return usage_error("--rerun-failed does not apply to --schedule static (its shards would each read the cost "
                           "table again; the work queue selects once, in the parent)%s%s", "", "");
    if (o->costs_given && o->jobs && o->schedule_static)
        return usage_error("--costs does not apply to --schedule static (its shards are item i %% N)%s%s", "", "");
    if (o->sanitize_target && (o->cmd != KC_CMD_RUN || o->jobs || o->sharded || o->worker || o->npatterns != 1))
        return usage_error("--sanitize-target: internal option of a :sanitize item (run, one item name, no --jobs, "
                           "--shard or --worker)%s%s", "", "");
    if (o->worker && (!o->parent || o->jobs || o->sharded))
        return usage_error("--worker: internal option of a --jobs parent (needs --parent, no --jobs or --shard)%s%s", "", "");
    if (o->sharded && o->cmd == KC_CMD_INFO) return usage_error("--shard applies to run and list only%s%s", "", "");
    if (o->ndevices && (!o->jobs || o->device_given)) {
        size_t n = (size_t)snprintf(why, sizeof why, "--devices ");
        for (int i = 0; i < o->ndevices && n < sizeof why; i++)
            n += (size_t)snprintf(why + n, sizeof why - n, "%s%d", i ? "," : "", o->devices[i]);
        return usage_error("%s %s", why, o->jobs ? "and --device do not combine" : "needs --jobs (one process takes --device D)");
    }
    return 0;
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
    if (slash == path) snprintf(dir, sizeof dir, "/");
    else if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else snprintf(dir, sizeof dir, ".");
    if (realpath(dir, res)) snprintf(out, cap, "%s/%s", strcmp(res, "/") ? res : "", slash ? slash + 1 : path);
    else snprintf(out, cap, "%s", path);
}

/* Nonzero when a and b are one file: the same inode, or the same path once
 * resolved (./r.json and r.json; a file neither has created yet). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    if (strcmp(a, b) == 0) return 1;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    canon_path(a, ca, sizeof ca);
    canon_path(b, cb, sizeof cb);
    return strcmp(ca, cb) == 0;
}

/* Whether the run will be able to write path when it ends, tried before
 * anything runs: reports and the cost table are written to PATH.tmp.PID and
 * renamed over PATH (report.c, costs.c), so that file is created and removed
 * again here; a report may also go straight into a PATH that exists and is
 * no regular file (/dev/stdout, a pipe), when direct_ok. */
static int check_writable(const char *opt, const char *path, int direct_ok)
{
    struct stat st;
    char why[2 * PATH_MAX + 160];
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(why, sizeof why, "%s %s: is a directory, expected a file name", opt, path);
        return usage_error("%s%s", why, "");
    }
    if (exists && !S_ISREG(st.st_mode)) {
        if (!direct_ok) {
            snprintf(why, sizeof why, "%s %s: not a regular file (it is replaced through a temporary file beside it)", opt, path);
            return usage_error("%s%s", why, "");
        }
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            snprintf(why, sizeof why, "%s %s: %s", opt, path, strerror(errno));
            return usage_error("%s%s", why, "");
        }
        close(fd);
        return 0;
    }
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(why, sizeof why, "%s %s: cannot create %s beside it: %s", opt, path, tmp, strerror(errno));
        return usage_error("%s%s", why, "");
    }
    close(fd);
    unlink(tmp);
    return 0;
}

int kc_cli_writes_costs(const kc_opts *o)
{
    if (o->cmd != KC_CMD_RUN || o->worker || o->parent) return 0;
    if (o->sharded) return 0;   /* every shard of a multi-host run cuts its slice from the one table */
    if (o->jobs) return !o->schedule_static;
    return o->costs_given || o->rerun_failed;
}

/* --json, --junit, --timeline: run only, not with --schedule static, each its
 * own file, and every file the run writes (these, and the cost table when it
 * writes one) can be written; all checked before anything runs. */
static int check_reports(const kc_opts *o)
{
    const char *opt[4] = { "--json", "--junit", "--timeline", "--costs" };
    const char *costs = o->costs ? o->costs : o->jobs && !o->schedule_static ? KC_COSTS_DEFAULT : NULL;
    const char *path[4] = { o->json, o->junit, o->timeline, costs };
    for (int k = 0; k < 4; k++) {
        if (!path[k]) continue;
        if (k < 3 && o->cmd != KC_CMD_RUN && !(o->cmd == KC_CMD_MERGE && k < 2))
            return usage_error("%s applies to run%s", opt[k], k < 2 ? " and merge only" : " only");
        if (k < 3 && o->jobs && o->schedule_static)
            return usage_error("%s needs a serial run or the --jobs work queue; --schedule static writes no reports%s",
                               opt[k], "");
        for (int j = k + 1; j < 4; j++)
            if (path[j] && same_file(path[k], path[j]))
            {
                char why[2 * PATH_MAX + 64];
                snprintf(why, sizeof why, "%s and %s name the same file ('%s' and '%s')", opt[k], opt[j], path[k], path[j]);
                return usage_error("%s: each needs its own%s", why, "");
            }
        if (k < 3 ? check_writable(opt[k], path[k], 1) : kc_cli_writes_costs(o) ? check_writable(opt[k], path[k], 0) : 0)
            return 2;
    }
    return 0;
}

/* Options that take one value may be given once: a second would silently
 * replace the first (--records, which repeats, checks its own). */
static const char *const ONCE[] = { "--seed", "--device", "--shard", "--jobs", "--devices", "--parent", "--threads",
                                    "--schedule", "--costs", "--timeout", "--restarts", "--json", "--junit",
                                    "--timeline", "--reference", NULL };

static int given_twice(const char *a, unsigned *seen)
{
    for (int i = 0; ONCE[i]; i++)
        if (strcmp(a, ONCE[i]) == 0) {
            if (*seen & (1u << i)) return 1;
            *seen |= 1u << i;
        }
    return 0;
}

int kc_cli_parse(int argc, char **argv, kc_opts *o)
{
    int rc = kc_cli_parse_args(argc, argv, o);
    if (rc || o->cmd == KC_CMD_HELP) return rc;
    return check_reports(o);
}

/* --exclude G: the pattern "!G" (filter.h), owned by o (kc_opts_free). */
static int exclusion(kc_opts *o, const char *glob)
{
    size_t n = strlen(glob);
    char *p = malloc(n + 2);
    if (!p) return usage_error("out of memory%s%s", "", "");
    p[0] = '!';
    memcpy(p + 1, glob, n + 1);
    o->patterns[o->npatterns++] = p;
    return 0;
}

int kc_cli_parse_args(int argc, char **argv, kc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->shard_n = 1;
    o->resume_records_fd = -1;
    o->costs = KC_COSTS_DEFAULT;
    o->max_restarts = -1;
    o->argv0 = argc > 0 ? argv[0] : "kcontract";
    o->argv = calloc((size_t)argc + 1, sizeof *o->argv);
    o->patterns = calloc((size_t)argc + 1, sizeof *o->patterns);
    o->logs = calloc((size_t)argc + 1, sizeof *o->logs);
    if (!o->argv || !o->patterns || !o->logs) return usage_error("out of memory%s%s", "", "");
    int i = 1;
    o->argv[o->argc++] = argv[0];
    if (i < argc && strcmp(argv[i], "run") == 0) o->argv[o->argc++] = argv[i++];
    else if (i < argc && strcmp(argv[i], "list") == 0) { o->cmd = KC_CMD_LIST; o->argv[o->argc++] = argv[i++]; }
    else if (i < argc && strcmp(argv[i], "info") == 0) { o->cmd = KC_CMD_INFO; o->argv[o->argc++] = argv[i++]; }
    else if (i < argc && strcmp(argv[i], "merge") == 0) { o->cmd = KC_CMD_MERGE; o->argv[o->argc++] = argv[i++]; }
    unsigned seen = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (given_twice(a, &seen)) return usage_error("%s given twice (the second value would silently replace the first)%s", a, "");
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->cmd = KC_CMD_HELP;
            return 0;
        } else if (strcmp(a, "--seed") == 0) {
            if (!v) return usage_error("%s needs a value (a non-negative integer)%s", a, "");
            if (kc_parse_u64(v, UINT64_MAX, &o->seed))
                return usage_error("--seed: expected a non-negative integer below 2^64, got '%s'%s", v, "");
        } else if (strcmp(a, "--device") == 0) {
            if (!v) return usage_error("%s needs a value (a device ordinal, see kcontract info)%s", a, "");
            if (kc_parse_u64(v, 1023, &x))
                return usage_error("--device: expected a device ordinal (0, 1, ...), got '%s'%s", v, "");
            o->device = (int)x;
            o->device_given = 1;
        } else if (strcmp(a, "--shard") == 0 || strcmp(a, "--jobs") == 0 || strcmp(a, "--devices") == 0 ||
                   strcmp(a, "--parent") == 0) {
            if (parse_parallel(a, v, o)) return 2;
        } else if (strcmp(a, "--threads") == 0) {
            if (!v || kc_parse_u64(v, KC_MAX_THREADS, &x) || x == 0)
                return usage_error("--threads: expected a number of host threads from 1 to " KC_STR(KC_MAX_THREADS) ", got '%s'%s",
                                   v ? v : "", "");
            o->threads = (int)x;
        } else if (strcmp(a, "--reference") == 0) {
            if (!v || (strcmp(v, "device") && strcmp(v, "host") && strcmp(v, "both")))
                return usage_error("--reference: expected 'device', 'host' or 'both', got '%.64s'%s", v ? v : "", "");
            o->reference = v[0] == 'd' ? KC_REF_DEVICE : v[0] == 'h' ? KC_REF_HOST : KC_REF_BOTH;
        } else if (strcmp(a, "--records") == 0) {
            if (!v) return usage_error("%s needs a value (a file of launch records, docs/launch-records.md)%s", a, "");
            for (int r = 0; r < o->nrecords; r++)
                if (strcmp(o->records[r], v) == 0) return usage_error("--records %s given twice%s", v, "");
            if (o->nrecords == KC_MAX_RECORD_FILES) {
                char most[16];
                snprintf(most, sizeof most, "%d", KC_MAX_RECORD_FILES);
                return usage_error("--records given more than %s times (at '%s')", most, v);
            }
            o->records[o->nrecords++] = v;
        } else if (strcmp(a, "--schedule") == 0 || strcmp(a, "--costs") == 0 || strcmp(a, "--timeout") == 0 ||
                   strcmp(a, "--restarts") == 0) {
            if (parse_queue(a, v, o)) return 2;
        } else if (strcmp(a, "--sanitize-target") == 0) {
            o->sanitize_target = 1;
            o->argv[o->argc++] = argv[i];
            continue;
        } else if (strcmp(a, "--fail-fast") == 0 || strcmp(a, "--worker") == 0 || strcmp(a, "--allow-mixed-gpus") == 0) {
            if (a[2] == 'f') o->fail_fast = 1;
            else if (a[2] == 'a') o->allow_mixed_gpus = 1;
            else o->worker = 1;
            o->argv[o->argc++] = argv[i];
            continue;
        } else if (strcmp(a, "--json") == 0 || strcmp(a, "--junit") == 0 || strcmp(a, "--timeline") == 0) {
            if (!v || !*v) return usage_error("%s needs a file name%s", a, "");
            *(a[2] == 'j' ? (a[3] == 's' ? &o->json : &o->junit) : &o->timeline) = v;
        } else if (strcmp(a, "--log") == 0) {
            if (!v || !*v) return usage_error("--log needs a file (the saved output of a --shard K/N run)%s%s", "", "");
            for (int l = 0; l < o->nlogs; l++)
                if (same_file(o->logs[l], v)) return usage_error("--log %s given twice%s", v, "");
            o->logs[o->nlogs++] = argv[i + 1];
        } else if (strcmp(a, "--resume-records") == 0) {
            if (!v || kc_parse_u64(v, INT_MAX, &x)) return usage_error("--resume-records: internal option, got '%s'%s", v ? v : "", "");
            o->resume_records_fd = (int)x;
            i++;
            continue;
        } else if (strcmp(a, "--resume-at") == 0) {
            if (!v || kc_parse_u64(v, 1u << 30, &x)) return usage_error("--resume-at: internal option, got '%s'%s", v ? v : "", "");
            o->resume_at = (int)x;
            i++;
            continue;
        } else if (strcmp(a, "--resume-tally") == 0) {
            if (!v) return usage_error("--resume-tally: internal option needs a TALLY line%s%s", "", "");
            o->resume_tally = v;
            i++;
            continue;
        } else if (strcmp(a, "--resume-elapsed") == 0) {
            if (!v) return usage_error("--resume-elapsed: internal option needs seconds%s%s", "", "");
            o->resume_elapsed = atof(v);
            i++;
            continue;
        } else if (strcmp(a, "--rerun-failed") == 0) {
            if (o->cmd != KC_CMD_RUN && o->cmd != KC_CMD_LIST)
                return usage_error("--rerun-failed applies to run and list only%s%s", "", "");
            o->rerun_failed = 1;
            o->argv[o->argc++] = argv[i];
            continue;
        } else if (strcmp(a, "--exclude") == 0) {
            if (!v || !*v) return usage_error("--exclude needs a glob (the items to leave out)%s%s", "", "");
            if (o->cmd == KC_CMD_INFO) return usage_error("info takes no patterns, got --exclude '%s'%s", v, "");
            if (exclusion(o, v)) return 2;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'%s", a, "");
        } else if (a[0] == '!') {   /* an exclusion as a pattern: how --exclude reaches static shards */
            if (o->cmd == KC_CMD_INFO) return usage_error("info takes no patterns, got '%s'%s", a, "");
            if (!a[1] || exclusion(o, a + 1)) return a[1] ? 2 : usage_error("'!' needs a glob after it%s%s", "", "");
            o->argv[o->argc++] = argv[i];
            continue;
        } else {
            if (o->cmd == KC_CMD_INFO) return usage_error("info takes no patterns, got '%s'%s", a, "");
            o->patterns[o->npatterns++] = argv[i];
            o->argv[o->argc++] = argv[i];
            continue;
        }
        o->argv[o->argc++] = argv[i];
        o->argv[o->argc++] = argv[i + 1];
        i++;
    }
    if (o->nrecords && o->cmd == KC_CMD_INFO) return usage_error("--records applies to run and list only%s%s", "", "");
    if (o->nlogs && o->cmd != KC_CMD_MERGE) return usage_error("--log applies to merge only%s%s", "", "");
    if (o->allow_mixed_gpus && o->cmd != KC_CMD_MERGE) return usage_error("--allow-mixed-gpus applies to merge only%s%s", "", "");
    if (o->cmd == KC_CMD_MERGE) {
        if (!o->nlogs) return usage_error("merge needs the shards' outputs: --log FILE for each%s%s", "", "");
        const char *no = o->jobs ? "--jobs" : o->sharded ? "--shard" : o->timeline ? "--timeline" : o->ndevices ? "--devices" : o->device_given ? "--device"
                       : o->schedule_given ? "--schedule" : o->fail_fast ? "--fail-fast" : o->timeout_s > 0 ? "--timeout"
                       : o->max_restarts >= 0 ? "--restarts" : o->threads ? "--threads"
                       : o->reference != KC_REF_DEVICE ? "--reference" : NULL;
        if (no) return usage_error("%s does not apply to merge (it runs nothing: it merges the --log outputs)%s", no, "");
        return 0;
    }
    return check_parallel(o);
}

void kc_opts_free(kc_opts *o)
{
    free(o->argv);
    for (int i = 0; o->patterns && i < o->npatterns; i++)
        if (o->patterns[i][0] == '!') free(o->patterns[i]);   /* exclusions are copies */
    free(o->patterns);
    free(o->logs);
    o->argv = NULL;
    o->patterns = NULL;
    o->logs = NULL;
}
