/* report_text.h — text escaping shared by the reports: strict UTF-8 decoding
 * (overlong forms, surrogates, code points past U+10FFFF and truncated
 * sequences are invalid and become U+FFFD, one byte at a time), JSON string
 * literals and XML 1.0 character data / attribute values. */
#ifndef KC_REPORT_TEXT_H
#define KC_REPORT_TEXT_H
#include <stddef.h>
#include <stdio.h>

#define KC_UTF8_BAD 0xFFFDu

/* Decodes one code point of s[0..n) (n >= 1) into *cp; returns the bytes it
 * used (1 for an invalid byte, *cp = KC_UTF8_BAD). */
size_t kc_utf8_next(const unsigned char *s, size_t n, unsigned *cp);
/* Writes s (at most max bytes, stopping at NUL) as a JSON string literal with
 * its quotes: ", \ and control characters escaped (\n, \t, ..., \u0001),
 * DEL and U+2028/U+2029 as \u escapes, invalid UTF-8 as \ufffd. */
void kc_json_string(FILE *out, const char *s, size_t max);
/* Writes s (at most max bytes, stopping at NUL) as XML 1.0 text (attr 0) or
 * as an attribute value without its quotes (attr 1): & < > escaped (and " '
 * tab, newline, carriage return in attributes, so readers keep them); invalid
 * UTF-8 and characters XML 1.0 forbids (C0 controls other than tab, newline
 * and carriage return; U+FFFE, U+FFFF) become U+FFFD. */
void kc_xml_text(FILE *out, const char *s, size_t max, int attr);
#endif
