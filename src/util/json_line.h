/* json_line.h — reads fields of one flat JSON object on one line, as this
 * program's own reports write them (kc_json_string, report_text.h; the
 * mutation report's lines, mutate_report.h): top-level keys with string,
 * number, literal or flat array values. Not a general JSON parser: nested
 * objects are refused as malformed. */
#ifndef KC_JSON_LINE_H
#define KC_JSON_LINE_H
#include <stddef.h>

/* The string value of top-level key `key` of the object on `line`, decoded
 * (the escapes of RFC 8259, \uXXXX as UTF-8, surrogate pairs joined) into
 * out. Returns 0; 1 when the key is absent; -1 when the line is malformed,
 * the value is not a string or does not fit out (cap bytes with its NUL). */
int kc_json_line_str(const char *line, const char *key, char *out, size_t cap);

/* The integer value of top-level key `key`: 0, 1 absent, -1 malformed or not
 * an integer. */
int kc_json_line_int(const char *line, const char *key, long *v);

/* The flat array of strings that is the value of top-level key `key`,
 * decoded one after another into out, each with its NUL; *n counts them.
 * Returns 0; 1 when the key is absent; -1 when the line is malformed, the
 * value is not an array of strings, or they do not fit out (cap bytes;
 * strlen(line) + 1 always suffices). */
int kc_json_line_strs(const char *line, const char *key, char *out, size_t cap, int *n);

#endif
