/* suite.h — the harness side of standalone suites (kcontract.h's KC_SUITE). */
#ifndef KC_SUITE_H
#define KC_SUITE_H
#include <stddef.h>
#include "kcontract.h"

struct kc_suite_ctx {
    const kc_device *dev;   /* NULL when there is no GPU */
    int failed;
    char msg[2048];         /* the first failure message */
};

/* Runs s; returns 0 on pass, 1 on failure with the message in msg. */
int kc_suite_run(const kc_suite *s, const kc_device *dev, char *msg, size_t cap);
#endif
