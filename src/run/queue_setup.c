/* queue_setup.c — owns the work queue's setup before its first worker
 * starts (queue_types.h, kc_q_setup): the selection (or this --shard
 * slice of it), the cost table, the devices, the results cache's lookups,
 * the memory plan and admission budgets (plan.h; the sanitizer's sessions
 * too), each item as the dispatch policy sees it (dispatch.h), and the
 * run's header (queue_header.h). Moved out of queue.c unchanged. */
#include "queue_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"
#include "dispatch.h"
#include "filter.h"
#include "inflight.h"
#include "jobs.h"
#include "parallel.h"
#include "plan.h"
#include "progname.h"
#include "queue_header.h"
#include "reporter.h"
#include "result_cache.h"
#include "sanitize.h"
#include "sanitize_session.h"
#include "size_sat.h"
#include "strbuf.h"

/* The sanitizer's tool processes and targets: one worker's must fit
 * beside the overheads. With sessions (the default) a worker holds them
 * from its first such item until it ends; without (KC_SANITIZE_SESSIONS=0)
 * each such item starts and ends its own, so they are its (its figures in
 * qq->di, *hmax and *gmax raised). Batches (racecheck over up to K items)
 * only where they are on. The header's figures into head. 0, or -1 with
 * err (a refusal: a bad figure, or one worker's that does not fit). */
static int plan_sessions(queue *qq, const kc_opts *o, const kc_devinfo *d, int nwp, size_t avail, int ns, size_t *hmax,
                         size_t *gmax, kc_queue_head *head, char *err, size_t errcap)
{
    size_t san, sang;
    if (kc_plan_sanitizer_host_env(getenv("KC_SANITIZER_HOST_MIB"), kc_san_batches_on() ? o->inflight : 1, &san, err,
                                   errcap) ||
        kc_plan_sanitizer_gpu_env(getenv("KC_SANITIZER_GPU_MIB"), &sang, err, errcap))
        return -1;
    /* The GPU share only where it leaves as much again to items: on a
     * device whose budget is under twice it, holding it would leave every
     * later item too little and run each alone (said in the header). On
     * an integrated GPU a counted share is host memory too. */
    char *note = head->sessions_gpu_not_on;     /* devices where it is not counted */
    size_t counted = 0;                         /* the share, where some device counts it */
    int integrated = 0;
    for (int j = 0; j < d->ndevs; j++) {
        int fits = qq->adm.gpu_budget[j] == SIZE_MAX || sang <= qq->adm.gpu_budget[j] / 2;
        if (sang && !fits) kc_strcatf(note, sizeof head->sessions_gpu_not_on, "%s%d", note[0] ? ", " : "", d->dev[j].ordinal);
        if (fits && kc_san_sessions_on()) qq->adm.sessions_gpu[j] = sang;
        if (fits) counted = sang;
        integrated |= fits && d->dev[j].integrated;
    }
    if (kc_plan_check_sessions(nwp, KC_PLAN_HOST_OVERHEAD, integrated ? san + sang : san, avail, err, errcap)) return -1;
    head->sessions_gpu = kc_san_sessions_on() ? counted : 0;
    head->sessions_gpu_figure = sang;
    if (kc_san_sessions_on()) {
        qq->adm.sessions_host = san;
        return 0;
    }
    for (int i = 0; i < ns; i++)
        if (qq->di[i].sanitizer) {
            qq->di[i].host = kc_add_sat(qq->di[i].host, san);
            if (!note[0])   /* the GPU share where every device can hold it */
                qq->di[i].gpu = kc_add_sat(qq->di[i].gpu, sang);
            if (qq->di[i].host > *hmax) *hmax = qq->di[i].host;
            if (qq->di[i].gpu > *gmax) *gmax = qq->di[i].gpu;
        }
    return 0;
}

/* KC_DISPATCH_SANITIZER_FIRST, removed: "1" had every worker of --jobs's
 * work queue take the sanitizer's items first. Measured twice to gain
 * nothing (H100 51.4 against 51.2 s, docs/receipts/2026-12-05-h100-phases;
 * H200 46.4 against 43.7 s, docs/receipts/2026-12-05-h200-alone-first), so
 * a run that asks for it is refused rather than run without it. 0 when
 * unset, empty or "0"; -1 (said on stderr) for any other value. */
static int removed_sanitizer_first(void)
{
    const char *env = getenv("KC_DISPATCH_SANITIZER_FIRST");
    if (!env || !*env || strcmp(env, "0") == 0) return 0;
    kc_say(stderr, "KC_DISPATCH_SANITIZER_FIRST = '%s': this setting was removed (handing the sanitizer's items out "
                   "first was measured twice and gained nothing: docs/parallel-runs.md); unset it\n", env);
    return -1;
}

int kc_q_setup(queue *qq, const kc_opts *o, const kc_item *items, int n)
{
    char err[1024];
    if (removed_sanitizer_first() < 0) return 2;
    int *sel = malloc(((size_t)n + 1) * sizeof *sel), nf = 0, ns = 0, gpu_items = 0;
    if (!sel) return 4;
    /* The filtered items, or with --shard K/N this host's slice of them, cut
     * as a serial --shard K/N run cuts it (by cost with --costs), so its
     * TALLY merges like any shard's (kcontract merge). */
    int rerun_all = 0;
    if ((ns = kc_select(o, items, n, sel, &nf, &rerun_all, err, sizeof err)) < 0 ||
        kc_select_costs_digest(o, items, n, &qq->t.costs, err, sizeof err)) {
        kc_say(stderr, "%s %s\n", kc_costs_origin(o), err);
        free(sel);
        return 2;
    }
    int found = 0;
    /* A serial run reads the table only when told to (--costs, --rerun-failed):
     * without, its time limits are the contracts' or KC_TIMEOUT_NO_COST_S. */
    int read_costs = !qq->serial || o->costs_given || o->rerun_failed;
    if (!read_costs) memset(&qq->costs, 0, sizeof qq->costs);
    else if (kc_costs_load(o->costs, &qq->costs, &found, err, sizeof err)) {
        kc_say(stderr, "%s %s (fix or remove the file; docs/parallel-runs.md gives the format)\n", kc_costs_origin(o), err);
        free(sel);
        return 2;
    }
    qq->t.items = ns;
    for (int i = 0; i < ns; i++) {
        qq->t.digest += kc_item_set_digest(&items[sel[i]]);
        gpu_items += items[sel[i]].kind != KC_KIND_SUITE || items[sel[i]].suite->needs_gpu;
    }
    qq->gpu_items = gpu_items;
    int rc = kc_jobs_probe_devices(o, gpu_items, qq->serial ? 1 : o->jobs, qq->d);
    if (rc) {
        free(sel);
        return rc;
    }
    kc_devinfo *d = qq->d;
    qq->fin.cache = kc_rcache_open_on(o, d->dev, d->ndevs, d->driver_version, stdout);
    kc_rcache_limits(qq->fin.cache, &qq->costs);    /* a pass longer than its limit here runs (qi->limit) */
    if (kc_rcache_lookup_all(qq->fin.cache, items, n, sel, ns, &qq->hits)) {
        free(sel);
        return 4;
    }
    int runs = ns - qq->hits.n;  /* the items not reused: cached ones are dispatched to no worker */
    qq->nw = qq->serial ? runs > 0 : o->jobs < runs ? o->jobs : runs;
    /* The workers alone must fit (the items are admitted one by one). */
    kc_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.host = KC_PLAN_HOST_OVERHEAD;
    plan.gpu = d->ndevs ? kc_plan_gpu_per_worker(o->inflight) : 0;
    size_t avail;
    if (kc_read_mem_available(&avail)) avail = SIZE_MAX;
    int nwp = qq->nw ? qq->nw : 1;
    kc_plan_env e = { nwp, &plan, avail, d->dev, d->free_mem, d->ndevs };
    if (qq->serial) avail = SIZE_MAX;   /* one item at a time: nothing to admit beside it (as before the queue) */
    else if (kc_plan_check(&e, err, sizeof err)) {
        kc_say(stderr, "--jobs %d refused: %s\n", o->jobs, err);
        free(sel);
        return 2;
    }
    qq->adm.host_budget = avail == SIZE_MAX ? SIZE_MAX
                        : avail > (size_t)nwp * KC_PLAN_HOST_OVERHEAD ? avail - (size_t)nwp * KC_PLAN_HOST_OVERHEAD : 0;
    qq->adm.ndevs = d->ndevs;
    for (int j = 0; j < d->ndevs; j++) {
        size_t over = (size_t)kc_plan_children_on(nwp, d->ndevs, j) * kc_plan_gpu_per_worker(o->inflight);
        qq->adm.gpu_budget[j] = qq->serial || d->free_mem[j] == SIZE_MAX ? SIZE_MAX
                              : d->free_mem[j] > over ? d->free_mem[j] - over : 0;
        qq->adm.integrated[j] = d->dev[j].integrated;
    }
    if (!qq->serial) kc_queue_order(&qq->costs, items, sel, ns);   /* serial: the selection's order */
    qq->q = calloc((size_t)(ns ? ns : 1), sizeof *qq->q);
    qq->di = calloc((size_t)(ns ? ns : 1), sizeof *qq->di);
    if (!qq->q || !qq->di) {
        free(sel);
        return 4;
    }
    int recorded = 0, any_sanitizer = 0, waits = 0;
    double total = 0;
    size_t hmax = 0, gmax = 0;
    for (int i = 0; i < ns; i++) {
        qitem *qi = &qq->q[i];
        kc_dispatch_item *di = &qq->di[i];
        const kc_item *it = &items[sel[i]];
        qi->idx = sel[i];
        qi->beside_bad = -1;            /* no neighbour counted against it (queue_neighbours.c) */
        qi->limit = kc_item_time_limit(it, &qq->costs, o->timeout_s);
        di->contract = it->contract;
        di->sanitizer = kc_item_runs_sanitizer(it);
        di->sanitizer_control = di->sanitizer && it->kind == KC_KIND_CONTROL;
        di->fault_control = it->kind == KC_KIND_CONTROL && it->control && it->control->gate == 1;
        char why[300];
        di->shares = kc_inflight_admits(it, why, sizeof why);
        /* a :sanitize item on a worker with lanes: racecheck in batches */
        di->batch = it->kind == KC_KIND_SANITIZE && o->inflight > 1 && kc_san_batches_on();
        di->cost = kc_item_cost(&qq->costs, it, &qi->recorded);
        kc_item_memory(it, d->ndevs > 0, o->reference, &di->host, &di->gpu);
        recorded += qi->recorded;
        total += qi->recorded ? di->cost : 0;
        if (di->host > hmax) hmax = di->host;
        if (di->gpu > gmax) gmax = di->gpu;
        const int runs = !(qq->hits.by_item && qq->hits.by_item[qi->idx]);   /* a cached one runs nothing */
        any_sanitizer |= di->sanitizer && runs;
        waits += runs && it->kind == KC_KIND_SANITIZE && d->ndevs > 0 && kc_san_sessions_on();
    }
    char san[4096], san_why[512];
    if (waits && kc_sanitizer_find(san, sizeof san, san_why, sizeof san_why))
        waits = 0;                      /* no compute-sanitizer: every :sanitize item is SKIP, none waits */
    kc_queue_head head = { 0 };
    if (!qq->serial && any_sanitizer && d->ndevs > 0 &&
        plan_sessions(qq, o, d, nwp, avail, ns, &hmax, &gmax, &head, err, sizeof err)) {
        kc_say(stderr, "--jobs %d refused: %s\n", o->jobs, err);
        free(sel);
        return 2;
    }
    qq->nq = ns;
    qq->dp.items = qq->di;
    qq->dp.nitems = ns;
    qq->dp.adm = &qq->adm;
    qq->dp.serial = qq->serial;
    qq->dp.sessions_on = kc_san_sessions_on();
    qq->dp.session_start_s = KC_QUEUE_SESSIONS_START_S;
    qq->dp.san_controls_max = KC_DISPATCH_SAN_CONTROLS_PER_GPU * (d->ndevs > 0 ? d->ndevs : 1);
    qq->dp.fault_controls_max = KC_DISPATCH_FAULT_CONTROLS_AT_ONCE;
    qq->dp.lanes = o->inflight > 1;
    free(sel);
    head.selected = ns;
    head.filtered = nf;
    head.rerun_all = rerun_all;
    head.gpu_items = gpu_items;
    head.sanitize_waits = waits;
    head.workers = qq->nw;
    head.costs_found = found;
    head.recorded = recorded;
    head.host_max = hmax;
    head.gpu_max = gmax;
    head.mem_avail = avail;
    head.sessions_host = qq->adm.sessions_host;
    if (qq->serial) {
        kc_queue_serial_header(o, d, &head, &qq->t);
        kc_report_run_start(ns, 0, 1, 1, total);
        return 0;
    }
    kc_queue_header(o, d, &head, &qq->t);
    kc_report_run_start(ns, 0, qq->nw, 1, total);
    return 0;
}
