/* test_util.c — the util layer's helpers that other layers share: strict and
 * canonical decimals (strict_num.h), shell-quoted words (shell_words.h),
 * lines built in fixed buffers (strbuf.h) and the monotonic clock (clock.h). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "line_text.h"
#include "shell_words.h"
#include "strbuf.h"
#include "strict_num.h"

Test(util, canonical_decimal)
{
    uint64_t v = 77;
    cr_expect_eq(kc_parse_canonical("0", 1, 10, &v), 0);
    cr_expect_eq(v, 0);
    cr_expect_eq(kc_parse_canonical("123x", 3, 1000, &v), 0, "only s[0..n) is read");
    cr_expect_eq(v, 123);
    cr_expect_eq(kc_parse_canonical("18446744073709551615", 20, UINT64_MAX, &v), 0);
    cr_expect_eq(v, UINT64_MAX);
    v = 77;
    const char *bad[] = { "", "01", "00", "-1", "+1", " 1", "1 ", "1a", "18446744073709551616", "99999999999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(kc_parse_canonical(bad[i], strlen(bad[i]), UINT64_MAX, &v), -1, "'%s' must be refused", bad[i]);
    cr_expect_eq(kc_parse_canonical("11", 2, 10, &v), -1, "above max");
    cr_expect_eq(kc_parse_canonical("10", 2, 10, &v), 0, "max itself");
    cr_expect_eq(v, 10);
}

/* Seconds (--timeout, KC_SANITIZE_TIMEOUT_S): above 0, at most max, the
 * whole text a number ('10s' is no 10). */
Test(util, strict_seconds)
{
    double t = 7;
    const struct { const char *s; double want; } good[] = { { "30", 30 }, { "0.5", 0.5 }, { ".25", 0.25 }, { "1e3", 1000 },
                                                            { "10000000", 1e7 } };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        cr_expect_eq(kc_parse_seconds(good[i].s, 1e7, &t), 0, "'%s' must be taken", good[i].s);
        cr_expect_eq(t, good[i].want, "'%s' read as %g", good[i].s, t);
    }
    t = 7;
    const char *bad[] = { "", "0", "0.0", "-5", "+5", " 5", "5 ", "10s", "abc", "0x10", "inf", "nan", "1e8", "10000001", "1e-400" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(kc_parse_seconds(bad[i], 1e7, &t), -1, "'%s' must be refused", bad[i]);
    cr_expect_eq(kc_parse_seconds(NULL, 1e7, &t), -1);
    cr_expect_eq(t, 7, "a refusal leaves *out alone");
}

Test(util, strict_u64)
{
    uint64_t v = 5;
    cr_expect_eq(kc_parse_u64("007", 10, &v), 0, "a strict decimal may have leading zeros");
    cr_expect_eq(v, 7);
    cr_expect_eq(kc_parse_u64(NULL, 10, &v), -1);
    cr_expect_eq(kc_parse_u64("-1", UINT64_MAX, &v), -1);
    cr_expect_eq(kc_parse_u64("1e3", UINT64_MAX, &v), -1);
    cr_expect_eq(kc_parse_u64("11", 10, &v), -1);
    cr_expect_eq(kc_parse_u64("18446744073709551616", UINT64_MAX, &v), -1);
    cr_expect_eq(v, 7, "a refusal leaves the value alone");
}

Test(util, shell_words_read_back_as_written)
{
    const char *words[] = { "kcontract", "run", "a b", "it's", "", "x*", "--seed=3" };
    char line[256];
    kc_shell_join(words, 7, line, sizeof line);
    cr_expect_str_eq(line, "kcontract run 'a b' 'it'\\''s' '' 'x*' --seed=3");
    char small[8];
    kc_shell_join(words, 7, small, sizeof small);
    cr_expect_lt(strlen(small), sizeof small, "cut at cap, still terminated");
}

Test(util, clock_is_monotonic)
{
    double a = kc_now_s(), b = kc_now_s();
    cr_expect_gt(a, 0);
    cr_expect_geq(b, a);
}

Test(util, strbuf_cuts_and_remembers)
{
    char buf[8];
    kc_strbuf b;
    kc_sb_init(&b, buf, sizeof buf);
    kc_sb_printf(&b, "%s", "abc");
    kc_sb_printf(&b, "%d", 12);
    cr_expect_str_eq(buf, "abc12");
    cr_expect_eq(b.len, 5);
    cr_expect_eq(b.over, 0);
    kc_sb_printf(&b, "%s", "xyz");   /* 8 characters do not fit in 8 bytes */
    cr_expect_str_eq(buf, "abc12xy");
    cr_expect_eq(b.len, 7);
    cr_expect_eq(b.over, 1);
    kc_sb_printf(&b, "more");
    cr_expect_str_eq(buf, "abc12xy");
    kc_strbuf none;
    kc_sb_init(&none, NULL, 0);
    kc_sb_printf(&none, "x");
    cr_expect_eq(none.over, 1, "no buffer: nothing written, the cut remembered");
}

Test(util, strcatf_appends_to_a_string)
{
    char msg[12] = "gate 2";
    kc_strcatf(msg, sizeof msg, "; %s", "x");
    cr_expect_str_eq(msg, "gate 2; x");
    kc_strcatf(msg, sizeof msg, "%s", "12345");
    cr_expect_str_eq(msg, "gate 2; x12", "cut at the end, terminated");
    kc_strcatf(msg, sizeof msg, "%s", "more");
    cr_expect_str_eq(msg, "gate 2; x12");
}

Test(util, escape_line_keeps_text_on_its_line)
{
    static const struct { const char *in, *out; } t[] = {
        { "plain text, 1.5 > 1e-05 (rtol)", "plain text, 1.5 > 1e-05 (rtol)" },
        { "a\nb\rc\td", "a\\nb\\rc\\td" },
        { "\033[31mred\033[0m", "\\x1b[31mred\\x1b[0m" },
        { "\001\037\177", "\\x01\\x1f\\x7f" },
        { "csi \xc2\x9b nel \xc2\x85", "csi \\xc2\\x9b nel \\xc2\\x85" },   /* C1 controls */
        { "bad \xff \xc3 \xe2\x86 end", "bad \\xff \\xc3 \\xe2\\x86 end" },  /* invalid and truncated UTF-8 */
        { "\xed\xa0\x80", "\\xed\\xa0\\x80" },                             /* a surrogate */
        { "\xc3\xa9\xe2\x86\x92 \xf0\x9f\x98\x80 \xc2\xa0", "\xc3\xa9\xe2\x86\x92 \xf0\x9f\x98\x80 \xc2\xa0" },
        { "back\\slash \\n stays", "back\\slash \\n stays" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char buf[128], again[128];
        cr_expect_eq(kc_escape_line(buf, sizeof buf, t[i].in, strlen(t[i].in)), 0);
        cr_expect_str_eq(buf, t[i].out, "case %zu", i);
        cr_expect_eq(kc_escaped_len(t[i].in, strlen(t[i].in)), strlen(t[i].out), "case %zu", i);
        kc_escape_line(again, sizeof again, buf, strlen(buf));
        cr_expect_str_eq(again, buf, "case %zu: escaping escaped text changes it", i);
    }
    char small[8];
    /* cut between escapes, never inside one; the count says how much */
    cr_expect_eq(kc_escape_line(small, sizeof small, "ab\ncd\n", 6), 2);
    cr_expect_str_eq(small, "ab\\ncd");
    cr_expect_eq(kc_escape_line(small, sizeof small, "abcdef\033", 7), 4);
    cr_expect_str_eq(small, "abcdef");
    cr_expect_eq(kc_escape_line(small, sizeof small, "abcde\xe2\x86\x92", 8), 3, "a UTF-8 sequence is not split");
    cr_expect_str_eq(small, "abcde");
    cr_expect_eq(kc_escape_line(small, sizeof small, "a\nb", 2), 0, "n bytes of src");
    cr_expect_str_eq(small, "a\\n");
}

Test(util, escape_in_place)
{
    char msg[16] = "x\ny\033z";
    kc_escape_in_place(msg, sizeof msg);
    cr_expect_str_eq(msg, "x\\ny\\x1bz");
    kc_escape_in_place(msg, sizeof msg);
    cr_expect_str_eq(msg, "x\\ny\\x1bz", "idempotent");
    char full[8] = "\n\n\n\n\n";
    kc_escape_in_place(full, sizeof full);
    cr_expect_str_eq(full, "\\n\\n\\n", "cut at the buffer's end between escapes");
}

Test(util, lines_are_whole_or_cut_and_counted)
{
    char buf[KC_LINES_MARK_ROOM + 48];   /* 48 bytes of lines */
    kc_lines l;
    kc_lines_init(&l, buf, sizeof buf);
    kc_lines_add(&l, "    also: %s", "case 1");            /* 17 bytes */
    kc_lines_add(&l, "    also: %s", "two\nlines");         /* one line, escaped: 21 bytes */
    cr_expect_str_eq(buf, "    also: case 1\n    also: two\\nlines\n");
    kc_lines_add(&l, "    also: %s", "case 3 does not fit");  /* 30 bytes */
    kc_lines_add(&l, "%s", "x");                          /* fits, but comes after a cut line */
    cr_expect_eq(l.cut_lines, 2);
    cr_expect_eq(l.cut_bytes, 30 + 2);
    kc_lines_end(&l, "    ");
    cr_expect_str_eq(buf, "    also: case 1\n    also: two\\nlines\n"
                          "    [... 2 more lines, 32 bytes, cut: the lines under one item are capped at 240 bytes]\n");
    char big[4096];
    kc_lines_init(&l, big, sizeof big);
    for (int i = 0; i < 1000; i++) kc_lines_add(&l, "    also: line %d of a thousand", i);
    kc_lines_end(&l, "    ");
    cr_expect_lt(strlen(big), sizeof big);
    cr_expect_eq(big[strlen(big) - 1], '\n');
    cr_expect(strstr(big, "    also: line 0 of a thousand\n    also: line 1 of"));
    char tail[200];
    snprintf(tail, sizeof tail, "[... %d more lines, %zu bytes, cut: the lines under one item are capped at 4096 bytes]\n",
             l.cut_lines, l.cut_bytes);
    cr_expect_str_eq(strrchr(big, '['), tail);
    kc_lines_init(&l, buf, sizeof buf);
    kc_lines_end(&l, "    ");
    cr_expect_str_eq(buf, "", "nothing cut: no marker");
}
