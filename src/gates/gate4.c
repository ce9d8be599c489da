/* gate4.c — gate 4, determinism: a relaunch of the case on a second
 * buffer set, at other addresses and with other poison, must give outputs
 * bitwise identical to the first launch's. */
#include "gate_checks.h"

#include <stdio.h>

#include "clock.h"
#include "dtype.h"
#include "guard.h"
#include "harness.h"
#include "launch.h"

int kc_gate4(kc_gpu *gpu, const kc_kernels *K, kc_case *k)
{
    double t0 = kc_now_s();
    CUresult r = kc_case_upload(gpu, k, 1, KC_POISON_B);
    if (r != CUDA_SUCCESS)     /* the harness's failure, not the kernel's: never a catch */
        return kc_case_fail(k, KC_INTERNAL, "allocating or filling the relaunch's buffers failed: %s",
                            kc_cuda_error_name(&gpu->cu, r));
    if (kc_case_launch(gpu, K, k, 1, 4)) return 4;
    double t1 = kc_now_s();
    k->time->gpu_s += t1 - t0;
    int g = 0, slot[KC_MAX_ARGS];
    kc_check_batch b;                       /* every output's compare, one readback */
    kc_batch_begin(&b);
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        slot[a] = kc_arg_owns_buffer(ar) && ar->role != KC_IN
                      ? kc_batch_count_differs(gpu, &b, kc_case_data(k, 0, a), kc_case_data(k, 1, a), k->count[a],
                                               kc_dtype_size(ar->dtype))
                      : -1;
    }
    if ((r = kc_batch_finish(gpu, &b)) != CUDA_SUCCESS)
        g = kc_case_cuda_failed(gpu, k, r, "comparing the relaunch's outputs of", k->c->name);
    for (int a = 0; !g && a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (slot[a] < 0 || !b.count[slot[a]]) continue;
        size_t first = b.first[slot[a]], n = b.count[slot[a]];
        char v1[64], v2[64];
        kc_value_str(ar->dtype, kc_case_value_at(gpu, k, 0, a, first), v1, sizeof v1);
        kc_value_str(ar->dtype, kc_case_value_at(gpu, k, 1, a, first), v2, sizeof v2);
        g = kc_case_fail(k, 4, "relaunch on other buffers differs: %zu of %zu elements of %s, first %s[%zu] %s then %s "
                         "(a race, or a read of memory no thread wrote: the relaunch's shared memory held large "
                         "finite values instead of NaN)", n, k->count[a], ar->name, ar->name, first, v1, v2);
    }
    k->time->checks_s += kc_now_s() - t1;
    return g;
}
