/* test_filter.c — item selection by shell glob and the pattern-list hash. */
#include <criterion/criterion.h>
#include <string.h>
#include "filter.h"

Test(filter, no_patterns_select_all) {
    cr_assert(kc_filter_match("rmsnorm.f16", NULL, 0));
    cr_assert(kc_filter_match("anything:control.x", NULL, 0));
}

Test(filter, contract_family_glob) {
    char *p[] = { "rmsnorm.*" };
    cr_assert(kc_filter_match("rmsnorm.f16", p, 1));
    cr_assert(kc_filter_match("rmsnorm.f16:limits", p, 1));          /* '*' crosses ':' */
    cr_assert(kc_filter_match("rmsnorm.bf16:control.no_eps", p, 1));
    cr_assert_not(kc_filter_match("layernorm.f16", p, 1));
    cr_assert_not(kc_filter_match("rmsnorm", p, 1));
}

Test(filter, controls_only) {
    char *p[] = { "*:control.*" };
    cr_assert(kc_filter_match("softmax.f32:control.off_by_one", p, 1));
    cr_assert_not(kc_filter_match("softmax.f32", p, 1));
    cr_assert_not(kc_filter_match("softmax.f32:limits", p, 1));
}

Test(filter, several_patterns) {
    char *p[] = { "gemm.*", "*:limits", "host.suite" };
    cr_assert(kc_filter_match("gemm.bf16", p, 3));
    cr_assert(kc_filter_match("rope.f16:limits", p, 3));
    cr_assert(kc_filter_match("host.suite", p, 3));
    cr_assert_not(kc_filter_match("rope.f16", p, 3));
    cr_assert_not(kc_filter_match("host.suite2", p, 3));
    char *q[] = { "softmax.f?2", "[ab]*" };
    cr_assert(kc_filter_match("softmax.f32", q, 2));
    cr_assert(kc_filter_match("attn.f16", q, 2));
    cr_assert_not(kc_filter_match("softmax.f16", q, 2));
}

Test(filter, hash_stable_and_order_sensitive) {
    char *a[] = { "x*", "y*" }, *b[] = { "y*", "x*" }, *c[] = { "x*y*" }, *d[] = { "x*", "y*" };
    cr_assert_eq(kc_filter_hash(a, 2), kc_filter_hash(d, 2));
    cr_assert_neq(kc_filter_hash(a, 2), kc_filter_hash(b, 2));
    cr_assert_neq(kc_filter_hash(a, 2), kc_filter_hash(c, 1));
    cr_assert_neq(kc_filter_hash(a, 1), kc_filter_hash(a, 2));
    cr_assert_neq(kc_filter_hash(NULL, 0), kc_filter_hash(a, 1));
    /* Pinned: the TALLY's filter key must not change between builds. */
    char *e[] = { "rmsnorm.*", "*:control.*" };
    cr_assert_eq(kc_filter_hash(NULL, 0), 0xf52a15e9a9b5e89bULL);
    cr_assert_eq(kc_filter_hash(e, 2), 0xf6a0bf936cb133c9ULL);
}

/* --exclude GLOB is the pattern "!GLOB": it drops what it matches, whatever
 * selects it; with no selecting pattern, everything else is selected. */
Test(filter, exclusions_drop_what_they_match) {
    char *only[] = { "!*:control.*" };
    cr_assert(kc_filter_match("softmax.f32", only, 1));
    cr_assert(kc_filter_match("softmax.f32:limits", only, 1));
    cr_assert_not(kc_filter_match("softmax.f32:control.off_by_one", only, 1));
    char *both[] = { "!*:limits", "softmax.*", "gemm.*" };
    cr_assert(kc_filter_match("softmax.f32", both, 3));
    cr_assert(kc_filter_match("gemm.bf16:control.x", both, 3));
    cr_assert_not(kc_filter_match("softmax.f32:limits", both, 3));
    cr_assert_not(kc_filter_match("rope.f16", both, 3));
}

Test(filter, exclusions_change_the_hash_and_must_match_something) {
    char *sel[] = { "softmax.*" };
    char *ex[] = { "softmax.*", "!*:limits" };
    cr_assert_neq(kc_filter_hash(sel, 1), kc_filter_hash(ex, 2), "shards with and without --exclude must not merge");
    const char names[3][32] = { "softmax.f32", "softmax.f32:limits", "rope.f16" };
    cr_assert_eq(kc_filter_first_unmatched(names[0], sizeof names[0], 3, ex, 2), -1);
    char *typo[] = { "softmax.*", "!*:limit" };
    cr_assert_eq(kc_filter_first_unmatched(names[0], sizeof names[0], 3, typo, 2), 1, "an exclusion matching nothing");
}

/* A pattern that matched nothing gets what it likely meant: a swap, a case
 * change, a missing letter in its literal head, the glob kept; nothing for
 * a head too short or too far from every name. */
Test(filter, suggests_what_a_mistyped_pattern_meant) {
    static const char names[][32] = { "rmsnorm.f32", "rmsnorm.f16", "attn_decode.nhd.f16", "gemv.bf16" };
    char out[3][256];
    int n = (int)(sizeof names / sizeof names[0]);
    cr_assert_eq(kc_filter_suggest("rmsnrom.*", names[0], sizeof names[0], n, out, 3), 1);
    cr_expect_str_eq(out[0], "rmsnorm.*");
    cr_assert_eq(kc_filter_suggest("rmsnorm.F32", names[0], sizeof names[0], n, out, 3), 1);
    cr_expect_str_eq(out[0], "rmsnorm.f32");
    cr_assert_eq(kc_filter_suggest("atn_decode*", names[0], sizeof names[0], n, out, 3), 1);
    cr_expect_str_eq(out[0], "attn_decode*");
    cr_assert_eq(kc_filter_suggest("!gemv.bf61", names[0], sizeof names[0], n, out, 3), 1);
    cr_expect_str_eq(out[0], "gemv.bf16");
    cr_expect_eq(kc_filter_suggest("rmx*", names[0], sizeof names[0], n, out, 3), 0, "%s", out[0]);
    cr_expect_eq(kc_filter_suggest("xyzzy.*", names[0], sizeof names[0], n, out, 3), 0, "%s", out[0]);
    cr_expect_eq(kc_filter_suggest("*f32", names[0], sizeof names[0], n, out, 3), 0, "no literal head: nothing");
}

/* A selection named as the command line gives it (a merge's refusal):
 * exclusions as --exclude, words quoted for a shell, none said in words,
 * and a short buffer cut but terminated. */
Test(filter, words_give_the_patterns_as_a_command_line) {
    char buf[128];
    char *pats[] = { "rmsnorm.*", "!*:sanitize", "gemv.bf16" };
    kc_filter_words(pats, 3, buf, sizeof buf);
    cr_expect_str_eq(buf, "'rmsnorm.*' --exclude '*:sanitize' gemv.bf16");
    kc_filter_words(NULL, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "no PATTERN (every item)");
    char small[8];
    kc_filter_words(pats, 3, small, sizeof small);
    cr_expect_eq(strlen(small), sizeof small - 2, "cut at its buffer, less the leading space: '%s'", small);
    cr_expect_str_eq(small, "'rmsno", "cut: '%s'", small);
}
