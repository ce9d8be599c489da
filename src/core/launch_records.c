/* launch_records.c — reads launch-record files (launch_records.h, docs/launch-records.md)
 * and turns each record into a kernel item whose contract is a copy of the
 * registered one with the record as its only shape. Parsing is strict: each
 * problem is reported as FILE:LINE, the offending token and what was expected. */
#include "launch_records.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progname.h"
#include "registry.h"

/* ---- problems ------------------------------------------------------------ */

typedef struct errs {
    char *buf;
    size_t cap, len;
    int count;
    const char *path;
} errs;

static void problem(errs *e, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(errs *e, int line, const char *fmt, ...)
{
    if (e->count++ >= KC_RECORD_MAX_ERRORS || !e->cap || e->len + 1 >= e->cap) return;
    int p = line > 0 ? snprintf(e->buf + e->len, e->cap - e->len, "%s%s:%d: ", e->len ? "\n" : "", e->path, line)
                     : snprintf(e->buf + e->len, e->cap - e->len, "%s%s: ", e->len ? "\n" : "", e->path);
    if (p < 0 || (size_t)p >= e->cap - e->len) { e->len = strlen(e->buf); return; }
    e->len += (size_t)p;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->buf + e->len, e->cap - e->len, fmt, ap);
    va_end(ap);
    e->len = strlen(e->buf);
}

/* A contract name for a refusal's example: the binary's first registered
 * one, so a suite of one's own (my_suite) names one of its contracts, not
 * kcontract's bundled rmsnorm.f16 (the fallback when none is registered). */
static const char *example_contract(void)
{
    const kc_contract *const *cs;
    size_t n = kc_registry_contracts(&cs);
    return n && cs[0]->name ? cs[0]->name : "rmsnorm.f16";
}

static void problems_close(errs *e)
{
    if (e->count > KC_RECORD_MAX_ERRORS && e->cap && e->len + 1 < e->cap)
        snprintf(e->buf + e->len, e->cap - e->len, "\n%s: ... and %d more problem%s", e->path,
                 e->count - KC_RECORD_MAX_ERRORS, e->count - KC_RECORD_MAX_ERRORS == 1 ? "" : "s");
}

/* ---- one line ------------------------------------------------------------ */

static int is_space(char ch) { return ch == ' ' || ch == '\t'; }

static int label_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
              ch == '_' || ch == '-' || ch == '+'))
            return 0;
    }
    return n > 0;
}

/* The dims of c, space-separated, for messages. */
static void dims_list(const kc_contract *c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int d = 0; d < KC_MAX_DIMS && c->dims[d] && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", d ? " " : "", c->dims[d]);
}

/* Strict value: decimal digits, no sign, no leading zeros, <= KC_RECORD_MAX_VALUE.
 * Returns 0, or -1 with what was expected in why. */
static int parse_value(const char *v, size_t n, const char *dim, int64_t *out, char *why, size_t cap)
{
    if (n == 0) {
        snprintf(why, cap, "expected a non-negative integer for %s after '='", dim);
        return -1;
    }
    if (v[0] == '-') {
        snprintf(why, cap, "%s must not be negative (expected 0..%lld)", dim, KC_RECORD_MAX_VALUE);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] < '0' || v[i] > '9') {
            snprintf(why, cap, "expected a non-negative decimal integer for %s (digits only)", dim);
            return -1;
        }
    if (n > 1 && v[0] == '0') {
        snprintf(why, cap, "expected a decimal integer for %s without leading zeros", dim);
        return -1;
    }
    int64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        x = x * 10 + (v[i] - '0');
        if (x > KC_RECORD_MAX_VALUE) {
            snprintf(why, cap, "%s is out of range (expected 0..%lld: kernels take 32-bit sizes)", dim,
                     KC_RECORD_MAX_VALUE);
            return -1;
        }
    }
    *out = x;
    return 0;
}

/* A count function multiplies at most four dims and a constant of at most
 * 128 (attention's head size), and adds at most eight such products
 * (attention prefill sums five sequence lengths): with the four largest dims
 * (0 read as 1) multiplying to less than 2^50, every count stays below
 * 2^3 x 2^7 x 2^50 = 2^60 and every byte size derived from it (x 8 for a
 * float64 reference) below 2^63. KC_RECORD_MAX_PRODUCT_LOG2 is that bound;
 * the shipped records reach 2^44 (an lm_head GEMV). A wrapped count would
 * size a buffer far smaller than the dims it is launched with (found by a
 * break-it pass, 2026-11-30, with three dims near 2^31). */
#define KC_RECORD_MAX_PRODUCT_LOG2 50
static int counts_safe(const kc_shape *s)
{
    uint64_t v[KC_MAX_DIMS];
    for (int i = 0; i < KC_MAX_DIMS; i++) v[i] = s->d[i] > 0 ? (uint64_t)s->d[i] : 1;
    for (int i = 0; i < 4 && i < KC_MAX_DIMS; i++)
        for (int j = i + 1; j < KC_MAX_DIMS; j++)
            if (v[j] > v[i]) { uint64_t t = v[i]; v[i] = v[j]; v[j] = t; }
    uint64_t p = 1;
    for (int i = 0; i < 4 && i < KC_MAX_DIMS; i++)
        if (__builtin_mul_overflow(p, v[i], &p)) return 0;
    return p < (1ull << KC_RECORD_MAX_PRODUCT_LOG2);
}

/* Copies the known findings of c that apply to the record's shape name. */
static void copy_known(kc_launch_record *r)
{
    const kc_contract *c = r->registered;
    memset(r->c.known, 0, sizeof r->c.known);
    int k = 0;
    for (int i = 0; i < KC_MAX_KNOWN && c->known[i].reason; i++)
        if (!c->known[i].shape || fnmatch(c->known[i].shape, r->label, 0) == 0) r->c.known[k++] = c->known[i];
}

/* Parses line `ln` (n bytes, no newline) into r. Returns 1 for a record, 0 for
 * a blank or comment line, -1 after reporting problems. */
static int parse_line(errs *e, int ln, const char *s, size_t n, kc_launch_record *r)
{
    if (n && s[n - 1] == '\r') n--;                 /* CRLF files */
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
            problem(e, ln, "control character 0x%02X at column %zu (expected printable text)", ch, i + 1);
            return -1;
        }
    }
    /* Tokens: runs of non-blanks; a token starting with '#' starts a comment. */
    const char *tok[64];
    size_t tlen[64];
    int nt = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && is_space(s[i])) i++;
        if (i >= n || s[i] == '#') break;
        size_t j = i;
        while (j < n && !is_space(s[j])) j++;
        if (nt == 64) {
            problem(e, ln, "more than 64 tokens (expected a contract name and at most %d dims and a name=)", KC_MAX_DIMS);
            return -1;
        }
        tok[nt] = s + i;
        tlen[nt++] = j - i;
        i = j;
    }
    if (!nt) return 0;
    char cname[160];
    if (tlen[0] >= sizeof cname) {
        problem(e, ln, "'%.40s...': unknown contract (expected a contract name, e.g. %s; `%s list` shows them)", tok[0],
                example_contract(), kc_prog());
        return -1;
    }
    memcpy(cname, tok[0], tlen[0]);
    cname[tlen[0]] = 0;
    const kc_contract *c = kc_registry_find_contract(cname);
    if (!c) {
        problem(e, ln, "'%s': unknown contract (expected a contract name first, e.g. %s; the kernel items of `%s list` are the contracts)",
                cname, example_contract(), kc_prog());
        return -1;
    }
    memset(r, 0, sizeof *r);
    r->registered = c;
    r->line = ln;
    r->shape[0].cls = KC_SHAPE_MODEL;
    int given[KC_MAX_DIMS] = { 0 }, label_tok = -1, bad = 0;
    char dl[256], why[256];
    dims_list(c, dl, sizeof dl);
    for (int t = 1; t < nt; t++) {
        const char *eq = memchr(tok[t], '=', tlen[t]);
        int tl = (int)tlen[t];
        if (!eq) {
            problem(e, ln, "'%.*s': expected <dim>=<integer> (dims of %s: %s) or name=<label>", tl, tok[t], c->name, dl);
            bad = 1;
            continue;
        }
        size_t kl = (size_t)(eq - tok[t]), vl = tlen[t] - kl - 1;
        const char *v = eq + 1;
        if (kl == 4 && memcmp(tok[t], "name", 4) == 0) {
            if (label_tok >= 0) {
                problem(e, ln, "'%.*s': name= given twice (first '%.*s')", tl, tok[t], (int)tlen[label_tok], tok[label_tok]);
                bad = 1;
            } else if (!label_ok(v, vl) || vl > KC_RECORD_MAX_LABEL) {
                problem(e, ln, "'%.*s': expected name=<label>, 1 to %d characters of A-Z a-z 0-9 . _ - +", tl, tok[t],
                        KC_RECORD_MAX_LABEL);
                bad = 1;
            } else {
                label_tok = t;
                memcpy(r->label, v, vl);
                r->label[vl] = 0;
                r->labelled = 1;
            }
            continue;
        }
        int d = 0;
        while (d < KC_MAX_DIMS && c->dims[d] && !(strlen(c->dims[d]) == kl && memcmp(c->dims[d], tok[t], kl) == 0)) d++;
        if (d == KC_MAX_DIMS || !c->dims[d]) {
            problem(e, ln, "'%.*s': %s has no dim '%.*s' (expected one of: %s; or name=<label>)", tl, tok[t], c->name,
                    (int)kl, tok[t], dl);
            bad = 1;
            continue;
        }
        if (given[d]) {
            problem(e, ln, "'%.*s': dim %s given twice (expected each dim once)", tl, tok[t], c->dims[d]);
            bad = 1;
            continue;
        }
        given[d] = 1;
        if (parse_value(v, vl, c->dims[d], &r->shape[0].d[d], why, sizeof why)) {
            problem(e, ln, "'%.*s': %s", tl, tok[t], why);
            bad = 1;
        }
    }
    char missing[256] = "";
    size_t ml = 0;
    for (int d = 0; d < KC_MAX_DIMS && c->dims[d]; d++)
        if (!given[d] && ml < sizeof missing)
            ml += (size_t)snprintf(missing + ml, sizeof missing - ml, "%s%s", ml ? ", " : "", c->dims[d]);
    if (ml) {
        problem(e, ln, "%s: missing %s (every dim must be given once: %s)", c->name, missing, dl);
        bad = 1;
    }
    if (!c->dims[0] && label_tok < 0) {
        problem(e, ln, "%s names no dims: its records need name=<label>", c->name);
        bad = 1;
    }
    if (bad) return -1;
    if (!r->labelled) {
        size_t l = 0;
        for (int d = 0; d < KC_MAX_DIMS && c->dims[d] && l < sizeof r->label; d++)
            l += (size_t)snprintf(r->label + l, sizeof r->label - l, "%s%s=%lld", d ? "," : "", c->dims[d],
                                  (long long)r->shape[0].d[d]);
        if (l >= sizeof r->label) {
            problem(e, ln, "%s: the dims are too long for an item name (add name=<label>)", c->name);
            return -1;
        }
    }
    if ((size_t)snprintf(r->name, sizeof r->name, "%s@%s", c->name, r->label) >= sizeof r->name) {
        problem(e, ln, "item name %s@%s is longer than %zu bytes (use a shorter name=<label>)", c->name, r->label,
                sizeof r->name - 1);
        return -1;
    }
    if (!counts_safe(&r->shape[0])) {
        problem(e, ln, "%s: the four largest dims multiply to 2^%d or more: buffer sizes would overflow", c->name,
                KC_RECORD_MAX_PRODUCT_LOG2);
        return -1;
    }
    for (int a = 0; a < KC_MAX_ARGS && c->args[a].kind != KC_ARG_END; a++)
        if (c->args[a].kind == KC_ARG_BUFFER && c->args[a].count && c->args[a].count(&r->shape[0]) == 0) {
            problem(e, ln, "%s: buffer %s would have no elements with these dims (expected a launch with data)",
                    c->name, c->args[a].name);
            return -1;
        }
    return 1;
}

/* Gives the parsed record its contract copy (after the array stops moving). */
static void finish(kc_launch_record *r, const char *path)
{
    r->shape[0].name = r->label;
    r->c = *r->registered;
    r->c.shapes = r->shape;
    copy_known(r);
    snprintf(r->origin, sizeof r->origin, "%.300s:%d", path, r->line);
}

static int by_record_name(const void *a, const void *b)
{
    const kc_launch_record *x = *(kc_launch_record *const *)a, *y = *(kc_launch_record *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

kc_launch_records *kc_launch_records_parse(const char *path, const char *text, size_t len, char *err, size_t errcap)
{
    errs e = { .buf = err, .cap = errcap, .path = path };
    if (errcap) err[0] = 0;
    kc_launch_records *rs = calloc(1, sizeof *rs);
    int cap = 0;
    if (!rs) {
        problem(&e, 0, "out of memory");
        return NULL;
    }
    int ln = 0;
    for (size_t i = 0; i <= len;) {
        const char *s = text + i;
        const char *nl = memchr(s, '\n', len - i);
        size_t n = nl ? (size_t)(nl - s) : len - i;
        ln++;
        if (!nl && n == 0) break;                   /* end of file after a newline */
        if (memchr(s, '\0', n)) {
            problem(&e, ln, "NUL byte (expected a text file)");
            i += n + 1;
            continue;
        }
        if (rs->n == cap) {
            cap = cap ? cap * 2 : 8;
            kc_launch_record *nv = realloc(rs->v, (size_t)cap * sizeof *nv);
            if (!nv) {
                problem(&e, ln, "out of memory");
                break;
            }
            rs->v = nv;
        }
        if (parse_line(&e, ln, s, n, &rs->v[rs->n]) == 1) rs->n++;
        i += n + 1;
    }
    if (!e.count && !rs->n) problem(&e, 0, "no launch records (only blank lines and comments; expected lines like `rmsnorm.f16 tokens=1 hidden=4096 eps_exp10=5`)");
    {
        /* Duplicate item names, reported at the later line with the earlier one. */
        kc_launch_record **ord = malloc((size_t)rs->n * sizeof *ord);
        if (!ord) problem(&e, 0, "out of memory");
        for (int i = 0; ord && i < rs->n; i++) ord[i] = &rs->v[i];
        if (ord) qsort(ord, (size_t)rs->n, sizeof *ord, by_record_name);
        for (int i = 1; ord && i < rs->n; i++) {
            int j = i - 1;
            while (j > 0 && strcmp(ord[j - 1]->name, ord[i]->name) == 0) j--;
            if (strcmp(ord[j]->name, ord[i]->name) == 0)
                problem(&e, ord[i]->line, "item %s is also line %d's (expected each launch once; name=<label> tells apart records meant to differ)",
                        ord[i]->name, ord[j]->line);
        }
        free(ord);
    }
    if (e.count) {
        problems_close(&e);
        kc_launch_records_free(rs);
        return NULL;
    }
    for (int i = 0; i < rs->n; i++) finish(&rs->v[i], path);
    return rs;
}

kc_launch_records *kc_launch_records_load(const char *path, char *err, size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errcap, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) break;
        if (len == cap) {
            char *nb = cap > ((size_t)1 << 30) ? NULL : realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (!buf || rerr) {
        snprintf(err, errcap, "%s: cannot read: %s", path, buf ? "read error" : "out of memory or larger than 1 GiB");
        free(buf);
        return NULL;
    }
    kc_launch_records *r = kc_launch_records_parse(path, buf, len, err, errcap);
    free(buf);
    return r;
}

void kc_launch_records_free(kc_launch_records *r)
{
    if (!r) return;
    free(r->v);
    free(r);
}

static int by_item_name(const void *a, const void *b)
{
    return strcmp(((const kc_item *)a)->name, ((const kc_item *)b)->name);
}

int kc_launch_records_add_items(const kc_launch_records *r, kc_item **items, int n, int only_records, char *err, size_t errcap)
{
    int keep = only_records ? 0 : n;
    kc_item *v = malloc(((size_t)keep + (size_t)r->n + 1) * sizeof *v);
    if (!v) {
        snprintf(err, errcap, "out of memory adding the record items");
        return -1;
    }
    if (keep) memcpy(v, *items, (size_t)keep * sizeof *v);
    for (int i = 0; i < r->n; i++) {
        const kc_launch_record *rec = &r->v[i];
        kc_item it = { .kind = KC_KIND_KERNEL, .contract = &rec->c, .record = rec->origin };
        snprintf(it.name, sizeof it.name, "%s", rec->name);
        /* Registered names never contain '@' today; refuse a clash all the same. */
        for (int j = 0; j < n; j++)
            if (strcmp((*items)[j].name, it.name) == 0) {
                if ((*items)[j].record)   /* another --records file: say where */
                    snprintf(err, errcap, "%s: item %s is already the record at %s (labels must differ across files)",
                             rec->origin, it.name, (*items)[j].record);
                else
                    snprintf(err, errcap, "%s: item %s is already a registered %s item", rec->origin, it.name,
                             kc_kind_name((*items)[j].kind));
                free(v);
                return -1;
            }
        v[keep++] = it;
    }
    qsort(v, (size_t)keep, sizeof *v, by_item_name);
    free(*items);
    *items = v;
    return keep;
}

int kc_launch_records_apply(const char *path, int only_records, kc_item **items, int *n, kc_launch_records **out)
{
    char *err = malloc(16384);
    if (!err) return 4;
    kc_launch_records *r = kc_launch_records_load(path, err, 16384);
    int rc = 0;
    if (!r) {
        kc_say(stderr, "--records %s refused:\n", path);
        for (char *p = err, *e; *p; p = e) {
            e = strchr(p, '\n');
            if (!e) e = p + strlen(p);
            kc_say(stderr, "%.*s\n", (int)(e - p), p);
            if (*e) e++;
        }
        fprintf(stderr, "(docs/launch-records.md describes the format)\n");
        rc = 2;
    } else {
        int m = kc_launch_records_add_items(r, items, *n, only_records, err, 16384);
        if (m < 0) {
            kc_say(stderr, "--records %s: %s\n", path, err);
            kc_launch_records_free(r);
            r = NULL;
            rc = 2;
        } else {
            *n = m;
        }
    }
    free(err);
    *out = r;
    return rc;
}
