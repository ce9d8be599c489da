/* test_build_id.c — the build identity (build_id.h): a module's source digest
 * (share/kcontract_digest.sh) is the same for two checkouts of one source in
 * different directories, whose images differ (nvcc -lineinfo writes the
 * absolute path into them), and changes with the module's source or a
 * header it includes; kc_build_id is stable and nonzero. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "support/spawn.h"

/* The repository root: the tests run there (make test). */
static const char *repo_root(void)
{
    static char cwd[1024];
    if (!cwd[0] && !getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
    return cwd;
}

/* Makes a checkout in dir: kernels/k/k.cu including kernels/k/k.cuh, an
 * "image" build/fatbin/k.fatbin that holds dir's absolute path, and its
 * dependency file as nvcc -MD writes it (paths relative to the checkout);
 * runs the digest script there and returns the digest it gave k. */
static void checkout_digest(const char *dir, const char *source, char *digest, size_t cap)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "set -e; rm -rf '%s'; mkdir -p '%s/kernels/k' '%s/build/fatbin'; cd '%s';"
             "printf '%%s\\n' '#include \"k.cuh\"' '%s' > kernels/k/k.cu; echo 'int h;' > kernels/k/k.cuh;"
             "echo \"image built in $(pwd)\" > build/fatbin/k.fatbin;"
             "printf 'build/fatbin/k.fatbin : kernels/k/k.cu \\\\\\n    kernels/k/k.cuh\\n' > build/fatbin/k.fatbin.d;"
             "sh '%s/share/kcontract_digest.sh' build/fatbin/k.fatbin > digest",
             dir, dir, dir, dir, source, repo_root());
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char path[512];
    snprintf(path, sizeof path, "%s/digest", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    cr_assert(fgets(digest, (int)cap, f), "no digest in %s/t.c", dir);
    fclose(f);
    digest[strcspn(digest, "\n")] = 0;
    cr_assert_eq(strlen(digest), 16, "digest '%s'", digest);
}

Test(build_id, two_checkouts_agree_and_a_changed_kernel_differs, .timeout = 60)
{
    char a[256], b[256], da[32], db[32], dc[32], cmd[2000];
    snprintf(a, sizeof a, "%s/kc-buildid-a-%ld", kc_test_tmpdir(), (long)getpid());
    snprintf(b, sizeof b, "%s/kc-buildid-bb-%ld", kc_test_tmpdir(), (long)getpid());
    checkout_digest(a, "__global__ void k() {}", da, sizeof da);
    checkout_digest(b, "__global__ void k() {}", db, sizeof db);
    cr_expect_str_eq(da, db, "one source in two directories: %s and %s", da, db);
    checkout_digest(b, "__global__ void k() { int x = 1; }", dc, sizeof dc);
    cr_expect_str_neq(dc, da, "a changed kernel kept its digest %s", dc);
    /* A changed header it includes changes it too. */
    snprintf(cmd, sizeof cmd, "cd '%s' && echo 'int h2;' >> kernels/k/k.cuh && test \"$(sh '%s/share/kcontract_digest.sh' build/fatbin/k.fatbin)\" = '%s'",
             a, repo_root(), da);
    cr_expect_neq(system(cmd), 0, "a changed header kept the digest %s", da);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", a, b);
    cr_expect_eq(system(cmd), 0);
}

Test(build_id, stable_and_nonzero)
{
    uint64_t a = kc_build_id(), b = kc_build_id();
    cr_expect_neq(a, 0);
    cr_expect_eq(a, b);
}
