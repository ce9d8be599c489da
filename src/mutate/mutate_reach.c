/* mutate_reach.c — a source's function definitions and their calls by name
 * (mutate_reach.h). */
#include "mutate_reach.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

static int is_punct(const kc_src *s, int t, const char *p)
{
    return t >= 0 && t < s->ntok && s->tok[t].kind == KC_TOK_PUNCT && kc_tok_is(s, t, p);
}

/* Words that may stand between a parameter list's ')' and the body's '{'. */
static int is_qualifier(const kc_src *s, int t)
{
    static const char *const q[] = { "const", "noexcept", "override", "final", "mutable", "volatile", NULL };
    if (t < 0 || s->tok[t].kind != KC_TOK_IDENT) return 0;
    for (int i = 0; q[i]; i++)
        if (kc_tok_is(s, t, q[i])) return 1;
    return 0;
}

/* Statements whose '(' ... ')' may precede a '{' (never a function's name). */
static int is_statement(const kc_src *s, int t)
{
    static const char *const k[] = { "if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", NULL };
    for (int i = 0; k[i]; i++)
        if (kc_tok_is(s, t, k[i])) return 1;
    return 0;
}

/* The token of the '(' matching the ')' at t, or -1. */
static int open_paren(const kc_src *s, int t)
{
    for (int depth = 0; t >= 0; t--) {
        if (is_punct(s, t, ")")) depth++;
        else if (is_punct(s, t, "(") && --depth == 0) return t;
    }
    return -1;
}

/* Whether the '{' at token t opens a function's body; its name's token in
 * *name (-1: none the scan can tell). */
static int opens_function(const kc_src *s, int t, int *name)
{
    int p = t - 1;
    while (is_qualifier(s, p)) p--;
    *name = -1;
    if (!is_punct(s, p, ")")) return 0;
    int o = open_paren(s, p);
    if (o > 0 && s->tok[o - 1].kind == KC_TOK_IDENT) {
        if (is_statement(s, o - 1)) return 0;
        *name = o - 1;
    }
    return 1;
}

static int push_fn(kc_reach *r, int *cap, kc_src_fn f)
{
    if (r->nfn == *cap) {
        int nc = *cap ? *cap * 2 : 16;
        kc_src_fn *v = realloc(r->fn, (size_t)nc * sizeof *v);
        if (!v) return -1;
        r->fn = v;
        *cap = nc;
    }
    r->fn[r->nfn++] = f;
    return 0;
}

/* The function definitions: the outermost '{' ... '}' that follow a
 * parameter list (braces inside a body are its own: lambdas, blocks). An
 * unbalanced '}' is ignored; a body left open ends with the source. */
static int find_functions(const kc_src *s, kc_reach *r)
{
    int cap = 0, depth = 0, in_fn = 0, fn_depth = 0;
    kc_src_fn cur = { 0 };
    for (int t = 0; t < s->ntok; t++) {
        if (is_punct(s, t, "{")) {
            int name;
            if (!in_fn && opens_function(s, t, &name)) {
                in_fn = 1;
                fn_depth = depth;
                cur = (kc_src_fn){ .name_off = name >= 0 ? s->tok[name].off : 0,
                                   .name_len = name >= 0 ? s->tok[name].len : 0,
                                   .lo = s->tok[t].off, .tok_lo = t };
            }
            depth++;
        } else if (is_punct(s, t, "}") && depth > 0) {
            depth--;
            if (in_fn && depth == fn_depth) {
                in_fn = 0;
                cur.hi = s->tok[t].off + 1;
                cur.tok_hi = t;
                if (push_fn(r, &cap, cur)) return -1;
            }
        }
    }
    if (in_fn) {
        cur.hi = s->len;
        cur.tok_hi = s->ntok - 1;
        if (push_fn(r, &cap, cur)) return -1;
    }
    return 0;
}

static int named(const kc_src *s, const kc_src_fn *f, const char *p, size_t n)
{
    return f->name_len == n && memcmp(s->text + f->name_off, p, n) == 0;
}

/* calls[f]: each function whose name an identifier of f's body is. */
static int index_calls(const kc_src *s, kc_reach *r)
{
    r->calls = calloc((size_t)r->nfn + 1, sizeof *r->calls);
    r->ncalls = calloc((size_t)r->nfn + 1, sizeof *r->ncalls);
    unsigned char *seen = calloc((size_t)r->nfn + 1, 1);
    if (!r->calls || !r->ncalls || !seen) {
        free(seen);
        return -1;
    }
    for (int f = 0; f < r->nfn; f++) {
        memset(seen, 0, (size_t)r->nfn);
        int n = 0, cap = 0;
        for (int t = r->fn[f].tok_lo + 1; t < r->fn[f].tok_hi; t++) {
            if (s->tok[t].kind != KC_TOK_IDENT) continue;
            for (int g = 0; g < r->nfn; g++) {
                if (g == f || seen[g] || !named(s, &r->fn[g], s->text + s->tok[t].off, s->tok[t].len)) continue;
                if (n == cap) {
                    cap = cap ? cap * 2 : 4;
                    int *v = realloc(r->calls[f], (size_t)cap * sizeof *v);
                    if (!v) {
                        free(seen);
                        return -1;
                    }
                    r->calls[f] = v;
                }
                r->calls[f][n++] = g;
                seen[g] = 1;
            }
        }
        r->ncalls[f] = n;
    }
    free(seen);
    return 0;
}

/* ---- kernels that #define lines define ---- */

/* A #define's text as words: identifiers, "##", and single characters
 * (blanks, comments and backslash-newlines dropped). */
typedef struct mword {
    const char *p;
    size_t n;
} mword;

static int is_id0(int c) { return isalpha(c) || c == '_'; }
static int is_id(int c) { return isalnum(c) || c == '_'; }

static int macro_words(const char *t, size_t b, size_t e, mword **out, int *nout)
{
    int n = 0, cap = 0;
    mword *v = NULL;
    for (size_t i = b; i < e;) {
        if (t[i] == '/' && i + 1 < e && t[i + 1] == '*') {
            const char *c = strstr(t + i + 2, "*/");
            i = c && (size_t)(c - t) < e ? (size_t)(c - t) + 2 : e;
            continue;
        }
        if (isspace((unsigned char)t[i]) || t[i] == '\\') { i++; continue; }
        size_t k = i + 1;
        if (is_id0((unsigned char)t[i])) while (k < e && is_id((unsigned char)t[k])) k++;
        else if (t[i] == '#' && k < e && t[k] == '#') k++;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            mword *nv = realloc(v, (size_t)cap * sizeof *nv);
            if (!nv) { free(v); return -1; }
            v = nv;
        }
        v[n++] = (mword){ t + i, k - i };
        i = k;
    }
    *out = v;
    *nout = n;
    return 0;
}

static int word_is(const mword *w, const char *s) { return w->n == strlen(s) && !memcmp(w->p, s, w->n); }

/* Whether word w is one of the macro's parameters (words [p0, p1)). */
static int is_param(const mword *v, int p0, int p1, const mword *w)
{
    for (int i = p0; i < p1; i++)
        if (v[i].n == w->n && is_id0((unsigned char)v[i].p[0]) && !memcmp(v[i].p, w->p, w->n)) return 1;
    return 0;
}

static int push_mk(kc_reach *r, int *cap, const kc_macro_kernel *k)
{
    if (r->nmk == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        kc_macro_kernel *v = realloc(r->mk, (size_t)nc * sizeof *v);
        if (!v) return -1;
        r->mk = v;
        *cap = nc;
    }
    r->mk[r->nmk++] = *k;
    return 0;
}

/* The kernels of one #define (words v[0..n): "define", its name, its
 * parameters, its body): each `__global__` starts one, named by the first
 * word (with its ## joins) before a '(' that is not __launch_bounds__'s;
 * its calls are the functions its words name, up to the next __global__. */
static int macro_kernels(const kc_src *s, kc_reach *r, int *cap, const mword *v, int n)
{
    int p0 = 0, p1 = 0, i = 2;
    if (n > 2 && word_is(&v[2], "(") && v[1].p + v[1].n == v[2].p) {     /* a function-like macro */
        p0 = 3;
        for (i = 3; i < n && !word_is(&v[i], ")"); i++) {}
        p1 = i++;
    }
    for (; i < n; i++) {
        if (!word_is(&v[i], "__global__")) continue;
        int end = i + 1;
        while (end < n && !word_is(&v[end], "__global__")) end++;
        kc_macro_kernel k = { .glob = "" };
        size_t gl = 0;
        for (int j = i + 1; j < end && !k.glob[0]; j++) {
            if (word_is(&v[j], "__launch_bounds__")) {       /* skip its (...) */
                int d = 0;
                for (j++; j < end; j++) {
                    d += word_is(&v[j], "(") - word_is(&v[j], ")");
                    if (d == 0) break;
                }
                continue;
            }
            int q = j;      /* a name: ident (## ident)* then '(' */
            if (!is_id0((unsigned char)v[q].p[0])) continue;
            while (q + 2 < end && word_is(&v[q + 1], "##") && is_id0((unsigned char)v[q + 2].p[0])) q += 2;
            if (q + 1 >= end || !word_is(&v[q + 1], "(")) continue;
            for (int w = j; w <= q; w += 2) {
                const char *piece = is_param(v, p0, p1, &v[w]) ? "*" : NULL;
                int pl = piece ? 1 : (int)v[w].n;
                if (gl + (size_t)pl + 1 >= sizeof k.glob) break;
                memcpy(k.glob + gl, piece ? piece : v[w].p, (size_t)pl);
                gl += (size_t)pl;
                k.glob[gl] = 0;
            }
            j = q;
        }
        if (!k.glob[0]) { i = end - 1; continue; }
        for (int j = i + 1; j < end; j++) {
            if (!is_id0((unsigned char)v[j].p[0])) continue;
            for (int g = 0; g < r->nfn; g++) {
                if (!named(s, &r->fn[g], v[j].p, v[j].n)) continue;
                int dup = 0;
                for (int c = 0; c < k.ncalls; c++) dup |= k.calls[c] == g;
                if (dup) continue;
                int *nc = realloc(k.calls, ((size_t)k.ncalls + 1) * sizeof *nc);
                if (!nc) { free(k.calls); return -1; }
                k.calls = nc;
                k.calls[k.ncalls++] = g;
            }
        }
        if (push_mk(r, cap, &k)) { free(k.calls); return -1; }
        i = end - 1;
    }
    return 0;
}

/* Every #define line of the source (with its continuations). */
static int find_macro_kernels(const kc_src *s, kc_reach *r)
{
    int cap = 0;
    const char *t = s->text;
    for (size_t i = 0; i < s->len; i++) {
        if (i && t[i - 1] != '\n') continue;
        size_t b = i;
        while (b < s->len && (t[b] == ' ' || t[b] == '\t')) b++;
        if (b >= s->len || t[b] != '#') continue;
        b++;
        while (b < s->len && (t[b] == ' ' || t[b] == '\t')) b++;
        if (strncmp(t + b, "define", 6) != 0 || !isspace((unsigned char)t[b + 6])) continue;
        size_t e = b;
        while (e < s->len && t[e] != '\n') e += t[e] == '\\' && e + 1 < s->len && t[e + 1] == '\n' ? 2 : 1;
        mword *v = NULL;
        int n = 0;
        if (macro_words(t, b, e, &v, &n)) return -1;
        int rc = n > 1 ? macro_kernels(s, r, &cap, v, n) : 0;
        free(v);
        if (rc) return -1;
        i = e;
    }
    return 0;
}

int kc_reach_index(const kc_src *s, kc_reach *r, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    if (find_functions(s, r) || index_calls(s, r) || find_macro_kernels(s, r)) {
        kc_reach_free(r);
        kc_errf(err, cap, "out of memory indexing the functions of a source");
        return -1;
    }
    return 0;
}

void kc_reach_free(kc_reach *r)
{
    for (int f = 0; r->calls && f < r->nfn; f++) free(r->calls[f]);
    free(r->calls);
    free(r->ncalls);
    free(r->fn);
    for (int k = 0; k < r->nmk; k++) free(r->mk[k].calls);
    free(r->mk);
    memset(r, 0, sizeof *r);
}

int kc_reach_kernel(const kc_src *s, const kc_reach *r, size_t off, const char *symbol)
{
    int at = -1;
    for (int f = 0; f < r->nfn && at < 0; f++)
        if (off >= r->fn[f].lo && off < r->fn[f].hi) at = f;
    if (at < 0 || !symbol || !*symbol) return -1;
    unsigned char *seen = calloc((size_t)r->nfn + 1, 1);
    int *todo = malloc(((size_t)r->nfn + 1) * sizeof *todo);
    if (!seen || !todo) {       /* out of memory: unknown, which runs it */
        free(seen);
        free(todo);
        return -1;
    }
    int n = 0, defined = 0;
    for (int f = 0; f < r->nfn; f++)
        if (named(s, &r->fn[f], symbol, strlen(symbol))) {
            seen[f] = 1;
            todo[n++] = f;
            defined = 1;
        }
    for (int k = 0; k < r->nmk; k++)     /* a kernel a macro defines: its part of the body's calls */
        if (fnmatch(r->mk[k].glob, symbol, 0) == 0) {
            defined = 1;
            for (int c = 0; c < r->mk[k].ncalls; c++)
                if (!seen[r->mk[k].calls[c]]) {
                    seen[r->mk[k].calls[c]] = 1;
                    todo[n++] = r->mk[k].calls[c];
                }
        }
    while (n > 0) {             /* every function the kernel calls, through any chain */
        int f = todo[--n];
        for (int k = 0; k < r->ncalls[f]; k++)
            if (!seen[r->calls[f][k]]) {
                seen[r->calls[f][k]] = 1;
                todo[n++] = r->calls[f][k];
            }
    }
    int rc = !defined ? -1 : seen[at];
    free(seen);
    free(todo);
    return rc;
}
