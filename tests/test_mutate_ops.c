/* test_mutate_ops.c — the source scanner and the mutation operators
 * (src/mutate/mutate_scan.h, mutate_ops.h), on small sources and on the
 * bundled modules themselves. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mutate_ops.h"

static kc_src scan(const char *text)
{
    kc_src s;
    char err[256];
    int rc = kc_src_scan(&s, text, strlen(text), err, sizeof err);
    cr_assert_eq(rc, 0, "scan failed: %s", err);
    return s;
}

static int count_op(const kc_mutants *m, const char *op)
{
    int n = 0;
    for (int i = 0; i < m->n; i++) n += strcmp(m->v[i].op->name, op) == 0;
    return n;
}

static unsigned mask_of(const char *op)
{
    for (int k = 0; kc_mut_ops[k].name; k++)
        if (!strcmp(kc_mut_ops[k].name, op)) return 1u << k;
    cr_assert_fail("no operator %s", op);
    return 0;
}

Test(mutate_scan, skips_comments_strings_preprocessor_and_control_branches) {
    const char *t =
        "#include <a < b.h>\n"
        "// x < y in a comment\n"
        "/* a < b */ int f(int a, int b) { const char *s = \"a < b\"; char c = '<';\n"
        "#ifdef KC_CONTROL_bug\n"
        "  if (a < b) return 1;\n"
        "#else\n"
        "  if (a <= b) return 2;\n"
        "#endif\n"
        "#ifndef KC_CONTROL_other\n"
        "  if (a > b) return 3;\n"
        "#else\n"
        "  if (a != b) return 4;\n"
        "#endif\n"
        "  return 0; }\n";
    kc_src s = scan(t);
    kc_mutants m = { 0 };
    char err[256];
    int n = kc_mutate_source(&s, "t", "t.cu", mask_of("relational"), &m, err, sizeof err);
    cr_assert_eq(n, 2, "expected the relational mutants of a <= b and a > b only (the clean branches), got %d", n);
    cr_assert_str_eq(m.v[0].orig, "<=");
    cr_assert_eq(m.v[0].line, 7, "the clean #else branch's <= is on line 7, got line %d", m.v[0].line);
    cr_assert_str_eq(m.v[1].orig, ">");
    cr_assert_eq(m.v[1].line, 10, "the #ifndef branch's > is on line 10, got line %d", m.v[1].line);
    for (int i = 0; i < m.n; i++) cr_assert(s.code[m.v[i].off], "mutant %d lies outside the code", i);
    kc_mutants_free(&m);
    kc_src_free(&s);
}

Test(mutate_scan, refuses_unterminated_comment_with_its_line) {
    kc_src s;
    char err[256];
    const char *t = "int x;\n/* never ends\n";
    cr_assert_eq(kc_src_scan(&s, t, strlen(t), err, sizeof err), -1);
    cr_assert(strstr(err, "line 2") && strstr(err, "comment"), "got: %s", err);
}

Test(mutate_ops, templates_and_launch_syntax_are_not_relational) {
    kc_src s = scan("template <class T> __device__ T g(T x) { return static_cast<float>(x) < 1 ? x : f<T>(x); }\n"
                    "void h() { k<<<1, 2>>>(p); }\n");
    kc_mutants m = { 0 };
    char err[256];
    kc_mutate_source(&s, "t", "t.cu", mask_of("relational") | mask_of("arithmetic"), &m, err, sizeof err);
    cr_assert_eq(m.n, 1, "only the '<' of '... < 1' is relational, got %d mutants (first: %s)", m.n, m.n ? m.v[0].orig : "");
    cr_assert_str_eq(m.v[0].orig, "<");
    cr_assert_str_eq(m.v[0].repl, ">=");
    kc_mutants_free(&m);
    kc_src_free(&s);
}

Test(mutate_ops, each_operator_on_a_small_kernel) {
    kc_src s = scan("#include <cuda_fp16.h>\n"
                    "__global__ void k(float *out, const float *in, int *cnt, int n) {\n"
                    "    __shared__ float tile[32];\n"
                    "    float acc = 0.f;\n"
                    "    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += expf(in[i]);\n"
                    "    tile[threadIdx.x] = acc;\n"
                    "    __syncthreads();\n"
                    "    acc = __shfl_xor_sync(0xffffffffu, acc, 16);\n"
                    "    if (threadIdx.x == 0) atomicAdd(cnt, 1);\n"
                    "    out[blockIdx.x] = __fadd_rn(tile[0], acc);\n"
                    "}\n");
    kc_mutants m = { 0 };
    char err[256];
    cr_assert_gt(kc_mutate_source(&s, "k", "k.cu", ~0u, &m, err, sizeof err), 0);
    struct { const char *op, *orig, *repl; } want[] = {
        { "sync_drop", "__syncthreads();", ";" },
        { "shuffle", "0xffffffffu", "0x7fffffffu" },
        { "shuffle", "16", "(16) + 1" },
        { "atomic_plain", "atomicAdd(cnt, 1)", "(*(cnt) += (1))" },
        { "rounding", "_rn", "_rz" },
        { "fast_math", "expf", "__expf" },
        { "accum_narrow", "acc += expf(in[i])", "acc = __half2float(__float2half_rn(acc + (expf(in[i]))))" },
        { "loop_bound", "n", "(n) - 1" },
        { "loop_stride", "blockDim.x", "(blockDim.x) * 2" },
        { "tile_index", "threadIdx.x", "(threadIdx.x) + 1" },
        { "dim_swap", "x", "y" },
        { "index_swap", "blockIdx", "threadIdx" },
        { "guard_delete", "threadIdx.x == 0", "true" },
        { "bound", "<", "<=" },
        { "constant", "32", "33" },
        { "statement_delete", "tile[threadIdx.x] = acc;", ";" },
        { "early_return", "", " if (threadIdx.x + 1 == blockDim.x) return;" },
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int found = 0;
        for (int i = 0; i < m.n && !found; i++)
            found = !strcmp(m.v[i].op->name, want[w].op) && !strcmp(m.v[i].orig, want[w].orig) &&
                    !strcmp(m.v[i].repl, want[w].repl);
        cr_expect(found, "operator %s: no mutant '%s' -> '%s'", want[w].op, want[w].orig, want[w].repl);
    }
    kc_mutants_free(&m);
    kc_src_free(&s);
}

/* The bundled softmax module: mutants only in its clean code, ids stable and
 * unique, the diff's hunk naming the line. */
Test(mutate_ops, bundled_softmax_module) {
    kc_src s;
    char err[512];
    cr_assert_eq(kc_src_load(&s, "kernels/softmax/softmax.cu", err, sizeof err), 0, "%s", err);
    kc_mutants a = { 0 }, b = { 0 };
    int n = kc_mutate_source(&s, "softmax", "kernels/softmax/softmax.cu", ~0u, &a, err, sizeof err);
    cr_assert_gt(n, 50, "softmax.cu gave only %d mutants", n);
    cr_assert_eq(kc_mutate_source(&s, "softmax", "kernels/softmax/softmax.cu", ~0u, &b, err, sizeof err), n);
    /* the line of the control neg_inf_combine's body (its #ifdef branch) has none */
    const char *bug = strstr(s.text, "#ifdef KC_CONTROL_neg_inf_combine");
    cr_assert(bug, "softmax.cu no longer has the control neg_inf_combine: update this test");
    int bug_line, col;
    kc_src_line_col(&s, (size_t)(strchr(strchr(bug, '\n') + 1, '\n') + 1 - s.text), &bug_line, &col);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(a.v[i].id, b.v[i].id, "mutant %d: id %s then %s", i, a.v[i].id, b.v[i].id);
        cr_assert_neq(a.v[i].line, bug_line, "mutant %s (%s) lies in the control's branch, line %d", a.v[i].id,
                      a.v[i].op->name, bug_line);
        if (a.v[i].len) cr_assert(s.code[a.v[i].off], "mutant %s starts outside code", a.v[i].id);
        for (int j = 0; j < i; j++) cr_assert_str_neq(a.v[i].id, a.v[j].id, "two mutants with id %s", a.v[i].id);
    }
    cr_assert_eq(count_op(&a, "sync_drop"), 2, "softmax.cu has two __syncthreads, got %d sync_drop", count_op(&a, "sync_drop"));
    char *d = kc_mutant_diff(&s, &a.v[0], 3);
    char hunk[64];
    snprintf(hunk, sizeof hunk, "@@ -%d,", a.v[0].line - 3);
    cr_assert(d && strstr(d, "--- a/kernels/softmax/softmax.cu\n+++ b/kernels/softmax/softmax.cu\n") && strstr(d, hunk),
              "diff of %s:\n%s", a.v[0].id, d ? d : "(null)");
    char *mt = kc_mutant_text(&s, &a.v[0]);
    cr_assert(mt && strlen(mt) == s.len - a.v[0].len + strlen(a.v[0].repl));
    free(mt);
    free(d);
    kc_mutants_free(&a);
    kc_mutants_free(&b);
    kc_src_free(&s);
}

/* Every operator has mutants somewhere in the bundled modules. */
Test(mutate_ops, every_operator_applies_to_the_bundled_library) {
    const char *files[] = { "kernels/softmax/softmax.cu", "kernels/layernorm/layernorm.cu", "kernels/moe/moe.cu",
                            "kernels/transpose/transpose.cu", "kernels/quant_fp8/quant_fp8.cu" };
    kc_mutants m = { 0 };
    kc_src s[5];
    char err[512];
    for (int f = 0; f < 5; f++) {
        cr_assert_eq(kc_src_load(&s[f], files[f], err, sizeof err), 0, "%s", err);
        cr_assert_geq(kc_mutate_source(&s[f], "m", files[f], ~0u, &m, err, sizeof err), 0, "%s", err);
    }
    for (int k = 0; kc_mut_ops[k].name; k++)
        cr_expect_gt(count_op(&m, kc_mut_ops[k].name), 0, "operator %s made no mutant of %d bundled modules",
                     kc_mut_ops[k].name, 5);
    kc_mutants_free(&m);
    for (int f = 0; f < 5; f++) kc_src_free(&s[f]);
}
