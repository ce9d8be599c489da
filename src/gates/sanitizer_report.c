/* sanitizer_report.c — compute-sanitizer's tools by name, and the first
 * error of its report read in its own words (sanitizer_report.h). */
#include "sanitizer_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static const char *const TOOLS[KC_SAN_TOOLS] = { "memcheck", "racecheck", "initcheck", "synccheck" };

const char *kc_sanitizer_tool(int tool) { return tool >= 0 && tool < KC_SAN_TOOLS ? TOOLS[tool] : "?"; }

#define PREFIX "========="

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Copies line [s, e) into dst, trimmed at both ends. */
static void copy_trim(char *dst, size_t cap, const char *s, const char *e)
{
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    size_t n = (size_t)(e - s);
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

/* The kernel of "at <kernel>(args)+0x70 in f.cu:12" (current versions) or
 * "at 0x70 in f.cu:12:<kernel>(args)" (older ones). */
static void kernel_of(const char *where, char *dst, size_t cap)
{
    const char *s = where + (starts(where, "at ") ? 3 : 0), *plus = strstr(s, "+0x");
    dst[0] = 0;
    if (plus && !starts(s, "0x")) {
        const char *paren = memchr(s, '(', (size_t)(plus - s));
        const char *e = paren ? paren : plus;
        if (starts(s, "void ")) s += 5;
        snprintf(dst, cap, "%.*s", (int)(e - s), s);
        return;
    }
    const char *in = strstr(s, " in ");
    if (!in) return;
    const char *c = strchr(in + 4, ':');                /* file:line:kernel */
    while (c && c[1] >= '0' && c[1] <= '9') c++;
    if (c && (c = strchr(c + 1, ':')) != NULL) {
        const char *k = c + 1, *paren = strchr(k, '(');
        if (starts(k, "void ")) k += 5;
        snprintf(dst, cap, "%.*s", (int)(paren ? paren - k : (long)strlen(k)), k);
    }
}

/* An unindented report line that is not an error. */
static int not_an_error(const char *l)
{
    static const char *const notes[] = {
        "COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY", "Target application",
        "Error: process didn't terminate", "Error: Target application", "No CUDA", "This application",
        "Error: No attachable process",
        "Info:", "INFO:",       /* racecheck's identical-value writes: benign by its own analysis */
    };
    if (!*l) return 1;
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (starts(l, notes[i])) return 1;
    return 0;
}

int kc_sanitizer_parse(const char *text, kc_san_error *e)
{
    memset(e, 0, sizeof *e);
    e->errors = -1;
    int in_error = 0, found = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
        const char *q = strstr(p, PREFIX);
        if (q && q < end) {
            const char *body = q + strlen(PREFIX);
            int indent = 0;
            while (body < end && *body == ' ') body++, indent++;
            char l[1024];
            copy_trim(l, sizeof l, body, end);
            long n;
            if (sscanf(l, "ERROR SUMMARY: %ld error", &n) == 1) e->errors = n;
            else if (sscanf(l, "RACECHECK SUMMARY: %ld hazard", &n) == 1 && e->errors < 0) e->errors = n;
            if (indent <= 1) {
                in_error = 0;
                if (!found && !not_an_error(l)) {
                    found = in_error = 1;
                    snprintf(e->what, sizeof e->what, "%.255s", l);
                    const char *at = strstr(l, " access at ");     /* racecheck names its first site on this line */
                    if (at) {
                        snprintf(e->where, sizeof e->where, "%.383s", at + 8);
                        kernel_of(e->where, e->kernel, sizeof e->kernel);
                    }
                }
            } else if (in_error) {
                int tx, ty, tz, bx, by, bz;
                if (starts(l, "at ") && !strstr(e->where, " in ")) {
                    snprintf(e->where, sizeof e->where, "%.383s", l);
                    kernel_of(l, e->kernel, sizeof e->kernel);
                } else if (starts(l, "and ") && strstr(l, " access at ")) {
                    kc_strcatf(e->where, sizeof e->where, "%s%s", *e->where ? "; " : "", l);       /* racecheck's second access */
                } else if (sscanf(l, "by thread (%d,%d,%d) in block (%d,%d,%d)", &tx, &ty, &tz, &bx, &by, &bz) == 6) {
                    snprintf(e->thread, sizeof e->thread, "(%d,%d,%d)", tx, ty, tz);
                    snprintf(e->block, sizeof e->block, "(%d,%d,%d)", bx, by, bz);
                } else if (starts(l, "Address ") || (starts(l, "and is ") && e->address[0])) {
                    kc_strcatf(e->address, sizeof e->address, "%s%s", *e->address ? " " : "", l);
                } else if (starts(l, "Saved host backtrace") || starts(l, "Host Frame") || starts(l, "Device Frame")) {
                    in_error = 2;       /* backtraces end what this line needs */
                }
            }
        }
        p = nl ? nl + 1 : NULL;
    }
    return found;
}

/* Cuts a trailing " [N hazards]" (or "[1 hazard]") off l. racecheck counts
 * the hazards of a pair of accesses as its analysis threads meet them, and
 * the count is not the same from one run to the next: on an H100 one
 * planted race's pair was "[2292 hazards]" in its run alone and "[2324
 * hazards]" in a batch (docs/receipts/2026-12-06-planted-race-batches).
 * The pair of places is the report; the count is not. */
static void cut_hazard_count(char *l)
{
    char *b = strrchr(l, '[');
    unsigned long n;
    char word[16];
    int used = 0;
    if (b && b > l && b[-1] == ' ' && sscanf(b, "[%lu %15[a-z]]%n", &n, word, &used) == 2 && used > 0 &&
        b[used] == 0 && (strcmp(word, "hazards") == 0 || strcmp(word, "hazard") == 0))
        b[-1] = 0;
}

/* A report line longer than this is cut; a report with such a line never
 * equals another (what tells two apart may be past the cut: a C++ template
 * name runs to thousands of characters, its offset after it). */
#define REPORT_LINE_MAX 4096
#define SIG_MAX (2 * REPORT_LINE_MAX + 2)

/* The next report of text from *p on into sig (SIG_MAX bytes): its error
 * line, trimmed, and when the line after it is racecheck's second access
 * ("and Read access at ..."), " " and that line too, less its hazard count
 * (cut_hazard_count); *cut 1 when a line of it was longer than
 * REPORT_LINE_MAX (cut), else 0. 1, or 0 at the end; *p moves past what was
 * read. */
static int next_report(const char **p, char *sig, int *cut)
{
    int in = 0;
    *cut = 0;
    while (*p && **p) {
        const char *s = *p, *nl = strchr(s, '\n'), *end = nl ? nl : s + strlen(s);
        const char *q = strstr(s, PREFIX);
        char l[REPORT_LINE_MAX];
        int indent = 0;
        if (q && q < end) {
            const char *body = q + strlen(PREFIX);
            while (body < end && *body == ' ') body++, indent++;
            copy_trim(l, sizeof l, body, end);
        }
        const int long_line = q && q < end && strlen(l) == sizeof l - 1;
        if (in) {       /* the line after an error line: its second access, or the next report's start */
            if (q && q < end && indent > 1 && starts(l, "and ") && strstr(l, " access at ")) {
                cut_hazard_count(l);
                kc_strcatf(sig, SIG_MAX, " %s", l);
                *cut |= long_line;
                *p = nl ? nl + 1 : NULL;
            }
            return 1;
        }
        *p = nl ? nl + 1 : NULL;
        if (q && q < end && indent <= 1 && !not_an_error(l)) {
            snprintf(sig, SIG_MAX, "%s", l);
            *cut = long_line;
            in = 1;
        }
    }
    return in;
}

int kc_sanitizer_count(const char *text)
{
    char sig[SIG_MAX];
    int n = 0, cut;
    for (const char *p = text; next_report(&p, sig, &cut);) n++;
    return n;
}

int kc_sanitizer_unmatched(const char *text, const char *known, char *dst, size_t cap)
{
    int nk = kc_sanitizer_count(known), unmatched = 0;
    char (*k)[SIG_MAX] = nk ? malloc((size_t)nk * sizeof *k) : NULL, sig[SIG_MAX];
    char *used = nk ? calloc((size_t)nk, 1) : NULL;
    if (nk && (!k || !used)) {              /* nothing can be matched: every report is unmatched */
        free(k), free(used);
        nk = 0, k = NULL, used = NULL;
    }
    int i = 0, cut;
    for (const char *p = known; i < nk && next_report(&p, k[i], &cut);) {
        if (cut) k[i][0] = 0;       /* cut: it accounts for no report (no report's signature is empty) */
        i++;
    }
    for (const char *p = text; next_report(&p, sig, &cut);) {
        int j = cut ? nk : 0;      /* cut: no report accounts for it */
        while (j < nk && (used[j] || strcmp(k[j], sig) != 0)) j++;
        if (j < nk) {
            used[j] = 1;
            continue;
        }
        if (!unmatched++) snprintf(dst, cap, "%s", sig);
    }
    free(k), free(used);
    return unmatched;
}

void kc_sanitizer_describe(const char *tool, const kc_san_error *e, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s: %s", tool, e->what);
#define ADD(...) do { if (n >= 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, __VA_ARGS__); } while (0)
    if (e->kernel[0]) ADD(" in kernel %s", e->kernel);
    if (e->where[0] && !strstr(e->what, e->where)) ADD(" %s", e->where);
    if (e->thread[0]) ADD(", thread %s block %s", e->thread, e->block);
    if (e->address[0]) ADD(", %s", e->address);
    if (e->errors > 1) ADD(" (%ld errors in all)", e->errors);
#undef ADD
}

int kc_sanitizer_last_line(const char *out, const char *prefix, char *dst, size_t cap)
{
    int found = 0;
    for (const char *p = out; p && *p;) {
        const char *nl = strchr(p, '\n');
        if (starts(p, prefix)) {
            copy_trim(dst, cap, p + strlen(prefix), nl ? nl : p + strlen(p));
            found = 1;
        }
        p = nl ? nl + 1 : NULL;
    }
    return found;
}
