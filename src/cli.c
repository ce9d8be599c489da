/* cli.c — command-line parsing and the help text. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void kc_cli_usage(FILE *out)
{
    fputs("usage: kcontract [run] [options] [PATTERN...]   check items (default: all)\n"
          "       kcontract list [PATTERN...]            list items and their kinds\n"
          "       kcontract info                         driver and devices\n"
          "\n"
          "PATTERN is a shell glob over item names, e.g. 'rmsnorm.*' or '*:control.*'.\n"
          "Items: <contract> (gates 1-4), <contract>:limits, <contract>:control.<name>, suites.\n"
          "\n"
          "options:\n"
          "  --seed S      run seed (default 1); every input derives from it and the item's name\n"
          "  --device D    CUDA device ordinal (default 0)\n"
          "  --shard K/N   run slice K of N (K = 0..N-1): item i of the filtered, name-sorted list\n"
          "                belongs to shard i % N; the TALLY records K/N, the slice's items and digest\n"
          "  --jobs N      run the selected items in N child processes (shards 0/N..N-1/N); each\n"
          "                child line is printed as it comes, prefixed [K/N], then one merged TALLY\n"
          "                and SUMMARY equal to the serial run's; children go round robin over the\n"
          "                visible GPUs (CUDA_VISIBLE_DEVICES applies) or over --devices\n"
          "  --devices L   with --jobs: device ordinals to spread the children over, e.g. 0,2,3\n"
          "  --records F   check the launches recorded in file F (docs/launch-records.md): one kernel\n"
          "                item <contract>@<label> per line, gates 1-4 on exactly that shape; with no\n"
          "                PATTERN only the record items are selected (add '*' for every item too)\n"
          "  --help        this text\n"
          "\n"
          "Each item prints one line: PASS, FAIL, KNOWN, RED, MISSED, LIMIT or SKIP, ending with\n"
          "its time; then a machine-readable TALLY line and a SUMMARY line (docs/output-format.md).\n"
          "exit status: 0 everything ran and passed; 1 a failure, missed control, limit problem\n"
          "or stale known finding; 2 bad usage; 3 nothing failed but items were skipped (e.g. no\n"
          "GPU); 4 internal error. --jobs: 1 also when a shard did not finish or the merge failed\n"
          "(the reasons name the shard); 128+signal when interrupted (130 for SIGINT).\n"
          "docs/parallel-runs.md describes --shard, --jobs, the merge and the memory plan.\n",
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
        if (kc_shard_parse(v, &o->shard_k, &o->shard_n, why, sizeof why)) return usage_error("--shard: %s%s", why, "");
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

/* The combinations --shard, --jobs and --devices refuse. */
static int check_parallel(const kc_opts *o)
{
    char why[256];
    if (o->jobs && o->sharded) {
        snprintf(why, sizeof why, "--jobs %d and --shard %d/%d do not combine (--jobs runs every shard itself)", o->jobs,
                 o->shard_k, o->shard_n);
        return usage_error("%s%s", why, "");
    }
    if (o->jobs && o->cmd != KC_CMD_RUN) return usage_error("--jobs applies to run only%s%s", "", "");
    if (o->sharded && o->cmd == KC_CMD_INFO) return usage_error("--shard applies to run and list only%s%s", "", "");
    if (o->ndevices && (!o->jobs || o->device_given)) {
        size_t n = (size_t)snprintf(why, sizeof why, "--devices ");
        for (int i = 0; i < o->ndevices && n < sizeof why; i++)
            n += (size_t)snprintf(why + n, sizeof why - n, "%s%d", i ? "," : "", o->devices[i]);
        return usage_error("%s %s", why, o->jobs ? "and --device do not combine" : "needs --jobs (one process takes --device D)");
    }
    return 0;
}

int kc_cli_parse(int argc, char **argv, kc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->shard_n = 1;
    o->argv0 = argc > 0 ? argv[0] : "kcontract";
    o->argv = calloc((size_t)argc + 1, sizeof *o->argv);
    o->patterns = calloc((size_t)argc + 1, sizeof *o->patterns);
    if (!o->argv || !o->patterns) return usage_error("out of memory%s%s", "", "");
    int i = 1;
    o->argv[o->argc++] = argv[0];
    if (i < argc && strcmp(argv[i], "run") == 0) o->argv[o->argc++] = argv[i++];
    else if (i < argc && strcmp(argv[i], "list") == 0) { o->cmd = KC_CMD_LIST; o->argv[o->argc++] = argv[i++]; }
    else if (i < argc && strcmp(argv[i], "info") == 0) { o->cmd = KC_CMD_INFO; o->argv[o->argc++] = argv[i++]; }
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
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
        } else if (strcmp(a, "--records") == 0) {
            if (!v) return usage_error("%s needs a value (a file of launch records, docs/launch-records.md)%s", a, "");
            if (o->records) return usage_error("--records given twice ('%s' and '%s'); a run takes one file", o->records, v);
            o->records = v;
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
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'%s", a, "");
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
    if (o->records && o->cmd == KC_CMD_INFO) return usage_error("--records applies to run and list only%s%s", "", "");
    return check_parallel(o);
}

void kc_opts_free(kc_opts *o)
{
    free(o->argv);
    free(o->patterns);
    o->argv = NULL;
    o->patterns = NULL;
}
