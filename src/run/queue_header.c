/* queue_header.c — owns the lines a work-queue run prints before its first
 * item (queue_header.h), each a note to the reporter (reporter.h). */
#include "queue_header.h"

#include <stdint.h>
#include <stdio.h>

#include "costs.h"
#include "plan.h"
#include "progname.h"
#include "reporter.h"
#include "strbuf.h"

/* The TALLY's device fields: the first device's (they agree: kc_jobs_probe_devices), or "none". */
static void tally_device(kc_tally *t, const kc_devinfo *d)
{
    if (d->ndevs) {
        snprintf(t->device, sizeof t->device, "%.127s", d->dev[0].name);
        t->cc_major = d->dev[0].cc_major;
        t->cc_minor = d->dev[0].cc_minor;
        t->sm_count = d->dev[0].sm_count;
    } else {
        snprintf(t->device, sizeof t->device, "none");
    }
}

/* "N items selected, seed S" (a shard's: "shard K/N: n of N selected ..."). */
static void selected(const kc_opts *o, int ns, int nf, char *buf, size_t cap)
{
    if (o->sharded)
        kc_strcatf(buf, cap, "shard %d/%d: %d of %d selected item%s, seed %llu", o->shard_k, o->shard_n, ns, nf,
                   nf == 1 ? "" : "s", (unsigned long long)o->seed);
    else
        kc_strcatf(buf, cap, "%d item%s selected, seed %llu", ns, ns == 1 ? "" : "s", (unsigned long long)o->seed);
}

void kc_queue_serial_header(const kc_opts *o, const kc_devinfo *d, const kc_queue_head *h, kc_tally *t)
{
    int ns = h->selected, nf = h->filtered, gpu_items = h->gpu_items;
    char head[300] = "", dev[400] = "";
    tally_device(t, d);
    selected(o, ns, nf, head, sizeof head);
    if (d->ndevs)
        kc_strcatf(dev, sizeof dev, ", device %d: %s (compute capability %d.%d, %d SMs, driver %d.%d)",
                   d->dev[0].ordinal, d->dev[0].name, d->dev[0].cc_major, d->dev[0].cc_minor, d->dev[0].sm_count,
                   d->driver_version / 1000, d->driver_version % 1000 / 10);
    kc_report_note(stdout, "%s%s\n", head, dev);
    kc_report_empty_shard(o, ns, nf);
    kc_rerun_failed_note(o, h->rerun_all, ns, nf, 0, stdout);
    if (gpu_items && !d->ndevs)
        kc_report_no_gpu_ahead(d->why, gpu_items, ns);
    if (o->inflight > 1 && ns > 1)     /* why the lines leave name order (docs/output-format.md, item 2) */
        kc_report_note(stdout, "up to %d items in flight (--inflight): each line comes once its verdict stands, so "
                       "not in name order, and an item put back to run alone comes later, from that run\n", o->inflight);
    if (h->sanitize_waits && ns > 1)    /* why they come late (queue_vouch.c) */
        kc_report_note(stdout, "a clean :sanitize verdict is printed once the compute-sanitizer sessions that gave it "
                       "vouch for it, when its worker ends (at the run's end, or when a lost CUDA context replaces "
                       "it): those lines come later than the selection's order\n");
    if (o->timeout_s > 0) kc_report_note(stdout, "time limit %.6g s per item (--timeout)\n", o->timeout_s);
}

void kc_queue_header(const kc_opts *o, const kc_devinfo *d, const kc_queue_head *h, kc_tally *t)
{
    char head[300] = "", order[1200] = "", devs[600] = "";
    tally_device(t, d);
    selected(o, h->selected, h->filtered, head, sizeof head);
    if (h->costs_found)
        kc_strcatf(order, sizeof order, ", failed last time first, then longest first (costs %s: %d of %d measured%s)",
                   o->costs, h->recorded, h->selected, h->recorded < h->selected ? ", the rest estimated" : "");
    else
        kc_strcatf(order, sizeof order, ", longest first by estimate (costs %s: none yet)", o->costs);
    if (h->workers)
        kc_report_note(stdout, "%s; --jobs %d: a work queue of %d worker%s%s\n", head, o->jobs, h->workers,
                       h->workers == 1 ? "" : "s", order);
    else    /* every selected verdict came from the results cache (or none was selected) */
        kc_report_note(stdout, "%s; --jobs %d: no worker started, no item left to run\n", head, o->jobs);
    kc_rerun_failed_note(o, h->rerun_all, h->selected, h->filtered, 0, stdout);
    if (d->ndevs) {
        for (int j = 0; j < d->ndevs; j++) kc_strcatf(devs, sizeof devs, "%s %d", j ? "," : "", d->dev[j].ordinal);
        kc_report_note(stdout, "workers go round robin on device%s%s: %s (compute capability %d.%d, %d SMs)\n",
                       d->ndevs == 1 ? "" : "s", devs, d->dev[0].name, d->dev[0].cc_major, d->dev[0].cc_minor,
                       d->dev[0].sm_count);
    } else if (h->gpu_items) {
        kc_report_no_gpu_ahead(d->why, h->gpu_items, h->selected);
    }
    char hs[32], gs[32], av[32];
    kc_bytes_str(h->host_max, hs, sizeof hs);
    kc_bytes_str(h->gpu_max, gs, sizeof gs);
    kc_bytes_str(h->mem_avail, av, sizeof av);
    char wg[48] = "";
    if (d->ndevs) snprintf(wg, sizeof wg, " + %zu MiB GPU", kc_plan_gpu_per_worker(o->inflight) >> 20);
    char ss[160] = "", sh[40] = "", sg[40] = "";
    if (h->sessions_host) snprintf(sh, sizeof sh, "%zu MiB host", h->sessions_host >> 20);
    if (h->sessions_gpu) snprintf(sg, sizeof sg, "%s%zu MiB GPU", sh[0] ? " + " : "", h->sessions_gpu >> 20);
    if (sh[0] || sg[0]) snprintf(ss, sizeof ss, ", and %s%s while it holds compute-sanitizer sessions", sh, sg);
    if (h->sessions_gpu_not_on[0])
        kc_strcatf(ss, sizeof ss, "%s the sessions' %zu MiB GPU not counted on device %s (under twice it is left there)",
                   ss[0] ? ";" : ",", h->sessions_gpu_figure >> 20, h->sessions_gpu_not_on);
    if (h->workers)      /* with nothing to run, nothing to admit */
        kc_report_note(stdout, "memory: each worker %zu MiB host%s%s; items are admitted while the running ones fit "
                       "(largest item that runs here: host %s, GPU %s; MemAvailable %s)\n",
                       (size_t)KC_PLAN_HOST_OVERHEAD >> 20, wg, ss, hs, gs, h->mem_avail == SIZE_MAX ? "unknown" : av);
    if (o->timeout_s > 0) kc_report_note(stdout, "time limit %.6g s per item (--timeout)\n", o->timeout_s);
}
