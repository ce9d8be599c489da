/* linebuf.h — splitting a byte stream (a child's stdout or stderr) into
 * lines, keeping at most KC_LINE_MAX bytes of each: a longer line is handed
 * on cut, with the count of bytes dropped, and the stream goes on (the writer
 * is never stopped, and the next line is whole again). */
#ifndef KC_LINEBUF_H
#define KC_LINEBUF_H
#include <stddef.h>

#define KC_LINE_MAX 65536   /* 64 KiB kept per line */

typedef struct kc_linebuf {
    char *buf;              /* KC_LINE_MAX + 1 bytes (NUL-terminated when handed on) */
    size_t len;             /* bytes kept of the current line */
    size_t cut;             /* bytes of the current line dropped */
} kc_linebuf;

/* Called once per line: line[0..len) kept (NUL-terminated, no '\n'), cut
 * bytes dropped after it (0: the line is whole). */
typedef void (*kc_line_fn)(void *ctx, const char *line, size_t len, size_t cut);

int kc_linebuf_init(kc_linebuf *lb);        /* 0, or -1 out of memory */
void kc_linebuf_free(kc_linebuf *lb);
/* Feeds n bytes; calls fn for every line they complete. */
void kc_linebuf_feed(kc_linebuf *lb, const char *data, size_t n, kc_line_fn fn, void *ctx);
/* At end of stream: hands on a last line that had no '\n' (if any). */
void kc_linebuf_flush(kc_linebuf *lb, kc_line_fn fn, void *ctx);
#endif
