/* test_rerun.c — the rerun command of a failure line (kc_rerun_command) reads
 * back in a POSIX shell as exactly the words it names, whatever the binary's
 * path and the --records file names hold (spaces, quotes, $, globs), after
 * the environment the run needed (rerun_env.h) as shell assignments. */
#include <criterion/criterion.h>
#include <string.h>

#include "cli.h"
#include "item_run.h"
#include "rerun_env.h"
#include "support/spawn.h"

/* The words /bin/sh reads from cmd, each as "[word]". */
static void shell_words(const char *cmd, char *out, size_t cap)
{
    char script[8192];
    snprintf(script, sizeof script, "set -f; set -- %s; printf '[%%s]' \"$@\"", cmd);
    char *argv[] = { "/bin/sh", "-c", script, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, NULL, 10, &p), 0);
    cr_assert_eq(p.status, 0, "sh: %s", p.err);
    snprintf(out, cap, "%s", p.out);
    kc_proc_free(&p);
}

Test(rerun, plain_words_stay_bare)
{
    kc_opts o = { .argv0 = "./build/kcontract", .seed = 7 };
    char buf[1024];
    kc_rerun_command(&o, "gemv.f16@llama3-8b.decode:control.x", 1, buf, sizeof buf);
    cr_expect_str_eq(buf, "./build/kcontract run gemv.f16@llama3-8b.decode:control.x --seed 7 --device 1");
}

/* The --records files come from the command line (the option table gives
 * them to the rerun command: run_options.h), whichever way they were given. */
Test(rerun, odd_paths_read_back_word_for_word)
{
    char *argv[] = { "/tmp/my build/kcontract", "run", "--seed", "18446744073709551615", "--records", "my recs.txt",
                     "--records=it's $HOME *.txt", "--records", "", NULL };
    kc_opts o;
    cr_assert_eq(kc_cli_parse_args(9, argv, &o), 0);
    o.env_get = NULL;
    char buf[2048], words[2048];
    kc_rerun_command(&o, "axpy.f32@my.axpy", 0, buf, sizeof buf);
    shell_words(buf, words, sizeof words);
    cr_expect_str_eq(words, "[/tmp/my build/kcontract][run][axpy.f32@my.axpy][--seed][18446744073709551615]"
                            "[--device][0][--records][my recs.txt][--records][it's $HOME *.txt][--records][]",
                     "command: %s", buf);
    kc_opts_free(&o);
}

/* --reference as given, 'device' too: the rerun runs as the failure did
 * (before, only 'host' and 'both' were carried). */
Test(rerun, carries_the_reference_as_given)
{
    static const char *const modes[] = { "device", "host", "both" };
    for (int m = 0; m < 3; m++) {
        char *argv[] = { "./kc", "run", "--reference", (char *)modes[m], NULL };
        kc_opts o;
        cr_assert_eq(kc_cli_parse_args(4, argv, &o), 0);
        o.env_get = NULL;
        char buf[512], want[512];
        kc_rerun_command(&o, "x", 1, buf, sizeof buf);
        snprintf(want, sizeof want, "./kc run x --seed 1 --device 1 --reference %s", modes[m]);
        cr_expect_str_eq(buf, want);
        kc_opts_free(&o);
    }
}

/* A fake environment: "NAME=value" entries, NULL-ended. */
static const char *table_get(const char *name, void *ctx)
{
    size_t n = strlen(name);
    for (const char *const *e = ctx; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

/* The variables that decide a run go first, in kc_rerun_env_names' order;
 * unset ones and others (a fake tool's own, NO_COLOR) are left out. */
Test(rerun, carries_the_variables_that_decide_the_run)
{
    static const char *const env[] = { "NO_COLOR=1", "KC_COMPUTE_SANITIZER=tests/fake/compute-sanitizer",
                                       "KC_FAKE_SANITIZER=error:racecheck", "KC_LIBCUDA=build/libfake_cuda.so",
                                       "CUDA_VISIBLE_DEVICES=2,3", NULL };
    char buf[1024];
    const char *words[] = { "./build/kcontract", "run", "x", "--seed", "7", "--device", "1" };
    kc_rerun_line(words, 7, table_get, (void *)env, buf, sizeof buf);
    cr_expect_str_eq(buf, "CUDA_VISIBLE_DEVICES=2,3 KC_LIBCUDA=build/libfake_cuda.so "
                          "KC_COMPUTE_SANITIZER=tests/fake/compute-sanitizer ./build/kcontract run x --seed 7 --device 1");
    kc_opts o = { .argv0 = "./build/kcontract", .seed = 7, .env_get = NULL };
    kc_rerun_command(&o, "x", 1, buf, sizeof buf);
    cr_expect_str_eq(buf, "./build/kcontract run x --seed 7 --device 1", "no getter: nothing carried");
}

/* The values read back in a shell exactly, odd characters and empty ones too. */
Test(rerun, carried_values_read_back_in_a_shell)
{
    static const char *const env[] = { "KC_LIBCUDA=it's $HOME *.so", "CUDA_VISIBLE_DEVICES=", NULL };
    const char *words[] = { "/bin/sh", "-c", "printf '[%s]' \"$KC_LIBCUDA\" \"${CUDA_VISIBLE_DEVICES-unset}\" \"$@\"",
                            "sh", "a b" };
    char line[2048];
    kc_rerun_line(words, 5, table_get, (void *)env, line, sizeof line);
    char *argv[] = { "/bin/sh", "-c", line, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, NULL, 10, &p), 0);
    cr_expect_eq(p.status, 0, "sh: %s", p.err);
    cr_expect_str_eq(p.out, "[it's $HOME *.so][][a b]", "line: %s", line);
    kc_proc_free(&p);
}
