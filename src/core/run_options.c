/* run_options.c — the rules of a run's settings (run_options.h) that every
 * layer reads: whether the run rewrites the cost table, and the one builder
 * of the command lines a run gives its children and prints for a person. */
#include "run_options.h"

#include <errno.h>

#include "parallel.h"

int kc_cli_writes_costs(const kc_opts *o)
{
    if (o->cmd != KC_CMD_RUN || o->worker || o->parent) return 0;
    if (o->sharded) return 0;   /* every shard of a multi-host run cuts its slice from the one table */
    if (o->jobs) return !o->schedule_static;
    return o->costs_given || o->rerun_failed;
}

int kc_child_argv(kc_strvec *sv, const kc_opts *o, const kc_child_cmd *c)
{
    if ((unsigned)c->kind >= KC_ARGV_KINDS) {
        errno = EINVAL;
        return -1;
    }
    kc_strvec w = KC_STRVEC_INIT;   /* built apart, then appended whole */
    int bad = 0;
    bad |= kc_strvec_push(&w, c->prog ? c->prog : o->argv0 ? o->argv0 : "kcontract");
    bad |= kc_strvec_push(&w, "run");
    if (c->item) bad |= kc_strvec_push(&w, c->item);
    switch (c->kind) {      /* its own words */
    case KC_ARGV_WORKER:
        bad |= kc_strvec_push(&w, "--worker");
        bad |= kc_strvec_push(&w, "--parent") | kc_strvec_pushf(&w, "%ld", c->parent);
        if (c->gpu_wait) bad |= kc_strvec_push(&w, "--gpu-wait") | kc_strvec_push(&w, c->gpu_wait);
        if (c->gpu_shared) bad |= kc_strvec_push(&w, "--gpu-shared");
        break;
    case KC_ARGV_SHARD:
        bad |= kc_strvec_push(&w, "--shard") | kc_strvec_pushf(&w, "%d/%d", c->shard_k, c->shard_n);
        bad |= kc_strvec_push(&w, "--parent") | kc_strvec_pushf(&w, "%ld", c->parent);
        break;
    case KC_ARGV_REEXEC:    /* before any "--", after which they would be patterns */
        bad |= kc_strvec_push(&w, "--resume-at") | kc_strvec_pushf(&w, "%d", c->resume_at);
        bad |= kc_strvec_push(&w, "--resume-tally") | kc_strvec_push(&w, c->resume_tally ? c->resume_tally : "");
        bad |= kc_strvec_push(&w, "--resume-elapsed") | kc_strvec_pushf(&w, "%.3f", c->resume_elapsed);
        if (c->resume_records_fd >= 0)
            bad |= kc_strvec_push(&w, "--resume-records") | kc_strvec_pushf(&w, "%d", c->resume_records_fd);
        if (c->resume_untrusted) bad |= kc_strvec_push(&w, "--resume-untrusted");
        break;
    case KC_ARGV_SANITIZE:
        bad |= kc_strvec_push(&w, "--sanitize-target");
        break;
    default:
        break;
    }
    bad |= kc_strvec_push(&w, "--seed") | kc_strvec_pushf(&w, "%llu", (unsigned long long)o->seed);
    bad |= kc_strvec_push(&w, "--device") | kc_strvec_pushf(&w, "%d", c->device);
    if ((c->kind == KC_ARGV_WORKER || c->kind == KC_ARGV_SHARD) && c->share > 0 && !o->threads)
        bad |= kc_strvec_push(&w, "--threads") | kc_strvec_pushf(&w, "%d", kc_parallel_share(c->share));
    bad |= kc_strvec_pushn(&w, (const char *const *)o->inherit[c->kind].v, o->inherit[c->kind].n);
    if (c->kind == KC_ARGV_SHARD || c->kind == KC_ARGV_REEXEC) {
        bad |= kc_strvec_push(&w, "--");   /* the patterns last: one may start with '-' */
        bad |= kc_strvec_pushn(&w, (const char *const *)o->patterns, o->patterns ? (size_t)o->npatterns : 0);
    }
    if (!bad) bad = kc_strvec_pushn(sv, (const char *const *)w.v, w.n);
    kc_strvec_clear(&w);
    if (bad) errno = ENOMEM;
    return bad ? -1 : 0;
}
