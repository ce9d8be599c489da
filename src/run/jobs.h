/* jobs.h — `kcontract run --jobs N`: the parent of N shard processes.
 *
 * Before any child starts, the parent checks the devices (they exist, they
 * agree on compute capability, SM count and name) and the memory plan
 * (plan.h). Then it starts child k as
 *     /proc/self/exe run PATTERN... --seed S --shard k/N --device D --parent PPID
 * (round robin over the visible GPUs or --devices; device 0 with no GPU),
 * prints each child line as it comes prefixed "[k/N] " (lines over 64 KiB cut,
 * with a marker), and merges the children's TALLY lines into one TALLY and
 * SUMMARY (merge.h). A shard that fails to finish (killed, crashed, no TALLY)
 * makes the parent stop the others (SIGTERM, then SIGKILL after
 * KC_SUP_GRACE_MS) and name them; one that left processes behind fails the
 * merge. SIGINT and SIGTERM are passed on to every live child (supervisor.h);
 * the parent waits for them, says which shards finished and which were
 * stopped, and exits 128 + the signal. */
#ifndef KC_JOBS_H
#define KC_JOBS_H
#include "run_options.h"
#include "item.h"
#include "kcontract.h"
#include "shard.h"
#include <stddef.h>


/* The devices a --jobs run uses (shared with the work queue, worker.h). */
typedef struct kc_devinfo {
    int ndevs;                          /* devices the children go on, round robin; 0: no GPU */
    kc_device dev[KC_MAX_DEVLIST];
    size_t free_mem[KC_MAX_DEVLIST];    /* SIZE_MAX: unknown */
    int shared[KC_MAX_DEVLIST];         /* compute mode DEFAULT: several processes may hold contexts on it at once
                                         * (a serial run's standby worker, queue_standby.c); 0 exclusive,
                                         * prohibited or unknown */
    char why[512];                      /* why there is no GPU */
    int driver_version;                 /* cuDriverGetVersion's (13000: 13.0); 0 without a driver */
} kc_devinfo;

/* Fills d with the devices of --devices, --device or every visible one, at
 * most max_devs of them (no GPU items or no driver: ndevs 0 and why).
 * Returns 0, or 2 after printing a refusal (a device that does not exist). */
int kc_jobs_probe_devices(const kc_opts *o, int gpu_items, int max_devs, kc_devinfo *d);

/* A --jobs child's first act (main calls it before anything else): with
 * --parent PID in argv, ask for SIGKILL when the parent dies
 * (PR_SET_PDEATHSIG), then check that the parent is still PID. Returns 0 to
 * go on (also without --parent), or 2 after saying why (naming both pids). */
int kc_jobs_child_guard(int argc, char **argv);

/* Runs the selected items in o->jobs children. Returns the exit status: the
 * merged counts' (kc_tally_exit_status), 1 when a shard did not finish or the
 * merge failed, 2 for a refusal before any child started, 4 for an internal
 * error, 128 + signal when interrupted by SIGINT or SIGTERM. */
int kc_jobs_run(const kc_opts *o, const kc_item *items, int n);
#endif
