/* test_layers.c — tools/check-layers.sh, the layer rule of src/
 * (docs/layout.md): it passes on this tree, and it fails, naming the file,
 * the line, the header and both layers, on small trees with a violation
 * planted (a header of a higher layer, a file outside every layer, a header
 * no layer has, an include cycle between modules of one layer), while a
 * same-layer, lower-layer or include/ header, and two modules that include a
 * third (no cycle), pass. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/spawn.h"

/* Writes text to root/rel, creating its folders. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot create %s", path);
    fputs(text, f);
    fclose(f);
}

/* A tree of three layers (low < mid < top), each file including only its own
 * layer's, lower layers' and include/ headers. */
static void clean_tree(char *root, size_t cap)
{
    snprintf(root, cap, "%s/kc_layers.XXXXXX", kc_test_tmpdir());
    cr_assert_not_null(mkdtemp(root));
    put(root, "Makefile", "# layers\nSRC_LAYERS := low mid top\nSRC_INC := $(SRC_LAYERS:%=-Isrc/%)\n");
    put(root, "include/pub.h", "/* public */\n");
    put(root, "src/low/low.h", "#include <stdio.h>\n#include \"pub.h\"\n");
    put(root, "src/low/low.c", "#include \"low.h\"\n");
    put(root, "src/mid/mid.h", "#include \"low.h\"\n");
    put(root, "src/mid/mid.c", "#include \"mid.h\"\n#include \"low.h\"\n");
    put(root, "src/top/top.c", "#include \"mid.h\"\n# include \"low.h\"\n#include \"pub.h\"\n");
}

static kc_proc check(const char *root)
{
    char *argv[] = { "/bin/sh", "tools/check-layers.sh", (char *)root, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, NULL, 60, &p), 0, "cannot run tools/check-layers.sh");
    return p;
}

static void cleanup(const char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_expect_eq(system(cmd), 0);
}

Test(layers, this_tree_keeps_the_rule)
{
    kc_proc p = check(".");
    cr_expect_eq(p.status, 0, "tools/check-layers.sh found violations in src/:\n%s", p.err);
    kc_proc_free(&p);
}

Test(layers, a_clean_tree_passes)
{
    char root[64];
    clean_tree(root, sizeof root);
    kc_proc p = check(root);
    cr_expect_eq(p.status, 0, "a clean tree failed:\n%s", p.err);
    cr_expect_str_empty(p.err);
    kc_proc_free(&p);
    cleanup(root);
}

/* Runs the check on root, expects exit status `status` and each of the
 * NULL-ended lines want in its stderr, then removes root. */
static void expect_refusal(const char *root, int status, const char *const *want)
{
    kc_proc p = check(root);
    cr_expect_eq(p.status, status, "exit %d, stderr:\n%s", p.status, p.err);
    for (int i = 0; want[i]; i++) cr_expect_not_null(strstr(p.err, want[i]), "want '%s' in stderr:\n%s", want[i], p.err);
    kc_proc_free(&p);
    cleanup(root);
}

Test(layers, an_include_of_a_higher_layer_fails_naming_file_line_header_and_layers)
{
    char root[64];
    clean_tree(root, sizeof root);
    put(root, "src/low/low.c", "#include \"low.h\"\n\n#include \"top.h\"\n");
    put(root, "src/top/top.h", "/* top */\n");
    put(root, "src/mid/mid.c", "#include \"mid.h\"\n  #  include \"top.h\" /* spaced */\n");
    expect_refusal(root, 1, (const char *[]){
        "src/low/low.c:3: includes \"top.h\" (src/top/top.h, layer top) above its own layer low",
        "src/mid/mid.c:2: includes \"top.h\" (src/top/top.h, layer top) above its own layer mid",
        "low < mid < top", "2 violation(s)", "rerun: tools/check-layers.sh", NULL });
}

Test(layers, a_file_outside_every_layer_fails)
{
    char root[64];
    clean_tree(root, sizeof root);
    put(root, "src/flat.c", "#include \"low.h\"\n");
    put(root, "src/other/x.h", "\n");
    put(root, "src/top/deeper/y.c", "\n");
    expect_refusal(root, 1, (const char *[]){ "src/flat.c: is in no layer", "src/other/x.h: is in no layer",
                                              "src/top/deeper/y.c: is in no layer", NULL });
}

Test(layers, a_header_no_layer_has_or_two_layers_have_fails)
{
    char root[64];
    clean_tree(root, sizeof root);
    put(root, "src/mid/mid.c", "#include \"mid.h\"\n#include \"nowhere.h\"\n");
    put(root, "src/top/low.h", "/* a second low.h */\n");
    expect_refusal(root, 1, (const char *[]){ "src/mid/mid.c:2: includes \"nowhere.h\", which is in no layer folder",
                                              "includes \"low.h\", which more than one layer has", NULL });
}

/* Modules of one layer that include each other: by a .c and a .h (the
 * cuda/gpu <-> harness kind), and around three modules through headers;
 * each cycle one line, naming the modules in order and each step's include. */
Test(layers, an_include_cycle_inside_a_layer_fails_naming_the_modules_and_includes)
{
    char root[64];
    clean_tree(root, sizeof root);
    put(root, "src/mid/gpu.h", "#include \"low.h\"\n");
    put(root, "src/mid/gpu.c", "#include \"gpu.h\"\n#include \"harness.h\"\n");
    put(root, "src/mid/harness.h", "/* harness */\n");
    put(root, "src/mid/harness.c", "#include \"harness.h\"\n\n#include \"gpu.h\"\n");
    put(root, "src/top/a.h", "#include \"b.h\"\n");
    put(root, "src/top/b.h", "#include \"c.h\"\n");
    put(root, "src/top/c.h", "#include \"mid.h\"\n#include \"a.h\"\n");
    expect_refusal(root, 1, (const char *[]){
        "src/mid/gpu.c:2: include cycle: src/mid/gpu -> src/mid/harness -> src/mid/gpu (src/mid/gpu.c:2 includes \"harness.h\"; src/mid/harness.c:3 includes \"gpu.h\")",
        "src/top/a.h:1: include cycle: src/top/a -> src/top/b -> src/top/c -> src/top/a (src/top/a.h:1 includes \"b.h\"; src/top/b.h:1 includes \"c.h\"; src/top/c.h:2 includes \"a.h\")",
        "move what they share into the lowest of them", "2 violation(s)", NULL });
}

/* Two modules that both include a third, and a module's .c including its
 * own .h, make no cycle. */
Test(layers, a_shared_lower_module_is_no_cycle)
{
    char root[64];
    clean_tree(root, sizeof root);
    put(root, "src/mid/x.h", "#include \"mid.h\"\n");
    put(root, "src/mid/x.c", "#include \"x.h\"\n#include \"mid.h\"\n");
    put(root, "src/mid/y.c", "#include \"x.h\"\n#include \"mid.h\"\n");
    kc_proc p = check(root);
    cr_expect_eq(p.status, 0, "no cycle here:\n%s", p.err);
    kc_proc_free(&p);
    cleanup(root);
}

Test(layers, a_tree_without_layers_is_refused)
{
    char root[64];
    clean_tree(root, sizeof root);
    put(root, "Makefile", "all:\n");
    expect_refusal(root, 2, (const char *[]){ "no 'SRC_LAYERS := ...' line", NULL });
}
