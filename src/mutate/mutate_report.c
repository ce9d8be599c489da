/* mutate_report.c — a mutation run's report (mutate_report.h). */
#include "mutate_report.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "errmsg.h"
#include "report_text.h"

void kc_mutate_count(const kc_mut_run *r, const char *module, const char *op, kc_mut_counts *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < r->m->n; i++) {
        const kc_mutant *x = &r->m->v[i];
        if ((module && strcmp(x->module, module)) || (op && strcmp(x->op->name, op))) continue;
        c->generated++;
        c->n[r->st[i].state]++;
        c->carried += r->st[i].carried != 0;
        if (r->st[i].state == KC_MUT_NOTRUN && r->st[i].skipped && !c->skipped++) c->skip_why = r->st[i].why;
        if (r->st[i].state == KC_MUT_CAUGHT && r->st[i].gate >= 0 && r->st[i].gate <= 5) c->by_gate[r->st[i].gate]++;
    }
}

/* viable: built and not equivalent: run or to run */
static int viable_of(const kc_mut_counts *c)
{
    return c->n[KC_MUT_VIABLE] + c->n[KC_MUT_CAUGHT] + c->n[KC_MUT_MISSED] + c->n[KC_MUT_TIMEOUT] + c->n[KC_MUT_NOTRUN];
}

void kc_mutate_score(const kc_mut_counts *c, char *buf, size_t cap)
{
    int kill = c->n[KC_MUT_CAUGHT] + c->n[KC_MUT_TIMEOUT], all = kill + c->n[KC_MUT_MISSED];
    if (!all) snprintf(buf, cap, "-");
    else snprintf(buf, cap, "%.2f", floor((double)kill * 100 / all) / 100);     /* cut, never rounded up to 1.00 */
}

static void counts_text(FILE *out, const kc_mut_counts *c)
{
    char score[16];
    kc_mutate_score(c, score, sizeof score);
    fprintf(out, "generated %d", c->generated);
    if (c->n[KC_MUT_ACCEPTED]) fprintf(out, ", accepted %d", c->n[KC_MUT_ACCEPTED]);
    if (c->n[KC_MUT_SAMPLED_OUT]) fprintf(out, ", left out by --budget %d", c->n[KC_MUT_SAMPLED_OUT]);
    fprintf(out, ", unviable %d, equivalent %d, duplicate %d, viable %d: caught %d", c->n[KC_MUT_UNVIABLE],
            c->n[KC_MUT_EQUIVALENT], c->n[KC_MUT_DUPLICATE], viable_of(c), c->n[KC_MUT_CAUGHT]);
    int any = 0;
    for (int g = 0; g <= 5; g++)
        if (c->by_gate[g]) {
            fprintf(out, "%s", any++ ? ", " : " (");
            if (g) fprintf(out, "gate %d: %d", g, c->by_gate[g]);
            else fprintf(out, "gate unknown: %d", c->by_gate[g]);
        }
    if (any) fputc(')', out);
    fprintf(out, ", missed %d, timeout %d", c->n[KC_MUT_MISSED], c->n[KC_MUT_TIMEOUT]);
    if (c->n[KC_MUT_NOTRUN]) fprintf(out, ", not run %d", c->n[KC_MUT_NOTRUN]);
    if (c->skipped == c->n[KC_MUT_NOTRUN] && c->skipped) fprintf(out, " (skipped: %s)", c->skip_why);
    else if (c->skipped) fprintf(out, " (%d of them skipped: %s)", c->skipped, c->skip_why);
    if (c->carried) fprintf(out, " (%d of them carried from earlier reports by --iterate)", c->carried);
    fprintf(out, ", score %s\n", score);
}

static const kc_mut_module *module_of(const kc_mut_run *r, const char *name)
{
    for (int k = 0; k < r->nmods; k++)
        if (!strcmp(r->mods[k].name, name)) return &r->mods[k];
    return NULL;
}

void kc_mutate_line(FILE *out, const kc_mut_run *r)
{
    kc_mut_counts c;
    char score[16];
    kc_mutate_count(r, NULL, NULL, &c);
    kc_mutate_score(&c, score, sizeof score);
    char carried[32] = "";
    if (c.carried) snprintf(carried, sizeof carried, " carried=%d", c.carried);
    fprintf(out, "MUTATION modules=%d generated=%d unviable=%d equivalent=%d viable=%d caught=%d missed=%d timeout=%d%s "
            "score=%s wall_s=%.0f\n", r->nmods, c.generated, c.n[KC_MUT_UNVIABLE],
            c.n[KC_MUT_EQUIVALENT] + c.n[KC_MUT_DUPLICATE], viable_of(&c), c.n[KC_MUT_CAUGHT], c.n[KC_MUT_MISSED],
            c.n[KC_MUT_TIMEOUT], carried, score, r->wall_s);
}

void kc_mutate_report_text(FILE *out, const kc_mut_run *r)
{
    kc_mut_counts c;
    fprintf(out, "\nmutation report\n");
    for (int k = 0; k < r->nmods; k++) {
        kc_mutate_count(r, r->mods[k].name, NULL, &c);
        fprintf(out, "  module %s (%s): ", r->mods[k].name, r->mods[k].path);
        counts_text(out, &c);
        /* its contracts: the items run */
        for (int i = 0; i < r->nitems; i++) {
            const kc_mut_item *it = &r->items[i];
            if (strcmp(r->m->v[it->mutant].module, r->mods[k].name)) continue;
            int seen = 0;
            for (int j = 0; j < i && !seen; j++)
                seen = !strcmp(r->items[j].contract, it->contract);
            if (seen) continue;
            int n[KC_MUT_STATE_COUNT] = { 0 }, g[6] = { 0 };
            for (int j = i; j < r->nitems; j++)
                if (!strcmp(r->items[j].contract, it->contract)) {
                    n[r->items[j].state]++;
                    if (r->items[j].state == KC_MUT_CAUGHT && r->items[j].gate >= 0 && r->items[j].gate <= 5) g[r->items[j].gate]++;
                }
            fprintf(out, "    contract %s: caught %d (gates 1-5: %d %d %d %d %d), missed %d, timeout %d", it->contract,
                    n[KC_MUT_CAUGHT], g[1], g[2], g[3], g[4], g[5], n[KC_MUT_MISSED], n[KC_MUT_TIMEOUT]);
            if (n[KC_MUT_NOTRUN]) fprintf(out, ", not run %d", n[KC_MUT_NOTRUN]);
            fputc('\n', out);
        }
    }
    fprintf(out, "  by operator:\n");
    for (int o = 0; kc_mut_ops[o].name; o++) {
        kc_mutate_count(r, NULL, kc_mut_ops[o].name, &c);
        if (!c.generated) continue;
        fprintf(out, "    %-16s ", kc_mut_ops[o].name);
        counts_text(out, &c);
    }
    int missed = 0;
    for (int i = 0; i < r->m->n; i++) {
        if (r->st[i].state != KC_MUT_MISSED) continue;
        const kc_mutant *x = &r->m->v[i];
        if (!missed++) fprintf(out, "\nmissed mutants (no gate of any contract of their module failed):\n");
        fprintf(out, "MISSED mutant %s  %s  %s:%d:%d  (module %s): %s\n", x->id, x->op->name, x->file, x->line, x->col,
                x->module, x->op->bug);
        const kc_mut_module *mod = module_of(r, x->module);
        char *d = mod ? kc_mutant_diff(&mod->src, x, 2) : NULL;
        for (char *p = d; p && *p;) {
            char *nl = strchr(p, '\n');
            fprintf(out, "    %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
            p = nl ? nl + 1 : p + strlen(p);
        }
        free(d);
        fprintf(out, "    rerun: %s run '*:mutant.%s'\n", r->rerun_prefix ? r->rerun_prefix : "kcontract", x->id);
    }
    kc_mutate_count(r, NULL, NULL, &c);
    fprintf(out, "\noverall: ");
    counts_text(out, &c);
    kc_mutate_line(out, r);
}

static void jstr(FILE *f, const char *key, const char *v)
{
    fprintf(f, ",\"%s\":", key);
    kc_json_string(f, v ? v : "", v ? strlen(v) : 0);
}

int kc_mutate_report_json(const char *path, const kc_mut_run *r, char *err, size_t cap)
{
    FILE *f = fopen(path, "w");
    if (!f) return kc_errf(err, cap, "--json %s: cannot write it: %s", path, strerror(errno));
    for (int i = 0; i < r->m->n; i++) {
        const kc_mutant *x = &r->m->v[i];
        const kc_mut_status *s = &r->st[i];
        fprintf(f, "{\"type\":\"mutant\"");
        jstr(f, "id", x->id);
        jstr(f, "module", x->module);
        jstr(f, "operator", x->op->name);
        jstr(f, "file", x->file);
        fprintf(f, ",\"line\":%d,\"column\":%d", x->line, x->col);
        jstr(f, "original", x->orig);
        jstr(f, "replacement", x->repl);
        jstr(f, "state", kc_mut_state_name(s->state));
        if (s->state == KC_MUT_CAUGHT) fprintf(f, ",\"gate\":%d", s->gate);
        if (s->dup_of[0]) jstr(f, "duplicate_of", s->dup_of);
        if (s->why[0]) jstr(f, "why", s->why);
        if (s->item[0]) jstr(f, "item", s->item);
        if (s->carried) fprintf(f, ",\"carried\":true");
        if (s->state == KC_MUT_NOTRUN && s->skipped) fprintf(f, ",\"skipped\":true");
        if (s->state == KC_MUT_MISSED) {
            const kc_mut_module *mod = module_of(r, x->module);
            char *d = mod ? kc_mutant_diff(&mod->src, x, 2) : NULL;
            jstr(f, "diff", d);
            free(d);
            char cmd[1400];
            snprintf(cmd, sizeof cmd, "%s run '*:mutant.%s'", r->rerun_prefix ? r->rerun_prefix : "kcontract", x->id);
            jstr(f, "rerun", cmd);
        }
        fprintf(f, "}\n");
    }
    kc_mut_counts c;
    char score[16];
    kc_mutate_count(r, NULL, NULL, &c);
    kc_mutate_score(&c, score, sizeof score);
    fprintf(f, "{\"type\":\"mutation\",\"modules\":%d,\"generated\":%d,\"accepted\":%d,\"sampled_out\":%d,\"unviable\":%d,"
            "\"equivalent\":%d,\"duplicate\":%d,\"viable\":%d,\"caught\":%d,\"missed\":%d,\"timeout\":%d,\"notrun\":%d,\"skipped\":%d,"
            "\"caught_by_gate\":[%d,%d,%d,%d,%d],\"carried\":%d,\"score\":%s,\"wall_s\":%.1f", r->nmods, c.generated,
            c.n[KC_MUT_ACCEPTED], c.n[KC_MUT_SAMPLED_OUT], c.n[KC_MUT_UNVIABLE], c.n[KC_MUT_EQUIVALENT],
            c.n[KC_MUT_DUPLICATE], viable_of(&c), c.n[KC_MUT_CAUGHT], c.n[KC_MUT_MISSED], c.n[KC_MUT_TIMEOUT],
            c.n[KC_MUT_NOTRUN], c.skipped, c.by_gate[1], c.by_gate[2], c.by_gate[3], c.by_gate[4], c.by_gate[5],
            c.carried, strcmp(score, "-") ? score : "null", r->wall_s);
    if (r->sel) kc_mut_selection_json(f, r->sel);
    fprintf(f, "}\n");
    if (fclose(f) != 0) return kc_errf(err, cap, "--json %s: writing it failed", path);
    return 0;
}
