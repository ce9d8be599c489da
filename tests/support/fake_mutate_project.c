/* fake_mutate_project.c — owns the fake mutate project of the tests
 * (fake_mutate_project.h). */
#include "fake_mutate_project.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/stat.h>

#include "run_output.h"

const char KC_FAKE_AXPY_SOURCE[] = "__global__ void fake_axpy_f32(float *y, const float *x, float a, int n)\n"
                                   "{\n"
                                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    if (i < n) y[i] = a * x[i] + y[i];\n"
                                   "}\n";

static const char MAKE_SCRIPT[] =
    "#!/bin/sh\n"
    "for t in \"$@\"; do\n"
    "  case \"$t\" in\n"
    "    -*|*=*) ;;\n"
    "    *@orig.cubin) { echo 'KCFAKE fake_axpy orig'; cat \"${t%%.cubin}.cu\"; } > \"$t\" ;;\n"
    "    *.cubin) { echo 'KCFAKE fake_axpy %s'; cat \"${t%%.cubin}.cu\"; } > \"$t\" ;;\n"
    "    *.fatbin) head -n 1 \"${t%%.fatbin}.cubin\" > \"$t\" ;;\n"
    "  esac\n"
    "done\n";

void kc_fake_mutate_project(const char *dir, const char *control, char *src, size_t src_cap, char *make,
                            size_t make_cap)
{
    snprintf(src, src_cap, "%s/src", dir);
    cr_assert_eq(mkdir(src, 0777), 0, "mkdir %s", src);
    char path[1024], script[1024];
    snprintf(path, sizeof path, "%s/fake_axpy.cu", src);
    kc_write_file(path, KC_FAKE_AXPY_SOURCE);
    snprintf(make, make_cap, "%s/make.sh", dir);
    snprintf(script, sizeof script, MAKE_SCRIPT, control);
    kc_write_file(make, script);
    cr_assert_eq(chmod(make, 0755), 0, "chmod %s", make);
}
