/* test_input_prefetch.c — inputs made ahead of their cases
 * (src/cuda/input_prefetch.h): each handed-over buffer holds the same bits
 * as the generator run in its case (kc_fill with the same key), for a
 * drawing generator and for kc_gen_default; a budget smaller than the
 * inputs still makes every one; an input no thread reached is made by the
 * case that asks for it, and never handed over twice; a table generator that draws is refused
 * with the gates' reason; an input never queued is not found; inputs not
 * taken are freed with the prefetch (run under ASan/LSan in CI); a generator
 * that calls kc_gen_default is noted after its first input and its other
 * inputs are left to their cases, where the GPU makes the stream. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "fill.h"
#include "input_prefetch.h"

static void drawing_gen(kc_gen *g)
{
    for (size_t i = 0; i < g->count; i++) kc_gen_put(g, i, kc_rand_normal(g) * (double)(g->shape->d[1] + 1));
}
static void default_then_edit_gen(kc_gen *g)
{
    kc_gen_default(g);
    if (g->count) kc_gen_put(g, g->count - 1, (double)kc_rand_int(g, -5, 5));
}
static void drawing_table_gen(kc_gen *g)
{
    for (size_t i = 0; i < g->count; i++) kc_gen_put(g, i, kc_rand_uniform(g, 0, 1));
}
static size_t count_d0(const kc_shape *s) { return (size_t)s->d[0]; }

static const kc_shape SHAPES[] = {
    { "a", KC_SHAPE_MODEL, { 1000, 3 } },
    { "b", KC_SHAPE_EDGE, { 7, 0 } },
    { "c", KC_SHAPE_MODEL, { 300001, 1 } },
    { NULL },
};

static const kc_contract C = {
    .name = "prefetch.test",
    .args = {
        KC_BUFFER("out", KC_F32, KC_OUT, count_d0),
        KC_BUFFER_GEN("x", KC_F32, KC_IN, count_d0, drawing_gen),
        KC_BUFFER_GEN("y", KC_BF16, KC_IN, count_d0, default_then_edit_gen),
        KC_BUFFER_TABLE("t", KC_F32, KC_IN, count_d0, drawing_table_gen),
    },
    .shapes = SHAPES,
};

/* What the case itself would make: the generator of argument a on a fresh
 * zeroed buffer with the buffer's key, on the caller's thread. */
static void *made_in_case(const kc_shape *s, kc_dist dist, uint64_t seed, int a)
{
    const kc_arg *ar = &C.args[a];
    size_t n = ar->count(s), bytes = n * kc_dtype_size(ar->dtype);
    void *buf = calloc(bytes ? bytes : 1, 1);
    cr_assert_not_null(buf);
    kc_gen g = { .shape = s, .dist = dist, .dtype = ar->dtype, .data = buf, .count = n };
    kc_fill(&g, kc_buffer_key(seed, a), ar->gen);
    return buf;
}

/* Queues x and y of every shape under two distributions, with a budget of
 * `budget` bytes, and checks every handed-over buffer bit for bit. */
static void every_input_the_same(int threads, size_t budget)
{
    kc_prefetch *p = kc_prefetch_new(threads, budget, NULL);
    cr_assert_not_null(p);
    const kc_dist dists[] = { KC_NORMAL, KC_SPECIALS };
    for (const kc_shape *s = SHAPES; s->name; s++)
        for (int d = 0; d < 2; d++)
            for (int a = 1; a <= 2; a++)
                cr_assert_eq(kc_prefetch_add(p, &C, s, dists[d], 1000 + (uint64_t)d, a, count_d0(s)), 0);
    kc_prefetch_go(p);
    for (const kc_shape *s = SHAPES; s->name; s++)
        for (int d = 0; d < 2; d++)
            for (int a = 1; a <= 2; a++) {
                void *host = NULL;
                char why[200] = "";
                int rc = kc_prefetch_take(p, &C, s, 1000 + (uint64_t)d, a, count_d0(s), &host, why, sizeof why);
                cr_assert_eq(rc, 1, "shape %s dist %d arg %d: %d (%s)", s->name, d, a, rc, why);
                void *want = made_in_case(s, dists[d], 1000 + (uint64_t)d, a);
                size_t bytes = count_d0(s) * kc_dtype_size(C.args[a].dtype);
                cr_expect(memcmp(host, want, bytes) == 0, "shape %s dist %d arg %d: made ahead differs from made in its case",
                          s->name, d, a);
                free(want);
                free(host);
            }
    kc_prefetch_free(p);
}

Test(input_prefetch, made_ahead_equals_made_in_the_case)
{
    every_input_the_same(4, (size_t)1 << 30);
}

/* 64 bytes: every input is larger, so one is made at a time, each after
 * the one before was taken; all are still made. */
Test(input_prefetch, a_budget_smaller_than_an_input_still_makes_each)
{
    every_input_the_same(3, 64);
}

/* With the budget full (one 1.2 MB input being made or made, not taken),
 * the next input is still queued when its case asks: it is made on the
 * asking thread, the same bits, and a second take of it finds nothing. */
Test(input_prefetch, an_input_no_thread_reached_is_made_by_its_case)
{
    kc_prefetch *p = kc_prefetch_new(2, 64, NULL);
    cr_assert_not_null(p);
    const kc_shape *big = &SHAPES[2], *small = &SHAPES[1];
    cr_assert_eq(kc_prefetch_add(p, &C, big, KC_NORMAL, 5, 1, count_d0(big)), 0);
    cr_assert_eq(kc_prefetch_add(p, &C, small, KC_NORMAL, 5, 1, count_d0(small)), 0);
    kc_prefetch_go(p);
    void *host = NULL;
    char why[200] = "";
    cr_assert_eq(kc_prefetch_take(p, &C, small, 5, 1, count_d0(small), &host, why, sizeof why), 1, "%s", why);
    void *want = made_in_case(small, KC_NORMAL, 5, 1);
    cr_expect(memcmp(host, want, count_d0(small) * 4) == 0);
    free(want);
    free(host);
    host = NULL;
    cr_expect_eq(kc_prefetch_take(p, &C, small, 5, 1, count_d0(small), &host, why, sizeof why), 0,
                 "a second take of an input is never handed over");
    cr_expect_null(host);
    cr_expect_eq(kc_prefetch_take(p, &C, big, 5, 1, count_d0(big), &host, why, sizeof why), 1);
    free(host);
    kc_prefetch_free(p);
}

/* A table generator that draws is refused with the reason the gates print;
 * an input never queued (another seed, count or argument) is not found. */
Test(input_prefetch, a_drawing_table_is_refused_and_unknown_inputs_are_not_found)
{
    kc_prefetch *p = kc_prefetch_new(2, (size_t)1 << 20, NULL);
    cr_assert_not_null(p);
    const kc_shape *s = &SHAPES[0];
    cr_assert_eq(kc_prefetch_add(p, &C, s, KC_UNIFORM, 0, 3, count_d0(s)), 0);
    cr_assert_eq(kc_prefetch_add(p, &C, s, KC_UNIFORM, 9, 1, count_d0(s)), 0);
    cr_assert_eq(kc_prefetch_add(p, &C, s, KC_UNIFORM, 9, 1, count_d0(s)), 0, "a second add of the same input is a no-op");
    kc_prefetch_go(p);
    void *host = NULL;
    char why[200] = "";
    cr_expect_eq(kc_prefetch_take(p, &C, s, 0, 3, count_d0(s), &host, why, sizeof why), -1);
    cr_expect(strstr(why, "table generator (KC_BUFFER_TABLE) drew from kc_rand_*"), "%s", why);
    cr_expect_eq(kc_prefetch_take(p, &C, s, 8, 1, count_d0(s), &host, why, sizeof why), 0, "another seed");
    cr_expect_eq(kc_prefetch_take(p, &C, s, 9, 1, count_d0(s) - 1, &host, why, sizeof why), 0, "another count");
    cr_expect_eq(kc_prefetch_take(p, &C, s, 9, 2, count_d0(s), &host, why, sizeof why), 0, "another argument");
    cr_expect_eq(kc_prefetch_take(NULL, &C, s, 9, 1, count_d0(s), &host, why, sizeof why), 0, "no prefetch");
    kc_prefetch_free(p);        /* x of seed 9, made and not taken: freed here */
}

/* y's generator calls kc_gen_default: an input of it made ahead (by a
 * thread or by the take) is still the case's bits and notes the generator;
 * once noted, its inputs are left to their cases (0) while a drawing
 * generator's are made ahead, and x's generator is never noted. */
Test(input_prefetch, a_generator_on_the_gpu_stream_is_left_to_its_cases)
{
    kc_stream_gens gens = { .n = 0 };
    const kc_shape *s = &SHAPES[0];
    void *host = NULL;
    char why[200] = "";
    kc_prefetch *p = kc_prefetch_new(1, (size_t)1 << 30, &gens);
    cr_assert_not_null(p);
    cr_assert_eq(kc_prefetch_add(p, &C, s, KC_NORMAL, 1, 2, count_d0(s)), 0);
    kc_prefetch_go(p);
    cr_assert_eq(kc_prefetch_take(p, &C, s, 1, 2, count_d0(s), &host, why, sizeof why), 1, "%s", why);
    void *want = made_in_case(s, KC_NORMAL, 1, 2);
    cr_expect(memcmp(host, want, count_d0(s) * 2) == 0, "made ahead, the case's bits");
    free(want);
    free(host);
    kc_prefetch_free(p);
    cr_expect(kc_stream_gens_has(&gens, default_then_edit_gen), "noted as the stream's");

    p = kc_prefetch_new(2, (size_t)1 << 30, &gens);
    cr_assert_not_null(p);
    cr_assert_eq(kc_prefetch_add(p, &C, s, KC_NORMAL, 2, 2, count_d0(s)), 0);
    cr_assert_eq(kc_prefetch_add(p, &C, s, KC_NORMAL, 3, 1, count_d0(s)), 0);
    kc_prefetch_go(p);
    cr_expect_eq(kc_prefetch_take(p, &C, s, 2, 2, count_d0(s), &host, why, sizeof why), 0, "left to its case");
    cr_expect_eq(kc_prefetch_take(p, &C, s, 3, 1, count_d0(s), &host, why, sizeof why), 1, "x is made ahead");
    free(host);
    kc_prefetch_free(p);
    cr_expect(!kc_stream_gens_has(&gens, drawing_gen));
    kc_stream_gens_add(NULL, &gens, default_then_edit_gen);
    cr_expect_eq(gens.n, 1, "added once");
}
