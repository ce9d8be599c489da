/* gpu.c — what the parts of a process's GPU session share (gpu.h): a
 * sticky error marks the session lost. Opening and closing it is
 * gpu_open.c's. */
#include "gpu.h"


int kc_gpu_lost_if_sticky(kc_gpu *gpu, CUresult r)
{
    if (!kc_cuda_error_is_sticky(r)) return 0;
    gpu->lost = 1;
    return 1;
}
