/* line_text.c — text that stays on its line (line_text.h). */
#include "line_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* The escaped form of the code point (or invalid byte) at s[0..k), k from
 * kc_utf8_next, into out (at least 17 bytes: four \xHH); returns its length. */
static size_t escape_one(const unsigned char *s, size_t k, unsigned cp, char *out)
{
    static const char hex[] = "0123456789abcdef";
    const char *named = cp == '\n' ? "\\n" : cp == '\r' ? "\\r" : cp == '\t' ? "\\t" : NULL;
    if (named) {
        memcpy(out, named, 2);
        return 2;
    }
    int bad = cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || (cp == KC_UTF8_BAD && k == 1 && s[0] >= 0x80);
    if (!bad) {
        memcpy(out, s, k);
        return k;
    }
    size_t n = 0;
    for (size_t i = 0; i < k; i++) {
        out[n++] = '\\';
        out[n++] = 'x';
        out[n++] = hex[s[i] >> 4];
        out[n++] = hex[s[i] & 15];
    }
    return n;
}

size_t kc_escape_line(char *dst, size_t cap, const char *src, size_t n)
{
    const unsigned char *s = (const unsigned char *)src;
    n = src ? strnlen(src, n) : 0;
    size_t len = 0, over = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = kc_utf8_next(s + i, n - i, &cp);
        char one[17];
        size_t m = escape_one(s + i, k, cp, one);
        if (!over && cap && len + m < cap) {
            memcpy(dst + len, one, m);
            len += m;
        } else {
            over += m;
        }
        i += k;
    }
    if (cap) dst[len] = 0;
    return over;
}

size_t kc_escaped_len(const char *src, size_t n)
{
    const unsigned char *s = (const unsigned char *)src;
    n = src ? strnlen(src, n) : 0;
    size_t len = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = kc_utf8_next(s + i, n - i, &cp);
        char one[17];
        len += escape_one(s + i, k, cp, one);
        i += k;
    }
    return len;
}

void kc_escape_in_place(char *buf, size_t cap)
{
    if (!buf || !cap) return;
    size_t n = strnlen(buf, cap);
    if (n == cap) buf[--n] = 0;
    if (kc_escaped_len(buf, n) == n) return;     /* nothing to escape: the usual case */
    char *tmp = malloc(n + 1);
    if (!tmp) {                                  /* still one line: the bytes that need it become '?' */
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7F) buf[i] = '?';
        return;
    }
    memcpy(tmp, buf, n + 1);
    kc_escape_line(buf, cap, tmp, n);
    free(tmp);
}

void kc_lines_init(kc_lines *l, char *buf, size_t cap)
{
    *l = (kc_lines){ buf, buf ? cap : 0, 0, 0, 0 };
    if (l->cap) buf[0] = 0;
}

void kc_lines_vadd(kc_lines *l, const char *fmt, va_list ap)
{
    char small[1024], *text = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (text = malloc((size_t)n + 1)) != NULL) vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    if (n < 0) n = 0, small[0] = 0, text = small;
    size_t len = text ? kc_escaped_len(text, (size_t)n) + 1 : (size_t)n + 1;     /* with its '\n' */
    if (text && l->cut_lines == 0 && l->cap > KC_LINES_MARK_ROOM && l->len + len < l->cap - KC_LINES_MARK_ROOM) {
        kc_escape_line(l->buf + l->len, len, text, (size_t)n);
        l->len += len - 1;
        l->buf[l->len++] = '\n';
        l->buf[l->len] = 0;
    } else {
        l->cut_lines++;
        l->cut_bytes += len;
    }
    if (text != small) free(text);
}

void kc_lines_add(kc_lines *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kc_lines_vadd(l, fmt, ap);
    va_end(ap);
}

void kc_lines_end(kc_lines *l, const char *indent)
{
    if (!l->cut_lines || l->cap <= KC_LINES_MARK_ROOM) return;
    size_t room = l->cap - l->len;               /* > KC_LINES_MARK_ROOM */
    int n = snprintf(l->buf + l->len, room, "%.16s[... %d more line%s, %zu bytes, cut: the lines under one item are capped at %zu bytes]\n",
                     indent ? indent : "", l->cut_lines, l->cut_lines == 1 ? "" : "s", l->cut_bytes, l->cap);
    if (n < 0 || (size_t)n >= room) {            /* cannot happen with a 16-byte indent; still a whole line */
        l->len = l->cap - 2;
        l->buf[l->len++] = '\n';
        l->buf[l->len] = 0;
        return;
    }
    l->len += (size_t)n;
}
