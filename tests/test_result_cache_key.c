/* test_result_cache_key.c — the results cache's key (run/result_cache.h,
 * issue 23), in this process: a contract's definition, a module image, the
 * verdict, the CUDA stack's environment and the shared libraries that
 * register contracts or suites each change an item's key; a library
 * rebuilt while its item ran keys no pass; the host code's digest reads this
 * binary; the TALLY counts cached items and merges them. The runs of the
 * fixture binary are test_result_cache.c's. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "fatbin.h"
#include "host_code.h"
#include "registry.h"
#include "result_cache.h"
#include "support/run_output.h"
#include "tally.h"

static kc_item kernel_item(const kc_contract *k)
{
    kc_item it;
    memset(&it, 0, sizeof it);
    snprintf(it.name, sizeof it.name, "%s", k->name);
    it.kind = KC_KIND_KERNEL;
    it.contract = k;
    return it;
}

static kc_item_result pass_result(void)
{
    kc_item_result r;
    memset(&r, 0, sizeof r);
    r.state = KC_PASS;
    r.cases = 3;
    snprintf(r.msg, sizeof r.msg, "gates 1-4 on 3 cases");
    return r;
}

static unsigned char image_bytes[256];

Test(result_cache, the_key_sees_the_contract_the_image_and_the_verdict)
{
    char dir[512];
    kc_tmp_dir(dir, sizeof dir, "rcache-key");
    setenv("KC_CACHE_DIR", dir, 1);
    memset(image_bytes, 7, sizeof image_bytes);
    kc_register_module("kc_cache_probe", NULL, image_bytes, image_bytes + sizeof image_bytes, NULL, KC_ABI_VERSION);
    static kc_shape shapes[] = { { "s", KC_SHAPE_EDGE, { 4 } }, { 0 } };
    kc_contract k;
    memset(&k, 0, sizeof k);
    k.name = "kc_cache_probe.f32";
    k.module = "kc_cache_probe";
    k.symbol = "probe";
    k.shapes = shapes;
    k.tol.rtol = 1e-5;
    kc_opts o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    kc_rcache_gpu g = { .name = "kcontract fake GPU", .cc_major = 9, .sm_count = 4, .driver_version = 13000 };
    kc_item it = kernel_item(&k);
    kc_item_result r = pass_result(), got;

    kc_rcache *rc = kc_rcache_open(&o, &g, stderr);
    cr_assert_not_null(rc, "the cache did not open in %s", dir);
    kc_rcache_store(rc, &it, &r);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 1, "a stored PASS was not found");
    cr_expect(got.cached && got.state == KC_PASS && strstr(got.msg, "gates 1-4 on 3 cases  [cached: earned "),
              "reused as %d '%s'", got.state, got.msg);
    kc_rcache_close(rc);

    k.tol.rtol = 2e-5;                                  /* the contract's definition changed */
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "a changed tolerance reused the old verdict");
    kc_rcache_close(rc);
    k.tol.rtol = 1e-5;

    image_bytes[100] ^= 1;                              /* its image changed */
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "a changed image reused the old verdict");
    image_bytes[100] ^= 1;
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "(a cache keeps the image hashes it made; this one is stale)");
    kc_rcache_close(rc);

    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 1, "the same image again: not reused");
    kc_rcache_gpu other = g;
    other.sm_count = 132;
    kc_rcache *rc2 = kc_rcache_open(&o, &other, stderr);
    cr_expect_eq(kc_rcache_lookup(rc2, &it, &got), 0, "another SM count reused the verdict");
    kc_rcache_close(rc2);

    /* a FAIL, a KNOWN, a stale finding and a RED without a gate are never kept */
    kc_item_result f = pass_result();
    f.state = KC_FAIL;
    f.gate = 3;
    cr_expect(!kc_rcache_reusable(&it, &f), "FAIL reusable");
    f.state = KC_KNOWN;
    cr_expect(!kc_rcache_reusable(&it, &f), "KNOWN reusable");
    f.state = KC_LEAK;
    cr_expect(!kc_rcache_reusable(&it, &f), "LEAK reusable");
    f.state = KC_SKIP;
    cr_expect(!kc_rcache_reusable(&it, &f), "SKIP reusable");
    f = pass_result();
    f.context_lost = 2;     /* KC_LOST_GPU_STATE: a PASS that left GPU memory allocated */
    cr_expect(!kc_rcache_reusable(&it, &f), "a PASS that left GPU memory reusable");
    f = pass_result();
    f.stale = 1;
    cr_expect(!kc_rcache_reusable(&it, &f), "a stale known finding reusable");
    kc_item ctl = it;
    ctl.kind = KC_KIND_CONTROL;
    f = pass_result();
    f.state = KC_RED;
    cr_expect(!kc_rcache_reusable(&ctl, &f), "RED without its gate reusable");
    f.gate = 2;
    cr_expect(kc_rcache_reusable(&ctl, &f), "RED by gate 2 not reusable");
    f.state = KC_MISSED;
    cr_expect(!kc_rcache_reusable(&ctl, &f), "MISSED reusable");
    f = pass_result();
    f.state = KC_FAIL;
    o.seed = 2;                                         /* a FAIL on other inputs: the PASS of these stays */
    rc2 = kc_rcache_open(&o, &g, stderr);
    kc_rcache_store(rc2, &it, &f);
    kc_rcache_close(rc2);
    o.seed = 1;
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 1, "a FAIL under another seed removed this seed's PASS");
    kc_rcache_store(rc, &it, &f);                       /* a FAIL on the same inputs: the latest verdict decides */
    kc_rcache_close(rc);
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "a FAIL on the inputs of a kept PASS left it reusable");
    kc_rcache_close(rc);

    /* --no-cache reuses nothing, but what runs refreshes the cache (result_cache.h) */
    o.no_cache = 1;
    rc = kc_rcache_open(&o, &g, stderr);
    cr_assert_not_null(rc, "--no-cache did not open the cache to refresh it");
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "--no-cache looked a verdict up");
    kc_rcache_store(rc, &it, &r);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "--no-cache reused the PASS it had just kept");
    kc_rcache_close(rc);
    o.no_cache = 0;
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 1, "the PASS a --no-cache run kept was not reused after it");
    kc_rcache_close(rc);
    setenv("KC_CACHE_DIR", "off", 1);
    kc_rm_rf(dir);
}

/* A library kernel's shared object rebuilt while its item ran (after the
 * lookup before it, before its store): the process that keeps the verdict
 * cannot tell which file the item ran (in a --jobs run a worker loaded it),
 * so the pass is kept under neither key; the next run, with the rebuilt
 * file or with the first one back, runs the item. Before, the pass was kept
 * under the first file's key, which a return to it would reuse. */
Test(result_cache, a_library_rebuilt_while_its_item_ran_is_not_the_key_of_its_pass)
{
    char dir[512];
    kc_tmp_dir(dir, sizeof dir, "rcache-librace");
    char lib[700];
    snprintf(lib, sizeof lib, "%s/libkc_cache_probe.so", dir);
    kc_write_file(lib, "the library as the item loaded it\n");
    setenv("KC_CACHE_DIR", dir, 1);
    setenv("KC_LIBDIR", dir, 1);
    static kc_shape shapes[] = { { "s", KC_SHAPE_EDGE, { 4 } }, { 0 } };
    kc_contract k;
    memset(&k, 0, sizeof k);
    k.name = "kc_cache_probe_lib.f32";
    k.library = "kc_cache_probe";
    k.entry = "kc_cache_probe_f32";
    k.shapes = shapes;
    kc_opts o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    kc_rcache_gpu g = { .name = "kcontract fake GPU", .cc_major = 9, .sm_count = 4, .driver_version = 13000 };
    kc_item it = kernel_item(&k);
    kc_item_result r = pass_result(), got;

    kc_rcache *rc = kc_rcache_open(&o, &g, stderr);
    cr_assert_not_null(rc, "the cache did not open in %s", dir);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "an empty cache reused a verdict");    /* before the item runs */
    kc_write_file(lib, "the library rebuilt while the item ran\n");
    kc_rcache_store(rc, &it, &r);       /* a pass of either library (a --jobs worker loaded one): kept for neither */
    kc_rcache_close(rc);
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0,
                 "a pass from a run the library was rebuilt during was reused with the rebuilt one (%s)", got.msg);
    kc_rcache_close(rc);
    kc_write_file(lib, "the library as the item loaded it\n");
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0,
                 "a pass from a run the library was rebuilt during was reused with the first one (%s)", got.msg);
    kc_write_file(lib, "the library rebuilt while the item ran\n");
    kc_rcache_close(rc);
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "(nothing kept yet)");
    kc_rcache_store(rc, &it, &r);                       /* earned with the rebuilt one: kept for it */
    kc_rcache_close(rc);
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 1, "a pass earned with the library as it is was not reused");
    kc_rcache_close(rc);
    /* The latest verdict decides there too: a --no-cache run that starts with
     * the first library, rebuilt to the second again before a worker loads
     * it, and FAILs, removes the pass of the second (which it may have run):
     * the next run with the second runs the item. */
    kc_write_file(lib, "the library as the item loaded it\n");
    o.no_cache = 1;
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "--no-cache reused a verdict");
    kc_write_file(lib, "the library rebuilt while the item ran\n");
    kc_item_result f = pass_result();
    f.state = KC_FAIL;
    kc_rcache_store(rc, &it, &f);
    kc_rcache_close(rc);
    o.no_cache = 0;
    rc = kc_rcache_open(&o, &g, stderr);
    cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0,
                 "a FAIL reached while the library was rebuilt to these bytes left their pass reusable (%s)", got.msg);
    kc_rcache_close(rc);
    setenv("KC_CACHE_DIR", "off", 1);
    unsetenv("KC_LIBDIR");
    kc_rm_rf(dir);
}

/* The variables the CUDA stack reads change verdicts the key must see
 * (CUBLAS_WORKSPACE_CONFIG: whether cuBLAS repeats its results, gate 4);
 * CUDA_VISIBLE_DEVICES only selects the device, which is keyed itself, and
 * CUDA_HOME, CUDA_PATH and CUDA_CACHE_PATH say where the toolkit and the JIT
 * cache lie, which no driver call reads (they differ from host to host). */
Test(result_cache, the_key_sees_the_cuda_stacks_environment)
{
    char dir[512];
    kc_tmp_dir(dir, sizeof dir, "rcache-cudaenv");
    setenv("KC_CACHE_DIR", dir, 1);
    unsetenv("CUBLAS_WORKSPACE_CONFIG");
    unsetenv("CUDA_FORCE_PTX_JIT");
    static kc_shape shapes[] = { { "s", KC_SHAPE_EDGE, { 4 } }, { 0 } };
    kc_contract k;
    memset(&k, 0, sizeof k);
    k.name = "kc_cache_probe_env.f32";
    k.module = "kc_cache_probe_env";
    k.symbol = "probe";
    k.shapes = shapes;
    kc_opts o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    kc_rcache_gpu g = { .name = "kcontract fake GPU", .cc_major = 9, .sm_count = 4, .driver_version = 13000 };
    kc_item it = kernel_item(&k);
    kc_item_result r = pass_result(), got;
    kc_rcache *rc = kc_rcache_open(&o, &g, stderr);
    cr_assert_not_null(rc, "the cache did not open in %s", dir);
    kc_rcache_store(rc, &it, &r);
    kc_rcache_close(rc);
    const char *seen[][2] = { { "CUBLAS_WORKSPACE_CONFIG", ":4096:8" }, { "CUDA_FORCE_PTX_JIT", "1" },
                              { "NVIDIA_TF32_OVERRIDE", "0" } };
    for (int i = 0; i < 3; i++) {
        setenv(seen[i][0], seen[i][1], 1);
        rc = kc_rcache_open(&o, &g, stderr);
        cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 0, "%s=%s reused the pass earned without it", seen[i][0],
                     seen[i][1]);
        kc_rcache_close(rc);
        unsetenv(seen[i][0]);
    }
    /* the device is keyed; the toolkit's and the JIT cache's places are read by no driver call */
    const char *unseen[][2] = { { "CUDA_VISIBLE_DEVICES", "3" }, { "CUDA_HOME", "/opt/other-cuda" },
                                { "CUDA_PATH", "/opt/other-cuda" }, { "CUDA_CACHE_PATH", "/tmp/other" } };
    const char *had = getenv("CUDA_HOME");
    char keep[512];
    snprintf(keep, sizeof keep, "%s", had ? had : "");
    for (int i = 0; i < 4; i++) {
        setenv(unseen[i][0], unseen[i][1], 1);
        rc = kc_rcache_open(&o, &g, stderr);
        cr_expect_eq(kc_rcache_lookup(rc, &it, &got), 1, "%s=%s ran the item", unseen[i][0], unseen[i][1]);
        kc_rcache_close(rc);
        unsetenv(unseen[i][0]);
    }
    if (had) setenv("CUDA_HOME", keep, 1);
    setenv("KC_CACHE_DIR", "off", 1);
    kc_rm_rf(dir);
}

/* The digest of this binary's host code: read, not 0, the same when asked again. */
Test(result_cache, host_code_digest_reads_this_binary)
{
    uint64_t a = 0, b = 0;
    char why[512] = "";
    cr_assert_eq(kc_host_code_digest(&a, why, sizeof why), 0, "%s", why);
    cr_assert_eq(kc_host_code_digest(&b, why, sizeof why), 0, "%s", why);
    cr_expect_neq(a, 0);
    cr_expect_eq(a, b, "%016llx then %016llx", (unsigned long long)a, (unsigned long long)b);
}

/* A copy of build/lib/libkc_fakelib.so (a small shared object) at path. */
static void copy_lib(const char *path)
{
    FILE *in = fopen("build/lib/libkc_fakelib.so", "rb"), *out = fopen(path, "wb");
    cr_assert(in && out, "cannot copy build/lib/libkc_fakelib.so to %s", path);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) cr_assert_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
}

/* Another modification time for path (a rebuilt library of the same size). */
static void retouch(const char *path, time_t when)
{
    struct timespec ts[2] = { { .tv_sec = when }, { .tv_sec = when } };
    cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0, "utimensat %s", path);
}

/* Contracts and suites may register from a shared library (kcontract.h):
 * a team's references in libteam_refs.so. A rebuilt one must change the
 * host code's digest, or its items' passes are reused (a suite that now
 * fails read PASS from the cache); a library that holds none of them does
 * not count. */
Test(result_cache, a_shared_library_that_registers_a_suite_is_in_the_host_code)
{
    char dir[512], refs[600], other[600];
    kc_tmp_dir(dir, sizeof dir, "rcache-solib");
    if (strstr(dir, "kcontract")) {     /* every library there would count as the harness's */
        kc_rm_rf(dir);
        cr_skip_test("the temporary directory %s is named like the harness", dir);
    }
    snprintf(refs, sizeof refs, "%s/libteam_refs.so", dir);
    snprintf(other, sizeof other, "%s/libother.so", dir);
    copy_lib(refs);
    copy_lib(other);
    void *hr = dlopen(refs, RTLD_NOW | RTLD_LOCAL), *ho = dlopen(other, RTLD_NOW | RTLD_LOCAL);
    cr_assert(hr && ho, "dlopen: %s", dlerror());
    void *fn = dlsym(hr, "kc_fakelib_double_f32");
    cr_assert_not_null(fn);
    static kc_suite team;
    team.name = "team.refs.suite";
    memcpy(&team.run, &fn, sizeof fn);   /* its code lies in libteam_refs.so; never called here */
    kc_register_suite(&team, KC_ABI_VERSION, sizeof team);
    uint64_t a = kc_host_code_shared_objects();
    retouch(other, 1000000000);
    cr_expect_eq(kc_host_code_shared_objects(), a, "a library that holds no contract or suite changed the digest");
    retouch(refs, 1000000000);
    cr_expect_neq(kc_host_code_shared_objects(), a, "%s, which holds suite team.refs.suite, was rebuilt: the digest "
                  "is the same, so the suite's pass would be reused", refs);
    dlclose(ho);
    kc_rm_rf(dir);
}

Test(result_cache, tally_counts_cached_and_merges_them)
{
    kc_tally a, b;
    kc_tally_init(&a);
    kc_tally_init(&b);
    a.n[KC_KIND_KERNEL][KC_PASS] = 3;
    a.cached = 2;
    b.n[KC_KIND_KERNEL][KC_PASS] = 1;
    b.cached = 1;
    char line[4096], err[256];
    cr_assert_gt(kc_tally_format(&a, line, sizeof line), 0);
    cr_expect(strstr(line, " cached=2"), "%s", line);
    kc_tally back;
    cr_assert_eq(kc_tally_parse(line, &back, err, sizeof err), 0, "%s", err);
    cr_expect_eq(back.cached, 2);
    *strstr(line, " cached=2") = 0;                     /* a line from before the key: reads 0 */
    cr_assert_eq(kc_tally_parse(line, &back, err, sizeof err), 0, "%s", err);
    cr_expect_eq(back.cached, 0);
    cr_assert_eq(kc_tally_merge(&a, &b), 0);
    cr_expect_eq(a.cached, 3, "merged cached=%ld", a.cached);
    cr_assert_gt(kc_summary_format(&a, line, sizeof line), 0);
    cr_expect(strstr(line, "; 3 cached"), "%s", line);
}
