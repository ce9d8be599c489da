/* mutate_merge.h — one mutation report from the --json reports of the
 * shards of a mutation run (kcontract mutate --shard K/N on each host, then
 * kcontract mutate --merge-json FILE... with the same patterns, --budget,
 * --seed, --operators and --accepted): each mutant's build outcome must be
 * the same in every report, and its run decided by exactly one; and an
 * iterated run's earlier outcomes (--iterate). */
#ifndef KC_MUTATE_MERGE_H
#define KC_MUTATE_MERGE_H
#include <stddef.h>

#include "mutate_build.h"
#include "mutate_ops.h"
#include "mutate_select.h"

/* Reads the nfiles reports into st (indexed as m, the mutants the
 * operators make from the current sources; st holds this run's own
 * ACCEPTED and SAMPLED_OUT marks, everything else PENDING). A mutant that
 * no shard ran is NOTRUN. Returns 0; -1 with err naming the file, line and
 * mutant when a report is unreadable, records another selection of
 * contracts than sel (this run's, mutate_select.h) or none, names an item
 * of a contract not in sel, names a mutant the sources no longer make,
 * disagrees with another on a mutant's build or on a selection mark, both
 * ran one mutant (shards that overlap), or lacks a mutant (a report of
 * another selection). */
int kc_mutate_merge(char *const *files, int nfiles, const kc_mutants *m, const kc_mut_selection *sel, kc_mut_status *st,
                    char *err, size_t cap);


/* --iterate: reads earlier reports (a run's or a merge's --json; shards
 * that overlap too) into st. A mutant still PENDING here (selected, not
 * accepted) that a report caught or timed out, or built as unviable,
 * equivalent or duplicate, takes that outcome and is marked carried:
 * it is not built or run again. Missed and not-run mutants stay PENDING, to
 * be built and run (cargo-mutants' --iterate). A verdict wins over a build
 * outcome. A line whose mutant the current sources no longer make at the same
 * file, line, column and texts is ignored and counted in *stale (that code is
 * judged again). Returns how many mutants were carried; -1 with err naming
 * the file and line when a report is unreadable or cut short, records
 * another selection of contracts than sel or none, or names an item of a
 * contract not in sel (as kc_mutate_merge). */
int kc_mutate_iterate(char *const *files, int nfiles, const kc_mutants *m, const kc_mut_selection *sel,
                      kc_mut_status *st, int *stale, char *err, size_t cap);
#endif
