/* test_mutate_route.c — which kernels a mutated byte reaches (mutate_reach.h)
 * and which contracts judge each mutant in which wave (mutate_route.h), on a
 * small source with helpers, a chain of calls, a kernel a macro defines, a
 * function no kernel calls and a file-scope table; then on a bundled module
 * whose kernels a macro defines (sampling.cu). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutate_reach.h"
#include "mutate_route.h"

static const char *SRC =
    "#define TILE 4\n"
    "__device__ float helper(float x) { return x * 2.0f; }\n"
    "__device__ float twice(float x) { return helper(x) + helper(x); }\n"
    "__device__ int other(int x) { if (x) { x++; } return x + 1; }\n"
    "__device__ int unused(int x) { return x - 1; }\n"
    "extern \"C\" __global__ void k_a(float *y) { y[0] = twice(y[0]); }\n"
    "extern \"C\" __global__ void k_b(int *y) const { y[0] = other(y[0]); }\n"
    "#define MK(sfx, T) \\\n"
    "extern \"C\" __global__ void __launch_bounds__(64) k_m_##sfx(T *y) \\\n"
    "{ y[0] = helper(y[0]); }\n"
    "MK(f32, float)\n"
    "static const int table[2] = {1, 2};\n";

static kc_src scan(const char *text)
{
    kc_src s;
    char err[256];
    cr_assert_eq(kc_src_scan(&s, text, strlen(text), err, sizeof err), 0, "scan failed: %s", err);
    return s;
}

/* The byte offset of the first `what` in s. */
static size_t at(const kc_src *s, const char *what)
{
    const char *p = strstr(s->text, what);
    cr_assert(p, "'%s' is not in the source", what);
    return (size_t)(p - s->text);
}

Test(mutate_reach, functions_calls_and_macro_kernels) {
    kc_src s = scan(SRC);
    kc_reach r;
    char err[256];
    cr_assert_eq(kc_reach_index(&s, &r, err, sizeof err), 0, "%s", err);
    cr_expect_eq(r.nfn, 6, "helper, twice, other, unused, k_a, k_b: %d", r.nfn);
    cr_expect_eq(r.nmk, 1, "the macro's kernel: %d", r.nmk);
    cr_expect_str_eq(r.mk[0].glob, "k_m_*", "its name with the parameter as '*'");
    size_t in_helper = at(&s, "x * 2.0f"), in_other = at(&s, "x++"), in_unused = at(&s, "x - 1"),
           in_ka = at(&s, "y[0] = twice"), in_table = at(&s, "{1, 2}");
    /* helper: k_a through twice, the macro's k_m_f32 directly, never k_b */
    cr_expect_eq(kc_reach_kernel(&s, &r, in_helper, "k_a"), 1);
    cr_expect_eq(kc_reach_kernel(&s, &r, in_helper, "k_b"), 0);
    cr_expect_eq(kc_reach_kernel(&s, &r, in_helper, "k_m_f32"), 1);
    /* a block inside a body is the function's own, not a function */
    cr_expect_eq(kc_reach_kernel(&s, &r, in_other, "k_b"), 1);
    cr_expect_eq(kc_reach_kernel(&s, &r, in_other, "k_a"), 0);
    cr_expect_eq(kc_reach_kernel(&s, &r, in_ka, "k_a"), 1);
    cr_expect_eq(kc_reach_kernel(&s, &r, in_ka, "k_b"), 0);
    cr_expect_eq(kc_reach_kernel(&s, &r, in_unused, "k_a"), 0, "no kernel calls unused");
    /* unknown: a kernel the source does not show, code outside every function */
    cr_expect_eq(kc_reach_kernel(&s, &r, in_helper, "k_nowhere"), -1);
    cr_expect_eq(kc_reach_kernel(&s, &r, in_table, "k_a"), -1);
    kc_reach_free(&r);
    kc_src_free(&s);
}

/* A contract per kernel of module "mod", one of another module. */
static const kc_contract CA = { .name = "mod.a", .module = "mod", .symbol = "k_a" };
static const kc_contract CB = { .name = "mod.b", .module = "mod", .symbol = "k_b" };
static const kc_contract CM = { .name = "mod.m", .module = "mod", .steps = { { .symbol = "k_m_f32" } } };
static const kc_contract CX = { .name = "else.x", .module = "else", .symbol = "k_a" };

Test(mutate_route, first_contract_by_reach_and_the_others_in_wave_two) {
    kc_mut_module mod = { .name = "mod" };
    mod.src = scan(SRC);
    kc_item items[5] = {
        { .kind = KC_KIND_KERNEL, .contract = &CA, .name = "mod.a" },
        { .kind = KC_KIND_KERNEL, .contract = &CB, .name = "mod.b" },
        { .kind = KC_KIND_LIMIT, .contract = &CB, .name = "mod.b:limits" },
        { .kind = KC_KIND_KERNEL, .contract = &CM, .name = "mod.m" },
        { .kind = KC_KIND_KERNEL, .contract = &CX, .name = "else.x" },
    };
    unsigned char judge[5] = { 1, 1, 0, 1, 1 };
    const char *where[4] = { "x * 2.0f", "x++", "x - 1", "{1, 2}" };
    kc_mutant v[4];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 4; i++) {
        snprintf(v[i].module, sizeof v[i].module, "mod");
        v[i].off = at(&mod.src, where[i]);
    }
    kc_mutants m = { .v = v, .n = 4, .cap = 4 };
    kc_mut_routes r;
    char err[256], names[256];
    cr_assert_eq(kc_mut_route(&mod, 1, &m, items, 5, judge, &r, err, sizeof err), 0, "%s", err);
    cr_expect_eq(r.nj, 4);
    cr_expect_eq(r.judge_item[2], 3, "the judges in the run's order, the :limits item not among them");
    /* helper: mod.a first (the run's order), then mod.m (the macro's kernel) */
    cr_expect_eq(kc_mut_route_names(&r, items, 0, 1, names, sizeof names), 1);
    cr_expect_str_eq(names, "mod.a");
    cr_expect_eq(kc_mut_route_names(&r, items, 0, 2, names, sizeof names), 1);
    cr_expect_str_eq(names, "mod.m");
    /* other: mod.b only, no second wave */
    cr_expect_eq(kc_mut_route_names(&r, items, 1, 1, names, sizeof names), 1);
    cr_expect_str_eq(names, "mod.b");
    cr_expect_eq(kc_mut_route_names(&r, items, 1, 2, names, sizeof names), 0);
    /* unused (no kernel shown to call it) and the table (outside functions):
     * every contract of the module, never the other module's */
    for (int i = 2; i < 4; i++) {
        cr_expect_eq(kc_mut_route_names(&r, items, i, 1, names, sizeof names), 1);
        cr_expect_str_eq(names, "mod.a");
        cr_expect_eq(kc_mut_route_names(&r, items, i, 2, names, sizeof names), 2, "mutant %d", i);
        cr_expect_str_eq(names, "mod.b,mod.m");
        cr_expect(!kc_mut_route_in_wave(&r, i, 3, 1) && !kc_mut_route_in_wave(&r, i, 3, 2), "else.x judges none");
    }
    cr_expect_eq(kc_mut_route_names(&r, items, 2, 2, names, 6), -1, "names that do not fit are refused, not cut");
    kc_mut_routes_free(&r);
    kc_src_free(&mod.src);
}

/* sampling.cu defines its nine kernels with one macro: a mutant in top-k's
 * code goes first to a top-k contract's kernel, never to argmax's. */
Test(mutate_reach, bundled_macro_kernels) {
    kc_src s;
    char err[256];
    cr_assert_eq(kc_src_load(&s, "kernels/sampling/sampling.cu", err, sizeof err), 0, "%s", err);
    kc_reach r;
    cr_assert_eq(kc_reach_index(&s, &r, err, sizeof err), 0, "%s", err);
    const char *p = strstr(s.text, "topk_row(");
    cr_assert(p, "sampling.cu has no topk_row");
    size_t body = (size_t)(strchr(p, '{') - s.text) + 1;
    cr_expect_eq(kc_reach_kernel(&s, &r, body, "sampling_topk_f16"), 1);
    cr_expect_eq(kc_reach_kernel(&s, &r, body, "sampling_argmax_f16"), 0);
    cr_expect_eq(kc_reach_kernel(&s, &r, body, "sampling_topp_bf16"), 0);
    kc_reach_free(&r);
    kc_src_free(&s);
}
