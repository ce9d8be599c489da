/* strbuf.h — building a line in a fixed buffer (a TALLY or SUMMARY line, a
 * merge's list of problems, a failure message): appends are cut at the
 * buffer's end, the text stays NUL-terminated, and a cut is remembered, so a
 * writer checks once at the end instead of after every append. */
#ifndef KC_STRBUF_H
#define KC_STRBUF_H
#include <stdarg.h>
#include <stddef.h>

/* buf[0..cap) holds len characters and a NUL; over: something was cut (or
 * there is no buffer: buf NULL or cap 0, when every append only sets over). */
typedef struct kc_strbuf {
    char *buf;
    size_t cap, len;
    int over;
} kc_strbuf;

/* b writes into buf[0..cap), starting empty (buf[0] = 0 when cap > 0). */
void kc_sb_init(kc_strbuf *b, char *buf, size_t cap);
/* Appends the printf-formatted text, cut at the buffer's end. */
void kc_sb_printf(kc_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kc_sb_vprintf(kc_strbuf *b, const char *fmt, va_list ap);
/* Appends to the NUL-terminated string already in buf[0..cap), cut there:
 * for a message field built in a few steps. */
void kc_strcatf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
