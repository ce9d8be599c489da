/* runner.c — the one-process run (a static schedule's shard): selection, one
 * line per item, the run's end, and the re-exec that replaces a process
 * whose CUDA context a kernel broke. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "build_id.h"
#include "clock.h"
#include "costs.h"
#include "device.h"
#include "filter.h"
#include "finish.h"
#include "gates.h"
#include "gpu_open.h"
#include "forked_call.h"
#include "item_run.h"
#include "nvml.h"
#include "proctree.h"
#include "progname.h"
#include "reporter.h"
#include "strbuf.h"
#include "record.h"
#include "report.h"
#include "report_summary.h"
#include "report_text.h"
#include "result_cache.h"
#include "sanitize.h"
#include "run_end.h"
#include "seed.h"
#include "shard.h"
#include "suite.h"
#include "tally.h"

/* A static shard's end seal (shard.h), from its environment; "" none. The
 * process's own (one run per process); the re-exec hands it on. */
static char shard_seal[64];

/* Replaces this process with a fresh one that continues at item `next`;
 * lost says why (KC_LOST_*, item_run.h); untrusted: a sanitizer session of
 * this process counted errors no window held (the fresh one fails the run). */
static void reexec(const kc_opts *o, int next, const kc_tally *t, double elapsed, const kc_records *rs, int lost,
                   int untrusted)
{
    char line[4096];
    if (kc_tally_format(t, line, sizeof line) < 0) return;
    int fd = kc_records_save_fd(rs);
    if (fd < 0) {    /* the fresh process's reports would lack them: it must not end green */
        kc_report_note(stderr, "cannot keep the records so far across the re-exec (%s); the run is incomplete and "
                "fails\n", strerror(errno));
        untrusted = 1;
    }
    /* this process again, continuing at `next` (what it is given: run_options.h, kc_argv_kind) */
    kc_child_cmd cmd = { .kind = KC_ARGV_REEXEC, .device = o->device, .resume_at = next, .resume_tally = line,
                         .resume_elapsed = elapsed, .resume_records_fd = fd, .resume_untrusted = untrusted };
    kc_strvec av = KC_STRVEC_INIT;
    if (kc_child_argv(&av, o, &cmd)) {
        kc_report_note(stderr, "re-exec failed: %s\n", strerror(errno));
        if (fd >= 0) close(fd);
        return;
    }
    kc_report_run_end();      /* this process's part: the fresh one draws its own progress line */
    if (lost == KC_LOST_GPU_STATE)
        kc_report_note(stdout, "that item left GPU state (memory, or a limit) in this process; continuing in a fresh process\n");
    else
        kc_report_note(stdout, "the CUDA context is unusable after that item; continuing in a fresh process\n");
    fflush(stderr);
    if (shard_seal[0]) setenv(KC_SHARD_SEAL_ENV, shard_seal, 1);   /* the fresh process ends the run */
    execv("/proc/self/exe", av.v);
    unsetenv(KC_SHARD_SEAL_ENV);
    kc_report_note(stderr, "re-exec failed: %s\n", strerror(errno));
    if (fd >= 0) close(fd);
    kc_strvec_clear(&av);
}

/* A static shard's process reached its end, or a re-exec: the passes held
 * until then (finish.h, hold_to_end) are kept in the results cache; its
 * sanitizer sessions end (kc_san_pool_free), and the verdicts they gave are
 * kept only when no session counted errors no item's window held; then 1,
 * after saying why on stdout (kc_rcache_release). */
static int process_end(kc_san_pool *san, kc_rcache *cache)
{
    char why[KC_SAN_WHY_MAX];
    kc_rcache_release(cache, KC_FINISH_OWNER_END, KC_SESSIONS_VOUCHED);    /* the process got here: its passes */
    int bad = kc_san_pool_free(san, why, sizeof why) != 0;
    kc_rcache_release(cache, (int)getpid(), bad ? KC_SESSIONS_DISTRUSTED : KC_SESSIONS_VOUCHED);
    if (!bad) return 0;
    kc_report_note(stdout, "%s\n", why);     /* never green (sanitize_session.h) */
    return 1;
}

/* Whether item sel[i] is a control planted for the sanitizer that will run
 * (its verdict not reused from cache, hits): this run (a static schedule's
 * shard, beside the others) starts its sessions beside the item before it
 * (kc_sanitize_ahead; only just before, as kc_dispatch_ahead says why for
 * several workers). */
static int sanitizer_control_runs(const kc_item *items, const int *sel, int i, int ns, const kc_rcache_hits *hits)
{
    if (i >= ns) return 0;
    const kc_item *it = &items[sel[i]];
    return it->kind == KC_KIND_CONTROL && kc_item_runs_sanitizer(it) && !(hits->by_item && hits->by_item[sel[i]]);
}

/* Whether this run's end writes the cost table at o->costs: a --schedule
 * static shard makes no table (its parent reads none), but its verdicts go
 * into one that is there (costs.h, kc_costs_there). */
static int run_writes_costs(const kc_opts *o)
{
    return kc_cli_writes_costs(o) || (o->parent && kc_costs_there(o->costs));
}

/* The selected items recorded failed as the run starts, as a queue run's
 * (queue.c, mark_selection_failed): a shard killed before its end leaves
 * them failed, so its --rerun-failed retry runs them. */
static void mark_selection_failed(const kc_opts *o, const kc_item *items, const int *sel, int ns)
{
    const char **names = malloc(((size_t)ns + 1) * sizeof *names);
    if (!names) {
        kc_say(stderr, "cannot record the run's items in the cost table %s: out of memory\n", o->costs);
        return;
    }
    for (int i = 0; i < ns; i++) names[i] = items[sel[i]].name;
    kc_costs_mark_failed(o->costs, names, ns);
    free(names);
}

int kc_run(const kc_opts *o, const kc_item *items, int n)
{
    /* A static shard's end seal (shard.h): out of the environment before any
     * item runs, printed after the run's end. */
    char *seal = shard_seal;
    const char *sv = getenv(KC_SHARD_SEAL_ENV);
    if (sv && o->parent) snprintf(shard_seal, sizeof shard_seal, "%s", sv);
    unsetenv(KC_SHARD_SEAL_ENV);
    double t0 = kc_now_s() - o->resume_elapsed;
    int *sel = malloc(((size_t)n + 1) * sizeof *sel), ns = 0, gpu_items = 0, nf = 0;
    char serr[1024];
    if (!sel) return 4;
    kc_proc_adopt_orphans();    /* what an item leaves running becomes ours, to end (item_run.h) */
    int rerun_all = 0;
    if ((ns = kc_select(o, items, n, sel, &nf, &rerun_all, serr, sizeof serr)) < 0) {   /* filter, then shard (costs.h) */
        kc_report_note(stderr, "%s %s\n", kc_costs_origin(o), serr);
        free(sel);
        return 2;
    }
    if (kc_cli_writes_costs(o) && !o->resume_tally) {   /* refused now, not rewritten at the end (as a queue run) */
        kc_costs c;
        int found;
        if (kc_costs_load(o->costs, &c, &found, serr, sizeof serr)) {
            kc_report_note(stderr, "%s %s (fix or remove the file; docs/parallel-runs.md gives the format)\n",
                           kc_costs_origin(o), serr);
            free(sel);
            return 2;
        }
        kc_costs_free(&c);
    }
    if (!o->resume_tally && run_writes_costs(o) && kc_costs_there(o->costs)) mark_selection_failed(o, items, sel, ns);
    for (int i = 0; i < ns; i++) gpu_items += kc_item_needs_gpu(&items[sel[i]]);
    kc_tally t;
    kc_tally_init(&t);
    if (o->resume_tally) {
        char err[256];
        if (kc_tally_parse(o->resume_tally, &t, err, sizeof err)) {
            kc_report_note(stderr, "--resume-tally: %s\n", err);
            free(sel);
            return 2;
        }
    }
    kc_records rs = { .workers = 1 };   /* one record per item, for the reports */
    if (o->resume_records_fd >= 0) {
        char err[256];
        if (kc_records_load_fd(o->resume_records_fd, &rs, err, sizeof err))
            kc_report_note(stderr, "--resume-records: %s; the reports will lack the items before the re-exec\n", err);
    }
    kc_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    int have_gpu = 0;
    if (gpu_items) {
        int rc = kc_gpu_open(&gpu, o->device);
        if (rc < 0) {
            kc_report_note(stderr, "--device %d: %s\n", o->device, gpu.why);
            kc_gpu_close(&gpu);
            free(sel);
            return 2;
        }
        have_gpu = rc == 0;
    }
    if (!o->resume_tally) {
        t.seed = o->seed;
        t.items = ns;
        t.shard_k = o->shard_k;
        t.shard_n = o->shard_n;
        t.filter = kc_filter_hash(o->patterns, o->npatterns);
        t.build = kc_build_id();
        kc_tally_set_options(&t, o);
        kc_tally_set_host_env(&t);
        if (kc_select_costs_digest(o, items, n, &t.costs, serr, sizeof serr)) {
            kc_report_note(stderr, "%s %s\n", kc_costs_origin(o), serr);
            kc_gpu_close(&gpu);
            free(sel);
            return 2;
        }
        for (int i = 0; i < ns; i++) t.digest += kc_item_set_digest(&items[sel[i]]);
        if (have_gpu) {
            snprintf(t.device, sizeof t.device, "%.127s", gpu.dev.name);
            t.cc_major = gpu.dev.cc_major;
            t.cc_minor = gpu.dev.cc_minor;
            t.sm_count = gpu.dev.sm_count;
        } else {
            snprintf(t.device, sizeof t.device, "none");
        }
        char head[300] = "", dev[400] = "";
        if (o->sharded)
            kc_strcatf(head, sizeof head, "shard %d/%d: %d of %d selected item%s, seed %llu", o->shard_k, o->shard_n, ns,
                       nf, nf == 1 ? "" : "s", (unsigned long long)o->seed);
        else
            kc_strcatf(head, sizeof head, "%d item%s selected, seed %llu", ns, ns == 1 ? "" : "s",
                       (unsigned long long)o->seed);
        if (have_gpu)
            kc_strcatf(dev, sizeof dev, ", device %d: %s (compute capability %d.%d, %d SMs, driver %d.%d)", o->device,
                       gpu.dev.name, gpu.dev.cc_major, gpu.dev.cc_minor, gpu.dev.sm_count,
                       gpu.cu.driver_version / 1000, gpu.cu.driver_version % 1000 / 10);
        kc_report_note(stdout, "%s%s\n", head, dev);
        kc_report_empty_shard(o, ns, nf);
        kc_rerun_failed_note(o, rerun_all, ns, nf, 0, stdout);
        if (gpu_items && !have_gpu && gpu.broken)     /* not "no GPU": its GPU items fail (item_run.c) */
            kc_report_note(stdout, "the CUDA driver or device does not work in this process: %s; the %d GPU item%s "
                           "fail\n", gpu.why, gpu_items, gpu_items == 1 ? "" : "s");
        else if (gpu_items && !have_gpu)
            kc_report_no_gpu_ahead(gpu.why, gpu_items, ns);
        fflush(stdout);
    }
    /* GPU memory of this process per item, from NVML by the device's PCI bus id */
    char bus[64];
    long pid = (long)getpid();
    if (o->resume_tally) kc_gpu_sampler_said();     /* the first process said why there are no figures */
    int gpu_mem = have_gpu && gpu.cu.DeviceGetPCIBusId(bus, sizeof bus, gpu.cudev) == CUDA_SUCCESS &&
                  kc_gpu_sampler_start(0) == 0 && kc_gpu_sampler_watch_bus(pid, bus) == 0;
    kc_gpu_watch gw;            /* what GPU items leave in this process's context (gpu_state.h) */
    kc_gpu_watch_init(&gw);
    kc_san_pool *san = kc_san_pool_new();   /* NULL (out of memory): each item alone */
    int untrusted = o->resume_untrusted;    /* a session's summary counted errors no window held */
    kc_report_run_start(ns, o->resume_at, 1, !o->parent, 0);
    /* a crash of this process keeps none of its passes (finish.h, hold_to_end) */
    kc_finish fin = { .o = o, .tally = &t, .records = &rs, .hold_to_end = 1 };
    fin.cache = kc_rcache_open_on(o, &gpu.dev, have_gpu, have_gpu ? gpu.cu.driver_version : 0, stdout);
    /* Every key before any item runs, as the work queue makes them: a
     * sanitizer session's target (another process, started ahead) loads a
     * library kernel's file when it first serves one of its items, and
     * keeps it for the next; with the key made just before each item, a
     * file rebuilt between two items was keyed new while the target ran the
     * old, and the pass kept under the new key. Made first, a rebuild after
     * them changes the item's key by the time it is kept, which then keeps
     * nothing (result_cache.c, bytes_unknown). */
    kc_rcache_hits hits;
    if (kc_rcache_lookup_all(fin.cache, items, n, sel + o->resume_at, ns - o->resume_at, &hits)) {
        kc_report_note(stderr, "out of memory for the results cache's verdicts\n");
        char why[KC_SAN_WHY_MAX];       /* no session started yet: nothing to say */
        kc_san_pool_free(san, why, sizeof why);
        if (gpu_mem) kc_gpu_sampler_stop();
        kc_gpu_close(&gpu);
        kc_rcache_close(fin.cache);
        kc_records_free(&rs);
        free(sel);
        return 4;
    }
    for (int i = o->resume_at; i < ns; i++) {
        const kc_item *it = &items[sel[i]];
        kc_item_where w = { .worker = 0, .pid = pid, .rerun_device = o->device, .peak_gpu_mib = -1 };
        kc_item_result r;
        if (hits.by_item && hits.by_item[sel[i]]) {  /* unchanged since it passed: its verdict, not run */
            r = *hits.by_item[sel[i]];
            w.device = -1;
            w.start_s = w.end_s = kc_now_s() - t0;
            w.print = 1;
            kc_finish_item(&fin, it, &r, &w);
            continue;
        }
        w.device = have_gpu && kc_item_needs_gpu(it) ? o->device : -1;
        /* a control planted for the sanitizer comes next: its sessions
         * start now, beside this item (sanitize.h) */
        if (have_gpu && sanitizer_control_runs(items, sel, i + 1, ns, &hits)) kc_sanitize_ahead(o, san, 1);
        if (gpu_mem) kc_gpu_sampler_take_peak(pid);   /* drop the previous item's peak */
        w.start_s = kc_now_s() - t0;
        kc_report_busy(1, 1);
        kc_rcache_item_starts(fin.cache, it);   /* --no-cache: dying under it keeps no pass of its inputs */
        kc_item_run(&gpu, have_gpu, it, o, &gw, san, &r);   /* prints its line */
        w.end_s = kc_now_s() - t0;
        if (gpu_mem) w.peak_gpu_mib = kc_gpu_sampler_take_peak(pid);
        kc_report_busy(0, 0);   /* no redraw: finishing redraws, with nothing running */
        kc_finish_item(&fin, it, &r, &w);
        int lost = r.context_lost;
        if (lost && i + 1 < ns) {
            /* The sessions end here, not in the fresh process: their
             * summaries are checked now (sanitize_session.h). */
            if (process_end(san, fin.cache)) untrusted = 1;
            san = kc_san_pool_new();
            reexec(o, i + 1, &t, kc_now_s() - t0, &rs, lost, untrusted);
        }
        if (lost) {
            /* Nothing left, or exec failed: what remains is skipped here. */
            have_gpu = 0;
            snprintf(gpu.why, sizeof gpu.why, lost == KC_LOST_GPU_STATE ? "an item left GPU state (memory, or a limit)"
                                                                         : "the CUDA context was lost");
        }
    }
    kc_note_predating(stdout);  /* processes no item started (LD_PRELOAD's), never blamed: said once */
    kc_note_ending(stdout, 1);  /* processes items left ending: waited for, or named */
    if (gpu_mem) kc_gpu_sampler_stop();
    if (process_end(san, fin.cache)) untrusted = 1;
    rs.wall_s = kc_now_s() - t0;
    kc_rcache_forget_beside_failures(fin.cache, &rs, items, n);
    kc_run_end e = {
        .o = o, .tally = &t, .records = &rs, .wall_s = rs.wall_s, .items = ns, .untrusted = untrusted,
        .figures = o->parent ? KC_FIGURES_NONE : KC_FIGURES_SERIAL,  /* a --jobs shard leaves the figures to its parent */
        .no_gpu_why = have_gpu ? NULL : gpu.why,
        .write_costs = run_writes_costs(o),
        .write_reports = 1,
    };
    int status = kc_run_end_write(&e);
    if (seal[0]) kc_report_line(stdout, "%s%s\n", KC_SHARD_SEAL_LINE, seal);
    /* A session lost on the last item too (have_gpu 0 then): what it holds
     * on the host is freed, nothing on the device (kc_gpu_close); a zeroed
     * one, with no GPU items, holds nothing. */
    kc_gpu_close(&gpu);
    kc_rcache_hits_free(&hits, n);
    kc_rcache_close(fin.cache);
    kc_records_free(&rs);
    free(sel);
    return status;
}

/* list --format json: one object per item, on one line (docs/output-format.md,
 * "kcontract list"): strings escaped as the --json report's (report_text.h). */
static void list_json(FILE *out, const kc_item *it)
{
    const kc_contract *c = it->contract;
    char fam[192];
    kc_family_of(c ? c->name : it->name, fam, sizeof fam);
    fputs("{\"name\":", out);
    kc_json_string(out, it->name, sizeof it->name);
    fprintf(out, ",\"kind\":\"%s\",\"contract\":", kc_kind_name(it->kind));
    if (c) kc_json_string(out, c->name, strlen(c->name));
    else fputs("null", out);
    fputs(",\"family\":", out);
    kc_json_string(out, fam, strlen(fam));
    fputs(",\"shapes\":[", out);
    for (int s = 0; c && c->shapes && c->shapes[s].name; s++) {
        if (s) fputc(',', out);
        kc_json_string(out, c->shapes[s].name, strlen(c->shapes[s].name));
    }
    fputs("],\"controls\":[", out);
    for (int k = 0; c && k < KC_MAX_CONTROLS && c->controls[k].name; k++) {
        if (k) fputc(',', out);
        kc_json_string(out, c->controls[k].name, strlen(c->controls[k].name));
    }
    fputc(']', out);
    if (it->control) {
        fputs(",\"control\":", out);
        kc_json_string(out, it->control->name, strlen(it->control->name));
    }
    const char *at = it->record ? strchr(it->name, '@') : NULL;
    if (at) {                           /* a launch record's item, "<contract>@<label>" */
        fputs(",\"label\":", out);
        kc_json_string(out, at + 1, strlen(at + 1));
        fputs(",\"record\":", out);
        kc_json_string(out, it->record, strlen(it->record));
    }
    fprintf(out, ",\"needs_gpu\":%s}\n", kc_item_needs_gpu(it) ? "true" : "false");
}

int kc_list(const kc_opts *o, const kc_item *items, int n)
{
    int count[KC_KIND_COUNT] = { 0 }, total = 0, nf = 0;
    int *sel = malloc(((size_t)n + 1) * sizeof *sel), ns;
    char serr[1024];
    if (!sel) return 4;
    int rerun_all = 0;
    if ((ns = kc_select(o, items, n, sel, &nf, &rerun_all, serr, sizeof serr)) < 0) {
        kc_say(stderr, "%s %s\n", kc_costs_origin(o), serr);
        free(sel);
        return 2;
    }
    for (int j = 0; j < ns; j++) {
        const kc_item *it = &items[sel[j]];
        if (o->list_json) list_json(stdout, it);
        else printf("%-8s %s\n", kc_kind_name(it->kind), it->name);
        count[it->kind]++;
        total++;
    }
    free(sel);
    kc_rerun_failed_note(o, rerun_all, ns, nf, 1, o->list_json ? stderr : stdout);     /* JSON Lines: nothing else on stdout */
    if (o->list_json) return 0;
    printf("%d item%s: %d kernel%s, %d control%s, %d limit check%s, %d suite%s", total, total == 1 ? "" : "s",
           count[KC_KIND_KERNEL], count[KC_KIND_KERNEL] == 1 ? "" : "s", count[KC_KIND_CONTROL],
           count[KC_KIND_CONTROL] == 1 ? "" : "s", count[KC_KIND_LIMIT], count[KC_KIND_LIMIT] == 1 ? "" : "s",
           count[KC_KIND_SUITE], count[KC_KIND_SUITE] == 1 ? "" : "s");
    printf(", %d sanitizer check%s", count[KC_KIND_SANITIZE], count[KC_KIND_SANITIZE] == 1 ? "" : "s");   /* at 0 too */
    putchar('\n');
    return 0;
}

static int info_here(void)
{
    kc_cuda cu;
    char err[512];
    int lr = kc_cuda_load(&cu, NULL, err, sizeof err);
    if (lr == KC_CUDA_BROKEN) {     /* as a run refuses it (cuda_driver.h): not "no GPU" */
        printf("driver: does not work (%s)\ndevices: unknown\n", err);
        return 2;
    }
    if (lr) {
        printf("driver: none (%s)\ndevices: 0\n", err);
        return 3;   /* as a run with no GPU: a script probing for one must not read success */
    }
    const char *lib = getenv("KC_LIBCUDA");   /* what kc_cuda_load loaded */
    printf("driver: CUDA %d.%d (%s)\n", cu.driver_version / 1000, cu.driver_version % 1000 / 10,
           lib && *lib ? lib : "libcuda.so.1");
    /* the optional entry points, and what their absence costs (gates/params.h) */
    printf("parameter sizes: %s\n", cu.FuncGetParamInfo ? "checked against each kernel's (cuFuncGetParamInfo)"
                                                           : "not checked (no cuFuncGetParamInfo: CUDA 12.4 and later)");
    printf("tensor maps: %s\n", cu.TensorMapEncodeTiled ? "encoded (cuTensorMapEncodeTiled)"
                                                         : "none (no cuTensorMapEncodeTiled: CUDA 12.0 and later)");
    int n = kc_device_print_all(&cu, stdout);
    printf("devices: %d\n", n < 0 ? 0 : n);
    kc_cuda_unload(&cu);
    return n > 0 ? 0 : 3;
}

static int info_fn(void *ctx, void *out)
{
    (void)ctx;
    (void)out;
    return info_here();
}

/* `info` loads the driver in a forked child (forked_call.h, as the runs'
 * device probe does, jobs.h): a driver library whose constructor ends the
 * process (exit or _exit, KC_LIBCUDA) ends the child, and info says so and
 * fails (4) instead of exiting 0 having printed nothing. */
int kc_info(void)
{
    int rc = 4, st = 0;
    if (kc_forked_call(info_fn, NULL, NULL, 0, &rc, &st) >= 0) return rc;
    const char *lib = getenv("KC_LIBCUDA");
    kc_say(stderr, "loading the CUDA driver (%s) ended the process (%s %d) before info finished\n",
           lib && *lib ? lib : "libcuda.so.1", WIFEXITED(st) ? "exit status" : "signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    return 4;
}
