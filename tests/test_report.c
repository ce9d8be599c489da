/* test_report.c — the run's reports and figures: JSON Lines escaping of nasty
 * messages, every line parsed by Python's json; JUnit counts, escaping and
 * well-formedness (Python's xml.etree); the SVG timeline's bars and rows;
 * the efficiency arithmetic under the SUMMARY; records across the re-exec;
 * the progress line (absent on a pipe, present on a pty,
 * NO_COLOR); the serial runner writing all three reports. The report
 * files a run did not earn (a run that does not finish, planted links,
 * locks): test_report_files.c. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "record.h"
#include "report.h"
#include "report_json.h"
#include "report_junit.h"
#include "report_stats.h"
#include "report_summary.h"
#include "report_timeline.h"
#include "report_text.h"
#include "support/live.h"
#include "support/report_runs.h"
#include "support/run_output.h"
#include "support/spawn.h"

static kc_record rec(const char *name, kc_kind k, kc_state s, int worker, double t0, double t1, const char *msg)
{
    kc_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    r.kind = k;
    r.res.state = s;
    r.worker = worker;
    r.device = -1;
    r.worker_pid = 1000 + worker;
    r.start_s = t0;
    r.end_s = t1;
    r.res.peak_rss_kib = -1;
    r.peak_gpu_mib = -1;
    snprintf(r.res.msg, sizeof r.res.msg, "%s", msg);
    return r;
}

typedef int (*writer_fn)(FILE *, const kc_records *);
static int junit_writer(FILE *f, const kc_records *rs) { return kc_report_junit(f, rs, NULL); }

static void write_report(const char *path, writer_fn w, const kc_records *rs)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "fopen %s", path);
    cr_assert_eq(w(f, rs), 0);
    cr_assert_eq(fclose(f), 0);
}

static const char *PY_JSON =
    "import json,sys\n"
    "def no_const(c): raise ValueError('constant ' + c)\n"
    "for line in open(sys.argv[1], encoding='utf-8', errors='strict'):\n"
    "    o = json.loads(line, parse_constant=no_const)\n"
    "    print(o['type'], o.get('name', ''), o.get('state', ''), ascii(o.get('message', '')), o.get('efficiency', ''))\n";

Test(report, json_escapes_nasty_messages_and_every_line_parses)
{
    kc_records rs = { .workers = 1, .wall_s = 2 };
    kc_record a = rec("k.nasty", KC_KIND_KERNEL, KC_FAIL, 0, 0, 1,
                      "say \"hi\" \\ back\nslash\x01 bad\xff\xc0\x80 trunc\xe2\x82 ok \xc3\xa9 \xe2\x80\xa8 tab\tend");
    snprintf(a.res.rerun, sizeof a.res.rerun, "./kc run 'k.nasty' --seed 1");
    snprintf(a.log_tail, sizeof a.log_tail, "line1\r\nline2\x7f\x1b[31m");
    kc_record b = rec("s.ok", KC_KIND_SUITE, KC_PASS, 0, 1, 2, "suite passed");
    b.res.peak_rss_kib = 2048;
    b.peak_gpu_mib = 0;
    cr_assert_eq(kc_records_add(&rs, &a), 0);
    cr_assert_eq(kc_records_add(&rs, &b), 0);
    char path[128];
    kc_report_tmpname(path, sizeof path, "json");
    write_report(path, kc_report_json, &rs);
    const char *txt = kc_out_file(path);
    cr_expect(strstr(txt, "say \\\"hi\\\" \\\\ back\\nslash\\u0001 bad\\ufffd\\ufffd\\ufffd trunc\\ufffd\\ufffd ok \xc3\xa9 \\u2028 tab\\tend"),
              "%s", txt);
    cr_expect(strstr(txt, "\"log_tail\":\"line1\\r\\nline2\\u007f\\u001b[31m\""), "%s", txt);
    cr_expect(strstr(txt, "\"peak_rss_kib\":null") && strstr(txt, "\"peak_rss_kib\":2048"), "%s", txt);
    int lines = 0;
    for (const char *p = txt; *p; p++) lines += *p == '\n';
    cr_expect_eq(lines, 4, "2 items, 1 worker, 1 summary:\n%s", txt);
    kc_proc p = kc_report_python(PY_JSON, path);
    cr_expect_eq(p.status, 0, "python: %s", p.err);
    cr_expect(strstr(p.out, "item k.nasty FAIL 'say \"hi\" \\\\ back\\nslash\\x01 bad\\ufffd\\ufffd\\ufffd trunc\\ufffd\\ufffd "
                            "ok \\xe9 \\u2028 tab\\tend'"),
              "%s", p.out);
    cr_expect(strstr(p.out, "item s.ok PASS 'suite passed'"), "%s", p.out);
    cr_expect(strstr(p.out, "worker  ") && strstr(p.out, "summary   '' 1.0"), "%s", p.out);
    kc_proc_free(&p);
    unlink(path);
    kc_records_free(&rs);
}

Test(report, junit_counts_escaping_and_wellformed)
{
    kc_records rs = { .workers = 1, .wall_s = 10 };
    kc_record v[] = {
        rec("k.pass", KC_KIND_KERNEL, KC_PASS, 0, 0, 1, "gates 1-4 passed"),
        rec("k.<fail>&\"q\"", KC_KIND_KERNEL, KC_FAIL, 0, 1, 2, "y[3] <a & \"b\"> \x01\tTab\nNL \xff"),
        rec("k:control.c", KC_KIND_CONTROL, KC_MISSED, 0, 2, 3, "all four gates passed"),
        rec("k:limits", KC_KIND_LIMIT, KC_LIMIT, 0, 3, 4, "registers 300 > 255"),
        rec("s.crash", KC_KIND_SUITE, KC_CRASH, 0, 4, 5, "killed by SIGSEGV"),
        rec("k2", KC_KIND_KERNEL, KC_TIMEOUT, 0, 5, 6, "past its 60 s limit"),
        rec("k3", KC_KIND_KERNEL, KC_SKIP, 0, 6, 6, "no GPU"),
        rec("k4", KC_KIND_KERNEL, KC_NOTRUN, 0, 6, 6, "not run (--fail-fast)"),
        rec("k5", KC_KIND_KERNEL, KC_KNOWN, 0, 6, 7, "known finding"),
        rec("k:control.d", KC_KIND_CONTROL, KC_RED, 0, 7, 8, "caught by gate 3"),
        rec("s.leak", KC_KIND_SUITE, KC_LEAK, 0, 8, 9, "left 1 process running after it"),
    };
    snprintf(v[1].res.rerun, sizeof v[1].res.rerun, "./kc run 'k.<fail>' --seed 1 && true");
    snprintf(v[4].log_tail, sizeof v[4].log_tail, "last ]]> line\x02");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) cr_assert_eq(kc_records_add(&rs, &v[i]), 0);
    char path[128];
    kc_report_tmpname(path, sizeof path, "junit");
    write_report(path, junit_writer, &rs);
    const char *txt = kc_out_file(path);
    cr_expect(!strchr(txt, '\x01') && !strchr(txt, '\x02') && !strchr(txt, '\xff'), "raw control byte:\n%s", txt);
    cr_expect(strstr(txt, "name=\"k.&lt;fail&gt;&amp;&quot;q&quot;\""), "%s", txt);
    kc_proc p = kc_report_python(KC_REPORT_PY_JUNIT, path);
    cr_expect_eq(p.status, 0, "python: %s\n%s", p.err, txt);
    cr_expect(strstr(p.out, "suites testsuites 11 4 3 1\n"), "%s", p.out);
    cr_expect(strstr(p.out, "suite 11 4 3 1\n"), "%s", p.out);
    cr_expect(strstr(p.out, "case k 'k.pass' 1.000  - -\n"), "%s", p.out);
    cr_expect(strstr(p.out, "case k 'k.<fail>&\"q\"' 1.000 failure 'y[3] <a & \"b\"> \\ufffd\\tTab\\nNL \\ufffd' "
                            "'y[3] <a & \"b\"> \\ufffd\\tTab\\nNL \\ufffd\\nrerun: ./kc run \\'k.<fail>\\' --seed 1 && true'"),
              "%s", p.out);
    cr_expect(strstr(p.out, "case k 'k:control.c' 1.000 failure"), "%s", p.out);
    cr_expect(strstr(p.out, "case k 'k:limits' 1.000 failure"), "%s", p.out);
    cr_expect(strstr(p.out, "case s 's.crash' 1.000 error 'killed by SIGSEGV' 'killed by SIGSEGV\\n--- last lines ---\\nlast ]]> line\\ufffd'"),
              "%s", p.out);
    cr_expect(strstr(p.out, "case k2 'k2' 1.000 error"), "%s", p.out);
    cr_expect(strstr(p.out, "case k3 'k3' 0.000 skipped - -"), "%s", p.out);
    cr_expect(strstr(p.out, "case k4 'k4' 0.000 error 'not run (--fail-fast)' 'not run (--fail-fast)'"), "%s", p.out);
    cr_expect(strstr(p.out, "case k5 'k5' 1.000 system-out - -"), "%s", p.out);
    cr_expect(strstr(p.out, "case k 'k:control.d' 1.000  - -"), "%s", p.out);
    cr_expect(strstr(p.out, "case s 's.leak' 1.000 failure 'left 1 process running after it'"), "LEAK is a failure:\n%s",
              p.out);
    kc_proc_free(&p);
    unlink(path);
    kc_records_free(&rs);
}

static const char *PY_SVG =
    "import sys, xml.etree.ElementTree as ET\n"
    "ns = '{http://www.w3.org/2000/svg}'\n"
    "root = ET.parse(sys.argv[1]).getroot()\n"
    "bars = [r for r in root.iter(ns + 'rect') if r.get('class') == 'bar']\n"
    "rows = [g for g in root.iter(ns + 'g') if g.get('class') == 'worker']\n"
    "print('bars', len(bars), 'rows', len(rows))\n"
    "for g in rows:\n"
    "    for r in g.iter(ns + 'rect'):\n"
    "        print(g.get('id'), r.get('fill'), round(float(r.get('x')) + float(r.get('width'))), r.find(ns + 'title').text)\n"
    "print('ticks', ' '.join(t.text for t in root.iter(ns + 'text') if t.text.endswith(' s') and t.text[0].isdigit()))\n";

Test(report, timeline_svg_one_bar_per_item_one_row_per_worker)
{
    kc_records rs = { .workers = 3, .wall_s = 10 };
    kc_record v[] = {
        rec("a", KC_KIND_KERNEL, KC_PASS, 0, 0, 2, ""),    rec("b", KC_KIND_KERNEL, KC_FAIL, 0, 2, 3, ""),
        rec("c<&>", KC_KIND_KERNEL, KC_KNOWN, 1, 0, 3, ""), rec("d", KC_KIND_SUITE, KC_CRASH, 1, 3, 4, ""),
        rec("e", KC_KIND_KERNEL, KC_TIMEOUT, 2, 0, 1, ""),  rec("f", KC_KIND_KERNEL, KC_SKIP, 2, 1, 1, ""),
        rec("straggler", KC_KIND_KERNEL, KC_PASS, 2, 1, 10, ""), rec("g", KC_KIND_KERNEL, KC_NOTRUN, -1, 10, 10, ""),
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) cr_assert_eq(kc_records_add(&rs, &v[i]), 0);
    char path[128];
    kc_report_tmpname(path, sizeof path, "svg");
    write_report(path, kc_report_timeline_svg, &rs);
    kc_proc p = kc_report_python(PY_SVG, path);
    cr_expect_eq(p.status, 0, "python: %s\n%s", p.err, kc_out_file(path));
    cr_expect(strstr(p.out, "bars 8 rows 3\n"), "%s", p.out);
    /* bars end on a common axis: the straggler reaches the plot's right edge (1200 - 30) */
    cr_expect(strstr(p.out, "worker-2 #2e9d42 1170 straggler PASS 9.00 s (1.00 to 10.00 s)"), "%s", p.out);
    cr_expect(strstr(p.out, "worker-0 #d62728 "), "FAIL red: %s", p.out);
    cr_expect(strstr(p.out, "worker-1 #f0a30a 456 c<&> KNOWN 3.00 s"), "KNOWN amber: %s", p.out);
    cr_expect(strstr(p.out, "worker-2 #9e9e9e "), "SKIP grey: %s", p.out);
    cr_expect(strstr(p.out, "worker-0 #4a4a4a 1171 g NOTRUN"), "NOTRUN dark grey, not SKIP's: %s", p.out);
    cr_expect(strstr(p.out, "ticks 0 s 1 s 2 s 3 s 4 s 5 s 6 s 7 s 8 s 9 s 10 s"), "%s", p.out);
    kc_proc_free(&p);
    unlink(path);
    kc_records_free(&rs);
}

Test(report, workers_summary_efficiency)
{
    kc_records rs = { .workers = 2, .wall_s = 5 };
    kc_record v[] = {
        rec("a", KC_KIND_KERNEL, KC_PASS, 0, 0, 4, ""),
        rec("b", KC_KIND_KERNEL, KC_PASS, 0, 4, 5, ""),
        rec("c", KC_KIND_KERNEL, KC_PASS, 1, 0, 4, ""),
    };
    v[0].res.peak_rss_kib = 1024;
    v[1].res.peak_rss_kib = 3 * 1024 * 1024;
    v[2].res.peak_rss_kib = 512;
    v[2].peak_gpu_mib = 8724;
    for (size_t i = 0; i < 3; i++) cr_assert_eq(kc_records_add(&rs, &v[i]), 0);
    kc_worker_stats ws[2];
    cr_assert_eq(kc_report_nworkers(&rs), 2);
    double busy = kc_report_worker_stats(&rs, ws);
    cr_expect_float_eq(busy, 9.0, 1e-9);
    cr_expect_eq(ws[0].items, 2);
    cr_expect_float_eq(ws[0].busy_s, 5.0, 1e-9);
    cr_expect_eq(ws[0].peak_rss_kib, 3 * 1024 * 1024);
    cr_expect_eq(ws[0].peak_gpu_mib, -1);
    cr_expect_eq(ws[1].peak_gpu_mib, 8724);
    cr_expect_float_eq(kc_report_efficiency(busy, 2, 5), 0.9, 1e-12);
    cr_expect_float_eq(kc_report_efficiency(busy, 2, 0), 0.0, 1e-12);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kc_report_workers(f, &rs);
    fclose(f);
    cr_expect_str_eq(buf, "workers: 2, busy 9.0 s of 2 x 5.0 s (efficiency 0.90); peak RSS 3.0 GiB (worker 0), "
                          "peak GPU 8724 MiB (worker 1)\n"
                          "  worker 0: 2 items, busy 5.0 s, peak RSS 3.0 GiB, peak GPU unknown\n"
                          "  worker 1: 1 item, busy 4.0 s, peak RSS 512 KiB, peak GPU 8724 MiB\n"
                          "slowest items: a 4.00 s, c 4.00 s, b 1.00 s\n");
    free(buf);
    kc_records_free(&rs);
}

/* A serial run (no --jobs) has no workers: one line of its peaks, over
 * every record, then the same item lines as a --jobs run. */
Test(report, serial_summary_has_peaks_and_no_worker_figures)
{
    kc_records rs = { .workers = 1, .wall_s = 5 };
    kc_record v[] = {
        rec("a", KC_KIND_KERNEL, KC_PASS, 0, 0, 4, ""),
        rec("b", KC_KIND_KERNEL, KC_PASS, 0, 4, 5, ""),
    };
    v[0].res.peak_rss_kib = 11674;   /* 11.4 MiB */
    v[1].res.peak_rss_kib = 512;
    for (size_t i = 0; i < 2; i++) cr_assert_eq(kc_records_add(&rs, &v[i]), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kc_report_serial(f, &rs);
    fclose(f);
    cr_expect_str_eq(buf, "peak RSS 11.4 MiB, peak GPU unknown\n"
                          "slowest items: a 4.00 s, b 1.00 s\n");
    free(buf);
    rs.v[1].peak_gpu_mib = 782;
    buf = NULL;
    f = open_memstream(&buf, &len);
    kc_report_serial(f, &rs);
    fclose(f);
    cr_expect(strncmp(buf, "peak RSS 11.4 MiB, peak GPU 782 MiB\n", 36) == 0, "%s", buf);
    free(buf);
    kc_records_free(&rs);
    kc_records none = { .workers = 1 };
    buf = NULL;
    f = open_memstream(&buf, &len);
    kc_report_serial(f, &none);
    fclose(f);
    cr_expect_str_eq(buf, "", "no item ran: no figures");
    free(buf);
}

/* The slowest-items line keeps the KC_REPORT_SLOWEST longest, longest first,
 * the earlier finisher first on ties, whatever order they finished in. */
Test(report, slowest_items_are_the_longest_ten_in_order)
{
    kc_records rs = { .workers = 1, .wall_s = 100 };
    double t = 0;
    for (int i = 0; i < 25; i++) {   /* durations 0.5, 1.5, ... with two ties at the top */
        char name[16];
        snprintf(name, sizeof name, "i%02d", i);
        double d = i == 3 || i == 17 ? 30.0 : (i * 7 % 25) + 0.5;
        kc_record r = rec(name, KC_KIND_KERNEL, KC_PASS, 0, t, t + d, "");
        t += d;
        cr_assert_eq(kc_records_add(&rs, &r), 0);
    }
    kc_record skipped = rec("skipped", KC_KIND_KERNEL, KC_SKIP, 0, 0, 100, "");   /* did not run: never listed */
    cr_assert_eq(kc_records_add(&rs, &skipped), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kc_report_workers(f, &rs);
    fclose(f);
    const char *line = strstr(buf, "slowest items: ");
    cr_assert(line, "%s", buf);
    cr_expect(strstr(line, "slowest items: i03 30.00 s, i17 30.00 s, i07 24.50 s, i14 23.50 s, i21 22.50 s, "
                           "i10 20.50 s, i24 18.50 s, i06 17.50 s, i13 16.50 s, i20 15.50 s\n") == line,
              "%s", line);
    free(buf);
    kc_records_free(&rs);
}

Test(report, text_escaping_units)
{
    unsigned cp;
    cr_expect_eq(kc_utf8_next((const unsigned char *)"\xed\xa0\x80", 3, &cp), 1u);   /* surrogate */
    cr_expect_eq(cp, KC_UTF8_BAD);
    cr_expect_eq(kc_utf8_next((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 1u);   /* > U+10FFFF */
    cr_expect_eq(cp, KC_UTF8_BAD);
    cr_expect_eq(kc_utf8_next((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4u);
    cr_expect_eq(cp, 0x1F600u);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kc_xml_text(f, "a'b\"c\r\xef\xbf\xbe", 64, 1);
    fputc('|', f);
    kc_xml_text(f, "x\x1fy", 2, 0);   /* max cuts after 2 bytes */
    fclose(f);
    cr_expect_str_eq(buf, "a&apos;b&quot;c&#13;\xef\xbf\xbd|x\xef\xbf\xbd");
    free(buf);
}

Test(report, records_round_trip_through_a_descriptor)
{
    kc_records rs = { .workers = 1 }, back = { .workers = 1 };
    for (int i = 0; i < 70; i++) {
        char name[32];
        snprintf(name, sizeof name, "item.%02d", i);
        kc_record r = rec(name, KC_KIND_KERNEL, i % 3 ? KC_PASS : KC_FAIL, 0, i, i + 1, "m");
        cr_assert_eq(kc_records_add(&rs, &r), 0);
    }
    int fd = kc_records_save_fd(&rs);
    cr_assert(fd >= 0);
    char why[256];
    cr_assert_eq(kc_records_load_fd(fd, &back, why, sizeof why), 0, "%s", why);
    cr_assert_eq(back.n, 70);
    cr_expect_eq(memcmp(back.v, rs.v, 70 * sizeof *rs.v), 0);
    cr_expect_eq(fcntl(fd, F_GETFD), -1, "the descriptor is closed after loading");
    int bad = open("/dev/null", O_RDONLY);
    cr_expect_eq(kc_records_load_fd(bad, &back, why, sizeof why), -1);
    cr_expect(strstr(why, "does not hold"), "%s", why);
    kc_records_free(&rs);
    kc_records_free(&back);
}

Test(report, progress_eta_format)
{
    char b[32];
    kc_progress_format_eta(44.6, b, sizeof b);
    cr_expect_str_eq(b, "~45s");
    kc_progress_format_eta(72, b, sizeof b);
    cr_expect_str_eq(b, "~1m12s");
    kc_progress_format_eta(7380, b, sizeof b);
    cr_expect_str_eq(b, "~2h03m");
}

/* ---- the binary ---- */

Test(report, unwritable_report_refused_before_running)
{
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--json", "/nonexistent/dir/x.json", NULL }, NULL);
    cr_expect_eq(p.status, 2, "exit %d", p.status);
    /* the folder is named, not the temporary file's name (a new user's find) */
    cr_expect(strstr(p.err, "--json /nonexistent/dir/x.json: cannot create a file in /nonexistent/dir (the report is "
                            "written there and renamed into place): No such file or directory"), "stderr: %s", p.err);
    cr_expect(!strstr(p.err, ".tmp."), "stderr: %s", p.err);
    cr_expect(!strstr(p.out, "PASS"), "nothing runs: %s", p.out);
    kc_proc_free(&p);
    /* A file that exists but whose directory takes no new file (/proc): the
     * report goes through a temporary file beside it, so it is refused too. */
    p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--json", "/proc/version", NULL }, NULL);
    cr_expect_eq(p.status, 2, "exit %d", p.status);
    cr_expect(strstr(p.err, "--json /proc/version: cannot create a file in /proc (the report is written there"), "stderr: %s",
              p.err);
    cr_expect(!strstr(p.out, "PASS"), "nothing runs: %s", p.out);
    kc_proc_free(&p);
    p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--junit", "/tmp", NULL }, NULL);
    cr_expect_eq(p.status, 2, "exit %d", p.status);
    cr_expect(strstr(p.err, "--junit /tmp: is a directory, expected a file name"), "stderr: %s", p.err);
    kc_proc_free(&p);
    p = kc_report_fixture((char *[]){ "list", "--junit", "/tmp/x.xml", NULL }, NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--junit applies to run and merge only"), "stderr: %s", p.err);
    kc_proc_free(&p);
}

Test(report, serial_run_writes_all_three_reports)
{
    char json[128], junit[128], svg[128];
    kc_report_tmpname(json, sizeof json, "run_json");
    kc_report_tmpname(junit, sizeof junit, "run_junit");
    kc_report_tmpname(svg, sizeof svg, "run_svg");
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.0*", "fixture.fail", "--json", json, "--junit", junit,
                                    "--timeline", svg, NULL },
                        NULL);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    /* a serial run has no workers: its peaks, no worker figures */
    const char *sum = strstr(p.out, "\nSUMMARY "), *next = sum ? strchr(sum + 1, '\n') : NULL;
    cr_expect(next && strncmp(next, "\npeak RSS ", 10) == 0, "peaks under the SUMMARY:\n%s", p.out);
    cr_expect(!strstr(p.out, "\nworkers: ") && !strstr(p.out, "\n  worker 0: "), "worker figures of a serial run:\n%s", p.out);
    cr_expect(!strstr(p.err, "\033[K"), "no progress line on a pipe: %s", p.err);
    kc_proc_free(&p);
    kc_proc q = kc_report_python(PY_JSON, json);
    cr_expect_eq(q.status, 0, "python: %s", q.err);
    int items = 0, pass = 0;
    for (const char *s = q.out; (s = strstr(s, "item ")); s++) items++;
    for (const char *s = q.out; (s = strstr(s, " PASS 'suite passed'")); s++) pass++;
    cr_expect_eq(items, 11, "%s", q.out);
    cr_expect_eq(pass, 10, "%s", q.out);
    cr_expect(strstr(q.out, "item fixture.fail FAIL 'fixture.fail fails on purpose (expected 1, got 2)'"), "%s", q.out);
    cr_expect(strstr(q.out, "summary"), "%s", q.out);
    kc_proc_free(&q);
    const char *txt = kc_out_file(json);
    cr_expect(strstr(txt, "\"rerun\":\"") && strstr(txt, "run fixture.fail --seed 1 --device 0\""), "%s", txt);
    cr_expect(strstr(txt, "\"worker\":0,\"device\":null,\"pid\":"), "%s", txt);
    q = kc_report_python(KC_REPORT_PY_JUNIT, junit);
    cr_expect_eq(q.status, 0, "python: %s", q.err);
    cr_expect(strstr(q.out, "suite 11 1 0 0\n"), "%s", q.out);
    kc_proc_free(&q);
    q = kc_report_python(PY_SVG, svg);
    cr_expect_eq(q.status, 0, "python: %s", q.err);
    cr_expect(strstr(q.out, "bars 11 rows 1\n"), "%s", q.out);
    kc_proc_free(&q);
    unlink(json);
    unlink(junit);
    unlink(svg);
}

/* The re-exec hands its records over on --resume-records FD: the new
 * process's reports hold them too (a lost CUDA context needs a GPU; the
 * hand-over is the same). */
Test(report, resumed_run_keeps_records_from_before_the_reexec)
{
    kc_records rs = { .workers = 1 };
    kc_record r = rec("before.reexec", KC_KIND_KERNEL, KC_FAIL, 0, 0, 1, "lost the context");
    r.res.peak_rss_kib = 5L * 1024 * 1024;
    r.peak_gpu_mib = 8724;
    cr_assert_eq(kc_records_add(&rs, &r), 0);
    int fd = kc_records_save_fd(&rs);
    cr_assert(fd >= 0);
    char fds[16], json[128];
    snprintf(fds, sizeof fds, "%d", fd);
    kc_report_tmpname(json, sizeof json, "resume_json");
    kc_proc p = kc_report_fixture((char *[]){ "run", "fixture.pass.00", "--json", json, "--resume-records", fds, NULL }, NULL);
    close(fd);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    /* the peaks cover the records from before the re-exec (5 GiB there) */
    cr_expect(strstr(p.out, "\npeak RSS 5.0 GiB, peak GPU 8724 MiB\n"), "%s", p.out);
    kc_proc_free(&p);
    const char *txt = kc_out_file(json);
    cr_expect(strstr(txt, "{\"type\":\"item\",\"name\":\"before.reexec\""), "%s", txt);
    cr_expect(strstr(txt, "{\"type\":\"item\",\"name\":\"fixture.pass.00\""), "%s", txt);
    unlink(json);
    kc_records_free(&rs);
}

/* Runs the fixture binary on a pseudo-terminal; returns everything it wrote. */
static char *on_pty(char **args, const char *no_color)
{
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    cr_assert(pid >= 0, "forkpty");
    if (pid == 0) {
        char *argv[16] = { (char *)kc_test_fixture_bin() };
        int a = 1;
        for (; args[a - 1]; a++) argv[a] = args[a - 1];
        argv[a] = NULL;
        setenv("KC_LIBCUDA", "none", 1);
        if (no_color) setenv("NO_COLOR", no_color, 1);
        else unsetenv("NO_COLOR");
        execv(argv[0], argv);
        _exit(127);
    }
    static char out[1 << 16];
    size_t n = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct pollfd pfd = { master, POLLIN, 0 };
        if (poll(&pfd, 1, 10000) <= 0) break;
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

Test(report, progress_line_on_a_terminal_only)
{
    char *out = on_pty((char *[]){ "run", "fixture.pass.0[0-3]", "fixture.fail", NULL }, NULL);
    cr_expect(strstr(out, "\r\033[K[1/5] "), "progress line:\n%s", out);
    cr_expect(strstr(out, "\033[31m1 failed\033[0m"), "red failure count:\n%s", out);
    cr_expect(strstr(out, "SUMMARY "), "%s", out);
    /* every item line starts on a clean row: the progress line is erased first */
    cr_expect(strstr(out, "\r\033[K\033[32mPASS\033[0m   fixture.pass.03"), "%s", out);   /* coloured: a terminal */
    out = on_pty((char *[]){ "run", "fixture.fail", NULL }, "1");
    cr_expect(strstr(out, "\r\033[K[0/1] 0 failed, 1 busy"), "%s", out);
    cr_expect(!strstr(out, "\033[31m"), "NO_COLOR: no colour:\n%s", out);
}
