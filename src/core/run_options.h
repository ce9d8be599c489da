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
#include "colour.h"
#include "strvec.h"

/* The command a process runs: kcontract [run] | list | info | merge | version, or --help. */
typedef enum kc_cmd { KC_CMD_RUN = 0, KC_CMD_LIST, KC_CMD_INFO, KC_CMD_HELP, KC_CMD_MERGE, KC_CMD_VERSION, KC_CMD_MUTATE } kc_cmd;

/* The command lines a run builds for another process or for a person, each
 * by kc_child_argv (below) and nowhere else:
 *
 *   worker    a work-queue worker (run/queue.c): items come on its stdin; its
 *             own words say how it waits for the GPU (--gpu-wait, when the
 *             parent chose: yield for a run of one worker with one item in
 *             flight)
 *   shard     a --jobs N --schedule static child (run/jobs.c): runs slice k/N
 *   reexec    a one-process run replacing itself after its CUDA context was
 *             lost or an item left GPU memory in it (run/runner.c)
 *   sanitize  compute-sanitizer's target (gates/sanitize.c): one item's launches
 *   rerun     the command a failure line prints (run/item_run.c, run/finish.c)
 *
 * Every one is: argv0, "run", [its one item], its own words, "--seed S
 * --device D", [--threads T], the options it inherits, ["--" PATTERN...].
 * Which options a kind inherits is a column of the one option table
 * (app/cli.c, OPTIONS, where each choice is explained); the parser keeps, per
 * kind, the words of every inherited option as given (kc_opts.inherit), so
 * this layer needs no list of options. In short:
 *   - "--seed S --device D" go to every kind, written from the settings, not
 *     inherited: the run's seed (stated even when it is the default, so a
 *     printed command says it) and the device that kind runs on (a worker's,
 *     a shard's, the item's), which the parent chooses;
 *   - worker and shard: --records (the record items), --reference,
 *     --status-level (they print their items' lines) and --threads (when
 *     not given, each gets its share: CPUs / N); not --jobs,
 *     --timeout, --fail-fast, --restarts, --costs, --rerun-failed, nor the
 *     reports: the parent does all of that (--schedule static refuses the
 *     queue's limits and writes no reports); a worker no patterns (it is
 *     handed items by name), a shard the patterns after "--" ('!G' for an
 *     --exclude G, so exclusions reach it as patterns);
 *   - reexec: every option it was given but the --resume-* it writes anew
 *     (it must read its command line as the first process did), then the
 *     patterns;
 *   - sanitize: nothing more: the target runs launches and compares nothing
 *     (no --reference), its items are registered ones (no --records), and
 *     like racecheck it may use every CPU (sanitize.c, plan_words);
 *   - rerun: --records and --reference, so the item reruns as it failed; not
 *     --threads (one item has the machine; the count changes no result). */
typedef enum kc_argv_kind {
    KC_ARGV_WORKER = 0,
    KC_ARGV_SHARD,
    KC_ARGV_REEXEC,
    KC_ARGV_SANITIZE,
    KC_ARGV_RERUN,
    KC_ARGV_KINDS
} kc_argv_kind;

#define KC_MAX_RECORD_FILES 16   /* --records given at most this many times */
#define KC_MAX_DEVLIST 64        /* --devices lists at most this many ordinals */

/* A run's settings. kc_cli_parse_args (app/cli.c) fills every field from
 * the command line, with the defaults noted; a test may set them directly.
 * Strings and arrays point into argv (o->patterns, o->logs and o->inherit
 * are malloc'd by the parser, freed by kc_opts_free). */
typedef struct kc_opts {
    kc_cmd cmd;
    int cmd_word;              /* argv index of the command word (run, list, ...); 0: none given (run) */
    uint64_t seed;             /* --seed S (default 1) */
    int device;                /* --device D (default 0) */
    char **patterns;           /* name globs (point into argv) */
    int npatterns;
    const char *argv0;         /* as invoked, for rerun commands */
    kc_env_get_fn env_get;     /* reads the variables a rerun command carries (rerun_env.h); NULL: none */
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
    const char *costs;         /* --costs FILE (default: costs_default) */
    int costs_given;
    int costs_env;             /* costs_default is KC_COSTS's (costs.h) */
    char costs_default[4096];  /* the binary's own cost table (kc_costs_default_path, costs.h) */
    double timeout_s;          /* --timeout S: every item's time limit (0: per item, costs.h) */
    int rerun_failed;          /* --rerun-failed: only the items the cost table records as failed (costs.h kc_select) */
    int fail_fast;             /* --fail-fast: stop handing out items after the first failure */
    int no_cache;              /* --no-cache: run every item, reuse no verdict from the results cache
                                * (result_cache.h); what runs still refreshes it */
    int max_restarts;          /* --restarts M: workers replaced after a crash, a timeout or a failed start, at most (-1: 2 x N + 8) */
    int worker;                /* internal --worker: a work-queue worker (items on stdin, results on fd 3) */
    int gpu_shared;            /* internal --gpu-shared: a worker whose GPU other workers share: a verdict reached
                                * with the CUDA context lost is printed by its parent, which decides whether it
                                * stands (src/run/queue_holds.c) */
    int sanitize_target;       /* internal --sanitize-target: compute-sanitizer's target, one item's launches (sanitize.h) */
    int cases_given;           /* internal --cases I:J: a kernel item's cases [I, J) alone, their sums printed
                                * (gates/known_fault.h: a known finding's fault and the cases after it) */
    int cases_lo, cases_hi;
    unsigned block_size;       /* --block-size B: only the launch variant B of contracts that list block sizes
                                * (kc_contract.block_sizes; a failure's rerun command gives it) */
    const char *json;          /* --json FILE: JSON Lines report (report.h, docs/reports.md) */
    const char *junit;         /* --junit FILE: JUnit XML report */
    const char *timeline;      /* --timeline FILE.svg: SVG timeline, one row per worker */
    const char *report_glob;   /* the first report option (--json, --junit, --timeline) whose path, taken from the
                                * next argument, holds '*', '?' or '[': refused by the parse in the process the
                                * user started (cli.c: an item pattern swallowed as a file name); NULL none */
    const char *report_glob_path;
    int inflight;              /* --inflight K: items in flight in one worker, each on its own host thread and
                                * per-thread stream of the worker's one context (0 or 1: one at a time, as
                                * before; docs/parallel-runs.md "Items in flight in one worker") */
    int threads;               /* --threads T: host threads per process (0: all CPUs, CPUs / N under --jobs N) */
    const char *gpu_wait;      /* internal --gpu-wait W: how this process waits for the GPU when KC_CUDA_SCHED is
                                * unset (kc_gpu_set_wait); NULL: block. A run's parent gives it to its worker */
    int resume_records_fd;     /* internal --resume-records FD: the records so far (runner.c), -1 none */
    char **logs;               /* merge: --log FILE, repeatable: saved outputs of --shard K/N runs (point into argv) */
    kc_ref_mode reference;     /* --reference device|host|both (default device, item.h) */
    int nlogs;
    int allow_mixed_gpus;      /* merge --allow-mixed-gpus: shards on different GPU models, cc or SM counts merge */
    int list_json;             /* list --format json: one JSON object per item (default human: "KIND  NAME" lines) */
    kc_status_level status_level; /* --status-level: which item lines are printed (state.h; default all) */
    kc_colour_mode colour;     /* --color auto|always|never (colour.h; default auto) */
    /* mutate (docs/mutation.md) */
    int mut_budget;            /* --budget N: at most N mutants built and run, drawn with --seed (0: every one) */
    const char *mut_accepted;  /* --accepted FILE: the accepted equivalents (mutate_accept.h) */
    const char *mut_operators; /* --operators LIST: ','-separated operator names (NULL: all) */
    const char *mut_sources;   /* --source-dir DIRS: where <module>.cu is (NULL: kernels:staging/kernels) */
    const char *mut_dir;       /* --mutants-dir DIR: sources, images, logs, manifest (NULL: build/mutants) */
    int mut_build_jobs;        /* --build-jobs N: make -jN (0: every CPU) */
    int mut_build_only;        /* --build-only: generate, build and filter; run nothing */
    int mut_every_contract;    /* --every-contract: every contract of a module runs every mutant (per-contract scores) */
    int mut_iterate;           /* --iterate F (in logs): earlier reports' outcomes carried; the rest built and run */
    int mut_sanitizer;         /* --sanitizer: a mutant that passes gates 1-4 goes on to the sanitizer (gate 5) */
    char *resolved[4];         /* the absolute copies of a relative --json, --junit, --timeline, --costs: malloc'd
                                * by kc_cli_parse, freed by kc_opts_free */
    kc_strvec inherit[KC_ARGV_KINDS];  /* per kind of command line: the options it inherits, as given ("--name"
                                        * and its value, in the order given; cli.c's table says which); owned
                                        * by o (kc_opts_free). Zeroed (a test's kc_opts): none */
} kc_opts;

/* One command line's own part: what kc_child_argv writes besides the
 * settings in o. */
typedef struct kc_child_cmd {
    kc_argv_kind kind;
    const char *prog;          /* argv[0]; NULL: o->argv0, as invoked, so the children's rerun commands read the same */
    const char *item;          /* sanitize, rerun: the one item, right after "run"; NULL: none (the target's session
                                * then reads items on stdin) */
    int device;                /* --device D: the device it runs on */
    long parent;               /* worker, shard: --parent PID, the process that supervises it */
    int shard_k, shard_n;      /* shard: --shard K/N */
    int share;                 /* worker, shard: processes sharing the CPUs; without --threads each gets
                                * --threads kc_parallel_share(share) (0: none written) */
    int resume_at;             /* reexec: --resume-at I, the next item */
    const char *resume_tally;  /* reexec: --resume-tally, the counts so far as a TALLY line */
    double resume_elapsed;     /* reexec: --resume-elapsed, seconds so far */
    int resume_records_fd;     /* reexec: --resume-records FD, the records so far; -1: none */
    int resume_untrusted;      /* reexec: --resume-untrusted */
    const char *gpu_wait;      /* worker: --gpu-wait W (kc_gpu_set_wait); NULL: none written */
    int gpu_shared;            /* worker: --gpu-shared (other workers share its GPU) */
} kc_child_cmd;

/* Appends c's command line, as described above kc_argv_kind, to sv (the
 * sanitizer's target follows the sanitizer's own words). 0; or -1 (errno
 * ENOMEM) with sv as it was. */
int kc_child_argv(kc_strvec *sv, const kc_opts *o, const kc_child_cmd *c);

/* Whether this run rewrites the cost table at its end: a --jobs work queue
 * always (o->costs, the default file unless --costs), a serial run given
 * --costs or --rerun-failed (so what passes now drops out of the next
 * --rerun-failed); never a --shard K/N run, serial or --jobs (its slices come from the
 * table's seconds, which every shard must read unchanged: it records only its
 * verdicts, queue.c's shard_records_verdicts), a static shard child or a
 * worker. (Named for the command line that sets o; a rule of the settings.) */
int kc_cli_writes_costs(const kc_opts *o);
#endif
