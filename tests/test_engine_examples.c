/* test_engine_examples.c — the engine examples under docs/examples hold to
 * the shard protocol they rely on, run as they say with the fixture binary:
 * the Kubernetes Indexed Job (JOB_COMPLETION_INDEX, KC_SHARDS equal to
 * spec.completions, --shard auto, one log per pod on a shared volume, an
 * index run by two pods) and the GitHub Actions matrix (shards 0..N-1,
 * --shard K/N, one artifact directory per shard). Each merges from the
 * directory into the serial run's SUMMARY. (Slurm and Bazel run for real in
 * tools/ci/slurm.sh and tools/ci/bazel.sh.) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/spawn.h"

static char *read_text(const char *path)
{
    const char *t = kc_out_file(path);
    char *s = strdup(t);
    cr_assert(s);
    return s;
}

/* The integer after `key` in text, which must be there. */
static int int_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    cr_assert(p, "'%s' not in the example", key);
    return atoi(p + strlen(key));
}

static void expect_serial_summary(const char *merged_out, int merged_status)
{
    kc_proc s = kc_run_fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", NULL }, 60);
    char sa[512], sb[512];
    kc_out_summary(s.out, sa, sizeof sa);
    kc_out_summary(merged_out, sb, sizeof sb);
    cr_expect_str_eq(sb, sa);
    cr_expect_eq(merged_status, s.status, "merge exit %d, serial %d\n%s", merged_status, s.status, merged_out);
    kc_proc_free(&s);
}

Test(engine_examples, kubernetes_indexed_job, .timeout = 180)
{
    char *m = read_text("docs/examples/kcontract-indexed-job.yaml");
    cr_expect(strstr(m, "completionMode: Indexed"), "not an Indexed Job");
    int completions = int_after(m, "\n  completions: ");
    const char *ks = strstr(m, "- name: KC_SHARDS\n");
    cr_assert(ks, "the manifest does not set KC_SHARDS");
    int shards = int_after(ks, "value: \"");
    cr_expect_eq(shards, completions, "KC_SHARDS=%d, but spec.completions is %d", shards, completions);
    cr_expect(strstr(m, "--shard auto") && strstr(m, "$JOB_COMPLETION_INDEX-$HOSTNAME.log"), "%s", m);
    /* Each pod, as the manifest runs it (--jobs 2 here), its log on the volume. */
    char dir[96], path[200], idx[32], ns[32];
    snprintf(dir, sizeof dir, "%s/kc-k8s-%ld", kc_test_tmpdir(), (long)getpid());
    mkdir(dir, 0755);
    snprintf(ns, sizeof ns, "KC_SHARDS=%d", shards);
    for (int k = 0; k < shards; k++) {
        snprintf(idx, sizeof idx, "JOB_COMPLETION_INDEX=%d", k);
        kc_proc p = kc_run_fixture_env((char *[]){ "run", "fixture.pass.*", "fixture.fail", "--shard", "auto", "--jobs", "2",
                                                   NULL }, (char *[]){ idx, ns, NULL }, 90);
        char said[160];
        snprintf(said, sizeof said, "kcontract-fixture: shard %d/%d from the variables of Kubernetes "
                 "(JOB_COMPLETION_INDEX=%d KC_SHARDS=%d)", k, shards, k, shards);
        cr_expect(strncmp(p.out, said, strlen(said)) == 0, "first line:\n%s", p.out);
        snprintf(path, sizeof path, "%s/shard-%d-kcontract-shards-%d-abcde.log", dir, k, k);
        kc_write_file(path, p.out);
        if (k == 1) {   /* index 1 ran in a second pod too */
            snprintf(path, sizeof path, "%s/shard-%d-kcontract-shards-%d-fghij.log", dir, k, k);
            kc_write_file(path, p.out);
        }
        kc_proc_free(&p);
    }
    kc_proc g = kc_run_fixture((char *[]){ "merge", "fixture.pass.*", "fixture.fail", "--log", dir, NULL }, 60);
    cr_expect(strstr(g.out, "is a second run of it with the same TALLY"), "%s", g.out);
    expect_serial_summary(g.out, g.status);
    kc_proc_free(&g);
    /* A manifest without KC_SHARDS: each pod refuses, naming it. */
    kc_proc p = kc_run_fixture_env((char *[]){ "run", "fixture.pass.*", "--shard", "auto", NULL },
                                   (char *[]){ "JOB_COMPLETION_INDEX=0", NULL }, 90);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "JOB_COMPLETION_INDEX=0 is set but KC_SHARDS is not"), "%s", p.err);
    kc_proc_free(&p);
    for (int k = 0; k < shards; k++) {
        snprintf(path, sizeof path, "%s/shard-%d-kcontract-shards-%d-abcde.log", dir, k, k);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/shard-1-kcontract-shards-1-fghij.log", dir);
    unlink(path);
    rmdir(dir);
    free(m);
}

Test(engine_examples, github_actions_matrix, .timeout = 180)
{
    char *y = read_text("docs/examples/github-actions-shards.yml");
    const char *l = strstr(y, "shard: [");
    cr_assert(l, "no matrix of shards");
    int n = 0;
    for (const char *p = l + 8; *p && *p != ']'; p++)
        if (*p >= '0' && *p <= '9') {
            cr_expect_eq(atoi(p), n, "the matrix must list 0..N-1: entry %d is %d", n, atoi(p));
            n++;
            while (p[1] >= '0' && p[1] <= '9') p++;
        }
    int total = int_after(y, "--shard ${{ matrix.shard }}/");
    cr_expect_eq(total, n, "--shard K/%d, but the matrix has %d entries", total, n);
    cr_expect(strstr(y, "--log logs"), "%s", y);
    /* Each job, as the workflow runs it (--jobs 2 here), its artifact in its own directory. */
    char dir[96], sub[160], path[200], spec[32];
    snprintf(dir, sizeof dir, "%s/kc-gha-%ld", kc_test_tmpdir(), (long)getpid());
    mkdir(dir, 0755);
    for (int k = 0; k < n; k++) {
        snprintf(spec, sizeof spec, "%d/%d", k, total);
        kc_proc p = kc_run_fixture((char *[]){ "run", "fixture.pass.*", "fixture.fail", "--shard", spec, "--jobs", "2", NULL }, 90);
        snprintf(sub, sizeof sub, "%s/shard-%d", dir, k);
        mkdir(sub, 0755);
        snprintf(path, sizeof path, "%s/shard-%d.log", sub, k);
        kc_write_file(path, p.out);
        kc_proc_free(&p);
    }
    char junit[128];
    snprintf(junit, sizeof junit, "%s.xml", dir);
    kc_proc g = kc_run_fixture((char *[]){ "merge", "fixture.pass.*", "fixture.fail", "--log", dir, "--junit", junit, NULL }, 60);
    expect_serial_summary(g.out, g.status);
    cr_expect(strstr(kc_out_file(junit), "fixture.fail"), "no JUnit report");
    kc_proc_free(&g);
    for (int k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/shard-%d/shard-%d.log", dir, k, k);
        unlink(path);
        snprintf(sub, sizeof sub, "%s/shard-%d", dir, k);
        rmdir(sub);
    }
    rmdir(dir);
    unlink(junit);
    free(y);
}

/* The guide's recipes are the tested ones: it quotes the Bazel target and
 * script CI runs, the manifest's and the workflow's commands, and the sbatch
 * options tools/ci/slurm.sh submits with. */
Test(engine_examples, the_guide_quotes_the_tested_recipes)
{
    char *g = read_text("docs/multi-host.md");
    char *b = read_text("tools/ci/bazel/BUILD");
    const char *blk = strstr(b, "sh_test(\n    name = \"kc_pass\",");
    cr_assert(blk, "no kc_pass in tools/ci/bazel/BUILD");
    const char *end = strstr(blk, "\n)\n");
    cr_assert(end);
    char want[512];
    snprintf(want, sizeof want, "%.*s", (int)(end + 3 - blk), blk);
    cr_expect(strstr(g, want), "the guide does not quote tools/ci/bazel/BUILD's target:\n%s", want);
    char *s = read_text("tools/ci/bazel/kc_shard.sh");
    const char *cmd = "set -f\nexec \"$KC_BIN\" run $KC_PATTERNS \"$@\"\n";
    cr_expect(strstr(s, cmd) && strstr(g, cmd), "kc_shard.sh and the guide differ");
    char *m = read_text("docs/examples/kcontract-indexed-job.yaml");
    const char *a = strstr(m, "            - ./build/kcontract run");
    cr_assert(a);
    const char *ae = strchr(a, '\n');
    snprintf(want, sizeof want, "%.*s", (int)(ae - a - 14), a + 14);
    cr_expect(strstr(g, want), "the guide does not quote the manifest's command: %s", want);
    char *y = read_text("docs/examples/github-actions-shards.yml");
    a = strstr(y, "run: ./build/kcontract run --shard");
    cr_assert(a);
    ae = strchr(a, '\n');
    snprintf(want, sizeof want, "%.*s", (int)(ae - a - 5), a + 5);
    cr_expect(strstr(g, want), "the guide does not quote the workflow's command: %s", want);
    char *sl = read_text("tools/ci/slurm.sh");
    cr_expect(strstr(sl, "sbatch --array=\"$2\" --wait --quiet --export=ALL --output=\"$W/$1-%a.log\"") &&
              strstr(sl, "--shard auto"), "tools/ci/slurm.sh no longer submits as the guide says");
    cr_expect(strstr(g, "sbatch --array=0-3 --wait --output=shard-%a.log --wrap \"./build/kcontract run 'rmsnorm.*' --shard auto"),
              "the guide's sbatch line changed");
    free(g); free(b); free(s); free(m); free(y); free(sl);
}
