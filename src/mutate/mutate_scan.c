/* mutate_scan.c — the code mask and tokens of a CUDA source (mutate_scan.h). */
#include "mutate_scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

static int line_of(const char *t, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++) line += t[i] == '\n';
    return line;
}

/* The end of the preprocessor line starting at i (its continuations included). */
static size_t pp_end(const char *t, size_t len, size_t i)
{
    while (i < len && t[i] != '\n') {
        if (t[i] == '\\' && i + 1 < len && t[i + 1] == '\n') i++;
        i++;
    }
    return i;
}

/* A directive's word ("ifdef", "else") and whether it names KC_CONTROL_. */
static void pp_word(const char *t, size_t b, size_t e, char *w, size_t cap, int *control)
{
    size_t i = b + 1, n = 0;
    while (i < e && (t[i] == ' ' || t[i] == '\t')) i++;
    while (i < e && n + 1 < cap && ((t[i] >= 'a' && t[i] <= 'z'))) w[n++] = t[i++];
    w[n] = 0;
    *control = 0;
    for (size_t k = i; k + 11 <= e; k++)
        if (memcmp(t + k, "KC_CONTROL_", 11) == 0) *control = 1;
}

#define KC_PP_DEPTH 64

int kc_src_scan(kc_src *s, const char *text, size_t len, char *err, size_t cap)
{
    memset(s, 0, sizeof *s);
    if (memchr(text, 0, len)) return kc_errf(err, cap, "the source holds a NUL byte (expected C/CUDA text)");
    s->text = malloc(len + 1);
    s->code = calloc(len + 1, 1);
    if (!s->text || !s->code) {
        kc_src_free(s);
        return kc_errf(err, cap, "out of memory scanning a %zu-byte source", len);
    }
    memcpy(s->text, text, len);
    s->text[len] = 0;
    s->len = len;
    const char *t = s->text;
    /* #if stack: for each open group, whether the branch now open is a control's. */
    int skip[KC_PP_DEPTH], ctl[KC_PP_DEPTH], depth = 0, at_line_start = 1;
    for (size_t i = 0; i < len;) {
        char c = t[i];
        if (at_line_start && (c == ' ' || c == '\t')) { i++; continue; }
        if (at_line_start && c == '#') {
            size_t e = pp_end(t, len, i);
            char w[16];
            int control;
            pp_word(t, i, e, w, sizeof w, &control);
            if (!strcmp(w, "if") || !strcmp(w, "ifdef") || !strcmp(w, "ifndef")) {
                if (depth == KC_PP_DEPTH)
                    { int r_ = kc_errf(err, cap, "line %d: #if nested deeper than %d", line_of(t, i), KC_PP_DEPTH); kc_src_free(s); return r_; }
                ctl[depth] = control;
                /* #if(def) KC_CONTROL_x: the first branch is the control's; #ifndef: the clean build's. */
                skip[depth] = control && strcmp(w, "ifndef") != 0;
                depth++;
            } else if ((!strcmp(w, "else") || !strcmp(w, "elif")) && depth > 0) {
                if (ctl[depth - 1]) skip[depth - 1] = !skip[depth - 1];
            } else if (!strcmp(w, "endif") && depth > 0) {
                depth--;
            }
            i = e;
            continue;
        }
        at_line_start = 0;
        int skipped = 0;
        for (int d = 0; d < depth; d++) skipped |= skip[d];
        if (c == '\n') { at_line_start = 1; i++; continue; }
        if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n') i++;
            continue;
        }
        if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            const char *e = strstr(t + i + 2, "*/");
            if (!e) { int r_ = kc_errf(err, cap, "line %d: a comment that never ends", line_of(t, i)); kc_src_free(s); return r_; }
            i = (size_t)(e - t) + 2;
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < len && t[j] != c && t[j] != '\n') j += t[j] == '\\' ? 2 : 1;
            if (j >= len || t[j] != c)
                { int r_ = kc_errf(err, cap, "line %d: a %s literal that never ends", line_of(t, i),
                                               c == '"' ? "string" : "character"); kc_src_free(s); return r_; }
            i = j + 1;
            continue;
        }
        if (!skipped) s->code[i] = 1;
        i++;
    }
    /* Tokens of the code bytes. */
    int tcap = 256;
    s->tok = malloc((size_t)tcap * sizeof *s->tok);
    if (!s->tok) { int r_ = kc_errf(err, cap, "out of memory"); kc_src_free(s); return r_; }
    static const char *const punct3[] = { "<<=", ">>=", "...", "->*", NULL };
    static const char *const punct2[] = { "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=",
                                          "&=", "|=", "^=", "<<", ">>", "->", "::", NULL };
    for (size_t i = 0; i < len;) {
        if (!s->code[i] || t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r' || t[i] == '\\') { i++; continue; }
        kc_tok k = { KC_TOK_PUNCT, i, 1 };
        char c = t[i];
        if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            size_t j = i;
            while (j < len && s->code[j] && (t[j] == '_' || (t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z') ||
                                             (t[j] >= '0' && t[j] <= '9'))) j++;
            k = (kc_tok){ KC_TOK_IDENT, i, j - i };
        } else if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && t[i + 1] >= '0' && t[i + 1] <= '9')) {
            size_t j = i;
            while (j < len && s->code[j] &&
                   ((t[j] >= '0' && t[j] <= '9') || (t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z') || t[j] == '.' ||
                    t[j] == '_' || t[j] == '\'' ||
                    ((t[j] == '+' || t[j] == '-') && (t[j - 1] == 'e' || t[j - 1] == 'E' || t[j - 1] == 'p' || t[j - 1] == 'P') &&
                     !(t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X') && (t[j - 1] == 'e' || t[j - 1] == 'E')))))
                j++;
            k = (kc_tok){ KC_TOK_NUMBER, i, j - i };
        } else {
            for (int p = 0; punct3[p]; p++)
                if (i + 3 <= len && memcmp(t + i, punct3[p], 3) == 0 && s->code[i + 1] && s->code[i + 2]) k.len = 3;
            for (int p = 0; k.len == 1 && punct2[p]; p++)
                if (i + 2 <= len && memcmp(t + i, punct2[p], 2) == 0 && s->code[i + 1]) k.len = 2;
        }
        if (s->ntok == tcap) {
            tcap *= 2;
            kc_tok *nt = realloc(s->tok, (size_t)tcap * sizeof *nt);
            if (!nt) { int r_ = kc_errf(err, cap, "out of memory"); kc_src_free(s); return r_; }
            s->tok = nt;
        }
        s->tok[s->ntok++] = k;
        i += k.len;
    }
    return 0;
}

int kc_src_load(kc_src *s, const char *path, char *err, size_t cap)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "rb");
    if (!f) return kc_errf(err, cap, "cannot read %s: %s", path, strerror(errno));
    size_t n = 0, c = 1 << 16;
    char *b = malloc(c);
    size_t r;
    while (b && (r = fread(b + n, 1, c - n, f)) > 0) {
        n += r;
        if (n == c) {
            char *nb = realloc(b, c *= 2);
            if (!nb) { free(b); b = NULL; }
            else b = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        return kc_errf(err, cap, "cannot read %s: %s", path, bad ? "read error" : "out of memory");
    }
    char e[256];
    int rc = kc_src_scan(s, b, n, e, sizeof e);
    free(b);
    if (rc) return kc_errf(err, cap, "%s: %s", path, e);
    return 0;
}

void kc_src_free(kc_src *s)
{
    free(s->text);
    free(s->code);
    free(s->tok);
    memset(s, 0, sizeof *s);
}

int kc_tok_is(const kc_src *s, int t, const char *w)
{
    if (t < 0 || t >= s->ntok) return 0;
    size_t n = strlen(w);
    return s->tok[t].len == n && memcmp(s->text + s->tok[t].off, w, n) == 0;
}

void kc_src_line_col(const kc_src *s, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && i < s->len; i++) {
        if (s->text[i] == '\n') { l++; c = 1; }
        else c++;
    }
    *line = l;
    *col = c;
}
