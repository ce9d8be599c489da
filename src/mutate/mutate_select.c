/* mutate_select.c — the contracts that judge a mutation run's mutants (mutate_select.h). */
#include "mutate_select.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "json_line.h"
#include "report_text.h"
#include "seed.h"

int kc_mut_selection_add(kc_mut_selection *s, const char *name)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        char **v = realloc(s->names, (size_t)cap * sizeof *v);
        if (!v) return -1;
        s->names = v;
        s->cap = cap;
    }
    if (!(s->names[s->n] = strdup(name))) return -1;
    s->n++;
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void kc_mut_selection_seal(kc_mut_selection *s)
{
    if (s->n) qsort(s->names, (size_t)s->n, sizeof *s->names, by_name);
    int k = 0;
    for (int i = 0; i < s->n; i++) {
        if (k && !strcmp(s->names[k - 1], s->names[i])) {
            free(s->names[i]);
            continue;
        }
        s->names[k++] = s->names[i];
    }
    s->n = k;
    uint64_t h = KC_FNV_OFFSET;
    for (int i = 0; i < s->n; i++) h = kc_fnv1a64("\n", 1, kc_fnv1a64(s->names[i], strlen(s->names[i]), h));
    s->hash = kc_mix64(h);
    snprintf(s->hex, sizeof s->hex, "%016" PRIx64, s->hash);
}

int kc_mut_selection_has(const kc_mut_selection *s, const char *name)
{
    return s->n && bsearch(&name, s->names, (size_t)s->n, sizeof *s->names, by_name) != NULL;
}

void kc_mut_selection_free(kc_mut_selection *s)
{
    for (int i = 0; i < s->n; i++) free(s->names[i]);
    free(s->names);
    memset(s, 0, sizeof *s);
}

void kc_mut_selection_json(FILE *f, const kc_mut_selection *s)
{
    fprintf(f, ",\"selection\":\"%s\",\"contracts\":[", s->hex);
    for (int i = 0; i < s->n; i++) {
        if (i) fputc(',', f);
        kc_json_string(f, s->names[i], strlen(s->names[i]));
    }
    fputc(']', f);
}

/* Appends to buf (at *len) the names of a not in b: at most 6, then how many more; "none" when none. */
static void only_in(const kc_mut_selection *a, const kc_mut_selection *b, char *buf, size_t cap)
{
    size_t len = 0;
    int shown = 0, more = 0;
    buf[0] = 0;
    for (int i = 0; i < a->n; i++) {
        if (kc_mut_selection_has(b, a->names[i])) continue;
        if (shown == 6) {
            more++;
            continue;
        }
        int w = snprintf(buf + len, cap - len, "%s%s", shown ? ", " : "", a->names[i]);
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
        shown++;
    }
    if (more) snprintf(buf + len, cap - len, " and %d more", more);
    else if (!shown) snprintf(buf, cap, "none");
}

int kc_mut_selection_check(const kc_mut_selection *s, const char *line, const char *path, const char *opt, char *err,
                           size_t cap)
{
    char hex[32];
    int r = kc_json_line_str(line, "selection", hex, sizeof hex);
    if (r == 1)
        return kc_errf(err, cap, "%s %s: the report does not say which contracts judged its mutants (no \"selection\" "
                       "in its \"mutation\" line: written before mutate recorded it), so its verdicts cannot be tied to "
                       "this run's %d contract%s (selection %s): run mutate again with --json under this selection",
                       opt, path, s->n, s->n == 1 ? "" : "s", s->hex);
    size_t bcap = strlen(line) + 1;
    char *buf = malloc(bcap);
    if (!buf) return kc_errf(err, cap, "out of memory");
    kc_mut_selection theirs = { 0 };
    int n = 0, bad = r != 0 || kc_json_line_strs(line, "contracts", buf, bcap, &n) != 0;
    for (const char *p = buf; !bad && n--; p += strlen(p) + 1)
        if (kc_mut_selection_add(&theirs, p)) {
            free(buf);
            kc_mut_selection_free(&theirs);
            return kc_errf(err, cap, "out of memory");
        }
    free(buf);
    kc_mut_selection_seal(&theirs);
    int rc = 0;
    if (bad) {
        rc = kc_errf(err, cap, "%s %s: its \"mutation\" line's \"selection\" or \"contracts\" is malformed (expected "
                     "the --json report of kcontract mutate)", opt, path);
    } else if (strcmp(hex, theirs.hex)) {
        rc = kc_errf(err, cap, "%s %s: its \"mutation\" line's selection %s is not that of the contracts it names (%s): "
                     "the report was changed after it was written", opt, path, hex, theirs.hex);
    } else if (strcmp(theirs.hex, s->hex) || theirs.n != s->n) {
        char there[700], here[700];
        only_in(&theirs, s, there, sizeof there);
        only_in(s, &theirs, here, sizeof here);
        rc = kc_errf(err, cap, "%s %s: its mutants were judged by another selection of contracts (selection %s, %d "
                     "contract%s) than this run's (%s, %d): only in that report: %s; only in this run: %s: a report's "
                     "verdicts count only under the contracts that made them: give the patterns its run was given", opt, path, theirs.hex,
                     theirs.n, theirs.n == 1 ? "" : "s", s->hex, s->n, there, here);
    } else {
        for (int i = 0; i < s->n && !rc; i++)       /* the same hash of other names: not expected, still refused */
            if (strcmp(s->names[i], theirs.names[i]))
                rc = kc_errf(err, cap, "%s %s: its contracts are not this run's (%s there, %s here)", opt, path,
                             theirs.names[i], s->names[i]);
    }
    kc_mut_selection_free(&theirs);
    return rc;
}

int kc_mut_selection_check_item(const kc_mut_selection *s, const char *line, const char *id, const char *path, int no,
                                char *err, size_t cap)
{
    char item[400];
    int r = kc_json_line_str(line, "item", item, sizeof item);
    if (r == 1) return 0;
    if (r != 0) return kc_errf(err, cap, "%s:%d: mutant %s: its \"item\" is malformed", path, no, id);
    char *mark = NULL;
    for (char *p = strstr(item, ":mutant."); p; p = strstr(p + 1, ":mutant.")) mark = p;
    if (!mark || strcmp(mark + 8, id))
        return kc_errf(err, cap, "%s:%d: mutant %s: its item '%s' is not one of it (<contract>:mutant.%s)", path, no,
                       id, item, id);
    *mark = 0;
    if (!kc_mut_selection_has(s, item))
        return kc_errf(err, cap, "%s:%d: mutant %s was judged by contract %s, which this run's selection does not hold: "
                       "a report's verdicts count only under the contracts that judged them", path, no, id, item);
    return 0;
}
