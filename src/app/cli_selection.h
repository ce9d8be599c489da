/* cli_selection.h — the command line held to the items it selects, once
 * they are known (main.c, after the registry and the patterns): what no
 * option's value alone can tell. */
#ifndef KC_CLI_SELECTION_H
#define KC_CLI_SELECTION_H
#include "run_options.h"

/* --block-size B against the items the run's patterns select (items[0..n),
 * before --shard's slice and --rerun-failed): every contract one of them
 * belongs to (a kernel, control, :limits or :sanitize item, a launch
 * record) must list B among its block sizes (kc_contract.block_sizes); a
 * suite runs as without it. 0 (also without --block-size), or 2 after
 * refusing, naming the value, the contracts that do not list it (a few,
 * then a count) with what each lists, and how to narrow the selection. */
int kc_cli_check_block_size(const kc_opts *o, const kc_item *items, int n);
#endif
