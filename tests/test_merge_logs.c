/* test_merge_logs.c — `kcontract merge` with real processes and the fixture
 * binary (no GPU): the saved outputs of the --shard K/N runs of a "multi-host"
 * run merge into the serial run's TALLY and SUMMARY; a shard missing, given
 * twice, unfinished, of another seed or filter, cut by another cost table,
 * run with another --block-size or --reference, or of an older kcontract is
 * refused, naming it; the options merge does not take are refused. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"


static kc_proc fixture(char **args) { return kc_run_fixture(args, 60); }

static void save(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Replaces the first `from` in the file at path with `to` (same length or not). */
static void edit_log(const char *path, const char *from, const char *to)
{
    const char *text = kc_out_file(path);
    const char *at = strstr(text, from);
    cr_assert(at, "'%s' not in %s", from, path);
    static char out[1 << 20];
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    save(path, out);
}

/* Runs shard k/n of the selection with extra args (NULL-ended, may be empty)
 * and saves its stdout as log[k]. */
static void shard_log(int k, int n, char **extra, char log[][128])
{
    char spec[16];
    snprintf(spec, sizeof spec, "%d/%d", k, n);
    snprintf(log[k], 128, "%s/kc-merge-%ld-%d.log", kc_test_tmpdir(), (long)getpid(), k);
    char *args[24] = { "run", "fixture.pass.*", "fixture.fail", "--shard", spec };
    int a = 5;
    for (int i = 0; extra && extra[i]; i++) args[a++] = extra[i];
    args[a] = NULL;
    kc_proc p = fixture(args);
    save(log[k], p.out);
    kc_proc_free(&p);
}

/* `merge fixture.pass.* fixture.fail [extra] --log L...` over the given logs. */
static kc_proc merge(char **extra, const char *const *logs, int nlogs)
{
    char *args[40] = { "merge", "fixture.pass.*", "fixture.fail" };
    int a = 3;
    for (int i = 0; extra && extra[i]; i++) args[a++] = extra[i];
    for (int i = 0; i < nlogs; i++) {
        args[a++] = "--log";
        args[a++] = (char *)logs[i];
    }
    args[a] = NULL;
    return fixture(args);
}

Test(merge_logs, shard_logs_merge_into_the_serial_result, .timeout = 60)
{
    char log[3][128];
    for (int k = 0; k < 3; k++) shard_log(k, 3, NULL, log);
    kc_proc s = fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", NULL });
    const char *logs[] = { log[2], log[0], log[1] };   /* any order */
    kc_proc m = merge(NULL, logs, 3);
    cr_expect_eq(m.status, s.status, "merge exit %d, serial %d\n%s", m.status, s.status, m.out);
    kc_tally a, b;
    kc_out_tally(s.out, &a);
    kc_out_tally(m.out, &b);
    cr_expect(memcmp(a.n, b.n, sizeof a.n) == 0, "counts differ:\n%s", m.out);
    cr_expect_eq(b.items, 13);
    char sa[512], sb[512];
    kc_out_summary(s.out, sa, sizeof sa);
    kc_out_summary(m.out, sb, sizeof sb);
    cr_expect_str_eq(sb, sa);
    for (int k = 0; k < 3; k++) unlink(log[k]);
    kc_proc_free(&s);
    kc_proc_free(&m);
}

static void expect_refused(kc_proc *p, const char *want)
{
    cr_expect_eq(p->status, 1, "exit %d\n%s", p->status, p->out);
    cr_expect(strstr(p->out, want), "want '%s' in:\n%s", want, p->out);
    cr_expect(!strstr(p->out, "\nSUMMARY"), "a refused merge printed a SUMMARY:\n%s", p->out);
    kc_proc_free(p);
}

Test(merge_logs, bad_logs_are_refused_naming_the_log, .timeout = 60)
{
    char log[3][128], other[3][128];
    for (int k = 0; k < 3; k++) shard_log(k, 3, NULL, log);
    kc_proc p = merge(NULL, (const char *[]){ log[0], log[2] }, 2);
    expect_refused(&p, "shard 1/3: no finished --log holds it");
    p = merge(NULL, (const char *[]){ log[0], log[1], log[1], log[2] }, 4);
    cr_expect_eq(p.status, 2, "the same file twice is a usage error: %d\n%s", p.status, p.err);
    kc_proc_free(&p);
    char copy[160];
    snprintf(copy, sizeof copy, "%s.copy", log[1]);
    /* An index run twice with the same result (Kubernetes may start two pods
     * for one index): taken once, said; with another result: refused. */
    kc_proc c = fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", "--shard", "1/3", NULL });
    save(copy, c.out);
    kc_proc_free(&c);
    p = merge(NULL, (const char *[]){ log[0], log[1], copy, log[2] }, 4);
    cr_expect_eq(p.status, 1, "(fixture.fail fails) exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "is a second run of it with the same TALLY") && strstr(p.out, "\nSUMMARY "), "%s", p.out);
    kc_proc_free(&p);
    c = fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", "--shard", "1/3", "--seed", "9", NULL });
    save(copy, c.out);
    kc_proc_free(&c);
    p = merge(NULL, (const char *[]){ log[0], log[1], copy, log[2] }, 4);
    expect_refused(&p, "shard 1/3 given twice with different results");
    /* Cut before its SUMMARY: the host's run did not finish. */
    kc_proc q = fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", "--shard", "2/3", NULL });
    char *sum = strstr(q.out, "\nSUMMARY ");
    cr_assert(sum);
    sum[1] = 0;
    save(copy, q.out);
    kc_proc_free(&q);
    p = merge(NULL, (const char *[]){ log[0], log[1], copy }, 3);
    expect_refused(&p, "no TALLY followed by a SUMMARY");
    /* A malformed TALLY is refused with the parser's reason. */
    save(copy, "PASS   fixture.pass.00  ok  (0.01 s)\nTALLY v=4 suite.pass=four\nSUMMARY x  (0.0 s)\n");
    p = merge(NULL, (const char *[]){ log[0], log[1], copy }, 3);
    expect_refused(&p, "malformed TALLY: bad number 'four'");
    /* A --schedule static run's output is no shard's: its item lines are
     * its own shards', prefixed [K/N]. */
    kc_proc j = fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", "--jobs", "2", "--schedule", "static", NULL });
    save(copy, j.out);
    kc_proc_free(&j);
    p = merge(NULL, (const char *[]){ copy }, 1);
    expect_refused(&p, "no item lines: not the output of a --shard K/N run");
    /* Logs for different N, one above --shard's 4096: one refusal listing them. */
    save(copy, kc_out_file(log[1]));
    edit_log(copy, "shard=1/3", "shard=1/2000000000");
    p = merge(NULL, (const char *[]){ log[0], copy, log[2] }, 3);
    expect_refused(&p, "shard 1/2000000000");
    /* A directory with no *.log under it: a usage error, exit 2. */
    char empty[256];
    snprintf(empty, sizeof empty, "%s/kc-merge-empty-%ld", kc_test_tmpdir(), (long)getpid());
    mkdir(empty, 0755);
    p = merge(NULL, (const char *[]){ log[0], empty, log[2] }, 3);
    cr_expect_eq(p.status, 2, "exit %d", p.status);
    cr_expect(strstr(p.err, ": a directory with no *.log file under it"), "%s", p.err);
    kc_proc_free(&p);
    rmdir(empty);
    /* Shard 1 with another seed. */
    shard_log(1, 3, (char *[]){ "--seed", "5", NULL }, other);
    p = merge(NULL, (const char *[]){ log[0], other[1], log[2] }, 3);
    expect_refused(&p, "shard 1/3: its TALLY is for seed 5, the run's is 1");
    /* Merged with other patterns than the shards ran. */
    char *args[] = { "merge", "fixture.pass.*", "--log", log[0], "--log", log[1], "--log", log[2], NULL };
    p = fixture(args);
    expect_refused(&p, "(other patterns), the run's is ");
    /* ... naming the merge's own patterns, not only their hash (a reader's find) */
    p = fixture(args);
    expect_refused(&p, " (the merge's: 'fixture.pass.*'): ");
    char *excl[] = { "merge", "fixture.*", "--exclude", "fixture.pass.0?", "--log", log[0], "--log", log[1], "--log",
                     log[2], NULL };
    p = fixture(excl);
    expect_refused(&p, " (the merge's: 'fixture.*' --exclude 'fixture.pass.0?'): ");
    /* ... which says what to do about it. */
    p = fixture(args);
    expect_refused(&p, ": give the merge the PATTERNs and --exclude the shards ran");
    for (int k = 0; k < 3; k++) unlink(log[k]);
    unlink(other[1]);
    unlink(copy);
}

/* A log's TALLY must add up to its item lines: a failure edited into a pass,
 * or a failing item's line removed, is refused, naming the log. */
Test(merge_logs, tally_edited_or_item_line_removed_refused, .timeout = 60)
{
    char log[3][128];
    for (int k = 0; k < 3; k++) shard_log(k, 3, NULL, log);
    int fk = -1;   /* the shard that ran fixture.fail */
    for (int k = 0; k < 3 && fk < 0; k++)
        if (strstr(kc_out_file(log[k]), "\nFAIL   fixture.fail ")) fk = k;
    cr_assert_geq(fk, 0, "no shard ran fixture.fail");
    const char *logs[] = { log[0], log[1], log[2] };
    edit_log(log[fk], "suite.pass=", "suite.pass=1");   /* e.g. 4 -> 14: more passes than lines */
    kc_proc p = merge(NULL, logs, 3);
    expect_refused(&p, "its TALLY does not add up to its item lines (suite.pass: TALLY 1");
    shard_log(fk, 3, NULL, log);
    edit_log(log[fk], "suite.fail=1", "suite.fail=0");
    edit_log(log[fk], "\nFAIL   fixture.fail ", "\nPASS   fixture.fail ");   /* forged both ways: pass count off */
    p = merge(NULL, logs, 3);
    expect_refused(&p, "suite.pass: TALLY");
    for (int k = 0; k < 3; k++) unlink(log[k]);
}

/* Shards cut by cost (--costs F) merge only with the same table. */
Test(merge_logs, slices_by_cost_need_the_same_table, .timeout = 60)
{
    char costs[128], log[2][128];
    snprintf(costs, sizeof costs, "%s/kc-merge-%ld-costs.tsv", kc_test_tmpdir(), (long)getpid());
    save(costs, "# kcontract costs v1\nfixture.pass.00\t9.000\t-1\t-1\t0\nfixture.pass.01\t8.000\t-1\t-1\t0\n");
    for (int k = 0; k < 2; k++) shard_log(k, 2, (char *[]){ "--costs", costs, NULL }, log);
    const char *logs[] = { log[0], log[1] };
    kc_proc p = merge((char *[]){ "--costs", costs, NULL }, logs, 2);
    cr_expect_eq(p.status, 1, "(fixture.fail fails) exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "\nSUMMARY "), "%s", p.out);
    kc_proc_free(&p);
    p = merge(NULL, logs, 2);
    expect_refused(&p, "its slice was cut by a cost table");
    /* The table rewritten after the shards ran (a --jobs run rewrites it):
     * the merge names the table as the cause, not only the slices. */
    save(costs, "# kcontract costs v1\nfixture.pass.00\t1.000\t-1\t-1\t0\nfixture.pass.01\t8.000\t-1\t-1\t0\n");
    p = merge((char *[]){ "--costs", costs, NULL }, logs, 2);
    expect_refused(&p, "the table changed after this shard ran");
    for (int k = 0; k < 2; k++) unlink(log[k]);
    unlink(costs);
}

/* --shard K/N --jobs M: each host runs its slice on a work queue; the logs
 * (item lines prefixed [wK]) merge into the serial result, and a cost table
 * they were cut from keeps its seconds (every shard needs them unchanged):
 * the shards record only their verdicts there (fixture.fail failed, in a
 * row never measured). */
Test(merge_logs, shards_run_as_work_queues_merge_into_the_serial_result, .timeout = 120)
{
    char costs[128], log[3][128];
    snprintf(costs, sizeof costs, "%s/kc-merge-%ld-qcosts.tsv", kc_test_tmpdir(), (long)getpid());
    const char *table = "# kcontract costs v1\nfixture.pass.00\t9.000\t-1\t-1\t0\nfixture.pass.01\t8.000\t-1\t-1\t0\n";
    save(costs, table);
    for (int k = 0; k < 3; k++) shard_log(k, 3, (char *[]){ "--jobs", "2", "--costs", costs, NULL }, log);
    const char *t = kc_out_file(costs);
    cr_expect(strstr(t, "\nfixture.pass.00\t9.000\t-1\t-1\t0\n") && strstr(t, "\nfixture.pass.01\t8.000\t-1\t-1\t0\n") &&
                  strstr(t, "\nfixture.fail\t-\t-1\t-1\t1\n"),
              "a --shard --jobs run rewrote the cost table's seconds, or recorded no verdict:\n%s", t);
    cr_expect(strstr(kc_out_file(log[0]), "kcontract-fixture: shard 0/3: "), "%s", kc_out_file(log[0]));
    cr_expect(strstr(kc_out_file(log[0]), "\n[w"), "no worker lines:\n%s", kc_out_file(log[0]));
    kc_proc s = fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", NULL });
    const char *logs[] = { log[0], log[1], log[2] };
    kc_proc m = merge((char *[]){ "--costs", costs, NULL }, logs, 3);
    cr_expect_eq(m.status, s.status, "merge exit %d, serial %d\n%s", m.status, s.status, m.out);
    char sa[512], sb[512];
    kc_out_summary(s.out, sa, sizeof sa);
    kc_out_summary(m.out, sb, sizeof sb);
    cr_expect_str_eq(sb, sa);
    /* A changed build (other contracts or kernels) is refused, naming it. */
    const char *at = strstr(kc_out_file(log[1]), " build=");
    cr_assert(at);
    char from[32], to[32];
    snprintf(from, sizeof from, "%.23s", at);
    snprintf(to, sizeof to, "%s", from);
    to[7] = to[7] == '0' ? '1' : '0';
    edit_log(log[1], from, to);
    m = merge((char *[]){ "--costs", costs, NULL }, logs, 3);
    expect_refused(&m, "(other contract definitions, kernels or library kernels)");
    for (int k = 0; k < 3; k++) unlink(log[k]);
    unlink(costs);
    kc_proc_free(&s);
    kc_proc_free(&m);
}

Test(merge_logs, options_merge_does_not_take_are_refused)
{
    kc_proc p = fixture((char *[]){ "merge", "fixture.pass.*", NULL });
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "merge needs the shards' outputs: --log FILE for each"), "%s", p.err);
    kc_proc_free(&p);
    p = fixture((char *[]){ "run", "fixture.pass.00", "--log", "/tmp/x.log", NULL });
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--log applies to merge only"), "%s", p.err);
    kc_proc_free(&p);
    p = fixture((char *[]){ "merge", "--log", "/tmp/x.log", "--jobs", "2", NULL });
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--jobs does not apply to merge"), "%s", p.err);
    kc_proc_free(&p);
    p = fixture((char *[]){ "merge", "--log", "/nonexistent/x.log", NULL });
    cr_expect_eq(p.status, 2, "an unreadable log: exit %d", p.status);
    cr_expect(strstr(p.err, "/nonexistent/x.log: cannot read"), "%s", p.err);
    kc_proc_free(&p);
}

/* Two hosts whose --records share a label but not its dims ran different
 * launches: the item-set digest includes a record's dims, so they do not
 * merge as one run (found by a break-it pass). Real binary, no GPU: SKIP. */
Test(merge_logs, records_with_other_dims_under_one_label_refused, .timeout = 60)
{
    char ra[128], rb[128], log[128];
    snprintf(ra, sizeof ra, "%s/kc-merge-%ld-a.txt", kc_test_tmpdir(), (long)getpid());
    snprintf(rb, sizeof rb, "%s/kc-merge-%ld-b.txt", kc_test_tmpdir(), (long)getpid());
    snprintf(log, sizeof log, "%s/kc-merge-%ld-rec.log", kc_test_tmpdir(), (long)getpid());
    save(ra, "rmsnorm.f16 tokens=7 hidden=4096 eps_exp10=5 name=x\n");
    save(rb, "rmsnorm.f16 tokens=8 hidden=4096 eps_exp10=5 name=x\n");
    char *run[] = { (char *)kc_test_bin(), "run", "--records", ra, "--shard", "0/1", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(run, KC_NO_GPU_ENV, 60, &p), 0);
    cr_expect_eq(p.status, 3, "no GPU: SKIP, exit %d\n%s%s", p.status, p.out, p.err);
    save(log, p.out);
    kc_proc_free(&p);
    char *same[] = { (char *)kc_test_bin(), "merge", "--records", ra, "--log", log, NULL };
    cr_assert_eq(kc_spawn(same, KC_NO_GPU_ENV, 60, &p), 0);
    cr_expect_eq(p.status, 3, "the same records merge: exit %d\n%s", p.status, p.out);
    kc_proc_free(&p);
    char *other[] = { (char *)kc_test_bin(), "merge", "--records", rb, "--log", log, NULL };
    cr_assert_eq(kc_spawn(other, KC_NO_GPU_ENV, 60, &p), 0);
    expect_refused(&p, "its slice is 1 item (digest");
    unlink(ra);
    unlink(rb);
    unlink(log);
}

/* A LEAK item in a shard's log (issue 13) is merged as LEAK: it is counted,
 * fails the merged run, and its line counts as an item line. */
Test(merge_logs, a_leak_in_a_shard_is_merged_as_leak, .timeout = 60)
{
    char log[2][128];
    for (int k = 0; k < 2; k++) {
        char spec[16];
        snprintf(spec, sizeof spec, "%d/2", k);
        snprintf(log[k], sizeof log[k], "%s/kc-merge-leak-%ld-%d.log", kc_test_tmpdir(), (long)getpid(), k);
        char *args[] = { "run", "fixture.leak.pass", "fixture.pass.00", "--shard", spec, NULL };
        kc_proc p = fixture(args);
        save(log[k], p.out);
        kc_proc_free(&p);
    }
    cr_expect(strstr(kc_out_file(log[0]), "\nLEAK   fixture.leak.pass  "), "%s", kc_out_file(log[0]));
    char *args[] = { "merge", "fixture.leak.pass", "fixture.pass.00", "--log", log[0], "--log", log[1], NULL };
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 1, "a LEAK fails the merged run: exit %d\n%s%s", p.status, p.out, p.err);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_LEAK], 1);
    cr_expect_eq(t.n[KC_KIND_SUITE][KC_PASS], 1);
    char sum[1024];
    kc_out_summary(p.out, sum, sizeof sum);
    cr_expect(strstr(sum, "; 1 left processes or GPU state behind"), "%s", sum);
    kc_proc_free(&p);
    unlink(log[0]);
    unlink(log[1]);
}

/* What engines leave behind: Bazel's bazel-testlogs/<target>/shard_K_of_N/test.log,
 * each starting with lines Bazel adds, merged from the directory; the merged
 * run prints the failing line with its rerun command and writes --json and
 * --junit; shards on another GPU are refused unless --allow-mixed-gpus. */
Test(merge_logs, a_directory_of_bazel_logs_merges_with_reports, .timeout = 90)
{
    char dir[96], sub[160], log[3][128], path[200], json[128], junit[128];
    snprintf(dir, sizeof dir, "%s/kc-merge-bazel-%ld", kc_test_tmpdir(), (long)getpid());
    mkdir(dir, 0755);
    for (int k = 0; k < 3; k++) {
        shard_log(k, 3, NULL, log);
        snprintf(sub, sizeof sub, "%s/shard_%d_of_3", dir, k + 1);
        mkdir(sub, 0755);
        snprintf(path, sizeof path, "%s/test.log", sub);
        char text[1 << 16];
        snprintf(text, sizeof text, "exec ${PAGER:-/usr/bin/less} \"$0\" || exit 1\nExecuting tests from //:kc_shards\n"
                 "-----------------------------------------------------------------------------\n%s", kc_out_file(log[k]));
        save(path, text);
        unlink(log[k]);
    }
    snprintf(json, sizeof json, "%s.json", dir);
    snprintf(junit, sizeof junit, "%s.xml", dir);
    kc_proc s = fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", NULL });
    kc_proc m = fixture((char *[]){ "merge", "fixture.pass.*", "fixture.fail", "--json", json, "--junit", junit, "--log", dir, NULL });
    cr_expect_eq(m.status, 1, "exit %d\n%s\n%s", m.status, m.out, m.err);
    char sa[512], sb[512];
    kc_out_summary(s.out, sa, sizeof sa);
    kc_out_summary(m.out, sb, sizeof sb);
    cr_expect_str_eq(sb, sa);
    cr_expect(strstr(m.out, "\nFAIL   fixture.fail  fixture.fail fails on purpose (expected 1, got 2)  (") &&
              strstr(m.out, "rerun: ") && strstr(m.out, " run fixture.fail --seed 1 --device 0\n"), "%s", m.out);
    const char *j = kc_out_file(json);
    cr_expect(strstr(j, "\"name\":\"fixture.fail\"") && strstr(j, "\"state\":\"FAIL\""), "%s", j);
    cr_expect_eq(kc_out_count(j, "\"name\":\"fixture.pass."), 12, "%s", j);
    const char *x = kc_out_file(junit);
    cr_expect(strstr(x, "fixture.fail") && strstr(x, "<failure"), "%s", x);
    /* One shard on another GPU: refused, naming both; merged when allowed. */
    snprintf(path, sizeof path, "%s/shard_2_of_3/test.log", dir);
    const char *t = kc_out_file(path);
    char text[1 << 16];
    snprintf(text, sizeof text, "%s", t);
    char *dv = strstr(text, " device=none cc=0.0 sms=0 ");
    cr_assert(dv, "%s", text);
    const char *other = " device=NVIDIA%20H100 cc=9.0 sms=132 ";
    char fixed[1 << 16];
    snprintf(fixed, sizeof fixed, "%.*s%s%s", (int)(dv - text), text, other, dv + strlen(" device=none cc=0.0 sms=0 "));
    save(path, fixed);
    snprintf(path, sizeof path, "%s/shard_3_of_3/test.log", dir);
    snprintf(text, sizeof text, "%s", kc_out_file(path));
    dv = strstr(text, " device=none cc=0.0 sms=0 ");
    cr_assert(dv);
    snprintf(fixed, sizeof fixed, "%.*s%s%s", (int)(dv - text), text, " device=NVIDIA%20H200 cc=9.0 sms=132 ",
             dv + strlen(" device=none cc=0.0 sms=0 "));
    save(path, fixed);
    kc_proc_free(&m);
    m = fixture((char *[]){ "merge", "fixture.pass.*", "fixture.fail", "--log", dir, NULL });
    expect_refused(&m, "ran on 'NVIDIA H200' (cc 9.0, 132 SMs), shard 1/3 on 'NVIDIA H100' (cc 9.0, 132 SMs)");
    m = fixture((char *[]){ "merge", "fixture.pass.*", "fixture.fail", "--allow-mixed-gpus", "--log", dir, NULL });
    cr_expect_eq(m.status, 1, "exit %d\n%s", m.status, m.out);
    cr_expect(strstr(m.out, "\nSUMMARY "), "%s", m.out);
    kc_proc_free(&m);
    kc_proc_free(&s);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/shard_%d_of_3/test.log", dir, k + 1);
        unlink(path);
        snprintf(sub, sizeof sub, "%s/shard_%d_of_3", dir, k + 1);
        rmdir(sub);
    }
    rmdir(dir);
    unlink(json);
    unlink(junit);
}

/* A failing item's further lines ("    stale known finding: ...") come with
 * it into the merged list of failing items, from a serial shard and from a
 * shard run as a work queue (whose worker lines interleave, each tagged). */
Test(merge_logs, failing_items_keep_their_further_lines, .timeout = 120)
{
    char costs[128], log[2][128];
    snprintf(costs, sizeof costs, "%s/kc-merge-%ld-dcosts.tsv", kc_test_tmpdir(), (long)getpid());
    save(costs, "# kcontract costs v1\n");
    for (int jobs = 0; jobs < 2; jobs++) {
        for (int k = 0; k < 2; k++) {
            char spec[16];
            snprintf(spec, sizeof spec, "%d/2", k);
            snprintf(log[k], sizeof log[k], "%s/kc-merge-%ld-d%d.log", kc_test_tmpdir(), (long)getpid(), k);
            kc_proc p = kc_run_fake((char *[]){ "run", "fake.*", "--shard", spec, jobs ? "--jobs" : NULL, "2", "--costs",
                                                costs, NULL }, NULL, 90);
            save(log[k], p.out);
            kc_proc_free(&p);
        }
        kc_proc m = kc_run_fake((char *[]){ "merge", "fake.*", "--log", log[0], "--log", log[1], jobs ? "--costs" : NULL,
                                            costs, NULL }, NULL, 60);
        const char *at = strstr(m.out, "\nFAIL   fake.stale.f32  1 stale known finding (listed below)");
        const char *nl = at ? strchr(at + 1, '\n') : NULL;
        cr_expect(nl && strncmp(nl + 1, "    stale known finding: gate 3 on shapes edge.*", 48) == 0,
                  "%s: the merged FAIL line of fake.stale.f32 is not followed by its finding:\n%s",
                  jobs ? "--jobs 2 shards" : "serial shards", m.out);
        kc_proc_free(&m);
    }
    unlink(log[0]);
    unlink(log[1]);
    unlink(costs);
}

/* Issue 21: a shard's result is the TALLY line immediately before its
 * SUMMARY (docs/output-format.md); an item may print TALLY-like lines above
 * it (fixture.duptally prints a well-formed all-zero one, shard 0/1). The
 * merge read the first TALLY of each log and refused the shard holding
 * fixture.duptally as one that printed two, or of another shard count. */
Test(merge_logs, an_item_printing_a_tally_line_does_not_stand_for_the_result, .timeout = 60)
{
    char log[2][160];
    for (int k = 0; k < 2; k++) {
        char spec[16];
        snprintf(spec, sizeof spec, "%d/2", k);
        snprintf(log[k], sizeof log[k], "%s/kc-merge-dup-%ld-%d.log", kc_test_tmpdir(), (long)getpid(), k);
        kc_proc p = fixture((char *[]){ "run", "fixture.pass.*", "fixture.duptally", "--shard", spec, NULL });
        cr_assert_eq(p.status, 0, "shard %s: exit %d\n%s", spec, p.status, p.out);
        save(log[k], p.out);
        kc_proc_free(&p);
    }
    /* one of the logs holds the item's TALLY line above the run's own, kept
     * with the worker's prefix (a serial run's parent never lets an item's
     * line start as its TALLY does: issue 21) */
    int dup = 0;
    for (int k = 0; k < 2; k++) {
        const char *t = kc_out_file(log[k]);
        dup += kc_out_count_lines(t, "TALLY ") == 1 && kc_out_count_lines(t, "[w0] TALLY ") == 1;
    }
    cr_expect_eq(dup, 1, "expected one log with the item's TALLY line prefixed beside the run's");
    kc_proc s = fixture((char *[]){ "run", "fixture.pass.*", "fixture.duptally", NULL });
    char *args[] = { "merge", "fixture.pass.*", "fixture.duptally", "--log", log[0], "--log", log[1], NULL };
    kc_proc m = fixture(args);
    cr_expect_eq(m.status, 0, "merge: exit %d, expected 0\n%s%s", m.status, m.out, m.err);
    kc_tally a, b;
    kc_out_tally(s.out, &a);
    kc_out_tally(m.out, &b);
    cr_expect(memcmp(a.n, b.n, sizeof a.n) == 0, "the merged counts differ from the serial run's:\n%s", m.out);
    cr_expect_eq(b.items, 13, "items=%ld, expected 13", b.items);
    char sa[512], sb[512];
    kc_out_summary(s.out, sa, sizeof sa);
    kc_out_summary(m.out, sb, sizeof sb);
    cr_expect_str_eq(sb, sa);
    kc_proc_free(&s);
    kc_proc_free(&m);
    for (int k = 0; k < 2; k++) unlink(log[k]);
}

/* Runs `run A B --shard k/2 [extra[k]...]` through the fake driver for k = 0
 * and 1, saving each stdout as log[k] (tag names the files). */
static void fake_shard_logs(const char *a, const char *b, char **const extra[2], char log[2][160], const char *tag)
{
    for (int k = 0; k < 2; k++) {
        char spec[16];
        snprintf(spec, sizeof spec, "%d/2", k);
        snprintf(log[k], 160, "%s/kc-merge-%s-%ld-%d.log", kc_test_tmpdir(), tag, (long)getpid(), k);
        char *args[16] = { "run", (char *)a, (char *)b, "--shard", spec };
        int n = 5;
        for (int i = 0; extra[k] && extra[k][i]; i++) args[n++] = extra[k][i];
        args[n] = NULL;
        kc_proc p = kc_run_fake(args, NULL, 60);
        save(log[k], p.out);
        kc_proc_free(&p);
    }
}

/* `merge A B --log log[0] --log log[1]` through the fake driver. */
static kc_proc fake_merge(const char *a, const char *b, char log[2][160])
{
    return kc_run_fake((char *[]){ "merge", (char *)a, (char *)b, "--log", log[0], "--log", log[1], NULL }, NULL, 60);
}

/* The merged run of shards that ran with option `opt` (the same on both)
 * equals the unsharded run with it: counts, exit status and the option in
 * its TALLY (want, e.g. " block=128 "). */
static void expect_merged_as_run(const char *a, const char *b, char **opt, char log[2][160], const char *want)
{
    char *args[8] = { "run", (char *)a, (char *)b };
    int n = 3;
    for (int i = 0; opt[i]; i++) args[n++] = opt[i];
    args[n] = NULL;
    kc_proc s = kc_run_fake(args, NULL, 60);
    kc_proc m = fake_merge(a, b, log);
    cr_expect_eq(m.status, s.status, "merge exit %d, the unsharded run's %d\n%s", m.status, s.status, m.out);
    char tm[4096], ts[4096];
    cr_assert_eq(kc_out_line(m.out, "TALLY ", tm, sizeof tm), 0, "no merged TALLY:\n%s", m.out);
    cr_assert_eq(kc_out_line(s.out, "TALLY ", ts, sizeof ts), 0, "no TALLY:\n%s", s.out);
    cr_expect(strstr(tm, want), "the merged TALLY does not say '%s': %s", want, tm);
    cr_expect(strstr(ts, want), "the run's TALLY does not say '%s': %s", want, ts);
    kc_tally x, y;
    kc_out_tally(s.out, &x);
    kc_out_tally(m.out, &y);
    cr_expect(memcmp(x.n, y.n, sizeof x.n) == 0 && x.items == y.items, "counts differ:\n%s\n%s", ts, tm);
    kc_proc_free(&s);
    kc_proc_free(&m);
}

/* A shard run with --block-size B checks launch variant B alone: its pass
 * says nothing of the variants the other shards checked. The repro: shard
 * 1/2 ran fakeblock.short.f32 (wrong at block size 256) with --block-size
 * 128, passed, and the merge read 2 pass, exit 0, where the unsharded run
 * FAILs. Refused now, naming the option, both values and both shards; the
 * same --block-size on every shard merges, as the run with it. */
Test(merge_logs, shards_run_with_another_block_size_refused, .timeout = 120)
{
    const char *a = "fakeblock.short.f32", *b = "fakeblock.axpy.f32";
    char log[2][160];
    kc_proc s = kc_run_fake((char *[]){ "run", (char *)a, (char *)b, NULL }, NULL, 60);
    cr_expect_eq(s.status, 1, "the unsharded run fails %s at its default block size: exit %d\n%s", a, s.status, s.out);
    kc_proc_free(&s);
    char *b128[] = { "--block-size", "128", NULL };
    fake_shard_logs(a, b, (char **const[]){ NULL, b128 }, log, "block");
    cr_expect(strstr(kc_out_file(log[1]), "\nPASS   fakeblock.short.f32  "), "shard 1/2 passes it at 128:\n%s",
              kc_out_file(log[1]));
    kc_proc m = fake_merge(a, b, log);
    expect_refused(&m, "shard 1/2: ran with --block-size 128 (block=128), shard 0/2 with no --block-size, every launch "
                       "variant (block=0): shards merge only when run with the same --block-size (TALLY block=)");
    fake_shard_logs(a, b, (char **const[]){ b128, b128 }, log, "block");
    expect_merged_as_run(a, b, b128, log, " block=128 ");
    for (int k = 0; k < 2; k++) unlink(log[k]);
}

/* Likewise --reference: fakeref.fault.f32's device reference faults, so it
 * FAILs by default and passes with --reference host. */
Test(merge_logs, shards_run_with_another_reference_refused, .timeout = 120)
{
    const char *a = "fakeblock.axpy.f32", *b = "fakeref.fault.f32";
    char log[2][160];
    char *host[] = { "--reference", "host", NULL };
    fake_shard_logs(a, b, (char **const[]){ NULL, host }, log, "ref");
    cr_expect(strstr(kc_out_file(log[1]), "\nPASS   fakeref.fault.f32  "), "shard 1/2 passes it with the host's:\n%s",
              kc_out_file(log[1]));
    kc_proc m = fake_merge(a, b, log);
    expect_refused(&m, "shard 1/2: ran with --reference host (reference=host), shard 0/2 with --reference device "
                       "(reference=device): shards merge only when run with the same --reference (TALLY reference=)");
    fake_shard_logs(a, b, (char **const[]){ host, host }, log, "ref");
    expect_merged_as_run(a, b, host, log, " reference=host ");
    for (int k = 0; k < 2; k++) unlink(log[k]);
}

/* A shard run under another CUDA environment (here NVIDIA_TF32_OVERRIDE=0,
 * TF32 math off in cuBLAS: gate 3) is another run, whatever its options
 * say: the merge is refused, naming the TALLY's env= of both; shards run
 * under the same one merge. */
/* The refusal's suggested command, run under an environment with a
 * variable that counts and ones that do not (cuda_env.h), lists only the
 * one that counts: the hosts' outputs then differ exactly where env= does. */
static void expect_suggested_env_lists_what_counts(const char *out)
{
    const char *at = strstr(out, "compare `");
    cr_assert(at, "no command suggested:\n%s", out);
    at += strlen("compare `");
    const char *end = strchr(at, '`');
    cr_assert(end, "the suggested command is not closed:\n%s", out);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "env -i NVIDIA_TF32_OVERRIDE=0 CUDA_HOME=/opt/cuda CUDA_VISIBLE_DEVICES=1 "
             "CUDA_VERSION=13.0 CUDA_HOMEWORK=1 sh -c \"%.*s\"", (int)(end - at), at);
    FILE *f = popen(cmd, "r");
    cr_assert(f, "cannot run %s", cmd);
    char got[400] = "";
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = 0;
    pclose(f);
    cr_expect_str_eq(got, "CUDA_HOMEWORK=1\nNVIDIA_TF32_OVERRIDE=0\n", "`%s` printed:\n%s", cmd, got);
}

Test(merge_logs, shards_run_under_another_cuda_environment_refused, .timeout = 120)
{
    const char *a = "fakeblock.axpy.f32", *b = "fake.copy.f16";
    char log[2][160];
    char *tf32[] = { "NVIDIA_TF32_OVERRIDE=0", NULL };
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 2; k++) {
            char spec[16];
            snprintf(spec, sizeof spec, "%d/2", k);
            snprintf(log[k], 160, "%s/kc-merge-env-%ld-%d.log", kc_test_tmpdir(), (long)getpid(), k);
            kc_proc p = kc_run_fake((char *[]){ "run", (char *)a, (char *)b, "--shard", spec, NULL },
                                    k == 1 || round == 1 ? tf32 : NULL, 60);
            save(log[k], p.out);
            kc_proc_free(&p);
        }
        kc_proc m = fake_merge(a, b, log);
        if (round == 0) {
            cr_expect(strstr(m.out, ", shard 0/2 under ") && strstr(m.out, " (TALLY env="), "%s", m.out);
            expect_suggested_env_lists_what_counts(m.out);
            expect_refused(&m, "shard 1/2: ran under CUDA environment ");     /* frees m */
        } else {
            cr_expect_eq(m.status, 0, "shards under one CUDA environment: exit %d\n%s%s", m.status, m.out, m.err);
            cr_expect(strstr(m.out, " env="), "the merged TALLY does not say it:\n%s", m.out);
            kc_proc_free(&m);
        }
    }
    for (int k = 0; k < 2; k++) unlink(log[k]);
}

/* A copy of the shared object `from` at `to`, modified at `when` (0: now). */
static void install_lib(const char *from, const char *to, time_t when)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    cr_assert(in && out, "cannot copy %s to %s", from, to);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) cr_assert_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
    struct timespec ts[2] = { { .tv_sec = when }, { .tv_sec = when } };
    if (when) cr_assert_eq(utimensat(AT_FDCWD, to, ts, 0), 0, "utimensat %s", to);
}

/* The host code the TALLY in out says (host=), or "" none. */
static void tally_host(const char *out, char *buf, size_t cap)
{
    const char *h = strstr(out, "\nTALLY ");
    h = h ? strstr(h, " host=") : NULL;
    snprintf(buf, cap, "%.*s", h ? (int)strspn(h + 6, "0123456789abcdef") : 0, h ? h + 6 : "");
}

/* A user's suite links the harness as a shared library (libkcontract.so.N:
 * pkg-config's and CMake's default, docs/own-kernels.md), whose code is part
 * of the TALLY's host= (host_code.h). Hosts that each install it from one
 * commit hold the same bytes at another path, modified at another time: one
 * host code, so their shards merge (docs/multi-host.md); they were refused,
 * host= counting the library by path, size and modification time. A library
 * of other bytes is other host code: refused. `version` says the TALLY's
 * host=. LD_PRELOAD stands in for the link: a library named like the harness
 * counts. */
Test(merge_logs, shards_with_the_harness_library_installed_apart_merge, .timeout = 120)
{
    const char *a = "fakeblock.axpy.f32", *b = "fake.copy.f16";
    const char *from[3] = { "build/lib/libkc_fakelib.so", "build/lib/libkc_fakelib.so",
                            "build/lib/libkc_fakelib@skip_last.so" };
    char dir[512], lib[3][600], pre[3][640], log[2][160], host[2][32];
    kc_tmp_dir(dir, sizeof dir, "merge-solib");
    for (int i = 0; i < 3; i++) {
        char sub[560];
        snprintf(sub, sizeof sub, "%s/host%d", dir, i);
        cr_assert_eq(mkdir(sub, 0700), 0, "mkdir %s", sub);
        snprintf(lib[i], sizeof lib[i], "%s/libkcontract.so", sub);
        install_lib(from[i], lib[i], i == 1 ? 1000000000 : 0);
        snprintf(pre[i], sizeof pre[i], "LD_PRELOAD=%s/libkcontract.so", sub);
    }
    static char asan[2048];
    const char *ao = getenv("ASAN_OPTIONS");        /* tools/sanitize-test.sh: a library before the runtime */
    if (ao) snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s:verify_asan_link_order=0", ao);
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 2; k++) {
            char spec[16];
            snprintf(spec, sizeof spec, "%d/2", k);
            snprintf(log[k], 160, "%s/kc-merge-solib-%ld-%d.log", kc_test_tmpdir(), (long)getpid(), k);
            kc_proc p = kc_run_fake((char *[]){ "run", (char *)a, (char *)b, "--shard", spec, NULL },
                                    (char *[]){ pre[k == 0 ? 0 : 1 + round], ao ? asan : NULL, NULL }, 60);
            save(log[k], p.out);
            tally_host(p.out, host[k], sizeof host[k]);
            cr_expect(host[k][0], "shard %d/2 says no host=:\n%s", k, p.out);
            kc_proc_free(&p);
        }
        kc_proc m = fake_merge(a, b, log);
        if (round == 0) {
            cr_expect_str_eq(host[0], host[1], "one library's bytes at %s and %s: other host code", lib[0], lib[1]);
            cr_expect_eq(m.status, 0, "shards of one harness library installed apart: exit %d\n%s%s", m.status, m.out,
                         m.err);
            kc_proc_free(&m);
            kc_proc v = kc_run_fake((char *[]){ "version", NULL }, (char *[]){ pre[0], ao ? asan : NULL, NULL }, 60);
            char want[64];
            snprintf(want, sizeof want, ", host code %s)", host[0]);
            cr_expect(strstr(v.out, want), "version does not say the TALLY's host=%s: %s", host[0], v.out);
            kc_proc_free(&v);
        } else {
            expect_refused(&m, "shard 1/2: ran host code ");     /* frees m */
        }
    }
    for (int k = 0; k < 2; k++) unlink(log[k]);
    kc_rm_rf(dir);
}

/* A log of a kcontract before TALLY v=4 cannot say the options its shard
 * ran with: refused as an older kcontract's, not as a malformed line, and
 * never read as a run with the default options. */
Test(merge_logs, a_log_of_an_older_kcontract_refused_as_such, .timeout = 60)
{
    char log[3][128];
    for (int k = 0; k < 3; k++) shard_log(k, 3, NULL, log);
    edit_log(log[1], "TALLY v=4 ", "TALLY v=3 ");
    edit_log(log[1], " block=0 reference=device timeout=0", "");
    kc_proc p = merge(NULL, (const char *[]){ log[0], log[1], log[2] }, 3);
    expect_refused(&p, ": TALLY version 3 not supported (want 4): written by an older kcontract, whose TALLY does not "
                       "say the run options that change verdicts (block=, reference=, timeout=); run that shard again "
                       "with this binary");
    for (int k = 0; k < 3; k++) unlink(log[k]);
}
