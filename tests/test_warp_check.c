/* test_warp_check.c — the warp-mask check build (include/kcontract_warp_check.cuh):
 * a kernel's warp primitives, pre-included with -include as kcontract.mk and
 * the CMake package build every module, compile (the default __syncwarp()
 * too) and each checks its mask: the PTX traps, where the plain build has no
 * trap. nvcc to PTX only, two small builds. What the trap does on a GPU is
 * the H200 receipt's (docs/receipts/2026-12-03-h200-mutate-final). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/run_output.h"
#include "support/spawn.h"

static const char *kernel =
    "__global__ void k(float *o, unsigned *b)\n"
    "{\n"
    "    float v = o[threadIdx.x];\n"
    "    v += __shfl_xor_sync(0x7fffffffu, v, 1);\n"
    "    v += __shfl_down_sync(0xffffffffu, v, 2, 16);\n"
    "    b[threadIdx.x] = __ballot_sync(0xffffffffu, v > 0.f);\n"
    "    __syncwarp();\n"
    "    __syncwarp(0xffffffffu);\n"
    "    o[threadIdx.x] = v;\n"
    "}\n";

/* nvcc [-include the check] -ptx of the kernel; the PTX's text (static). */
static const char *ptx_of(const char *dir, int check)
{
    char cu[600], ptx[600];
    snprintf(cu, sizeof cu, "%s/k.cu", dir);
    snprintf(ptx, sizeof ptx, "%s/k%d.ptx", dir, check);
    kc_write_file(cu, kernel);
    const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc";
    /* through env: $NVCC may be a name on PATH (kc_spawn runs a path) */
    char *with[] = { "/usr/bin/env", (char *)nvcc, "-arch=sm_90", "-Iinclude", "-include", "include/kcontract_warp_check.cuh", "-ptx",
                     "-o", ptx, cu, NULL };
    char *without[] = { "/usr/bin/env", (char *)nvcc, "-arch=sm_90", "-ptx", "-o", ptx, cu, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(check ? with : without, NULL, 120, &p), 0);
    cr_assert_eq(p.status, 0, "nvcc failed (%s):\n%s%s", check ? "with the check" : "plain", p.out, p.err);
    kc_proc_free(&p);
    return kc_out_file(ptx);
}

Test(warp_check, every_warp_primitive_checks_its_mask_and_traps, .timeout = 240) {
    char dir[512];
    kc_tmp_dir(dir, sizeof dir, "warpchk");
    const char *plain = ptx_of(dir, 0);
    cr_expect(!strstr(plain, "trap;"), "the plain build traps already:\n%s", plain);
    cr_expect(strstr(plain, "shfl.sync.bfly"), "no shuffle in the plain PTX:\n%s", plain);
    const char *checked = ptx_of(dir, 1);
    cr_expect(strstr(checked, "trap;"), "the checked build has no trap:\n%s", checked);
    cr_expect(strstr(checked, "%laneid"), "the checked build reads no lane id:\n%s", checked);
    cr_expect(strstr(checked, "shfl.sync.bfly") && strstr(checked, "shfl.sync.down") &&
              strstr(checked, "vote.sync.ballot") && strstr(checked, "bar.warp.sync"),
              "a primitive is gone from the checked build:\n%s", checked);
    kc_rm_rf(dir);
}
