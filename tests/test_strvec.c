/* test_strvec.c — growable NULL-terminated argument vectors (util/strvec.h):
 * copies owned by the vector, always NULL-terminated after a push, lists
 * appended whole or not at all, a refusal leaving the vector as it was. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "strvec.h"

/* The words of sv as "[a][b]...", checking the terminating NULL. */
static const char *words(const kc_strvec *sv)
{
    static char out[4096];
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < sv->n; i++) n += (size_t)snprintf(out + n, sizeof out - n, "[%s]", sv->v[i]);
    cr_assert(sv->n == 0 || sv->v[sv->n] == NULL, "v[n] must be NULL");
    return out;
}

Test(strvec, zeroed_is_empty_and_clear_resets)
{
    kc_strvec sv = KC_STRVEC_INIT;
    cr_expect_eq(sv.n, 0);
    kc_strvec_clear(&sv);   /* clearing an empty one is fine */
    cr_expect_eq(kc_strvec_push(&sv, "a"), 0);
    kc_strvec_clear(&sv);
    cr_expect(sv.v == NULL && sv.n == 0 && sv.alloc == 0);
    cr_expect_eq(kc_strvec_push(&sv, "b"), 0, "reusable after clear");
    cr_expect_str_eq(words(&sv), "[b]");
    kc_strvec_clear(&sv);
}

Test(strvec, push_copies_and_grows)
{
    kc_strvec sv = KC_STRVEC_INIT;
    char w[8] = "word";
    cr_assert_eq(kc_strvec_push(&sv, w), 0);
    w[0] = 'X';
    cr_expect_str_eq(sv.v[0], "word", "a copy, not the caller's buffer");
    for (int i = 0; i < 1000; i++) cr_assert_eq(kc_strvec_pushf(&sv, "%d", i), 0);
    cr_expect_eq(sv.n, 1001);
    cr_expect_str_eq(sv.v[1000], "999");
    cr_expect_null(sv.v[1001]);
    cr_expect_eq(kc_strvec_push(&sv, ""), 0, "an empty word is a word");
    cr_expect_str_eq(sv.v[1001], "");
    kc_strvec_clear(&sv);
}

Test(strvec, pushf_formats_one_word)
{
    kc_strvec sv = KC_STRVEC_INIT;
    cr_assert_eq(kc_strvec_pushf(&sv, "%d/%d", 2, 4), 0);
    cr_assert_eq(kc_strvec_pushf(&sv, "%llu", 18446744073709551615ULL), 0);
    cr_assert_eq(kc_strvec_pushf(&sv, "a b %s", "c"), 0);
    cr_expect_str_eq(words(&sv), "[2/4][18446744073709551615][a b c]");
    kc_strvec_clear(&sv);
}

Test(strvec, lists_are_appended_whole)
{
    kc_strvec sv = KC_STRVEC_INIT;
    const char *l[] = { "run", "--seed", "7", NULL };
    cr_assert_eq(kc_strvec_pushv(&sv, l), 0);
    cr_assert_eq(kc_strvec_pushn(&sv, l, 1), 0);
    cr_assert_eq(kc_strvec_pushv(&sv, NULL), 0, "NULL: nothing");
    cr_assert_eq(kc_strvec_pushn(&sv, NULL, 0), 0);
    cr_expect_str_eq(words(&sv), "[run][--seed][7][run]");
    /* its own words, though pushing moves them */
    for (int i = 0; i < 5; i++) cr_assert_eq(kc_strvec_pushn(&sv, (const char *const *)sv.v, sv.n), 0);
    cr_expect_eq(sv.n, 4 * 32);
    cr_expect_str_eq(sv.v[4 * 31 + 2], "7");
    kc_strvec_clear(&sv);
}

Test(strvec, a_refusal_leaves_it_as_it_was)
{
    kc_strvec sv = KC_STRVEC_INIT;
    cr_assert_eq(kc_strvec_push(&sv, "a"), 0);
    errno = 0;
    cr_expect_eq(kc_strvec_push(&sv, NULL), -1);
    cr_expect_eq(errno, EINVAL);
    const char *holed[] = { "b", NULL, "c" };
    errno = 0;
    cr_expect_eq(kc_strvec_pushn(&sv, holed, 3), -1, "a NULL inside the list");
    cr_expect_eq(errno, EINVAL);
    cr_expect_eq(kc_strvec_pushn(&sv, NULL, 2), -1);
    cr_expect_str_eq(words(&sv), "[a]", "nothing of a refused list was appended");
    kc_strvec_clear(&sv);
}
