/* linebuf.c — owns line splitting with the 64 KiB cut (see linebuf.h). */
#include "linebuf.h"

#include <stdlib.h>
#include <string.h>

int kc_linebuf_init(kc_linebuf *lb)
{
    lb->len = lb->cut = 0;
    lb->buf = malloc(KC_LINE_MAX + 1);
    return lb->buf ? 0 : -1;
}

void kc_linebuf_free(kc_linebuf *lb)
{
    free(lb->buf);
    lb->buf = NULL;
}

/* Keeps what fits of data[0..n), counts the rest as cut. */
static void keep(kc_linebuf *lb, const char *data, size_t n)
{
    size_t room = KC_LINE_MAX - lb->len, k = n < room ? n : room;
    memcpy(lb->buf + lb->len, data, k);
    lb->len += k;
    lb->cut += n - k;
}

static void emit(kc_linebuf *lb, kc_line_fn fn, void *ctx)
{
    lb->buf[lb->len] = 0;
    fn(ctx, lb->buf, lb->len, lb->cut);
    lb->len = lb->cut = 0;
}

void kc_linebuf_feed(kc_linebuf *lb, const char *data, size_t n, kc_line_fn fn, void *ctx)
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        size_t part = nl ? (size_t)(nl - data) : n;
        keep(lb, data, part);
        if (!nl) return;
        emit(lb, fn, ctx);
        data += part + 1;
        n -= part + 1;
    }
}

void kc_linebuf_flush(kc_linebuf *lb, kc_line_fn fn, void *ctx)
{
    if (lb->len || lb->cut) emit(lb, fn, ctx);
}
