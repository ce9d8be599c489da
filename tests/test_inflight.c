/* test_inflight.c — the parent's book of a worker's items in flight and the
 * protocol with several items open (src/run/inflight.h): each DONE and
 * each result names its item; a DONE or a result for an item not in
 * flight, a second DONE, a result before its DONE and a result sealed with
 * another item's nonce are refused; a result is taken only once; the items
 * open when a worker ends are its undecided ones. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "inflight.h"
#include "result_line.h"

static kc_inflight f;
static char err[512];

/* The sealed result line for `name` (PASS, gate 1) with `nonce`. */
static void sealed(char *out, size_t cap, const char *nonce, const char *name)
{
    kc_item_result r;
    memset(&r, 0, sizeof r);
    r.state = KC_PASS;
    r.gate = 1;
    char body[4096];
    int n = kc_result_format(name, &r, body, sizeof body);
    cr_assert(n > 0);
    body[n - 1] = 0;                /* the line without its '\n', as the parent reads it */
    snprintf(out, cap, "%s\t%s", nonce, body);
}

/* DONE for `name`: its lane, and its nonce out of the answer. */
static int done(const char *name, char *nonce)
{
    char line[300], answer[300];
    snprintf(line, sizeof line, "DONE\t%s", name);
    int lane = kc_inflight_done(&f, line, answer, sizeof answer, err, sizeof err);
    cr_assert(lane >= 0, "DONE for %s refused: %s", name, err);
    char got[300];
    cr_assert_eq(kc_inflight_worker_line(strtok(answer, "\n"), got, sizeof got, nonce, err, sizeof err), 1,
                 "answer for %s not read by the worker: %s", name, err);
    cr_assert_str_eq(got, name, "the answer names %s, expected %s", got, name);
    return lane;
}

static void three_in_flight(void)
{
    cr_assert_eq(kc_inflight_init(&f, 3, err, sizeof err), 0, "%s", err);
    cr_assert_eq(kc_inflight_hand(&f, "a.one", err, sizeof err), 0, "%s", err);
    cr_assert_eq(kc_inflight_hand(&f, "b.two", err, sizeof err), 1, "%s", err);
    cr_assert_eq(kc_inflight_hand(&f, "c.three", err, sizeof err), 2, "%s", err);
}

TestSuite(inflight, .init = three_in_flight);

Test(inflight, each_result_is_taken_for_the_item_whose_nonce_seals_it)
{
    char na[KC_NONCE_LEN + 1], nb[KC_NONCE_LEN + 1], line[4200];
    int lb = done("b.two", nb), la = done("a.one", na);
    cr_expect_str_neq(na, nb, "two items got the same nonce");
    const char *body;
    sealed(line, sizeof line, nb, "b.two");
    cr_expect_eq(kc_inflight_take(&f, line, &body, err, sizeof err), lb, "%s", err);
    cr_expect(body && strncmp(body, "R\tb.two\tPASS", 12) == 0, "body: %s", body ? body : "(null)");
    kc_inflight_close(&f, lb);
    sealed(line, sizeof line, na, "a.one");
    cr_expect_eq(kc_inflight_take(&f, line, &body, err, sizeof err), la, "%s", err);
    kc_inflight_close(&f, la);
    cr_expect_eq(f.open, 1, "open lanes: %d, expected 1 (c.three)", f.open);
}

Test(inflight, a_result_for_an_item_not_in_flight_is_refused)
{
    char n[KC_NONCE_LEN + 1], line[4200];
    const char *body;
    done("a.one", n);
    sealed(line, sizeof line, n, "z.other");
    cr_expect_eq(kc_inflight_take(&f, line, &body, err, sizeof err), -1);
    cr_expect(strstr(err, "'z.other' sealed with the nonce of a.one"), "err: %s", err);
    sealed(line, sizeof line, "0123456789abcdef", "z.other");
    cr_expect_eq(kc_inflight_take(&f, line, &body, err, sizeof err), -1);
    cr_expect(strstr(err, "'z.other', an item not in flight"), "err: %s", err);
}

Test(inflight, a_result_sealed_with_another_items_nonce_is_refused)
{
    char na[KC_NONCE_LEN + 1], line[4200];
    const char *body;
    done("a.one", na);
    done("b.two", (char[KC_NONCE_LEN + 1]){ 0 });
    sealed(line, sizeof line, na, "b.two");
    cr_expect_eq(kc_inflight_take(&f, line, &body, err, sizeof err), -1, "b.two's result sealed with a.one's nonce was taken");
    cr_expect(strstr(err, "'b.two' sealed with the nonce of a.one"), "err: %s", err);
}

Test(inflight, a_result_before_its_done_or_a_second_done_is_refused)
{
    char line[4200], answer[300], n[KC_NONCE_LEN + 1];
    const char *body;
    sealed(line, sizeof line, "0123456789abcdef", "c.three");
    cr_expect_eq(kc_inflight_take(&f, line, &body, err, sizeof err), -1);
    cr_expect(strstr(err, "c.three before it said DONE"), "err: %s", err);
    done("c.three", n);
    cr_expect_eq(kc_inflight_done(&f, "DONE\tc.three", answer, sizeof answer, err, sizeof err), -1);
    cr_expect(strstr(err, "a second DONE for c.three"), "err: %s", err);
    cr_expect_eq(kc_inflight_done(&f, "DONE\tq.not", answer, sizeof answer, err, sizeof err), -1);
    cr_expect(strstr(err, "not in flight"), "err: %s", err);
    cr_expect_eq(kc_inflight_done(&f, "DONEc.three", answer, sizeof answer, err, sizeof err), -1);
}

Test(inflight, a_result_is_taken_once)
{
    char n[KC_NONCE_LEN + 1], line[4200];
    const char *body;
    int l = done("a.one", n);
    sealed(line, sizeof line, n, "a.one");
    cr_assert_eq(kc_inflight_take(&f, line, &body, err, sizeof err), l, "%s", err);
    kc_inflight_close(&f, l);
    cr_expect_eq(kc_inflight_take(&f, line, &body, err, sizeof err), -1, "a second result for a.one was taken");
    cr_expect(strstr(err, "not in flight"), "err: %s", err);
}

Test(inflight, a_full_worker_and_an_item_in_flight_twice_are_refused)
{
    cr_expect_eq(kc_inflight_hand(&f, "d.four", err, sizeof err), -1);
    cr_expect(strstr(err, "3 lanes open"), "err: %s", err);
    char n[KC_NONCE_LEN + 1], line[4200];
    const char *body;
    int l = done("b.two", n);
    sealed(line, sizeof line, n, "b.two");
    cr_assert_eq(kc_inflight_take(&f, line, &body, err, sizeof err), l);
    kc_inflight_close(&f, l);
    cr_expect_eq(kc_inflight_hand(&f, "a.one", err, sizeof err), -1);
    cr_expect(strstr(err, "a.one is in flight already"), "err: %s", err);
    cr_expect_eq(kc_inflight_hand(&f, "d.four", err, sizeof err), l, "the freed lane %d is not reused: %s", l, err);
    cr_expect_eq(kc_inflight_hand(&f, "bad\tname", err, sizeof err), -1);
}

Test(inflight, the_items_open_when_a_worker_ends_are_undecided)
{
    char n[KC_NONCE_LEN + 1], line[4200];
    const char *body, *names[4];
    int l = done("b.two", n);
    sealed(line, sizeof line, n, "b.two");
    cr_assert_eq(kc_inflight_take(&f, line, &body, err, sizeof err), l);
    kc_inflight_close(&f, l);
    done("c.three", n);               /* over but not sealed: undecided too */
    cr_assert_eq(kc_inflight_undecided(&f, names, 4), 2);
    cr_expect_str_eq(names[0], "a.one");
    cr_expect_str_eq(names[1], "c.three");
}

Test(inflight, lanes_outside_one_to_the_maximum_are_refused, .init = NULL)
{
    cr_expect_eq(kc_inflight_init(&f, 0, err, sizeof err), -1);
    cr_expect(strstr(err, "items in flight: 0, expected 1 to 64"), "err: %s", err);
    cr_expect_eq(kc_inflight_init(&f, KC_INFLIGHT_MAX + 1, err, sizeof err), -1);
}

Test(inflight, the_worker_tells_a_request_from_a_nonce, .init = NULL)
{
    char name[64], nonce[KC_NONCE_LEN + 1];
    cr_expect_eq(kc_inflight_worker_line("a.one", name, sizeof name, nonce, err, sizeof err), 0);
    cr_expect_str_eq(name, "a.one");
    cr_expect_eq(kc_inflight_worker_line("a.one\t0123456789abcdef", name, sizeof name, nonce, err, sizeof err), 1);
    cr_expect_str_eq(nonce, "0123456789abcdef");
    cr_expect_eq(kc_inflight_worker_line("a.one\t0123", name, sizeof name, nonce, err, sizeof err), -1);
    cr_expect(strstr(err, "the nonce of a.one"), "err: %s", err);
    cr_expect_eq(kc_inflight_worker_line("", name, sizeof name, nonce, err, sizeof err), -1);
}

/* ---- which items may go in flight ---- */

Test(inflight, a_request_line_s_markers_are_cut_off_in_any_order, .init = NULL)
{
    char mark[KC_REQUEST_AHEAD_CAP];
    int ahead = -1;
    cr_expect_str_eq(kc_request_ahead_mark(mark, 3), "\t" KC_REQUEST_AHEAD "3");
    cr_expect_str_eq(kc_request_ahead_mark(mark, 0), "", "none: no marker");
    cr_expect_str_eq(kc_request_ahead_mark(mark, 1000), "\t" KC_REQUEST_AHEAD "99", "clamped");
    char a[] = "x.f16:control.c\t" KC_INFLIGHT_ALONE "\t" KC_REQUEST_AHEAD "2";
    cr_expect_eq(kc_request_marks(a, &ahead), KC_REQUEST_ALONE_BIT | KC_REQUEST_AHEAD_BIT);
    cr_expect_str_eq(a, "x.f16:control.c");
    cr_expect_eq(ahead, 2);
    char b[] = "x.f16\t" KC_REQUEST_AHEAD "12\t" KC_INFLIGHT_ALONE;
    cr_expect_eq(kc_request_marks(b, &ahead), KC_REQUEST_ALONE_BIT | KC_REQUEST_AHEAD_BIT);
    cr_expect_str_eq(b, "x.f16");
    cr_expect_eq(ahead, 12);
    char c[] = "x.f16\t" KC_REQUEST_AHEAD "1";
    cr_expect_eq(kc_request_marks(c, &ahead), KC_REQUEST_AHEAD_BIT);
    cr_expect_str_eq(c, "x.f16");
    cr_expect_eq(ahead, 1);
    char open_gpu[] = "\t" KC_REQUEST_OPEN;
    cr_expect_eq(kc_request_marks(open_gpu, &ahead), KC_REQUEST_OPEN_BIT, "a line of the marker alone");
    cr_expect_str_eq(open_gpu, "", "no item");
    char d[] = "x.f16\t0123456789abcdef0123456789abcdef";
    cr_expect_eq(kc_request_marks(d, &ahead), 0u, "a nonce is no marker");
    cr_expect_str_eq(d, "x.f16\t0123456789abcdef0123456789abcdef");
    cr_expect_eq(ahead, 0);
    const char *bad[] = { "x.f16\tAHEADX", "x.f16\tAHEAD", "x.f16\tAHEAD0", "x.f16\tAHEAD123", "x.f16\tAHEAD2x" };
    for (int i = 0; i < 5; i++) {
        char l[64];
        snprintf(l, sizeof l, "%s", bad[i]);
        cr_expect_eq(kc_request_marks(l, &ahead), 0u, "only whole words: %s", bad[i]);
        cr_expect_str_eq(l, bad[i]);
    }
}

Test(inflight, only_driver_launched_kernel_items_and_gate_2_to_4_controls_go_in_flight, .init = NULL)
{
    static const kc_contract plain = { .name = "fam.plain" }, lib = { .name = "fam.lib", .library = "libkc_cub.so" };
    static const kc_control gate1 = { "oob_write", 1, "writes past the end" }, san = { "race", KC_GATE_SANITIZE, "a race" },
                            gate3 = { "half_accum", 3, "accumulates in f16" };
    static const kc_suite suite = { .name = "gpu.harness" };
    struct { kc_item it; int flies; const char *why; } t[] = {
        { { "fam.plain", KC_KIND_KERNEL, &plain }, 1, "" },
        { { "fam.plain:half_accum", KC_KIND_CONTROL, &plain, &gate3 }, 1, "" },
        { { "fam.plain:oob_write", KC_KIND_CONTROL, &plain, &gate1 }, 0, "planted for gate 1" },
        { { "fam.plain:race", KC_KIND_CONTROL, &plain, &san }, 0, "planted for the sanitizer" },
        { { "fam.lib", KC_KIND_KERNEL, &lib }, 0, "a library kernel" },
        { { "fam.lib:oob_write", KC_KIND_CONTROL, &lib, &gate1 }, 0, "a library kernel" },
        { { "fam.plain:sanitize", KC_KIND_SANITIZE, &plain }, 0, "a sanitizer item" },
        { { "fam.plain:limits", KC_KIND_LIMIT, &plain }, 0, "a :limits item" },
        { { "gpu.harness", KC_KIND_SUITE, NULL, NULL, &suite }, 0, "a suite" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int got = kc_inflight_admits(&t[i].it, err, sizeof err);
        cr_expect_eq(got, t[i].flies, "%s: admitted %d, expected %d (%s)", t[i].it.name, got, t[i].flies, err);
        cr_expect(strstr(err, t[i].why), "%s: '%s' does not say '%s'", t[i].it.name, err, t[i].why);
    }
}

/* A result line's detail field (result_line.h): the lines come back as they
 * went, each escaped; a line without one parses as before and has none;
 * lines past the room are replaced by one saying so, never cut unseen. */
Test(inflight, a_result_lines_detail_round_trips_and_is_optional)
{
    kc_item_result r, p;
    memset(&r, 0, sizeof r);
    r.state = KC_KNOWN;
    r.context_lost = KC_LOST_CONTEXT;
    snprintf(r.msg, sizeof r.msg, "2 of 7 cases fail");
    char line[KC_RESULT_LINE_CAP], name[64], err[200], back[4096];
    int n = kc_result_format_detail("fam.x", &r, "    known: a\n    known: b\x01", line, sizeof line);
    cr_assert_gt(n, 0);
    cr_assert_eq(kc_result_parse(line, name, sizeof name, &p, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(p.msg, "2 of 7 cases fail", "the message ends where the detail starts");
    cr_expect_eq(p.context_lost, KC_LOST_CONTEXT);
    kc_result_detail(line, back, sizeof back);
    cr_expect_str_eq(back, "    known: a\n    known: b\\x01");
    n = kc_result_format("fam.x", &r, line, sizeof line);
    cr_assert_gt(n, 0);
    kc_result_detail(line, back, sizeof back);
    cr_expect_str_eq(back, "", "no detail field");
    char big[600];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    cr_assert_gt(kc_result_format_detail("fam.x", &r, big, line, 300), 0, "lines past the room: the verdict still goes");
    kc_result_detail(line, back, sizeof back);
    cr_expect_str_eq(back, "    (its further lines did not fit on the result line)");
    cr_expect_eq(kc_result_format_detail("fam.x", &r, big, line, 60), -1, "no room for the verdict itself: refused");
}
