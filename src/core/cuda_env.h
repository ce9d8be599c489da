/* cuda_env.h — the environment variables the CUDA stack reads that can
 * change a verdict and no command line shows: the results cache keys every
 * item with them (result_cache.h). */
#ifndef KC_CUDA_ENV_H
#define KC_CUDA_ENV_H
#include <stddef.h>
#include <stdint.h>

/* Whether the environment entry ("NAME=value") is one the CUDA stack reads
 * and a verdict may change with: the driver's and runtime's CUDA_* (JIT
 * instead of the embedded code: CUDA_FORCE_PTX_JIT; CUDA_LAUNCH_BLOCKING),
 * cuBLAS's (CUBLAS_WORKSPACE_CONFIG decides whether its results repeat:
 * gate 4) and NVIDIA_TF32_OVERRIDE (TF32 math in cuBLAS and cuDNN: gate 3).
 * Not CUDA_VISIBLE_DEVICES: the device it selects is keyed (a static
 * shard's own value would split the keys); nor the toolkit's and the JIT
 * cache's places (CUDA_HOME, CUDA_PATH, CUDA_ROOT, CUDA_TOOLKIT_ROOT_DIR,
 * CUDA_CACHE_PATH, CUDA_CACHE_MAXSIZE) or a container image's CUDA_VERSION
 * label, which no driver call computes with and which differ from host to
 * host. */
int kc_cuda_env_entry(const char *e);
/* A hash of those entries of this process's environment, in any order;
 * 0 when none is set. */
uint64_t kc_cuda_env_hash(void);
/* The shell command that lists those entries on a host ("env | grep -E
 * '^(CUDA_|...)' | grep -vE '^(CUDA_VISIBLE_DEVICES|...)=' | sort"), sorted
 * so that two hosts' outputs compare with diff, for a
 * refusal to suggest; written into buf (cap bytes, cut if short) and
 * returned. */
const char *kc_cuda_env_grep(char *buf, size_t cap);
#endif
