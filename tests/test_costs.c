/* test_costs.c — the cost table (round trip, refusals naming the line), the
 * queue's order (failed last time first, then longest first), the LPT
 * partition of --shard K/N --costs FILE (pure and through `list`, identical
 * across runs, each item once), time limits, and memory admission with fake
 * plans (never oversubscribes; an item that can never fit runs alone). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/wait.h>

#include "costs.h"
#include "support/run_output.h"
#include "support/spawn.h"

static char *const NO_GPU[] = { "KC_LIBCUDA=none", NULL };

static void tmpname(char *buf, size_t cap, const char *tag)
{
    snprintf(buf, cap, "%s/kc-costs-%ld-%s.tsv", kc_test_tmpdir(), (long)getpid(), tag);
}

Test(costs, round_trip)
{
    kc_costs c = { 0 };
    kc_cost a = { "b.item", 12.5, 1024, 300, 1 }, b = { "a.item:limits", 0.25, -1, -1, 0 };
    cr_assert_eq(kc_costs_set(&c, &a), 0);
    cr_assert_eq(kc_costs_set(&c, &b), 0);
    char path[256];
    tmpname(path, sizeof path, "rt");
    char err[512];
    cr_assert_eq(kc_costs_save(path, &c, err, sizeof err), 0, "%s", err);
    kc_costs d;
    int found;
    cr_assert_eq(kc_costs_load(path, &d, &found, err, sizeof err), 0, "%s", err);
    cr_expect_eq(found, 1);
    cr_assert_eq(d.n, 2);
    cr_expect_str_eq(d.v[0].name, "a.item:limits", "sorted by name");
    const kc_cost *x = kc_costs_find(&d, "b.item");
    cr_assert(x);
    cr_expect_float_eq(x->seconds, 12.5, 1e-9);
    cr_expect_eq(x->peak_rss_kib, 1024);
    cr_expect_eq(x->peak_gpu_mib, 300);
    cr_expect_eq(x->failed, 1);
    cr_expect_eq(kc_costs_find(&d, "a.item:limits")->peak_rss_kib, -1);
    unlink(path);
    kc_costs_free(&d);
    cr_expect_eq(kc_costs_load(path, &d, &found, err, sizeof err), 0, "a missing file is an empty table");
    cr_expect_eq(found, 0);
    cr_expect_eq(d.n, 0);
    kc_costs_free(&c);
}

static void refused(const char *text, const char *want)
{
    kc_costs c = { 0 };
    char err[512] = "";
    cr_expect_eq(kc_costs_parse(text, &c, err, sizeof err), -1, "accepted: %s", text);
    cr_expect(strstr(err, want), "want '%s' in '%s'", want, err);
}

Test(costs, malformed_tables_are_refused_naming_the_line)
{
    refused("", "line 1: empty file");
    refused("# kcontract costs v2\n", "line 1: expected the header '# kcontract costs v1'");
    refused("a\t1\t2\t3\t0\n", "line 1: expected the header");
    refused("# kcontract costs v1\n# comment\na\t1\t2\t3\n", "line 3: expected 5 tab-separated fields");
    refused("# kcontract costs v1\na\t1\t2\t3\t0\t9\n", "line 2: expected 5 tab-separated fields");
    refused("# kcontract costs v1\na\tfast\t2\t3\t0\n", "line 2: bad seconds 'fast' for a");
    refused("# kcontract costs v1\na\t-1\t2\t3\t0\n", "line 2: bad seconds '-1'");
    refused("# kcontract costs v1\na\tnan\t2\t3\t0\n", "line 2: bad seconds 'nan'");
    refused("# kcontract costs v1\na\t1\t2k\t3\t0\n", "line 2: bad peak_rss_kib '2k'");
    refused("# kcontract costs v1\na\t1\t2\t-5\t0\n", "line 2: bad peak_gpu_mib '-5'");
    refused("# kcontract costs v1\na\t1\t2\t3\tyes\n", "line 2: bad failed 'yes'");
    refused("# kcontract costs v1\na\t1\t2\t3\t0\n\nb\t1\t2\t3\t0\na\t2\t2\t3\t0\n", "line 5: item a appears twice");
    refused("# kcontract costs v1\na b\t1\t2\t3\t0\n", "line 2: bad item name 'a b'");
    kc_costs c = { 0 };
    char err[512];
    cr_expect_eq(kc_costs_parse("# kcontract costs v1\n\n# x\na\t1.5\t-1\t-1\t0\n", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.n, 1);
    kc_costs_free(&c);
}

/* Found by fuzz_costs: a table whose last line ends in a lone '\r' (a CRLF
 * file cut after it) sent the parser round that '\r' for ever. */
Test(costs, a_last_line_ending_in_cr_is_read, .timeout = 10)
{
    kc_costs c = { 0 };
    char err[512];
    cr_expect_eq(kc_costs_parse("# kcontract costs v1\r\n# item\tseconds\r", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(kc_costs_parse("# kcontract costs v1\r\na\t1.5\t-1\t-1\t0\r", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.n, 1);
    cr_expect_eq(kc_costs_parse("# kcontract costs v1\r", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.n, 0);
    refused("\r", "line 1: expected the header");
    kc_costs_free(&c);
}

Test(costs, malformed_file_refuses_the_run, .timeout = 30)
{
    char path[256];
    tmpname(path, sizeof path, "bad");
    kc_write_file(path, "# kcontract costs v1\nfixture.pass.00\t1\t2\t3\t0\nfixture.pass.01\t1\t2\n");
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.*", "--jobs", "2", "--costs", path, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, NO_GPU, 30, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    char want[512];
    snprintf(want, sizeof want, "kcontract-fixture: --costs %s: line 3: expected 5 tab-separated fields", path);
    cr_expect(strstr(p.err, want), "want '%s' in:\n%s", want, p.err);
    cr_expect(!strstr(p.out, "PASS"), "it ran anyway:\n%s", p.out);
    kc_proc_free(&p);
    char *argv2[] = { (char *)kc_test_fixture_bin(), "list", "fixture.pass.*", "--shard", "0/2", "--costs", path, NULL };
    cr_assert_eq(kc_spawn(argv2, NO_GPU, 30, &p), 0);
    cr_expect_eq(p.status, 2, "--shard with a malformed table: exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.err, "line 3"), "%s", p.err);
    kc_proc_free(&p);
    /* A serial run given --costs refuses it too, before running, and leaves it as it was. */
    char *argv3[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.*", "--costs", path, NULL };
    cr_assert_eq(kc_spawn(argv3, NO_GPU, 30, &p), 0);
    cr_expect_eq(p.status, 2, "serial with a malformed table: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, want), "want '%s' in:\n%s", want, p.err);
    cr_expect(!strstr(p.out, "PASS"), "it ran anyway:\n%s", p.out);
    cr_expect_str_eq(kc_out_file(path), "# kcontract costs v1\nfixture.pass.00\t1\t2\t3\t0\nfixture.pass.01\t1\t2\n",
                     "the table was rewritten");
    kc_proc_free(&p);
    unlink(path);
}

/* Without --costs a --jobs run keeps the table beside its binary, one per
 * binary: a copy of the fixture binary in a folder of its own writes
 * COPY.costs.tsv there, with the items it ran, and nothing in the directory
 * it started in (the old default, ./.kcontract-costs.tsv, mixed the items of
 * every binary run there). KC_COSTS names another file (empty: unset). */
Test(costs, the_default_table_lies_beside_the_binary, .timeout = 30)
{
    char dir[256], bin[300], table[320], cmd[800];
    snprintf(dir, sizeof dir, "%s/kc-costs-%ld-bin", kc_test_tmpdir(), (long)getpid());
    snprintf(bin, sizeof bin, "%s/suite", dir);
    snprintf(table, sizeof table, "%s.costs.tsv", bin);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", dir, kc_test_fixture_bin(), bin);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *argv[] = { bin, "run", "fixture.pass.0[01]", "--jobs", "2", NULL };
    char *const no_env[] = { "KC_LIBCUDA=none", "KC_COSTS", NULL };  /* unset: the default */
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, no_env, 30, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *t = kc_out_file(table);
    cr_expect(t && strstr(t, "# kcontract costs v1\n") && strstr(t, "\nfixture.pass.00\t") && strstr(t, "\nfixture.pass.01\t"),
              "%s: %s", table, t ? t : "(missing)");
    kc_proc_free(&p);
    /* KC_COSTS names the table instead, as KC_CACHE_DIR names the cache; --costs still wins */
    char named[400], given[400];
    snprintf(named, sizeof named, "%s/named.tsv", dir);
    snprintf(given, sizeof given, "%s/given.tsv", dir);
    unlink(table);
    char env_named[420];
    snprintf(env_named, sizeof env_named, "KC_COSTS=%s", named);
    char *const named_env[] = { "KC_LIBCUDA=none", env_named, NULL };
    cr_assert_eq(kc_spawn(argv, named_env, 30, &p), 0);
    cr_expect_eq(p.status, 0, "KC_COSTS: exit %d\n%s%s", p.status, p.out, p.err);
    t = kc_out_file(named);
    cr_expect(t && strstr(t, "\nfixture.pass.00\t"), "KC_COSTS=%s: %s", named, t ? t : "(missing)");
    cr_expect(access(table, F_OK) != 0, "KC_COSTS set, yet %s was written", table);
    kc_proc_free(&p);
    char *argv_given[] = { bin, "run", "fixture.pass.02", "--jobs", "2", "--costs", given, NULL };
    cr_assert_eq(kc_spawn(argv_given, named_env, 30, &p), 0);
    t = kc_out_file(given);
    cr_expect(t && strstr(t, "\nfixture.pass.02\t"), "--costs %s beside KC_COSTS: %s", given, t ? t : "(missing)");
    t = kc_out_file(named);
    cr_expect(t && !strstr(t, "fixture.pass.02"), "--costs given, yet KC_COSTS's table took the run: %s", t ? t : "(missing)");
    kc_proc_free(&p);
    /* a bad table named by KC_COSTS: the error names KC_COSTS, not an option the user never typed */
    char env_dir[420];
    snprintf(env_dir, sizeof env_dir, "KC_COSTS=%s", dir);
    char *const dir_env[] = { "KC_LIBCUDA=none", env_dir, NULL };
    cr_assert_eq(kc_spawn(argv, dir_env, 30, &p), 0);
    cr_expect_eq(p.status, 2, "KC_COSTS=%s: exit %d\n%s%s", dir, p.status, p.out, p.err);
    char said[600];
    snprintf(said, sizeof said, "KC_COSTS %s: is a directory", dir);
    cr_expect(strstr(p.err, said) && !strstr(p.err, "--costs"), "want '%s':\n%s", said, p.err);
    kc_proc_free(&p);
    /* one that cannot name a file (past 4095 bytes) is refused only where a table is used and no
     * --costs wins over it */
    static char env_long[5000];
    size_t nl = (size_t)snprintf(env_long, sizeof env_long, "KC_COSTS=");
    while (nl + 2 < 4200) nl += (size_t)snprintf(env_long + nl, sizeof env_long - nl, "/x");
    char *const long_env[] = { "KC_LIBCUDA=none", env_long, NULL };
    char *version[] = { bin, "version", NULL }, *given_run[] = { bin, "run", "fixture.pass.00", "--jobs", "2", "--costs", given, NULL };
    cr_assert_eq(kc_spawn(version, long_env, 30, &p), 0);
    cr_expect_eq(p.status, 0, "version under a KC_COSTS too long: exit %d\n%s", p.status, p.err);
    kc_proc_free(&p);
    cr_assert_eq(kc_spawn(argv, long_env, 30, &p), 0);
    cr_expect(p.status == 2 && strstr(p.err, "KC_COSTS='/x/x") && strstr(p.err, "expected the path of a cost table file"),
              "run under a KC_COSTS too long: exit %d\n%.300s", p.status, p.err);
    kc_proc_free(&p);
    cr_assert_eq(kc_spawn(given_run, long_env, 30, &p), 0);
    cr_expect_eq(p.status, 0, "--costs beside a KC_COSTS too long: exit %d\n%.300s", p.status, p.err);
    kc_proc_free(&p);
    /* set but empty is unset (as KC_CACHE_DIR): the table beside the binary */
    unlink(table);
    char *const empty_env[] = { "KC_LIBCUDA=none", "KC_COSTS=", NULL };
    cr_assert_eq(kc_spawn(argv, empty_env, 30, &p), 0);
    cr_expect_eq(p.status, 0, "KC_COSTS='': exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_eq(access(table, F_OK), 0, "KC_COSTS='' wrote no %s:\n%s", table, p.err);
    kc_proc_free(&p);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* --shard K/N --costs F keeps F's seconds (it records only verdicts):
 * shards run one after another (or on hosts sharing F) compute the same
 * slices, so every item runs exactly once. */
static void expect_same_rows(const char *path, const char *want, const char *spec)
{
    kc_costs a, b;
    int fa = 0, fb = 0;
    char err[512], tmp[300];
    snprintf(tmp, sizeof tmp, "%s.want", path);
    kc_write_file(tmp, want);
    cr_assert_eq(kc_costs_load(path, &a, &fa, err, sizeof err), 0, "%s", err);
    cr_assert_eq(kc_costs_load(tmp, &b, &fb, err, sizeof err), 0, "%s", err);
    cr_expect_eq(a.n, b.n, "shard %s: %d rows, expected %d:\n%s", spec, a.n, b.n, kc_out_file(path));
    for (int i = 0; i < a.n && i < b.n; i++)
        cr_expect(!strcmp(a.v[i].name, b.v[i].name) && a.v[i].seconds == b.v[i].seconds &&
                      a.v[i].failed == b.v[i].failed,
                  "shard %s changed the table it was partitioned by:\n%s", spec, kc_out_file(path));
    kc_costs_free(&a);
    kc_costs_free(&b);
    unlink(tmp);
}

Test(costs, shard_runs_keep_the_table_they_were_cut_by_and_run_each_item_once, .timeout = 60)
{
    char path[256];
    tmpname(path, sizeof path, "shardrun");
    const char *table = "# kcontract costs v1\nfixture.pass.00\t3.000\t-1\t-1\t0\nfixture.pass.05\t2.000\t-1\t-1\t0\n";
    kc_write_file(path, table);
    int runs[12] = { 0 };
    for (int k = 0; k < 3; k++) {
        char spec[16];
        snprintf(spec, sizeof spec, "%d/3", k);
        char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.*", "--shard", spec, "--costs", path, NULL };
        kc_proc p;
        cr_assert_eq(kc_spawn(argv, NO_GPU, 30, &p), 0);
        cr_expect_eq(p.status, 0, "shard %s: exit %d\n%s%s", spec, p.status, p.out, p.err);
        for (int i = 0; i < 12; i++) {
            char line[64];
            snprintf(line, sizeof line, "PASS   fixture.pass.%02d ", i);
            runs[i] += kc_out_count(p.out, line);
        }
        kc_proc_free(&p);
        expect_same_rows(path, table, spec);
    }
    for (int i = 0; i < 12; i++) cr_expect_eq(runs[i], 1, "fixture.pass.%02d ran %d times", i, runs[i]);
    unlink(path);
}

static kc_item suite_item(const char *name)
{
    kc_item it;
    memset(&it, 0, sizeof it);
    snprintf(it.name, sizeof it.name, "%s", name);
    it.kind = KC_KIND_SUITE;
    return it;
}

Test(costs, queue_order_failed_first_then_longest_then_name)
{
    kc_item items[6] = { suite_item("a"), suite_item("b"), suite_item("c"), suite_item("d"), suite_item("e"),
                         suite_item("f") };
    kc_costs c = { 0 };
    kc_cost e1 = { "a", 1.0, -1, -1, 0 }, e2 = { "b", 9.0, -1, -1, 0 }, e3 = { "c", 0.1, -1, -1, 1 },
            e4 = { "d", 3.0, -1, -1, 1 }, e5 = { "e", 9.0, -1, -1, 0 };
    kc_costs_set(&c, &e1);
    kc_costs_set(&c, &e2);
    kc_costs_set(&c, &e3);
    kc_costs_set(&c, &e4);
    kc_costs_set(&c, &e5);
    int sel[6] = { 0, 1, 2, 3, 4, 5 };
    kc_queue_order(&c, items, sel, 6);
    /* failed: d (3.0), c (0.1); then b, e (9.0, by name), a (1.0), f (estimate 0.5) */
    const char *want[6] = { "d", "c", "b", "e", "a", "f" };
    for (int i = 0; i < 6; i++) cr_expect_str_eq(items[sel[i]].name, want[i], "position %d", i);
    kc_costs_free(&c);
}

Test(costs, lpt_partition)
{
    double cost[5] = { 3, 5, 3, 4, 3 };
    const char *names[5] = { "c", "a", "d", "b", "e" };
    int sh[5];
    cr_assert_eq(kc_lpt_partition(cost, names, 5, 2, sh), 0);
    /* a(5)->0, b(4)->1, c(3)->1 (4<5), d(3)->0 (5<7), e(3)->1 (7<8) */
    cr_expect_eq(sh[1], 0);
    cr_expect_eq(sh[3], 1);
    cr_expect_eq(sh[0], 1);
    cr_expect_eq(sh[2], 0);
    cr_expect_eq(sh[4], 1);
    double many[100];
    const char *nm[100];
    char buf[100][16];
    int s1[100], s2[100], cnt[7] = { 0 };
    for (int i = 0; i < 100; i++) {
        many[i] = (double)((i * 7919) % 13);
        snprintf(buf[i], sizeof buf[i], "i%03d", i);
        nm[i] = buf[i];
    }
    kc_lpt_partition(many, nm, 100, 7, s1);
    kc_lpt_partition(many, nm, 100, 7, s2);
    for (int i = 0; i < 100; i++) {
        cr_expect_eq(s1[i], s2[i]);
        cr_assert(s1[i] >= 0 && s1[i] < 7);
        cnt[s1[i]]++;
    }
    int sum = 0;
    for (int k = 0; k < 7; k++) sum += cnt[k];
    cr_expect_eq(sum, 100);
    /* items measured at 0 s (host suites) spread as evenly as they can, not all onto shard 0 */
    double zero[5] = { 0, 0, 0, 0, 0 };
    int z[5], per[2] = { 0, 0 };
    cr_assert_eq(kc_lpt_partition(zero, names, 5, 2, z), 0);
    for (int i = 0; i < 5; i++) per[z[i]]++;
    cr_expect(per[0] == 3 && per[1] == 2, "5 items of 0 s over 2 shards: %d and %d", per[0], per[1]);
}

/* The item names of `kcontract-fixture list ... --shard K/N [--costs F]`, newline-joined. */
static void list_shard(int k, int n, const char *costs, char *buf, size_t cap)
{
    char spec[32];
    snprintf(spec, sizeof spec, "%d/%d", k, n);
    char *argv[] = { (char *)kc_test_fixture_bin(), "list", "fixture.cost.*", "--shard", spec,
                     costs ? "--costs" : NULL, (char *)costs, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, NO_GPU, 30, &p), 0);
    cr_assert_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    size_t len = 0;
    buf[0] = 0;
    for (char *l = strtok(p.out, "\n"); l; l = strtok(NULL, "\n"))
        if (strncmp(l, "suite ", 6) == 0 && len < cap) {
            char *nm = l + 6;
            while (*nm == ' ') nm++;
            len += (size_t)snprintf(buf + len, cap - len, "%s\n", nm);
        }
    kc_proc_free(&p);
}

Test(costs, shard_with_costs_is_lpt_identical_and_covers_each_item_once, .timeout = 60)
{
    char path[256], text[8192];
    tmpname(path, sizeof path, "lpt");
    size_t len = (size_t)snprintf(text, sizeof text, "# kcontract costs v1\n");
    double cost[64];
    const char *names[64];
    char nb[64][32];
    for (int i = 0; i < 64; i++) {
        snprintf(nb[i], sizeof nb[i], "fixture.cost.%02d", i);
        names[i] = nb[i];
        cost[i] = i < 60 ? (double)((i * 13) % 17) + 0.5 : 0;
        if (i < 60) len += (size_t)snprintf(text + len, sizeof text - len, "%s\t%.3f\t-1\t-1\t0\n", nb[i], cost[i]);
        else cost[i] = 0.5;        /* not in the table: the estimate (a suite: the base) */
    }
    kc_write_file(path, text);
    int want[64];
    kc_lpt_partition(cost, names, 64, 3, want);
    static char got[3][4096], again[4096];
    int seen[64] = { 0 };
    for (int k = 0; k < 3; k++) {
        list_shard(k, 3, path, got[k], sizeof got[k]);
        for (char *l = got[k]; *l;) {
            char *e = strchr(l, '\n');
            int i = atoi(l + strlen("fixture.cost."));
            cr_expect_eq(want[i], k, "%.*s is in shard %d, LPT says %d", (int)(e - l), l, k, want[i]);
            seen[i]++;
            l = e + 1;
        }
    }
    for (int i = 0; i < 64; i++) cr_expect_eq(seen[i], 1, "fixture.cost.%02d listed %d times", i, seen[i]);
    list_shard(1, 3, path, again, sizeof again);
    cr_expect_str_eq(again, got[1], "the same file gives the same partition");
    list_shard(1, 3, NULL, again, sizeof again);
    cr_expect_eq(strncmp(again, "fixture.cost.01\nfixture.cost.04\n", 32), 0, "without --costs: i %% N\n%s", again);
    unlink(path);
}

Test(costs, time_limits)
{
    kc_item it = suite_item("x");
    kc_costs c = { 0 };
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 0), KC_TIMEOUT_NO_COST_S, 1e-9);
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 2.5), 2.5, 1e-9, "--timeout overrides");
    kc_cost e = { "x", 3.0, -1, -1, 0 };
    kc_costs_set(&c, &e);
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 0), KC_TIMEOUT_FLOOR_S, 1e-9, "floor");
    e.seconds = 100;
    kc_costs_set(&c, &e);
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 0), 500, 1e-9, "5 x cost");
    kc_contract k;
    memset(&k, 0, sizeof k);
    k.timeout_s = 7;
    it.kind = KC_KIND_KERNEL;
    it.contract = &k;
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 0), 7, 1e-9, "the contract's timeout_s");
    kc_costs_free(&c);
}

/* A row that was never measured ("-" seconds: a NOTRUN item of a run that
 * had no row for it) records the item as failed and nothing else: its cost
 * is the estimate, its time limit the one without a cost, and it is written
 * back as it was read. A "-" on a row that did not fail is refused. */
Test(costs, a_row_never_measured_keeps_the_estimate_and_the_limit)
{
    kc_costs c = { 0 };
    char err[512] = "";
    cr_assert_eq(kc_costs_parse("# kcontract costs v1\nx\t-\t-1\t-1\t1\n", &c, err, sizeof err), 0, "%s", err);
    kc_item it = suite_item("x");
    int recorded = 1;
    cr_expect_float_eq(kc_item_cost(&c, &it, &recorded), kc_cost_estimate(&it), 1e-9);
    cr_expect_eq(recorded, 0, "a row never measured is no recorded cost");
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 0), KC_TIMEOUT_NO_COST_S, 1e-9);
    cr_expect_eq(kc_costs_find(&c, "x")->failed, 1);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(kc_costs_format(&c, f), 0);
    fclose(f);
    cr_expect(strstr(text, "\nx\t-\t-1\t-1\t1\n"), "written back as:\n%s", text);
    free(text);
    kc_costs_free(&c);
    refused("# kcontract costs v1\nx\t-\t-1\t-1\t0\n", "line 2: '-' seconds (never measured) for x, which is not failed");
}

/* A mutant's item (kcontract mutate) is limited by its recorded cost (its
 * contract's baseline, mutate_baseline.h): 5 x it, at least
 * KC_MUTANT_TIMEOUT_FLOOR_S, before the contract's own timeout_s and far
 * below the ordinary floor; --timeout still overrides; no cost: as any. */
Test(costs, a_mutants_time_limit_follows_its_contracts_baseline)
{
    kc_contract k;
    memset(&k, 0, sizeof k);
    k.timeout_s = 300;
    kc_item it = { .kind = KC_KIND_CONTROL, .contract = &k };
    snprintf(it.name, sizeof it.name, "kv.f16:mutant.0123456789ab");
    kc_costs c = { 0 };
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 0), 300, 1e-9, "no baseline: the contract's timeout_s");
    kc_cost e = { "kv.f16:mutant.0123456789ab", 0.4, -1, -1, 0 };
    kc_costs_set(&c, &e);
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 0), KC_MUTANT_TIMEOUT_FLOOR_S, 1e-9, "the mutants' floor");
    e.seconds = 8;
    kc_costs_set(&c, &e);
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 0), 40, 1e-9, "5 x its contract's baseline");
    cr_expect_float_eq(kc_item_time_limit(&it, &c, 3), 3, 1e-9, "--timeout overrides");
    kc_item ctl = it;
    snprintf(ctl.name, sizeof ctl.name, "kv.f16:control.planted");
    kc_cost p = { "kv.f16:control.planted", 8, -1, -1, 0 };
    kc_costs_set(&c, &p);
    cr_expect_float_eq(kc_item_time_limit(&ctl, &c, 0), 300, 1e-9, "a planted control is no mutant");
    kc_costs_free(&c);
}

/* Run again alone after a neighbour's fault, a mutant's item has a limit
 * of its own: nothing shares the GPU, so 3 x its baseline, at least 2 s. */
Test(costs, a_mutant_run_again_alone_has_a_tighter_limit)
{
    kc_contract k;
    memset(&k, 0, sizeof k);
    kc_item it = { .kind = KC_KIND_CONTROL, .contract = &k };
    snprintf(it.name, sizeof it.name, "kv.f16:mutant.0123456789ab");
    kc_costs c = { 0 };
    cr_expect_float_eq(kc_item_time_limit_alone(&it, &c, 0), KC_TIMEOUT_NO_COST_S, 1e-9, "no baseline: as before");
    kc_cost e = { "kv.f16:mutant.0123456789ab", 0.1, -1, -1, 0 };
    kc_costs_set(&c, &e);
    cr_expect_float_eq(kc_item_time_limit_alone(&it, &c, 0), KC_MUTANT_ALONE_FLOOR_S, 1e-9, "the floor alone");
    cr_expect_lt(kc_item_time_limit_alone(&it, &c, 0), kc_item_time_limit(&it, &c, 0), "tighter than beside others");
    e.seconds = 4;
    kc_costs_set(&c, &e);
    cr_expect_float_eq(kc_item_time_limit_alone(&it, &c, 0), 12, 1e-9, "3 x its contract's baseline");
    cr_expect_float_eq(kc_item_time_limit_alone(&it, &c, 7), 7, 1e-9, "--timeout overrides");
    kc_item ctl = it;
    snprintf(ctl.name, sizeof ctl.name, "kv.f16:control.planted");
    kc_cost p = { "kv.f16:control.planted", 4, -1, -1, 0 };
    kc_costs_set(&c, &p);
    cr_expect_float_eq(kc_item_time_limit_alone(&ctl, &c, 0), kc_item_time_limit(&ctl, &c, 0), 1e-9,
                       "a planted control keeps its limit");
    kc_costs_free(&c);
}

Test(costs, admission_with_fake_plans)
{
    kc_admit a;
    memset(&a, 0, sizeof a);
    a.host_budget = 10;
    a.ndevs = 2;
    a.gpu_budget[0] = 8;
    a.gpu_budget[1] = (size_t)-1;
    int alone;
    cr_expect_eq(kc_admit_check(&a, 0, 4, 4, &alone), 1);
    kc_admit_take(&a, 0, 4, 4);
    cr_expect_eq(kc_admit_check(&a, 0, 4, 4, &alone), 1);
    kc_admit_take(&a, 0, 4, 4);
    cr_expect_eq(kc_admit_check(&a, 0, 1, 1, &alone), 0, "GPU 0 is full (8 of 8)");
    cr_expect_eq(kc_admit_check(&a, 1, 1, 100, &alone), 1, "GPU 1 has unknown free memory: host 9 of 10");
    cr_expect_eq(kc_admit_check(&a, 1, 4, 0, &alone), 0, "host would be 12 of 10");
    cr_expect_eq(kc_admit_check(&a, 1, 20, 0, &alone), 0, "never fits: waits while others run");
    cr_expect_eq(alone, 1);
    kc_admit_release(&a, 0, 4, 4);
    kc_admit_release(&a, 0, 4, 4);
    cr_expect_eq(a.running, 0);
    cr_expect_eq(kc_admit_check(&a, 1, 20, 0, &alone), 1, "runs alone once nothing else does");
    cr_expect_eq(alone, 1);
    a.integrated[0] = 1;
    cr_expect_eq(kc_admit_check(&a, 0, 6, 6, &alone), 1, "12 > 10 alone on an integrated GPU: alone");
    cr_expect_eq(alone, 1);
    kc_admit_take(&a, 0, 3, 3);
    cr_expect_eq(a.host_used, 6, "integrated: GPU bytes count against the host");
    cr_expect_eq(kc_admit_check(&a, 0, 3, 3, &alone), 0, "6 + 6 > 10");

    /* Random runs: whatever is admitted, the budgets hold (an alone item only with nothing else). */
    kc_admit b;
    memset(&b, 0, sizeof b);
    b.host_budget = 100;
    b.ndevs = 2;
    b.gpu_budget[0] = 50;
    b.gpu_budget[1] = 70;
    size_t rh[64], rg[64];
    int rs[64], nr = 0;
    unsigned x = 12345;
    for (int step = 0; step < 20000; step++) {
        x = x * 1103515245u + 12345u;
        if (nr && (x >> 16) % 3 == 0) {
            int j = (int)((x >> 8) % (unsigned)nr);
            kc_admit_release(&b, rs[j], rh[j], rg[j]);
            rh[j] = rh[nr - 1];
            rg[j] = rg[nr - 1];
            rs[j] = rs[nr - 1];
            nr--;
            continue;
        }
        int slot = (int)((x >> 4) % 2);
        size_t h = (x >> 10) % 60, g = (x >> 20) % 80;
        if (nr < 64 && kc_admit_check(&b, slot, h, g, &alone)) {
            kc_admit_take(&b, slot, h, g);
            rh[nr] = h;
            rg[nr] = g;
            rs[nr++] = slot;
            if (alone) cr_assert_eq(nr, 1, "an item that never fits ran beside others");
            else {
                cr_assert_leq(b.host_used, 100);
                cr_assert_leq(b.gpu_used[0], 50);
                cr_assert_leq(b.gpu_used[1], 70);
            }
        }
    }
}

/* Sessions held (kc_admit_sessions) count against the host budget until
 * their worker ends, and an item that fits only without them runs alone
 * once nothing else runs instead of waiting for ever (they are not an item
 * that will end). */
Test(costs, admission_holds_the_sanitizer_sessions)
{
    kc_admit a;
    memset(&a, 0, sizeof a);
    a.host_budget = 10;
    a.sessions_host = 4;
    a.ndevs = 1;
    a.gpu_budget[0] = (size_t)-1;
    int alone;
    kc_admit_sessions(&a, 0, 1);
    cr_expect_eq(a.host_used, 4);
    cr_expect_eq(a.sessions_held, 4);
    cr_expect_eq(a.running, 0, "sessions are not an item");
    cr_expect_eq(kc_admit_check(&a, 0, 6, 1, &alone), 1, "4 + 6 = 10");
    cr_expect_eq(alone, 0);
    kc_admit_take(&a, 0, 6, 1);
    cr_expect_eq(kc_admit_check(&a, 0, 1, 1, &alone), 0, "11 > 10");
    kc_admit_release(&a, 0, 6, 1);
    cr_expect_eq(kc_admit_check(&a, 0, 7, 1, &alone), 1, "7 fits only without the sessions: alone, nothing runs");
    cr_expect_eq(alone, 1);
    kc_admit_take(&a, 0, 7, 1);
    cr_expect_eq(a.alone_running, 1);
    cr_expect_eq(kc_admit_check(&a, 0, 1, 1, &alone), 0, "nothing beside it");
    kc_admit_release(&a, 0, 7, 1);
    kc_admit_sessions(&a, 0, 1);               /* a second holder */
    cr_expect_eq(a.host_used, 8);
    kc_admit_sessions(&a, 0, 0);
    kc_admit_sessions(&a, 0, 0);
    cr_expect_eq(a.host_used, 0);
    kc_admit_sessions(&a, 0, 0);               /* more ends than starts: nothing goes below zero */
    cr_expect_eq(a.host_used, 0);
    cr_expect_eq(a.sessions_held, 0);
}

/* The sessions' GPU memory is held on their worker's device (and, on an
 * integrated GPU, against the host too), and given back there. */
Test(costs, admission_holds_the_sanitizer_sessions_gpu_memory_on_their_device)
{
    kc_admit a;
    memset(&a, 0, sizeof a);
    a.host_budget = 100;
    a.sessions_host = 1;
    a.sessions_gpu[0] = a.sessions_gpu[1] = 6;
    a.ndevs = 2;
    a.gpu_budget[0] = a.gpu_budget[1] = 10;
    int alone;
    kc_admit_sessions(&a, 1, 1);            /* a holder on device 1 */
    cr_expect_eq(a.gpu_used[1], 6);
    cr_expect_eq(a.gpu_sessions_held[1], 6);
    cr_expect_eq(a.gpu_used[0], 0, "device 0 holds none");
    cr_expect_eq(kc_admit_check(&a, 1, 1, 4, &alone), 1, "6 + 4 = 10 on device 1");
    cr_expect_eq(alone, 0);
    cr_expect_eq(kc_admit_check(&a, 1, 1, 5, &alone), 1, "5 fits device 1 only without the sessions: alone");
    cr_expect_eq(alone, 1);
    cr_expect_eq(kc_admit_check(&a, 0, 1, 5, &alone), 1, "device 0 has room");
    cr_expect_eq(alone, 0);
    kc_admit_sessions(&a, 1, 0);
    cr_expect_eq(a.gpu_used[1], 0);
    cr_expect_eq(a.gpu_sessions_held[1], 0);
    cr_expect_eq(a.host_used, 0);
    a.integrated[0] = 1;                    /* unified memory: its GPU bytes are the host's too */
    kc_admit_sessions(&a, 0, 1);
    cr_expect_eq(a.host_used, 7);
    cr_expect_eq(a.gpu_used[0], 6);
    kc_admit_sessions(&a, 0, 0);
    cr_expect_eq(a.host_used, 0);
    cr_expect_eq(a.sessions_held, 0);
    kc_admit_sessions(&a, -1, 1);           /* no GPU: host only */
    cr_expect_eq(a.host_used, 1);
    cr_expect_eq(a.gpu_used[0] + a.gpu_used[1], 0);
}

/* Runs started together in one directory share its cost table: each merges
 * under a lock, so no run's rows are lost (seen before the lock: 56 of 76). */
Test(costs, concurrent_runs_keep_every_row, .timeout = 60)
{
    char path[256];
    tmpname(path, sizeof path, "concurrent");
    unlink(path);
    char pats[8][32];
    pid_t pid[8];
    for (int k = 0; k < 8; k++) {
        if (k < 7) snprintf(pats[k], sizeof pats[k], "fixture.cost.%d*", k);
        else snprintf(pats[k], sizeof pats[k], "fixture.pass.*");
        pid[k] = fork();
        if (pid[k] == 0) {
            char *argv[] = { (char *)kc_test_fixture_bin(), "run", "--jobs", "2", "--costs", path, pats[k], NULL };
            int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, 1);
            dup2(devnull, 2);
            execv(argv[0], argv);
            _exit(127);
        }
    }
    for (int k = 0; k < 8; k++) waitpid(pid[k], NULL, 0);
    kc_costs c;
    int found = 0;
    char err[512];
    cr_assert_eq(kc_costs_load(path, &c, &found, err, sizeof err), 0, "%s", err);
    /* 64 fixture.cost.NN items (patterns 0*..6* cover 00..69: 00..63 exist) and 12 fixture.pass.NN */
    int cost = 0, pass = 0;
    for (int i = 0; i < c.n; i++) {
        cost += strncmp(c.v[i].name, "fixture.cost.", 13) == 0;
        pass += strncmp(c.v[i].name, "fixture.pass.", 13) == 0;
    }
    cr_expect_eq(pass, 12);
    cr_expect_geq(cost, 64, "%d cost rows", cost);
    kc_costs_free(&c);
    unlink(path);
    char lock[300];
    snprintf(lock, sizeof lock, "%s.lock", path);
    cr_expect_neq(access(lock, F_OK), 0, "8 concurrent runs left %s behind", lock);
    unlink(lock);
}

/* A --jobs run whose items all SKIP (no GPU) measured nothing: it writes no
 * table and leaves no "<table>.lock" behind (it used to take the lock, which
 * creates the file, before knowing there was nothing to merge). */
Test(costs, run_measuring_nothing_leaves_no_lock, .timeout = 60)
{
    char path[256], lock[300];
    tmpname(path, sizeof path, "nothing");
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(path);
    unlink(lock);
    char *args[] = { "run", "--jobs", "2", "--costs", path, "fake.axpy.f32", NULL };
    kc_proc p = kc_run_fixture(args, 30);
    cr_expect_eq(p.status, 3, "every item SKIP: exit 3, got %d; stdout:\n%s", p.status, p.out);
    cr_expect_neq(access(path, F_OK), 0, "nothing measured, yet %s was written", path);
    cr_expect_neq(access(lock, F_OK), 0, "`kcontract-fixture run --jobs 2 --costs %s fake.axpy.f32` left %s behind", path,
                  lock);
    unlink(path);
    unlink(lock);
    kc_proc_free(&p);
}

/* A run that measured items writes the table and removes its lock file. */
Test(costs, run_measuring_items_removes_its_lock, .timeout = 60)
{
    char path[256], lock[300];
    tmpname(path, sizeof path, "measured");
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(path);
    unlink(lock);
    char *args[] = { "run", "--jobs", "2", "--costs", path, "fixture.pass.0*", NULL };
    kc_proc p = kc_run_fixture(args, 30);
    cr_expect_eq(p.status, 0, "exit %d; stdout:\n%s", p.status, p.out);
    cr_expect_eq(access(path, F_OK), 0, "%s was not written", path);
    cr_expect_neq(access(lock, F_OK), 0, "`kcontract-fixture run --jobs 2 --costs %s 'fixture.pass.0*'` left %s behind",
                  path, lock);
    unlink(path);
    unlink(lock);
    kc_proc_free(&p);
}

/* Issue 21: the cost table's lock file is never opened through a symbolic
 * link (a link planted beside the table in a shared directory): the run
 * refuses to write the table, naming the link, and creates nothing at its
 * target. Before, open(O_CREAT) followed the link and made its target. */
Test(costs, lock_file_symlink_is_refused_not_followed, .timeout = 60)
{
    char dir[256], path[300], lock[320], target[300];
    kc_tmp_dir(dir, sizeof dir, "costlink");
    snprintf(path, sizeof path, "%s/c.tsv", dir);
    snprintf(lock, sizeof lock, "%s.lock", path);
    snprintf(target, sizeof target, "%s/created-through-the-link", dir);
    cr_assert_eq(symlink(target, lock), 0);
    kc_proc p = kc_run_fixture((char *[]){ "run", "fixture.pass.00", "--costs", path, NULL }, 30);
    cr_expect_eq(p.status, 0, "the items passed: exit %d\n%s%s", p.status, p.out, p.err);
    char want[800];
    snprintf(want, sizeof want, "kcontract-fixture: cannot write the cost table %s: %s is a symbolic link: refusing to follow it",
             path, lock);
    cr_expect(strstr(p.err, want), "want '%s' in:\n%s", want, p.err);
    cr_expect_neq(access(target, F_OK), 0, "%s was created through the link", target);
    cr_expect_neq(access(path, F_OK), 0, "%s was written without its lock", path);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* The row of item in table text ends with failed: 1 (want 1) or 0. */
static int row_failed(const char *text, const char *item)
{
    char key[256];
    snprintf(key, sizeof key, "\n%s\t", item);
    const char *row = strstr(text, key), *eol = row ? strchr(row + 1, '\n') : NULL;
    return eol && eol - row > 2 && eol[-2] == '\t' ? eol[-1] - '0' : -1;
}

/* --rerun-failed trusts only what the table records: an item a run never
 * reached (NOTRUN under --fail-fast) marks its earlier passing row failed,
 * so --rerun-failed runs it (its measurement kept); and a run that cannot
 * vouch for its verdicts (a sanitizer session found not to: untrusted)
 * records them failed. Before, the old "failed 0" stood in both, and
 * --rerun-failed ran nothing or the wrong items and exited 0. */
Test(costs, a_not_run_item_and_an_untrusted_run_are_recorded_failed, .timeout = 60)
{
    char path[256];
    tmpname(path, sizeof path, "notrun");
    unlink(path);
    kc_proc a = kc_run_fake((char *[]){ "run", "--jobs", "1", "--costs", path, "fixture.pass.00", "fixture.chdir", NULL },
                            NULL, 30);
    cr_expect_eq(a.status, 0, "exit %d\n%s", a.status, a.out);
    cr_expect_eq(row_failed(kc_out_file(path), "fixture.chdir"), 0, "%s", kc_out_file(path));
    char row[256] = "";         /* its measured row, but for the failed flag */
    const char *r0 = strstr(kc_out_file(path), "\nfixture.chdir\t");
    if (r0) snprintf(row, sizeof row, "%.*s", (int)(strchr(r0 + 1, '\n') - r0 - 1), r0);
    kc_proc b = kc_run_fake((char *[]){ "run", "--jobs", "1", "--fail-fast", "--costs", path, "fixture.break.closeall",
                                        "fixture.chdir", NULL }, NULL, 30);
    cr_expect_eq(b.status, 1, "exit %d\n%s", b.status, b.out);
    cr_expect(strstr(b.out, "NOTRUN fixture.chdir"), "%s", b.out);
    cr_expect(strstr(b.out, "; 1 not run, recorded failed\n"), "%s", b.out);
    const char *t = kc_out_file(path);
    cr_expect_eq(row_failed(t, "fixture.chdir"), 1, "the NOTRUN item's row still reads passed:\n%s", t);
    cr_expect(row[0] && strstr(t, row), "its measurement (%s) was not kept:\n%s", row, t);
    char san[PATH_MAX + 32], fake[PATH_MAX];
    cr_assert_not_null(realpath("tests/fake/compute-sanitizer", fake));
    snprintf(san, sizeof san, "KC_COMPUTE_SANITIZER=%s", fake);
    char *env[] = { san, "PATH=/usr/bin:/bin", "KC_FAKE_SANITIZER=late:memcheck", NULL };
    kc_proc c = kc_run_fake((char *[]){ "run", "--costs", path, "fakesan.copy.f16:sanitize", NULL }, env, 30);
    cr_expect_eq(c.status, 1, "exit %d\n%s", c.status, c.out);
    t = kc_out_file(path);
    cr_expect_eq(row_failed(t, "fakesan.copy.f16:sanitize"), 1, "an untrusted run's verdict reads passed:\n%s", t);
    kc_proc d = kc_run_fake((char *[]){ "run", "--rerun-failed", "--costs", path, "fakesan.copy.f16:sanitize",
                                        "fixture.pass.00", NULL }, env, 30);
    cr_expect(strstr(d.out, "fakesan.copy.f16:sanitize") && !strstr(d.out, "PASS   fixture.pass.00"),
              "--rerun-failed did not run the untrusted run's item alone:\n%s", d.out);
    cr_expect_eq(d.status, 1, "--rerun-failed after an untrusted run: exit %d\n%s", d.status, d.out);
    kc_proc_free(&a);
    kc_proc_free(&b);
    kc_proc_free(&c);
    kc_proc_free(&d);
    unlink(path);
}

/* A CI's retry `run --fail-fast || run --rerun-failed` with a fresh table:
 * the first run stops at its first failure, so the items after it are
 * NOTRUN with no row. Before, they got none ("run them by name"), and a
 * retry in which the failed item passed read green though they never ran;
 * now each gets a row never measured, recorded failed, and the retry runs it. */
Test(costs, a_retry_after_fail_fast_runs_the_items_never_measured, .timeout = 60)
{
    char path[256];
    tmpname(path, sizeof path, "failfast");
    unlink(path);
    kc_proc a = kc_run_fake((char *[]){ "run", "--jobs", "1", "--fail-fast", "--costs", path, "fixture.fail",
                                        "fixture.pass.00", NULL }, NULL, 30);
    cr_expect_eq(a.status, 1, "exit %d\n%s", a.status, a.out);
    cr_expect(strstr(a.out, "NOTRUN fixture.pass.00"), "%s", a.out);
    cr_expect(strstr(a.out, "; 1 not run, recorded failed\n"), "%s", a.out);
    const char *t = kc_out_file(path);
    cr_expect(strstr(t, "\nfixture.pass.00\t-\t-1\t-1\t1\n"), "no row never measured for the NOTRUN item:\n%s", t);
    kc_proc b = kc_run_fake((char *[]){ "run", "--jobs", "1", "--rerun-failed", "--costs", path, "fixture.fail",
                                        "fixture.pass.00", NULL }, NULL, 30);
    cr_expect(strstr(b.out, "PASS   fixture.pass.00"), "the retry did not run the item never measured:\n%s", b.out);
    t = kc_out_file(path);
    cr_expect_eq(row_failed(t, "fixture.pass.00"), 0, "%s", t);
    cr_expect(!strstr(t, "\nfixture.pass.00\t-\t"), "measured now, still never measured:\n%s", t);
    kc_proc_free(&a);
    kc_proc_free(&b);
    unlink(path);
}

/* An empty --shard slice says how the slices were cut: by the cost table
 * when --costs is given (it said "item i goes to shard i % N" then too, a
 * new user found), else i % N. (A --jobs run's header says instead that
 * no worker started: no item is left to run.) */
Test(costs, an_empty_shard_says_how_the_slices_were_cut, .timeout = 60)
{
    char path[256], want[600];
    tmpname(path, sizeof path, "emptyshard");
    kc_write_file(path, "# kcontract costs v1\n# item\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tfailed\n"
                        "fixture.pass.00\t0\t-1\t-1\t0\nfixture.pass.01\t0\t-1\t-1\t0\n");
    snprintf(want, sizeof want, "shard 3/4 is empty (the filter selects 2 items; the slices are cut by the cost table %s: "
             "longest first onto the least-loaded shard)\n", path);
    kc_proc a = kc_run_fixture((char *[]){ "run", "--shard", "3/4", "--costs", path, "fixture.pass.00", "fixture.pass.01",
                                           NULL }, 30),
            b = kc_run_fixture((char *[]){ "run", "--shard", "3/4", "fixture.pass.00", "fixture.pass.01", NULL }, 30);
    cr_expect(strstr(a.out, want), "want '%s' in:\n%s%s", want, a.out, a.err);
    cr_expect(strstr(b.out, "shard 3/4 is empty (the filter selects 2 items; item i goes to shard i % 4)\n"), "%s%s",
              b.out, b.err);
    kc_proc_free(&a);
    kc_proc_free(&b);
    unlink(path);
}
