/* test_edge_shapes.c — edge shapes derived from a model shape and a rule
 * (kc_edge_shapes, KC_EDGE_SHAPES): the off-tile candidates and their
 * names, the predicate moving a candidate to the nearest value it keeps,
 * bounds, deduplication against the list, and each refusal's words. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "kcontract.h"

/* The dims of list[from..] along `dim`, in order, as "v1 v2 ..." (with each
 * name checked against the model's). */
static void expect_derived(const kc_shape *list, int from, const char *model, int dim, const int64_t *want, int n)
{
    int got = 0;
    for (const kc_shape *s = &list[from]; s->name; s++, got++) {
        cr_assert_lt(got, n, "derived more than the %d expected: extra %s", n, s->name);
        char name[128];
        snprintf(name, sizeof name, "edge.%s.d%d=%lld", model, dim, (long long)want[got]);
        cr_expect_eq(s->d[dim], want[got], "derived shape %d: d[%d] = %lld, expected %lld", got, dim,
                     (long long)s->d[dim], (long long)want[got]);
        cr_expect_str_eq(s->name, name, "derived shape %d's name", got);
        cr_expect_eq(s->cls, KC_SHAPE_EDGE, "derived shape %s: class %d, expected KC_SHAPE_EDGE", s->name, s->cls);
    }
    cr_expect_eq(got, n, "derived %d shapes, expected %d", got, n);
}

Test(edge_shapes, off_the_tile_around_its_first_tile_and_the_model_size)
{
    kc_shape list[16] = { { "gpt2.attn", KC_SHAPE_MODEL, { 48, 1024 } }, { 0 } };
    kc_edge_rule r = { .dim = 1, .tile = 256 };
    char why[300] = "";
    cr_assert_eq(kc_edge_shapes(list, 16, &list[0], &r, why, sizeof why), 5, "%s", why);
    expect_derived(list, 1, "gpt2.attn", 1, (const int64_t[]){ 1, 255, 257, 1023, 1025 }, 5);
    cr_expect_eq(list[1].d[0], 48, "the other dims are the model's: d[0] = %lld", (long long)list[1].d[0]);
}

static int k_mod8(const kc_shape *s) { return s->d[2] % 8 == 0; }

Test(edge_shapes, a_predicate_moves_each_candidate_to_the_nearest_value_it_keeps)
{
    kc_shape list[16] = { { "llama3-8b.qkv", KC_SHAPE_MODEL, { 4096, 6144, 4096 } }, { 0 } };
    kc_edge_rule r = { .dim = 2, .tile = 64, .keep = k_mod8 };
    char why[300] = "";
    cr_assert_eq(kc_edge_shapes(list, 16, &list[0], &r, why, sizeof why), 5, "%s", why);
    expect_derived(list, 1, "llama3-8b.qkv", 2, (const int64_t[]){ 8, 56, 72, 4088, 4104 }, 5);
}

Test(edge_shapes, bounds_drop_candidates_outside_them)
{
    kc_shape list[16] = { { "m", KC_SHAPE_MODEL, { 4096 } }, { 0 } };
    kc_edge_rule r = { .dim = 0, .tile = 128, .min = 100, .max = 4096 };
    char why[300] = "";
    cr_assert_eq(kc_edge_shapes(list, 16, &list[0], &r, why, sizeof why), 3, "%s", why);
    expect_derived(list, 1, "m", 0, (const int64_t[]){ 127, 129, 4095 }, 3);
}

Test(edge_shapes, shapes_already_in_the_list_are_not_added_again)
{
    kc_shape list[16] = {
        { "m", KC_SHAPE_MODEL, { 2, 1024 } },
        { "edge.2x255", KC_SHAPE_EDGE, { 2, 255 } },    /* hand-written, same dims as a candidate */
        { 0 },
    };
    kc_edge_rule r = { .dim = 1, .tile = 256 };
    char why[300] = "";
    cr_assert_eq(kc_edge_shapes(list, 16, &list[0], &r, why, sizeof why), 4, "%s", why);
    expect_derived(list, 2, "m", 1, (const int64_t[]){ 1, 257, 1023, 1025 }, 4);
    /* a second rule over the same dim adds nothing new: all duplicates */
    cr_assert_eq(kc_edge_shapes(list, 16, &list[0], &r, why, sizeof why), 0, "%s", why);
}

Test(edge_shapes, refusals_name_the_value_and_what_was_expected)
{
    kc_shape list[4] = { { "m", KC_SHAPE_MODEL, { 1024 } }, { 0 } };
    char why[300];
    kc_edge_rule bad_dim = { .dim = 8, .tile = 256 };
    cr_expect_eq(kc_edge_shapes(list, 4, &list[0], &bad_dim, why, sizeof why), -1);
    cr_expect(strstr(why, "edge shapes of m: dim 8 is outside [0, 8)"), "%s", why);
    kc_edge_rule no_tile = { .dim = 0 };
    cr_expect_eq(kc_edge_shapes(list, 4, &list[0], &no_tile, why, sizeof why), -1);
    cr_expect(strstr(why, "tile 0 along d[0] (expected >= 1)"), "%s", why);
    kc_edge_rule bounds = { .dim = 0, .tile = 256, .min = 500, .max = 400 };
    cr_expect_eq(kc_edge_shapes(list, 4, &list[0], &bounds, why, sizeof why), -1);
    cr_expect(strstr(why, "bounds [500, 400] of d[0]"), "%s", why);
    kc_edge_rule full = { .dim = 0, .tile = 256 };
    cr_expect_eq(kc_edge_shapes(list, 4, &list[0], &full, why, sizeof why), -1, "a list of 4 holds 2 derived, not 5");
    cr_expect(strstr(why, "the list of 4 entries has room for 2 more, and the rule derives 5 new ones along d[0]"),
              "%s", why);
    cr_expect_null(list[1].name, "nothing appended to a list without room: %s", list[1].name ? list[1].name : "");
}

static int never(const kc_shape *s) { (void)s; return 0; }

Test(edge_shapes, a_rule_that_derives_nothing_is_refused)
{
    kc_shape list[8] = { { "m", KC_SHAPE_MODEL, { 1024 } }, { 0 } };
    kc_edge_rule r = { .dim = 0, .tile = 256, .keep = never };
    char why[300];
    cr_expect_eq(kc_edge_shapes(list, 8, &list[0], &r, why, sizeof why), -1);
    cr_expect(strstr(why, "no value of d[0] off the tile 256 within [1, no bound] meets its predicate"), "%s", why);
    cr_expect_null(list[1].name, "nothing appended: %s", list[1].name ? list[1].name : "");
}

/* KC_EDGE_SHAPES fills a static list before main, as a contract's .shapes. */
static kc_shape ctor_shapes[12] = { { "model.n4096", KC_SHAPE_MODEL, { 4096 } }, { "edge.1", KC_SHAPE_EDGE, { 1 } },
                                    { 0 } };
KC_EDGE_SHAPES(ctor_shapes, 0, .dim = 0, .tile = 256)

Test(edge_shapes, the_macro_derives_a_static_list_before_main)
{
    /* edge.1 was already there: 255, 257, 4095, 4097 */
    expect_derived(ctor_shapes, 2, "model.n4096", 0, (const int64_t[]){ 255, 257, 4095, 4097 }, 4);
}

Test(edge_shapes, a_bad_model_index_exits_2, .exit_code = 2)
{
    kc_shape list[4] = { { "m", KC_SHAPE_MODEL, { 1024 } }, { 0 } };
    kc_edge_rule r = { .dim = 0, .tile = 256 };
    kc_derive_edges(list, 4, 3, &r, "list");
}
