/* sanitize_runs.c — test support: the fixture's runs under the fake
 * compute-sanitizer, and the log of its sessions (sanitize_runs.h). */
#include "sanitize_runs.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_output.h"

char *kc_san_test_env(void)
{
    static char env_san[PATH_MAX + 32];
    char fake[PATH_MAX];
    cr_assert_not_null(realpath("tests/fake/compute-sanitizer", fake));
    snprintf(env_san, sizeof env_san, "KC_COMPUTE_SANITIZER=%s", fake);
    return env_san;
}

kc_proc kc_san_test_run(char **args, int no_tool, const char *extra1, const char *extra2)
{
    char *env[] = { no_tool ? "KC_COMPUTE_SANITIZER=" : kc_san_test_env(), "PATH=/usr/bin:/bin", (char *)extra1,
                    (char *)extra2, NULL };
    return kc_run_fake(args, env, 120);
}

void kc_san_test_log(char log[256], char env_log[300], const char *tag)
{
    snprintf(log, 256, "%s/%s.%ld", kc_test_tmpdir(), tag, (long)getpid());
    snprintf(env_log, 300, "KC_FAKE_SANITIZER_LOG=%s", log);
}

int kc_san_test_sessions_started(const char *log, const char *tool)
{
    FILE *f = fopen(log, "r");
    int n = 0;
    char l[256];
    while (f && fgets(l, sizeof l, f)) n += strncmp(l, tool, strlen(tool)) == 0 && l[strlen(tool)] == ' ';
    if (f) fclose(f);
    return n;
}
