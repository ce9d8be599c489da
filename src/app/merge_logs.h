/* merge_logs.h — `kcontract merge [PATTERN...] [--records F] [--seed S]
 * [--costs F] [--allow-mixed-gpus] [--json F] [--junit F] --log FILE|DIR...`:
 * the SUMMARY of a multi-host run, from the saved stdout of each host's
 * `kcontract run ... --shard K/N` (a directory stands for every *.log file
 * under it: Bazel's bazel-testlogs/.../shard_K_of_N/test.log, whose first
 * lines are Bazel's, or the logs an engine collected). A shard index given
 * twice with the same result (an engine ran it twice: Kubernetes may start
 * two pods for one index) is taken once; twice with different results is
 * refused. The merged run prints every failing item's line with its rerun
 * command, as a serial run does, and writes --json and --junit from the item
 * lines (times and messages as the shards printed them; no workers' figures). The merge is
 * kc_merge's (merge.h), the same as --schedule static's: it refuses, naming
 * the shard and the reason, a shard missing or given twice, a log that did not
 * finish (no SUMMARY after its TALLY), a TALLY for another seed, filter,
 * binary (this binary must be the one the shards ran) or N, a shard that ran
 * another slice than this binary computes from the same patterns, records
 * and cost table, and shards on different GPUs. */
#ifndef KC_MERGE_LOGS_H
#define KC_MERGE_LOGS_H
#include <stdio.h>
#include "cli.h"
#include "item.h"
#include "merge.h"
#include "tally.h"

/* Prints each shard's log, then the merged TALLY and SUMMARY, or "the merge
 * failed" with one line per problem. Returns the merged run's exit status
 * (kc_tally_exit_status), 1 when the merge fails, 2 for an unreadable log or
 * cost table, 4 out of memory. */
int kc_merge_logs(const kc_opts *o, const kc_item *items, int n);

/* Reads one saved shard log from f (its stdout; lines over 64 KiB cut, CRLF
 * read as LF) into s (kc_shard_out_init first), and counts into body
 * (kc_tally_init first: its items, digest and kind/state counts) the item
 * lines of `items` (n, any order) it holds, "STATE  name  ...", for holding
 * its TALLY to them. The log's result is the TALLY line immediately before
 * its (last) SUMMARY line, as docs/output-format.md tells every consumer:
 * only that line goes to s (kc_shard_out_line), so TALLY-like lines an item
 * printed above it are neither taken for the result nor counted as a second
 * TALLY. s is ended, and exited with the status its TALLY explains only when
 * a SUMMARY line follows a TALLY line (a log keeps no exit status); *wall is
 * that SUMMARY's "(S s)", 0 without one. Returns 0, or -1 on a read error
 * or out of memory. */
/* recs (may be NULL): one record per item line (name, kind, state, message,
 * seconds as end_s, rerun command); worker and device are left 0 and -1. */
struct kc_records;
int kc_merge_log_read(FILE *f, const kc_item *items, int n, kc_shard_out *s, kc_tally *body, double *wall,
                      struct kc_records *recs);
#endif
