/* report_text.h — text escaping shared by the reports: JSON string literals
 * and XML 1.0 character data / attribute values, reading the text as strict
 * UTF-8 (utf8.h: invalid sequences become U+FFFD, one byte at a time). */
#ifndef KC_REPORT_TEXT_H
#define KC_REPORT_TEXT_H
#include <stddef.h>
#include <stdio.h>
#include "utf8.h"

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
