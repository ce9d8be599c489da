/* tally.h — the machine-readable TALLY line: every count of a run, its seed,
 * device identity, shard, item-set digest and the run options that decide
 * what was checked. Versioned key=value; the writer
 * and the parser here are the only definition (docs/output-format.md explains
 * it). A malformed line is refused with a reason, never read as zeros. */
#ifndef KC_TALLY_H
#define KC_TALLY_H
#include <stddef.h>
#include <stdint.h>
#include "item.h"

/* 2: the .leak keys (issue 13); 3: the sanitize.* keys (issue 12), build=
 * (build_id.h) replaces binary=, and costs= (issue 14); 4: block=,
 * reference= and timeout=, the run options that change verdicts, so that a
 * merge refuses shards run with different ones (a v=3 line cannot say them:
 * read as the defaults, a shard run with --block-size would pass for one
 * without) */
#define KC_TALLY_VERSION 4
#define KC_TALLY_MAX_BLOCK 1024   /* block=: --block-size's largest (cli_values.c) */
#define KC_TALLY_MAX_TIMEOUT_S 1e7  /* timeout=: --timeout's largest, seconds (cli_values.c) */

typedef struct kc_tally {
    long n[KC_KIND_COUNT][KC_STATE_COUNT];   /* items per kind and state */
    long limit_problems;                     /* individual limit violations */
    long stale;                              /* known findings that no longer reproduce */
    long items;                              /* items in this run's set */
    uint64_t seed;
    char device[128];                        /* device name, "none" without a GPU */
    int cc_major, cc_minor, sm_count;
    uint64_t digest;                         /* kc_item_digest over the item set (additive) */
    int shard_k, shard_n;                    /* 0/1 for an unsharded run */
    uint64_t filter;                         /* hash of the name patterns */
    uint64_t build;                          /* the build's identity (build_id.h): what decides the results */
    uint64_t costs;                          /* the cost table a --shard K/N --costs run was cut from
                                              * (kc_select_costs_digest), 0 when not cut by cost */
    /* The run options that change which checks run or what they compare
     * with (part of a run's identity: kc_tally_counts_equal, merge.h): */
    unsigned block_size;                     /* --block-size B (1..1024): only launch variant B of contracts
                                              * that list block sizes; 0 not given: every variant. Key block= */
    kc_ref_mode reference;                   /* --reference (item.h; KC_REF_DEVICE when not given). Key reference= */
    double timeout_s;                        /* --timeout S, seconds: every item's time limit; 0 not given
                                              * (each item's own: kc_item_time_limit). Key timeout= */
    long cached;                             /* items of the counts above reused from the results cache
                                              * (result_cache.h), not run; key cached=, optional on read
                                              * (absent: 0), so lines written before it still parse */
    long untrusted;                          /* runs (a run, or each merged shard) with something they cannot
                                              * vouch for: compute-sanitizer sessions that could not vouch
                                              * for their clean verdicts (worker.h, the end line), a worker
                                              * that broke the result protocol, or one that ended on its own
                                              * where no verdict explains it (queue_deaths.c): not green
                                              * whatever the counts say;
                                              * key untrusted=, written only when nonzero, optional on read */
    uint64_t host;                           /* the identity of the host code the run ran (host_code.h: its float64
                                              * references, input generators, launch functions and the
                                              * harness), which gate 3's comparisons rest on; 0 unknown;
                                              * key host=, written only when nonzero, optional on read */
    uint64_t env;                            /* the CUDA environment's hash (cuda_env.h: CUDA_*, CUBLAS*,
                                              * NVIDIA_TF32_OVERRIDE), 0 when none is set;
                                              * key env=, written only when nonzero, optional on read
                                              * (absent: none set) */
} kc_tally;

void kc_tally_init(kc_tally *t);
struct kc_opts;
/* Sets t's run options (block_size, reference, timeout_s) from the run's
 * settings (run_options.h): the one place that says which options are part
 * of a run's identity. The rest (--threads, --inflight, --jobs, --shard,
 * --schedule, --no-cache, --status-level, --fail-fast, --restarts, the
 * reports) changes where, how fast or what is printed, not a verdict that
 * the TALLY counts; docs/output-format.md says why for each. */
void kc_tally_set_options(kc_tally *t, const struct kc_opts *o);
/* Sets t's host (this binary's host code, host_code.h; 0 when it cannot be
 * read) and env (this process's CUDA environment, cuda_env.h): what decides
 * a verdict beside the build and the options, so that a merge refuses
 * shards that ran other host code or under another CUDA environment. */
void kc_tally_set_host_env(kc_tally *t);
/* Adds one item's outcome (a limit item's FAIL counts as KC_LIMIT, written
 * limit.fail). Does not touch items or digest: the runner sets those. */
void kc_tally_add(kc_tally *t, kc_kind k, kc_state s);
/* Sums counts (n, limit_problems, stale, items, cached, untrusted; digest mod 2^64) of b into
 * a. Returns 0, or -1 with a unchanged when a sum would pass LONG_MAX (only
 * a forged or edited TALLY has such counts; found by fuzzing the merge). */
int kc_tally_merge(kc_tally *a, const kc_tally *b);
/* Item-set digest contribution of one name; a set's digest is the sum mod 2^64. */
uint64_t kc_item_digest(const char *name);
/* An item's contribution: kc_item_digest of its name, mixed with its dims for
 * a launch-record item, so two hosts whose --records share a label but not
 * its dims do not merge as one run. What runs and merges sum. */
uint64_t kc_item_set_digest(const kc_item *it);

/* Writes "TALLY v=4 key=value ..." (no newline) into buf; returns the length,
 * or -1 when it does not fit or the struct holds something the line cannot
 * say (a negative count, a kind/state pair without a key such as a kernel in
 * RED, a bad shard, a block size above 1024, a negative or non-finite
 * timeout). tally.c lists the keys. */
int kc_tally_format(const kc_tally *t, char *buf, size_t cap);
/* Parses a line written by kc_tally_format (one trailing '\n' allowed; keys
 * after v=4 in any order). Returns 0, or -1 with a reason ("missing key
 * kernel.pass", "duplicate key seed", "bad number 'x' for items", "unknown key
 * foo", "bad reference 'gpu' for reference", "version 3 not supported (want
 * 4): written by an older kcontract ...", ...) in err; *t is untouched on error. */
int kc_tally_parse(const char *line, kc_tally *t, char *err, size_t errcap);
/* Equal counts and identity: every field but shard_k, shard_n, costs and
 * cached (a merged set of shards equals the unsharded run; how many items a
 * run took from the cache says how it got its verdicts, not what they are),
 * the run options (block_size, reference, timeout_s) included; untrusted
 * only as whether any (a merge counts one per shard). */
int kc_tally_counts_equal(const kc_tally *a, const kc_tally *b);

/* The exit status the counts explain: 1 if anything failed (FAIL, MISSED,
 * LIMIT, LEAK, CRASH, TIMEOUT, NOTRUN, stale known findings, limit problems,
 * a run not trusted: untrusted), else 3
 * if anything was skipped, else 0. KNOWN is not a failure. (2 is bad usage, 4
 * an internal error: never from counts.) */
int kc_tally_exit_status(const kc_tally *t);

/* The SUMMARY line for people (no newline), e.g. "SUMMARY 42 kernels: 41 pass
 * gates 1-4, 0 fail, 1 known finding; 30 controls: 30 red as planted, 0 missed;
 * 42 limit checks: 40 pass, 2 with problems (3 problems); 4 suites: 3 pass, 1
 * fail" (the problems only when there are some), then only the nonzero
 * extras: "; 1 left processes or GPU state behind" (LEAK),
 * "; 5 skipped", "; 1 crashed", "; 1 timed out",
 * "; 3 not run", "; 1 stale known finding" (skip/crash/timeout/notrun summed
 * over kinds), "; not trusted (a line above says why)" ("; not trusted in
 * 2 shards (their lines say why)" when merged), "; 40 cached" (items reused from the results cache, counted
 * in their states above too). Kernel, control, limit and suite totals count every state. Returns
 * the length, or -1 when it does not fit. */
int kc_summary_format(const kc_tally *t, char *buf, size_t cap);
#endif
