/* cli_values.c — owns the values of the command line's options: the setters
 * the option table's rows name (cli.c has the table and the parser), each
 * parsing one option's value into kc_opts and refusing, in the words of
 * kc_cli_usage_error (cli_checks.c), a value it does not take: flags, file
 * names, the seed, the device and devices, --shard, --jobs and the counts,
 * the modes (--reference, --schedule, --format, --status-level, --color),
 * the repeatable --records, --log, --merge-json and --iterate, --exclude's
 * pattern (kc_cli_exclusion, which a '!G' PATTERN takes too) and the
 * internal options of a parent and of a re-exec. */
#include "cli_values.h"
#include "cli_checks.h"
#include "parallel.h"
#include "shard.h"
#include "strict_num.h"
#include "progname.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inflight.h"

/* A flag: its int field becomes 1. */
int kc_cli_set_flag(kc_opts *o, const opt_row *r, const char *v)
{
    *(int *)(void *)((char *)o + r->field) = 1;
    return 0;
}

/* A report's file name (--json, --junit, --timeline): not empty, not '-'. */
int kc_cli_set_file(kc_opts *o, const opt_row *r, const char *v)
{
    if (!*v) return kc_cli_usage_error("%s%s", r->missing, "");
    if (strcmp(v, "-") == 0)
        return kc_cli_usage_error("%s -: a report needs a file name, not '-'%s: standard output carries the run's own "
                                  "lines, which a report there would be mixed with", r->name, "");
    *(const char **)(void *)((char *)o + r->field) = v;
    return 0;
}

int kc_cli_set_seed(kc_opts *o, const opt_row *r, const char *v)
{
    if (kc_parse_u64(v, UINT64_MAX, &o->seed))
        return kc_cli_usage_error("--seed: expected a non-negative integer below 2^64, got '%s'%s", v, "");
    return 0;
}

int kc_cli_set_device(kc_opts *o, const opt_row *r, const char *v)
{
    uint64_t x;
    if (kc_parse_u64(v, KC_MAX_DEVICE, &x))
        return kc_cli_usage_error("--device: expected a device ordinal from 0 to " KC_STR(KC_MAX_DEVICE) " (%s info lists the "
                                  "devices), got '%s'", kc_prog(), v);
    o->device = (int)x;
    o->device_given = 1;
    return 0;
}

int kc_cli_set_shard(kc_opts *o, const opt_row *r, const char *v)
{
    char why[256];
    if (strcmp(v, "auto") == 0) o->shard_auto = 1;   /* 0/1 until main reads the engine's variables */
    else if (kc_shard_parse(v, &o->shard_k, &o->shard_n, why, sizeof why))
        return kc_cli_usage_error("--shard: %s (or 'auto': from Bazel's, GoogleTest's, Slurm's or Kubernetes' variables)%s", why, "");
    o->sharded = 1;
    return 0;
}

int kc_cli_set_jobs(kc_opts *o, const opt_row *r, const char *v)
{
    char why[256];
    uint64_t x;
    if (kc_parse_u64(v, KC_MAX_SHARDS, &x) || x == 0) {
        snprintf(why, sizeof why, "--jobs: expected a number of processes from 1 to %d, got '%.64s'", KC_MAX_SHARDS, v);
        return kc_cli_usage_error("%s%s", why, "");
    }
    o->jobs = (int)x;
    return 0;
}

int kc_cli_set_devices(kc_opts *o, const opt_row *r, const char *v)
{
    char why[256];
    int n = kc_devices_parse(v, o->devices, KC_MAX_DEVLIST, why, sizeof why);
    if (n < 0) return kc_cli_usage_error("--devices: %s%s", why, "");
    o->ndevices = n;
    return 0;
}

int kc_cli_set_parent(kc_opts *o, const opt_row *r, const char *v)
{
    uint64_t x;
    if (kc_parse_u64(v, INT_MAX, &x) || x == 0)
        return kc_cli_usage_error("--parent: internal option, expected a process id, got '%s'%s", v, "");
    o->parent = (long)x;
    return 0;
}

int kc_cli_set_threads(kc_opts *o, const opt_row *r, const char *v)
{
    uint64_t x;
    if (!v || kc_parse_u64(v, KC_MAX_THREADS, &x) || x == 0)
        return kc_cli_usage_error("--threads: expected a number of host threads from 1 to " KC_STR(KC_MAX_THREADS) ", got '%s'%s",
                                  v ? v : "", "");
    o->threads = (int)x;
    return 0;
}

int kc_cli_set_inflight(kc_opts *o, const opt_row *r, const char *v)
{
    uint64_t x;
    if (!v || kc_parse_u64(v, KC_INFLIGHT_MAX, &x) || x == 0)
        return kc_cli_usage_error("--inflight: expected the items in flight per worker, 1 to " KC_STR(KC_INFLIGHT_MAX)
                                  ", got '%s'%s", v ? v : "", "");
    o->inflight = (int)x;
    return 0;
}

int kc_cli_set_reference(kc_opts *o, const opt_row *r, const char *v)
{
    if (!v || (strcmp(v, "device") && strcmp(v, "host") && strcmp(v, "both")))
        return kc_cli_usage_error("--reference: expected 'device', 'host' or 'both', got '%.64s'%s", v ? v : "", "");
    o->reference = v[0] == 'd' ? KC_REF_DEVICE : v[0] == 'h' ? KC_REF_HOST : KC_REF_BOTH;
    return 0;
}

/* --records: repeatable, each file once, at most KC_MAX_RECORD_FILES. */
int kc_cli_set_records(kc_opts *o, const opt_row *r, const char *v)
{
    for (int i = 0; i < o->nrecords; i++)
        if (strcmp(o->records[i], v) == 0) return kc_cli_usage_error("--records %s given twice%s", v, "");
    if (o->nrecords == KC_MAX_RECORD_FILES) {
        char most[16];
        snprintf(most, sizeof most, "%d", KC_MAX_RECORD_FILES);
        return kc_cli_usage_error("--records given more than %s times (at '%s')", most, v);
    }
    o->records[o->nrecords++] = v;
    return 0;
}

int kc_cli_set_schedule(kc_opts *o, const opt_row *r, const char *v)
{
    if (strcmp(v, "static") && strcmp(v, "queue"))
        return kc_cli_usage_error("--schedule: expected 'queue' or 'static', got '%.64s'%s", v, "");
    o->schedule_static = v[0] == 's';
    o->schedule_given = 1;
    return 0;
}

int kc_cli_set_costs(kc_opts *o, const opt_row *r, const char *v)
{
    if (!*v) return kc_cli_usage_error("--costs: expected a file name, got ''%s%s", "", "");
    o->costs = v;
    o->costs_given = 1;
    return 0;
}

int kc_cli_set_restarts(kc_opts *o, const opt_row *r, const char *v)
{
    uint64_t x;
    if (kc_parse_u64(v, 1000000, &x))
        return kc_cli_usage_error("--restarts: expected a number of worker restarts from 0 to 1000000, got '%.64s'%s", v, "");
    o->max_restarts = (int)x;
    return 0;
}

int kc_cli_set_timeout(kc_opts *o, const opt_row *r, const char *v)
{
    double t;
    if (kc_parse_seconds(v, KC_MAX_TIMEOUT_S, &t))
        return kc_cli_usage_error("--timeout: expected seconds above 0 and at most " KC_STR(KC_MAX_TIMEOUT_S_TEXT)
                                  " (e.g. 30 or 0.5), got '%.64s'%s", v, "");
    o->timeout_s = t;
    return 0;
}

/* --log (merge) and --merge-json (mutate): repeatable, each file once (two
 * spellings of one file too), kept in o->logs (the commands differ, so the
 * two never meet). */
int kc_cli_set_log(kc_opts *o, const opt_row *r, const char *v)
{
    if (!*v) return kc_cli_usage_error("%s%s", r->missing, "");
    for (int l = 0; l < o->nlogs; l++)
        if (kc_cli_same_file(o->logs[l], v)) return kc_cli_usage_error("%s %s given twice", r->name, v);
    o->logs[o->nlogs++] = (char *)v;
    return 0;
}

/* mutate --merge-json F and --iterate F: both read earlier reports into
 * o->logs, to different ends (one report of shards; a run that builds and
 * runs only what earlier ones did not decide), so they do not mix. */
int kc_cli_set_report(kc_opts *o, const opt_row *r, const char *v)
{
    int iterate = !strcmp(r->name, "--iterate");
    if (o->nlogs && o->mut_iterate != iterate)
        return kc_cli_usage_error("--iterate and --merge-json do not combine (--merge-json makes one report of shards and "
                                  "runs nothing; --iterate runs what earlier reports left undecided)%s%s", "", "");
    o->mut_iterate = iterate;
    return kc_cli_set_log(o, r, v);
}

/* --exclude G: the pattern "!G" (filter.h), owned by o (kc_opts_free). */
int kc_cli_exclusion(kc_opts *o, const char *glob)
{
    size_t n = strlen(glob);
    char *p = malloc(n + 2);
    if (!p) return kc_cli_usage_error("out of memory%s%s", "", "");
    p[0] = '!';
    memcpy(p + 1, glob, n + 1);
    o->patterns[o->npatterns++] = p;
    return 0;
}

int kc_cli_set_exclude(kc_opts *o, const opt_row *r, const char *v)
{
    if (!*v) return kc_cli_usage_error("%s%s", r->missing, "");
    if (o->cmd == KC_CMD_INFO || o->cmd == KC_CMD_VERSION)
        return kc_cli_usage_error("%s takes no patterns, got --exclude '%s'", o->cmd == KC_CMD_INFO ? "info" : "version", v);
    return kc_cli_exclusion(o, v);
}

int kc_cli_set_resume_records(kc_opts *o, const opt_row *r, const char *v)
{
    uint64_t x;
    if (!v || kc_parse_u64(v, INT_MAX, &x)) return kc_cli_usage_error("--resume-records: internal option, got '%s'%s", v ? v : "", "");
    o->resume_records_fd = (int)x;
    return 0;
}

int kc_cli_set_resume_at(kc_opts *o, const opt_row *r, const char *v)
{
    uint64_t x;
    if (!v || kc_parse_u64(v, 1u << 30, &x)) return kc_cli_usage_error("--resume-at: internal option, got '%s'%s", v ? v : "", "");
    o->resume_at = (int)x;
    return 0;
}

/* --block-size B, 1 <= B <= 1024. */
int kc_cli_set_block_size(kc_opts *o, const opt_row *r, const char *v)
{
    (void)r;
    uint64_t b;
    if (!v || kc_parse_u64(v, 1024, &b) || b == 0)
        return kc_cli_usage_error("--block-size needs threads per block, 1 to 1024, got '%s'%s", v ? v : "", "");
    o->block_size = (unsigned)b;
    return 0;
}

/* --cases I:J, 0 <= I < J (gates/known_fault.h). */
int kc_cli_set_cases(kc_opts *o, const opt_row *r, const char *v)
{
    (void)r;
    uint64_t lo, hi;
    const char *colon = v ? strchr(v, ':') : NULL;
    char a[24];
    if (!colon || (size_t)(colon - v) >= sizeof a) return kc_cli_usage_error("--cases: internal option needs I:J, got '%s'%s", v ? v : "", "");
    snprintf(a, sizeof a, "%.*s", (int)(colon - v), v);
    if (kc_parse_u64(a, 1u << 30, &lo) || kc_parse_u64(colon + 1, 1u << 30, &hi) || lo >= hi)
        return kc_cli_usage_error("--cases: internal option needs I:J with I < J, got '%s'%s", v, "");
    o->cases_given = 1;
    o->cases_lo = (int)lo;
    o->cases_hi = (int)hi;
    return 0;
}

int kc_cli_set_resume_tally(kc_opts *o, const opt_row *r, const char *v)
{
    o->resume_tally = v;
    return 0;
}

int kc_cli_set_resume_elapsed(kc_opts *o, const opt_row *r, const char *v)
{
    o->resume_elapsed = atof(v);
    return 0;
}

int kc_cli_set_format(kc_opts *o, const opt_row *r, const char *v)
{
    if (strcmp(v, "human") && strcmp(v, "json"))
        return kc_cli_usage_error("--format: expected 'human' or 'json', got '%.64s'%s", v, "");
    o->list_json = v[0] == 'j';
    return 0;
}

int kc_cli_set_status_level(kc_opts *o, const opt_row *r, const char *v)
{
    if (!strcmp(v, "all") || !strcmp(v, "skip")) o->status_level = KC_LEVEL_ALL;
    else if (!strcmp(v, "pass")) o->status_level = KC_LEVEL_PASS;
    else if (!strcmp(v, "fail")) o->status_level = KC_LEVEL_FAIL;
    else
        return kc_cli_usage_error("--status-level: expected 'fail', 'pass', 'skip' or 'all', got '%.64s'%s (a failing item's "
                                  "line is always printed)", v, "");
    return 0;
}

int kc_cli_set_colour(kc_opts *o, const opt_row *r, const char *v)
{
    if (!strcmp(v, "auto")) o->colour = KC_COLOUR_AUTO;
    else if (!strcmp(v, "always")) o->colour = KC_COLOUR_ALWAYS;
    else if (!strcmp(v, "never")) o->colour = KC_COLOUR_NEVER;
    else return kc_cli_usage_error("--color: expected 'auto', 'always' or 'never', got '%.64s'%s", v, "");
    return 0;
}

int kc_cli_set_help(kc_opts *o, const opt_row *r, const char *v)
{
    o->cmd = KC_CMD_HELP;
    return 0;
}

int kc_cli_set_version(kc_opts *o, const opt_row *r, const char *v)
{
    o->cmd = KC_CMD_VERSION;
    return 0;
}

/* mutate's --budget N and --build-jobs N: positive counts. */
int kc_cli_set_count(kc_opts *o, const opt_row *r, const char *v)
{
    uint64_t x;
    if (kc_parse_u64(v, 1000000, &x) || x == 0)
        return kc_cli_usage_error("%s: expected a count from 1 to 1000000, got '%.64s'", r->name, v);
    *(int *)(void *)((char *)o + r->field) = (int)x;
    return 0;
}

/* mutate's file and folder names (--accepted, --operators, --source-dir, --mutants-dir): not empty. */
int kc_cli_set_text(kc_opts *o, const opt_row *r, const char *v)
{
    if (!*v) return kc_cli_usage_error("%s%s", r->missing, "");
    *(const char **)(void *)((char *)o + r->field) = v;
    return 0;
}
