/* test_mutate_build.c — the mutants' builds with nvcc through the project's
 * make rules (share/kcontract.mk) and trivial compiler equivalence
 * (mutate_build.h), on the bundled module kv_cache_write.cu: one mutant that
 * does not compile, one whose machine code is the original's, and two that
 * make the same code. Five small nvcc builds with make -j4 (a few seconds),
 * once per test run (support/mutant_seed.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mutate_baseline.h"
#include "mutate_build.h"
#include "support/mutant_seed.h"

/* A mutant of s replacing the first occurrence of `at` (which must exist) by `with`. */
static void manual(kc_mutants *m, const kc_src *s, const char *id, const char *at, const char *with)
{
    const char *p = strstr(s->text, at);
    cr_assert(p, "kv_cache_write.cu no longer has '%s': update this test", at);
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->v = realloc(m->v, (size_t)m->cap * sizeof *m->v);
    }
    kc_mutant *x = &m->v[m->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->id, sizeof x->id, "%s", id);
    x->op = &kc_mut_ops[0];
    snprintf(x->module, sizeof x->module, "kv_cache_write");
    x->file = "kernels/kv_cache/kv_cache_write.cu";
    x->off = (size_t)(p - s->text);
    x->len = strlen(at);
    x->orig = strdup(at);
    x->repl = strdup(with);
}

/* The four mutants of kv_cache_write.cu this file builds: one that does not
 * compile, one whose machine code is the original's, two alike. */
static void four_mutants(kc_mut_module *mod, kc_mutants *m)
{
    *mod = (kc_mut_module){ .name = "kv_cache_write", .path = "kernels/kv_cache/kv_cache_write.cu" };
    char err[1024];
    cr_assert_eq(kc_src_load(&mod->src, mod->path, err, sizeof err), 0, "%s", err);
    *m = (kc_mutants){ 0 };
    manual(m, &mod->src, "000000000001", "if (slot < 0) return;", "if (slot <@ 0) return;");
    manual(m, &mod->src, "000000000002", "head_dim / 8;", "head_dim / (8);");
    manual(m, &mod->src, "000000000003", "if (slot < 0) return;", "if (slot < 1) return;");
    manual(m, &mod->src, "000000000004", "if (slot < 0) return;", "if (slot < (0 + 1)) return;");
}

/* The seed "kv_cache_write-four" (mutant_seed.h): the four mutants built
 * into dir with nvcc. */
static void build_four(const char *dir, void *ctx)
{
    (void)ctx;
    kc_mut_module mod;
    kc_mutants m;
    four_mutants(&mod, &m);
    kc_mut_status st[4] = { 0 };
    char err[1024];
    kc_mut_build_opts o = { .dir = dir, .make = "make", .jobs = 4 };
    cr_assert_eq(kc_mutate_build(&mod, 1, &m, st, &o, err, sizeof err), 0, "build failed: %s", err);
    kc_mutants_free(&m);
    kc_src_free(&mod.src);
}

/* The build of the four mutants, from a copy of this run's seed: the mutant
 * that does not compile is built again (nvcc fails on it each time), the
 * others are kept; the states are those of a first build. */
Test(mutate_build, unviable_equivalent_duplicate_viable, .timeout = 120) {
    kc_mut_module mod;
    kc_mutants m;
    char err[1024];
    four_mutants(&mod, &m);
    kc_mut_status st[4] = { 0 };
    const char *tmp = getenv("TMPDIR");
    char dir[512], cmd[600];
    snprintf(dir, sizeof dir, "%s/kc-mutate-build-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    kc_mutant_seed_copy("kv_cache_write-four", build_four, NULL, dir);
    kc_mut_build_opts o = { .dir = dir, .make = "make", .jobs = 4 };
    int rc = kc_mutate_build(&mod, 1, &m, st, &o, err, sizeof err);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(rc, 0, "build failed: %s", err);
    cr_expect_eq(st[0].state, KC_MUT_UNVIABLE, "mutant 1 (a syntax error): %s", kc_mut_state_name(st[0].state));
    cr_expect(strstr(st[0].why, "error"), "mutant 1's reason names nvcc's error: %s", st[0].why);
    cr_expect_eq(st[1].state, KC_MUT_EQUIVALENT, "mutant 2 ((8) for 8): %s", kc_mut_state_name(st[1].state));
    cr_expect_eq(st[2].state, KC_MUT_VIABLE, "mutant 3 (slot < 1): %s", kc_mut_state_name(st[2].state));
    cr_expect_eq(st[3].state, KC_MUT_DUPLICATE, "mutant 4 (slot < (0 + 1)): %s", kc_mut_state_name(st[3].state));
    cr_expect_str_eq(st[3].dup_of, "000000000003");
    cr_expect_eq(system(cmd), 0);
    kc_mutants_free(&m);
    kc_src_free(&mod.src);
}

/* A mutant's image: its sm_90 cubin where every device of the run is
 * compute capability 9.0 (no fatbin built), else the fatbin (whose PTX a
 * later GPU compiles); an sm_90 cubin loads nowhere else. */
Test(mutate_build, cubin_images_only_on_compute_capability_9_0) {
    cr_expect(kc_mutant_cubin_loads(9, 0));
    cr_expect(!kc_mutant_cubin_loads(8, 0), "sm_90 machine code does not run on an older GPU");
    cr_expect(!kc_mutant_cubin_loads(10, 0), "nor on a newer major revision");
    cr_expect(!kc_mutant_cubin_loads(12, 0));
    kc_mut_build_opts o = { .fatbins = 1, .cubin_images = 1 };
    cr_expect_str_eq(kc_mutant_image_ext(&o), ".cubin");
    o.cubin_images = 0;
    cr_expect_str_eq(kc_mutant_image_ext(&o), ".fatbin");
    o = (kc_mut_build_opts){ .fatbins = 0, .cubin_images = 1 };
    cr_expect_str_eq(kc_mutant_image_ext(&o), ".fatbin", "a --build-only run builds no image to load");
}

/* The baseline's report read back (mutate_baseline.h): each contract's
 * state and seconds; a malformed item line is refused with its line; the
 * waves' cost table gets one row per mutant and judging contract of its
 * module, with that contract's seconds. */
Test(mutate_build, baseline_report_and_the_mutants_cost_table)
{
    const char *tmp = getenv("TMPDIR");
    char d[512];
    snprintf(d, sizeof d, "%s/kc-mutbase.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(d));
    char json[600], costs[600];
    snprintf(json, sizeof json, "%s/b.json", d);
    snprintf(costs, sizeof costs, "%s/costs.tsv", d);
    FILE *f = fopen(json, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"type\":\"item\",\"name\":\"kv.f16\",\"kind\":\"kernel\",\"state\":\"PASS\",\"seconds\":2.5}\n"
               "{\"type\":\"item\",\"name\":\"kv.bf16\",\"kind\":\"kernel\",\"state\":\"FAIL\",\"seconds\":0.25}\n"
               "{\"type\":\"worker\",\"worker\":0}\n");
    fclose(f);
    kc_contract kf = { .name = "kv.f16", .module = "kv" }, kb = { .name = "kv.bf16", .module = "kv" },
                ko = { .name = "other.f16", .module = "other" };
    kc_item items[3] = { { .name = "kv.f16", .contract = &kf }, { .name = "kv.bf16", .contract = &kb },
                         { .name = "other.f16", .contract = &ko } };
    kc_mut_baseline b;
    char err[600];
    cr_assert_eq(kc_mut_baseline_init(&b, 3), 0);
    cr_assert_eq(kc_mut_baseline_read(json, items, 3, &b, err, sizeof err), 0, "%s", err);
    cr_expect(kc_mut_baseline_passed(&b, 0));
    cr_expect(!kc_mut_baseline_passed(&b, 1), "FAIL unmutated");
    cr_expect(!kc_mut_baseline_passed(&b, 2), "no line: no verdict");
    cr_expect_float_eq(b.seconds[0], 2.5, 1e-9);
    cr_expect_float_eq(b.seconds[2], -1, 1e-9);
    kc_mutant mv[2] = { { .id = "0123456789ab", .module = "kv" }, { .id = "ba9876543210", .module = "other" } };
    kc_mutants m = { mv, 2, 2 };
    unsigned char in[2] = { 1, 1 }, judges[3] = { 1, 0, 1 };
    int rows = kc_mut_baseline_costs(costs, items, 3, judges, &m, in, &b, err, sizeof err);
    cr_expect_eq(rows, 1, "one mutant of kv judged by kv.f16; other.f16 has no baseline: %s", err);
    f = fopen(costs, "r");
    char text[2048] = "";
    cr_assert_not_null(f);
    size_t nr = fread(text, 1, sizeof text - 1, f);
    text[nr] = 0;
    fclose(f);
    cr_expect(strstr(text, "kv.f16:mutant.0123456789ab\t2.500"), "%s", text);
    cr_expect(!strstr(text, "kv.bf16"), "%s", text);
    f = fopen(json, "w");
    fprintf(f, "{\"type\":\"item\",\"name\":\"kv.f16\",\"state\":\"PASS\"}\n");
    fclose(f);
    cr_expect_eq(kc_mut_baseline_read(json, items, 3, &b, err, sizeof err), -1);
    cr_expect(strstr(err, "b.json:1: an item line without its name, state or seconds"), "%s", err);
    kc_mut_baseline_free(&b);
    unlink(json);
    unlink(costs);
    rmdir(d);
}
