/* test_build_id.c — the build identity (build_id.h): a module's source digest
 * (share/kcontract_digest.sh) is the same for two checkouts of one source in
 * different directories, whose images differ (nvcc -lineinfo writes the
 * absolute path into them), and changes with the module's source or a
 * header it includes; so is a library kernel's (a .so, with gcc's
 * dependency file as with nvcc's); kc_build_id is stable and nonzero. A
 * library kernel counts by the digest beside its .so (.so.source) while
 * the .so's bytes hash to the sha256 recorded with it, else by its bytes,
 * else by its absence (kc_hostlib_source); shards run with
 * library kernels built from other sources have other builds, and their
 * logs do not merge. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_id.h"
#include "hostlib_path.h"
#include "support/run_output.h"
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

/* Where the fixture binary's library kernels are: lib/ next to it. */
static void fixture_libdir(char *buf, size_t cap)
{
    const char *bin = kc_test_fixture_bin(), *slash = strrchr(bin, '/');
    snprintf(buf, cap, "%.*s/lib", slash ? (int)(slash - bin) : 1, slash ? bin : ".");
}

/* A library kernel built by gcc in a checkout in dir (lib/libkt.so from
 * src/libkt.c including src/kt.h, its dependency file written as the
 * Makefile's fake libraries' is: -MMD -MP -MF lib/libkt.so.d, relative
 * paths); the digest script's digest of it into digest. */
static void library_checkout_digest(const char *dir, const char *source, char *digest, size_t cap)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "set -e; rm -rf '%s'; mkdir -p '%s/src' '%s/lib'; cd '%s';"
             "printf '%%s\\n' '#include \"kt.h\"' '%s' > src/libkt.c; echo 'int h;' > src/kt.h;"
             "cc -g -fPIC -shared -MMD -MP -MF lib/libkt.so.d -o lib/libkt.so src/libkt.c;"
             "sh '%s/share/kcontract_digest.sh' lib/libkt.so > digest",
             dir, dir, dir, dir, source, repo_root());
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char path[512];
    snprintf(path, sizeof path, "%s/digest", dir);
    snprintf(digest, cap, "%s", kc_out_file(path));
    digest[strcspn(digest, "\n")] = 0;
    cr_assert_eq(strlen(digest), 16, "digest '%s'", digest);
}

/* A library's .so holds its checkout's folder (gcc -g, as nvcc -lineinfo):
 * its digest is the files it was built from, by name and content. */
Test(build_id, a_library_digest_is_its_sources_not_its_folder, .timeout = 60)
{
    char a[256], b[256], da[32], db[32], dc[32], cmd[8192];
    snprintf(a, sizeof a, "%s/kc-libdigest-a-%ld", kc_test_tmpdir(), (long)getpid());
    snprintf(b, sizeof b, "%s/kc-libdigest-bb-%ld", kc_test_tmpdir(), (long)getpid());
    library_checkout_digest(a, "int kt(void) { return 1; }", da, sizeof da);
    library_checkout_digest(b, "int kt(void) { return 1; }", db, sizeof db);
    cr_expect_str_eq(da, db, "one source in two directories: %s and %s", da, db);
    snprintf(cmd, sizeof cmd, "cmp -s '%s/lib/libkt.so' '%s/lib/libkt.so'", a, b);
    cr_expect_neq(system(cmd), 0, "the two checkouts' libraries have the same bytes: the test shows nothing");
    library_checkout_digest(b, "int kt(void) { return 2; }", dc, sizeof dc);
    cr_expect_str_neq(dc, da, "a changed library kept its digest %s", dc);
    snprintf(cmd, sizeof cmd, "cd '%s' && echo 'int h2;' >> src/kt.h && test \"$(sh '%s/share/kcontract_digest.sh' lib/libkt.so)\" = '%s'",
             a, repo_root(), da);
    cr_expect_neq(system(cmd), 0, "a changed header kept the library's digest %s", da);
    /* The build rules wrote the fixture's own libraries' digests so, each
     * with the sha256 of its .so (kcontract_digest.sh --record). */
    char libdir[1024], lib[1100], side[1200];
    fixture_libdir(libdir, sizeof libdir);
    snprintf(lib, sizeof lib, "%s/libkc_fakelib@skip_last.so", libdir);
    snprintf(side, sizeof side, "%s.source", lib);
    snprintf(cmd, sizeof cmd, "test \"$(cat '%s')\" = \"$(sh '%s/share/kcontract_digest.sh' '%s') $(sha256sum < '%s' | cut -c1-64)\" && "
             "test \"$(sh '%s/share/kcontract_digest.sh' --record '%s')\" = \"$(cat '%s')\"",
             side, repo_root(), lib, lib, repo_root(), lib, side);
    cr_expect_eq(system(cmd), 0, "%s does not hold the digest and the sha256 of %s: %s", side, lib, kc_out_file(side));
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", a, b);
    cr_expect_eq(system(cmd), 0);
}

/* Sets path's modification time to when (seconds). */
static void set_mtime(const char *path, time_t when)
{
    struct timespec ts[2] = { { .tv_sec = when }, { .tv_sec = when } };
    cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0, "utimensat %s", path);
}

/* Writes side as the build rules write a library's .so.source for so:
 * digest, a space, the sha256 of so's bytes (sha256sum's 64 digits), then
 * end ("\\n", or "" for none). */
static void write_record(const char *side, const char *digest, const char *so, const char *end)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "set -e; s=$(sha256sum < '%s' | cut -c1-64); printf '%%s %%s%s' '%s' \"$s\" > '%s'",
             so, end, digest, side);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* kc_hostlib_source, in this process, through KC_LIBDIR: the digest beside
 * the .so when its line is one and vouches for the .so's bytes (whatever
 * the files' times); the .so's bytes when it is missing, malformed, of the
 * format before the bytes, or for other bytes; the library's absence
 * otherwise. */
Test(build_id, a_library_counts_by_its_digest_else_its_bytes_else_its_absence)
{
    char dir[512], so[600], side[620], other[620], line[256];
    kc_tmp_dir(dir, sizeof dir, "libsource");
    cr_assert_eq(setenv("KC_LIBDIR", dir, 1), 0);
    snprintf(so, sizeof so, "%s/libkt.so", dir);
    snprintf(side, sizeof side, "%s/libkt.so.source", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    uint64_t absent, bytes, bytes2, dig, dig2, h;
    cr_expect_eq(kc_hostlib_source("kt", NULL, &absent), KC_HOSTLIB_SRC_ABSENT);
    kc_write_file(so, "a library's bytes");
    set_mtime(so, 1000000000);
    cr_expect_eq(kc_hostlib_source("kt", NULL, &bytes), KC_HOSTLIB_SRC_BYTES, "no digest beside it");
    cr_expect_neq(bytes, absent);
    write_record(side, "0123456789abcdef", so, "\\n");
    cr_expect_eq(kc_hostlib_source("kt", NULL, &dig), KC_HOSTLIB_SRC_DIGEST, "%s", kc_out_file(side));
    cr_expect_neq(dig, bytes);
    write_record(side, "0123456789abcdef", so, "");   /* without its newline: the same digest */
    cr_expect_eq(kc_hostlib_source("kt", NULL, &h), KC_HOSTLIB_SRC_DIGEST);
    cr_expect_eq(h, dig);
    write_record(side, "0123456789abcdee", so, "\\n");
    cr_expect_eq(kc_hostlib_source("kt", NULL, &dig2), KC_HOSTLIB_SRC_DIGEST);
    cr_expect_neq(dig2, dig, "another digest, another hash");
    /* A control's library is another file, with its own digest. */
    cr_expect_eq(kc_hostlib_source("kt", "ctl", &h), KC_HOSTLIB_SRC_ABSENT, "libkt@ctl.so is not there");
    /* Malformed lines, the format before the bytes (the digest alone) and
     * lines for other bytes are not read: the bytes count. */
    write_record(side, "0123456789abcdef", so, "\\n");
    char good[100];
    snprintf(good, sizeof good, "%s", kc_out_file(side));
    cr_assert_eq(strlen(good), 16 + 1 + 64 + 1, "'%s'", good);
    const char *sha = good + 17;
    kc_write_file(other, "another library's bytes");
    write_record(side, "0123456789abcdef", other, "\\n");
    char for_other[100];
    snprintf(for_other, sizeof for_other, "%s", kc_out_file(side));
    char upsha[65];
    for (int i = 0; i < 64; i++) upsha[i] = (char)(sha[i] >= 'a' ? sha[i] - 32 : sha[i]);
    upsha[64] = 0;
    struct { const char *fmt, *a, *b; } bad[] = {
        { "%s", "0123456789abcdef\n", "" },         /* the format before the bytes */
        { "%s", "0123456789abcdef", "" },
        { "%s", for_other, "" },                     /* written for other bytes */
        { "0123456789ABCDEF %s", sha, "" },
        { "0123456789abcde %s", sha, "" },
        { "0123456789abcdef0 %s", sha, "" },
        { "0123456789abcdef  %s", sha, "" },
        { "0123456789abcdef\t%s", sha, "" },
        { "0123456789abcdef %s", upsha, "" },
        { "0123456789abcdef %.63s\n", sha, "" },
        { "0123456789abcdef %sx", sha, "" },
        { "%sx", good, "" },
        { "%s%s", good, good },
        { "", "", "" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(line, sizeof line, bad[i].fmt, bad[i].a, bad[i].b);
        kc_write_file(side, line);
        cr_expect_eq(kc_hostlib_source("kt", NULL, &h), KC_HOSTLIB_SRC_BYTES, "digest file '%s'", line);
        cr_expect_eq(h, bytes, "digest file '%s'", line);
    }
    /* A line for these bytes counts whatever the times: older than the .so
     * (copied before it), as old, newer. */
    kc_write_file(side, good);
    for (time_t t = 999999999; t <= 1000000001; t++) {
        set_mtime(side, t);
        cr_expect_eq(kc_hostlib_source("kt", NULL, &h), KC_HOSTLIB_SRC_DIGEST, "digest file at %lld", (long long)t);
        cr_expect_eq(h, dig);
    }
    /* Without a digest, other bytes count as another library. */
    unlink(side);
    kc_write_file(so, "another library's bytes");
    cr_expect_eq(kc_hostlib_source("kt", NULL, &bytes2), KC_HOSTLIB_SRC_BYTES);
    cr_expect_neq(bytes2, bytes);
    kc_rm_rf(dir);
}

/* The red team's case: a library replaced by other bytes with its time
 * kept (cp -p of a control's .so over the clean one; rsync -a, tar x, a
 * downloaded artifact) older than or as old as the .so.source written for
 * the first bytes: that digest no longer vouches for it, its bytes count. */
Test(build_id, a_library_replaced_under_an_old_time_counts_by_its_new_bytes)
{
    char dir[512], so[600], side[620], first[620], second[620], cmd[4096];
    kc_tmp_dir(dir, sizeof dir, "libreplaced");
    cr_assert_eq(setenv("KC_LIBDIR", dir, 1), 0);
    snprintf(so, sizeof so, "%s/libkt.so", dir);
    snprintf(side, sizeof side, "%s/libkt.so.source", dir);
    snprintf(first, sizeof first, "%s/first.so", dir);
    snprintf(second, sizeof second, "%s/second.so", dir);
    kc_write_file(first, "the clean library's bytes");
    kc_write_file(second, "a control's library's bytes");
    set_mtime(first, 1000000000);
    set_mtime(second, 1000000000);
    uint64_t dig, other, h;
    snprintf(cmd, sizeof cmd, "cp -p '%s' '%s'", second, so);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(kc_hostlib_source("kt", NULL, &other), KC_HOSTLIB_SRC_BYTES);
    snprintf(cmd, sizeof cmd, "cp -p '%s' '%s'", first, so);
    cr_assert_eq(system(cmd), 0);
    write_record(side, "0123456789abcdef", so, "\\n");
    set_mtime(side, 1000000010);
    cr_expect_eq(kc_hostlib_source("kt", NULL, &dig), KC_HOSTLIB_SRC_DIGEST);
    /* Replaced, times kept: older than its .so.source, then as old. */
    snprintf(cmd, sizeof cmd, "cp -p '%s' '%s'", second, so);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(kc_hostlib_source("kt", NULL, &h), KC_HOSTLIB_SRC_BYTES, "a replaced library kept its digest");
    cr_expect_eq(h, other, "a replaced library counts by its bytes");
    set_mtime(so, 1000000010);
    cr_expect_eq(kc_hostlib_source("kt", NULL, &h), KC_HOSTLIB_SRC_BYTES, "a replaced library kept its digest");
    cr_expect_eq(h, other);
    /* The first bytes back: the digest again. */
    snprintf(cmd, sizeof cmd, "cp -p '%s' '%s'", first, so);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(kc_hostlib_source("kt", NULL, &h), KC_HOSTLIB_SRC_DIGEST);
    cr_expect_eq(h, dig);
    kc_rm_rf(dir);
}

/* The fixture's library kernels (build/lib/libkc_fakelib[@<control>].so and
 * their digests, next to the fixture binary) copied into dir: each .so, then
 * its .so.source when with_source. */
static void copy_fakelibs(const char *dir, int with_source)
{
    char from[1024], cmd[4096];
    fixture_libdir(from, sizeof from);
    snprintf(cmd, sizeof cmd,
             "set -e; for v in '' @error_return @runtime_error @skip_last; do f='%s/libkc_fakelib'\"$v\".so; "
             "cp \"$f\" '%s/'; if [ %d = 1 ]; then cp \"$f.source\" '%s/'; fi; done",
             from, dir, with_source, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The build id `version` prints with KC_LIBDIR=libdir (NULL: unset, the
 * fixture binary's own lib/), into buf. */
static void fixture_build(const char *libdir, char *buf, size_t cap)
{
    static char env[1024];
    snprintf(env, sizeof env, "KC_LIBDIR=%s", libdir ? libdir : "");
    kc_proc p = kc_run_fixture_env((char *[]){ "version", NULL }, (char *[]){ libdir ? env : NULL, NULL }, 30);
    cr_assert_eq(p.status, 0, "version: exit %d\n%s%s", p.status, p.out, p.err);
    const char *b = strstr(p.out, ", build ");
    cr_assert(b, "no build in '%s'", p.out);
    snprintf(buf, cap, "%.16s", b + 8);
    kc_proc_free(&p);
}

/* Shard k/2 of fixture.pass.* with KC_LIBDIR=libdir, its output saved as log. */
static void libdir_shard(int k, const char *libdir, const char *log)
{
    static char env[1024];
    char spec[8];
    snprintf(env, sizeof env, "KC_LIBDIR=%s", libdir);
    snprintf(spec, sizeof spec, "%d/2", k);
    kc_proc p = kc_run_fixture_env((char *[]){ "run", "fixture.pass.*", "--shard", spec, NULL }, (char *[]){ env, NULL }, 60);
    cr_assert_eq(p.status, 0, "shard %s: exit %d\n%s%s", spec, p.status, p.out, p.err);
    kc_write_file(log, p.out);
    kc_proc_free(&p);
}

/* What `version` prints for the fixture's libraries: copied with their
 * .so.source files into another folder, the same build, whatever times the
 * copy gave them (each .so.source older than its .so: copied first); the
 * clean library replaced there by a control's with its time kept (cp -p,
 * the red team's case; then dated back as well), another build: the one of
 * those libraries with that library's .so.source gone (its bytes count);
 * .so.source files of the format before the bytes (the digest alone) count
 * as none. */
Test(build_id, a_fixture_library_replaced_with_its_time_kept_is_another_build, .timeout = 120)
{
    char dir[512], a[600], early[600], nosrc[600], old[600], from[1024], cmd[8192];
    kc_tmp_dir(dir, sizeof dir, "libreplace");
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(early, sizeof early, "%s/early", dir);
    snprintf(nosrc, sizeof nosrc, "%s/nosrc", dir);
    snprintf(old, sizeof old, "%s/old", dir);
    const char *dirs[] = { a, early, nosrc, old };
    for (int i = 0; i < 4; i++) cr_assert_eq(mkdir(dirs[i], 0700), 0, "mkdir %s", dirs[i]);
    copy_fakelibs(a, 1);
    copy_fakelibs(nosrc, 0);
    copy_fakelibs(old, 1);
    fixture_libdir(from, sizeof from);
    snprintf(cmd, sizeof cmd,
             "set -e; for v in '' @error_return @runtime_error @skip_last; do f='%s/libkc_fakelib'\"$v\".so;"
             " cp \"$f.source\" '%s/'; touch -d '2001-09-09 01:46:40' '%s'/libkc_fakelib\"$v\".so.source; cp \"$f\" '%s/';"
             " cut -c1-16 \"$f.source\" > '%s'/libkc_fakelib\"$v\".so.source; done",
             from, early, early, early, old);
    cr_assert_eq(system(cmd), 0, "%s", cmd);

    char own[32], ba[32], be[32], bn[32], bo[32], br[32], br2[32], bgone[32];
    fixture_build(NULL, own, sizeof own);
    fixture_build(a, ba, sizeof ba);
    fixture_build(early, be, sizeof be);
    fixture_build(nosrc, bn, sizeof bn);
    fixture_build(old, bo, sizeof bo);
    cr_expect_str_eq(ba, own, "the fixture's libraries and their .so.source in another folder: another build");
    cr_expect_str_eq(be, own, "the .so.source files older than their libraries (copied first): another build");
    cr_expect_str_neq(bn, own);
    cr_expect_str_eq(bo, bn, "a .so.source of the digest alone was trusted: build %s, %s without any", bo, bn);

    /* Replaced, its old time kept: older than the .so.source left beside it. */
    snprintf(cmd, sizeof cmd, "set -e; cd '%s'; cp -p libkc_fakelib@skip_last.so libkc_fakelib.so; "
             "touch -d '2001-09-09 01:46:40' libkc_fakelib.so; test libkc_fakelib.so -ot libkc_fakelib.so.source", a);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    fixture_build(a, br, sizeof br);
    cr_expect_str_neq(br, own, "the clean library replaced by a control's (cp -p) kept the build %s", own);
    snprintf(cmd, sizeof cmd, "touch -d '2001-09-09 01:46:40' '%s/libkc_fakelib.so.source'", a);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    fixture_build(a, br2, sizeof br2);
    cr_expect_str_eq(br2, br, "as old as its .so.source: build %s, older: %s", br2, br);
    snprintf(cmd, sizeof cmd, "rm '%s/libkc_fakelib.so.source'", a);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    fixture_build(a, bgone, sizeof bgone);
    cr_expect_str_eq(br, bgone, "the replaced library does not count by its bytes: build %s, %s without its .so.source", br, bgone);
    kc_rm_rf(dir);
}

/* Hosts whose library kernels were built from other sources (here: one
 * control's digest differs, as a changed KC_CONTROL_ branch or a changed
 * cuBLAS wrapper gives) ran other code: other builds, whose shard logs do
 * not merge, though no item of the shards calls the library. The same
 * libraries elsewhere (another folder, the digests copied with them) are
 * the same build; without their digests they count by their bytes. */
Test(build_id, shards_run_with_library_kernels_of_other_sources_do_not_merge, .timeout = 120)
{
    char dir[512], a[600], b[600], nosrc[600], nosrc2[600], empty[600], side[700];
    kc_tmp_dir(dir, sizeof dir, "libbuild");
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    snprintf(nosrc, sizeof nosrc, "%s/nosrc", dir);
    snprintf(nosrc2, sizeof nosrc2, "%s/nosrc2", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);
    const char *dirs[] = { a, b, nosrc, nosrc2, empty };
    for (int i = 0; i < 5; i++) cr_assert_eq(mkdir(dirs[i], 0700), 0, "mkdir %s", dirs[i]);
    copy_fakelibs(a, 1);
    copy_fakelibs(b, 1);
    snprintf(side, sizeof side, "%s/libkc_fakelib@skip_last.so.source", b);
    char digest[32];
    snprintf(digest, sizeof digest, "%s", kc_out_file(side));
    digest[0] = digest[0] == '0' ? '1' : '0';
    kc_write_file(side, digest);
    copy_fakelibs(nosrc, 0);
    copy_fakelibs(nosrc2, 0);

    char own[32], ba[32], bb[32], bn[32], bn2[32], be[32];
    fixture_build(NULL, own, sizeof own);
    fixture_build(a, ba, sizeof ba);
    fixture_build(b, bb, sizeof bb);
    fixture_build(nosrc, bn, sizeof bn);
    fixture_build(nosrc2, bn2, sizeof bn2);
    fixture_build(empty, be, sizeof be);
    cr_expect_str_eq(ba, own, "the fixture's libraries and their digests in another folder: another build");
    cr_expect_str_neq(bb, ba, "a library of another source (its digest) kept the build %s", ba);
    /* No digest beside them: the libraries count by their bytes (the same
     * bytes in two folders, one build), never as the digests' build. */
    cr_expect_str_eq(bn, bn2, "one library's bytes in two folders, no digests: two builds");
    cr_expect_str_neq(bn, ba, "libraries without their digests count as with them");
    cr_expect_str_neq(be, ba, "no library at all counts as the libraries");
    cr_expect_str_neq(be, bn);
    /* Without the digest, other bytes are another build. */
    char so[700];
    snprintf(so, sizeof so, "%s/libkc_fakelib.so", nosrc2);
    FILE *f = fopen(so, "a");
    cr_assert(f, "cannot append to %s", so);
    fputc(0, f);
    fclose(f);
    fixture_build(nosrc2, bn2, sizeof bn2);
    cr_expect_str_neq(bn2, bn, "a library of other bytes without a digest kept the build %s", bn);

    /* The shards: one ran with a's libraries, the other with b's. */
    char log[2][700];
    for (int k = 0; k < 2; k++) snprintf(log[k], sizeof log[k], "%s/shard%d.log", dir, k);
    libdir_shard(0, a, log[0]);
    libdir_shard(1, b, log[1]);
    char want[512];
    snprintf(want, sizeof want, " build=%s ", bb);
    cr_expect(strstr(kc_out_file(log[1]), want), "shard 1's TALLY does not say%s:\n%s", want, kc_out_file(log[1]));
    static char env_a[1024];
    snprintf(env_a, sizeof env_a, "KC_LIBDIR=%s", a);
    kc_proc m = kc_run_fixture_env((char *[]){ "merge", "fixture.pass.*", "--log", log[0], "--log", log[1], NULL },
                                   (char *[]){ env_a, NULL }, 60);
    cr_expect_eq(m.status, 1, "shards of other library kernels merged: exit %d\n%s%s", m.status, m.out, m.err);
    snprintf(want, sizeof want, "shard 1/2: its TALLY is from build %s (other contract definitions, kernels or library kernels), the run's is %s",
             bb, ba);
    cr_expect(strstr(m.out, want), "want '%s' in:\n%s", want, m.out);
    cr_expect(!strstr(m.out, "\nSUMMARY"), "a refused merge printed a SUMMARY:\n%s", m.out);
    kc_proc_free(&m);
    /* Both shards with a's libraries merge. */
    libdir_shard(1, a, log[1]);
    m = kc_run_fixture_env((char *[]){ "merge", "fixture.pass.*", "--log", log[0], "--log", log[1], NULL },
                           (char *[]){ env_a, NULL }, 60);
    cr_expect_eq(m.status, 0, "shards of one build: exit %d\n%s%s", m.status, m.out, m.err);
    kc_proc_free(&m);
    kc_rm_rf(dir);
}
