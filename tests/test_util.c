/* test_util.c — the util layer's helpers that other layers share: strict and
 * canonical decimals (strict_num.h), shell-quoted words (shell_words.h),
 * lines built in fixed buffers (strbuf.h) and the monotonic clock (clock.h). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "clock.h"
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
