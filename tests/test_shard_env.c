/* test_shard_env.c — the engines' shard protocols (shard_env.h): K/N from
 * Bazel's, GoogleTest's, Slurm's and Kubernetes' variables, each refusal the
 * protocols call for (naming the variables and values), and, with real
 * processes of the fixture binary, --shard auto, a run honouring Bazel's
 * variables without a flag (said on its first line, the status file
 * touched), a --jobs run whose workers do not shard again, and Bazel's
 * TEST_PREMATURE_EXIT_FILE and XML_OUTPUT_FILE. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shard_env.h"
#include "support/run_output.h"
#include "support/spawn.h"

/* An environment as a NULL-ended list of "NAME=value". */
static const char *table_get(const char *name, void *ctx)
{
    size_t n = strlen(name);
    for (const char *const *e = ctx; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

static kc_env_shard read_ok(const char *const *env, int implicit_only)
{
    kc_env_shard s;
    char err[1024] = "";
    int rc = kc_env_shard_read(table_get, (void *)env, implicit_only, &s, err, sizeof err);
    cr_assert_eq(rc, 0, "refused: %s", err);
    return s;
}

static void refused(const char *const *env, const char *want)
{
    kc_env_shard s;
    char err[1024] = "";
    cr_expect_eq(kc_env_shard_read(table_get, (void *)env, 0, &s, err, sizeof err), -1, "accepted (want '%s')", want);
    cr_expect(strstr(err, want), "want '%s' in '%s'", want, err);
}

Test(shard_env, each_engine_gives_k_and_n)
{
    kc_env_shard s = read_ok((const char *[]){ "TEST_SHARD_INDEX=2", "TEST_TOTAL_SHARDS=4",
                                               "TEST_SHARD_STATUS_FILE=/tmp/x", NULL }, 0);
    cr_expect(s.found && s.k == 2 && s.n == 4, "%d %d/%d", s.found, s.k, s.n);
    cr_expect_str_eq(s.engine, "Bazel");
    cr_expect_str_eq(s.status_file, "/tmp/x");
    s = read_ok((const char *[]){ "GTEST_SHARD_INDEX=0", "GTEST_TOTAL_SHARDS=1", NULL }, 0);
    cr_expect(s.found && s.k == 0 && s.n == 1);
    cr_expect_str_eq(s.engine, "GoogleTest");
    s = read_ok((const char *[]){ "SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_MIN=0",
                                  "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_STEP=1", "SLURM_JOB_ID=77", NULL }, 0);
    cr_expect(s.found && s.k == 3 && s.n == 4);
    cr_expect_str_eq(s.engine, "Slurm");
    cr_expect_str_eq(s.status_file, "");
    s = read_ok((const char *[]){ "JOB_COMPLETION_INDEX=5", "KC_SHARDS=8", NULL }, 0);
    cr_expect(s.found && s.k == 5 && s.n == 8);
    cr_expect_str_eq(s.engine, "Kubernetes");
    cr_expect_str_eq(s.vars, "JOB_COMPLETION_INDEX=5 KC_SHARDS=8");
    /* Bazel's test runner sets GoogleTest's too, equal: one shard, both named. */
    s = read_ok((const char *[]){ "TEST_SHARD_INDEX=1", "TEST_TOTAL_SHARDS=3", "GTEST_SHARD_INDEX=1",
                                  "GTEST_TOTAL_SHARDS=3", "GTEST_SHARD_STATUS_FILE=/tmp/g", NULL }, 0);
    cr_expect(s.found && s.k == 1 && s.n == 3);
    cr_expect_str_eq(s.engine, "Bazel and GoogleTest");
    cr_expect_str_eq(s.status_file, "/tmp/g");
    /* None: not found, no refusal (a run without --shard runs everything). */
    s = read_ok((const char *[]){ "PATH=/bin", "SLURM_JOB_ID=5", NULL }, 0);
    cr_expect_eq(s.found, 0);
    /* Without a flag only Bazel's and GoogleTest's count. */
    s = read_ok((const char *[]){ "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_COUNT=2", "JOB_COMPLETION_INDEX=1",
                                  "KC_SHARDS=2", NULL }, 1);
    cr_expect_eq(s.found, 0);
}

Test(shard_env, refusals_name_the_variables)
{
    /* gtest's rules: one of the pair missing, an index out of range. */
    refused((const char *[]){ "GTEST_SHARD_INDEX=1", NULL }, "GTEST_SHARD_INDEX=1 is set but GTEST_TOTAL_SHARDS is not");
    refused((const char *[]){ "TEST_TOTAL_SHARDS=4", NULL }, "TEST_TOTAL_SHARDS=4 is set but TEST_SHARD_INDEX is not");
    refused((const char *[]){ "GTEST_SHARD_INDEX=4", "GTEST_TOTAL_SHARDS=4", NULL },
            "GTEST_SHARD_INDEX=4 is out of range: GTEST_TOTAL_SHARDS=4 gives shards 0..3");
    refused((const char *[]){ "TEST_SHARD_INDEX=0", "TEST_TOTAL_SHARDS=0", NULL }, "TEST_TOTAL_SHARDS='0'");
    refused((const char *[]){ "TEST_SHARD_INDEX=-1", "TEST_TOTAL_SHARDS=2", NULL }, "TEST_SHARD_INDEX='-1'");
    refused((const char *[]){ "TEST_SHARD_INDEX=01", "TEST_TOTAL_SHARDS=2", NULL }, "TEST_SHARD_INDEX='01'");
    refused((const char *[]){ "TEST_SHARD_INDEX=0", "TEST_TOTAL_SHARDS=4097", NULL }, "from 1 to 4096");
    /* Slurm: --array=0-6:2 gives ids 0,2,4,6 with a count of 4. */
    refused((const char *[]){ "SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_MIN=0",
                              "SLURM_ARRAY_TASK_MAX=6", "SLURM_ARRAY_TASK_STEP=2", NULL },
            "SLURM_ARRAY_TASK_STEP=2: a shard array's task ids must be 0..3 in steps of 1");
    refused((const char *[]){ "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_MIN=1",
                              "SLURM_ARRAY_TASK_MAX=3", NULL }, "SLURM_ARRAY_TASK_MIN=1");
    refused((const char *[]){ "SLURM_ARRAY_TASK_ID=6", "SLURM_ARRAY_TASK_COUNT=4", NULL },
            "SLURM_ARRAY_TASK_ID=6 is out of range: SLURM_ARRAY_TASK_COUNT=4 gives shards 0..3");
    refused((const char *[]){ "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_MAX=3", NULL },
            "SLURM_ARRAY_TASK_MAX=3");
    /* Kubernetes passes no count. */
    refused((const char *[]){ "JOB_COMPLETION_INDEX=2", NULL }, "JOB_COMPLETION_INDEX=2 is set but KC_SHARDS is not");
    refused((const char *[]){ "KC_SHARDS=2", NULL }, "KC_SHARDS=2 is set but JOB_COMPLETION_INDEX is not");
    /* Two engines that disagree. */
    refused((const char *[]){ "TEST_SHARD_INDEX=1", "TEST_TOTAL_SHARDS=4", "GTEST_SHARD_INDEX=2", "GTEST_TOTAL_SHARDS=4", NULL },
            "the variables of Bazel and GoogleTest disagree: TEST_SHARD_INDEX=1 TEST_TOTAL_SHARDS=4 (shard 1/4), but "
            "GTEST_SHARD_INDEX=2 GTEST_TOTAL_SHARDS=4 (shard 2/4)");
    refused((const char *[]){ "SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_COUNT=2", "JOB_COMPLETION_INDEX=0", "KC_SHARDS=3", NULL },
            "the variables of Slurm and Kubernetes disagree");
}

/* The fixture binary with extra environment entries "NAME=value" (and no GPU). */
static kc_proc fixture_env(char **env, char **args)
{
    return kc_run_fixture_env(args, env, 90);
}

Test(shard_env, runs_follow_the_protocols, .timeout = 120)
{
    char status[128];
    snprintf(status, sizeof status, "%s/kc-shard-env-%ld.status", kc_test_tmpdir(), (long)getpid());
    unlink(status);
    char st[160];
    snprintf(st, sizeof st, "TEST_SHARD_STATUS_FILE=%s", status);
    /* Bazel's variables without a flag: the slice, said first, status touched. */
    kc_proc p = fixture_env((char *[]){ "TEST_SHARD_INDEX=1", "TEST_TOTAL_SHARDS=3", st, NULL },
                            (char *[]){ "run", "fixture.pass.*", NULL });
    cr_expect(strncmp(p.out, "kcontract-fixture: shard 1/3 from the variables of Bazel (TEST_SHARD_INDEX=1 TEST_TOTAL_SHARDS=3); "
                             "no --shard was given", 100) == 0, "first line:\n%s", p.out);
    cr_expect(strstr(p.out, " shard=1/3 "), "%s", p.out);
    struct stat sb;
    cr_expect_eq(stat(status, &sb), 0, "%s was not created", status);
    kc_proc_free(&p);
    /* --shard auto from a Slurm array and a Kubernetes index, equal to --shard K/N. */
    kc_proc want = kc_run_fixture((char *[]){ "run", "fixture.pass.*", "--shard", "2/4", NULL }, 60);
    kc_tally tw, tg;
    kc_out_tally(want.out, &tw);
    p = fixture_env((char *[]){ "SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_MIN=0",
                                "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_STEP=1", NULL },
                    (char *[]){ "run", "fixture.pass.*", "--shard", "auto", NULL });
    kc_out_tally(p.out, &tg);
    cr_expect(kc_tally_counts_equal(&tw, &tg) && tg.shard_k == 2 && tg.shard_n == 4, "%s", p.out);
    kc_proc_free(&p);
    p = fixture_env((char *[]){ "JOB_COMPLETION_INDEX=2", "KC_SHARDS=4", NULL },
                    (char *[]){ "run", "fixture.pass.*", "--shard", "auto", "--jobs", "2", NULL });
    kc_out_tally(p.out, &tg);
    cr_expect(kc_tally_counts_equal(&tw, &tg) && tg.shard_k == 2 && tg.shard_n == 4, "%s", p.out);
    kc_proc_free(&p);
    kc_proc_free(&want);
    /* --shard auto with no engine: refused, naming what it looked for. */
    p = kc_run_fixture((char *[]){ "run", "fixture.pass.*", "--shard", "auto", NULL }, 60);
    cr_expect_eq(p.status, 2, "%s", p.out);
    cr_expect(strstr(p.err, "--shard auto: no engine's shard variables are set"), "%s", p.err);
    kc_proc_free(&p);
    p = fixture_env((char *[]){ "GTEST_SHARD_INDEX=3", "GTEST_TOTAL_SHARDS=3", NULL }, (char *[]){ "run", "fixture.pass.*", NULL });
    cr_expect_eq(p.status, 2, "%s", p.out);
    cr_expect(strstr(p.err, "GTEST_SHARD_INDEX=3 is out of range"), "%s", p.err);
    kc_proc_free(&p);
    unlink(status);
}

/* No worker of a --jobs run sees the variables: a worker that sharded again
 * would run a slice of its items and the counts would not add up. The
 * fixture suite fixture.env.shard fails when it sees any of them. */
Test(shard_env, workers_do_not_see_the_variables, .timeout = 120)
{
    kc_proc p = fixture_env((char *[]){ "TEST_SHARD_INDEX=0", "TEST_TOTAL_SHARDS=1", "GTEST_SHARD_INDEX=0",
                                        "GTEST_TOTAL_SHARDS=1", NULL },
                            (char *[]){ "run", "fixture.env.shard", "fixture.pass.0*", "--jobs", "2", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "PASS   fixture.env.shard"), "%s", p.out);
    kc_proc_free(&p);
    /* The same suite fails where the variables are seen: it tests something. */
    p = fixture_env((char *[]){ "TEST_SHARD_INDEX=0", "TEST_TOTAL_SHARDS=1", NULL },
                    (char *[]){ "run", "fixture.env.shard", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "FAIL   fixture.env.shard") && strstr(p.out, "TEST_SHARD_INDEX=0"), "%s", p.out);
    kc_proc_free(&p);
}

/* ---- issue 21: Bazel's TEST_PREMATURE_EXIT_FILE and XML_OUTPUT_FILE ---- */

/* The file exists from the run's start until it reaches its end (whatever
 * its exit status): a run killed in the middle (SIGKILL by the test
 * runner's time limit, while an item hangs) leaves it, so the test runner
 * fails the test. An item that ends its worker with status 0 does not end
 * the run (issue 21): the run reaches its end and fails. */
Test(shard_env, premature_exit_file_marks_a_run_that_did_not_reach_its_end, .timeout = 60)
{
    char dir[256], file[300], env[340];
    kc_tmp_dir(dir, sizeof dir, "premature");
    snprintf(file, sizeof file, "%s/premature", dir);
    snprintf(env, sizeof env, "TEST_PREMATURE_EXIT_FILE=%s", file);
    kc_proc p = fixture_env((char *[]){ env, NULL }, (char *[]){ "run", "fixture.pass.00", NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_neq(access(file, F_OK), 0, "a run that reached its end (exit 0) left %s", file);
    kc_proc_free(&p);
    p = fixture_env((char *[]){ env, NULL }, (char *[]){ "run", "fixture.fail", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_neq(access(file, F_OK), 0, "a run that reached its end (exit 1) left %s", file);
    kc_proc_free(&p);
    p = fixture_env((char *[]){ env, NULL }, (char *[]){ "run", "fixture.silent", "fixture.pass.00", NULL });
    cr_expect_eq(p.status, 1, "fixture.silent is a CRASH: exit %d\n%s", p.status, p.out);
    cr_expect_neq(access(file, F_OK), 0, "a run that reached its end (exit 1) left %s", file);
    kc_proc_free(&p);
    p = kc_run_fixture_env((char *[]){ "run", "fixture.hang.0", NULL }, (char *[]){ env, NULL }, 1.5);
    cr_expect(p.signaled, "killed by the test's time limit: exit %d\n%s", p.status, p.out);
    cr_expect(!strstr(p.out, "\nSUMMARY "), "the run ended before its SUMMARY:\n%s", p.out);
    cr_expect_eq(access(file, F_OK), 0, "a run killed mid-item (no SUMMARY) did not leave %s", file);
    kc_proc_free(&p);
    unlink(file);
    /* a --jobs run: its parent ends it */
    p = fixture_env((char *[]){ env, NULL }, (char *[]){ "run", "fixture.pass.0*", "fixture.silent", "--jobs", "2", NULL });
    cr_expect_eq(p.status, 1, "fixture.silent is a CRASH in a worker: exit %d\n%s", p.status, p.out);
    cr_expect_neq(access(file, F_OK), 0, "a --jobs run that reached its end left %s", file);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* XML_OUTPUT_FILE gets the JUnit report when no --junit is given; --junit
 * wins over it. */
Test(shard_env, xml_output_file_gets_the_junit_report, .timeout = 60)
{
    char dir[256], xml[300], env[340], junit[300];
    kc_tmp_dir(dir, sizeof dir, "xmlout");
    snprintf(xml, sizeof xml, "%s/test.xml", dir);
    snprintf(junit, sizeof junit, "%s/given.xml", dir);
    snprintf(env, sizeof env, "XML_OUTPUT_FILE=%s", xml);
    kc_proc p = fixture_env((char *[]){ env, NULL }, (char *[]){ "run", "fixture.pass.00", "fixture.fail", NULL });
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    cr_assert_eq(access(xml, F_OK), 0, "XML_OUTPUT_FILE=%s was not written", xml);
    const char *x = kc_out_file(xml);
    cr_expect(strstr(x, "<testsuites name=\"kcontract-fixture\" tests=\"2\" failures=\"1\" errors=\"0\"") &&
              strstr(x, "name=\"fixture.pass.00\"") && strstr(x, "<failure type=\"FAIL\""),
              "%s is not the run's JUnit report:\n%s", xml, x);
    unlink(xml);
    p = fixture_env((char *[]){ env, NULL }, (char *[]){ "run", "fixture.pass.00", "--junit", junit, NULL });
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    cr_expect_neq(access(xml, F_OK), 0, "--junit was given, yet XML_OUTPUT_FILE %s was written", xml);
    cr_expect(strstr(kc_out_file(junit), "tests=\"1\" failures=\"0\""), "--junit %s", junit);
    char names[512];
    kc_dir_entries(dir, names, sizeof names);
    cr_expect_str_eq(names, "given.xml", "files beside the reports after the runs: %s", names);
    kc_rm_rf(dir);
}
