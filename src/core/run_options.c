/* run_options.c — the rules of a run's settings (run_options.h) that every
 * layer reads: whether the run rewrites the cost table. */
#include "run_options.h"

int kc_cli_writes_costs(const kc_opts *o)
{
    if (o->cmd != KC_CMD_RUN || o->worker || o->parent) return 0;
    if (o->sharded) return 0;   /* every shard of a multi-host run cuts its slice from the one table */
    if (o->jobs) return !o->schedule_static;
    return o->costs_given || o->rerun_failed;
}
