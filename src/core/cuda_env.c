/* cuda_env.c — owns which environment variables of the CUDA stack change a
 * verdict (cuda_env.h). */
#include "cuda_env.h"

#include <stdio.h>
#include <string.h>

#include "seed.h"

/* CUDA_* variables no driver, runtime or cuBLAS call reads to compute: the
 * device selection (keyed apart) and where the toolkit, or the JIT's cache,
 * lies, and the toolkit version a container image labels itself with
 * (CUDA_VERSION): build tools' and images' variables, which differ from host
 * to host; the driver's own version is keyed apart. */
static const char *const NOT_READ[] = {
    "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR", "CUDA_CACHE_PATH",
    "CUDA_CACHE_MAXSIZE", "CUDA_VERSION", NULL,
};

int kc_cuda_env_entry(const char *e)
{
    for (const char *const *n = NOT_READ; *n; n++) {
        size_t len = strlen(*n);
        if (strncmp(e, *n, len) == 0 && e[len] == '=') return 0;
    }
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

const char *kc_cuda_env_grep(char *buf, size_t cap)
{
    size_t len = 0;
    int w = snprintf(buf, cap, "env | grep -E '^(CUDA_|CUBLAS|NVIDIA_TF32_OVERRIDE)' | grep -vE '^(");
    for (const char *const *n = NOT_READ; w > 0 && *n; n++) {
        len += (size_t)w;
        if (len >= cap) break;
        w = snprintf(buf + len, cap - len, "%s%s", n == NOT_READ ? "" : "|", *n);
    }
    if (w > 0 && (len += (size_t)w) < cap) snprintf(buf + len, cap - len, ")=' | sort");
    return buf;
}
