/* mutate_ops.c — the mutation operators (mutate_ops.h): each walks the
 * tokens of a scanned source (mutate_scan.h) and proposes replacements. The
 * source is not parsed: each operator uses small token patterns, and a
 * mutant it gets wrong does not compile (unviable) or compiles to the same
 * machine code (equivalent), both counted by the build (mutate_build.h). */
#include "mutate_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "seed.h"

#define ZZ "Zhu & Zaidman, ICST 2020"
#define CONV "conventional (Offutt et al., 1996; PIT, Mull)"

const kc_mut_op kc_mut_ops[] = {
    { "relational", 0, "a comparison negated (== for !=, < for >=): a condition written the wrong way round", CONV },
    { "bound", 0, "a bound off by one (< for <=, > for >=): the last element or one past it", CONV },
    { "arithmetic", 0, "an arithmetic operator replaced (+ for -, * for /, << for >>, += for -=): a wrong formula", CONV },
    { "constant", 0, "an integer constant off by one (N+1, N-1): a tile size, a shift, an offset mistyped", CONV },
    { "statement_delete", 0, "a statement deleted: a store, an update or a call forgotten", CONV },
    { "guard_delete", 0, "a guard deleted (if (c) made if (true), or if (false) before an exit): a missing bounds check "
                         "or a tail that is not handled", CONV },
    { "early_return", 0, "an early return: break/continue made return, or a kernel's last thread leaving at once (a thread "
                         "the code assumes present is not: \"not all threads available\", " ZZ ")", CONV },
    { "sync_drop", 1, "a barrier or fence dropped (__syncthreads, __syncwarp, __threadfence, .sync()): a race on shared or "
                      "global memory", ZZ ", synchronisation removal" },
    { "shuffle", 1, "a warp shuffle's mask names a lane less, its offset is one more, or its width is halved: a reduction "
                    "over the wrong lanes", "GPU-specific (warp primitives; issue 24)" },
    { "dim_swap", 1, "a thread/block index dimension swapped (.x for .y): a 2-D launch indexed as its transpose", ZZ
                     ", thread index replacement" },
    { "index_swap", 1, "threadIdx for blockIdx or blockDim for gridDim: an index over the wrong level of the grid", ZZ
                       ", thread index replacement" },
    { "atomic_plain", 1, "an atomic made a plain read-modify-write: lost updates when threads collide", ZZ
                         ", atomic operation omission" },
    { "accum_narrow", 1, "a float accumulator narrowed to half after each update: precision lost in a long sum",
      "GPU-specific (mixed precision; issue 24)" },
    { "rounding", 1, "a rounding mode changed (_rn to _rz): results biased toward zero", "GPU-specific (issue 24)" },
    { "fast_math", 1, "an intrinsic swapped for its fast form (expf for __expf): error beyond the contract's tolerance",
      "GPU-specific (issue 24)" },
    { "loop_bound", 1, "a loop's bound one less (i < n - 1): the last iteration (a tail element, a tile) skipped",
      "GPU-specific loops (grid-stride, tile loops; issue 24)" },
    { "loop_stride", 1, "a loop's stride changed (doubled, or a shift one more): elements skipped", "GPU-specific loops "
                        "(grid-stride, tile loops; issue 24)" },
    { "tile_index", 1, "an index into a __shared__ tile off by one: a neighbour's element read or written", ZZ
                       ", shared memory bugs" },
    { NULL, 0, NULL, NULL },
};

const kc_mut_op *kc_mut_op_find(const char *name)
{
    for (int i = 0; kc_mut_ops[i].name; i++)
        if (strcmp(kc_mut_ops[i].name, name) == 0) return &kc_mut_ops[i];
    return NULL;
}

/* ---- the walk's context ---- */

typedef struct ctx {
    const kc_src *s;
    const char *module, *file;
    const kc_mut_op *op;
    kc_mutants *out;
    int *match;         /* the token index of the matching bracket, -1 none */
    int *depth;         /* paren depth of each token */
    unsigned char *tmpl;/* 1: the token is a template's < or > */
    int added, oom;
} ctx;

static const char *T(const ctx *c, int i) { return c->s->text + c->s->tok[i].off; }
static int is(const ctx *c, int i, const char *w) { return kc_tok_is(c->s, i, w); }
static int kind(const ctx *c, int i) { return i >= 0 && i < c->s->ntok ? (int)c->s->tok[i].kind : -1; }
static size_t tend(const ctx *c, int i) { return c->s->tok[i].off + c->s->tok[i].len; }

static char *dupn(const char *p, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, p, n);
        d[n] = 0;
    }
    return d;
}

/* Proposes src[off .. off + len) -> repl by the current operator. */
static void add(ctx *c, size_t off, size_t len, const char *repl)
{
    if (c->oom) return;
    const kc_src *s = c->s;
    if (len == strlen(repl) && memcmp(s->text + off, repl, len) == 0) return;   /* no change */
    uint64_t h = kc_fnv1a64(c->module, strlen(c->module) + 1, KC_FNV_OFFSET);
    h = kc_fnv1a64(c->op->name, strlen(c->op->name) + 1, h);
    char num[32];
    snprintf(num, sizeof num, "%zu", off);
    h = kc_fnv1a64(num, strlen(num) + 1, h);
    h = kc_fnv1a64(s->text + off, len, h);
    h = kc_fnv1a64("\0", 1, h);
    h = kc_fnv1a64(repl, strlen(repl), h);
    h = kc_mix64(h);
    char id[13];
    snprintf(id, sizeof id, "%012" PRIx64, (uint64_t)(h & 0xffffffffffffULL));
    for (int i = 0; i < c->out->n; i++)
        if (strcmp(c->out->v[i].id, id) == 0) return;
    if (c->out->n == c->out->cap) {
        int cap = c->out->cap ? c->out->cap * 2 : 256;
        kc_mutant *v = realloc(c->out->v, (size_t)cap * sizeof *v);
        if (!v) { c->oom = 1; return; }
        c->out->v = v;
        c->out->cap = cap;
    }
    kc_mutant *m = &c->out->v[c->out->n];
    memset(m, 0, sizeof *m);
    memcpy(m->id, id, sizeof id);
    m->op = c->op;
    snprintf(m->module, sizeof m->module, "%s", c->module);
    m->file = c->file;
    m->off = off;
    m->len = len;
    kc_src_line_col(s, off, &m->line, &m->col);
    m->orig = dupn(s->text + off, len);
    m->repl = dupn(repl, strlen(repl));
    if (!m->orig || !m->repl) {
        free(m->orig);
        free(m->repl);
        c->oom = 1;
        return;
    }
    c->out->n++;
    c->added++;
}

/* Replaces the text of tokens a..b (inclusive) by fmt with %s the old text. */
static void add_wrap(ctx *c, int a, int b, const char *fmt)
{
    size_t off = c->s->tok[a].off, len = tend(c, b) - off;
    size_t n = strlen(fmt) + len + 1;
    char *old = dupn(c->s->text + off, len), *r = malloc(n + len);
    if (!old || !r) { free(old); free(r); c->oom = 1; return; }
    snprintf(r, n + len, fmt, old, old);
    add(c, off, len, r);
    free(old);
    free(r);
}

static const char *const type_words[] = {
    "void", "char", "short", "int", "long", "float", "double", "unsigned", "signed", "bool", "half", "__half", "__half2",
    "__nv_bfloat16", "__nv_bfloat162", "__nv_fp8_e4m3", "__nv_fp8_e5m2", "float2", "float4", "int2", "int4", "uint2",
    "uint4", "auto", "const", "volatile", "__restrict__", "struct", "class", "typename", "static", "constexpr", "inline",
    "__device__", "__global__", "__host__", "__shared__", "__forceinline__", "extern", NULL
};

/* Whether identifier token i reads as a type (a declaration's): a type word,
 * a name ending in _t, or a short capitalised template parameter (T, TIn). */
static int typeish(const ctx *c, int i)
{
    if (kind(c, i) != KC_TOK_IDENT) return 0;
    for (int k = 0; type_words[k]; k++)
        if (is(c, i, type_words[k])) return 1;
    size_t n = c->s->tok[i].len;
    const char *t = T(c, i);
    if (n > 2 && t[n - 2] == '_' && t[n - 1] == 't') return 1;
    return n <= 3 && t[0] >= 'A' && t[0] <= 'Z';
}

static const char *const stmt_words[] = { "return", "if", "for", "while", "do", "else", "switch", "case", "default",
                                          "break", "continue", "goto", "typedef", "using", "namespace", "template",
                                          "enum", "union", "sizeof", "asm", NULL };

static int keyword(const ctx *c, int i)
{
    for (int k = 0; stmt_words[k]; k++)
        if (is(c, i, stmt_words[k])) return 1;
    return typeish(c, i);
}

/* Whether token i ends an operand: the token before a binary operator. */
static int operand_end(const ctx *c, int i)
{
    int k = kind(c, i);
    if (k == KC_TOK_NUMBER) return 1;
    if (k == KC_TOK_IDENT) return !keyword(c, i);
    return is(c, i, ")") || is(c, i, "]");
}

/* ---- brackets and templates ---- */

static int prepare(ctx *c)
{
    int n = c->s->ntok;
    c->match = malloc(((size_t)n + 1) * sizeof *c->match);
    c->depth = malloc(((size_t)n + 1) * sizeof *c->depth);
    c->tmpl = calloc((size_t)n + 1, 1);
    int *stack = malloc(((size_t)n + 1) * sizeof *stack), sp = 0, d = 0;
    if (!c->match || !c->depth || !c->tmpl || !stack) { free(stack); return -1; }
    for (int i = 0; i < n; i++) {
        c->match[i] = -1;
        if (is(c, i, ")") || is(c, i, "]") || is(c, i, "}")) {
            if (is(c, i, ")")) d--;
            if (sp > 0) {
                c->match[i] = stack[sp - 1];
                c->match[stack[--sp]] = i;
            }
        }
        c->depth[i] = d;
        if (is(c, i, "(") || is(c, i, "[") || is(c, i, "{")) {
            stack[sp++] = i;
            if (is(c, i, "(")) d++;
        }
    }
    free(stack);
    /* A template's brackets: "<" after template/X_cast or an identifier, closed
     * by ">" over type-like tokens only, and followed by ( :: { an identifier * & or >. */
    for (int i = 1; i < n; i++) {
        if (!is(c, i, "<") || kind(c, i - 1) != KC_TOK_IDENT) continue;
        int lvl = 0, j = i, ok = 1;
        for (; j < n; j++) {
            if (is(c, j, "<")) lvl++;
            else if (is(c, j, ">")) { if (--lvl == 0) break; }
            else if (is(c, j, ">>")) { lvl -= 2; if (lvl <= 0) break; }
            else if (!(kind(c, j) == KC_TOK_IDENT || kind(c, j) == KC_TOK_NUMBER || is(c, j, ",") || is(c, j, "*") ||
                       is(c, j, "&") || is(c, j, "::"))) { ok = 0; break; }
        }
        if (!ok || j >= n) continue;
        int after = j + 1;
        const char *t0 = T(c, i - 1);
        size_t l0 = c->s->tok[i - 1].len;
        int sure = is(c, i - 1, "template") || (l0 > 5 && memcmp(t0 + l0 - 5, "_cast", 5) == 0);
        if (sure || is(c, after, "(") || is(c, after, "::") || is(c, after, "{") || is(c, after, "*") ||
            is(c, after, "&") || kind(c, after) == KC_TOK_IDENT || is(c, after, ">") || is(c, after, ">>")) {
            c->tmpl[i] = 1;
            c->tmpl[j] = 1;
        }
    }
    return 0;
}

/* The call's arguments: tokens open+1 .. close-1 split at depth-0 commas;
 * starts in a[], ends in b[] (inclusive). Returns the count (at most max). */
static int args_of(const ctx *c, int open, int *a, int *b, int max)
{
    int close = c->match[open], n = 0, start = open + 1, lvl = 0;
    if (close < 0) return 0;
    for (int j = open + 1; j <= close && n < max; j++) {
        if (j == close || (lvl == 0 && is(c, j, ","))) {
            if (j > start) { a[n] = start; b[n] = j - 1; n++; }
            start = j + 1;
            continue;
        }
        if (is(c, j, "(") || is(c, j, "[") || is(c, j, "{")) lvl++;
        else if (is(c, j, ")") || is(c, j, "]") || is(c, j, "}")) lvl--;
    }
    return n;
}

/* The statement starting at token i: its last token (the ';'), or -1 when it
 * is not a simple statement (a brace or the file's end before its ';'). */
static int stmt_end(const ctx *c, int i)
{
    for (int j = i; j < c->s->ntok; j++) {
        if (is(c, j, "{") || is(c, j, "}")) return -1;
        if (is(c, j, "(") || is(c, j, "[")) { if (c->match[j] < 0) return -1; j = c->match[j]; continue; }
        if (is(c, j, ";")) return j;
    }
    return -1;
}

/* Whether token i starts a statement: after ; { } or else, or after the
 * closing ) of if/for/while's condition, outside any parentheses. */
static int stmt_start(const ctx *c, int i)
{
    if (i == 0 || c->depth[i] != 0) return 0;
    int p = i - 1;
    if (is(c, p, ";") || is(c, p, "{") || is(c, p, "}") || is(c, p, "else")) return 1;
    if (is(c, p, ")") && c->match[p] > 0) {
        int q = c->match[p] - 1;
        return is(c, q, "if") || is(c, q, "for") || is(c, q, "while");
    }
    return 0;
}

/* ---- the operators ---- */

static void op_relational(ctx *c, int bound)
{
    static const char *const from[] = { "==", "!=", "<", ">", "<=", ">=" };
    static const char *const neg[] = { "!=", "==", ">=", "<=", ">", "<" };
    static const char *const bnd[] = { NULL, NULL, "<=", ">=", "<", ">" };
    for (int i = 1; i + 1 < c->s->ntok; i++)
        for (int k = 0; k < 6; k++) {
            if (!is(c, i, from[k]) || c->tmpl[i] || !operand_end(c, i - 1)) continue;
            if (is(c, i + 1, "<") || is(c, i - 1, "<")) continue;        /* <<< launch syntax */
            const char *r = bound ? bnd[k] : neg[k];
            if (r) add(c, c->s->tok[i].off, c->s->tok[i].len, r);
        }
}

static void op_arithmetic(ctx *c)
{
    static const char *const from[] = { "+", "-", "*", "/", "+=", "-=", "*=", "/=", "<<", ">>" };
    static const char *const to[] = { "-", "+", "/", "*", "-=", "+=", "/=", "*=", ">>", "<<" };
    for (int i = 1; i + 1 < c->s->ntok; i++)
        for (int k = 0; k < 10; k++) {
            if (!is(c, i, from[k])) continue;
            if (k < 4 && !operand_end(c, i - 1)) continue;                /* unary + - * (a pointer) */
            if (k == 2 && (typeish(c, i - 1) || typeish(c, i + 1))) continue;   /* float *p, T* __restrict__ */
            if (k >= 8 && (is(c, i + 1, "<") || is(c, i + 1, ">") || is(c, i - 1, "<") || is(c, i - 1, ">") ||
                           c->tmpl[i])) continue;
            if (k >= 8 && !operand_end(c, i - 1)) continue;
            add(c, c->s->tok[i].off, c->s->tok[i].len, to[k]);
        }
}

static void op_constant(ctx *c)
{
    for (int i = 0; i < c->s->ntok; i++) {
        if (kind(c, i) != KC_TOK_NUMBER) continue;
        const char *t = T(c, i);
        size_t n = c->s->tok[i].len, digits = n;
        while (digits > 0 && strchr("uUlL", t[digits - 1])) digits--;
        int hex = digits > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
        int ok = digits > 0;
        for (size_t k = hex ? 2 : 0; k < digits && ok; k++)
            ok = (t[k] >= '0' && t[k] <= '9') || (hex && strchr("abcdefABCDEF", t[k]));
        if (!ok || (!hex && digits > 1 && t[0] == '0')) continue;     /* a float, an octal: left alone */
        /* a shuffle's mask (the shuffle operator's) and __launch_bounds__'s arguments */
        if (i >= 2 && is(c, i - 1, "(") && kind(c, i - 2) == KC_TOK_IDENT && !strncmp(T(c, i - 2), "__shfl", 6)) continue;
        int lb = 0;
        for (int j = i - 1; j >= 0 && j >= i - 6; j--) lb |= is(c, j, "__launch_bounds__");
        if (lb) continue;
        char num[32];
        snprintf(num, sizeof num, "%.*s", (int)digits, t);
        unsigned long long v = strtoull(num, NULL, hex ? 16 : 10);
        for (int d = -1; d <= 1; d += 2) {
            if (d < 0 && v == 0) continue;
            if (d > 0 && v == ~0ULL) continue;
            char r[48];
            snprintf(r, sizeof r, hex ? "0x%llx%.*s" : "%llu%.*s", v + (unsigned long long)d, (int)(n - digits), t + digits);
            add(c, c->s->tok[i].off, n, r);
        }
    }
}

static int sync_name(const ctx *c, int i)
{
    return is(c, i, "__syncthreads") || is(c, i, "__syncwarp") || is(c, i, "__threadfence") ||
           is(c, i, "__threadfence_block") || is(c, i, "__threadfence_system") || is(c, i, "__pipeline_wait_prior");
}

static void op_statement_delete(ctx *c)
{
    for (int i = 1; i < c->s->ntok; i++) {
        if (!stmt_start(c, i)) continue;
        int ident = kind(c, i) == KC_TOK_IDENT;
        if (!(ident || is(c, i, "*"))) continue;
        if (ident && (keyword(c, i) || sync_name(c, i))) continue;
        if (ident && (kind(c, i + 1) == KC_TOK_IDENT || is(c, i + 1, "<") || is(c, i + 1, "::"))) continue;  /* T x; */
        if (ident && is(c, i + 1, "*") && kind(c, i + 2) == KC_TOK_IDENT && (is(c, i + 3, "=") || is(c, i + 3, ";")))
            continue;                                                     /* T* x = ... */
        int e = stmt_end(c, i);
        if (e < 0 || e == i) continue;
        add(c, c->s->tok[i].off, tend(c, e) - c->s->tok[i].off, ";");
    }
}

static int exits(const ctx *c, int i)
{
    if (is(c, i, "{")) i++;
    return is(c, i, "return") || is(c, i, "continue") || is(c, i, "break");
}

static void op_guard_delete(ctx *c)
{
    for (int i = 0; i + 1 < c->s->ntok; i++) {
        if (!is(c, i, "if") || !is(c, i + 1, "(") || c->match[i + 1] < 0 || c->match[i + 1] == i + 2) continue;
        int close = c->match[i + 1];
        add(c, c->s->tok[i + 2].off, c->s->tok[close].off - c->s->tok[i + 2].off, exits(c, close + 1) ? "false" : "true");
    }
}

static void op_early_return(ctx *c)
{
    for (int i = 0; i + 1 < c->s->ntok; i++) {
        if ((is(c, i, "break") || is(c, i, "continue")) && is(c, i + 1, ";"))
            add(c, c->s->tok[i].off, c->s->tok[i].len, "return");
        if (!is(c, i, "__global__")) continue;
        for (int j = i + 1; j < c->s->ntok && !is(c, j, ";"); j++)
            if (is(c, j, "{")) {
                add(c, tend(c, j), 0, " if (threadIdx.x + 1 == blockDim.x) return;");
                break;
            }
    }
}

static void op_sync_drop(ctx *c)
{
    for (int i = 0; i + 1 < c->s->ntok; i++) {
        int call = sync_name(c, i) || (is(c, i, "sync") && i > 0 && is(c, i - 1, "."));
        if (!call || !is(c, i + 1, "(") || c->match[i + 1] < 0 || !is(c, c->match[i + 1] + 1, ";")) continue;
        int first = i;
        if (is(c, i, "sync")) first = i - 2;                              /* block.sync(); */
        if (first < 0 || kind(c, first) != KC_TOK_IDENT) continue;
        add(c, c->s->tok[first].off, tend(c, c->match[i + 1] + 1) - c->s->tok[first].off, ";");
    }
}

static void op_shuffle(ctx *c)
{
    for (int i = 0; i + 1 < c->s->ntok; i++) {
        if (!(is(c, i, "__shfl_sync") || is(c, i, "__shfl_up_sync") || is(c, i, "__shfl_down_sync") ||
              is(c, i, "__shfl_xor_sync")) || !is(c, i + 1, "("))
            continue;
        int a[4], b[4], n = args_of(c, i + 1, a, b, 4);
        if (n < 3) continue;
        if (a[0] == b[0] && kind(c, a[0]) == KC_TOK_NUMBER && (!strncmp(T(c, a[0]), "0xffffffff", 10) ||
                                                             !strncmp(T(c, a[0]), "0xFFFFFFFF", 10)))
            add(c, c->s->tok[a[0]].off, c->s->tok[a[0]].len, "0x7fffffffu");
        else add_wrap(c, a[0], b[0], "(%s) & 0x7fffffffu");
        add_wrap(c, a[2], b[2], "(%s) + 1");
        if (n == 4) add_wrap(c, a[3], b[3], "(%s) / 2");
        else add(c, tend(c, b[2]), 0, ", 16");
    }
}

static int dim_builtin(const ctx *c, int i)
{
    return is(c, i, "threadIdx") || is(c, i, "blockIdx") || is(c, i, "blockDim") || is(c, i, "gridDim");
}

static void op_dim_swap(ctx *c)
{
    for (int i = 0; i + 2 < c->s->ntok; i++) {
        if (!dim_builtin(c, i) || !is(c, i + 1, ".")) continue;
        const char *r = is(c, i + 2, "x") ? "y" : is(c, i + 2, "y") ? "x" : is(c, i + 2, "z") ? "x" : NULL;
        if (r) add(c, c->s->tok[i + 2].off, 1, r);
    }
}

static void op_index_swap(ctx *c)
{
    for (int i = 0; i + 1 < c->s->ntok; i++) {
        if (!dim_builtin(c, i) || !is(c, i + 1, ".")) continue;
        const char *r = is(c, i, "threadIdx") ? "blockIdx" : is(c, i, "blockIdx") ? "threadIdx"
                      : is(c, i, "blockDim") ? "gridDim" : "blockDim";
        add(c, c->s->tok[i].off, c->s->tok[i].len, r);
    }
}

static void op_atomic_plain(ctx *c)
{
    static const char *const name[] = { "atomicAdd", "atomicSub", "atomicOr", "atomicAnd", "atomicXor", "atomicExch",
                                        "atomicMax", "atomicMin", "atomicAdd_block", NULL };
    static const char *const form[] = { "(*(%s) += (%s))", "(*(%s) -= (%s))", "(*(%s) |= (%s))", "(*(%s) &= (%s))",
                                        "(*(%s) ^= (%s))", "(*(%s) = (%s))", "(*(%1$s) = max(*(%1$s), (%2$s)))",
                                        "(*(%1$s) = min(*(%1$s), (%2$s)))", "(*(%s) += (%s))" };
    for (int i = 0; i + 1 < c->s->ntok; i++)
        for (int k = 0; name[k]; k++) {
            if (!is(c, i, name[k]) || !is(c, i + 1, "(")) continue;
            int a[3], b[3];
            if (args_of(c, i + 1, a, b, 3) != 2) continue;
            size_t pa = c->s->tok[a[0]].off, pl = tend(c, b[0]) - pa, va = c->s->tok[a[1]].off, vl = tend(c, b[1]) - va;
            size_t n = strlen(form[k]) + 3 * (pl + vl) + 1;
            char *r = malloc(n), *p = dupn(c->s->text + pa, pl), *v = dupn(c->s->text + va, vl);
            if (r && p && v) {
                snprintf(r, n, form[k], p, v);
                int close = c->match[i + 1];
                add(c, c->s->tok[i].off, tend(c, close) - c->s->tok[i].off, r);
            } else c->oom = 1;
            free(r);
            free(p);
            free(v);
        }
}

static void op_accum_narrow(ctx *c)
{
    if (!strstr(c->s->text, "cuda_fp16.h")) return;                 /* __float2half_rn must be declared */
    for (int i = 1; i + 1 < c->s->ntok; i++) {
        if (!stmt_start(c, i) || kind(c, i) != KC_TOK_IDENT || !is(c, i + 1, "+=")) continue;
        /* declared "float NAME" somewhere before */
        int decl = 0;
        for (int j = 0; j + 1 < i && !decl; j++)
            decl = is(c, j, "float") && kind(c, j + 1) == KC_TOK_IDENT && c->s->tok[j + 1].len == c->s->tok[i].len &&
                   !memcmp(T(c, j + 1), T(c, i), c->s->tok[i].len);
        int e = stmt_end(c, i);
        if (!decl || e < i + 3) continue;
        size_t xo = c->s->tok[i + 2].off, xl = c->s->tok[e].off - xo;
        while (xl && (c->s->text[xo + xl - 1] == ' ' || c->s->text[xo + xl - 1] == '\n')) xl--;
        int nl = (int)c->s->tok[i].len;
        size_t n = xl + 3 * (size_t)nl + 64;
        char *r = malloc(n);
        if (!r) { c->oom = 1; return; }
        snprintf(r, n, "%.*s = __half2float(__float2half_rn(%.*s + (%.*s)))", nl, T(c, i), nl, T(c, i), (int)xl,
                 c->s->text + xo);
        add(c, c->s->tok[i].off, xo + xl - c->s->tok[i].off, r);
        free(r);
    }
}

static void op_rounding(ctx *c)
{
    for (int i = 0; i < c->s->ntok; i++) {
        size_t n = c->s->tok[i].len;
        const char *t = T(c, i);
        if (kind(c, i) == KC_TOK_IDENT && n > 5 && !strncmp(t, "__", 2) && !memcmp(t + n - 3, "_rn", 3) &&
            is(c, i + 1, "("))
            add(c, c->s->tok[i].off + n - 3, 3, "_rz");
    }
}

static void op_fast_math(ctx *c)
{
    static const char *const slow[] = { "expf", "logf", "log2f", "log10f", "sinf", "cosf", "tanf", "powf", "exp10f", NULL };
    for (int i = 0; i + 1 < c->s->ntok; i++)
        for (int k = 0; slow[k]; k++)
            if (is(c, i, slow[k]) && is(c, i + 1, "(") && !(i > 0 && (is(c, i - 1, ".") || is(c, i - 1, "::")))) {
                char r[32];
                snprintf(r, sizeof r, "__%s", slow[k]);
                add(c, c->s->tok[i].off, c->s->tok[i].len, r);
            }
}

/* for (init; cond; step): the two ';' inside, or -1. */
static int for_parts(const ctx *c, int i, int *s1, int *s2, int *close)
{
    if (!is(c, i, "for") || !is(c, i + 1, "(") || (*close = c->match[i + 1]) < 0) return -1;
    *s1 = *s2 = -1;
    for (int j = i + 2; j < *close; j++) {
        if (is(c, j, "(") || is(c, j, "[")) { j = c->match[j] < 0 ? j : c->match[j]; continue; }
        if (is(c, j, ";")) { if (*s1 < 0) *s1 = j; else *s2 = j; }
    }
    return *s1 > 0 && *s2 > 0 ? 0 : -1;
}

static void op_loop_bound(ctx *c)
{
    for (int i = 0; i + 1 < c->s->ntok; i++) {
        int s1, s2, close;
        if (for_parts(c, i, &s1, &s2, &close)) continue;
        for (int j = s1 + 1; j < s2; j++) {
            int lt = is(c, j, "<") || is(c, j, "<="), gt = is(c, j, ">") || is(c, j, ">=");
            if (!(lt || gt) || c->tmpl[j] || j + 1 >= s2) continue;
            int e = s2 - 1;
            for (int k = j + 1; k < s2; k++)
                if (is(c, k, "&&") || is(c, k, "||")) { e = k - 1; break; }
            add_wrap(c, j + 1, e, lt ? "(%s) - 1" : "(%s) + 1");
            break;
        }
    }
}

static void op_loop_stride(ctx *c)
{
    for (int i = 0; i + 1 < c->s->ntok; i++) {
        int s1, s2, close;
        if (for_parts(c, i, &s1, &s2, &close) || close <= s2 + 1) continue;
        int a = s2 + 1, b = close - 1;
        if (is(c, a, "++") || is(c, a, "--")) {
            char r[128];
            snprintf(r, sizeof r, "%.*s %s 2", (int)(tend(c, b) - c->s->tok[a + 1].off), T(c, a + 1), is(c, a, "++") ? "+=" : "-=");
            add(c, c->s->tok[a].off, tend(c, b) - c->s->tok[a].off, r);
        } else if (is(c, b, "++") || is(c, b, "--")) {
            char r[128];
            snprintf(r, sizeof r, "%.*s %s 2", (int)(c->s->tok[b].off - c->s->tok[a].off), T(c, a), is(c, b, "++") ? "+=" : "-=");
            add(c, c->s->tok[a].off, tend(c, b) - c->s->tok[a].off, r);
        } else {
            for (int j = a; j < b; j++) {
                const char *f = is(c, j, "+=") || is(c, j, "-=") || is(c, j, "*=") || is(c, j, "/=") ? "(%s) * 2"
                              : is(c, j, ">>=") || is(c, j, "<<=") ? "(%s) + 1" : NULL;
                if (f) { add_wrap(c, j + 1, b, f); break; }
            }
        }
    }
}

static void op_tile_index(ctx *c)
{
    int n = c->s->ntok;
    for (int i = 0; i < n; i++) {
        if (!is(c, i, "__shared__")) continue;
        int name = -1;          /* the declared array: the identifier before the first '[' */
        for (int j = i + 1; j < n && !is(c, j, ";"); j++)
            if (is(c, j, "[")) { name = j - 1; break; }
        if (name < 0 || kind(c, name) != KC_TOK_IDENT) continue;
        for (int j = 0; j + 1 < n; j++) {
            if (j == name || !is(c, j + 1, "[") || c->s->tok[j].len != c->s->tok[name].len ||
                memcmp(T(c, j), T(c, name), c->s->tok[name].len))
                continue;
            if (j > 0 && is(c, j - 1, ".")) continue;
            int b = j + 1;
            while (b < n && is(c, b, "[") && c->match[b] > b + 1) {
                add_wrap(c, b + 1, c->match[b] - 1, "(%s) + 1");
                b = c->match[b] + 1;
            }
        }
    }
}

int kc_mutate_source(const kc_src *s, const char *module, const char *file, unsigned ops_mask, kc_mutants *out,
                     char *err, size_t cap)
{
    ctx c = { .s = s, .module = module, .file = file, .out = out };
    if (prepare(&c)) {
        free(c.match); free(c.depth); free(c.tmpl);
        return kc_errf(err, cap, "out of memory mutating %s", file);
    }
    for (int k = 0; kc_mut_ops[k].name && !c.oom; k++) {
        if (!(ops_mask & (1u << k))) continue;
        c.op = &kc_mut_ops[k];
        const char *n = c.op->name;
        if (!strcmp(n, "relational")) op_relational(&c, 0);
        else if (!strcmp(n, "bound")) op_relational(&c, 1);
        else if (!strcmp(n, "arithmetic")) op_arithmetic(&c);
        else if (!strcmp(n, "constant")) op_constant(&c);
        else if (!strcmp(n, "statement_delete")) op_statement_delete(&c);
        else if (!strcmp(n, "guard_delete")) op_guard_delete(&c);
        else if (!strcmp(n, "early_return")) op_early_return(&c);
        else if (!strcmp(n, "sync_drop")) op_sync_drop(&c);
        else if (!strcmp(n, "shuffle")) op_shuffle(&c);
        else if (!strcmp(n, "dim_swap")) op_dim_swap(&c);
        else if (!strcmp(n, "index_swap")) op_index_swap(&c);
        else if (!strcmp(n, "atomic_plain")) op_atomic_plain(&c);
        else if (!strcmp(n, "accum_narrow")) op_accum_narrow(&c);
        else if (!strcmp(n, "rounding")) op_rounding(&c);
        else if (!strcmp(n, "fast_math")) op_fast_math(&c);
        else if (!strcmp(n, "loop_bound")) op_loop_bound(&c);
        else if (!strcmp(n, "loop_stride")) op_loop_stride(&c);
        else if (!strcmp(n, "tile_index")) op_tile_index(&c);
    }
    free(c.match);
    free(c.depth);
    free(c.tmpl);
    if (c.oom) return kc_errf(err, cap, "out of memory mutating %s", file);
    return c.added;
}

void kc_mutants_free(kc_mutants *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->v[i].orig);
        free(m->v[i].repl);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

char *kc_mutant_text(const kc_src *s, const kc_mutant *m)
{
    size_t rl = strlen(m->repl), n = s->len - m->len + rl;
    char *t = malloc(n + 1);
    if (!t) return NULL;
    memcpy(t, s->text, m->off);
    memcpy(t + m->off, m->repl, rl);
    memcpy(t + m->off + rl, s->text + m->off + m->len, s->len - m->off - m->len);
    t[n] = 0;
    return t;
}

char *kc_mutant_diff(const kc_src *s, const kc_mutant *m, int context)
{
    char *buf = NULL;
    size_t sz = 0;
    FILE *f = open_memstream(&buf, &sz);
    if (!f) return NULL;
    const char *t = s->text;
    /* the changed lines: from the start of off's line to the end of off+len's */
    size_t a = m->off, b = m->off + m->len;
    while (a > 0 && t[a - 1] != '\n') a--;
    while (b < s->len && t[b] != '\n') b++;
    if (b < s->len) b++;                                   /* with its newline */
    size_t ca = a, cb = b;
    for (int k = 0; k < context && ca > 0; k++) {
        ca--;
        while (ca > 0 && t[ca - 1] != '\n') ca--;
    }
    for (int k = 0; k < context && cb < s->len; k++) {
        while (cb < s->len && t[cb] != '\n') cb++;
        if (cb < s->len) cb++;
    }
    int first, col, nold = 0, nnew = 0, nbefore = 0, nafter = 0;
    kc_src_line_col(s, ca, &first, &col);
    for (size_t i = ca; i < a; i++) nbefore += t[i] == '\n';
    for (size_t i = b; i < cb; i++) nafter += t[i] == '\n';
    if (cb > b && t[cb - 1] != '\n') nafter++;
    for (size_t i = a; i < b; i++) nold += t[i] == '\n';
    if (b > a && t[b - 1] != '\n') nold++;
    /* the new text of the changed lines */
    size_t rl = strlen(m->repl);
    size_t nl = (m->off - a) + rl + (b - m->off - m->len);
    char *nw = malloc(nl + 2);
    if (!nw) { fclose(f); free(buf); return NULL; }
    memcpy(nw, t + a, m->off - a);
    memcpy(nw + (m->off - a), m->repl, rl);
    memcpy(nw + (m->off - a) + rl, t + m->off + m->len, b - m->off - m->len);
    if (nl == 0 || nw[nl - 1] != '\n') nw[nl++] = '\n';
    nw[nl] = 0;
    for (size_t i = 0; i < nl; i++) nnew += nw[i] == '\n';
    if (b == a) nold = 0;
    fprintf(f, "--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n", m->file, m->file, first, nbefore + nold + nafter, first,
            nbefore + nnew + nafter);
    const char *segs[3][2] = { { t + ca, t + a }, { t + a, t + b }, { t + b, t + cb } };
    for (int sg = 0; sg < 3; sg++) {
        const char *p = segs[sg][0], *e = segs[sg][1];
        while (p < e) {
            const char *q = memchr(p, '\n', (size_t)(e - p));
            size_t n = q ? (size_t)(q - p) : (size_t)(e - p);
            fprintf(f, "%c%.*s\n", sg == 1 ? '-' : ' ', (int)n, p);
            p += n + (q != NULL);
        }
        if (sg == 1)
            for (const char *p2 = nw; *p2;) {
                const char *q = strchr(p2, '\n');
                fprintf(f, "+%.*s\n", (int)(q - p2), p2);
                p2 = q + 1;
            }
    }
    free(nw);
    if (fclose(f) != 0) { free(buf); return NULL; }
    return buf;
}
