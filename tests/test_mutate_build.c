/* test_mutate_build.c — the mutants' builds with nvcc through the project's
 * make rules (share/kcontract.mk) and trivial compiler equivalence
 * (mutate_build.h), on the bundled module kv_cache_write.cu: one mutant that
 * does not compile, one whose machine code is the original's, and two that
 * make the same code. Five small nvcc builds with make -j4 (a few seconds). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mutate_build.h"

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

Test(mutate_build, unviable_equivalent_duplicate_viable, .timeout = 120) {
    kc_mut_module mod = { .name = "kv_cache_write", .path = "kernels/kv_cache/kv_cache_write.cu" };
    char err[1024];
    cr_assert_eq(kc_src_load(&mod.src, mod.path, err, sizeof err), 0, "%s", err);
    kc_mutants m = { 0 };
    manual(&m, &mod.src, "000000000001", "if (slot < 0) return;", "if (slot <@ 0) return;");
    manual(&m, &mod.src, "000000000002", "head_dim / 8;", "head_dim / (8);");
    manual(&m, &mod.src, "000000000003", "if (slot < 0) return;", "if (slot < 1) return;");
    manual(&m, &mod.src, "000000000004", "if (slot < 0) return;", "if (slot < (0 + 1)) return;");
    kc_mut_status st[4] = { 0 };
    const char *tmp = getenv("TMPDIR");
    char dir[512], cmd[600];
    snprintf(dir, sizeof dir, "%s/kc-mutate-build-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
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
