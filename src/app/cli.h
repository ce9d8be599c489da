/* cli.h — the command line: kcontract [run|list|info] [options] [PATTERN...].
 * Parsing is strict: a bad value is refused with the option, the value and
 * what was expected, and exit status 2. */
#ifndef KC_CLI_H
#define KC_CLI_H
#include <stdint.h>
#include <stdio.h>
#include "item.h"
#include "shard.h"

typedef enum kc_cmd { KC_CMD_RUN = 0, KC_CMD_LIST, KC_CMD_INFO, KC_CMD_HELP, KC_CMD_MERGE } kc_cmd;

#define KC_MAX_RECORD_FILES 16   /* --records given at most this many times */

typedef struct kc_opts {
    kc_cmd cmd;
    uint64_t seed;             /* --seed S (default 1) */
    int device;                /* --device D (default 0) */
    char **patterns;           /* name globs (point into argv) */
    int npatterns;
    const char *argv0;         /* as invoked, for rerun commands */
    int argc;                  /* the arguments without internal --resume-* options */
    char **argv;
    int resume_at;             /* internal: continue a run after a CUDA context loss */
    const char *resume_tally;  /* internal: the counts so far, as a TALLY line */
    double resume_elapsed;     /* internal: seconds spent before the re-exec */
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
    int fail_fast;             /* --fail-fast: stop handing out items after the first failure */
    int rerun_failed;          /* --rerun-failed: only the items the cost table records as failed (costs.h kc_select) */
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
} kc_opts;

/* Parses argv into o (kc_cli_parse_args), then checks that every file the
 * run will write (reports, the cost table) can be written, the way it will
 * be: by creating and removing FILE.tmp.PID beside it. Returns 0; or 2 after
 * printing "kcontract: <problem>" and a hint to stderr. o->argv is malloc'd
 * (free with kc_opts_free, also after an error). */
int kc_cli_parse(int argc, char **argv, kc_opts *o);
/* The parse alone: every option, value and combination, with no file
 * created (it only stat()s --log files to tell two spellings of one apart).
 * What the command-line fuzz target runs. Returns 0 or 2, as above. */
int kc_cli_parse_args(int argc, char **argv, kc_opts *o);
void kc_opts_free(kc_opts *o);
/* Whether this run rewrites the cost table at its end: a --jobs work queue
 * always (o->costs, the default file unless --costs), a serial run given
 * --costs or --rerun-failed (so what passes now drops out of the next
 * --rerun-failed); never a --shard K/N run, serial or --jobs (its slices come from the
 * table, which every shard must read unchanged), a static shard child or a
 * worker. */
int kc_cli_writes_costs(const kc_opts *o);
/* Prints the usage text to out, naming the program prog's last path
 * component (a user's suite binary is a whole kcontract under its own name). */
void kc_cli_usage(FILE *out, const char *prog);
/* Strict unsigned decimal: no sign, no junk, no overflow past max. 0 or -1. */
int kc_parse_u64(const char *s, uint64_t max, uint64_t *out);
#endif
