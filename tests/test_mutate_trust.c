/* test_mutate_trust.c — a mutation run counts the lines of its own runs
 * (the baseline, each wave) only when the run vouches for them (its TALLY:
 * mutate_waves.h, kc_mut_run_end_check); found by a red-team helper. The
 * whole command on the fixture under the fake driver: the module's source
 * is a small fake_axpy.cu, and $MAKE a script that "builds" each mutant
 * into a fake image ("KCFAKE fake_axpy wrong_value": gate 3 catches it).
 * Its one mutant's item (or the baseline's) then loses its context and its
 * worker's teardown is held (KC_FAULT_LOSE_CONTEXT_AFTER, KC_FAULT_TEARDOWN_S),
 * so the item's verdict is out while the run has not reached its end; the
 * test then ends that run: SIGTERM (an interrupted run: its TALLY says
 * untrusted=1) or SIGKILL (no TALLY at all). Before, mutate counted the RED
 * line of either and exited 0 with score 1.00 (and read an earlier
 * baseline's report for a killed baseline). Last, what the report says of
 * a mutant its first contract missed and another skipped (the GPU lost
 * between the waves, KC_FAKE_WORKER_GPU_LOST): missed, not "skipped: no
 * GPU" with exit 3. A trusted wave whose lines do not add up to what it
 * was handed and to its TALLY (an item that prints a verdict line of its
 * own, KC_FAKE_LOAD_SAYS; kc_mut_wave_lines_check on lines made up) counts
 * none of them. A run that exits 4 after its TALLY (a report it could not
 * write): a wave's lines count and mutate exits 4; the baseline, whose
 * report mutate reads, runs no mutant. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mutate_ops.h"
#include "mutate_waves.h"
#include "support/fake_mutate_project.h"
#include "support/run_output.h"
#include "support/spawn.h"

typedef struct trust_run {
    char dir[512], src[600], mut[600], make[600], json[600], out[600], err[600];
    char id[16];
    char gpu_lost[700];         /* KC_FAKE_WORKER_GPU_LOST's value, "" none */
    char says[400];             /* KC_FAKE_LOAD_SAYS's value, "" none */
    char slow[200];             /* KC_FAULT_SLOW_ITEM's value, "" none */
    int both;                   /* fakeblock.axpy.f32 judges the mutants too (after fake.axpy.f32) */
} trust_run;

/* The folder, its source and make script (control: what a mutant's image
 * runs), and the id of the source's one "bound" mutant (i < n -> i <= n),
 * computed as mutate computes it. */
static void trust_setup(trust_run *t, const char *tag, const char *control)
{
    memset(t, 0, sizeof *t);
    kc_tmp_dir(t->dir, sizeof t->dir, tag);
    kc_fake_mutate_project(t->dir, control, t->src, sizeof t->src, t->make, sizeof t->make);
    snprintf(t->mut, sizeof t->mut, "%s/mutants", t->dir);
    snprintf(t->json, sizeof t->json, "%s/report.json", t->dir);
    snprintf(t->out, sizeof t->out, "%s/out.txt", t->dir);
    snprintf(t->err, sizeof t->err, "%s/err.txt", t->dir);
    kc_src src;
    kc_mutants m = { 0 };
    char err[256];
    cr_assert_eq(kc_src_scan(&src, KC_FAKE_AXPY_SOURCE, strlen(KC_FAKE_AXPY_SOURCE), err, sizeof err), 0, "%s", err);
    unsigned bound = 0;
    for (int k = 0; kc_mut_ops[k].name; k++)
        if (!strcmp(kc_mut_ops[k].name, "bound")) bound |= 1u << k;
    char path[700];
    snprintf(path, sizeof path, "%s/fake_axpy.cu", t->src);
    cr_assert_eq(kc_mutate_source(&src, "fake_axpy", path, bound, &m, err, sizeof err), 1, "%s", err);
    snprintf(t->id, sizeof t->id, "%s", m.v[0].id);
    kc_mutants_free(&m);
    kc_src_free(&src);
}

/* Starts `kcontract-fixture mutate` on the fixture's fake.axpy.f32 under the
 * fake driver, its stdout and stderr into t->out and t->err; lose: the item
 * whose context is lost and whose worker's teardown then takes 20 s (NULL:
 * none). Returns its pid. */
static pid_t trust_start(const trust_run *t, const char *lose)
{
    char costs[700], cuda[700], make[700], lose_env[300], gpu_lost[700], says[400], slow[200];
    snprintf(gpu_lost, sizeof gpu_lost, "%s", t->gpu_lost);
    snprintf(says, sizeof says, "%s", t->says);
    snprintf(slow, sizeof slow, "%s", t->slow);
    kc_test_costs_path(costs, sizeof costs);
    const char *lib = getenv("KC_FAKE_CUDA");
    snprintf(cuda, sizeof cuda, "%s", lib && *lib ? lib : "build/libfake_cuda.so");
    snprintf(make, sizeof make, "%s", t->make);
    snprintf(lose_env, sizeof lose_env, "%s", lose ? lose : "");
    kc_write_file(t->out, "");     /* nothing of an earlier run's output is waited for */
    kc_write_file(t->err, "");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int o = open(t->out, O_WRONLY | O_TRUNC), e = open(t->err, O_WRONLY | O_TRUNC);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
        setenv("KC_LIBCUDA", cuda, 1);
        setenv("MAKE", make, 1);
        setenv("KC_CACHE_DIR", "off", 1);
        if (!getenv("KC_COSTS") || !*getenv("KC_COSTS")) setenv("KC_COSTS", costs, 1);
        if (*lose_env) {
            setenv("KC_FAULT_LOSE_CONTEXT_AFTER", lose_env, 1);
            setenv("KC_FAULT_TEARDOWN_S", "20", 1);
        }
        if (*gpu_lost) setenv("KC_FAKE_WORKER_GPU_LOST", gpu_lost, 1);
        if (*says) setenv("KC_FAKE_LOAD_SAYS", says, 1);
        if (*slow) setenv("KC_FAULT_SLOW_ITEM", slow, 1);
        execl(kc_test_fixture_bin(), kc_test_fixture_bin(), "mutate", "--source-dir", t->src, "--mutants-dir", t->mut,
              "--operators", "bound", "--jobs", "1", "--json", t->json, "fake.axpy.f32",
              t->both ? "fakeblock.axpy.f32" : (char *)NULL, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Whether file path holds needle, waited for up to timeout_s. */
static int wait_for_text(const char *path, const char *needle, double timeout_s)
{
    for (double waited = 0; waited < timeout_s; waited += 0.05) {
        FILE *f = fopen(path, "rb");
        if (f) {
            static char buf[1 << 18];
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            buf[n] = 0;
            fclose(f);
            if (strstr(buf, needle)) return 1;
        }
        nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
    }
    return 0;
}

/* The pid of a child of parent whose command line holds needle, 0 none. */
static pid_t child_with(pid_t parent, const char *needle)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && !found && (e = readdir(d))) {
        pid_t pid = (pid_t)atol(e->d_name);
        if (pid <= 0) continue;
        char path[64], buf[8192];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int ppid = 0;
        int ok = fscanf(f, "%*d (%*[^)]) %*c %d", &ppid) == 1;
        fclose(f);
        if (!ok || ppid != parent) continue;
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
        f = fopen(path, "rb");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            if (!buf[i]) buf[i] = ' ';
        buf[n] = 0;
        if (strstr(buf, needle)) found = pid;
    }
    if (d) closedir(d);
    return found;
}

/* Waits for pid (killed after timeout_s); its exit status, 128 + signal. */
static int trust_wait(pid_t pid, double timeout_s)
{
    int ws = 0;
    for (double waited = 0;; waited += 0.05) {
        pid_t r = waitpid(pid, &ws, WNOHANG);
        if (r == pid) break;
        cr_assert(r == 0 || errno == EINTR, "waitpid: %s", strerror(errno));
        if (waited > timeout_s) kill(pid, SIGKILL);
        nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
    }
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* One mutate run whose child run (its command line holding `which`) gets
 * signal sig once `line` is in mutate's output; mutate's exit status. */
static int mutate_with_run_ended(const trust_run *t, const char *lose, const char *line, const char *which, int sig)
{
    pid_t pid = trust_start(t, lose);
    cr_assert(wait_for_text(t->out, line, 30), "no '%s' line:\n%s%s", line, kc_out_file(t->out), kc_out_file(t->err));
    pid_t run = child_with(pid, which);
    cr_assert_gt(run, 0, "no child run of mutate with '%s'", which);
    kill(run, sig);
    return trust_wait(pid, 60);
}

/* The wave's run ends before its end: interrupted (its TALLY untrusted=1),
 * or killed (no TALLY). Its RED line does not count: the mutant is not run,
 * the line says why, and mutate exits 1 (not trusted) or 4 (no end). */
Test(mutate_trust, a_wave_run_that_is_not_trusted_or_has_no_end_counts_no_verdict, .timeout = 120)
{
    trust_run t;
    trust_setup(&t, "muttrust-wave", "wrong_value");
    char item[200], red[240];
    snprintf(item, sizeof item, "fake.axpy.f32:mutant.%s", t.id);
    snprintf(red, sizeof red, "RED    %s", item);
    /* the premise: undisturbed, gate 3 catches the mutant and mutate exits 0 */
    int st = trust_wait(trust_start(&t, NULL), 60);
    cr_assert_eq(st, 0, "exit %d\n%s%s", st, kc_out_file(t.out), kc_out_file(t.err));
    cr_assert(strstr(kc_out_file(t.out), "caught=1 missed=0 timeout=0 score=1.00"), "%s", kc_out_file(t.out));
    struct { int sig, status; const char *said, *why; } cases[] = {
        { SIGTERM, 1, "mutate: the mutants' run (wave 1) is not trusted: its TALLY says untrusted=1",
          "its run (wave 1) is not trusted" },
        { SIGKILL, 4, "mutate: the mutants' run (wave 1) was killed by signal 9 (SIGKILL) before its TALLY line",
          "its run (wave 1) was killed by signal 9 (SIGKILL)" },
    };
    for (int c = 0; c < 2; c++) {
        st = mutate_with_run_ended(&t, item, red, "run-wave1.json", cases[c].sig);
        const char *out = kc_out_file(t.out);
        cr_expect(strstr(out, red), "case %d: the premise: the RED line came before the run ended\n%s", c, out);
        cr_expect_eq(st, cases[c].status, "case %d: exit %d, expected %d\n%s%s", c, st, cases[c].status, out,
                     kc_out_file(t.err));
        cr_expect(strstr(out, "caught 0 (") == NULL && strstr(out, "caught=0 missed=0 timeout=0 score=-"),
                  "case %d: the RED line of a run that does not vouch for it counted:\n%s", c, out);
        cr_expect(strstr(out, "not run 1, score -"), "case %d:\n%s", c, out);
        const char *err = kc_out_file(t.err);
        cr_expect(strstr(err, cases[c].said) && strstr(err, "none of its verdicts count; its 1 mutant is not run"),
                  "case %d: no line says why:\n%s", c, err);
        const char *j = kc_out_file(t.json);
        cr_expect(strstr(j, "\"state\":\"notrun\",\"why\":\"") && strstr(j, cases[c].why), "case %d:\n%s", c, j);
    }
    kc_rm_rf(t.dir);
}

/* The baseline's run ends before its end: its PASS does not let a contract
 * judge the mutants (no mutant runs), and a killed baseline's report is
 * never an earlier run's (the folder holds one from the premise's run). */
Test(mutate_trust, a_baseline_run_that_is_not_trusted_or_has_no_end_runs_no_mutant, .timeout = 120)
{
    trust_run t;
    trust_setup(&t, "muttrust-base", "wrong_value");
    int st = trust_wait(trust_start(&t, NULL), 60);
    cr_assert_eq(st, 0, "the premise: exit %d\n%s%s", st, kc_out_file(t.out), kc_out_file(t.err));
    struct { int sig, status; const char *said; } cases[] = {
        { SIGTERM, 1, "mutate: the baseline run is not trusted: its TALLY says untrusted=1" },
        { SIGKILL, 4, "mutate: the baseline run was killed by signal 9 (SIGKILL) before its TALLY line" },
    };
    for (int c = 0; c < 2; c++) {
        st = mutate_with_run_ended(&t, "fake.axpy.f32", "PASS   fake.axpy.f32  ", "run-baseline.json", cases[c].sig);
        const char *out = kc_out_file(t.out);
        cr_expect_eq(st, cases[c].status, "case %d: exit %d, expected %d\n%s%s", c, st, cases[c].status, out,
                     kc_out_file(t.err));
        cr_expect_eq(kc_out_count(out, ":mutant."), 0, "case %d: a mutant ran after that baseline:\n%s", c, out);
        cr_expect(strstr(out, "caught=0 missed=0 timeout=0 score=-"), "case %d:\n%s", c, out);
        cr_expect(strstr(kc_out_file(t.err), cases[c].said), "case %d: no line says why:\n%s", c, kc_out_file(t.err));
    }
    kc_rm_rf(t.dir);
}

/* Wave 1: fake.axpy.f32 misses the mutant; then the GPU is lost (the third
 * worker's driver sees none: the baseline's and wave 1's came first), and
 * wave 2's fakeblock.axpy.f32 is SKIP, no GPU. A contract ran the mutant
 * and it survived: missed, exit 1. Before, the SKIP outranked the miss (and
 * wave 2 had made the mutant undecided again): "not run 1 (skipped: no
 * GPU)", exit 3, which a CI without a GPU accepts. */
Test(mutate_trust, a_mutant_one_contract_missed_and_another_skipped_is_missed, .timeout = 60)
{
    trust_run t;
    trust_setup(&t, "muttrust-skip", "-");
    t.both = 1;
    snprintf(t.gpu_lost, sizeof t.gpu_lost, "%s/workers.txt:2", t.dir);
    int st = trust_wait(trust_start(&t, NULL), 60);
    const char *out = kc_out_file(t.out);
    char missed[200], skipped[200];
    snprintf(missed, sizeof missed, "MISSED fake.axpy.f32:mutant.%s  ", t.id);
    snprintf(skipped, sizeof skipped, "SKIP   fakeblock.axpy.f32:mutant.%s  no GPU", t.id);
    cr_assert(strstr(out, missed) && strstr(out, skipped) && strstr(out, "on to the module's other contracts"),
              "the premise: wave 1 missed it, wave 2 skipped it:\n%s%s", out, kc_out_file(t.err));
    cr_expect_eq(st, 1, "a missed mutant: exit %d\n%s%s", st, out, kc_out_file(t.err));
    cr_expect(strstr(out, "caught=0 missed=1 timeout=0 score=0.00"), "%s", out);
    cr_expect(!strstr(out, "skipped: no GPU"), "the miss reads skipped:\n%s", out);
    char item[200];
    snprintf(item, sizeof item, "\"state\":\"missed\",\"item\":\"fake.axpy.f32:mutant.%s\"", t.id);
    cr_expect(strstr(kc_out_file(t.json), item), "%s", kc_out_file(t.json));
    kc_rm_rf(t.dir);
}

/* The command that reproduces a trust_run (as trust_start runs it), for
 * the failure messages. */
static const char *trust_command(const trust_run *t, const char *test)
{
    static char cmd[4096];
    snprintf(cmd, sizeof cmd, "reproduce: CRITERION_TEST_PATTERN='mutate_trust/%s' make test; or by hand: "
             "KC_LIBCUDA=build/libfake_cuda.so MAKE=%s KC_CACHE_DIR=off%s%s%s%s%s%s %s mutate --source-dir %s "
             "--mutants-dir %s --operators bound --jobs 1 --json %s fake.axpy.f32", test, t->make,
             *t->says ? " KC_FAKE_LOAD_SAYS='" : "", t->says, *t->says ? "'" : "",
             *t->slow ? " KC_FAULT_SLOW_ITEM='" : "", t->slow, *t->slow ? "'" : "", kc_test_fixture_bin(), t->src,
             t->mut, t->json);
    return cmd;
}

/* A trusted wave whose item lines do not add up to what it was handed and
 * to its TALLY: the mutant's image prints, when loaded, a line that reads
 * as a verdict (as an item's host code or a kernel's printf may:
 * KC_FAKE_LOAD_SAYS) while the mutant itself is clean (MISSED). Its
 * verdicts do not count: the mutant is not run, its why and a line on
 * stderr name the item and both counts, and mutate exits 1, as for a wave
 * not trusted. Before, the forged RED counted: caught=1 score=1.00, exit 0,
 * where the TALLY said 1 control MISSED and 0 RED. */
Test(mutate_trust, a_wave_whose_lines_do_not_add_up_to_its_tally_counts_no_verdict, .timeout = 120)
{
    static const char *test = "a_wave_whose_lines_do_not_add_up_to_its_tally_counts_no_verdict";
    trust_run t;
    trust_setup(&t, "muttrust-lines", "forged");
    char missed[200], twice[300], stranger[300];
    snprintf(missed, sizeof missed, "MISSED fake.axpy.f32:mutant.%s  ", t.id);
    snprintf(twice, sizeof twice, "item fake.axpy.f32:mutant.%s has 2 lines, 1 expected", t.id);
    snprintf(stranger, sizeof stranger, "a line of item fakeblock.axpy.f32:mutant.%s, which it was not handed", t.id);
    struct { const char *forged, *said, *counts; } cases[] = {
        /* a second line of the item it ran: RED where the run says MISSED */
        { "RED    fake.axpy.f32:mutant.%s  caught by gate 3 (printed by the item itself)", twice,
          "the TALLY counts 1 mutant item (MISSED 1), its lines 2 (RED 1, MISSED 1)" },
        /* a line of an item it was not handed (fakeblock.axpy.f32 is not selected) */
        { "RED    fakeblock.axpy.f32:mutant.%s  caught by gate 3 (printed by the item itself)", stranger,
          "the TALLY counts 1 mutant item (MISSED 1), its lines 2 (RED 1, MISSED 1)" },
    };
    for (int c = 0; c < 2; c++) {
        char forged[300];
        snprintf(forged, sizeof forged, cases[c].forged, t.id);
        snprintf(t.says, sizeof t.says, "forged=%s", forged);
        int st = trust_wait(trust_start(&t, NULL), 60);
        char *out = strdup(kc_out_file(t.out)), *err = strdup(kc_out_file(t.err));   /* kc_out_file's buffer is one */
        cr_assert(out && err);
        cr_assert(strstr(out, missed) && strstr(out, forged) && strstr(out, "TALLY "),
                  "case %d: the premise: the run's MISSED line, the forged line and a TALLY:\n%s%s\n%s", c, out, err,
                  trust_command(&t, test));
        cr_expect_eq(st, 1, "case %d: exit %d, expected 1 (a wave whose lines do not add up)\n%s%s\n%s", c, st, out,
                     err, trust_command(&t, test));
        cr_expect(strstr(out, "caught=0 missed=0 timeout=0 score=-") && strstr(out, "not run 1, score -"),
                  "case %d: the lines of a wave that do not add up to its TALLY counted (expected caught=0 "
                  "missed=0, not run 1):\n%s\n%s", c, out, trust_command(&t, test));
        cr_expect(strstr(err, "mutate: the mutants' run (wave 1) printed lines that do not add up to its TALLY: ") &&
                  strstr(err, cases[c].said) && strstr(err, cases[c].counts) &&
                  strstr(err, "none of its verdicts count; its 1 mutant is not run"),
                  "case %d: stderr does not say '%s' and '%s':\n%s\n%s", c, cases[c].said, cases[c].counts, err,
                  trust_command(&t, test));
        cr_expect(strstr(err, "mutate: to rerun that item: KC_MUTANTS="),
                  "case %d: no command reruns the item:\n%s\n%s", c, err, trust_command(&t, test));
        const char *j = kc_out_file(t.json);
        cr_expect(strstr(j, "\"state\":\"notrun\",\"why\":\"its run (wave 1) printed lines that do not add up") &&
                  strstr(j, cases[c].said), "case %d: the report's why does not name '%s':\n%s\n%s", c,
                  cases[c].said, j, trust_command(&t, test));
        free(out);
        free(err);
    }
    kc_rm_rf(t.dir);
}

/* kc_mut_wave_lines_check on lines made up here: what the fixture's runs
 * cannot print (a run prints one line per item it ran, so an item with no
 * line is not reachable through them): an item handed to the wave without
 * a line, which a whole wave refuses naming it and a --shard wave's slice
 * leaves to the counts; counts that differ from the TALLY's; lines that add
 * up. */
Test(mutate_trust, wave_lines_are_checked_against_what_was_handed_and_the_tally)
{
    kc_mutant v[2];
    memset(v, 0, sizeof v);
    snprintf(v[0].id, sizeof v[0].id, "0000000000aa");
    snprintf(v[1].id, sizeof v[1].id, "0000000000bb");
    kc_mutants m = { .v = v, .n = 2, .cap = 2 };
    kc_mut_item lines[2];
    memset(lines, 0, sizeof lines);
    lines[0].mutant = 0;
    snprintf(lines[0].contract, sizeof lines[0].contract, "fake.axpy.f32");
    lines[0].state = KC_MUT_CAUGHT;
    kc_mut_run_ctx rx = { .m = &m, .items = lines, .nitems = 1, .cap = 2 };
    rx.end.tally = 1;
    rx.end.control[KC_RED] = 1;
    rx.lines[KC_RED] = 1;
    const kc_mut_pair handed[2] = { { 0, "fake.axpy.f32" }, { 1, "fake.axpy.f32" } };
    char why[400], item[200];
    /* mutant bb's item has no line: a whole wave refuses it */
    int r = kc_mut_wave_lines_check(&rx, 0, handed, 2, 1, why, sizeof why, item, sizeof item);
    cr_expect_eq(r, 1, "an item handed with no line passed: %s", why);
    cr_expect(strstr(why, "item fake.axpy.f32:mutant.0000000000bb has no line, 1 expected") &&
              strstr(why, "the TALLY counts 1 mutant item (RED 1), its lines 1 (RED 1)"), "%s", why);
    cr_expect_str_eq(item, "fake.axpy.f32:mutant.0000000000bb");
    /* a --shard slice: the run chose its items; the counts agree */
    r = kc_mut_wave_lines_check(&rx, 0, handed, 2, 0, why, sizeof why, item, sizeof item);
    cr_expect_eq(r, 0, "a shard's lines that add up to its TALLY refused: %s", why);
    /* ... and when they do not (the TALLY ran 2 items, one line was read) */
    rx.end.control[KC_RED] = 2;
    r = kc_mut_wave_lines_check(&rx, 0, handed, 2, 0, why, sizeof why, item, sizeof item);
    cr_expect_eq(r, 1, "a line fewer than the TALLY counts passed");
    cr_expect(strstr(why, "printed lines that do not add up to its TALLY: the TALLY counts 2 mutant items (RED 2), "
                          "its lines 1 (RED 1)"), "%s", why);
    cr_expect_str_eq(item, "", "no one item is to blame: %s", item);
    /* both items with a line each, as the TALLY counts them */
    lines[1] = lines[0];
    lines[1].mutant = 1;
    lines[1].state = KC_MUT_MISSED;
    rx.nitems = 2;
    rx.end.control[KC_RED] = 1;
    rx.end.control[KC_MISSED] = 1;
    rx.lines[KC_MISSED] = 1;
    r = kc_mut_wave_lines_check(&rx, 0, handed, 2, 1, why, sizeof why, item, sizeof item);
    cr_expect_eq(r, 0, "lines that add up refused: %s", why);
    /* the lines before `from` are an earlier wave's */
    r = kc_mut_wave_lines_check(&rx, 1, handed, 2, 1, why, sizeof why, item, sizeof item);
    cr_expect_eq(r, 1, "an earlier wave's line counted as this one's");
    cr_expect(strstr(why, "item fake.axpy.f32:mutant.0000000000aa has no line, 1 expected"), "%s", why);
}

/* A wave that exits 4 after a trusted TALLY: its own report
 * (run-wave1.json, which mutate asks it for) cannot be written, here
 * because its path is a link to /dev/full (a full disk). mutate reads the wave's lines, which
 * the TALLY vouches for and which add up, never that report: its verdicts
 * count (caught=1), a line says the report is missing, and mutate exits 4,
 * as `run` does for a report it could not write. Before, the exit 4 went
 * unsaid and mutate exited 0. */
Test(mutate_trust, a_wave_whose_report_cannot_be_written_counts_its_verdicts_and_exits_4, .timeout = 120)
{
    static const char *test = "a_wave_whose_report_cannot_be_written_counts_its_verdicts_and_exits_4";
    trust_run t;
    trust_setup(&t, "muttrust-wave4", "wrong_value");
    char wjson[700];
    snprintf(wjson, sizeof wjson, "%s/run-wave1.json", t.mut);
    cr_assert_eq(mkdir(t.mut, 0777), 0);
    cr_assert_eq(symlink("/dev/full", wjson), 0, "%s: %s", wjson, strerror(errno));
    int st = trust_wait(trust_start(&t, NULL), 60);
    char *out = strdup(kc_out_file(t.out)), *err = strdup(kc_out_file(t.err));
    cr_assert(out && err);
    char red[200];
    snprintf(red, sizeof red, "RED    fake.axpy.f32:mutant.%s  ", t.id);
    cr_assert(strstr(out, red) && strstr(err, "--json ") && strstr(err, "run-wave1.json"),
              "the premise: the mutant RED, the wave's report not written:\n%s%s\n%s", out, err,
              trust_command(&t, test));
    cr_expect_eq(st, 4, "exit %d, expected 4 (the wave's report could not be written)\n%s%s\n%s", st, out, err,
                 trust_command(&t, test));
    cr_expect(strstr(out, "caught=1 missed=0 timeout=0 score=1.00"),
              "the verdicts of a wave whose lines add up to its trusted TALLY did not count (expected caught=1):\n"
              "%s\n%s", out, trust_command(&t, test));
    cr_expect(strstr(err, "mutate: the mutants' run (wave 1) exited 4 after its TALLY line: a report of its could "
                          "not be written") && strstr(err, "its verdicts count") && strstr(err, "mutate exits 4"),
              "no line says the wave's report is missing and what mutate concludes:\n%s\n%s", err,
              trust_command(&t, test));
    cr_expect(strstr(kc_out_file(t.json), "\"state\":\"caught\""), "%s\n%s", kc_out_file(t.json),
              trust_command(&t, test));
    free(out);
    free(err);
    kc_rm_rf(t.dir);
}

/* The baseline exits 4 after a trusted TALLY: its report, from which
 * mutate reads which contracts pass unmutated, cannot be written (its item
 * slowed, KC_FAULT_SLOW_ITEM, while a folder replaces the report's
 * placeholder). No mutant runs, a line says why, and mutate exits 4, as
 * for a baseline that ended without its TALLY. Before, mutate read the
 * folder as a report with no line: "fake.axpy.f32 has no line in the
 * baseline's report", and exited 1 as if a contract had been dropped. */
Test(mutate_trust, a_baseline_whose_report_cannot_be_written_runs_no_mutant_and_exits_4, .timeout = 120)
{
    static const char *test = "a_baseline_whose_report_cannot_be_written_runs_no_mutant_and_exits_4";
    trust_run t;
    trust_setup(&t, "muttrust-base4", "wrong_value");
    snprintf(t.slow, sizeof t.slow, "fake.axpy.f32@3");
    char bjson[700];
    snprintf(bjson, sizeof bjson, "%s/run-baseline.json", t.mut);
    pid_t pid = trust_start(&t, NULL);
    cr_assert(wait_for_text(bjson, "\"type\":\"incomplete\"", 30), "the baseline's report has no placeholder:\n%s\n%s",
              kc_out_file(t.out), trust_command(&t, test));
    cr_assert_eq(unlink(bjson), 0, "%s: %s", bjson, strerror(errno));
    cr_assert_eq(mkdir(bjson, 0777), 0, "%s: %s", bjson, strerror(errno));
    int st = trust_wait(pid, 60);
    char *out = strdup(kc_out_file(t.out)), *err = strdup(kc_out_file(t.err));
    cr_assert(out && err);
    cr_assert(strstr(out, "PASS   fake.axpy.f32  ") && strstr(out, "TALLY ") && strstr(err, "--json "),
              "the premise: the baseline passed and printed its TALLY, its report not written:\n%s%s\n%s", out, err,
              trust_command(&t, test));
    cr_expect_eq(st, 4, "exit %d, expected 4 (the baseline's report could not be written)\n%s%s\n%s", st, out, err,
                 trust_command(&t, test));
    cr_expect_eq(kc_out_count(out, ":mutant."), 0, "a mutant ran after that baseline:\n%s\n%s", out,
                 trust_command(&t, test));
    cr_expect(strstr(err, "mutate: the baseline run exited 4 after its TALLY line: a report of its could not be "
                          "written") && strstr(err, "no mutant is run, and mutate exits 4"),
              "no line says why:\n%s\n%s", err, trust_command(&t, test));
    free(out);
    free(err);
    rmdir(bjson);
    kc_rm_rf(t.dir);
}
