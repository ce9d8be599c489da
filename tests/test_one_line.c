/* test_one_line.c — one item, one line (issue 21): a run's output read the
 * way a line-oriented reader reads it (grep '^PASS', a CI log parser). An
 * item's detail lines used to be cut at their byte cap without a newline, so
 * the next item's state line started mid-line (`also: gate 3 (accuracy):
 * shapePASS   layernorm.bf16:sanitize ...`, H200) and a reader lost that
 * item; and a suite's message with a newline or an ESC sequence split or
 * coloured its line. Now the details are cut at a line boundary with a
 * marker saying how much was cut, and everything an item contributes to its
 * lines is escaped (src/util/line_text.h), in a serial run, in a --jobs
 * worker's lines and in the parent's own CRASH lines; the JSON and JUnit
 * reports carry the same text, still escaped as JSON and XML.
 * Fixtures: fakedetail.wrong.f32 (96 failing cases, fake driver),
 * fixture.ctrl.msg, fixture.ctrl.leak, fixture.ctrl.crash. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/spawn.h"

/* fixture.ctrl.msg's message as its line shows it (FIXTURE_CTRL_TEXT,
 * tests/fixtures/fixture_suites.c, escaped): valid UTF-8 stays. */
#define CTRL_ESCAPED "expected 1\\ngot \\x1b[31m2\\x1b[0m\\rover\\x01\\x7f \\xc2\\x9b \\xff \xc3\xa9\xe2\x86\x92"

#define DETAIL_CAP 8192      /* src/run/item_run.c: KC_DETAIL_CAP */
#define MERGE_DETAIL_CAP 2048   /* src/report/record.h: kc_record.detail */

static const char *const items[] = {
    "fake.wrong.f32", "fakedetail.wrong.f32", "fakedetail.wrong.f32:limits", "fixture.ctrl.leak",
    "fixture.ctrl.msg", "fixture.pass.00", NULL,
};

/* Every item on exactly one state line of its own. */
static void each_item_once(const char *out, const char *what)
{
    for (int i = 0; items[i]; i++) {
        char st[16] = "";
        cr_expect_eq(kc_out_state_lines(out, items[i], st, sizeof st), 1, "%s: %s is not on exactly one line of its own:\n%s",
                     what, items[i], out);
    }
}

/* fakedetail.wrong.f32's lines, from its state line on, among the lines of
 * the process that printed it (`pre`, "" or "[wK] "): whole lines within
 * the cap and one marker; where the lines are the gates' own (cap 8192),
 * the "also:" lines shown and the marker's count add up to its failing
 * cases but the first. */
static void details_capped(const char *out, const char *what, int cap)
{
    char line[4096];
    const char *state = kc_out_item_line(out, "FAIL", "fakedetail.wrong.f32", line, sizeof line);
    cr_assert(state, "%s: no FAIL line of fakedetail.wrong.f32:\n%s", what, out);
    int failed = 0, cases = 0;
    const char *f = strstr(state, " cases failed");
    cr_assert(f, "%s: %s", what, state);
    while (f > state && f[-1] != ';') f--;
    cr_assert_eq(sscanf(f, " %d of %d cases failed", &failed, &cases), 2, "%s: %s", what, state);
    cr_expect_eq(failed, 96, "%s: %s", what, state);
    /* the line in out, and the prefix of the process that printed it */
    const char *at = strstr(out, "FAIL   fakedetail.wrong.f32  ");
    cr_assert(at);
    const char *bol = at;
    while (bol > out && bol[-1] != '\n') bol--;
    char pre[16];
    snprintf(pre, sizeof pre, "%.*s", (int)(at - bol), bol);
    size_t pl = strlen(pre);
    int also = 0, cut = -1, marker = 0, n, capped;
    size_t bytes = 0;
    for (const char *p = strchr(at, '\n'); p && p[1];) {
        p++;
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (strncmp(p, pre, pl) == 0) {              /* this process's line (other workers' come between) */
            const char *q = p + pl;
            if (strncmp(q, "    ", 4) != 0) break;   /* its next item's line */
            bytes += len - pl + 1;
            if (strncmp(q, "    also: ", 10) == 0) {
                also++;
                cr_expect(strstr(q, " elements out of tolerance") && strstr(q, " elements out of tolerance") + 26 == p + len,
                          "%s: an also line cut short: '%.*s'", what, (int)len, p);
            } else if (sscanf(q, "    [... %d more lines, %*u bytes, cut: the lines under one item are capped at %d bytes]",
                              &n, &capped) == 2) {
                cr_expect_eq(capped, cap, "%s: '%.*s'", what, (int)len, p);
                if (!marker++) cut = n;
            } else if (cap != DETAIL_CAP && strncmp(q, "    [... ", 9) == 0) {
                /* the shard's own marker, kept by the merge as a line */
            } else {
                cr_expect(0, "%s: an unexpected line under fakedetail.wrong.f32: '%.*s'", what, (int)len, p);
            }
        }
        if (!e) break;
        p = e;
    }
    cr_expect_eq(marker, 1, "%s: no marker line saying how much was cut:\n%s", what, out);
    cr_expect_gt(also, 4, "%s", what);
    if (cap == DETAIL_CAP)
        cr_expect_eq(also + cut, failed - 1, "%s: %d also lines shown + %d cut != %d failing cases but the first", what,
                     also, cut, failed);
    cr_expect_leq(bytes, (size_t)cap - 1, "%s: %zu bytes of detail lines", what, bytes);
}

/* The escaped texts on their lines. */
static void escaped_on_the_line(const char *out, const char *what)
{
    char line[4096];
    cr_assert(kc_out_item_line(out, "FAIL", "fixture.ctrl.msg", line, sizeof line), "%s:\n%s", what, out);
    cr_expect(strstr(line, "fixture.ctrl.msg  " CTRL_ESCAPED "  ("), "%s: %s", what, line);
    cr_assert(kc_out_item_line(out, "LEAK", "fixture.ctrl.leak", line, sizeof line), "%s:\n%s", what, out);
    cr_expect(strstr(line, " (\\x1b[31mred\\rx), still there"), "%s: %s", what, line);
}

static void no_bad_lines(const char *out, const char *what)
{
    char why[512];
    int bad = kc_out_bad_lines(out, why, sizeof why);
    cr_expect_eq(bad, 0, "%s: %d line(s) a line-oriented reader cannot read, the first: %s\n%s", what, bad, why, out);
}

Test(one_line, serial_run_keeps_each_item_on_its_own_line, .timeout = 60)
{
    char json[128], junit[128];
    snprintf(json, sizeof json, "/tmp/kc-oneline-%ld.json", (long)getpid());
    snprintf(junit, sizeof junit, "/tmp/kc-oneline-%ld.xml", (long)getpid());
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.wrong.f32", "fakedetail.*", "fixture.ctrl.msg", "fixture.ctrl.leak",
                                        "fixture.pass.00", "--json", json, "--junit", junit, NULL },
                            NULL, 50);
    cr_assert_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    no_bad_lines(p.out, "serial");
    each_item_once(p.out, "serial");
    details_capped(p.out, "serial", DETAIL_CAP);
    escaped_on_the_line(p.out, "serial");
    /* The reports carry the line's text, escaped again as JSON and XML:
     * clean, and no character lost to U+FFFD. */
    const char *j = kc_out_file(json);
    cr_expect_eq(kc_out_unclean(j, strlen(j)), -1, "%s", j);
    cr_expect(strstr(j, "\"message\":\"expected 1\\\\ngot \\\\x1b[31m2\\\\x1b[0m\\\\rover\\\\x01\\\\x7f \\\\xc2\\\\x9b \\\\xff "
                        "\xc3\xa9\xe2\x86\x92\""),
              "%s", j);
    const char *x = kc_out_file(junit);
    cr_expect_eq(kc_out_unclean(x, strlen(x)), -1, "%s", x);
    cr_expect(strstr(x, CTRL_ESCAPED), "%s", x);
    cr_expect_null(strstr(x, "\xef\xbf\xbd"), "%s", x);
    kc_proc_free(&p);
    unlink(json);
    unlink(junit);
}

Test(one_line, jobs_run_keeps_each_item_on_its_own_line, .timeout = 60)
{
    char costs[128];
    kc_tmp_path(costs, sizeof costs, "oneline", "costs");
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.wrong.f32", "fakedetail.*", "fixture.ctrl.msg", "fixture.ctrl.leak",
                                        "fixture.pass.00", "--jobs", "2", "--costs", costs, NULL },
                            NULL, 50);
    cr_assert_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    no_bad_lines(p.out, "--jobs 2");
    each_item_once(p.out, "--jobs 2");
    details_capped(p.out, "--jobs 2", DETAIL_CAP);
    escaped_on_the_line(p.out, "--jobs 2");
    kc_proc_free(&p);
    unlink(costs);
}

/* The parent's own CRASH line quotes the worker's last lines escaped, each
 * on a line of its own under it (the worker printed them raw: an item
 * prints what it likes; the quote is the item's line's). */
Test(one_line, crash_line_quotes_the_last_lines_escaped, .timeout = 60)
{
    char costs[128];
    kc_tmp_path(costs, sizeof costs, "oneline", "crash");
    kc_proc p = kc_run_fixture(
        (char *[]){ "run", "fixture.ctrl.crash", "fixture.pass.00", "--jobs", "1", "--costs", costs, NULL }, 50);
    cr_assert_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    char line[4096], st[16];
    cr_assert(kc_out_item_line(p.out, "CRASH", "fixture.ctrl.crash", line, sizeof line), "%s", p.out);
    cr_expect_eq(kc_out_state_lines(p.out, "fixture.ctrl.crash", st, sizeof st), 1, "%s", p.out);
    cr_expect_eq(kc_out_state_lines(p.out, "fixture.pass.00", st, sizeof st), 1, "%s", p.out);
    int quoted = 0;
    for (const char *q = strstr(p.out, line); q && (q = strchr(q, '\n')) && strncmp(q + 1, "    | ", 6) == 0;) {
        q++;
        size_t len = strcspn(q, "\n");
        char one[1024];
        snprintf(one, sizeof one, "%.*s", (int)len, q);
        cr_expect_eq(kc_out_unclean(one, strlen(one)), -1, "a quoted line not escaped: '%s'", one);
        quoted += strstr(one, "] got \\x1b[31m2\\x1b[0m\\rover") != NULL;
    }
    cr_expect_eq(quoted, 1, "the crash's second line is not quoted escaped:\n%s", p.out);
    kc_proc_free(&p);
    unlink(costs);
}

/* kcontract merge prints the failing items of the shards' logs through the
 * same printer: each on its own line, its further lines whole under the
 * record's cap with a marker. */
Test(one_line, merge_prints_each_failing_item_on_its_own_line, .timeout = 90)
{
    char log[2][128];
    for (int k = 0; k < 2; k++) {
        char spec[16];
        snprintf(spec, sizeof spec, "%d/2", k);
        snprintf(log[k], sizeof log[k], "/tmp/kc-oneline-%ld-%d.log", (long)getpid(), k);
        kc_proc p = kc_run_fake((char *[]){ "run", "fakedetail.*", "fixture.ctrl.msg", "fixture.pass.0*", "--shard", spec,
                                            NULL },
                                NULL, 40);
        cr_assert(p.status == 0 || p.status == 1, "shard %s: exit %d\n%s%s", spec, p.status, p.out, p.err);
        kc_write_file(log[k], p.out);
        kc_proc_free(&p);
    }
    kc_proc m = kc_run_fake((char *[]){ "merge", "fakedetail.*", "fixture.ctrl.msg", "fixture.pass.0*", "--log", log[0],
                                        "--log", log[1], NULL },
                            NULL, 40);
    cr_assert_eq(m.status, 1, "merge: exit %d\n%s%s", m.status, m.out, m.err);
    no_bad_lines(m.out, "merge");
    char line[4096], st[16];
    cr_expect_eq(kc_out_state_lines(m.out, "fixture.ctrl.msg", st, sizeof st), 1, "%s", m.out);
    cr_assert(kc_out_item_line(m.out, "FAIL", "fixture.ctrl.msg", line, sizeof line), "%s", m.out);
    cr_expect(strstr(line, "fixture.ctrl.msg  " CTRL_ESCAPED "  ("), "%s", line);
    details_capped(m.out, "merge", MERGE_DETAIL_CAP);
    kc_proc_free(&m);
    unlink(log[0]);
    unlink(log[1]);
}
