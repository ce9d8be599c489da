/* cuda_env.c — owns which environment variables of the CUDA stack change a
 * verdict (cuda_env.h). */
#include "cuda_env.h"

#include <string.h>

#include "seed.h"

int kc_cuda_env_entry(const char *e)
{
    if (strncmp(e, "CUDA_VISIBLE_DEVICES=", 21) == 0) return 0;
    return strncmp(e, "CUDA_", 5) == 0 || strncmp(e, "CUBLAS", 6) == 0 || strncmp(e, "NVIDIA_TF32_OVERRIDE=", 21) == 0;
}

uint64_t kc_cuda_env_hash(void)
{
    extern char **environ;
    uint64_t sum = 0;
    for (char **e = environ; e && *e; e++)
        if (kc_cuda_env_entry(*e)) sum += kc_mix64(kc_hash_str(*e));
    return sum;
}
