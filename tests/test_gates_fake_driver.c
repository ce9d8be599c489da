/* test_gates_fake_driver.c — what the gates ask of the driver and what its
 * answers become, without a GPU: the real fixture binary loads the fake
 * driver (build/libfake_cuda.so, tests/fake/fake_cuda.c, through KC_LIBCUDA),
 * suite gates_fake as in test_gates_fake.c. Launches with a cluster and
 * cooperative launches pass through cuLaunchKernelEx with the contract's
 * attributes; a cluster or cooperative grid that cannot run fails gate 1
 * before the launch naming the numbers, and the controls planted there are
 * RED; the :limits item reports active clusters per GPU and names a query the
 * driver refuses; shared memory is poisoned before every launch; a sticky
 * error first seen at a function lookup or a module load names the driver's
 * error and the run goes on in a fresh process. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/item_lines.h"
#include "support/run_output.h"
#include "support/spawn.h"

/* ---- launches with a cluster, cooperative launches (issue 22) ---- */

/* The lines of symbol `sym` in the fake driver's log of the launches of
 * kernels under test (KC_FAKE_LAUNCH_LOG, tests/fake/fake_cuda_launch.c): how many,
 * each checked to hold every one of want. */
static int launches_logged(const char *log, const char *sym, const char *const *want)
{
    FILE *f = fopen(log, "r");
    cr_assert_not_null(f, "no launch log %s", log);
    char line[512];
    int n = 0;
    size_t sl = strlen(sym);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, sym, sl) != 0 || line[sl] != ' ') continue;
        n++;
        for (int i = 0; want[i]; i++) cr_expect(strstr(line, want[i]), "'%s' not in the launch: %s", want[i], line);
    }
    fclose(f);
    return n;
}

/* A cluster launch and a cooperative launch PASS gates 1-4, and their
 * kernel is launched through cuLaunchKernelEx with the attributes the
 * contract asked for (the fake kernels fault without their cluster and
 * trap outside a cooperative launch, so the PASS says so too); the
 * sanitizer's exact launches carry the cluster as well; a plain launch still
 * goes through cuLaunchKernel with none. */
Test(gates_fake, cluster_and_cooperative_launches_pass_through_cuLaunchKernelEx, .timeout = 60)
{
    char log[256], env_log[300], san[PATH_MAX], env_san[PATH_MAX + 32];
    kc_tmp_path(log, sizeof log, "launches", "log");
    snprintf(env_log, sizeof env_log, "KC_FAKE_LAUNCH_LOG=%s", log);
    cr_assert_not_null(realpath("tests/fake/compute-sanitizer", san));
    snprintf(env_san, sizeof env_san, "KC_COMPUTE_SANITIZER=%s", san);
    kc_proc p = kc_run_fake((char *[]){ "run", "fakecluster.copy.f32", "fakecluster.copy.f32:sanitize",
                                         "fakecluster.wide.f32", "fakecoop.copy.f32", "fake.copy.f16", NULL },
                            (char *[]){ env_log, env_san, NULL }, 60);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "PASS", "fakecluster.copy.f32", KC_TEXTS("gates 1-4 on 5 cases"));
    kc_expect_item(p.out, "PASS", "fakecluster.copy.f32:sanitize", KC_TEXTS("launches of fakecluster.copy.f32"));
    kc_expect_item(p.out, "PASS", "fakecluster.wide.f32", KC_TEXTS("gates 1-4 on 5 cases"));
    kc_expect_item(p.out, "PASS", "fakecoop.copy.f32", KC_TEXTS("gates 1-4 on 5 cases"));
    kc_expect_item(p.out, "PASS", "fake.copy.f16", NULL);
    kc_proc_free(&p);
    /* 5 cases, each launched for gates 1 and 4, plus 2 exact launches (edge.33 and
     * model.4096) under each of the fake sanitizer's three tools */
    int n = launches_logged(log, "fake_cluster_f32",
                            KC_TEXTS("via=cuLaunchKernelEx", "block=256x1x1", "cooperative=0", "programmatic=0"));
    cr_expect_eq(n, 10 + 10 + 6, "%d launches of fake_cluster_f32", n);
    FILE *f = fopen(log, "r");
    char line[512];
    int eight = 0, sixteen = 0;
    while (f && fgets(line, sizeof line, f)) {
        eight += strstr(line, "fake_cluster_f32 ") == line && strstr(line, " cluster=8x1x1 nonportable=0 ") != NULL;
        sixteen += strstr(line, "fake_cluster_f32 ") == line && strstr(line, " cluster=16x1x1 nonportable=1 ") != NULL;
    }
    if (f) fclose(f);
    cr_expect_eq(eight, 16, "fakecluster.copy.f32's launches (gates and sanitizer) have its cluster of 8");
    cr_expect_eq(sixteen, 10, "fakecluster.wide.f32's have its non-portable cluster of 16");
    n = launches_logged(log, "fake_coop_f32",
                        KC_TEXTS("via=cuLaunchKernelEx", "grid=32x1x1 block=256x1x1", "cluster=0x0x0", "cooperative=1"));
    cr_expect_eq(n, 10, "%d launches of fake_coop_f32", n);
    n = launches_logged(log, "fake_copy_f16",
                        KC_TEXTS("via=cuLaunchKernel ", "cluster=0x0x0 nonportable=0 cooperative=0 programmatic=0"));
    cr_expect_gt(n, 0);
    unlink(log);
}

/* A cluster that does not divide the grid, a cluster above 8 blocks without
 * nonportable_cluster and a cooperative grid too large to be resident at
 * once FAIL gate 1 before the launch, naming the shape, the launch and the
 * numbers; their :limits items name the same per shape. */
Test(gates_fake, bad_clusters_and_cooperative_grids_fail_gate_1_naming_the_numbers, .timeout = 30)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakecluster.baddiv.f32*", "fakecluster.portable16.f32*",
                                        "fakecoop.toolarge.f32*", NULL }, NULL, 30);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "FAIL", "fakecluster.baddiv.f32",
                   KC_TEXTS("gate 1 (launch and fit): shape edge.33 (n=33), dist uniform: launch grid 1x1x1 block 256x1x1 smem 0 cluster 2x1x1: grid x 1 is no multiple of cluster x 2 (the driver refuses it: CUDA_ERROR_INVALID_CLUSTER_SIZE); 3 of 5 cases failed"));
    kc_expect_item(p.out, "FAIL", "fakecluster.portable16.f32",
                   KC_TEXTS("gate 1 (launch and fit): shape model.4096 (n=4096), dist uniform: launch grid 16x1x1 block 256x1x1 smem 0 cluster 16x1x1: a cluster of 16 blocks (256 threads, 0 bytes dynamic shared memory each) does not fit: 0 active clusters (cuOccupancyMaxActiveClusters), and above 8 blocks a cluster needs nonportable_cluster"));
    kc_expect_item(p.out, "FAIL", "fakecoop.toolarge.f32",
                   KC_TEXTS("gate 1 (launch and fit): shape model.4096 (n=4096), dist uniform: launch grid 64x1x1 block 256x1x1 smem 0 cooperative: 64 blocks cannot all be resident at once: 8 blocks/SM x 4 SMs = 32 (the driver refuses it: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE); 5 of 5 cases failed"));
    kc_expect_rerun(p.out, "fakecoop.toolarge.f32", "1");
    kc_expect_item(p.out, "LIMIT", "fakecluster.baddiv.f32:limits",
                   KC_TEXTS("2 problems: shape edge.33: grid 1x1x1 is no multiple of cluster 2x1x1; shape large.1e5: grid 391x1x1 is no multiple of cluster 2x1x1"));
    kc_expect_item(p.out, "LIMIT", "fakecluster.portable16.f32:limits",
                   KC_TEXTS("3 problems: shape model.4096: a cluster of 16 blocks does not fit (launch grid 16x1x1 block 256x1x1 smem 0 cluster 16x1x1: 0 active clusters, and above 8 blocks a cluster needs nonportable_cluster)"));
    kc_expect_item(p.out, "LIMIT", "fakecoop.toolarge.f32:limits",
                   KC_TEXTS("3 problems: shape model.4096: cooperative grid of 64 blocks > 8 blocks/SM x 4 SMs resident at once"));
    cr_expect(!strstr(p.out, "CUDA context is now unusable"), "refused before the launch, the context is fine:\n%s", p.out);
    kc_proc_free(&p);
}

/* The :limits item of a contract whose launches use a cluster reports the
 * active clusters per GPU and the shared memory per cluster at its largest
 * clustered shape; a contract without clusters reads as before. */
Test(gates_fake, limits_report_active_clusters_per_gpu, .timeout = 30)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakecluster.copy.f32:limits", "fakecluster.wide.f32:limits",
                                        "fakecoop.copy.f32:limits", NULL }, NULL, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "PASS", "fakecluster.copy.f32:limits",
                   KC_TEXTS("16 registers, 0+0 B shared, 0 B local, 8 blocks/SM at shape large.1e5; cluster 8x1x1 at shape large.1e5: 4 active clusters/GPU, 0 B shared/cluster; 3 shapes within the device's launch limits"));
    kc_expect_item(p.out, "PASS", "fakecluster.wide.f32:limits",
                   KC_TEXTS("; cluster 16x1x1 non-portable at shape large.1e5: 2 active clusters/GPU, 0 B shared/cluster; "));
    kc_expect_item(p.out, "PASS", "fakecoop.copy.f32:limits",
                   KC_TEXTS("16 registers, 0+0 B shared, 0 B local, 8 blocks/SM at shape large.1e5; 3 shapes within the device's launch limits"));
    kc_proc_free(&p);
}

/* Controls planted for gate 1 of these kinds are RED there: a build whose
 * registers grew leaves one block per SM, so a cluster of 8 no longer fits
 * the fake's 4 SMs, and four per SM, so a cooperative grid sized for eight
 * is no longer resident at once. */
Test(gates_fake, gate_1_controls_of_clusters_and_cooperative_grids_are_red, .timeout = 30)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakecluster.*:control.*", "fakecoop.*:control.*", NULL }, NULL, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "RED", "fakecluster.copy.f32:control.reg_growth",
                   KC_TEXTS("caught by gate 1 (launch and fit; planted for gate 1): shape model.4096 (n=4096), dist uniform: launch grid 16x1x1 block 256x1x1 smem 0 cluster 8x1x1: a cluster of 8 blocks (256 threads, 0 bytes dynamic shared memory each) does not fit: 0 active clusters (cuOccupancyMaxActiveClusters)"));
    kc_expect_item(p.out, "RED", "fakecoop.copy.f32:control.reg_growth",
                   KC_TEXTS("caught by gate 1 (launch and fit; planted for gate 1): shape model.4096 (n=4096), dist uniform: launch grid 32x1x1 block 256x1x1 smem 0 cooperative: 32 blocks cannot all be resident at once: 4 blocks/SM x 4 SMs = 16"));
    kc_proc_free(&p);
}

/* Every driver result of the limits item is checked: a query the driver
 * refuses is a problem that names it, not a figure of 0 (the 1025-thread
 * block of fakeedgeblock's edge shape, whose occupancy cannot be asked). */
Test(gates_fake, a_refused_limits_query_is_a_problem_naming_it, .timeout = 30)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeedgeblock.copy.f16:limits", NULL }, NULL, 30);
    kc_expect_item(p.out, "LIMIT", "fakeedgeblock.copy.f16:limits",
                   KC_TEXTS("2 problems: shape edge.1025: block of 1025 threads > 1024 allowed; cuOccupancyMaxActiveBlocksPerMultiprocessor failed: CUDA_ERROR_INVALID_VALUE (occupancy not measured)"));
    kc_proc_free(&p);
}

/* Shared memory is poisoned before every launch of a case: NaN bytes (0xFF)
 * before its first launch, large finite bytes (0x7B) before gate 4's
 * relaunch, so a kernel that reads shared memory no thread wrote through
 * fmaxf or fminf (which drop a NaN) differs between the two launches
 * (harness.h). One case of one kernel: two poison launches, one of each. */
Test(gates_fake, the_relaunch_poisons_shared_memory_with_finite_values, .timeout = 60)
{
    char log[256], env[300];
    snprintf(log, sizeof log, "%s/kc-poison.%ld", kc_test_tmpdir(), (long)getpid());
    snprintf(env, sizeof env, "KC_FAKE_POISON_LOG=%s", log);
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.axpy.f32", "--no-cache", NULL }, (char *[]){ env, NULL }, 30);
    cr_expect_eq(p.status, 0, "%s%s", p.out, p.err);
    const char *l = kc_out_file(log);
    cr_assert_not_null(l, "no poison launch logged");
    int nan = kc_out_count(l, "poison ffffffff"), finite = kc_out_count(l, "poison 7b7b7b7b");
    cr_expect_gt(nan, 0, "%s", l);
    cr_expect_gt(finite, 0, "gate 4's relaunches: %s", l);
    cr_expect_eq(nan + finite, kc_out_count(l, "poison "), "no other pattern: %s", l);
    unlink(log);
    kc_proc_free(&p);
}

/* A sticky error that a function's lookup is the first call to see: the
 * line names the driver's error, not a missing kernel ("not looked up in",
 * where a control's broken build says "not found in"), and the context is
 * marked lost. */
Test(gates_fake, a_sticky_error_at_a_function_lookup_is_no_missing_kernel)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.copy.f16", NULL }, (char *[]){ "KC_FAKE_FUNC_LOST=fake_copy", NULL },
                            30);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "FAIL", "fake.copy.f16",
                   KC_TEXTS("gate 1 (launch and fit): function fake_copy_f16 not looked up in module fake_copy: "
                            "CUDA_ERROR_ILLEGAL_ADDRESS (the CUDA context is now unusable)"));
    kc_proc_free(&p);
}

/* A sticky error that a module's load is the first call to see (an earlier
 * fault): the item fails naming it, the context is marked lost, and the
 * process is replaced before the next GPU item, which then passes in a
 * fresh context; a :limits item that meets it likewise. */
Test(gates_fake, a_sticky_error_first_seen_at_a_module_load_replaces_the_process)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.copy.f16", "fake.copy.f16:limits", "fake.spill.f32", NULL },
                            (char *[]){ "KC_FAKE_LOAD_LOST=fake_copy", NULL }, 30);
    cr_expect_eq(p.status, 1, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *note = "loading module fake_copy failed: CUDA_ERROR_ILLEGAL_ADDRESS (fatbin for sm_90 + compute_90 PTX; "
                       "device is cc 9.0) (the CUDA context is now unusable)";
    kc_expect_item(p.out, "FAIL", "fake.copy.f16", KC_TEXTS(note));
    kc_expect_item(p.out, "LIMIT", "fake.copy.f16:limits", KC_TEXTS(note));
    cr_expect_eq(kc_out_count(p.out, "the CUDA context is unusable after that item; continuing in a fresh process\n"), 2,
                 "%s%s", p.out, p.err);
    kc_expect_item(p.out, "PASS", "fake.spill.f32", KC_TEXTS("gates 1-4 on 5 cases (3 shapes x up to 2 distributions)"));
    kc_proc_free(&p);
}
