/* run_options.h — a run's settings (kc_opts), as the command line
 * (app/cli.c, the one option table) or a test sets them: which command, the
 * selection, the seed and device, the parallel shape (--shard, --jobs,
 * --devices), the work queue's limits, the reports and the internal options
 * a parent passes to its children. The settings, not their parsing: every
 * layer below the app reads them here and never includes cli.h
 * (docs/layout.md, tools/check-layers.sh). */
#ifndef KC_RUN_OPTIONS_H
#define KC_RUN_OPTIONS_H
#include <stdint.h>
#include "item.h"
#include "rerun_env.h"

/* The command a process runs: kcontract [run] | list | info | merge, or --help. */
typedef enum kc_cmd { KC_CMD_RUN = 0, KC_CMD_LIST, KC_CMD_INFO, KC_CMD_HELP, KC_CMD_MERGE } kc_cmd;

#define KC_MAX_RECORD_FILES 16   /* --records given at most this many times */
#define KC_MAX_DEVLIST 64        /* --devices lists at most this many ordinals */

/* A run's settings. kc_cli_parse_args (app/cli.c) fills every field from
 * the command line, with the defaults noted; a test may set them directly.
 * Strings and arrays point into argv (o->argv, o->patterns and o->logs are
 * malloc'd by the parser, freed by kc_opts_free). */
typedef struct kc_opts {
    kc_cmd cmd;
    uint64_t seed;             /* --seed S (default 1) */
    int device;                /* --device D (default 0) */
    char **patterns;           /* name globs (point into argv) */
    int npatterns;
    const char *argv0;         /* as invoked, for rerun commands */
    kc_env_get_fn env_get;     /* reads the variables a rerun command carries (rerun_env.h); NULL: none */
    int argc;                  /* the arguments without internal --resume-* options */
    char **argv;
    int resume_at;             /* internal: continue a run after a CUDA context loss */
    const char *resume_tally;  /* internal: the counts so far, as a TALLY line */
    double resume_elapsed;     /* internal: seconds spent before the re-exec */
    int resume_untrusted;      /* internal: a session before the re-exec counted errors no window held (runner.c) */
    int device_given;          /* --device was on the command line */
    int shard_k, shard_n;      /* --shard K/N: run slice K of N (default 0/1) */
    int sharded;               /* --shard was given */
    int shard_auto;            /* --shard auto: K/N from an engine's variables (shard_env.h), resolved by main */
    int jobs;                  /* --jobs N: N child processes (0: this process runs the items) */
    int devices[KC_MAX_DEVLIST]; /* --devices LIST */
    int ndevices;
    long parent;               /* internal --parent PID: this process is a --jobs child */
    const char *records[KC_MAX_RECORD_FILES];   /* --records FILE, repeatable: launch record files (launch_records.h), run and list only */
    int nrecords;
    int schedule_static;       /* --schedule static: --jobs N as N static shards (default: a work queue) */
    int schedule_given;
    const char *costs;         /* --costs FILE (default KC_COSTS_DEFAULT, costs.h) */
    int costs_given;
    double timeout_s;          /* --timeout S: every item's time limit (0: per item, costs.h) */
    int rerun_failed;          /* --rerun-failed: only the items the cost table records as failed (costs.h kc_select) */
    int fail_fast;             /* --fail-fast: stop handing out items after the first failure */
    int max_restarts;          /* --restarts M: workers replaced after a crash, a timeout or a failed start, at most (-1: 2 x N + 8) */
    int worker;                /* internal --worker: a work-queue worker (items on stdin, results on fd 3) */
    int sanitize_target;       /* internal --sanitize-target: compute-sanitizer's target, one item's launches (sanitize.h) */
    const char *json;          /* --json FILE: JSON Lines report (report.h, docs/reports.md) */
    const char *junit;         /* --junit FILE: JUnit XML report */
    const char *timeline;      /* --timeline FILE.svg: SVG timeline, one row per worker */
    int threads;               /* --threads T: host threads per process (0: all CPUs, CPUs / N under --jobs N) */
    int resume_records_fd;     /* internal --resume-records FD: the records so far (runner.c), -1 none */
    char **logs;               /* merge: --log FILE, repeatable: saved outputs of --shard K/N runs (point into argv) */
    kc_ref_mode reference;     /* --reference device|host|both (default device, item.h) */
    int nlogs;
    int allow_mixed_gpus;      /* merge --allow-mixed-gpus: shards on different GPU models, cc or SM counts merge */
    char *resolved[8];         /* the absolute copies of a relative --json, --junit, --timeline, --costs ([0..3]) and
                                * of their "--opt=V" words in argv ([4..7]): malloc'd by kc_cli_parse, freed by kc_opts_free */
} kc_opts;

/* Whether this run rewrites the cost table at its end: a --jobs work queue
 * always (o->costs, the default file unless --costs), a serial run given
 * --costs or --rerun-failed (so what passes now drops out of the next
 * --rerun-failed); never a --shard K/N run, serial or --jobs (its slices come from the
 * table, which every shard must read unchanged), a static shard child or a
 * worker. (Named for the command line that sets o; a rule of the settings.) */
int kc_cli_writes_costs(const kc_opts *o);
#endif
