/* test_launch.c — the launch path (src/gates/launch.h) against the fake
 * driver (tests/fake/fake_cuda.c), in this process: the driver table
 * resolves cuLaunchKernelEx and cuOccupancyMaxActiveClusters and leaves the
 * optional cuFuncGetParamInfo NULL where the driver lacks it; kc_launch_kernel
 * launches plainly through cuLaunchKernel and otherwise through
 * cuLaunchKernelEx with the attributes asked for (a cluster, non-portable,
 * cooperative, programmatic stream serialization: the driver's log of each
 * launch says which); the fake refuses a cluster that does not divide the
 * grid and a cooperative grid it cannot hold, with the driver's codes, and
 * counts active clusters by its rule; a function attribute is set only
 * when it changes (kc_cuda_func_set). The gates' use of it is
 * tests/test_gates_fake.c's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_driver.h"
#include "launch.h"
#include "support/run_output.h"

static kc_cuda cu;
static char log_path[256];

/* The fake driver, loaded here, with its launch log in a fresh file. */
static void load_fake(void)
{
    const char *lib = getenv("KC_FAKE_CUDA");
    char err[512];
    kc_tmp_path(log_path, sizeof log_path, "launch-path", "log");
    cr_assert_eq(setenv("KC_FAKE_LAUNCH_LOG", log_path, 1), 0);
    cr_assert_eq(kc_cuda_load(&cu, lib && *lib ? lib : "build/libfake_cuda.so", err, sizeof err), 0, "%s", err);
}

static void unload_fake(void)
{
    kc_cuda_unload(&cu);
    unlink(log_path);
}

/* Function `symbol` of a fresh load of fake module `module` (its attributes
 * as a new function's). */
static CUfunction function(const char *module, const char *symbol)
{
    char image[128];
    CUmodule m;
    CUfunction f;
    snprintf(image, sizeof image, "KCFAKE %s -\n", module);
    cr_assert_eq(cu.ModuleLoadData(&m, image), CUDA_SUCCESS);
    cr_assert_eq(cu.ModuleGetFunction(&f, m, symbol), CUDA_SUCCESS);
    return f;
}

/* The parameters of out = in over n floats: device buffers of n each. */
typedef struct copy_args {
    CUdeviceptr out, in;
    long long n;
    void *p[3];
} copy_args;

static void copy_args_init(copy_args *a, long long n)
{
    cr_assert_eq(cu.MemAlloc(&a->out, (size_t)n * 4), CUDA_SUCCESS);
    cr_assert_eq(cu.MemAlloc(&a->in, (size_t)n * 4), CUDA_SUCCESS);
    cr_assert_eq(cu.MemsetD8(a->in, 0, (size_t)n * 4), CUDA_SUCCESS);
    a->n = n;
    a->p[0] = &a->out;
    a->p[1] = &a->in;
    a->p[2] = &a->n;
}

/* The last line of the launch log. */
static void last_launch(char *line, size_t cap)
{
    FILE *f = fopen(log_path, "r");
    cr_assert_not_null(f, "no launch logged in %s", log_path);
    line[0] = 0;
    while (fgets(line, (int)cap, f)) {}
    fclose(f);
}

#define EXPECT_LAUNCH(...) do { \
        char line_[512]; \
        last_launch(line_, sizeof line_); \
        const char *const want_[] = { __VA_ARGS__, NULL }; \
        for (int i_ = 0; want_[i_]; i_++) cr_expect(strstr(line_, want_[i_]), "'%s' not in: %s", want_[i_], line_); \
    } while (0)

TestSuite(launch_path, .init = load_fake, .fini = unload_fake);

Test(launch_path, the_table_has_the_ex_entry_points_and_the_optional_ones_the_driver_exports)
{
    cr_expect_not_null(cu.LaunchKernelEx);
    cr_expect_not_null(cu.OccupancyMaxActiveClusters);
    /* optional (NULL where a driver lacks them); the fake exports both */
    cr_expect_not_null(cu.FuncGetParamInfo);
    cr_expect_not_null(cu.TensorMapEncodeTiled);
    cr_expect_not_null(cu.MemAllocHost, "page-locked memory for the harness's check results (harness.h)");
    cr_expect_not_null(cu.MemFreeHost);
}

/* cuFuncSetAttribute waits for the context's work, so kc_cuda_func_set
 * calls it only when cuFuncGetAttribute reads another value; a value the
 * driver refuses still reaches it and its error comes back. */
static int sets;
static CUresult (*real_set)(CUfunction, CUfunction_attribute, int);
static CUresult counting_set(CUfunction f, CUfunction_attribute a, int v)
{
    sets++;
    return real_set(f, a, v);
}

Test(launch_path, an_attribute_is_set_only_when_it_changes)
{
    CUfunction f = function("fake_spill", "fake_spill_f32");
    real_set = cu.FuncSetAttribute;
    cu.FuncSetAttribute = counting_set;
    const CUfunction_attribute smem = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    int v = -1;
    cr_expect_eq(kc_cuda_func_set(&cu, f, smem, 60000), CUDA_SUCCESS);
    cr_expect_eq(sets, 1, "a new value is set");
    cr_expect_eq(kc_cuda_func_set(&cu, f, smem, 60000), CUDA_SUCCESS);
    cr_expect_eq(sets, 1, "the same value is not set again");
    cr_expect(cu.FuncGetAttribute(&v, smem, f) == CUDA_SUCCESS && v == 60000, "%d", v);
    cr_expect_eq(kc_cuda_func_set(&cu, f, smem, 70000), CUDA_SUCCESS);
    cr_expect_eq(sets, 2, "another value is set");
    cr_expect_eq(kc_cuda_func_set(&cu, f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), CUDA_SUCCESS);
    cr_expect_eq(kc_cuda_func_set(&cu, f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), CUDA_SUCCESS);
    cr_expect_eq(sets, 3, "the cluster permission once");
    cr_expect_eq(kc_cuda_func_set(&cu, f, smem, 1 << 30), CUDA_ERROR_INVALID_VALUE, "the driver's refusal comes back");
    cr_expect_eq(sets, 4);
    cu.FuncSetAttribute = real_set;
}

Test(launch_path, a_plain_launch_goes_through_cuLaunchKernel)
{
    CUfunction f = function("fake_spill", "fake_spill_f32");
    copy_args a;
    copy_args_init(&a, 512);
    kc_launch l = { { 2, 1, 1 }, { 256, 1, 1 }, 0 };
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, 0), CUDA_SUCCESS);
    EXPECT_LAUNCH("fake_spill_f32 control=- via=cuLaunchKernel grid=2x1x1 block=256x1x1 smem=0 cluster=0x0x0 nonportable=0 cooperative=0 programmatic=0");
    char desc[160];
    kc_launch_describe(&l, desc, sizeof desc);
    cr_expect_str_eq(desc, "grid 2x1x1 block 256x1x1 smem 0");
}

Test(launch_path, a_cluster_launches_through_cuLaunchKernelEx_with_its_dims)
{
    CUfunction f = function("fake_cluster", "fake_cluster_f32");
    copy_args a;
    copy_args_init(&a, 1024);
    kc_launch l = { { 4, 1, 1 }, { 256, 1, 1 }, 0, { 2, 0, 0 } };   /* a dim of 0 counts as 1 */
    unsigned dims[3];
    cr_expect_eq(kc_launch_cluster(&l, dims), 1);
    cr_expect(dims[0] == 2 && dims[1] == 1 && dims[2] == 1);
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, 0), CUDA_SUCCESS);
    cr_expect_eq(cu.CtxSynchronize(), CUDA_SUCCESS, "the fake kernel faults without its cluster");
    EXPECT_LAUNCH("via=cuLaunchKernelEx grid=4x1x1 block=256x1x1 smem=0 cluster=2x1x1 nonportable=0 cooperative=0 programmatic=0");
    /* programmatic stream serialization, prepared for a producer and its dependent */
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, KC_LAUNCH_PROGRAMMATIC), CUDA_SUCCESS);
    EXPECT_LAUNCH("via=cuLaunchKernelEx", "cluster=2x1x1", "programmatic=1");
    char desc[160];
    kc_launch_describe(&l, desc, sizeof desc);
    cr_expect_str_eq(desc, "grid 4x1x1 block 256x1x1 smem 0 cluster 2x1x1");
}

Test(launch_path, a_non_portable_cluster_sets_the_functions_attribute)
{
    CUfunction f = function("fake_cluster", "fake_cluster_f32");
    copy_args a;
    copy_args_init(&a, 4096);
    kc_launch l = { { 16, 1, 1 }, { 256, 1, 1 }, 0, { 16, 1, 1 } };
    int clusters = -1;
    cr_expect_eq(kc_launch_max_clusters(&cu, f, &l, &clusters), CUDA_SUCCESS);
    cr_expect_eq(clusters, 0, "16 blocks without the non-portable attribute: none");
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, 0), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    l.nonportable_cluster = 1;
    cr_expect_eq(kc_launch_max_clusters(&cu, f, &l, &clusters), CUDA_SUCCESS);
    cr_expect_eq(clusters, 2, "8 blocks/SM x 4 SMs / 16");
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, 0), CUDA_SUCCESS);
    EXPECT_LAUNCH("via=cuLaunchKernelEx grid=16x1x1", "cluster=16x1x1 nonportable=1 cooperative=0");
    int v = 0;
    cr_expect_eq(cu.FuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, f), CUDA_SUCCESS);
    cr_expect_eq(v, 1);
    char desc[160];
    kc_launch_describe(&l, desc, sizeof desc);
    cr_expect_str_eq(desc, "grid 16x1x1 block 256x1x1 smem 0 cluster 16x1x1 non-portable");
    l.cluster[0] = 32;
    cr_expect_eq(kc_launch_max_clusters(&cu, f, &l, &clusters), CUDA_SUCCESS);
    cr_expect_eq(clusters, 0, "above 16 blocks: none");
}

Test(launch_path, the_fake_refuses_a_cluster_that_does_not_divide_the_grid)
{
    CUfunction f = function("fake_cluster", "fake_cluster_f32");
    copy_args a;
    copy_args_init(&a, 1024);
    kc_launch l = { { 3, 1, 1 }, { 256, 1, 1 }, 0, { 2, 1, 1 } };
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, 0), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    cr_expect_eq(cu.CtxSynchronize(), CUDA_SUCCESS, "a refused launch leaves the context usable");
}

Test(launch_path, a_cooperative_launch_goes_through_cuLaunchKernelEx_and_a_grid_too_large_is_refused)
{
    CUfunction f = function("fake_coop", "fake_coop_f32");
    copy_args a;
    copy_args_init(&a, 100000);
    kc_launch l = { { 32, 1, 1 }, { 256, 1, 1 }, 0, { 0, 0, 0 }, 0, 1 };   /* 8 blocks/SM x 4 SMs: all resident */
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, 0), CUDA_SUCCESS);
    cr_expect_eq(cu.CtxSynchronize(), CUDA_SUCCESS, "the fake kernel traps outside a cooperative launch");
    EXPECT_LAUNCH("fake_coop_f32 control=- via=cuLaunchKernelEx grid=32x1x1 block=256x1x1 smem=0 cluster=0x0x0 nonportable=0 cooperative=1 programmatic=0");
    char desc[160];
    kc_launch_describe(&l, desc, sizeof desc);
    cr_expect_str_eq(desc, "grid 32x1x1 block 256x1x1 smem 0 cooperative");
    l.grid[0] = 33;
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, 0), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    l.grid[0] = 32;
    l.cooperative = 0;
    cr_expect_eq(kc_launch_kernel(&cu, f, &l, NULL, a.p, 0), CUDA_SUCCESS);
    cr_expect_eq(cu.CtxSynchronize(), CUDA_ERROR_ILLEGAL_INSTRUCTION,
                 "a grid sync outside a cooperative launch traps (the fake's emulation)");
}
