/* rerun_env.c — the environment a reproduction command carries (rerun_env.h). */
#include "rerun_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell_words.h"

const char *const kc_rerun_env_names[] = {
    "CUDA_VISIBLE_DEVICES", "KC_LIBCUDA", "KC_LIBNVML", "KC_LIBDIR", "KC_CUDA_SCHED",
    "KC_COMPUTE_SANITIZER", "KC_SANITIZE_SESSIONS", "KC_SANITIZE_TIMEOUT_S",
    "KC_MUTANTS",                       /* a mutation run's mutants (mutant_images.h) */
    "KC_FAULT_LOSE_CONTEXT_AFTER",      /* a test hook: it makes items fail (item_run.c) */
    NULL,
};

const char *kc_env_getenv(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

void kc_rerun_line(const char *const *words, int n, kc_env_get_fn get, void *ctx, char *buf, size_t cap)
{
    int len = 0;
    if (!cap) return;
    buf[0] = 0;
    for (int i = 0; get && kc_rerun_env_names[i]; i++) {
        const char *v = get(kc_rerun_env_names[i], ctx);
        if (v) kc_shell_append_assign(buf, cap, &len, kc_rerun_env_names[i], v);
    }
    for (int i = 0; i < n; i++) kc_shell_append(buf, cap, &len, words[i]);
    if (len > 0 && (size_t)len < cap) memmove(buf, buf + 1, (size_t)len);   /* the leading space */
}
