/* test_result_cache.c — the results cache (run/result_cache.h, issue 23),
 * through the fixture binary and the fake driver: a second run with nothing
 * changed reuses every pass (PASS, RED, limit) with the same SUMMARY counts
 * and says "cached" on the line, in the TALLY (cached=), the SUMMARY and the
 * JSON report; a FAIL or MISSED is never reused; another seed, --no-cache,
 * or a corrupt entry runs the items; --jobs and --schedule static reuse too
 * (cached items go to no worker; the merged SUMMARY counts them). The key,
 * in this process: test_result_cache_key.c; what removes a pass (a --no-cache
 * failure, a session that cannot vouch): test_result_cache_refresh.c.
 *
 * Every other test runs with the cache off (KC_CACHE_DIR=off, set below for
 * the whole test binary and by `make test`): their runs repeat items and
 * expect them to run. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "result_cache.h"
#include "seed.h"
#include "support/cache_runs.h"
#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    setenv("KC_CACHE_DIR", "off", 1);   /* every test's runs run their items, unless the test says where the cache is */
}

/* Quick items of every verdict: PASS (a kernel, a limit item), RED (by gates 1 (losing the
 * context), 2 and 3's sibling), FAIL and MISSED. */
#define ITEMS "fakeargs.inplace.f32", "fakeargs.inplace.f32:limits", "fakeargs.inplace.f32:control.write_before", \
              "fake.axpy.f32:control.fault", "fake.axpy.f32:control.write_input", "fakeargs.badsize.f32", \
              "fake.copy.f16:control.broken_build"
#define REUSED 5

static kc_proc run_with(kc_cache_dir *c, char **args)
{
    char *env[] = { c->env, NULL };
    return kc_run_fake(args, env, 60);
}

/* The SUMMARY without its "; N cached" and its time: the counts. */
static void counts_of(const char *out, char *buf, size_t cap)
{
    kc_out_summary(out, buf, cap);
    char *c = strstr(buf, "; ");
    for (c = buf; (c = strstr(c, "; ")) != NULL; c++)
        if (strstr(c, " cached") && strchr(c + 2, ';') == NULL) break;
    if (c) *c = 0;
    char *t = strstr(buf, "  (");
    if (t) *t = 0;
}

Test(result_cache, second_run_reuses_every_pass_with_the_same_counts)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-second");
    char *args[] = { "run", ITEMS, NULL };
    kc_proc a = run_with(&c, args), b = run_with(&c, args);
    kc_tally ta, tb;
    kc_out_tally(a.out, &ta);
    kc_out_tally(b.out, &tb);
    char sa[1024], sb[1024];
    counts_of(a.out, sa, sizeof sa);
    counts_of(b.out, sb, sizeof sb);
    cr_expect_str_eq(sa, sb, "the counts differ:\nfirst:  %s\nsecond: %s", sa, sb);
    cr_expect_eq(a.status, b.status, "exit status %d then %d", a.status, b.status);
    cr_expect_eq(ta.cached, 0, "the first run reused %ld items:\n%s", ta.cached, a.out);
    /* the kernel and its limits (PASS) and three controls RED: reused; the MISSED control
     * and the FAIL kernel run again */
    cr_expect_eq(tb.cached, REUSED, "cached=%ld, want %d:\n%s", tb.cached, REUSED, b.out);
    cr_expect(strstr(b.out, "; 5 cached"), "the SUMMARY does not count them:\n%s", b.out);
    char line[2048];
    cr_expect(kc_out_item_line(b.out, "PASS", "fakeargs.inplace.f32", line, sizeof line) &&
              strstr(line, "[cached: earned "),
              "the PASS line does not say cached:\n%s", b.out);
    cr_expect(kc_out_item_line(b.out, "RED", "fake.axpy.f32:control.write_input", line, sizeof line) &&
              strstr(line, "caught by gate 2") && strstr(line, "[cached: "),
              "the RED control is not reused with its gate:\n%s", b.out);
    cr_expect(kc_out_item_line(b.out, "RED", "fake.axpy.f32:control.fault", line, sizeof line) &&
              strstr(line, "caught by gate 1") && strstr(line, "[cached: "),
              "the RED control of gate 1 (it loses the context) is not reused with its gate:\n%s", b.out);
    cr_expect(kc_out_item_line(b.out, "FAIL", "fakeargs.badsize.f32", line, sizeof line) && !strstr(line, "cached"),
              "a FAIL was reused or is missing:\n%s", b.out);
    cr_expect(kc_out_item_line(b.out, "MISSED", "fake.copy.f16:control.broken_build", line, sizeof line) &&
              !strstr(line, "cached"), "a MISSED was reused or is missing:\n%s", b.out);
    kc_proc_free(&a);
    kc_proc_free(&b);
    kc_rm_rf(c.dir);
}

/* The JUnit report says when a reused verdict was earned as the item's
 * line does (ISO 8601 UTC, "earned 2026-12-07T19:24:37Z by build ..."): it
 * said "earned at 1796671477 (Unix time)", which a reader had to convert
 * (stop 69's reader). */
Test(result_cache, the_junit_report_dates_a_reused_verdict_as_its_line_does, .timeout = 60)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-junit");
    char junit[512];
    kc_tmp_path(junit, sizeof junit, "rcache", "cached.xml");
    kc_proc a = run_with(&c, (char *[]){ "run", "fakeargs.inplace.f32", NULL });
    kc_proc b = run_with(&c, (char *[]){ "run", "fakeargs.inplace.f32", "--junit", junit, NULL });
    char line[2048], want[200] = "";
    const char *e = kc_out_item_line(b.out, "PASS", "fakeargs.inplace.f32", line, sizeof line) ?
                    strstr(line, "[cached: earned ") : NULL;
    cr_assert(e, "the second run did not reuse the pass:\n%s", b.out);
    snprintf(want, sizeof want, "value=\"%.*s\"", (int)strcspn(e + 9, "]"), e + 9);
    const char *x = kc_out_file(junit);
    cr_expect(strstr(x, want), "the JUnit property is not the line's %s:\n%s", want, x);
    cr_expect(!strstr(x, "Unix time"), "%s", x);
    kc_proc_free(&a);
    kc_proc_free(&b);
    unlink(junit);
    kc_rm_rf(c.dir);
}

Test(result_cache, another_seed_and_no_cache_run_everything)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-seed");
    char *args[] = { "run", ITEMS, NULL }, *seed[] = { "run", "--seed", "2", ITEMS, NULL },
         *nocache[] = { "run", "--no-cache", ITEMS, NULL };
    kc_proc a = run_with(&c, args), s = run_with(&c, seed), n = run_with(&c, nocache);
    kc_tally ts, tn;
    kc_out_tally(s.out, &ts);
    kc_out_tally(n.out, &tn);
    cr_expect_eq(ts.cached, 0, "--seed 2 reused %ld items of seed 1:\n%s", ts.cached, s.out);
    cr_expect_eq(tn.cached, 0, "--no-cache reused %ld items:\n%s", tn.cached, n.out);
    cr_expect(!strstr(n.out, "[cached"), "--no-cache printed a cached line:\n%s", n.out);
    kc_proc_free(&a);
    kc_proc_free(&s);
    kc_proc_free(&n);
    kc_rm_rf(c.dir);
}

/* Every entry file in dir (one folder per item, one file per key) gets
 * text written over it. */
static int spoil_entries(const char *dir, const char *text)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    cr_assert(d, "no cache directory %s", dir);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%.250s/%.200s", dir, e->d_name);
        DIR *s = opendir(sub);
        struct dirent *f;
        cr_assert(s, "%s is not an item's folder", sub);
        while ((f = readdir(s)) != NULL) {
            if (f->d_name[0] == '.') continue;
            char p[800];
            snprintf(p, sizeof p, "%s/%s", sub, f->d_name);
            kc_write_file(p, text);
            n++;
        }
        closedir(s);
    }
    closedir(d);
    return n;
}

/* The path of item name's one entry in cache dir into path (asserted: one). */
static void only_entry(const char *dir, const char *name, char *path, size_t cap)
{
    char sub[512];
    snprintf(sub, sizeof sub, "%.400s/%016llx", dir, (unsigned long long)kc_mix64(kc_hash_str(name)));
    DIR *s = opendir(sub);
    struct dirent *f;
    int n = 0;
    cr_assert(s, "no entries of %s (%s)", name, sub);
    while ((f = readdir(s)) != NULL)
        if (f->d_name[0] != '.' && n++ == 0) snprintf(path, cap, "%s/%.255s", sub, f->d_name);
    closedir(s);
    cr_assert_eq(n, 1, "%s has %d entries in %s", name, n, sub);
}

Test(result_cache, a_corrupt_entry_is_ignored_with_a_warning_and_replaced)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-corrupt");
    char *args[] = { "run", ITEMS, NULL };
    kc_proc a = run_with(&c, args);
    cr_assert_eq(spoil_entries(c.dir, "kcontract results cache 1\nitem fakeargs.inplace.f32\nstate PASS\n"), REUSED,
                 "want one entry per reused verdict");
    kc_proc b = run_with(&c, args), d = run_with(&c, args);
    kc_tally tb, td;
    kc_out_tally(b.out, &tb);
    kc_out_tally(d.out, &td);
    cr_expect_eq(tb.cached, 0, "a corrupt entry was trusted:\n%s", b.out);
    cr_expect(strstr(b.err, "results cache: ignoring ") && strstr(b.err, "checksum"), "no warning naming why:\n%s",
              b.err);
    cr_expect_eq(td.cached, REUSED, "the entries were not replaced: cached=%ld\n%s", td.cached, d.out);
    /* an entry edited to keep a FAIL, its key and checksum right, is never reused */
    char path[1024], text[8192];
    only_entry(c.dir, "fakeargs.inplace.f32", path, sizeof path);
    snprintf(text, sizeof text, "%s", kc_out_file(path));
    char *st = strstr(text, "\nstate PASS\n"), *chk = strstr(text, "\ncheck ");
    cr_assert(st && chk, "entry %s:\n%s", path, text);
    memcpy(st, "\nstate FAIL\n", 12);
    snprintf(chk + 1, sizeof text - (size_t)(chk + 1 - text), "check %016llx\n",
             (unsigned long long)kc_fnv1a64(text, (size_t)(chk + 1 - text), KC_FNV_OFFSET));
    kc_write_file(path, text);
    kc_proc f = run_with(&c, args);
    char line[2048];
    cr_expect(kc_out_item_line(f.out, "PASS", "fakeargs.inplace.f32", line, sizeof line) && !strstr(line, "cached"),
              "the forged entry was trusted or the item did not run:\n%s", f.out);
    cr_expect(strstr(f.err, "state FAIL is never reused"), "no warning for the forged entry:\n%s", f.err);
    kc_proc_free(&f);
    /* the same entry, its checksum right, without the check line's newline (an editor's save, a
     * truncated copy): ignored with a warning, not a crash of the run */
    char cut[1024];
    only_entry(c.dir, "fakeargs.inplace.f32:limits", cut, sizeof cut);
    snprintf(text, sizeof text, "%s", kc_out_file(cut));
    size_t tl = strlen(text);
    cr_assert(tl > 0 && text[tl - 1] == '\n', "entry %s:\n%s", cut, text);
    text[tl - 1] = 0;
    kc_write_file(cut, text);
    kc_proc g = run_with(&c, args);
    cr_expect(!g.signaled && kc_out_item_line(g.out, "PASS", "fakeargs.inplace.f32:limits", line, sizeof line) &&
              !strstr(line, "cached"), "an entry without its last newline: exit %d%s\n%s%s", g.status,
              g.signaled ? " (killed by a signal)" : "", g.out, g.err);
    cr_expect(strstr(g.err, "results cache: ignoring ") && strstr(g.err, "fakeargs.inplace.f32:limits"),
              "no warning for the entry without its last newline:\n%s", g.err);
    kc_proc_free(&g);
    kc_proc_free(&a);
    kc_proc_free(&b);
    kc_proc_free(&d);
    kc_rm_rf(c.dir);
}

Test(result_cache, jobs_and_static_shards_reuse_and_the_merged_summary_counts_them)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-jobs");
    char *q[] = { "run", "--jobs", "2", ITEMS, NULL }, *st[] = { "run", "--jobs", "2", "--schedule", "static", ITEMS, NULL };
    kc_proc a = run_with(&c, q), b = run_with(&c, q), s = run_with(&c, st);
    kc_tally tb, ts;
    kc_out_tally(b.out, &tb);
    kc_out_tally(s.out, &ts);
    char sa[1024], sb[1024], ss[1024];
    counts_of(a.out, sa, sizeof sa);
    counts_of(b.out, sb, sizeof sb);
    counts_of(s.out, ss, sizeof ss);
    cr_expect_eq(tb.cached, REUSED, "--jobs 2: cached=%ld:\n%s", tb.cached, b.out);
    cr_expect_str_eq(sa, sb, "--jobs 2 counts differ");
    cr_expect(!strstr(b.out, "[w0] PASS   fakeargs.inplace.f32  ") && !strstr(b.out, "[w1] PASS   fakeargs.inplace.f32  "),
              "a cached item went to a worker:\n%s", b.out);
    cr_expect_eq(ts.cached, REUSED, "static shards, merged: cached=%ld:\n%s", ts.cached, s.out);
    cr_expect_str_eq(sa, ss, "static shards' merged counts differ");
    kc_proc_free(&a);
    kc_proc_free(&b);
    kc_proc_free(&s);
    kc_rm_rf(c.dir);
}

/* The names of out's cached lines ("... [cached: earned ..."), in order, one a line, into buf. */
static void cached_names(const char *out, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *e = strchr(l, '\n'), *c = strstr(l, "[cached: earned ");
        if (!c || (e && c > e)) continue;
        const char *name = l;
        while (*name && *name != ' ') name++;           /* past the state */
        while (*name == ' ') name++;
        size_t len = strcspn(name, " \n");
        n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%.*s\n", (int)len, name);
    }
}

/* A --jobs run prints its cached lines in the selection's order, as a serial
 * run does, not in the queue's (a cost table that puts the last item first):
 * a reader looks a cached item up by name. */
Test(result_cache, a_jobs_run_prints_cached_lines_in_the_serial_order, .timeout = 60)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-order");
    char costs[600], table[2048];
    snprintf(costs, sizeof costs, "%s/costs.tsv", c.dir);
    char *fill[] = { "run", ITEMS, NULL };
    kc_proc a = run_with(&c, fill);
    kc_proc_free(&a);
    const char *names[] = { ITEMS };
    size_t n = (size_t)snprintf(table, sizeof table, "# kcontract costs v1\n");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)    /* the later an item, the longer: queued first */
        n += (size_t)snprintf(table + n, sizeof table - n, "%s\t%zu.000\t-1\t-1\t0\n", names[i], i + 1);
    kc_write_file(costs, table);
    char *q[] = { "run", "--jobs", "2", "--costs", costs, ITEMS, NULL }, *serial[] = { "run", ITEMS, NULL };
    kc_proc j = run_with(&c, q), s = run_with(&c, serial);
    char in_jobs[1024], in_serial[1024];
    cached_names(j.out, in_jobs, sizeof in_jobs);
    cached_names(s.out, in_serial, sizeof in_serial);
    cr_expect_eq(kc_out_count(in_serial, "\n"), REUSED, "the serial run's cached lines:\n%s", s.out);
    cr_expect_str_eq(in_jobs, in_serial, "--jobs 2's cached lines in another order than the serial run's:\n%s", j.out);
    kc_proc_free(&j);
    kc_proc_free(&s);
    kc_rm_rf(c.dir);
}

/* --block-size picks a launch variant of a contract's cases: it is in a
 * contract item's key, not a suite's (a suite runs no variant), so a run with
 * it reuses the suite's pass of a run without and not the kernel's (whose
 * pass under every block size it lists is no pass under one alone: it runs
 * again), and a run with it again reuses both. */
Test(result_cache, block_size_keys_a_contracts_items_and_not_the_suites, .timeout = 60)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-block");
    char *plain[] = { "run", "fakeblock.axpy.f32", "fixture.pass.00", NULL };
    char *block[] = { "run", "--block-size", "128", "fakeblock.axpy.f32", "fixture.pass.00", NULL };
    char *env[] = { c.env, NULL };
    kc_proc a = run_with(&c, plain);
    cr_expect_eq(a.status, 0, "exit %d\n%s%s", a.status, a.out, a.err);
    kc_proc_free(&a);
    kc_tally t;
    a = kc_cache_run_tallied(block, env, &t);
    cr_expect_eq(a.status, 0, "exit %d\n%s%s", a.status, a.out, a.err);
    cr_expect_eq(t.cached, 1, "--block-size 128: cached=%ld, want the suite's pass alone:\n%s", t.cached, a.out);
    char line[2048];
    cr_expect(kc_out_item_line(a.out, "PASS", "fakeblock.axpy.f32", line, sizeof line) && !strstr(line, "[cached:") &&
                  strstr(line, "under block size 128  ("),
              "the kernel's pass of a run without --block-size was reused, or it did not run block 128 alone:\n%s", a.out);
    kc_proc_free(&a);
    kc_cache_expect_reused(block, env, 2, "both passes, the kernel's under --block-size 128 kept under its own key");
    kc_rm_rf(c.dir);
}

/* A host-only suite runs no GPU code, so the GPU is not in its key: its pass
 * from a run that opened the GPU (a kernel selected beside it) is reused by a
 * run of the suite alone, which opens none (its TALLY says device=none), and
 * the other way round. */
Test(result_cache, a_host_suites_pass_is_reused_with_or_without_a_gpu_opened, .timeout = 60)
{
    char *with_gpu[] = { "run", "fakeargs.inplace.f32", "fixture.pass.00", NULL };
    char *alone[] = { "run", "fixture.pass.00", NULL };
    for (int order = 0; order < 2; order++) {
        kc_cache_dir c;
        kc_cache_new(&c, order ? "rcache-host-b" : "rcache-host-a");
        char *env[] = { c.env, NULL };
        kc_tally t;
        kc_proc a = kc_cache_run_tallied(order ? alone : with_gpu, env, &t);
        cr_expect_eq(a.status, 0, "exit %d\n%s%s", a.status, a.out, a.err);
        kc_proc_free(&a);
        a = kc_cache_run_tallied(order ? with_gpu : alone, env, &t);
        cr_expect_eq(t.cached, 1, "%s, then %s: cached=%ld, want the suite's pass:\n%s",
                     order ? "the suite alone" : "with a kernel", order ? "with a kernel" : "the suite alone", t.cached,
                     a.out);
        kc_proc_free(&a);
        kc_rm_rf(c.dir);
    }
}

/* A --jobs run whose every verdict is cached starts no worker and says so,
 * not "a work queue of 0 workers" (a new user read that as --jobs ignored). */
Test(result_cache, a_jobs_run_with_every_verdict_cached_says_no_worker_started)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-none-left");
    char *q[] = { "run", "--jobs", "2", "fakeargs.inplace.f32", "fakeargs.inplace.f32:limits", NULL };
    kc_proc a = run_with(&c, q), b = run_with(&c, q);
    cr_expect_eq(a.status, 0, "exit %d\n%s%s", a.status, a.out, a.err);
    cr_expect(strstr(a.out, "--jobs 2: a work queue of 2 workers"), "%s", a.out);
    cr_expect_eq(b.status, 0, "exit %d\n%s%s", b.status, b.out, b.err);
    cr_expect(strstr(b.out, "2 items selected, seed 1; --jobs 2: no worker started, no item left to run\n"), "%s",
              b.out);
    cr_expect_null(strstr(b.out, "work queue of 0"), "%s", b.out);
    cr_expect_null(strstr(b.out, "memory: each worker"), "no worker, no memory plan:\n%s", b.out);
    kc_proc_free(&a);
    kc_proc_free(&b);
    kc_rm_rf(c.dir);
}

/* `kcontract merge` of --shard K/N logs: the merged SUMMARY counts what each shard reused. */
Test(result_cache, merged_shard_logs_count_the_cached)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-merge");
    char log[2][600];
    for (int k = 0; k < 2; k++) {
        char sh[8];
        snprintf(sh, sizeof sh, "%d/2", k);
        char *args[] = { "run", "--shard", sh, ITEMS, NULL };
        kc_proc a = run_with(&c, args), b = run_with(&c, args);     /* the second reuses */
        snprintf(log[k], sizeof log[k], "%s/shard%d.log", c.dir, k);
        kc_write_file(log[k], b.out);
        kc_proc_free(&a);
        kc_proc_free(&b);
    }
    char *margs[] = { "merge", ITEMS, "--log", log[0], "--log", log[1], NULL };
    kc_proc m = run_with(&c, margs);
    kc_tally t;
    kc_out_tally(m.out, &t);
    cr_expect_eq(t.cached, REUSED, "merged cached=%ld:\n%s\n%s", t.cached, m.out, m.err);
    cr_expect(strstr(m.out, "; 5 cached"), "the merged SUMMARY does not say it:\n%s", m.out);
    kc_proc_free(&m);
    /* a shard's TALLY edited to claim other cached items than its lines show is refused */
    char *text = strdup(kc_out_file(log[0]));
    cr_assert_not_null(text);
    char *at = strstr(text, " cached=");
    cr_assert_not_null(at, "%s", text);
    at[8] = at[8] == '9' ? '8' : '9';
    kc_write_file(log[0], text);
    free(text);
    m = run_with(&c, margs);
    cr_expect_eq(m.status, 1, "exit %d\n%s%s", m.status, m.out, m.err);
    cr_expect(strstr(m.out, "its TALLY does not add up to its item lines (cached: TALLY "), "%s", m.out);
    kc_proc_free(&m);
    kc_rm_rf(c.dir);
}

/* A pass is reused under a --timeout only when the run that earned it fits
 * that limit: fixture.cost.00 takes 300 ms, a TIMEOUT under --timeout 0.1
 * (it read PASS from the cache), reused under --timeout 5. */
Test(result_cache, a_pass_that_took_longer_than_the_timeout_runs, .timeout = 60)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-timeout");
    char *fill[] = { "run", "fixture.cost.00", NULL }, *tight[] = { "run", "--timeout", "0.1", "fixture.cost.00", NULL },
         *loose[] = { "run", "--timeout", "5", "fixture.cost.00", NULL };
    kc_proc a = run_with(&c, fill), t = run_with(&c, tight), l = run_with(&c, loose);
    kc_tally tt, tl;
    kc_out_tally(t.out, &tt);
    kc_out_tally(l.out, &tl);
    char line[2048];
    cr_expect_eq(a.status, 0, "the first run: exit %d\n%s", a.status, a.out);
    cr_expect(kc_out_item_line(t.out, "TIMEOUT", "fixture.cost.00", line, sizeof line),
              "a 300 ms pass was reused under --timeout 0.1 (cached=%ld):\n%s", tt.cached, t.out);
    cr_expect_eq(tl.cached, 1, "under --timeout 5 the pass was not reused:\n%s", l.out);
    cr_expect(strstr(l.out, "\nno item ran: its 1 verdict came from the results cache\n") && !strstr(l.out, "peak RSS"),
              "a run that ran nothing gave figures instead of saying so:\n%s", l.out);
    kc_proc_free(&a);
    kc_proc_free(&t);
    kc_proc_free(&l);
    kc_rm_rf(c.dir);
}

/* The limit a kept pass must fit is the one the item has in this run, the
 * contract's own too, not only --timeout: fakeslow.vec4.f32 (timeout_s 1,
 * its reference slowed to 1.5 s) passes under --timeout 100; a plain run
 * then runs it, a TIMEOUT, serially and with --jobs, where it read PASS
 * from the cache. */
Test(result_cache, a_pass_longer_than_the_contracts_own_limit_runs, .timeout = 60)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-own-limit");
    char *env[] = { c.env, "KC_FIXTURE_REF_SLEEP_MS=300", NULL };
    kc_proc a = kc_run_fake((char *[]){ "run", "--timeout", "100", "fakeslow.vec4.f32", NULL }, env, 60);
    cr_expect_eq(a.status, 0, "the first run: exit %d\n%s%s", a.status, a.out, a.err);
    kc_proc_free(&a);
    char *plain[] = { "run", "fakeslow.vec4.f32", NULL }, *jobs[] = { "run", "--jobs", "2", "fakeslow.vec4.f32", NULL };
    char **runs[] = { plain, jobs };
    for (int i = 0; i < 2; i++) {
        kc_proc p = kc_cache_run_line(runs[i], env, "TIMEOUT", "fakeslow.vec4.f32");
        kc_tally t;
        kc_out_tally(p.out, &t);
        cr_expect_eq(t.cached, 0, "run %d reused a pass longer than the contract's 1 s limit:\n%s", i, p.out);
        cr_expect_eq(p.status, 1, "run %d: exit %d\n%s", i, p.status, p.out);
        kc_proc_free(&p);
    }
    kc_rm_rf(c.dir);
}

/* One entry per key, up to KC_RCACHE_KEYS_PER_ITEM per item: a CI that
 * alternates seeds finds each seed's passes (before, the last writer won,
 * so seed 1 after seed 2 ran everything again); past the cap the oldest
 * goes; an entry of the format before (a file where the item's folder
 * goes) is replaced, not an error. */
Test(result_cache, each_key_keeps_its_own_entry_up_to_a_cap, .timeout = 90)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-keys");
    char old[1024];
    snprintf(old, sizeof old, "%s/%016llx", c.dir, (unsigned long long)kc_mix64(kc_hash_str("fixture.pass.00")));
    kc_write_file(old, "kcontract results cache 1\nitem fixture.pass.00\n");   /* the format before */
    char seed[16];
    char *args[] = { "run", "--seed", seed, "fixture.pass.00", NULL };
    for (int k = 1; k <= KC_RCACHE_KEYS_PER_ITEM + 2; k++) {
        snprintf(seed, sizeof seed, "%d", k);
        kc_proc p = run_with(&c, args);
        cr_expect_eq(p.status, 0, "seed %d: exit %d\n%s%s", k, p.status, p.out, p.err);
        kc_proc_free(&p);
    }
    long want[][2] = { { KC_RCACHE_KEYS_PER_ITEM + 2, 1 }, { 3, 1 }, { 2, 0 }, { 1, 0 } };
    for (int i = 0; i < 4; i++) {
        snprintf(seed, sizeof seed, "%ld", want[i][0]);
        kc_proc p = run_with(&c, args);
        kc_tally t;
        kc_out_tally(p.out, &t);
        cr_expect_eq(t.cached, want[i][1], "seed %ld after seeds 1-%d: cached=%ld, expected %ld\n%s%s", want[i][0],
                     KC_RCACHE_KEYS_PER_ITEM + 2, t.cached, want[i][1], p.out, p.err);
        kc_proc_free(&p);
    }
    kc_rm_rf(c.dir);
}

/* A --jobs run whose every verdict came from the cache started no worker:
 * its JSON report says "workers":0 and has no worker lines (it said one
 * worker with no items). */
Test(result_cache, an_all_cached_run_reports_no_workers_in_its_json, .timeout = 60)
{
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-json-workers");
    char json[256];
    kc_tmp_path(json, sizeof json, "rcache", "all-cached.json");
    char *fill[] = { "run", "fixture.pass.00", "fixture.pass.01", NULL },
         *again[] = { "run", "--jobs", "2", "--json", json, "fixture.pass.00", "fixture.pass.01", NULL };
    kc_proc a = run_with(&c, fill), b = run_with(&c, again);
    cr_expect_eq(a.status, 0, "the first run: exit %d\n%s", a.status, a.out);
    cr_expect_eq(b.status, 0, "the cached run: exit %d\n%s", b.status, b.out);
    const char *j = kc_out_file(json);
    cr_expect(strstr(j, "{\"type\":\"summary\",\"items\":2,\"workers\":0,") && !strstr(j, "{\"type\":\"worker\""),
              "an all-cached run's JSON names workers:\n%s\n%s", j, b.out);
    kc_proc_free(&a);
    kc_proc_free(&b);
    unlink(json);
    kc_rm_rf(c.dir);
}

/* --no-cache promises to refresh the cache; where it cannot (a directory
 * that cannot be made), it says so, since a pass kept there stays whatever
 * the run finds; a cached run says the cache is off, as before. */
Test(result_cache, a_no_cache_run_that_cannot_refresh_says_so, .timeout = 30)
{
    char *env[] = { "KC_CACHE_DIR=/proc/kc-no-such-dir/cache", NULL };
    char *nocache[] = { "run", "--no-cache", "fixture.pass.00", NULL }, *cached[] = { "run", "fixture.pass.00", NULL };
    kc_proc p = kc_run_fake(nocache, env, 30), q = kc_run_fake(cached, env, 30);
    cr_expect(p.status == 0 && strstr(p.out, "results cache: not refreshed (cannot create /proc/kc-no-such-dir/cache"),
              "exit %d\n%s", p.status, p.out);
    cr_expect(q.status == 0 && strstr(q.out, "results cache: off (cannot create /proc/kc-no-such-dir/cache"),
              "exit %d\n%s", q.status, q.out);
    kc_proc_free(&p);
    kc_proc_free(&q);
}

/* An installed binary (in a folder called bin) keeps no cache beside itself,
 * even where it may write there (root and /usr/local/bin): the run says the
 * cache is off and why, and makes no folder. */
Test(result_cache, an_installed_binary_keeps_no_cache_in_its_bin_folder, .timeout = 30)
{
    char dir[300], bin[320], cache[340], cmd[900];
    snprintf(dir, sizeof dir, "%s/rcache-bin-%ld/bin", kc_test_tmpdir(), (long)getpid());
    snprintf(bin, sizeof bin, "%s/suite", dir);
    snprintf(cache, sizeof cache, "%s.cache", bin);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", dir, kc_test_fixture_bin(), bin);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *argv[] = { bin, "run", "fixture.pass.00", NULL };
    char *env[] = { "KC_LIBCUDA=none", "KC_CACHE_DIR=", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 30, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "results cache: off (") && strstr(p.out, "is installed (in a bin folder); KC_CACHE_DIR=DIR"),
              "%s", p.out);
    struct stat st;
    cr_expect_neq(stat(cache, &st), 0, "%s was made", cache);
    kc_proc_free(&p);
    char *nocache[] = { bin, "run", "--no-cache", "fixture.pass.00", NULL };    /* no cache: nothing to refresh */
    cr_assert_eq(kc_spawn(nocache, env, 30, &p), 0);
    cr_expect(p.status == 0 && !strstr(p.out, "results cache:"), "--no-cache spoke of a cache it has none of:\n%s",
              p.out);
    kc_proc_free(&p);
    snprintf(cmd, sizeof cmd, "rm -rf '%s/rcache-bin-%ld'", kc_test_tmpdir(), (long)getpid());
    cr_assert_eq(system(cmd), 0);
}

/* An installed binary under a test hook or a mutation run (kcontract
 * mutate's waves set KC_MUTANTS): the line names the hook, as it did before
 * installed binaries got a line of their own, not the installed binary's
 * hint (KC_CACHE_DIR=DIR gives it a cache), which a hook's run ignores. */
Test(result_cache, an_installed_binary_under_a_hook_names_the_hook, .timeout = 30)
{
    char dir[300], bin[320], cmd[900];
    snprintf(dir, sizeof dir, "%s/rcache-binhook-%ld/bin", kc_test_tmpdir(), (long)getpid());
    snprintf(bin, sizeof bin, "%s/suite", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", dir, kc_test_fixture_bin(), bin);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *argv[] = { bin, "run", "fixture.pass.00", NULL };
    char *env[] = { "KC_LIBCUDA=none", "KC_CACHE_DIR=", "KC_FAULT_RCACHE_REVIEW=1", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 30, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "results cache: off, a test hook or mutation run is set (KC_FAULT_RCACHE_REVIEW=1)") &&
                  !strstr(p.out, "KC_CACHE_DIR=DIR gives it a cache"),
              "%s", p.out);
    kc_proc_free(&p);
    snprintf(cmd, sizeof cmd, "rm -rf '%s/rcache-binhook-%ld'", kc_test_tmpdir(), (long)getpid());
    cr_assert_eq(system(cmd), 0);
}

/* Whether some process maps the file at path (a line of /proc/PID/maps
 * ends with it): the library is loaded. */
static int some_process_maps(const char *path)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    size_t n = strlen(path);
    while (d && !found && (e = readdir(d)) != NULL) {
        char maps[300], line[4096];
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        snprintf(maps, sizeof maps, "/proc/%s/maps", e->d_name);
        FILE *f = fopen(maps, "r");
        while (f && !found && fgets(line, sizeof line, f)) {
            size_t l = strcspn(line, "\n");
            found = l >= n && strncmp(line + l - n, path, n) == 0;
        }
        if (f) fclose(f);
    }
    if (d) closedir(d);
    return found;
}

/* A library kernel's file rebuilt between two items of one process (a
 * static shard): dlopen keeps giving the process the file it first loaded,
 * while the key hashes the new one. The second item's verdict was earned
 * with the old file, so it is kept under no key: the next run runs it
 * (found by a review: the clean library, rebuilt broken between the items,
 * left the control's RED cached, and the next run read green where it is
 * MISSED). Item 1's release hook opens a FIFO, which blocks until the
 * swap below is done. */
Test(result_cache, a_library_rebuilt_between_two_items_of_a_process_keeps_no_verdict, .timeout = 60)
{
    char lib[512], fifo[600], clean[700], broken[700], cmd[3200], env_lib[600], env_log[700];
    kc_cache_dir c;
    kc_cache_new(&c, "rcache-libswap");
    kc_tmp_dir(lib, sizeof lib, "rcache-libswap-lib");
    snprintf(clean, sizeof clean, "%s/libkc_fakelib.so", lib);
    snprintf(broken, sizeof broken, "%s/libkc_fakelib@error_return.so", lib);
    snprintf(cmd, sizeof cmd, "cp build/lib/libkc_fakelib.so '%s' && cp 'build/lib/libkc_fakelib@error_return.so' '%s'",
             clean, broken);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(fifo, sizeof fifo, "%s/release.fifo", lib);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pid_t swapper = fork();
    cr_assert_geq(swapper, 0);
    if (swapper == 0) {             /* the rebuild, once item 1 has loaded the library; then a reader for good */
        /* once the shard has loaded the library (at a fixed 1 s, under ASan
         * it had not yet); item 1 then waits in its release hook for the
         * reader, so the swap cannot come too late */
        for (int i = 0; i < 600 && !some_process_maps(clean); i++) usleep(50 * 1000);
        snprintf(cmd, sizeof cmd, "cp '%s' '%s.new' && mv '%s.new' '%s'", broken, clean, clean, clean);
        if (system(cmd) != 0) _exit(1);
        open(fifo, O_RDWR);
        pause();
        _exit(0);
    }
    snprintf(env_lib, sizeof env_lib, "KC_LIBDIR=%s", lib);
    snprintf(env_log, sizeof env_log, "KC_FAKELIB_RELEASE_LOG=%s", fifo);
    char *env1[] = { c.env, env_lib, env_log, NULL };
    kc_proc p = kc_run_fake((char *[]){ "run", "--jobs", "1", "--schedule", "static", "fakelib.double.f32",
                                        "fakelib.double.f32:control.error_return", NULL }, env1, 30);
    kill(swapper, SIGKILL);
    waitpid(swapper, NULL, 0);
    char line[8192];
    cr_expect(kc_out_item_line(p.out, "RED", "fakelib.double.f32:control.error_return", line, sizeof line), "%s%s", p.out,
              p.err);
    kc_proc_free(&p);
    char *env2[] = { c.env, env_lib, NULL };
    p = kc_run_fake((char *[]){ "run", "fakelib.double.f32:control.error_return", NULL }, env2, 30);
    cr_expect(!strstr(p.out, "[cached:"), "a verdict the rebuilt library never earned was reused:\n%s", p.out);
    cr_expect(kc_out_item_line(p.out, "MISSED", "fakelib.double.f32:control.error_return", line, sizeof line), "%s",
              p.out);
    cr_expect_eq(p.status, 1, "exit %d\n%s", p.status, p.out);
    kc_proc_free(&p);
    kc_rm_rf(lib);
    kc_rm_rf(c.dir);
}

/* KC_CACHE_DIR relative to the directory the run started in: a static
 * shard runs its items in its own process, and one that calls chdir()
 * (fixture.chdir, into KC_FIXTURE_CHDIR) moved the cache under the items
 * after it. fixture.once.exit0 passes with KC_FIXTURE_MARK naming a file
 * and fails without it (its key cannot see that): the --no-cache shard
 * that FAILed it removed "its" pass from the wrong folder (a missing file,
 * silently), and the next cached run reused the pass and exited 0. The
 * directory is fixed where the run started, as --costs and the reports are
 * (a red-team). */
Test(result_cache, a_relative_cache_dir_stays_put_when_an_item_changes_directory, .timeout = 60)
{
    char dir[512], cwd[PATH_MAX], rel[PATH_MAX + 600], env_dir[PATH_MAX + 640], mark[600], env_mark[640], sub[600],
        env_sub[640];
    kc_tmp_dir(dir, sizeof dir, "rcache-relative");
    cr_assert(getcwd(cwd, sizeof cwd), "getcwd");
    size_t n = 0;                               /* "../" per component of cwd, then dir from the root */
    rel[0] = 0;
    for (const char *p = cwd; *p; p++)
        if (*p == '/' && p[1]) n += (size_t)snprintf(rel + n, sizeof rel - n, "../");
    snprintf(rel + n, sizeof rel - n, "%s/cache", dir + 1);
    snprintf(env_dir, sizeof env_dir, "KC_CACHE_DIR=%s", rel);
    snprintf(mark, sizeof mark, "%s/mark", dir);
    snprintf(env_mark, sizeof env_mark, "KC_FIXTURE_MARK=%s", mark);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(env_sub, sizeof env_sub, "KC_FIXTURE_CHDIR=%s", sub);
    cr_assert_eq(mkdir(sub, 0700), 0);
    kc_write_file(mark, "");
    kc_proc p = kc_run_fake((char *[]){ "run", "fixture.once.exit0", NULL }, (char *[]){ env_dir, env_mark, NULL }, 60);
    cr_assert_eq(p.status, 0, "the run that fills the cache: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    p = kc_run_fake((char *[]){ "run", "--jobs", "1", "--schedule", "static", "--no-cache", "fixture.chdir",
                                "fixture.once.exit0", NULL }, (char *[]){ env_dir, env_sub, NULL }, 60);
    cr_assert_eq(p.status, 1, "the --no-cache shard without the mark: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    p = kc_run_fake((char *[]){ "run", "fixture.once.exit0", NULL }, (char *[]){ env_dir, NULL }, 60);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.cached, 0, "the pass a --no-cache run found failing on the same inputs was reused:\n%s", p.out);
    cr_expect_eq(p.status, 1, "the cached run after it: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* A control RED while its own kernel FAILs in the same run (fakebroken's
 * reference adds 1: the clean kernel and its gate-3 and gate-4 controls all
 * fail gate 3) may be RED by the kernel's failure, not by the contract
 * catching its planted bug. Such a RED was kept, and a later run reused it
 * once the kernel passed: green on a control it never saw caught. Now no
 * run keeps it, serially or under --jobs, while a RED whose kernel was not
 * in the run (fake.axpy.f32:control.write_input) is kept as before. */
Test(result_cache, a_red_beside_its_kernels_failure_is_not_kept, .timeout = 90)
{
    const char *modes[][5] = { { "run", "fakebroken.*", "fake.axpy.f32:control.write_input", NULL },
                               { "run", "fakebroken.*", "fake.axpy.f32:control.write_input", "--jobs=2", NULL } };
    for (int m = 0; m < 2; m++) {
        kc_cache_dir c;
        kc_cache_new(&c, "rcache-beside");
        char *env[] = { c.env, "KC_FIXTURE_BROKEN_KERNEL=1", NULL };
        kc_proc a = kc_run_fake((char **)modes[m], env, 60), b = kc_run_fake((char **)modes[m], env, 60);
        cr_expect_eq(a.status, 1, "mode %d: the kernel FAILs: exit %d\n%s%s", m, a.status, a.out, a.err);
        cr_expect(strstr(a.out, "the results cache keeps no such RED, so they run again in the next run"),
                  "mode %d:\n%s", m, a.out);
        char names[4096];
        cached_names(b.out, names, sizeof names);
        cr_expect_str_eq(names, "fake.axpy.f32:control.write_input\nfakebroken.axpy.f32:limits\n",
                         "mode %d: the second run reused these (of the REDs only the one whose kernel did not run):\n%s", m,
                         b.out);
        char line[1024];
        cr_expect(kc_out_item_line(b.out, "RED", "fakebroken.axpy.f32:control.wrong_value", line, sizeof line) &&
                  !strstr(line, "[cached:"), "mode %d:\n%s", m, b.out);
        kc_proc_free(&a);
        kc_proc_free(&b);
        kc_rm_rf(c.dir);
    }
}
