/* mutate_cmd.c — the mutate command (mutate_cmd.h). */
#include "mutate_cmd.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include "clock.h"
#include "filter.h"
#include "jobs.h"
#include "mutant_images.h"
#include "mutate_accept.h"
#include "mutate_baseline.h"
#include "child_run.h"
#include "mutate_merge.h"
#include "mutate_report.h"
#include "mutate_select.h"
#include "mutate_waves.h"
#include "parallel.h"
#include "progname.h"
#include "seed.h"
#include "shell_words.h"
#include "strvec.h"

#define DEFAULT_SOURCES "kernels:staging/kernels"

/* The source <module>.cu in one of the ':'-separated dirs (DIR/<module>.cu or
 * DIR/<family>/<module>.cu); 0, or -1. */
static int find_source(const char *dirs, const char *module, char *out, size_t cap)
{
    for (const char *d = dirs; *d;) {
        size_t n = strcspn(d, ":");
        char dir[512];
        snprintf(dir, sizeof dir, "%.*s", (int)(n < 200 ? n : 200), d);
        d += n + (d[n] == ':');
        if (!n) continue;
        snprintf(out, cap, "%.200s/%.60s.cu", dir, module);
        if (access(out, R_OK) == 0) return 0;
        DIR *dh = opendir(dir);
        struct dirent *e;
        while (dh && (e = readdir(dh))) {
            if (e->d_name[0] == '.') continue;
            snprintf(out, cap, "%.200s/%.100s/%.60s.cu", dir, e->d_name, module);
            if (access(out, R_OK) == 0) {
                closedir(dh);
                return 0;
            }
        }
        if (dh) closedir(dh);
    }
    return -1;
}

/* --operators LIST: the mask of the named operators (',' separated); ~0u for
 * NULL. -1 with err naming an unknown one. */
static int operators_mask(const char *list, unsigned *mask, char *err, size_t cap)
{
    *mask = ~0u;
    if (!list) return 0;
    *mask = 0;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        int found = 0;
        for (int k = 0; kc_mut_ops[k].name; k++)
            if (strlen(kc_mut_ops[k].name) == n && !strncmp(kc_mut_ops[k].name, p, n)) {
                *mask |= 1u << k;
                found = 1;
            }
        if (!found) {
            char known[600] = "";
            for (int k = 0; kc_mut_ops[k].name; k++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "", kc_mut_ops[k].name);
            return snprintf(err, cap, "--operators: no operator '%.*s' (the operators: %s)", (int)n, p, known), -1;
        }
        p += n + (p[n] == ',');
    }
    return 0;
}

/* Seeded draw of --budget N among the mutants still pending: the N with the
 * least mix of (seed, id); the rest SAMPLED_OUT. Stable for one seed. */
static void sample(const kc_mutants *m, kc_mut_status *st, int budget, uint64_t seed)
{
    int pending = 0;
    for (int i = 0; i < m->n; i++) pending += st[i].state == KC_MUT_PENDING;
    if (budget <= 0 || pending <= budget) return;
    uint64_t *key = malloc((size_t)m->n * sizeof *key), *sorted = malloc((size_t)pending * sizeof *sorted);
    if (!key || !sorted) { free(key); free(sorted); return; }
    int k = 0;
    for (int i = 0; i < m->n; i++)
        if (st[i].state == KC_MUT_PENDING) sorted[k++] = key[i] = kc_mix64(kc_hash_str(m->v[i].id) ^ kc_mix64(seed));
    /* the budget-th smallest key: a partial selection sort is enough at these sizes */
    for (int a = 0; a < budget; a++)
        for (int b = a + 1; b < pending; b++)
            if (sorted[b] < sorted[a]) { uint64_t t = sorted[a]; sorted[a] = sorted[b]; sorted[b] = t; }
    uint64_t cut = sorted[budget - 1];
    for (int i = 0; i < m->n; i++)
        if (st[i].state == KC_MUT_PENDING && key[i] > cut) st[i].state = KC_MUT_SAMPLED_OUT;
    free(key);
    free(sorted);
}

/* The modules of the selected contracts (not library kernels, not device
 * references), each with its source found and scanned. */
static int modules_of(const kc_opts *o, const kc_item *items, int n, kc_mut_module **mods, int *nmods, char *err,
                      size_t cap)
{
    const char *dirs = o->mut_sources ? o->mut_sources : DEFAULT_SOURCES;
    *mods = NULL;
    *nmods = 0;
    int mcap = 0;
    for (int i = 0; i < n; i++) {
        const kc_item *it = &items[i];
        if (it->kind != KC_KIND_KERNEL || it->record || !it->contract || it->contract->library || !it->contract->module) continue;
        if (o->npatterns && !kc_filter_match(it->name, o->patterns, o->npatterns)) continue;
        const char *mod = it->contract->module;
        int seen = 0;
        for (int k = 0; k < *nmods && !seen; k++) seen = !strcmp((*mods)[k].name, mod);
        if (seen) continue;
        if (*nmods == mcap) {
            mcap = mcap ? mcap * 2 : 16;
            kc_mut_module *v = realloc(*mods, (size_t)mcap * sizeof *v);
            if (!v) return snprintf(err, cap, "out of memory"), -1;
            *mods = v;
        }
        kc_mut_module *x = &(*mods)[(*nmods)++];
        memset(x, 0, sizeof *x);
        snprintf(x->name, sizeof x->name, "%s", mod);
        if (find_source(dirs, mod, x->path, sizeof x->path)) {
            (*nmods)--;
            return snprintf(err, cap, "module %s (of contract %s): no %s.cu under %s (folders ':'-separated; "
                            "--source-dir names them)", mod, it->contract->name, mod, dirs), -1;
        }
        char e[700];
        if (kc_src_load(&x->src, x->path, e, sizeof e)) {
            (*nmods)--;
            return snprintf(err, cap, "%s", e), -1;
        }
    }
    if (!*nmods) return snprintf(err, cap, "the patterns select no contract with a kernel module to mutate"), -1;
    return 0;
}

static void free_modules(kc_mut_module *mods, int n)
{
    for (int k = 0; k < n; k++) kc_src_free(&mods[k].src);
    free(mods);
}

/* Whether every device the mutants' run goes on (--device, --devices or
 * each visible one) loads their sm_90 cubins (kc_mutant_cubin_loads): then
 * no fatbin is built, which halves the builds. No GPU, or one it cannot
 * probe: fatbins, whose PTX any later GPU compiles. */
static int cubins_load(const kc_opts *o)
{
    kc_devinfo d;
    if (kc_jobs_probe_devices(o, 1, KC_MAX_DEVLIST, &d) != 0 || d.ndevs <= 0) return 0;
    for (int k = 0; k < d.ndevs; k++)
        if (!kc_mutant_cubin_loads(d.dev[k].cc_major, d.dev[k].cc_minor)) return 0;
    return 1;
}

/* Whether selected item i is a kernel item whose contract's mutants run:
 * not a launch record, not a library kernel, matched by the patterns. */
static int mutant_contract(const kc_opts *o, const kc_item *it)
{
    if (it->kind != KC_KIND_KERNEL || it->record || !it->contract || it->contract->library) return 0;
    return !o->npatterns || kc_filter_match(it->name, o->patterns, o->npatterns);
}

/* The selection (mutate_select.h): the names of the contracts whose mutant
 * items this run may give (mutant_contract), sealed. 0, or -1 out of memory. */
static int selection_of(const kc_opts *o, const kc_item *items, int n, kc_mut_selection *sel)
{
    for (int i = 0; i < n; i++)
        if (mutant_contract(o, &items[i]) && items[i].contract->module &&
            kc_mut_selection_add(sel, items[i].contract->name))
            return -1;
    kc_mut_selection_seal(sel);
    return 0;
}

/* Whether a mutant j with in[j] is of module `module`. */
static int module_has(const kc_mutants *m, const unsigned char *in, const char *module)
{
    for (int j = 0; j < m->n; j++)
        if (in[j] && !strcmp(m->v[j].module, module)) return 1;
    return 0;
}

/* The baseline's lines: printed as they come, its end (TALLY) kept in ctx. */
static void on_baseline_line(void *ctx, int err, const char *line, size_t len)
{
    fprintf(err ? stderr : stdout, "%.*s\n", (int)len, line);
    if (err) return;
    fflush(stdout);
    kc_mut_end_line(ctx, line, len);
}

/* The baseline (mutate_baseline.h): every contract that judges a mutant in
 * `in` (judge[i]), unmutated, through this binary's own run with the
 * mutants' options, its report in DIR/run-baseline.json. A contract that
 * did not PASS loses judge[i] (said; SKIP, no GPU, is no verdict on it and
 * keeps it: its mutants are then SKIP too). Its seconds go into the waves'
 * cost table `costs` (their time limits) unless the user gave --costs.
 * Its passes count only when the run vouches for them (kc_mut_run_end_check):
 * one not trusted runs no mutant (1), one that ended without its TALLY line
 * neither (4), nor one that exited 4 after it (its report, which says which
 * contracts pass, could not be written: 4), and never is an earlier run's
 * report read in its place.
 * Returns 0, or an exit status (1, 4, 130). */
static int run_baseline(const kc_opts *o, unsigned char *judge, const kc_item *items, int n, const kc_mutants *m,
                        const unsigned char *in, const char *absdir, const char *costs)
{
    char err[2048], json[PATH_MAX + 32], bcosts[PATH_MAX + 32];
    snprintf(json, sizeof json, "%s/run-baseline.json", absdir);
    snprintf(bcosts, sizeof bcosts, "%s/baseline-costs.tsv", absdir);
    kc_strvec av = KC_STRVEC_INIT;
    int oom = kc_mut_push_run(&av, o) | kc_strvec_push(&av, "--no-cache");    /* its seconds are measured, never reused */
    oom |= kc_strvec_push(&av, "--json") | kc_strvec_push(&av, json);
    oom |= kc_strvec_push(&av, "--costs") | kc_strvec_push(&av, bcosts);
    oom |= kc_strvec_push(&av, "--");
    int pushed = 0;
    for (int i = 0; i < n && !oom; i++) {
        if (!judge[i] || !module_has(m, in, items[i].contract->module)) continue;
        oom |= kc_strvec_push(&av, items[i].name);
        pushed++;
    }
    if (oom) {
        kc_strvec_clear(&av);
        kc_say(stderr, "mutate: out of memory\n");
        return 4;
    }
    if (!pushed) {
        kc_strvec_clear(&av);
        return 0;
    }
    printf("mutate: baseline: the %d contract%s that judge these mutants, unmutated\n", pushed, pushed == 1 ? "" : "s");
    fflush(stdout);
    double t0 = kc_now_s();
    char *saved = getenv(KC_MUTANTS_ENV) ? strdup(getenv(KC_MUTANTS_ENV)) : NULL;
    unsetenv(KC_MUTANTS_ENV);
    int intr = 0;
    kc_mut_run_end end = { 0 };
    if (unlink(json) && errno != ENOENT) {     /* an earlier run's report is never read as this one's */
        kc_say(stderr, "mutate: cannot remove the earlier baseline report %s: %s\n", json, strerror(errno));
        if (saved) setenv(KC_MUTANTS_ENV, saved, 1);
        free(saved);
        kc_strvec_clear(&av);
        return 4;
    }
    int ws = kc_child_run("/proc/self/exe", av.v, on_baseline_line, &end, &intr, err, sizeof err);
    if (saved) setenv(KC_MUTANTS_ENV, saved, 1);
    free(saved);
    kc_strvec_clear(&av);
    if (ws < 0 || intr) {
        kc_say(stderr, "mutate: the baseline run %s\n", intr ? "was interrupted" : err);
        return ws < 0 ? 4 : 130;
    }
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 2) {
        kc_say(stderr, "mutate: the baseline run refused its command line (exit 2; above)\n");
        return 4;
    }
    char why[PATH_MAX + 512];
    int bad = kc_mut_run_end_check(&end, ws, why, sizeof why);
    if (bad == 3)       /* which contracts pass is read from that report, which then is its placeholder or none */
        snprintf(why + strlen(why), sizeof why - strlen(why), ", and its report %s is what says which pass", json);
    if (bad) {
        kc_say(stderr, "mutate: the baseline run %s: which contracts pass unmutated is not known, so no mutant is "
               "run, and mutate exits %d\n", why, bad == 1 ? 1 : 4);
        return bad == 1 ? 1 : 4;
    }
    kc_mut_baseline b;
    if (kc_mut_baseline_init(&b, n)) {
        kc_say(stderr, "mutate: out of memory\n");
        return 4;
    }
    if (kc_mut_baseline_read(json, items, n, &b, err, sizeof err)) {
        kc_say(stderr, "mutate: %s\n", err);
        kc_mut_baseline_free(&b);
        return 4;
    }
    int passed = 0, dropped = 0, skipped = 0;
    for (int i = 0; i < n; i++) {
        if (!judge[i] || !module_has(m, in, items[i].contract->module)) continue;
        if (kc_mut_baseline_passed(&b, i)) {
            passed++;
        } else if (!b.state[i][0]) {
            printf("mutate: baseline: %s has no line in the baseline's report (%s): its mutants are not run through "
                   "it\n", items[i].name, json);
            judge[i] = 0;
            dropped++;
        } else if (!strcmp(b.state[i], "SKIP")) {
            skipped++;
        } else {
            printf("mutate: baseline: %s is %s unmutated: a contract that fails on the original cannot judge a "
                   "mutant; its mutants are not run through it\n", items[i].name, b.state[i]);
            judge[i] = 0;
            dropped++;
        }
    }
    printf("mutate: baseline: %d contract%s pass unmutated, %d do not, %d skipped (%.1f s)\n", passed,
           passed == 1 ? "" : "s", dropped, skipped, kc_now_s() - t0);
    fflush(stdout);
    int rc = 0;
    if (!o->costs_given) {
        int rows = kc_mut_baseline_costs(costs, items, n, judge, m, in, &b, err, sizeof err);
        if (rows < 0) {
            kc_say(stderr, "mutate: the mutants' cost table: %s\n", err);
            rc = 4;
        }
    }
    kc_mut_baseline_free(&b);
    return rc;
}

/* The text report, the --json report; the exit status they give: 1 when a
 * mutant was missed, or not run for a reason other than a skip (an
 * interrupted run, a worker that stopped); 3 when none was missed and those
 * not run were skipped (their items SKIP: no GPU, or no compute-sanitizer for
 * --sanitizer), as `run` exits 3 when nothing failed but items were skipped;
 * 4 when the JSON could not be written. */
static int report(const kc_opts *o, const kc_mut_run *rep)
{
    char err[1024];
    kc_mutate_report_text(stdout, rep);
    if (o->json && kc_mutate_report_json(o->json, rep, err, sizeof err)) {
        kc_say(stderr, "mutate: %s\n", err);
        return 4;
    }
    kc_mut_counts c;
    kc_mutate_count(rep, NULL, NULL, &c);
    if (c.n[KC_MUT_MISSED] || c.n[KC_MUT_NOTRUN] > c.skipped) return 1;
    if (c.skipped)
        kc_say(stderr, "mutate: %d mutant%s not run: %s (their items were SKIP); exit 3, as a run with items skipped\n",
               c.skipped, c.skipped == 1 ? "" : "s", c.skip_why);
    return c.skipped ? 3 : 0;
}

/* --iterate: the earlier reports' outcomes carried into st (mutate_merge.h),
 * and what was carried, said. 0, or -1 with the refusal said. */
static int carry_outcomes(const kc_opts *o, const kc_mutants *m, const kc_mut_selection *sel, kc_mut_status *st)
{
    char err[2048];
    int stale = 0, k = kc_mutate_iterate(o->logs, o->nlogs, m, sel, st, &stale, err, sizeof err);
    if (k < 0) {
        kc_say(stderr, "mutate: %s\n", err);
        return -1;
    }
    int n[KC_MUT_STATE_COUNT] = { 0 };
    for (int i = 0; i < m->n; i++)
        if (st[i].carried) n[st[i].state]++;
    printf("mutate: --iterate: %d mutant%s keep the outcome of %d earlier report%s (caught %d, timeout %d, unviable %d, "
           "equivalent %d, duplicate %d) and are not built or run again; the missed and not-run ones are built and "
           "run\n", k, k == 1 ? "" : "s", o->nlogs, o->nlogs == 1 ? "" : "s", n[KC_MUT_CAUGHT], n[KC_MUT_TIMEOUT],
           n[KC_MUT_UNVIABLE], n[KC_MUT_EQUIVALENT], n[KC_MUT_DUPLICATE]);
    if (stale)
        printf("mutate: --iterate: %d report line%s name%s mutants the sources no longer make at that place: that code "
               "is judged again\n", stale, stale == 1 ? "" : "s", stale == 1 ? "s" : "");
    fflush(stdout);
    return 0;
}

int kc_mutate_main(const kc_opts *o, const kc_item *items, int n)
{
    double t0 = kc_now_s();
    char err[2048];
    unsigned mask;
    if (operators_mask(o->mut_operators, &mask, err, sizeof err)) {
        kc_say(stderr, "%s\n", err);
        return 2;
    }
    kc_mut_module *mods;
    int nmods;
    if (modules_of(o, items, n, &mods, &nmods, err, sizeof err)) {
        kc_say(stderr, "mutate: %s\n", err);
        free_modules(mods, nmods);   /* the modules read before the one refused */
        return 2;
    }
    kc_mutants m = { 0 };
    for (int k = 0; k < nmods; k++)
        if (kc_mutate_source(&mods[k].src, mods[k].name, mods[k].path, mask, &m, err, sizeof err) < 0) {
            kc_say(stderr, "mutate: %s\n", err);
            free_modules(mods, nmods);
            kc_mutants_free(&m);
            return 4;
        }
    kc_mut_selection sel = { 0 };
    kc_mut_status *st = calloc((size_t)m.n + 1, sizeof *st);
    if (!st || selection_of(o, items, n, &sel)) {
        kc_say(stderr, "mutate: out of memory\n");
        kc_mut_selection_free(&sel);
        free(st);
        free_modules(mods, nmods);
        kc_mutants_free(&m);
        return 4;
    }
    int rc = 0, unchecked = 0;
    if (o->mut_accepted) {
        int a = kc_mutate_accept(o->mut_accepted, mods, nmods, &m, st, &unchecked, err, sizeof err);
        if (a < 0) {
            kc_say(stderr, "mutate: %s\n", err);
            rc = 2;
            goto out;
        }
        printf("mutate: %d mutant%s accepted as equivalent (%s)%s\n", a, a == 1 ? "" : "s", o->mut_accepted,
               unchecked ? "; entries of modules not in this run not checked" : "");
        if (unchecked) printf("mutate: %d entr%s of %s name modules not mutated in this run: not checked\n", unchecked,
                              unchecked == 1 ? "y" : "ies", o->mut_accepted);
    }
    sample(&m, st, o->mut_budget, o->seed);
    if (o->mut_iterate && carry_outcomes(o, &m, &sel, st)) {
        rc = 2;
        goto out;
    }
    if (o->nlogs && !o->mut_iterate) {  /* --merge-json: the shards' reports, nothing built or run */
        if (kc_mutate_merge(o->logs, o->nlogs, &m, &sel, st, err, sizeof err)) {
            kc_say(stderr, "mutate: %s\n", err);
            rc = 2;
            goto out;
        }
        printf("mutate: %d mutants generated; the reports of %d shard%s merged\n", m.n, o->nlogs,
               o->nlogs == 1 ? "" : "s");
        /* a missed mutant's rerun: its image as this host's --build-only of the same selection makes it */
        char absdir[PATH_MAX], prefix[PATH_MAX + 600];
        const char *mdir = o->mut_dir ? o->mut_dir : KC_MUT_DEFAULT_DIR;
        if (!realpath(mdir, absdir)) snprintf(absdir, sizeof absdir, "%s", mdir);
        snprintf(absdir + strlen(absdir), sizeof absdir - strlen(absdir), "/mutants.list");
        int len = 0;
        prefix[0] = 0;
        kc_shell_append_assign(prefix, sizeof prefix, &len, KC_MUTANTS_ENV, absdir);
        snprintf(prefix + len, sizeof prefix - (size_t)len, " %s", o->argv0);
        kc_mut_run mrep = { mods, nmods, &m, st, NULL, 0, prefix + (prefix[0] == ' '), kc_now_s() - t0, &sel };
        rc = report(o, &mrep);
        goto out;
    }
    const char *dir = o->mut_dir ? o->mut_dir : KC_MUT_DEFAULT_DIR;
    kc_mut_build_opts bo = { .dir = dir, .make = getenv("MAKE") && *getenv("MAKE") ? getenv("MAKE") : "make",
                             .jobs = o->mut_build_jobs > 0 ? o->mut_build_jobs : kc_parallel_share(1),
                             .fatbins = !o->mut_build_only };
    bo.cubin_images = bo.fatbins && cubins_load(o);
    int pending = 0;
    for (int i = 0; i < m.n; i++) pending += st[i].state == KC_MUT_PENDING;
    printf("mutate: %d module%s, %d mutants generated, %d to build (make -j%d into %s; images: %s)\n", nmods,
           nmods == 1 ? "" : "s", m.n, pending, bo.jobs, dir,
           bo.cubin_images ? "the sm_90 cubins, which every device of the run loads" : "fatbins");
    fflush(stdout);
    if (kc_mutate_build(mods, nmods, &m, st, &bo, err, sizeof err)) {
        kc_say(stderr, "mutate: %s\n", err);
        rc = 4;
        goto out;
    }
    int viable = 0;
    for (int i = 0; i < m.n; i++) viable += st[i].state == KC_MUT_VIABLE;
    printf("mutate: built in %.0f s: %d viable\n", kc_now_s() - t0, viable);
    fflush(stdout);
    kc_mut_item *its = NULL;
    int nits = 0, wave_reports_failed = 0;
    char manifest[1200], rerun_prefix[1600] = "";
    snprintf(manifest, sizeof manifest, "%s/mutants.list", dir);
    char absman[PATH_MAX + 16];
    if (!realpath(dir, absman)) snprintf(absman, sizeof absman, "%s", dir);
    snprintf(absman + strlen(absman), sizeof absman - strlen(absman), "/mutants.list");
    if (viable && !o->mut_build_only) {
        char absdir[PATH_MAX];
        if (!realpath(dir, absdir)) snprintf(absdir, sizeof absdir, "%s", dir);
        unsigned char *all = calloc((size_t)m.n + 1, 1);
        for (int i = 0; all && i < m.n; i++) all[i] = st[i].state == KC_MUT_VIABLE;
        int wr = all ? kc_mut_write_manifest(manifest, absdir, kc_mutant_image_ext(&bo), &m, all, o->mut_sanitizer ? 5 : 4, NULL,
                                             items, 0, err, sizeof err)
                     : (snprintf(err, sizeof err, "out of memory"), -1);
        free(all);
        if (wr) {
            kc_say(stderr, "mutate: %s\n", err);
            rc = 4;
            goto out;
        }
        kc_mut_run_ctx rx = { .m = &m, .st = st };
        unsigned char *in = calloc((size_t)m.n + 1, 1), *judge = calloc((size_t)n + 1, 1);
        if (!in || !judge) {
            free(in);
            free(judge);
            kc_say(stderr, "mutate: out of memory\n");
            rc = 4;
            goto out;
        }
        for (int i = 0; i < m.n; i++) in[i] = st[i].state == KC_MUT_VIABLE;
        for (int i = 0; i < n; i++) judge[i] = mutant_contract(o, &items[i]);
        char costs[PATH_MAX + 32];
        snprintf(costs, sizeof costs, "%s/costs.tsv", absdir);
        rc = run_baseline(o, judge, items, n, &m, in, absdir, costs);
        if (!rc) {
            kc_mut_waves wv = { o, items, n, judge, mods, nmods, &m, st, in, absdir, kc_mutant_image_ext(&bo),
                                o->mut_sanitizer ? 5 : 4 };
            rc = o->mut_every_contract ? kc_mut_run_wave(o, judge, items, n, &m, in, NULL, absman, 0, &rx)
                                       : kc_mut_run_waves(&wv, &rx);
        }
        free(in);
        free(judge);
        its = rx.items;
        nits = rx.nitems;
        wave_reports_failed = rx.reports_failed;
        for (int i = 0; i < m.n; i++)
            if (st[i].state == KC_MUT_VIABLE) st[i].state = KC_MUT_NOTRUN;
        int len = 0;
        kc_shell_append_assign(rerun_prefix, sizeof rerun_prefix, &len, KC_MUTANTS_ENV, absman);
        snprintf(rerun_prefix + len, sizeof rerun_prefix - (size_t)len, " %s", o->argv0);
    }
    kc_mut_run rep = { mods, nmods, &m, st, its, nits, rerun_prefix[0] ? rerun_prefix + 1 : NULL, kc_now_s() - t0,
                       &sel };
    int rrc = report(o, &rep);
    /* a wave's report that could not be written: its verdicts count, and
     * mutate exits 4 as `run` does, unless a mutant fails it (1) */
    if (wave_reports_failed && rrc != 1) rrc = 4;
    if (!rc) rc = rrc;
    free(its);
out:
    kc_mut_selection_free(&sel);
    free(st);
    kc_mutants_free(&m);
    free_modules(mods, nmods);
    return rc;
}
