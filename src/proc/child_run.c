/* child_run.c — one command under the supervisor (child_run.h). */
#include "child_run.h"

#include <errno.h>
#include <string.h>

#include "errmsg.h"
#include "supervisor.h"

typedef struct cctx {
    kc_child_line_fn fn;
    void *ctx;
    int status, done, interrupted;
} cctx;

static void on_line(void *ctx, kc_sup *s, kc_child *c, int stream, const char *line, size_t len, size_t cut)
{
    cctx *x = ctx;
    (void)s; (void)c; (void)cut;
    if (x->fn && stream != KC_SUP_RES) x->fn(x->ctx, stream == KC_SUP_ERR, line, len);
}

static void on_gone(void *ctx, kc_sup *s, kc_child *c)
{
    cctx *x = ctx;
    (void)s;
    x->status = c->wstatus;
    x->done = 1;
}

static void on_interrupted(void *ctx, kc_sup *s, int signo, int again, int signalled)
{
    cctx *x = ctx;
    (void)s; (void)again; (void)signalled;
    x->interrupted = signo > 0 ? signo : 1;
}

static const kc_sup_ops OPS = { on_line, on_gone, on_interrupted };

int kc_child_run(const char *path, char *const argv[], kc_child_line_fn fn, void *ctx, int *interrupted, char *err,
                 size_t cap)
{
    cctx x = { .fn = fn, .ctx = ctx };
    kc_sup s;
    if (kc_sup_init(&s, 1, &OPS, &x, 0) < 0) return kc_errf(err, cap, "cannot start %s: %s", argv[0], strerror(errno));
    if (kc_sup_start(&s, 0, path, argv, 0) < 0) {
        int e = errno;
        kc_sup_free(&s);
        return kc_errf(err, cap, "cannot start %s: %s", argv[0], strerror(e));
    }
    while (kc_sup_live(&s))
        if (kc_sup_wait(&s, 0)) {
            int e = errno;
            kc_sup_free(&s);
            return kc_errf(err, cap, "waiting for %s failed: %s", argv[0], strerror(e));
        }
    kc_sup_free(&s);
    if (interrupted) *interrupted = x.interrupted;
    return x.done ? x.status : kc_errf(err, cap, "%s: its end was not seen", argv[0]);
}
