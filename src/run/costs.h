/* costs.h — the cost table of a --jobs work queue and what is derived from it:
 * the order items are handed out in, the cost-balanced (LPT) partition of
 * --shard K/N --costs FILE, each item's time limit, and the per-item memory
 * plan with the admission check that keeps running items within a host's or
 * a GPU's memory. Everything but kc_costs_load/kc_costs_save is pure.
 *
 * The table (docs/parallel-runs.md) is a TSV file:
 *     # kcontract costs v1
 *     # item	seconds	peak_rss_kib	peak_gpu_mib	failed
 *     rmsnorm.f16	12.340	8123456	-1	0
 * The first line is exactly the version header; further lines starting with
 * '#' and empty lines are ignored; every other line has exactly five
 * tab-separated fields: the item name (no spaces), its last measured seconds
 * (a finite decimal >= 0, or "-" on a failed row never measured), the worker's peak RSS during it in KiB and its
 * peak GPU memory in MiB (integers, -1 unknown), and 1 if it failed last time
 * (FAIL, MISSED, LIMIT, LEAK, CRASH, TIMEOUT, or stale known findings), else 0.
 * A name may appear once. A malformed file is refused with its line number
 * and the reason, never ignored. */
#ifndef KC_COSTS_H
#define KC_COSTS_H
#include <stddef.h>
#include <stdio.h>
#include "run_options.h"
#include "item.h"
#include "shard.h"

#define KC_COSTS_FALLBACK ".kcontract-costs.tsv"   /* the --costs default where the binary's folder is read-only */
#define KC_COSTS_ENV "KC_COSTS"                      /* names the --costs default instead (below) */
/* The --costs default of this binary into buf: the file KC_COSTS names when
 * env (its value, NULL when unset) is set and not empty, as KC_CACHE_DIR
 * names the results cache (empty is unset for both, as in the XDG base
 * directory convention; make test gives each test a table of its own:
 * tests/support/spawn.c);
 * else "<binary>.costs.tsv" beside it (under the build tree for a built one,
 * so two binaries, such as kcontract and a team's suite, never share one
 * table of item names), or KC_COSTS_FALLBACK in the current directory when
 * the binary is installed (its folder is called bin), its folder cannot be
 * written, or its path cannot be resolved. Returns 0, or -1 when env is
 * longer than buf holds (err says so: the value and what was expected). */
int kc_costs_default_path(const char *env, char *buf, size_t cap, char *err, size_t errcap);
/* Where o's cost table was named, the word an error about it starts with
 * before its path: "--costs", "KC_COSTS" (the environment) or "cost table"
 * (the binary's default), so that no error names an option the user never
 * typed. */
const char *kc_costs_origin(const kc_opts *o);
#define KC_COSTS_HEADER "# kcontract costs v1"
#define KC_TIMEOUT_FLOOR_S 60.0        /* an item's time limit is at least this ... */
#define KC_TIMEOUT_MULTIPLE 5.0        /* ... and this many times its recorded seconds */
#define KC_TIMEOUT_NO_COST_S 600.0     /* the limit of an item with no recorded cost */
/* A mutant's item (<contract>:mutant.<id>, kcontract mutate) with a recorded
 * cost: max(this, KC_TIMEOUT_MULTIPLE x the cost). Its cost is its
 * contract's unmutated run (mutate's baseline), and a mutant that takes
 * five times as long hangs or loops: counted caught by a timeout, apart
 * (cargo-mutants' rule of a multiple of the baseline with a floor; GPU
 * kernels of the bundled library take milliseconds, and a hung kernel
 * slows every context that shares the GPU, so the floor is lower). */
#define KC_MUTANT_TIMEOUT_FLOOR_S 10.0
/* The same item run again alone after a neighbour's fault
 * (kc_item_time_limit_alone): nothing shares the GPU then, so neither the
 * floor nor the multiple has to cover other contexts' time slices:
 * max(this floor, KC_MUTANT_ALONE_MULTIPLE x the cost). The cost is the
 * contract's baseline under the run's --jobs, which alone is no faster to
 * exceed; a mutant three times slower than its contract hangs or loops.
 * On the H200 each hung mutant's rerun alone held the GPU for its whole
 * limit (up to 13.6 s, 23 of them in one library run). */
#define KC_MUTANT_ALONE_FLOOR_S 2.0
#define KC_MUTANT_ALONE_MULTIPLE 3.0
#define KC_COST_EST_BASE_S 0.5         /* estimate: this, plus ... */
#define KC_COST_EST_BYTES_PER_S 2e9    /* ... the bytes of all its cases at this rate */
/* A :sanitize item, or a control planted for the sanitizer, adds this: four
 * compute-sanitizer runs of a few small launches, each mostly the tool's
 * start-up and instrumentation (2-10 s each). */
#define KC_COST_EST_SANITIZE_S 20.0

typedef struct kc_cost {
    char name[192];
    double seconds;
    long peak_rss_kib;      /* -1: unknown */
    long peak_gpu_mib;      /* -1: unknown */
    int failed;
} kc_cost;
/* The seconds field of a row never measured (seconds -1 in memory): a NOTRUN
 * item with no row before, recorded failed so that --rerun-failed runs it
 * (a `--fail-fast` run stopped before it). Only a failed row may carry it;
 * its cost is the estimate and its time limit that of an item with no cost. */
#define KC_COST_NEVER_MEASURED "-"

typedef struct kc_costs {
    kc_cost *v;             /* sorted by name */
    int n, cap;
} kc_costs;

/* Parses a table's text. Returns 0, or -1 with "line 3: ..." in err. */
int kc_costs_parse(const char *text, kc_costs *c, char *err, size_t cap);
/* Reads path: 0 with *found 0 when it does not exist (an empty table), 0 with
 * *found 1, or -1 with "FILE: line 3: ..." / "FILE: <strerror>" in err. */
int kc_costs_load(const char *path, kc_costs *c, int *found, char *err, size_t cap);
/* Whether path names a table that is there and parses: a run that makes
 * no table (a serial one given neither --costs nor --rerun-failed, a
 * --schedule static shard) still records its verdicts in such a one, so
 * that --rerun-failed after it reruns what it failed (queue.c, runner.c). */
int kc_costs_there(const char *path);
/* Writes the table (header, column line, rows by name). */
int kc_costs_format(const kc_costs *c, FILE *out);
/* Serialises read-merge-write of the table at path among concurrent runs:
 * an exclusive flock(2) on "<path>.lock", a file that exists only while a
 * run holds it, opened without following a symbolic link (safe_file.h).
 * Returns the lock's fd (pass it to kc_costs_unlock), or -1 with the reason
 * in err ("T.lock is a symbolic link: refusing to follow it; ..."): the
 * table is then not written. */
int kc_costs_lock(const char *path, char *err, size_t cap);
/* Removes "<path>.lock" and releases the lock fd (-1: nothing to do). */
void kc_costs_unlock(const char *path, int fd);
/* Writes path atomically (a new temporary file beside it, PATH.tmp.PID.XXXXXXXX,
 * renamed over it; never through a symbolic link). 0, or -1 with err. */
int kc_costs_save(const char *path, const kc_costs *c, char *err, size_t cap);
/* The row of name, or NULL; a row never measured (seconds < 0) included. */
const kc_cost *kc_costs_find(const kc_costs *c, const char *name);
/* The row of name when it holds a measurement (seconds >= 0), else NULL: what
 * an item's cost, time limit and report read. */
const kc_cost *kc_costs_measured(const kc_costs *c, const char *name);
/* After a run: merges its measured items (records; NOTRUN and SKIP carry no
 * measurement) into the table at path, under kc_costs_lock, and writes it;
 * with none measured and no NOTRUN to mark it touches nothing (no table, no
 * lock file). An item is recorded failed when its verdict fails, when it is
 * a suspect (record.h), or when the run is untrusted (it cannot vouch for
 * its verdicts: --rerun-failed runs them all again). A NOTRUN item (never
 * checked) marks its existing row failed and keeps its measurement; one
 * with no row gets a row never measured (KC_COST_NEVER_MEASURED), failed, so
 * that --rerun-failed runs it. A verdict reused from the results cache is
 * no measurement: it sets only its row's failed column (a reused pass
 * clears it; seconds kept). Prints "kcontract: cost table PATH: N items
 * measured, M recorded in all; R reused verdicts recorded; K not run,
 * recorded failed" to out; a table that cannot be read
 * is replaced (said on stderr), one that cannot be written is reported on
 * stderr. Returns the rows set, or -1 when writing failed. */
struct kc_records;
int kc_costs_save_run(const char *path, const struct kc_records *rs, int untrusted, FILE *out);
/* After a merge of shard logs that was not a --rerun-failed round: records
 * each merged item's verdict in the table at path as kc_costs_save_run does
 * (failed states, suspects, an untrusted merge, NOTRUN), but keeps every
 * row's seconds and peaks: the shards were cut by those seconds (TALLY
 * costs=), and a merge of the same logs again must find the table they were
 * cut by. An item with no row gets one only when it failed (never measured,
 * so its cost stays the estimate). Without it the next `--shard K/N
 * --rerun-failed` round read an older run's failures and could merge green
 * having rerun none of this round's (a red team's find). Prints "kcontract:
 * cost table PATH: N verdicts recorded, seconds kept ..." to out. Returns
 * the rows set, or -1 when writing failed. */
int kc_costs_save_verdicts(const char *path, const struct kc_records *rs, int untrusted, FILE *out);
/* As a run whose end writes the table starts (a --shard K/N slice, a serial
 * or --jobs run, a --schedule static shard: queue.c, runner.c), before any
 * of it runs: each of names[0..n) is recorded failed in the table at path,
 * its seconds and peaks kept (a row never measured for one the table
 * lacks), under the table's lock; its end records each verdict
 * (kc_costs_save_run, kc_costs_save_verdicts). A run that never reaches its
 * end (killed), or whose items are SKIP without a GPU (which no end
 * records), so leaves its items failed, and its --rerun-failed retry runs
 * them: else, with an older failure in the table, the retry ran only that
 * one, or nothing, and read green (red teams' finds). Never makes a table;
 * one malformed or gone meanwhile is left to the end's recording. 0, or -1
 * said on stderr. */
int kc_costs_mark_failed(const char *path, const char *const *names, int n);
/* Inserts or replaces e. 0, or -1 when out of memory. */
int kc_costs_set(kc_costs *c, const kc_cost *e);
void kc_costs_free(kc_costs *c);

/* A cost for an item with no recorded one: KC_COST_EST_BASE_S plus the bytes
 * (host + GPU, kc_case_memory) of each of its contract's shapes at
 * KC_COST_EST_BYTES_PER_S. */
double kc_cost_estimate(const kc_item *it);
/* The recorded seconds, or the estimate (*recorded says which; may be NULL). */
double kc_item_cost(const kc_costs *c, const kc_item *it, int *recorded);
/* The time limit in seconds: override_s if > 0 (--timeout); else for a
 * mutant's item with a recorded cost max(KC_MUTANT_TIMEOUT_FLOOR_S,
 * KC_TIMEOUT_MULTIPLE x it); else the contract's timeout_s if set; else
 * max(KC_TIMEOUT_FLOOR_S, KC_TIMEOUT_MULTIPLE x recorded seconds), or
 * KC_TIMEOUT_NO_COST_S with no recorded cost. */
double kc_item_time_limit(const kc_item *it, const kc_costs *c, double override_s);
/* The limit of an item run again alone (dispatch.h): for a mutant's item
 * with a recorded cost and no override, max(KC_MUTANT_ALONE_FLOOR_S,
 * KC_MUTANT_ALONE_MULTIPLE x it); else kc_item_time_limit's. */
double kc_item_time_limit_alone(const kc_item *it, const kc_costs *c, double override_s);

/* The queue's order: sorts sel (indices into items) so that items that failed
 * last time come first, then by cost, longest first, then by name. */
void kc_queue_order(const kc_costs *c, const kc_item *items, int *sel, int ns);

/* LPT: items (costs cost[i], names names[i]) sorted by cost, longest first,
 * ties by name, each onto the least-loaded of nshards shards (ties: the one
 * with the fewest items, then the lowest: items measured at 0 s spread
 * round robin rather than all onto shard 0, which a new user found).
 * shard_of[i] receives item i's shard. 0, or -1 out of memory. */
int kc_lpt_partition(const double *cost, const char *const *names, int n, int nshards, int *shard_of);

/* The selection of a run or list: the filtered items (in name order) that
 * belong to shard o->shard_k of o->shard_n: by cost (LPT over the table
 * o->costs) when --costs was given with --shard, else item i in shard i % N;
 * with --rerun-failed, of that slice only those the table o->costs records
 * as failed (each shard retries the failures of the slice it ran), or the
 * whole slice when the table records none failed among all the filtered
 * items (*rerun_all 1, may be NULL).
 * Fills sel (room for n) and *nfiltered (the count before sharding);
 * returns the count, or -1 with "FILE: ..." in err (a malformed table, no
 * table under --rerun-failed, out of memory). A --jobs run selects once, in
 * the parent: its workers take item names, never the table.
 * --rerun-failed with no failure recorded runs everything, as pytest's
 * --last-failed does by default (--last-failed-no-failures all): a run
 * refused, killed before it wrote the table, or without a GPU records no
 * failure, and `run || run --rerun-failed` then read green having run
 * nothing (a new user's and a red-team's find). */
int kc_select(const kc_opts *o, const kc_item *items, int n, int *sel, int *nfiltered, int *rerun_all, char *err,
              size_t cap);
/* With --rerun-failed, what the selection is, to out: with rerun_all
 * (kc_select's: no failure recorded among the selection, so every item
 * runs) "kcontract: --rerun-failed: the cost table FILE records no failed
 * item among those selected, so every one runs ..." (listing, for `list`:
 * "so every one is listed: a run would run every one ...", as a list runs
 * nothing), returning 1; else "kcontract: --rerun-failed: runs the ns
 * items the cost table FILE records failed[ in shard K/N's slice], of the
 * nf the filter selects" ("listed are" for `list`), so that a reader of
 * the header knows where the selection came from (a new user's find),
 * returning 0. Without --rerun-failed, nothing (0). */
int kc_rerun_failed_note(const kc_opts *o, int rerun_all, int ns, int nf, int listing, FILE *out);
/* What a cost-cut selection was cut from (TALLY costs=): a hash of the name
 * and cost (recorded, or estimated) of each filtered item in name order, so
 * the shards of one run and their merge can tell that the table changed
 * between them; never 0. *digest is 0 when o is not cut by cost (no --shard,
 * or no --costs). Returns 0, or -1 with "FILE: line 3: ..." in err. */
int kc_select_costs_digest(const kc_opts *o, const kc_item *items, int n, uint64_t *digest, char *err, size_t cap);

/* The per-item plan: the largest case of the item's contract under
 * --reference mode (0 for suites and when with_gpu is 0: GPU items then skip
 * and allocate nothing). On an integrated GPU the caller adds gpu to host. */
void kc_item_memory(const kc_item *it, int with_gpu, kc_ref_mode mode, size_t *host, size_t *gpu);

/* Memory admission: what is running where, against the budgets (bytes left
 * for items once every worker's overhead is counted; SIZE_MAX: unknown). */
typedef struct kc_admit {
    size_t host_budget, host_used;            /* host_used: the items' and the sessions held (below) */
    size_t sessions_host;                     /* host bytes one worker's compute-sanitizer sessions take
                                               * (kc_plan_sanitizer_host; 0: not counted) */
    size_t sessions_gpu[KC_MAX_DEVLIST];      /* ... and GPU bytes on each device (KC_PLAN_SANITIZER_GPU; 0 on a
                                               * device whose budget is under twice it: not counted there) */
    size_t sessions_held;                     /* of host_used, the sessions' of the workers that hold them */
    int running;                              /* items running anywhere */
    int alone_running;                        /* one that never fits runs alone now */
    int ndevs;
    size_t gpu_budget[KC_MAX_DEVLIST], gpu_used[KC_MAX_DEVLIST];
    size_t gpu_sessions_held[KC_MAX_DEVLIST]; /* of gpu_used, the sessions' held on each device */
    int integrated[KC_MAX_DEVLIST];           /* GPU bytes also count against the host */
} kc_admit;

/* May an item needing (host, gpu) bytes start on device slot `slot` (-1: no
 * GPU) now? 1 when it fits beside what runs; 0 when it must wait; 1 with
 * *alone = 1 when it can never fit even alone and nothing else is running
 * (it then runs alone rather than waiting forever). "Alone" counts the
 * sessions held (kc_admit_sessions): they live until their worker ends, so
 * an item that fits only without them would otherwise wait for ever. */
int kc_admit_check(const kc_admit *a, int slot, size_t host, size_t gpu, int *alone);
void kc_admit_take(kc_admit *a, int slot, size_t host, size_t gpu);
void kc_admit_release(kc_admit *a, int slot, size_t host, size_t gpu);
/* A worker on device slot `slot` (-1: none) starts (open 1) or stops
 * (open 0, its process ended) holding compute-sanitizer sessions:
 * a->sessions_host bytes of host memory and a->sessions_gpu[slot] of its device's
 * (on an integrated GPU, the host's too) held beside its items for as long
 * as they live (the sessions' tool processes and targets, each a CUDA
 * context, serve item after item, sanitize_session.h). Call it with the
 * same slot to stop as to start. */
void kc_admit_sessions(kc_admit *a, int slot, int open);
#endif
