/* suite.c — running a standalone suite: its context and failure messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

const kc_device *kc_suite_device(const kc_suite_ctx *ctx) { return ctx->dev; }

int kc_suite_run(const kc_suite *s, const kc_device *dev, char *msg, size_t cap)
{
    kc_suite_ctx ctx = { .dev = dev };
    int rc = s->run(&ctx);
    if (rc || ctx.failed) {
        snprintf(msg, cap, "%s", ctx.msg[0] ? ctx.msg : "returned nonzero without a message");
        return 1;
    }
    msg[0] = 0;
    return 0;
}
