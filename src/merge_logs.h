/* merge_logs.h — `kcontract merge [PATTERN...] [--records F] [--seed S]
 * [--costs F] --log FILE...`: the SUMMARY of a multi-host run, from the saved
 * stdout of each host's `kcontract run ... --shard K/N`. The merge is
 * kc_merge's (merge.h), the same as --schedule static's: it refuses, naming
 * the shard and the reason, a shard missing or given twice, a log that did not
 * finish (no SUMMARY after its TALLY), a TALLY for another seed, filter,
 * binary (this binary must be the one the shards ran) or N, a shard that ran
 * another slice than this binary computes from the same patterns, records
 * and cost table, and shards on different GPUs. */
#ifndef KC_MERGE_LOGS_H
#define KC_MERGE_LOGS_H
#include "cli.h"
#include "item.h"

/* Prints each shard's log, then the merged TALLY and SUMMARY, or "the merge
 * failed" with one line per problem. Returns the merged run's exit status
 * (kc_tally_exit_status), 1 when the merge fails, 2 for an unreadable log or
 * cost table, 4 out of memory. */
int kc_merge_logs(const kc_opts *o, const kc_item *items, int n);
#endif
