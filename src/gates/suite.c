/* suite.c — running a standalone suite: its context and failure messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "suite.h"

int kc_suite_fail(kc_suite_ctx *ctx, const char *fmt, ...)
{
    if (ctx->failed++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
        va_end(ap);
    }
    return 1;
}

const kc_device *kc_suite_device(const kc_suite_ctx *ctx) { return ctx->gpu ? &ctx->gpu->dev : NULL; }

struct kc_gpu *kc_suite_gpu(const kc_suite_ctx *ctx) { return ctx->gpu; }

int kc_suite_run(const kc_suite *s, struct kc_gpu *gpu, char *msg, size_t cap)
{
    kc_suite_ctx ctx = { .gpu = gpu };
    int rc = s->run(&ctx);
    if (rc || ctx.failed) {
        snprintf(msg, cap, "%s", ctx.msg[0] ? ctx.msg : "returned nonzero without a message");
        return 1;
    }
    msg[0] = 0;
    return 0;
}
