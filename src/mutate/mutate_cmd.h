/* mutate_cmd.h — `kcontract mutate [PATTERN...]` (docs/mutation.md): the
 * modules of the selected contracts mutated (mutate_ops.h), the accepted
 * equivalents left out (mutate_accept.h), --budget N mutants drawn with
 * --seed, each built and filtered by trivial compiler equivalence
 * (mutate_build.h), the viable ones run as controls by this binary's own
 * `run` (KC_MUTANTS, mutant_images.h: the work queue with --jobs, --shard,
 * --timeout), and the report (mutate_report.h). */
#ifndef KC_MUTATE_CMD_H
#define KC_MUTATE_CMD_H
#include <stddef.h>

#include "item.h"
#include "run_options.h"
#include "state.h"
#include "strvec.h"

/* Runs the mutate command over the items' contracts that o's patterns
 * select. Exit status: 0 no mutant missed; 1 a mutant missed (or not run);
 * 2 bad usage (an operator, a source not found, the accepted file refused);
 * 4 internal error (a build that could not run). */
int kc_mutate_main(const kc_opts *o, const kc_item *items, int n);

/* One line of the run's output, when it is a mutant item's line ("[wK] "
 * tag optional): "STATE  <contract>:mutant.<id>  message ...". Sets the
 * state, contract, id and the gate a RED line names ("caught by gate N");
 * returns 1, or 0 for any other line. */
int kc_mutate_parse_line(const char *line, kc_state *state, char *contract, size_t ccap, char *id, size_t icap,
                         int *gate);

/* The options that cut a wave's run (1 first contract, 2 the others, 0
 * every contract) into this shard's slice, pushed onto av: `--shard K/N`
 * for waves 0 and 1 of a --shard run (wave 2 runs whole: its manifest holds
 * this shard's mutants only), and `--costs`: the user's table when given,
 * else mutant_costs (the mutants' table under --mutants-dir, for the longest
 * first order), except for a sharded wave, which is then sliced by name so
 * that every shard cuts the same slices. Returns nonzero when out of memory. */
int kc_mutate_wave_slice(const kc_opts *o, int wave, const char *mutant_costs, kc_strvec *av);
#endif
