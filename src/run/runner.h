/* runner.h — a serial run in one process: select items, run each, print one
 * line per item, then the TALLY and SUMMARY lines. When a kernel leaves the
 * CUDA context unusable (a sticky error such as an illegal address) the
 * process re-executes itself and continues with the next item, carrying the
 * counts so far: a fresh process is the only measured way back (an H200 did
 * not recover by resetting the primary context). */
#ifndef KC_RUNNER_H
#define KC_RUNNER_H
#include "run_options.h"
#include "item.h"

/* Runs the selected items; returns the exit status (see kc_tally_exit_status,
 * 2 for a device that does not exist, 4 for an internal error). */
int kc_run(const kc_opts *o, const kc_item *items, int n);
/* kcontract list: one "<kind> <name>" line per selected item. Returns 0. */
int kc_list(const kc_opts *o, const kc_item *items, int n);
/* kcontract info: driver version and devices. */
int kc_info(void);
#endif
