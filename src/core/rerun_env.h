/* rerun_env.h — the environment a reproduction command carries. A failure
 * line's rerun command (and the sanitizer command of a :sanitize item) must
 * run as the failure did, and some of what decides a run is not on its
 * command line: which CUDA driver, NVML and library kernels it loaded, which
 * compute-sanitizer, how the sanitizer's tools ran, which GPUs the driver
 * showed (--device counts within CUDA_VISIBLE_DEVICES, which Slurm and
 * container runtimes set). Those variables, when set, go before the command
 * as shell assignments: "KC_LIBCUDA=build/libfake_cuda.so ./build/kcontract
 * run X --seed 1 --device 0". The list is --help's "environment", less what
 * changes no item's outcome (NO_COLOR). */
#ifndef KC_RERUN_ENV_H
#define KC_RERUN_ENV_H
#include <stddef.h>

/* The variables a rerun carries, NULL-terminated. */
extern const char *const kc_rerun_env_names[];

/* Reads one variable (NULL when unset); getenv in a run, a table in tests. */
typedef const char *(*kc_env_get_fn)(const char *name, void *ctx);

/* words[0..n) as one shell line, each quoted as shell_words.h says, after
 * " NAME=value" for every variable of kc_rerun_env_names that get finds set
 * (the value quoted the same way), the leading space dropped; cut at cap. */
void kc_rerun_line(const char *const *words, int n, kc_env_get_fn get, void *ctx, char *buf, size_t cap);

/* getenv, as a kc_env_get_fn. */
const char *kc_env_getenv(const char *name, void *ctx);
#endif
