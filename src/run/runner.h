/* runner.h — the one-process run: select items, run each in this process,
 * print one line per item, then end the run (run_end.h). It runs a static
 * schedule's shard (`--parent`, jobs.h), whose parent supervises it; a
 * serial or --shard K/N run is a one-worker work queue instead
 * (kc_serial_run, worker.h), so that an item ending the process cannot end
 * the run. When a kernel leaves the CUDA context unusable (a sticky error
 * such as an illegal address) the process re-executes itself and continues
 * with the next item, carrying the counts so far and its records (an
 * anonymous memory file, record.h): a fresh process is the only measured way
 * back (an H200 did not recover by resetting the primary context). */
#ifndef KC_RUNNER_H
#define KC_RUNNER_H
#include "run_options.h"
#include "item.h"

/* Runs the selected items; returns the exit status (kc_run_exit_status,
 * run_end.h; 2 for a device that does not exist, 4 for an internal error). */
int kc_run(const kc_opts *o, const kc_item *items, int n);
/* kcontract list: one "<kind> <name>" line per selected item. Returns 0. */
int kc_list(const kc_opts *o, const kc_item *items, int n);
/* kcontract info: driver version and devices. */
int kc_info(void);
#endif
