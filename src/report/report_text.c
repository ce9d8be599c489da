/* report_text.c — JSON / XML escaping (report_text.h). */
#include "report_text.h"

#include <string.h>

void kc_json_string(FILE *out, const char *str, size_t max)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = str ? strnlen(str, max) : 0;
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = kc_utf8_next(s + i, n - i, &cp);
        switch (cp) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (cp < 0x20 || cp == 0x7F || cp == 0x2028 || cp == 0x2029 || (cp == KC_UTF8_BAD && k == 1))
                fprintf(out, "\\u%04x", cp);
            else
                fwrite(s + i, 1, k, out);
        }
        i += k;
    }
    fputc('"', out);
}

void kc_xml_text(FILE *out, const char *str, size_t max, int attr)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = str ? strnlen(str, max) : 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = kc_utf8_next(s + i, n - i, &cp);
        if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE || cp == 0xFFFF)
            cp = KC_UTF8_BAD, k = k ? k : 1;
        switch (cp) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs(attr ? "&quot;" : "\"", out); break;
        case '\'': fputs(attr ? "&apos;" : "'", out); break;
        case '\t': fputs(attr ? "&#9;" : "\t", out); break;
        case '\n': fputs(attr ? "&#10;" : "\n", out); break;
        case '\r': fputs("&#13;", out); break;
        case KC_UTF8_BAD: fputs("\xEF\xBF\xBD", out); break;
        default: fwrite(s + i, 1, k, out);
        }
        i += k;
    }
}
