/* line_text.h — text that stays on its line. What an item contributes to its
 * state line and to the indented lines under it (a gate's or a suite's
 * message, a tool's words, a dead worker's last lines) is written so that no
 * byte of it ends, splits or colours the line on a terminal or in a log a
 * line-oriented reader greps: control bytes and invalid UTF-8 are escaped.
 * And lines under one item are kept whole under a byte cap: what does not
 * fit is cut at a line boundary and counted on a marker line, never cut
 * mid-line, so the next item's line always starts a line of its own. */
#ifndef KC_LINE_TEXT_H
#define KC_LINE_TEXT_H
#include <stdarg.h>
#include <stddef.h>

/* Escapes src[0..n) (stopping at a NUL) into dst[0..cap), NUL-terminated:
 * newline, carriage return and tab as the two characters \n \r \t; every
 * other C0 control byte, DEL, each byte of a C1 control (U+0080..U+009F,
 * which some terminals obey) and each byte of invalid UTF-8 as \xHH (ESC is
 * \x1b); everything else, valid UTF-8 included, as it is. A backslash is not
 * doubled: the text is for reading, and escaping escaped text changes
 * nothing, so every layer a message passes may escape it again. Cut (when
 * cap is too small) between escapes and whole UTF-8 sequences, never inside
 * one. Returns how many bytes of the escaped text did not fit (0: all of it
 * is in dst). */
size_t kc_escape_line(char *dst, size_t cap, const char *src, size_t n);
/* The length of src[0..n)'s escaped text (without a NUL). */
size_t kc_escaped_len(const char *src, size_t n);
/* Escapes the NUL-terminated text in buf[0..cap) in place (cut as above at
 * cap - 1 when it grows past it). */
void kc_escape_in_place(char *buf, size_t cap);

/* Lines kept whole under a byte cap: buf[0..len) holds whole lines, each
 * ended by '\n' and escaped; a line that does not fit, and every line after
 * it, is cut and counted. KC_LINES_MARK_ROOM bytes at the end are kept for
 * the marker line (kc_lines_end). */
typedef struct kc_lines {
    char *buf;
    size_t cap, len;
    int cut_lines;            /* lines that did not fit */
    size_t cut_bytes;         /* their bytes, escaped, with their '\n' */
} kc_lines;
#define KC_LINES_MARK_ROOM 192

/* l writes into buf[0..cap), starting empty; cap <= KC_LINES_MARK_ROOM (or
 * buf NULL) keeps no line, only counts them. */
void kc_lines_init(kc_lines *l, char *buf, size_t cap);
/* Adds one line: the printf-formatted text escaped (a '\n' in it included,
 * so it stays one line) and a '\n'; whole, or cut and counted. */
void kc_lines_add(kc_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kc_lines_vadd(kc_lines *l, const char *fmt, va_list ap);
/* Ends the text: when lines were cut, a marker line `<indent>[... N more
 * line(s), B bytes, cut: the lines under one item are capped at C bytes]`. */
void kc_lines_end(kc_lines *l, const char *indent);
#endif
