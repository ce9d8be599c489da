/* strbuf.c — lines built in fixed buffers (strbuf.h). */
#include "strbuf.h"

#include <stdio.h>
#include <string.h>

void kc_sb_init(kc_strbuf *b, char *buf, size_t cap)
{
    *b = (kc_strbuf){ buf, buf ? cap : 0, 0, 0 };
    if (b->cap) buf[0] = 0;
}

void kc_sb_vprintf(kc_strbuf *b, const char *fmt, va_list ap)
{
    if (!b->cap) {
        b->over = 1;
        return;
    }
    size_t room = b->cap - b->len;   /* >= 1: len < cap always */
    int n = vsnprintf(b->buf + b->len, room, fmt, ap);
    if (n < 0) {
        b->buf[b->len] = 0;
        b->over = 1;
        return;
    }
    if ((size_t)n >= room) {
        b->len = b->cap - 1;
        b->over = 1;
    } else {
        b->len += (size_t)n;
    }
}

void kc_sb_printf(kc_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kc_sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void kc_strcatf(char *buf, size_t cap, const char *fmt, ...)
{
    if (!buf || !cap) return;
    size_t n = strnlen(buf, cap);
    if (n + 1 >= cap) return;
    kc_strbuf b = { buf, cap, n, 0 };
    va_list ap;
    va_start(ap, fmt);
    kc_sb_vprintf(&b, fmt, ap);
    va_end(ap);
}
