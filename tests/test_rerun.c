/* test_rerun.c — the rerun command of a failure line (kc_rerun_command) reads
 * back in a POSIX shell as exactly the words it names, whatever the binary's
 * path and the --records file names hold (spaces, quotes, $, globs). */
#include <criterion/criterion.h>
#include <string.h>

#include "cli.h"
#include "item_run.h"
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

Test(rerun, odd_paths_read_back_word_for_word)
{
    kc_opts o = { .argv0 = "/tmp/my build/kcontract", .seed = 18446744073709551615ULL, .nrecords = 3 };
    o.records[0] = "my recs.txt";
    o.records[1] = "it's $HOME *.txt";
    o.records[2] = "";
    char buf[2048], words[2048];
    kc_rerun_command(&o, "axpy.f32@my.axpy", 0, buf, sizeof buf);
    shell_words(buf, words, sizeof words);
    cr_expect_str_eq(words, "[/tmp/my build/kcontract][run][axpy.f32@my.axpy][--seed][18446744073709551615]"
                            "[--device][0][--records][my recs.txt][--records][it's $HOME *.txt][--records][]",
                     "command: %s", buf);
}
