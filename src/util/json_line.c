/* json_line.c — fields of one flat JSON object on a line (json_line.h). */
#include "json_line.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

static int hex4(const char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
        if (d > 15) return -1;
        *v = *v * 16 + d;
    }
    return 0;
}

/* Appends code point cp as UTF-8; -1 when it does not fit. */
static int put_utf8(char *out, size_t cap, size_t *n, unsigned cp)
{
    char b[4];
    size_t k;
    if (cp < 0x80) b[0] = (char)cp, k = 1;
    else if (cp < 0x800) b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), k = 2;
    else if (cp < 0x10000)
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[2] = (char)(0x80 | (cp & 0x3F)), k = 3;
    else
        b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F)), b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)),
        b[3] = (char)(0x80 | (cp & 0x3F)), k = 4;
    if (out) {
        if (*n + k >= cap) return -1;
        memcpy(out + *n, b, k);
    }
    *n += k;
    return 0;
}

/* The string at p (its opening quote), decoded into out (NULL: skipped);
 * the position after its closing quote, NULL when malformed or too long. */
static const char *string_at(const char *p, char *out, size_t cap)
{
    size_t n = 0;
    if (*p++ != '"') return NULL;
    for (;;) {
        unsigned char c = (unsigned char)*p;
        if (!c || c < 0x20) return NULL;
        if (c == '"') break;
        if (c != '\\') {
            if (out) {
                if (n + 1 >= cap) return NULL;
                out[n] = (char)c;
            }
            n++;
            p++;
            continue;
        }
        p++;
        unsigned cp;
        switch (*p) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
            if (hex4(p + 1, &cp)) return NULL;
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && p[1] == '\\' && p[2] == 'u') {
                unsigned lo;
                if (!hex4(p + 3, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            break;
        default: return NULL;
        }
        p++;
        if (put_utf8(out, cap, &n, cp)) return NULL;
    }
    if (out) out[n] = 0;
    return p + 1;
}

/* Skips the value at p: a string, a number or literal, or a flat array. */
static const char *skip_value(const char *p)
{
    p = ws(p);
    if (*p == '"') return string_at(p, NULL, 0);
    if (*p == '{') return NULL;
    if (*p == '[') {
        for (p = ws(p + 1); *p != ']';) {
            if (!(p = skip_value(p))) return NULL;
            p = ws(p);
            if (*p == ',') p = ws(p + 1);
            else if (*p != ']') return NULL;
        }
        return p + 1;
    }
    const char *s = p;
    while (*p && !strchr(",}] \t\r\n", *p)) p++;
    return p > s ? p : NULL;
}

/* The value of top-level key `key`: its position (1 when absent, via *found = 0), NULL malformed. */
static const char *find_key(const char *line, const char *key, int *found)
{
    char name[128];
    *found = 0;
    const char *p = ws(line);
    if (*p++ != '{') return NULL;
    for (p = ws(p); *p != '}';) {
        if (!(p = string_at(p, name, sizeof name))) return NULL;
        p = ws(p);
        if (*p++ != ':') return NULL;
        p = ws(p);
        if (!strcmp(name, key)) {
            *found = 1;
            return p;
        }
        if (!(p = skip_value(p))) return NULL;
        p = ws(p);
        if (*p == ',') p = ws(p + 1);
        else if (*p != '}') return NULL;
    }
    return p;
}

int kc_json_line_str(const char *line, const char *key, char *out, size_t cap)
{
    int found;
    const char *p = find_key(line, key, &found);
    if (!p) return -1;
    if (!found) return 1;
    return string_at(p, out, cap) ? 0 : -1;
}

int kc_json_line_int(const char *line, const char *key, long *v)
{
    int found;
    const char *p = find_key(line, key, &found);
    if (!p) return -1;
    if (!found) return 1;
    char *end;
    errno = 0;
    *v = strtol(p, &end, 10);
    if (end == p || errno || !strchr(",} \t\r\n", *end)) return -1;
    return 0;
}

int kc_json_line_strs(const char *line, const char *key, char *out, size_t cap, int *n)
{
    int found;
    *n = 0;
    const char *p = find_key(line, key, &found);
    if (!p) return -1;
    if (!found) return 1;
    if (*p != '[') return -1;
    size_t used = 0;
    for (p = ws(p + 1); *p != ']';) {
        if (used >= cap || !(p = string_at(p, out + used, cap - used))) return -1;
        used += strlen(out + used) + 1;
        ++*n;
        p = ws(p);
        if (*p == ',') p = ws(p + 1);
        else if (*p != ']') return -1;
    }
    return 0;
}
