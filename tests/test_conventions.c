/* test_conventions.c — the command-line conventions users of cargo-nextest,
 * CTest and GoogleTest expect (issue 25), on the real binaries without a GPU:
 * options before the command, -j, --version, --status-level, colours,
 * list --format json, the binary's own name, --exclude that matches nothing. */
#include <criterion/criterion.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kcontract.h"
#include "support/run_output.h"
#include "support/spawn.h"

/* Runs bin with the NULL-ended arguments after it, without a GPU. */
static kc_proc run_bin(const char *bin, char *const *env_extra, ...)
{
    char *argv[32] = { (char *)bin };
    int a = 1;
    va_list ap;
    va_start(ap, env_extra);
    for (char *s; a < 31 && (s = va_arg(ap, char *));) argv[a++] = s;
    va_end(ap);
    argv[a] = NULL;
    char *env[16] = { "KC_LIBCUDA=none" };
    for (int e = 0; env_extra && env_extra[e] && e < 14; e++) env[e + 1] = env_extra[e];
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 120, &p), 0, "cannot start %s", bin);
    return p;
}

#define KC(...) run_bin(kc_test_bin(), NULL, __VA_ARGS__, NULL)
#define FIX(...) run_bin(kc_test_fixture_bin(), NULL, __VA_ARGS__, NULL)

/* ---- options before the command, -j ---- */

/* `kcontract --seed 3 run 'x*'` is `kcontract run 'x*' --seed 3`: the
 * command word may follow options (and their values), as git's, cargo's and
 * ctest's global options do. It used to be read as a PATTERN 'run'. */
Test(conventions, options_before_the_command)
{
    kc_proc p = FIX("--seed", "3", "run", "fixture.pass.0[01]");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, " seed=3 ") && strstr(p.out, " items=2 "), "%s", p.out);
    kc_proc_free(&p);
    p = FIX("--seed=3", "--threads", "1", "list", "fixture.pass.0[01]");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "suite    fixture.pass.00\nsuite    fixture.pass.01\n2 items: "), "%s", p.out);
    kc_proc_free(&p);
    /* the option still has to apply to the command it precedes */
    p = FIX("--jobs", "2", "list");
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--jobs applies to run and mutate only"), "%s", p.err);
    kc_proc_free(&p);
    /* a command after a PATTERN is a pattern, and is said to be a command */
    p = FIX("fixture.pass.00", "run");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "pattern 'run' matches no item") &&
              strstr(p.err, "'run' is a command: it comes before every PATTERN"), "%s", p.err);
    kc_proc_free(&p);
    /* a mistyped command after options is still named as one */
    p = FIX("--seed", "3", "lst");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "nor is 'lst' a command"), "%s", p.err);
    kc_proc_free(&p);
}

/* -j N and -jN are --jobs N, before or after the command. */
Test(conventions, j_is_jobs)
{
    const char *forms[][3] = { { "-j", "2", "run" }, { "run", "-j", "2" }, { "-j2", "run", NULL } };
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "j-costs", "tsv");
    for (int f = 0; f < 3; f++) {
        kc_proc p = forms[f][2] ? FIX((char *)forms[f][0], (char *)forms[f][1], (char *)forms[f][2], "fixture.pass.0*",
                                      "--costs", costs)
                                : FIX((char *)forms[f][0], (char *)forms[f][1], "fixture.pass.0*", "--costs", costs);
        cr_expect_eq(p.status, 0, "form %d: exit %d\n%s%s", f, p.status, p.out, p.err);
        cr_expect(strstr(p.out, "--jobs 2: a work queue of 2 workers"), "form %d:\n%s", f, p.out);
        cr_expect(strstr(p.out, "[w0] ") || strstr(p.out, "[w1] "), "form %d:\n%s", f, p.out);
        kc_proc_free(&p);
    }
    kc_proc p = FIX("run", "-j", "0");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--jobs: expected a number of processes from 1 to"), "%s", p.err);
    kc_proc_free(&p);
    p = FIX("run", "-j", "2", "--jobs", "3");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--jobs given twice"), "%s", p.err);
    kc_proc_free(&p);
    p = FIX("--help");
    cr_expect(strstr(p.out, "  -j, --jobs N  "), "the usage names -j:\n%s", p.out);
    kc_proc_free(&p);
    unlink(costs);
}

/* ---- --version ---- */

/* One line: the program's own name, kcontract's version and ABI, the build
 * identity (the TALLY's build=) and what is registered; exit 0. `version`
 * is the same, and so is --version after any command. */
Test(conventions, version_names_the_program_and_its_build)
{
    char want[128], build[64] = "", line[4096];
    kc_proc r = FIX("run", "fixture.pass.00");
    cr_assert(kc_out_line(r.out, "TALLY ", line, sizeof line) == 0, "%s", r.out);
    const char *b = strstr(line, " build=");
    cr_assert(b);
    snprintf(build, sizeof build, "%.16s", b + 7);
    kc_proc_free(&r);
    kc_proc l = FIX("list");          /* each registered contract is one kernel item */
    int contracts = -1;
    const char *c = strstr(l.out, " items: ");
    cr_assert(c && sscanf(c, " items: %d kernel", &contracts) == 1, "%s", l.out);
    kc_proc_free(&l);
    const char *forms[][2] = { { "--version", NULL }, { "version", NULL }, { "run", "--version" } };
    for (int f = 0; f < 3; f++) {
        kc_proc p = forms[f][1] ? FIX((char *)forms[f][0], (char *)forms[f][1]) : FIX((char *)forms[f][0]);
        cr_expect_eq(p.status, 0, "%s: exit %d\n%s%s", forms[f][0], p.status, p.out, p.err);
        snprintf(want, sizeof want, "kcontract-fixture (kcontract %d.0.0, ABI %d, build %s, %d contracts, ", KC_ABI_VERSION,
                 KC_ABI_VERSION, build, contracts);
        cr_expect(strncmp(p.out, want, strlen(want)) == 0 && kc_out_count(p.out, "\n") == 1,
                  "%s: want '%s...', got '%s'", forms[f][0], want, p.out);
        kc_proc_free(&p);
    }
    kc_proc p = KC("--version");
    snprintf(want, sizeof want, "kcontract %d.0.0 (ABI %d, build ", KC_ABI_VERSION, KC_ABI_VERSION);
    cr_expect_eq(p.status, 0);
    cr_expect(strncmp(p.out, want, strlen(want)) == 0, "want '%s...', got '%s'", want, p.out);
    kc_proc_free(&p);
    p = FIX("version", "x*");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "version takes no patterns"), "%s", p.err);
    kc_proc_free(&p);
}

/* ---- list --format json ---- */

/* Runs a Python script on `file`; the test is skipped without python3. */
static kc_proc python(const char *script, const char *file)
{
    return kc_run_python3((char *[]){ "-c", (char *)script, (char *)file, NULL }, 20);
}

/* Every line one JSON object with the keys; the family is the contract's
 * (or a suite's) first dotted component; a control names its control, a
 * record item its label. Prints what the test compares. */
static const char *PY_LIST =
    "import json,sys\n"
    "def no_const(c): raise ValueError('constant ' + c)\n"
    "n = 0\n"
    "for line in open(sys.argv[1], encoding='utf-8', errors='strict'):\n"
    "    o = json.loads(line, parse_constant=no_const)\n"
    "    n += 1\n"
    "    for k in ('name', 'kind', 'contract', 'family', 'shapes', 'controls', 'needs_gpu'): assert k in o, (k, o)\n"
    "    c = o['contract']\n"
    "    assert o['family'] == (c or o['name']).split('.')[0], o\n"
    "    assert (o['kind'] == 'suite') == (c is None), o\n"
    "    assert (o['kind'] == 'control') == ('control' in o), o\n"
    "    if o['kind'] == 'control': assert o['name'] == c + ':control.' + o['control'] and o['control'] in o['controls'], o\n"
    "    if 'label' in o: print('record', o['name'], o['label'], o['shapes'], o['record'].split('/')[-1])\n"
    "    if o['name'] == 'fake.axpy.f32': print('kernel', o['family'], o['shapes'], o['controls'])\n"
    "    if o['name'] == 'fixture.pass.00': print('suite', o['family'], o['shapes'], o['controls'], o['needs_gpu'])\n"
    "print('lines', n)\n";

Test(conventions, list_format_json)
{
    char recs[256], out[256];
    kc_tmp_path(recs, sizeof recs, "list-json", "recs");
    kc_tmp_path(out, sizeof out, "list-json", "out");
    kc_write_file(recs, "fake.axpy.f32 n=7 name=t7\n");
    kc_proc h = FIX("list", "--records", recs, "*");    /* the human list: a line per item, then the count */
    cr_assert_eq(h.status, 0, "%s%s", h.out, h.err);
    int items = kc_out_count(h.out, "\n") - 1;
    kc_proc_free(&h);
    kc_proc p = FIX("--format", "json", "list", "--records", recs, "*");
    cr_assert_eq(p.status, 0, "%s%s", p.out, p.err);
    kc_write_file(out, p.out);
    kc_proc q = python(PY_LIST, out);
    cr_expect_eq(q.status, 0, "python: %s\n%s", q.err, p.out);
    cr_expect(strstr(q.out, "record fake.axpy.f32@t7 t7 ['t7'] "), "%s", q.out);
    cr_expect(strstr(q.out, "kernel fake ['model.hidden.4096', 'edge.1', 'edge.33', 'large.1e6'] ['write_input', "
                            "'wrong_value', 'nondeterministic', 'fault', 'blind']\n"), "%s", q.out);
    cr_expect(strstr(q.out, "suite fixture [] [] False\n"), "%s", q.out);
    char lines[32];
    snprintf(lines, sizeof lines, "lines %d\n", items);
    cr_expect(strstr(q.out, lines) && items > 100, "want '%s' (the human list's items):\n%s", lines, q.out);
    cr_expect(!strstr(p.out, " items: "), "nothing but JSON on stdout:\n%s", p.out);
    kc_proc_free(&q);
    kc_proc_free(&p);
    p = FIX("list", "--format", "xml");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--format: expected 'human' or 'json', got 'xml'"), "%s", p.err);
    kc_proc_free(&p);
    p = FIX("list", "--format", "human", "fixture.pass.00");
    cr_expect_eq(p.status, 0);
    cr_expect(strstr(p.out, "suite    fixture.pass.00\n1 item: "), "%s", p.out);
    kc_proc_free(&p);
    p = FIX("run", "--format", "json", "fixture.pass.00");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--format applies to list only"), "%s", p.err);
    kc_proc_free(&p);
    unlink(recs);
    unlink(out);
}

/* ---- JUnit: classname by family, timestamp, properties ---- */

static const char *PY_JUNIT_RUN =
    "import sys, time, xml.etree.ElementTree as ET\n"
    "root = ET.parse(sys.argv[1]).getroot()\n"
    "s = root.find('testsuite')\n"
    "print('suite', root.get('name'), s.get('name'))\n"
    "ts = s.get('timestamp')\n"
    "if ts is None: print('timestamp none')\n"
    "else: print('timestamp', 'near' if abs(time.mktime(time.strptime(ts, '%Y-%m-%dT%H:%M:%S')) - time.time()) < 600 else ts)\n"
    "props = s.find('properties')\n"
    "assert props is None or list(s).index(props) == 0, 'properties come first'\n"
    "for p in (props if props is not None else []): print('property', p.get('name'), p.get('value'))\n"
    "for c in s.findall('testcase'): print('case', c.get('classname'), c.get('name'))\n";

Test(conventions, junit_classname_timestamp_properties)
{
    char junit[256], want[160], line[4096];
    kc_tmp_path(junit, sizeof junit, "junit-conv", "xml");
    kc_proc r = kc_run_fake((char *[]){ "run", "fake.axpy.f32", "fake.axpy.f32:control.wrong_value", "fixture.pass.00",
                                        "--seed", "5", "--junit", junit, NULL }, NULL, 60);
    cr_assert_eq(r.status, 0, "exit %d\n%s%s", r.status, r.out, r.err);
    cr_assert(kc_out_line(r.out, "TALLY ", line, sizeof line) == 0);
    kc_proc q = python(PY_JUNIT_RUN, junit);
    cr_expect_eq(q.status, 0, "python: %s\n%s", q.err, kc_out_file(junit));
    cr_expect(strstr(q.out, "suite kcontract-fixture kcontract-fixture\n"), "the program's name:\n%s", q.out);
    cr_expect(strstr(q.out, "timestamp near\n"), "%s", q.out);
    snprintf(want, sizeof want, "property build %.16s\n", strstr(line, " build=") + 7);
    cr_expect(strstr(q.out, "property seed 5\n") && strstr(q.out, want) &&
              strstr(q.out, "property device kcontract fake GPU\n") && strstr(q.out, "property compute_capability 9.0\n") &&
              strstr(q.out, "property sms 4\n") && strstr(q.out, "property shard 0/1\n"), "want '%s' among:\n%s", want, q.out);
    cr_expect(strstr(q.out, "case fake fake.axpy.f32\n") && strstr(q.out, "case fake fake.axpy.f32:control.wrong_value\n") &&
              strstr(q.out, "case fixture fixture.pass.00\n"), "classname = family:\n%s", q.out);
    kc_proc_free(&q);
    kc_proc_free(&r);
    /* without a GPU, sharded */
    r = FIX("run", "fixture.pass.0*", "--shard", "1/2", "--junit", junit);
    cr_assert_eq(r.status, 0, "exit %d\n%s%s", r.status, r.out, r.err);
    q = python(PY_JUNIT_RUN, junit);
    cr_expect(strstr(q.out, "property device none\n") && strstr(q.out, "property compute_capability 0.0\n") &&
              strstr(q.out, "property shard 1/2\n") && strstr(q.out, "property seed 1\n"), "%s", q.out);
    kc_proc_free(&q);
    /* a merge of shards' logs: when they ran is not in them, so no timestamp */
    char log0[256], log1[256];
    kc_tmp_path(log0, sizeof log0, "junit-conv", "0.log");
    kc_tmp_path(log1, sizeof log1, "junit-conv", "1.log");
    kc_write_file(log1, r.out);
    kc_proc_free(&r);
    r = FIX("run", "fixture.pass.0*", "--shard", "0/2");
    kc_write_file(log0, r.out);
    kc_proc_free(&r);
    r = FIX("merge", "fixture.pass.0*", "--log", log0, "--log", log1, "--junit", junit);
    cr_expect_eq(r.status, 0, "merge: exit %d\n%s%s", r.status, r.out, r.err);
    q = python(PY_JUNIT_RUN, junit);
    cr_expect(strstr(q.out, "timestamp none\n") && strstr(q.out, "property seed 1\n") &&
              strstr(q.out, "case fixture fixture.pass.00\n"), "%s", q.out);
    kc_proc_free(&q);
    kc_proc_free(&r);
    unlink(log0);
    unlink(log1);
    unlink(junit);
}

/* ---- merge --log DIR: files that are no kcontract log ---- */

/* Bazel's testlogs, a CI artifact directory: beside the shards' logs there
 * are other .log files. Those that hold nothing of a kcontract run are left
 * out with one note naming them; a file that is a kcontract log but broken
 * (cut before its TALLY) still fails the merge, and so does an unrelated
 * file named by --log FILE. */
Test(conventions, merge_directory_ignores_files_that_are_no_kcontract_log, .timeout = 60)
{
    char dir[200], path[480], other[400], sub[400];
    kc_tmp_dir(dir, sizeof dir, "merge-conv");
    for (int k = 0; k < 2; k++) {
        char spec[8];
        snprintf(spec, sizeof spec, "%d/2", k);
        kc_proc r = FIX("run", "fixture.pass.0*", "--shard", spec);
        cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
        snprintf(path, sizeof path, "%s/shard_%d.log", dir, k);
        kc_write_file(path, r.out);
        kc_proc_free(&r);
    }
    snprintf(other, sizeof other, "%s/build.log", dir);
    kc_write_file(other, "gcc -O2 -c a.c\nld -o a a.o\nPASS would be a word here too\n");
    snprintf(sub, sizeof sub, "%s/sub", dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    snprintf(path, sizeof path, "%s/empty.log", sub);
    kc_write_file(path, "");
    kc_proc m = FIX("merge", "fixture.pass.0*", "--log", dir);
    cr_expect_eq(m.status, 0, "exit %d\n%s%s", m.status, m.out, m.err);
    char want[2048];
    snprintf(want, sizeof want, "note: left out 2 files found under --log directories that are no kcontract run's log "
             "(no TALLY, SUMMARY, run header or item line of these patterns): %s, %s\n", other, path);
    cr_expect(strstr(m.out, want), "want '%s' in:\n%s", want, m.out);
    cr_expect_eq(kc_out_count(m.out, "note: left out"), 1, "%s", m.out);
    cr_expect(strstr(m.out, " items=10 ") && strstr(m.out, "\nSUMMARY "), "%s", m.out);
    kc_proc_free(&m);
    /* named by --log FILE, the unrelated file still fails the merge */
    char log0[400];
    snprintf(log0, sizeof log0, "%s/shard_0.log", dir);
    m = FIX("merge", "fixture.pass.0*", "--log", log0, "--log", other);
    cr_expect_eq(m.status, 1, "exit %d\n%s%s", m.status, m.out, m.err);
    cr_expect(strstr(m.out, "build.log: no TALLY followed by a SUMMARY"), "%s", m.out);
    kc_proc_free(&m);
    /* a kcontract log cut before its TALLY (its header and item lines are
     * there) is not left out: the merge fails, naming it */
    char cut[420];
    snprintf(cut, sizeof cut, "%s/cut.log", sub);
    const char *whole = kc_out_file(log0);
    char text[1 << 16];
    snprintf(text, sizeof text, "%.*s", (int)(strstr(whole, "\nTALLY ") - whole + 1), whole);
    kc_write_file(cut, text);
    m = FIX("merge", "fixture.pass.0*", "--log", dir);
    cr_expect_eq(m.status, 1, "exit %d\n%s%s", m.status, m.out, m.err);
    cr_expect(strstr(m.out, "cut.log: no TALLY followed by a SUMMARY"), "%s", m.out);
    kc_proc_free(&m);
    kc_rm_rf(dir);
}

/* ---- --status-level ---- */

/* A GPU-less run of the whole suite with --status-level fail prints no SKIP
 * (nor PASS) line: only the header, the TALLY, the SUMMARY and the notes. */
Test(conventions, status_level_fail_hides_skip_lines_of_a_gpu_less_run, .timeout = 120)
{
    kc_proc p = KC("run", "--status-level", "fail");
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect_eq(kc_out_count_lines(p.out, "SKIP "), 0, "%s", p.out);
    cr_expect_eq(kc_out_count_lines(p.out, "PASS "), 0, "%s", p.out);
    cr_expect(strstr(p.out, "\nTALLY v=4 ") && strstr(p.out, "\nSUMMARY ") && strstr(p.out, " items skipped: no GPU"),
              "%s", p.out);
    kc_tally t;
    kc_out_tally(p.out, &t);
    cr_expect_gt(t.n[KC_KIND_KERNEL][KC_SKIP], 0, "the SKIPs are counted, not printed");
    kc_proc_free(&p);
}

/* Each level, serial and with --jobs (whose workers print the lines the
 * parent passes on): a failing line is printed at every level. */
Test(conventions, status_levels, .timeout = 120)
{
    const char *levels[] = { "fail", "pass", "skip", "all" };
    int pass_shown[] = { 0, 1, 1, 1 }, skip_shown[] = { 0, 0, 1, 1 };
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "level-costs", "tsv");
    for (int j = 0; j < 2; j++)
        for (int l = 0; l < 4; l++) {
            kc_proc p = j ? FIX("run", "fixture.pass.00", "fixture.fail", "fake.axpy.f32", "--status-level",
                                (char *)levels[l], "-j", "2", "--costs", costs)
                          : FIX("run", "fixture.pass.00", "fixture.fail", "fake.axpy.f32", "--status-level",
                                (char *)levels[l]);
            char st[16];
            cr_expect_eq(p.status, 1, "%s: exit %d\n%s%s", levels[l], p.status, p.out, p.err);
            cr_expect_eq(kc_out_state_lines(p.out, "fixture.fail", st, sizeof st), 1, "%s -j%d:\n%s", levels[l], j, p.out);
            cr_expect_eq(kc_out_state_lines(p.out, "fixture.pass.00", st, sizeof st), pass_shown[l], "%s -j%d:\n%s",
                         levels[l], j, p.out);
            cr_expect_eq(kc_out_state_lines(p.out, "fake.axpy.f32", st, sizeof st), skip_shown[l], "%s -j%d:\n%s",
                         levels[l], j, p.out);
            cr_expect(strstr(p.out, " suite.pass=1 suite.fail=1 ") && strstr(p.out, "\nSUMMARY "), "%s", p.out);
            kc_proc_free(&p);
        }
    kc_proc p = FIX("run", "--status-level", "none");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--status-level: expected 'fail', 'pass', 'skip' or 'all', got 'none'"), "%s", p.err);
    kc_proc_free(&p);
    /* a shard's log is merged from its item lines: all of them */
    p = FIX("run", "fixture.pass.0*", "--shard", "0/2", "--status-level", "fail");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--status-level fail does not combine with --shard 0/2"), "%s", p.err);
    cr_expect(!strstr(p.out, "TALLY"), "%s", p.out);
    kc_proc_free(&p);
    unlink(costs);
}

/* ---- colours ---- */

/* Runs the fixture binary on a pseudo-terminal with NO_COLOR unset (no_color
 * NULL) or set to no_color; returns everything it wrote (static buffer). */
static char *on_pty(char *const *args, const char *no_color)
{
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    cr_assert(pid >= 0, "forkpty");
    if (pid == 0) {
        char *argv[32] = { (char *)kc_test_fixture_bin() };
        int a = 1;
        for (; args[a - 1] && a < 31; a++) argv[a] = args[a - 1];
        argv[a] = NULL;
        setenv("KC_LIBCUDA", "none", 1);
        setenv("TERM", "xterm", 1);
        if (no_color) setenv("NO_COLOR", no_color, 1);
        else unsetenv("NO_COLOR");
        execv(argv[0], argv);
        _exit(127);
    }
    static char out[1 << 17];
    size_t n = 0;
    for (;;) {
        struct pollfd pfd = { master, POLLIN, 0 };
        if (poll(&pfd, 1, 20000) <= 0) break;
        ssize_t k = read(master, out + n, sizeof out - 1 - n);
        if (k <= 0) break;   /* EIO once the child is gone */
        n += (size_t)k;
    }
    out[n] = 0;
    close(master);
    int st;
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return out;
}

#define GREEN_PASS "\033[32mPASS\033[0m   fixture.pass.00  "
#define RED_FAIL "\033[31mFAIL\033[0m   fixture.fail  "
#define SKIP_GREY "\033[90mSKIP\033[0m   fake.axpy.f32  "

/* On a terminal the state word (only it: not its padding, not the rest of
 * the line, not TALLY or SUMMARY) is coloured from the state table; under
 * auto NO_COLOR set and not empty turns it off, empty does not; always
 * colours anyway, never does not; a pipe is never coloured under auto. */
Test(conventions, colours_on_a_terminal, .timeout = 120)
{
    char *items[] = { "run", "fixture.pass.00", "fixture.fail", "fake.axpy.f32", NULL, NULL, NULL };
    char *out = on_pty(items, NULL);
    cr_expect(strstr(out, GREEN_PASS) && strstr(out, RED_FAIL) && strstr(out, SKIP_GREY), "auto, a terminal:\n%s", out);
    cr_expect(strstr(out, "\033[KTALLY v=4 ") && strstr(out, "\nSUMMARY 1 kernel"), "not coloured:\n%s", out);
    out = on_pty(items, "");
    cr_expect(strstr(out, GREEN_PASS), "NO_COLOR empty does not turn colour off:\n%s", out);
    out = on_pty(items, "1");
    cr_expect(!strstr(out, "\033[3") && !strstr(out, "\033[9") && strstr(out, "PASS   fixture.pass.00  "),
              "NO_COLOR=1 under auto:\n%s", out);
    items[4] = "--color";
    items[5] = "always";
    out = on_pty(items, "1");
    cr_expect(strstr(out, GREEN_PASS) && strstr(out, RED_FAIL), "--color always overrides NO_COLOR:\n%s", out);
    items[5] = "never";
    out = on_pty(items, NULL);
    cr_expect(!strstr(out, "\033[3") && !strstr(out, "\033[9") && strstr(out, "FAIL   fixture.fail  "),
              "--color never, the progress line's count too:\n%s", out);
    kc_proc p = FIX("run", "fixture.pass.00", "fixture.fail");
    cr_expect(!strchr(p.out, '\033') && !strchr(p.err, '\033'), "a pipe under auto:\n%s%s", p.out, p.err);
    kc_proc_free(&p);
    p = FIX("run", "fixture.pass.00", "fixture.fail", "--color=always");
    cr_expect(strstr(p.out, "\n" GREEN_PASS) && strstr(p.out, "\n" RED_FAIL), "--color=always on a pipe:\n%s", p.out);
    kc_proc_free(&p);
    p = FIX("run", "--color", "blue");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--color: expected 'auto', 'always' or 'never', got 'blue'"), "%s", p.err);
    kc_proc_free(&p);
}

/* A --jobs run: the parent colours the state word of the lines it passes on
 * from its workers (after the [wK] tag); a worker never colours (its stdout
 * is a pipe, and the parent would show an ESC it wrote as \x1b). The same for
 * a --schedule static run's [K/N] lines. */
Test(conventions, colours_of_worker_lines, .timeout = 120)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "colour-costs", "tsv");
    char *queue[] = { "run", "fixture.pass.00", "fixture.fail", "-j", "2", "--costs", costs, NULL };
    char *out = on_pty(queue, NULL);
    cr_expect((strstr(out, "[w0] " GREEN_PASS) || strstr(out, "[w1] " GREEN_PASS)) &&
              (strstr(out, "[w0] " RED_FAIL) || strstr(out, "[w1] " RED_FAIL)), "%s", out);
    cr_expect(!strstr(out, "\\x1b"), "a worker coloured its line:\n%s", out);
    kc_proc p = FIX("run", "fixture.pass.00", "fixture.fail", "-j", "2", "--costs", costs, "--color", "always");
    cr_expect(strstr(p.out, "] " GREEN_PASS) && !strstr(p.out, "\\x1b"), "%s", p.out);
    kc_proc_free(&p);
    p = FIX("run", "fixture.pass.00", "fixture.fail", "-j", "2", "--schedule", "static", "--color", "always");
    cr_expect(strstr(p.out, "] " GREEN_PASS) && strstr(p.out, "] " RED_FAIL) && !strstr(p.out, "\\x1b"), "%s", p.out);
    kc_proc_free(&p);
    unlink(costs);
}

/* ---- the binary's own name ---- */

/* A user's suite binary (here the fixture binary under the name my_suite,
 * through a symbolic link) says "my_suite:" in its usage errors and usage
 * text, its run's header and the notes around the TALLY, the lines its
 * --jobs parent and workers print, and its JUnit report; not "kcontract:". */
Test(conventions, a_suite_binary_says_its_own_name, .timeout = 60)
{
    char dir[200], bin[260], abs[4096], junit[300], costs[300];
    kc_tmp_dir(dir, sizeof dir, "progname");
    snprintf(bin, sizeof bin, "%s/my_suite", dir);
    cr_assert(realpath(kc_test_fixture_bin(), abs), "%s", kc_test_fixture_bin());
    cr_assert_eq(symlink(abs, bin), 0);
    snprintf(junit, sizeof junit, "%s/junit.xml", dir);
    snprintf(costs, sizeof costs, "%s/costs.tsv", dir);
    kc_proc p = run_bin(bin, NULL, "run", "--seed", "x", NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strncmp(p.err, "my_suite: --seed: ", 18) == 0 && strstr(p.err, "(my_suite --help lists the options)"),
              "%s", p.err);
    kc_proc_free(&p);
    p = run_bin(bin, NULL, "nosuch", NULL);
    cr_expect(strstr(p.err, "my_suite: pattern 'nosuch' matches no item (my_suite list shows the ") &&
              strstr(p.err, "my_suite: nor is 'nosuch' a command: my_suite run, "), "%s", p.err);
    kc_proc_free(&p);
    p = run_bin(bin, NULL, "--help", NULL);
    cr_expect(strncmp(p.out, "usage: my_suite [run] [options]", 31) == 0, "%s", p.out);
    kc_proc_free(&p);
    p = run_bin(bin, NULL, "run", "fixture.pass.00", "fake.axpy.f32", "--junit", junit, NULL);
    cr_expect_eq(p.status, 3, "%s%s", p.out, p.err);
    cr_expect(strncmp(p.out, "my_suite: 2 items selected, seed 1\nmy_suite: no GPU: ", 51) == 0, "%s", p.out);
    cr_expect(strstr(p.out, "\nmy_suite: 1 item skipped: no GPU (") && !strstr(p.out, "kcontract:"), "%s", p.out);
    cr_expect(strstr(p.out, "rerun: ") == NULL, "%s", p.out);
    cr_expect(strstr(kc_out_file(junit), "<testsuites name=\"my_suite\""), "%s", kc_out_file(junit));
    kc_proc_free(&p);
    p = run_bin(bin, NULL, "run", "fixture.pass.00", "fixture.fail", "-j", "2", "--costs", costs, NULL);
    cr_expect_eq(p.status, 1, "%s%s", p.out, p.err);
    cr_expect(strncmp(p.out, "my_suite: 2 items selected, seed 1; --jobs 2: a work queue", 58) == 0 &&
              strstr(p.out, "\nmy_suite: cost table ") && !strstr(p.out, "kcontract:") && !strstr(p.err, "kcontract:"),
              "%s%s", p.out, p.err);
    cr_expect(strstr(p.out, "  rerun: ") && strstr(p.out, "/my_suite run fixture.fail --seed 1"), "%s", p.out);
    kc_proc_free(&p);
    p = run_bin(bin, NULL, "--version", NULL);
    cr_expect(strncmp(p.out, "my_suite (kcontract ", 20) == 0, "%s", p.out);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* A refusal made before main (KC_EDGE_SHAPES's, in a constructor) says
 * the binary's own name too, under a name of its own and under a link's.
 * Before, main had not yet named the program and it said "kcontract:". */
Test(conventions, a_refusal_before_main_says_the_binarys_own_name, .timeout = 60)
{
    char dir[200], bin[260], abs[4096];
    char *const refuse[] = { "KC_FIXTURE_EDGE_REFUSE=1", NULL };
    kc_tmp_dir(dir, sizeof dir, "progname_early");
    snprintf(bin, sizeof bin, "%s/my_suite", dir);
    cr_assert(realpath(kc_test_fixture_bin(), abs), "%s", kc_test_fixture_bin());
    cr_assert_eq(symlink(abs, bin), 0);
    const char *const said[] = { "kcontract-fixture: edge shapes of edge_refuse_shapes: model index 5 is not an entry "
                                 "of the list (it has 1)\n",
                                 "my_suite: edge shapes of edge_refuse_shapes: model index 5 is not an entry of the "
                                 "list (it has 1)\n" };
    const char *const bins[] = { kc_test_fixture_bin(), bin };
    for (int i = 0; i < 2; i++) {
        kc_proc p = run_bin(bins[i], refuse, "list", NULL);
        cr_expect_eq(p.status, 2, "%s: exit %d, expected 2 (a mistake in a contract)\n%s", bins[i], p.status, p.err);
        cr_expect_str_eq(p.err, said[i]);
        kc_proc_free(&p);
    }
    kc_rm_rf(dir);
}
