/* finish.c — an item finishing in a run (finish.h). */
#include "finish.h"

#include <stdio.h>
#include <string.h>

#include "item_run.h"
#include "reporter.h"
#include "progname.h"
#include "strbuf.h"

void kc_finish_item(kc_finish *f, const kc_item *it, kc_item_result *r, const kc_item_where *w)
{
    int fails = kc_result_fails(r);
    if (fails && !r->rerun[0]) {
        kc_rerun_command(f->o, it->name, w->rerun_device, r->rerun, sizeof r->rerun);
        if (r->block_size && !f->o->block_size)     /* the failing launch variant alone, as item_run.c says it */
            kc_strcatf(r->rerun, sizeof r->rerun, " --block-size %u", r->block_size);
    }
    kc_result_escape(r);          /* the parent's own results and the workers' say what their lines say */
    kc_tally_add(f->tally, it->kind, r->state);
    f->tally->limit_problems += r->limit_problems;
    f->tally->stale += r->stale;
    if (r->cached) f->tally->cached++;
    else if (kc_item_runs_sanitizer(it)) kc_rcache_hold(f->cache, it, r, (int)w->pid);  /* until its sessions end */
    else if (f->hold_to_end) kc_rcache_hold(f->cache, it, r, KC_FINISH_OWNER_END);      /* until the process's end */
    else kc_rcache_store(f->cache, it, r);
    kc_record rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.name, sizeof rec.name, "%s", it->name);
    rec.kind = it->kind;
    rec.res = *r;
    rec.worker = w->worker;
    rec.device = w->device;
    rec.worker_pid = w->pid;
    rec.start_s = w->start_s;
    rec.end_s = w->end_s;
    rec.peak_gpu_mib = w->peak_gpu_mib;
    if (w->log_tail) snprintf(rec.log_tail, sizeof rec.log_tail, "%s", w->log_tail);
    if (kc_records_add(f->records, &rec))
        kc_say(stderr, "out of memory: %s is missing from the reports\n", it->name);
    if (w->print) {               /* the item's line, as a worker prints it, and the worker's last lines */
        kc_item_print_tagged(w->tag, it->name, r, w->tag[0] || w->own_seconds ? r->seconds : w->end_s - w->start_s, w->detail, w->log_tail);
    }
    const kc_cost *c = f->costs ? kc_costs_measured(f->costs, it->name) : NULL;
    kc_report_item_done(fails, c ? c->seconds : 0);
    if (f->o->fail_fast && fails && !f->stopping) {
        f->stopping = 1;
        snprintf(f->stop_why, sizeof f->stop_why, "--fail-fast: the run stopped after %s (%s)", it->name,
                 kc_state_name(r->state));
        kc_report_note(stdout, "--fail-fast: %s is %s; no more items are handed out, the running ones finish\n",
                       it->name, kc_state_name(r->state));
    }
}
