/* mutate_cmd.h — `kcontract mutate [PATTERN...]` (docs/mutation.md): the
 * modules of the selected contracts mutated (mutate_ops.h), the accepted
 * equivalents left out (mutate_accept.h), --budget N mutants drawn with
 * --seed, each built and filtered by trivial compiler equivalence
 * (mutate_build.h), the contracts that judge them run unmutated
 * (mutate_baseline.h), the viable ones run as controls by this binary's own
 * `run` in waves (mutate_waves.h), and the report (mutate_report.h). */
#ifndef KC_MUTATE_CMD_H
#define KC_MUTATE_CMD_H
#include <stddef.h>

#include "item.h"
#include "run_options.h"

/* Runs the mutate command over the items' contracts that o's patterns
 * select. Exit status: 0 no mutant missed; 1 a mutant missed (or not run);
 * 2 bad usage (an operator, a source not found, the accepted file refused);
 * 4 internal error (a build that could not run). */
int kc_mutate_main(const kc_opts *o, const kc_item *items, int n);
#endif
