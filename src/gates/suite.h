/* suite.h — the harness side of standalone suites (kcontract.h's KC_SUITE). */
#ifndef KC_SUITE_H
#define KC_SUITE_H
#include <stddef.h>
#include "kcontract.h"

struct kc_gpu;

struct kc_suite_ctx {
    struct kc_gpu *gpu;     /* the process's GPU session, NULL when there is no GPU */
    int failed;
    char msg[2048];         /* the first failure message */
};

/* Runs s on gpu (NULL: none); returns 0 on pass, 1 on failure with the
 * message in msg. */
int kc_suite_run(const kc_suite *s, struct kc_gpu *gpu, char *msg, size_t cap);
/* The whole GPU session, for the harness's own suites (in suites/, testing
 * the harness on the device); NULL without a GPU. Contracts' suites use
 * kc_suite_device. */
struct kc_gpu *kc_suite_gpu(const kc_suite_ctx *ctx);
#endif
