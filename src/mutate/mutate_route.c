/* mutate_route.c — which contracts judge each mutant, and in which wave
 * (mutate_route.h). */
#include "mutate_route.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "mutate_reach.h"

/* Whether a kernel of contract c can run the mutated byte off: one of its
 * symbols (its own, or its steps') reaches it or may (unknown). */
static int contract_reaches(const kc_src *s, const kc_reach *rc, const kc_contract *c, size_t off)
{
    if (c->symbol && kc_reach_kernel(s, rc, off, c->symbol) != 0) return 1;
    for (int k = 0; k < KC_MAX_STEPS; k++)
        if (c->steps[k].symbol && kc_reach_kernel(s, rc, off, c->steps[k].symbol) != 0) return 1;
    return !c->symbol && !c->steps[0].symbol;     /* no symbol the source could show: it may */
}

/* Fills the routes of the mutants of module mods[k]. */
static void route_module(const kc_mut_module *mod, const kc_reach *rc, const kc_mutants *m, const kc_item *items,
                         kc_mut_routes *r)
{
    for (int i = 0; i < m->n; i++) {
        if (strcmp(m->v[i].module, mod->name) != 0) continue;
        unsigned char *row = r->reach + (size_t)i * (size_t)r->nj;
        int any = 0, mine = 0;
        for (int j = 0; j < r->nj; j++) {
            const kc_contract *c = items[r->judge_item[j]].contract;
            if (strcmp(c->module, mod->name) != 0) continue;
            mine++;
            row[j] = (unsigned char)contract_reaches(&mod->src, rc, c, m->v[i].off);
            any |= row[j];
        }
        if (!any && mine)       /* none the source shows: every contract of the module */
            for (int j = 0; j < r->nj; j++)
                row[j] = !strcmp(items[r->judge_item[j]].contract->module, mod->name);
        for (int j = 0; j < r->nj && r->first[i] < 0; j++)
            if (row[j]) r->first[i] = j;
    }
}

int kc_mut_route(const kc_mut_module *mods, int nmods, const kc_mutants *m, const kc_item *items, int n,
                 const unsigned char *judge, kc_mut_routes *r, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->nm = m->n;
    for (int i = 0; i < n; i++) r->nj += judge[i] != 0;
    r->judge_item = malloc(((size_t)r->nj + 1) * sizeof *r->judge_item);
    r->reach = calloc((size_t)r->nm * (size_t)r->nj + 1, 1);
    r->first = malloc(((size_t)r->nm + 1) * sizeof *r->first);
    if (!r->judge_item || !r->reach || !r->first) goto oom;
    for (int i = 0, j = 0; i < n; i++)
        if (judge[i]) r->judge_item[j++] = i;
    for (int i = 0; i < r->nm; i++) r->first[i] = -1;
    for (int k = 0; k < nmods; k++) {
        kc_reach rc;
        if (kc_reach_index(&mods[k].src, &rc, err, cap)) {
            kc_mut_routes_free(r);
            return -1;
        }
        route_module(&mods[k], &rc, m, items, r);
        kc_reach_free(&rc);
    }
    return 0;
oom:
    kc_mut_routes_free(r);
    kc_errf(err, cap, "out of memory routing %d mutants", m->n);
    return -1;
}

void kc_mut_routes_free(kc_mut_routes *r)
{
    free(r->judge_item);
    free(r->reach);
    free(r->first);
    memset(r, 0, sizeof *r);
}

int kc_mut_route_in_wave(const kc_mut_routes *r, int i, int j, int wave)
{
    if (i < 0 || i >= r->nm || j < 0 || j >= r->nj || !r->reach[(size_t)i * (size_t)r->nj + (size_t)j]) return 0;
    return wave == 1 ? r->first[i] == j : wave == 2 ? r->first[i] != j : 1;
}

int kc_mut_route_names(const kc_mut_routes *r, const kc_item *items, int i, int wave, char *buf, size_t cap)
{
    size_t len = 0;
    int k = 0;
    if (cap) buf[0] = 0;
    for (int j = 0; j < r->nj; j++) {
        if (!kc_mut_route_in_wave(r, i, j, wave)) continue;
        const char *name = items[r->judge_item[j]].contract->name;
        size_t nl = strlen(name);
        if (len + nl + 2 > cap) return -1;
        if (k++) buf[len++] = ',';
        memcpy(buf + len, name, nl + 1);
        len += nl;
    }
    return k;
}
