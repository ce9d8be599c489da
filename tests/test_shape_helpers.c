/* test_shape_helpers.c — the public shape and reference helpers: counts from
 * any dims (zero dims, overflow refused naming the value), integer scalars
 * from a dim, 1-D launch geometry and its limits, inputs resolved once and
 * their bounds, and the row-parallel loop. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include "kcontract.h"

KC_COUNT_DIMS(count_d0d2, 0, 2)
KC_COUNT_DIMS(count_all4, 0, 1, 2, 3)

Test(shape_helpers, counts_multiply_the_listed_dims)
{
    kc_shape s = { "s", KC_SHAPE_EDGE, { 3, 5, 7, 11 } };
    cr_expect_eq(count_d0d2(&s), 21u);
    cr_expect_eq(count_all4(&s), 3u * 5 * 7 * 11);
    size_t c = 99;
    cr_expect_eq(kc_dims_product(&s, NULL, 0, &c, NULL, 0), 0);
    cr_expect_eq(c, 1u, "the empty product is 1, got %zu", c);
}

/* A zero dim makes 0, even next to dims whose product alone would overflow. */
Test(shape_helpers, a_zero_dim_counts_zero)
{
    kc_shape s = { "zero", KC_SHAPE_EDGE, { INT64_MAX, 0, INT64_MAX, 2 } };
    cr_expect_eq(count_all4(&s), 0u);
}

Test(shape_helpers, overflow_and_negative_dims_are_refused_naming_the_values)
{
    kc_shape s = { "huge", KC_SHAPE_LARGE, { (int64_t)1 << 40, (int64_t)1 << 30, -3 } };
    char why[400];
    size_t c = 7;
    cr_expect_eq(kc_dims_product(&s, (const int[]){ 0, 1 }, 2, &c, why, sizeof why), -1);
    cr_expect_eq(c, 0u);
    cr_expect(strstr(why, "shape huge: the product d[0]=1099511627776 x d[1]=1073741824 overflows size_t"), "%s", why);
    cr_expect_eq(kc_dims_product(&s, (const int[]){ 0, 2 }, 2, &c, why, sizeof why), -1);
    cr_expect(strstr(why, "shape huge: d[2] = -3 is negative"), "%s", why);
    cr_expect_eq(kc_dims_product(&s, (const int[]){ 8 }, 1, &c, why, sizeof why), -1);
    cr_expect(strstr(why, "dim index 8 is outside [0, 8)"), "%s", why);
}

/* As a count function, an overflow aborts (the message names the count). */
Test(shape_helpers, a_count_that_overflows_aborts, .signal = SIGABRT)
{
    kc_shape s = { "huge", KC_SHAPE_LARGE, { INT64_MAX, INT64_MAX, 1, 1 } };
    count_all4(&s);
}

Test(shape_helpers, scalar_from_a_dim_is_exact)
{
    const kc_arg a = KC_SCALAR_DIM("k", KC_I64, 2);
    kc_shape s = { "s", KC_SHAPE_MODEL, { 1, 2, ((int64_t)1 << 53) + 1 } };
    cr_expect_eq(a.kind, KC_ARG_SCALAR);
    cr_expect_eq(a.dtype, KC_I64);
    cr_expect_str_eq(a.name, "k");
    cr_expect_eq(a.ivalue(&s), ((int64_t)1 << 53) + 1);
    cr_expect_null(a.value);
    int64_t (*const dims[8])(const kc_shape *) = { kc_dim0, kc_dim1, kc_dim2, kc_dim3, kc_dim4, kc_dim5, kc_dim6, kc_dim7 };
    kc_shape t = { "t", KC_SHAPE_MODEL, { 10, 11, 12, 13, 14, 15, 16, 17 } };
    for (int i = 0; i < 8; i++) cr_expect_eq(dims[i](&t), 10 + i, "kc_dim%d", i);
}

Test(shape_helpers, launch_1d_rounds_the_grid_up)
{
    kc_launch l;
    memset(&l, 0, sizeof l);
    l.smem = 123;
    kc_launch_1d(&l, 1025, 256);
    cr_expect(l.grid[0] == 5 && l.grid[1] == 1 && l.grid[2] == 1, "grid %u %u %u", l.grid[0], l.grid[1], l.grid[2]);
    cr_expect(l.block[0] == 256 && l.block[1] == 1 && l.block[2] == 1, "block %u", l.block[0]);
    cr_expect_eq(l.smem, 123u, "smem left as it was");
    kc_launch_1d(&l, 1024, 256);
    cr_expect_eq(l.grid[0], 4u);
    kc_launch_1d(&l, 0, 128);
    cr_expect_eq(l.grid[0], 1u, "n = 0 still launches one block, got %u", l.grid[0]);
    kc_launch_1d(&l, (uint64_t)2147483647 * 1024, 1024);
    cr_expect_eq(l.grid[0], 2147483647u);
}

Test(shape_helpers, launch_1d_refuses_a_grid_past_the_limit, .signal = SIGABRT)
{
    kc_launch l;
    kc_launch_1d(&l, (uint64_t)2147483647 * 1024 + 1, 1024);
}

Test(shape_helpers, launch_1d_refuses_a_block_of_zero, .signal = SIGABRT)
{
    kc_launch l;
    kc_launch_1d(&l, 10, 0);
}

static const float in_x[5] = { 1, 2, 3, 4, 5 };
static kc_ref two_args(double *out)
{
    static kc_shape s = { "n5", KC_SHAPE_EDGE, { 5 } };
    kc_ref r = { .shape = &s, .nargs = 2, .name = { "y", "x" }, .dtype = { KC_F64, KC_F32 }, .count = { 5, 5 },
                 .host = { NULL, in_x }, .out = { out } };
    return r;
}

Test(shape_helpers, an_input_resolved_once_reads_like_kc_ref_in)
{
    double y[5];
    kc_ref r = two_args(y);
    kc_in x = kc_ref_input(&r, "x");
    cr_expect_eq(x.count, 5u);
    cr_expect_eq(x.dtype, KC_F32);
    cr_expect_str_eq(x.name, "x");
    for (size_t i = 0; i < 5; i++) cr_expect_eq(kc_in_at(&x, i), kc_ref_in(&r, 1, i), "element %zu", i);
}

Test(shape_helpers, an_input_read_past_its_count_aborts, .signal = SIGABRT)
{
    double y[5];
    kc_ref r = two_args(y);
    kc_in x = kc_ref_input(&r, "x");
    kc_in_at(&x, 5);
}

Test(shape_helpers, an_output_has_no_input_view, .signal = SIGABRT)
{
    double y[5];
    kc_ref r = two_args(y);
    kc_ref_input(&r, "y");
}

static void mark_row(void *ctx, size_t i) { ((unsigned char *)ctx)[i]++; }

/* Every row once, whatever the chunking (cols 1: chunks of 65537 rows;
 * cols 1 << 20: one row a chunk). */
Test(shape_helpers, parallel_rows_visits_every_row_once)
{
    enum { ROWS = 200003 };
    static unsigned char seen[ROWS];
    const size_t cols[] = { 1, 1u << 20 };
    for (int c = 0; c < 2; c++) {
        memset(seen, 0, sizeof seen);
        kc_parallel_rows(ROWS, cols[c], mark_row, seen);
        size_t bad = 0;
        for (size_t i = 0; i < ROWS; i++) bad += seen[i] != 1;
        cr_expect_eq(bad, 0u, "cols %zu: %zu rows not visited exactly once", cols[c], bad);
    }
    kc_parallel_rows(0, 0, mark_row, NULL);   /* no rows: fn never called */
}

/* Device references by name: kc_dref_find compares whole names; a name
 * that kc_dref cannot carry (KC_DREF_NAME_MAX bytes or more) is passed
 * empty by the harness and found by no lookup; one of 31 bytes fits. */
Test(shape_helpers, dref_find_compares_whole_names)
{
    kc_dref r;
    memset(&r, 0, sizeof r);
    r.nargs = 4;
    strcpy(r.name[0], "x");
    strcpy(r.name[1], "xy");
    memset(r.name[2], 'n', KC_DREF_NAME_MAX - 1);   /* 31 bytes and the NUL: fits */
    /* r.name[3] empty: a name too long to carry */
    cr_expect_eq(kc_dref_find(&r, "x"), 0);
    cr_expect_eq(kc_dref_find(&r, "xy"), 1);
    cr_expect_eq(kc_dref_find(&r, "xyz"), -1);
    cr_expect_eq(kc_dref_find(&r, ""), -1, "the empty name of an argument too long to carry matched");
    char name[KC_DREF_NAME_MAX + 8];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    cr_expect_eq(kc_dref_find(&r, name), -1, "a name longer than kc_dref carries matched");
    name[KC_DREF_NAME_MAX - 1] = '\0';
    cr_expect_eq(kc_dref_find(&r, name), 2, "the 31-byte name");
    r.nargs = 1;
    cr_expect_eq(kc_dref_find(&r, "xy"), -1, "an argument past nargs matched");
}

/* The library's own counts are checked the same way: a negative dim is
 * refused, not turned into a huge size_t. */
Test(shape_helpers, the_common_counts_refuse_a_negative_dim, .signal = SIGABRT)
{
    kc_shape s = { "neg", KC_SHAPE_EDGE, { 4, -1 } };
    cr_expect_eq(kc_count_d0(&s), 4u);
    kc_count_d0d1(&s);
}
