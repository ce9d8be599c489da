/* test_report_files.c — the report files a run did not earn: a run that
 * does not finish (killed by SIGKILL, serial or a work queue, refused by
 * its command line or its environment) leaves reports that say so, never an
 * earlier run's green one; a report never replaces a file the run reads;
 * temporaries and locks never follow a planted symbolic link; relative
 * paths stay where the run started; a second run on a report path is
 * refused; a re-executed run keeps its paths and removes its locks. The
 * report formats: test_report.c. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/live.h"
#include "support/report_runs.h"
#include "support/run_output.h"
#include "support/spawn.h"

/* ---- a run that does not finish (issue 13) ---- */

static int hang_started(const kc_live *l) { return strstr(l->out, "fixture.hang.0 pid ") != NULL; }

/* The three reports say the run did not finish: JUnit an error (Python's
 * parser agrees), JSON no summary, the SVG a notice; nothing of the green
 * run that wrote them before is left. */
static void expect_incomplete(const char *json, const char *junit, const char *svg, const char *how)
{
    const char *t = kc_out_file(junit);
    cr_expect(strstr(t, "errors=\"1\"") && strstr(t, "<error type=\"INCOMPLETE\""), "%s: junit:\n%s", how, t);
    cr_expect(!strstr(t, "errors=\"0\""), "%s: a green JUnit report is left:\n%s", how, t);
    kc_proc q = kc_report_python(KC_REPORT_PY_JUNIT, junit);
    cr_expect_eq(q.status, 0, "%s: python: %s", how, q.err);
    cr_expect(strstr(q.out, "suite 1 0 1 0\n"), "%s: %s", how, q.out);
    kc_proc_free(&q);
    t = kc_out_file(json);
    cr_expect(strncmp(t, "{\"type\":\"incomplete\",", 21) == 0 && !strstr(t, "\"summary\""), "%s: json:\n%s", how, t);
    t = kc_out_file(svg);
    cr_expect(strstr(t, "class=\"incomplete\"") && !strstr(t, "class=\"bar\""), "%s: svg:\n%s", how, t);
}

/* A green run's reports, then the same paths given to a run killed by
 * SIGKILL (the serial runner, or a work queue's parent): read back, they
 * say the run did not finish, never the earlier green. */
static void killed_run(const char *tag, char **extra)
{
    char json[128], junit[160], svg[160], costs[160];
    kc_report_tmpname(json, sizeof json, tag);
    snprintf(junit, sizeof junit, "%s.xml", json);
    snprintf(svg, sizeof svg, "%s.svg", json);
    snprintf(costs, sizeof costs, "%s.tsv", json);
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--json", json, "--junit", junit, "--timeline", svg, NULL },
                        NULL);
    cr_assert_eq(p.status, 0, "the green run: exit %d\n%s%s", p.status, p.out, p.err);
    cr_assert(strstr(kc_out_file(junit), "errors=\"0\""), "the green run's JUnit");
    kc_proc_free(&p);
    char *args[16] = { "run", "fixture.hang.0", "--json", json, "--junit", junit, "--timeline", svg };
    int a = 8;
    for (int i = 0; extra[i]; i++) args[a++] = strcmp(extra[i], "COSTS") == 0 ? costs : extra[i];
    args[a] = NULL;
    kc_live l;
    kc_live_start(&l, kc_test_fixture_bin(), args);
    cr_assert_eq(kc_live_read_until(&l, hang_started, 10), 0, "the hang did not start:\n%s", l.out);
    cr_assert_eq(kill(l.pid, SIGKILL), 0);
    cr_expect_eq(kc_wait_status(l.pid), 128 + SIGKILL);
    close(l.fd);
    expect_incomplete(json, junit, svg, tag);
    pid_t w[1];
    if (kc_live_pids(&l, w, 1) == 1) {      /* a worker dies with its parent (PDEATHSIG) */
        usleep(300000);
        cr_expect(!kc_alive(w[0]), "%s: pid %ld outlived the killed run", tag, (long)w[0]);
    }
    unlink(json);
    unlink(junit);
    unlink(svg);
    unlink(costs);
    const char *held[] = { json, junit, svg };
    for (int k = 0; k < 3; k++) {   /* the killed run's locks (it could not remove them): stale, taken by the next run */
        char lock[200];
        snprintf(lock, sizeof lock, "%s.lock", held[k]);
        unlink(lock);
    }
}

Test(report, serial_run_killed_leaves_an_incomplete_report, .timeout = 30)
{
    killed_run("killed_serial", (char *[]){ NULL });
}

Test(report, queue_run_killed_leaves_an_incomplete_report, .timeout = 30)
{
    killed_run("killed_queue", (char *[]){ "--jobs", "2", "--costs", "COSTS", NULL });
}

/* Refused after the command line was read (a pattern that matches nothing):
 * the earlier run's report is not left to be read as this one's. */
Test(report, refused_run_leaves_an_incomplete_report, .timeout = 30)
{
    char json[128], junit[160], svg[160];
    kc_report_tmpname(json, sizeof json, "refused");
    snprintf(junit, sizeof junit, "%s.xml", json);
    snprintf(svg, sizeof svg, "%s.svg", json);
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--json", json, "--junit", junit, "--timeline", svg, NULL },
                        NULL);
    cr_assert_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    p = kc_report_fixture((char *[]){ "run", "fixture.nosuchitem", "--json", json, "--junit", junit, "--timeline", svg, NULL }, NULL);
    cr_expect_eq(p.status, 2, "exit %d\n%s", p.status, p.err);
    cr_expect(strstr(p.err, "pattern 'fixture.nosuchitem' matches no item"), "%s", p.err);
    kc_proc_free(&p);
    expect_incomplete(json, junit, svg, "refused");
    unlink(json);
    unlink(junit);
    unlink(svg);
}

/* Refused after the command line was read, by what main checks before the
 * reports began: the environment (a wrong KC_CUDA_SCHED, a GoogleTest shard
 * out of range) or options that do not combine (--status-level with
 * --shard). Each left the earlier green run's reports in place, exit 2
 * (a red-team): a CI step that publishes the JUnit report whatever the exit
 * status showed the last run's green. */
Test(report, a_run_refused_by_its_environment_leaves_an_incomplete_report, .timeout = 60)
{
    char json[128], junit[160], svg[160];
    kc_report_tmpname(json, sizeof json, "refused_env");
    snprintf(junit, sizeof junit, "%s.xml", json);
    snprintf(svg, sizeof svg, "%s.svg", json);
    struct { char *env[3]; char *opt[4]; const char *say; } refusals[] = {
        { { "KC_CUDA_SCHED=bogus", NULL }, { NULL }, "KC_CUDA_SCHED='bogus'" },
        { { "GTEST_SHARD_INDEX=5", "GTEST_TOTAL_SHARDS=2", NULL }, { NULL }, "GTEST_SHARD_INDEX=5 is out of range" },
        { { NULL }, { "--status-level", "fail", "--shard", "0/2" }, "does not combine with --shard 0/2" },
    };
    for (size_t r = 0; r < sizeof refusals / sizeof refusals[0]; r++) {
        kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--json", json, "--junit", junit, "--timeline", svg,
                                        NULL }, NULL);
        cr_assert_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
        kc_proc_free(&p);
        char *args[16] = { "run", "fixture.fail", "--json", json, "--junit", junit, "--timeline", svg };
        int a = 8;
        for (int i = 0; i < 4 && refusals[r].opt[i]; i++) args[a++] = refusals[r].opt[i];
        args[a] = NULL;
        p = kc_report_fixture(args, refusals[r].env);
        cr_expect_eq(p.status, 2, "refusal %zu: exit %d\n%s", r, p.status, p.err);
        cr_expect(strstr(p.err, refusals[r].say), "refusal %zu: %s", r, p.err);
        kc_proc_free(&p);
        expect_incomplete(json, junit, svg, refusals[r].say);
    }
    unlink(json);
    unlink(junit);
    unlink(svg);
}

/* A command line that does not parse (exit 2) left an earlier run's green
 * reports in place (a red-team's find): the parser stops at the bad word,
 * before or after the report options. Each report file already there now
 * says the run did not finish, whichever word was bad; a report option that
 * names no file yet makes none. */
Test(report, a_command_line_that_does_not_parse_leaves_an_incomplete_report, .timeout = 60)
{
    char json[128], junit[160], svg[160], fresh[160];
    kc_report_tmpname(json, sizeof json, "bad_usage");
    snprintf(junit, sizeof junit, "%s.xml", json);
    snprintf(svg, sizeof svg, "%s.svg", json);
    snprintf(fresh, sizeof fresh, "%s.fresh.xml", json);
    char jsoneq[200];
    snprintf(jsoneq, sizeof jsoneq, "--json=%s", json);
    struct { char *args[12]; const char *say; } bad[] = {
        { { "run", "fixture.fail", jsoneq, "--junit", junit, "--timeline", svg, "--seed", "x", NULL }, "--seed" },
        { { "run", "--seed", "x", "fixture.fail", jsoneq, "--junit", junit, "--timeline", svg, NULL }, "--seed" },
        { { "run", "fixture.fail", jsoneq, "--junit", junit, "--timeline", svg, "--no-such-option", NULL },
          "unknown option '--no-such-option'" },
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--json", json, "--junit", junit, "--timeline", svg,
                                        NULL }, NULL);
        cr_assert_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
        kc_proc_free(&p);
        p = kc_report_fixture(bad[b].args, NULL);
        cr_expect_eq(p.status, 2, "case %zu: exit %d\n%s", b, p.status, p.err);
        cr_expect(strstr(p.err, bad[b].say), "case %zu: %s", b, p.err);
        kc_proc_free(&p);
        expect_incomplete(json, junit, svg, "bad usage");
    }
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--junit", fresh, "--seed", "x", NULL }, NULL);
    cr_expect_eq(p.status, 2, "exit %d\n%s", p.status, p.err);
    cr_expect(access(fresh, F_OK) != 0, "a report was made where none was: %s", fresh);
    kc_proc_free(&p);
    unlink(json);
    unlink(junit);
    unlink(svg);
}

/* The same rule never reaches a file that the line does not name as a
 * report: the report options were read from argv by their spelling alone,
 * so a file after "--json" that the parse takes as something else (the
 * value of --exclude, whose glob "--json" is, leaving the file a PATTERN;
 * a PATTERN after "--") or given to a command that writes no report (list)
 * was turned into an "incomplete" placeholder: a user's file destroyed by
 * a typo elsewhere on the line. The file is left as it was. */
Test(report, a_command_line_that_does_not_parse_leaves_a_file_it_names_as_no_report_alone, .timeout = 60)
{
    char notes[128];
    kc_report_tmpname(notes, sizeof notes, "not_a_report");
    static const char text[] = "a user's notes, not a report\n";
    struct { char *args[12]; } bad[] = {
        { { "run", "--exclude", "--json", notes, "--no-such-option", NULL } },
        { { "run", "--exclude", "--junit", notes, "--seed", "x", NULL } },
        { { "run", "--seed", "x", "--", "--json", notes, NULL } },
        { { "list", "--json", notes, NULL } },
        { { "merge", "--log", notes, "--timeline", notes, "--seed", "x", NULL } },
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        FILE *f = fopen(notes, "w");
        cr_assert(f, "fopen %s", notes);
        fputs(text, f);
        cr_assert_eq(fclose(f), 0);
        kc_proc p = kc_report_fixture(bad[b].args, NULL);
        cr_expect_eq(p.status, 2, "case %zu: exit %d\n%s", b, p.status, p.err);
        kc_proc_free(&p);
        const char *t = kc_out_file(notes);
        cr_expect_str_eq(t, text, "case %zu: a file named as no report was rewritten:\n%s", b, t);
    }
    unlink(notes);
}

/* A refused command line replaced what its report options named with the
 * "incomplete" placeholder, even the cost table that the refusal was about:
 * `run --costs T --json T` (or --junit/--timeline T, or KC_COSTS=T with
 * --json T) lost every row of T, and the next --rerun-failed was refused
 * for a malformed table (a red-team's find). Only a file that holds a report
 * of its kind is replaced now; the table stays as it was. */
Test(report, a_refused_clash_with_the_cost_table_leaves_the_table_alone, .timeout = 60)
{
    char costs[128], costs_eq[160], costs_env[160];
    kc_report_tmpname(costs, sizeof costs, "clash_costs");
    snprintf(costs_eq, sizeof costs_eq, "--costs=%s", costs);
    snprintf(costs_env, sizeof costs_env, "KC_COSTS=%s", costs);
    unlink(costs);      /* kc_report_tmpname made it empty: a table the run would refuse */
    kc_proc p = kc_report_fixture((char *[]){ "run", costs_eq, "fixture.fail", "fixture.pass.00", NULL }, NULL);
    cr_assert_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    char *table = strdup(kc_out_file(costs));
    cr_assert(table && strstr(table, "\nfixture.fail\t"), "no table: %s", table ? table : "(none)");
    const char *opts[] = { "--json", "--junit", "--timeline" };
    for (int k = 0; k < 6; k++) {
        char *args[8] = { "run", "--rerun-failed", (char *)opts[k % 3], costs, "fixture.fail", NULL, NULL, NULL };
        if (k < 3) args[5] = costs_eq;
        char *env[] = { costs_env, NULL };
        p = kc_report_fixture(args, k < 3 ? NULL : env);
        cr_expect_eq(p.status, 2, "case %d: exit %d\n%s", k, p.status, p.err);
        cr_expect(strstr(p.err, "name the same file"), "case %d: %s", k, p.err);
        kc_proc_free(&p);
        const char *t = kc_out_file(costs);
        cr_expect_str_eq(t, table, "case %d (%s T, the table %s): the refusal rewrote the cost table", k, opts[k % 3],
                         k < 3 ? "by --costs" : "by KC_COSTS");
    }
    p = kc_report_fixture((char *[]){ "run", "--rerun-failed", costs_eq, "fixture.fail", "fixture.pass.00", NULL }, NULL);
    cr_expect_eq(p.status, 1, "the next --rerun-failed: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "FAIL   fixture.fail"), "%s", p.out);
    kc_proc_free(&p);
    free(table);
    unlink(costs);
}

/* A report replaces its file as the run starts (it says incomplete until
 * the run's end), so a report path that names a file the run reads was
 * gone before it was read: `merge --log s0.log --json s0.log` (or --junit
 * naming a log under a --log directory) destroyed the shard's saved output,
 * and `--records F --json F` the launch records; a command line that did
 * not parse did the same. Each is refused (exit 2), naming both, and the
 * file is left as it was. */
Test(report, a_report_never_replaces_a_file_the_run_reads, .timeout = 60)
{
    char dir[128], log[200], rec[200];
    kc_report_tmpname(dir, sizeof dir, "inputs");
    unlink(dir);
    cr_assert_eq(mkdir(dir, 0700), 0);
    snprintf(log, sizeof log, "%s/shard-0.log", dir);
    snprintf(rec, sizeof rec, "%s/records.txt", dir);
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--shard", "0/1", NULL }, NULL);
    cr_assert_eq(p.status, 0, "the shard: exit %d\n%s%s", p.status, p.out, p.err);
    kc_write_file(log, p.out);
    kc_proc_free(&p);
    char saved[65536];
    snprintf(saved, sizeof saved, "%s", kc_out_file(log));
    static const char records[] = "# launch records, not a report\n";
    kc_write_file(rec, records);
    struct { char *args[12]; const char *file, *text, *say; } cases[] = {
        { { "merge", "fixture.pass.00", "--log", log, "--json", log, NULL }, log, saved, "--json" },
        { { "merge", "fixture.pass.00", "--log", dir, "--junit", log, NULL }, log, saved, "--junit" },
        { { "merge", "fixture.pass.00", "--log", log, "--json", log, "--seed", "x", NULL }, log, saved, "--seed" },
        { { "run", "fixture.pass.00", "--records", rec, "--timeline", rec, NULL }, rec, records, "--timeline" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        p = kc_report_fixture(cases[c].args, NULL);
        cr_expect_eq(p.status, 2, "case %zu: exit %d\n%s%s", c, p.status, p.out, p.err);
        cr_expect(strstr(p.err, cases[c].say), "case %zu: %s", c, p.err);
        kc_proc_free(&p);
        const char *t = kc_out_file(cases[c].file);
        cr_expect_str_eq(t, cases[c].text, "case %zu: the run's input was replaced:\n%s", c, t);
        kc_write_file(cases[c].file, cases[c].text);
    }
    p = kc_report_fixture((char *[]){ "merge", "fixture.pass.00", "--log", log, NULL }, NULL);
    cr_expect_eq(p.status, 0, "the log still merges: exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* ---- issue 21: files beside the reports, paths that stay put, one owner ---- */

static int header_printed(const kc_live *l) { return strstr(l->out, " items selected, seed ") != NULL; }
static int never(const kc_live *l) { (void)l; return 0; }

/* A symbolic link planted where the run would put its temporary file, in a
 * directory others write to: the report and the cost table are written
 * through "FILE.tmp.PID" (the run's pid is known once it runs), so the
 * link's target got the report and FILE became the link. Now the
 * temporary file is always a new file at an unguessable name. */
Test(report, temporaries_never_follow_a_planted_symlink, .timeout = 30)
{
    char dir[256], json[300], costs[300], victim[300], victim2[300], tmp[340];
    kc_tmp_dir(dir, sizeof dir, "symlink");
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(costs, sizeof costs, "%s/c.tsv", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(victim2, sizeof victim2, "%s/victim2", dir);
    kc_write_file(victim, "precious\n");
    kc_write_file(victim2, "precious too\n");
    kc_live l;
    /* fixture.cost.00 sleeps 300 ms x 4: time to plant the links after the start's checks */
    kc_live_start_env(&l, kc_test_fixture_bin(),
                      (char *[]){ "run", "fixture.cost.00", "fixture.pass.00", "--json", json, "--costs", costs, NULL },
                      (char *[]){ "KC_FIXTURE_COST_SCALE=4", NULL });
    cr_assert_eq(kc_live_read_until(&l, header_printed, 10), 0, "the run did not start:\n%s", l.out);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", json, (long)l.pid);
    cr_assert_eq(symlink(victim, tmp), 0, "symlink %s", tmp);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", costs, (long)l.pid);
    cr_assert_eq(symlink(victim2, tmp), 0, "symlink %s", tmp);
    kc_live_read_until(&l, never, 20);     /* to its end */
    cr_expect_eq(kc_wait_status(l.pid), 0, "exit status, expected 0:\n%s", l.out);
    close(l.fd);
    cr_expect_str_eq(kc_out_file(victim), "precious\n", "the report went through the planted link into %s", victim);
    cr_expect_str_eq(kc_out_file(victim2), "precious too\n", "the cost table went through the planted link into %s",
                     victim2);
    struct stat st;
    cr_expect(lstat(json, &st) == 0 && S_ISREG(st.st_mode), "%s is not a regular file (the link renamed over it?)", json);
    cr_expect(strstr(kc_out_file(json), "\"type\":\"summary\""), "%s lacks the final report", json);
    cr_expect(lstat(costs, &st) == 0 && S_ISREG(st.st_mode), "%s is not a regular file", costs);
    cr_expect(strstr(kc_out_file(costs), "fixture.pass.00\t"), "%s lacks the run's costs", costs);
    kc_rm_rf(dir);
}

/* An item that calls chdir() (fixture.chdir, into $KC_FIXTURE_CHDIR) does
 * not move the reports or the cost table given as relative paths: they are
 * made absolute before the first item runs. Before, they were written into
 * the item's directory and the named files kept the placeholder. */
Test(report, relative_report_paths_stay_where_the_run_started, .timeout = 30)
{
    char dir[256], away[300], bin[4096], env[340];
    cr_assert_not_null(realpath(kc_test_fixture_bin(), bin), "realpath %s", kc_test_fixture_bin());
    kc_tmp_dir(dir, sizeof dir, "chdir");
    snprintf(away, sizeof away, "%s/away", dir);
    cr_assert_eq(mkdir(away, 0700), 0);
    snprintf(env, sizeof env, "KC_FIXTURE_CHDIR=%s", away);
    char here[4096];
    cr_assert_not_null(getcwd(here, sizeof here));
    cr_assert_eq(chdir(dir), 0);
    char *argv[] = { bin, "run", "fixture.chdir", "fixture.pass.00", "--json", "r.json", "--junit=r.xml", "--timeline",
                     "./t.svg", "--costs", "c.tsv", NULL };
    char *envs[] = { "KC_LIBCUDA=none", env, NULL };
    kc_proc p;
    int started = kc_spawn(argv, envs, 20, &p);
    cr_assert_eq(chdir(here), 0);
    cr_assert_eq(started, 0, "cannot start %s", bin);
    cr_expect_eq(p.status, 0, "exit %d, expected 0\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "fixture.chdir: now in "), "the item did not change directory:\n%s", p.out);
    char names[1024], path[400];
    int n = kc_dir_entries(away, names, sizeof names);
    cr_expect_eq(n, 0, "the run wrote into the item's directory %s: %s", away, names);
    snprintf(path, sizeof path, "%s/r.json", dir);
    cr_expect(strstr(kc_out_file(path), "\"type\":\"summary\""), "%s is not the final report", path);
    snprintf(path, sizeof path, "%s/r.xml", dir);
    cr_expect(strstr(kc_out_file(path), "tests=\"2\" failures=\"0\" errors=\"0\""), "%s is not the final report", path);
    snprintf(path, sizeof path, "%s/t.svg", dir);
    cr_expect(strstr(kc_out_file(path), "class=\"bar\""), "%s is not the final timeline", path);
    snprintf(path, sizeof path, "%s/c.tsv", dir);
    cr_expect(strstr(kc_out_file(path), "fixture.chdir\t"), "%s lacks the run's costs", path);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* A lock file beside a report is the run's own: a symbolic link there is
 * refused, naming it, and its target is neither created nor written. */
Test(report, report_lock_symlink_refused, .timeout = 30)
{
    char dir[256], json[300], lock[320], target[300];
    kc_tmp_dir(dir, sizeof dir, "locklink");
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(lock, sizeof lock, "%s.lock", json);
    snprintf(target, sizeof target, "%s/created-through-the-link", dir);
    cr_assert_eq(symlink(target, lock), 0);
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--json", json, NULL }, NULL);
    cr_expect_eq(p.status, 2, "exit %d, expected 2\n%s%s", p.status, p.out, p.err);
    char want[700];
    snprintf(want, sizeof want, "kcontract-fixture: --json %s: %s is a symbolic link: refusing to follow it; remove it", json, lock);
    cr_expect(strstr(p.err, want), "want '%s' in:\n%s", want, p.err);
    cr_expect(!strstr(p.out, "PASS"), "nothing runs:\n%s", p.out);
    cr_expect_neq(access(target, F_OK), 0, "%s was created through the link", target);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* A run owns its report paths until it ends: a second run given one of them
 * is refused (exit 2), naming the run that has it, and the report is left
 * as the first run's. Before, the second run's green report replaced the
 * first's placeholder, and the user of a first run that then died read the
 * other run's green as its own. extra: more of the first run's arguments
 * and environment (a re-exec, which must keep the paths). */
static void second_run_refused(const char *tag, char *const *env)
{
    char json[128], junit[160], lock[200];
    kc_report_tmpname(json, sizeof json, tag);
    snprintf(junit, sizeof junit, "%s.xml", json);
    kc_live l;
    kc_live_start_env(&l, kc_test_fixture_bin(),
                      (char *[]){ "run", "fixture.pass.00", "fixture.hang.0", "--json", json, "--junit", junit, NULL },
                      (char **)env);
    cr_assert_eq(kc_live_read_until(&l, hang_started, 10), 0, "%s: the hang did not start:\n%s", tag, l.out);
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.01", "--junit", junit, NULL }, NULL);
    cr_expect_eq(p.status, 2, "%s: the second run: exit %d, expected 2\n%s%s", tag, p.status, p.out, p.err);
    char want[600];
    snprintf(want, sizeof want, "kcontract-fixture: --junit %s: another kcontract run (pid %ld) is writing this report (it holds "
             "%s.lock)", junit, (long)l.pid, junit);
    cr_expect(strstr(p.err, want), "%s: want '%s' in:\n%s", tag, want, p.err);
    cr_expect(!strstr(p.out, "PASS"), "%s: the refused run ran items:\n%s", tag, p.out);
    kc_proc_free(&p);
    char pid[32];
    snprintf(pid, sizeof pid, "(pid %ld)", (long)l.pid);
    const char *x = kc_out_file(junit);
    cr_expect(strstr(x, "kcontract-fixture.incomplete") && strstr(x, pid), "%s: %s is not the first run's placeholder:\n%s", tag,
              junit, x);
    /* The first run dies: its report still says so, not another run's green. */
    cr_assert_eq(kill(l.pid, SIGKILL), 0);
    cr_expect_eq(kc_wait_status(l.pid), 128 + SIGKILL);
    close(l.fd);
    x = kc_out_file(junit);
    cr_expect(strstr(x, "kcontract-fixture.incomplete") && strstr(x, pid), "%s: after the kill, %s:\n%s", tag, junit, x);
    /* Its stale lock file does not hold the next run off; that run removes it. */
    p = kc_report_fixture((char *[]){ "run", "fixture.pass.01", "--json", json, "--junit", junit, NULL }, NULL);
    cr_expect_eq(p.status, 0, "%s: the run after the kill: exit %d, expected 0\n%s%s", tag, p.status, p.out, p.err);
    kc_proc_free(&p);
    cr_expect(strstr(kc_out_file(junit), "tests=\"1\" failures=\"0\" errors=\"0\""), "%s", kc_out_file(junit));
    const char *paths[] = { json, junit };
    for (int k = 0; k < 2; k++) {
        snprintf(lock, sizeof lock, "%s.lock", paths[k]);
        cr_expect_neq(access(lock, F_OK), 0, "%s: %s left behind by a run that finished", tag, lock);
        unlink(lock);
        unlink(paths[k]);
    }
}

Test(report, a_second_run_on_a_report_path_is_refused, .timeout = 30)
{
    second_run_refused("owned", NULL);
}

/* The serial runner's re-exec (KC_FAULT_LOSE_CONTEXT_AFTER: as after a lost
 * CUDA context) keeps the paths: the fresh process still owns them. */
Test(report, a_reexecuted_run_keeps_its_report_paths, .timeout = 30)
{
    second_run_refused("owned_reexec", (char *[]){ "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.00", NULL });
}

/* A run that re-executes itself and finishes lets go of its paths too. */
Test(report, a_reexecuted_run_removes_its_locks_at_the_end, .timeout = 30)
{
    char json[128], lock[200];
    kc_report_tmpname(json, sizeof json, "reexec_end");
    snprintf(lock, sizeof lock, "%s.lock", json);
    kc_proc p = kc_run_fixture_env((char *[]){ "run", "fixture.pass.00", "fixture.pass.01", "--json", json, NULL },
                                   (char *[]){ "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.00", NULL }, 20);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "continuing in a fresh process"), "no re-exec:\n%s", p.out);
    cr_expect(strstr(kc_out_file(json), "\"type\":\"summary\""), "not the final report");
    cr_expect_neq(access(lock, F_OK), 0, "%s left behind", lock);
    kc_proc_free(&p);
    unlink(lock);
    unlink(json);
}
