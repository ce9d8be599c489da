/* utf8.h — strict UTF-8 decoding, one code point at a time: overlong forms,
 * surrogates, code points past U+10FFFF and truncated sequences are invalid
 * and read as U+FFFD, one byte at a time. The reports' escaping
 * (report_text.h) and the item lines' (line_text.h) read text through it. */
#ifndef KC_UTF8_H
#define KC_UTF8_H
#include <stddef.h>

#define KC_UTF8_BAD 0xFFFDu

/* Decodes one code point of s[0..n) (n >= 1) into *cp; returns the bytes it
 * used (1 for an invalid byte, *cp = KC_UTF8_BAD). */
size_t kc_utf8_next(const unsigned char *s, size_t n, unsigned *cp);
#endif
