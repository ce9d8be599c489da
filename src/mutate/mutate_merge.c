/* mutate_merge.c — the shards' mutation reports made one (mutate_merge.h). */
#include "mutate_merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "json_line.h"
#include "mutate_select.h"

/* What a report may say of a mutant, by class: its selection (accepted,
 * sampled out), its build (unviable, equivalent, duplicate) or its run. */
static int is_run(kc_mut_state s)
{
    return s == KC_MUT_VIABLE || s == KC_MUT_CAUGHT || s == KC_MUT_MISSED || s == KC_MUT_TIMEOUT || s == KC_MUT_NOTRUN;
}

static int decided(kc_mut_state s) { return s == KC_MUT_CAUGHT || s == KC_MUT_MISSED || s == KC_MUT_TIMEOUT; }

static int state_of(const char *name)
{
    for (int s = 0; s < KC_MUT_STATE_COUNT; s++)
        if (!strcmp(kc_mut_state_name((kc_mut_state)s), name)) return s;
    return -1;
}

static int find(const kc_mutants *m, const char *id)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->v[i].id, id)) return i;
    return -1;
}

/* The outcome report line `line` gives mutant status x: its state s and
 * what the line says of it (gate, duplicate_of, why, item). */
static void take_outcome(kc_mut_status *x, kc_mut_state s, const char *line)
{
    long gate = 0;
    x->state = s;
    x->gate = kc_json_line_int(line, "gate", &gate) == 0 ? (int)gate : 0;
    if (kc_json_line_str(line, "duplicate_of", x->dup_of, sizeof x->dup_of) != 0) x->dup_of[0] = 0;
    if (kc_json_line_str(line, "why", x->why, sizeof x->why) != 0) x->why[0] = 0;
    if (kc_json_line_str(line, "item", x->item, sizeof x->item) != 0) x->item[0] = 0;
    x->skipped = s == KC_MUT_NOTRUN && strstr(line, ",\"skipped\":true") != NULL;
}

typedef int (*mutant_line_fn)(void *ctx, const char *f, int no, const char *line, char *err, size_t cap);

/* Calls fn on each "mutant" line of the --json report at path (given to
 * option opt); *mutants counts them. First its closing "mutation" line:
 * the selection of contracts that judged its mutants must be sel, this
 * run's (mutate_select.h); then each mutant line's item must be of a
 * contract of sel. 0; -1 with err naming the file and line: unreadable,
 * another selection or none recorded, a line that is not a report's, an
 * item of a contract not in sel, fn's refusal, or no closing "mutation"
 * line (a run cut short). */
static int each_mutant_line(const char *path, const char *opt, const kc_mut_selection *sel, mutant_line_fn fn,
                            void *ctx, int *mutants, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return kc_errf(err, cap, "%s %s: cannot read it: %s", opt, path, strerror(errno));
    char *line = NULL;
    size_t lcap = 0;
    int no = 0, summary = 0, bad = 0;
    *mutants = 0;
    /* the selection first: a report of another is refused as that, not by its first line this run does not
     * make; a report with no summary line is read on, to say which of its lines is not a report's first */
    for (ssize_t len; !bad && (len = getline(&line, &lcap, f)) >= 0;) {
        char type[32];
        if (kc_json_line_str(line, "type", type, sizeof type) == 0 && !strcmp(type, "mutation")) {
            summary = 1;
            bad = kc_mut_selection_check(sel, line, path, opt, err, cap);
        }
    }
    if (!bad && summary && ferror(f)) bad = kc_errf(err, cap, "%s %s: reading it failed", opt, path);
    if (bad || fseek(f, 0, SEEK_SET)) {
        if (!bad) kc_errf(err, cap, "%s %s: cannot read it again: %s", opt, path, strerror(errno));
        free(line);
        fclose(f);
        return -1;
    }
    summary = 0;
    for (ssize_t len; !bad && (len = getline(&line, &lcap, f)) >= 0;) {
        no++;
        char type[32];
        if (kc_json_line_str(line, "type", type, sizeof type) != 0) {
            bad = kc_errf(err, cap, "%s:%d: not a line of a kcontract mutate --json report", path, no);
        } else if (!strcmp(type, "mutant")) {
            ++*mutants;
            char id[32];
            if (kc_json_line_str(line, "id", id, sizeof id) == 0)
                bad = kc_mut_selection_check_item(sel, line, id, path, no, err, cap);
            if (!bad) bad = fn(ctx, path, no, line, err, cap);
        } else if (!strcmp(type, "mutation")) {
            summary = 1;
        }
    }
    free(line);
    fclose(f);
    if (bad) return -1;
    if (!summary)
        return kc_errf(err, cap, "%s: no closing \"mutation\" line: the report was cut short (its run did not finish)",
                       path);
    return 0;
}

/* What merge_line reads and changes. */
typedef struct merge_ctx {
    const kc_mutants *m;
    kc_mut_status *st;
    int *seen;
    const char **by;
} merge_ctx;

/* One mutant line of file f (line no): merged into st[i]; seen[i] counts the reports that named it,
 * by[i] the file that decided it. */
static int merge_line(void *ctx, const char *f, int no, const char *line, char *err, size_t cap)
{
    const merge_ctx *c = ctx;
    const kc_mutants *m = c->m;
    kc_mut_status *st = c->st;
    int *seen = c->seen;
    const char **by = c->by;
    char id[32], name[32], module[96];
    if (kc_json_line_str(line, "id", id, sizeof id) || kc_json_line_str(line, "state", name, sizeof name) ||
        kc_json_line_str(line, "module", module, sizeof module))
        return kc_errf(err, cap, "%s:%d: a mutant line without its id, module or state (expected the --json report of "
                       "kcontract mutate)", f, no);
    int s = state_of(name), i = find(m, id);
    if (s < 0) return kc_errf(err, cap, "%s:%d: mutant %s: unknown state '%s'", f, no, id, name);
    if (i < 0 || strcmp(m->v[i].module, module))
        return kc_errf(err, cap, "%s:%d: mutant %s (module %s) is not one the operators make from the current sources: "
                       "the shards ran other sources or --operators", f, no, id, module);
    kc_mut_status *x = &st[i];
    /* this run's selection marks against the report's */
    int mine_sel = x->state == KC_MUT_ACCEPTED || x->state == KC_MUT_SAMPLED_OUT;
    int theirs_sel = s == KC_MUT_ACCEPTED || s == KC_MUT_SAMPLED_OUT;
    if (mine_sel || theirs_sel) {
        if ((int)x->state != s)
            return kc_errf(err, cap, "%s:%d: mutant %s is %s there and %s here: merge with the shards' --budget, --seed "
                           "and --accepted", f, no, id, name, kc_mut_state_name(x->state));
        seen[i]++;
        return 0;
    }
    int first = !seen[i]++;
    if (!first) {
        int same_build = is_run(x->state) && is_run((kc_mut_state)s) ? 1 : (int)x->state == s;
        if (!same_build)
            return kc_errf(err, cap, "%s:%d: mutant %s is %s there and %s in %s: the shards built different code", f,
                           no, id, name, kc_mut_state_name(x->state), by[i]);
        if (decided((kc_mut_state)s) && decided(x->state))
            return kc_errf(err, cap, "%s:%d: mutant %s was run by two shards (%s there, %s in %s): the shards overlap",
                           f, no, id, name, kc_mut_state_name(x->state), by[i]);
        /* not run by both: skipped when a shard that ran it skipped it (the others' notrun is not having
         * had it in their slice) */
        if (!decided((kc_mut_state)s)) {
            if (s == KC_MUT_NOTRUN && x->state == KC_MUT_NOTRUN && !x->skipped && strstr(line, ",\"skipped\":true"))
                take_outcome(x, (kc_mut_state)s, line);
            return 0;
        }
    }
    take_outcome(x, (kc_mut_state)s, line);
    by[i] = f;
    return 0;
}

int kc_mutate_merge(char *const *files, int nfiles, const kc_mutants *m, const kc_mut_selection *sel, kc_mut_status *st,
                    char *err, size_t cap)
{
    int *seen = calloc((size_t)m->n + 1, sizeof *seen);
    const char **by = calloc((size_t)m->n + 1, sizeof *by);
    int rc = -1;
    if (!seen || !by) {
        kc_errf(err, cap, "out of memory");
        goto out;
    }
    merge_ctx mc = { m, st, seen, by };
    for (int k = 0; k < nfiles; k++) {
        int mutants;
        if (each_mutant_line(files[k], "--merge-json", sel, merge_line, &mc, &mutants, err, cap)) goto out;
        if (mutants != m->n) {
            kc_errf(err, cap, "%s holds %d mutants, the current sources make %d: a report of another selection or "
                    "source", files[k], mutants, m->n);
            goto out;
        }
    }
    for (int i = 0; i < m->n; i++)
        if (st[i].state == KC_MUT_VIABLE || st[i].state == KC_MUT_PENDING) st[i].state = KC_MUT_NOTRUN;
    rc = 0;
out:
    free(seen);
    free(by);
    return rc;
}

/* Whether report line `line` describes mutant x as the current sources make
 * it: the same file, line, column, original and replacement text. The id
 * hashes the module, operator, offset and texts, not the rest of the source;
 * the position and texts at least tie the verdict to the code it judged. */
static int same_mutant(const char *line, const kc_mutant *x)
{
    char file[512], orig[256], repl[256];
    long ln = 0, col = 0;
    return !kc_json_line_str(line, "file", file, sizeof file) && !strcmp(file, x->file) &&
           !kc_json_line_int(line, "line", &ln) && ln == x->line && !kc_json_line_int(line, "column", &col) &&
           col == x->col && !kc_json_line_str(line, "original", orig, sizeof orig) && !strcmp(orig, x->orig) &&
           !kc_json_line_str(line, "replacement", repl, sizeof repl) && !strcmp(repl, x->repl);
}

/* Whether an earlier outcome s is carried (the mutant is not built or run
 * again): a verdict that caught it, or its build's outcome. A missed or
 * not-run mutant is judged again. Between reports, a verdict replaces a
 * build outcome, never the other way (iterate_line). */
static int carried_state(kc_mut_state s)
{
    return s == KC_MUT_CAUGHT || s == KC_MUT_TIMEOUT || s == KC_MUT_UNVIABLE || s == KC_MUT_EQUIVALENT ||
           s == KC_MUT_DUPLICATE;
}

/* What iterate_line reads and changes. */
typedef struct iterate_ctx {
    const kc_mutants *m;
    kc_mut_status *st;
    int *stale;
} iterate_ctx;

static int iterate_line(void *ctx, const char *f, int no, const char *line, char *err, size_t cap)
{
    const iterate_ctx *c = ctx;
    const kc_mutants *m = c->m;
    char id[32], name[32];
    if (kc_json_line_str(line, "id", id, sizeof id) || kc_json_line_str(line, "state", name, sizeof name))
        return kc_errf(err, cap, "%s:%d: a mutant line without its id or state (expected the --json report of "
                       "kcontract mutate)", f, no);
    int s = state_of(name), i = find(m, id);
    if (s < 0) return kc_errf(err, cap, "%s:%d: mutant %s: unknown state '%s'", f, no, id, name);
    if (!carried_state((kc_mut_state)s)) return 0;
    if (i < 0 || !same_mutant(line, &m->v[i])) {
        (*c->stale)++;
        return 0;
    }
    kc_mut_status *x = &c->st[i];
    if (x->state != KC_MUT_PENDING && !x->carried) return 0;  /* accepted or sampled out in this run */
    if (x->carried && !decided((kc_mut_state)s)) return 0;    /* a build outcome never replaces a verdict */
    take_outcome(x, (kc_mut_state)s, line);
    x->carried = 1;
    return 0;
}

int kc_mutate_iterate(char *const *files, int nfiles, const kc_mutants *m, const kc_mut_selection *sel,
                      kc_mut_status *st, int *stale, char *err, size_t cap)
{
    *stale = 0;
    iterate_ctx ic = { m, st, stale };
    for (int k = 0; k < nfiles; k++) {
        int mutants;
        if (each_mutant_line(files[k], "--iterate", sel, iterate_line, &ic, &mutants, err, cap)) return -1;
    }
    int n = 0;
    for (int i = 0; i < m->n; i++) n += st[i].carried;
    return n;
}
