/* mutant_seed.c — test support: built mutants shared by the tests of one
 * run (mutant_seed.h). */
#include "mutant_seed.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn.h"

/* Whether file path holds exactly text. */
static int holds(const char *path, const char *text)
{
    char buf[1024];
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strcmp(buf, text) == 0;
}

void kc_mutant_seed_copy(const char *name, kc_seed_build_fn build, void *ctx, const char *dir)
{
    cr_assert(mkdir(dir, 0777) == 0 || errno == EEXIST, "cannot make %s: %s", dir, strerror(errno));
    const char *root = getenv("KC_TEST_MUTANTS");
    if (!root || !*root) {
        build(dir, ctx);
        return;
    }
    char seed[1024], lock[1100], mark[1100], cmd[3000];
    snprintf(seed, sizeof seed, "%s/%s", root, name);
    snprintf(lock, sizeof lock, "%s.lock", seed);
    snprintf(mark, sizeof mark, "%s.run", seed);
    cr_assert(mkdir(root, 0777) == 0 || errno == EEXIST, "cannot make %s: %s", root, strerror(errno));
    cr_assert(mkdir(seed, 0777) == 0 || errno == EEXIST, "cannot make %s: %s", seed, strerror(errno));
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    cr_assert(fd >= 0, "cannot open %s: %s", lock, strerror(errno));
    cr_assert_eq(flock(fd, LOCK_EX), 0, "flock %s: %s", lock, strerror(errno));
    /* This run's TMPDIR names the run (`make test` makes one per run): the
     * seed is brought up to date once per run, by whoever comes first. */
    const char *run = kc_test_tmpdir();
    if (!holds(mark, run)) {
        unlink(mark);
        build(seed, ctx);
        FILE *f = fopen(mark, "w");
        cr_assert(f && fputs(run, f) >= 0 && fclose(f) == 0, "cannot write %s", mark);
    }
    snprintf(cmd, sizeof cmd, "cp -pR '%s/.' '%s/'", seed, dir);
    int st = system(cmd);
    close(fd);
    cr_assert_eq(st, 0, "%s failed", cmd);
}
