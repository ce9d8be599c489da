/* registry.c — owns the registrations of contracts and suites (made by
 * KC_CONTRACT and KC_SUITE when their objects load), checks each one, and
 * expands them into the sorted list of items. */
#include "registry.h"
#include "errmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error_model.h"
#include "fatbin.h"

/* The registrations, in load order: filled by the constructors of the
 * registering objects (before main, or at dlopen), never emptied. This is
 * the process's one registry by nature (what was linked and loaded), so it
 * is the one piece of global state here. A registration compiled against
 * another ABI is not kept: its problem is, for kc_registry_items to report. */
typedef struct reglist {
    const void **v;
    size_t n, cap;
} reglist;
static reglist reg_contracts, reg_suites;
#define KC_MAX_REG_PROBLEMS 16
static char reg_problems[KC_MAX_REG_PROBLEMS][320];
static int reg_nproblems;

static void reg_problem(const char *kind, const char *name, int abi, size_t size, size_t want)
{
    if (reg_nproblems == KC_MAX_REG_PROBLEMS) return;
    snprintf(reg_problems[reg_nproblems++], sizeof reg_problems[0],
             "%s %s was compiled against kcontract ABI %d (struct size %zu), this library is ABI %d (size %zu): "
             "rebuild it against this kcontract", kind, name ? name : "(unnamed)", abi, size, KC_ABI_VERSION, want);
}

static void reg_push(reglist *l, const void *p)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        const void **v = realloc(l->v, cap * sizeof *v);
        if (!v) {   /* before main: nothing to return to; say it and stop */
            fprintf(stderr, "kcontract: out of memory registering contracts\n");
            abort();
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = p;
}

/* The name is the first member of kc_contract and kc_suite in every ABI
 * version, so a refused registration can still be named. */
void kc_register_contract(const kc_contract *c, int abi, size_t size)
{
    if (abi != KC_ABI_VERSION || size != sizeof(kc_contract)) reg_problem("contract", c->name, abi, size, sizeof(kc_contract));
    else reg_push(&reg_contracts, c);
}

void kc_register_suite(const kc_suite *s, int abi, size_t size)
{
    if (abi != KC_ABI_VERSION || size != sizeof(kc_suite)) reg_problem("suite", s->name, abi, size, sizeof(kc_suite));
    else reg_push(&reg_suites, s);
}

void kc_registry_note_problem(const char *line)
{
    if (reg_nproblems < KC_MAX_REG_PROBLEMS)
        snprintf(reg_problems[reg_nproblems++], sizeof reg_problems[0], "%s", line);
}

size_t kc_registry_contracts(const kc_contract *const **out)
{
    *out = (const kc_contract *const *)reg_contracts.v;
    return reg_contracts.n;
}

size_t kc_registry_suites(const kc_suite *const **out)
{
    *out = (const kc_suite *const *)reg_suites.v;
    return reg_suites.n;
}

const kc_contract *kc_registry_find_contract(const char *name)
{
    const kc_contract *const *c;
    size_t n = kc_registry_contracts(&c);
    for (size_t i = 0; i < n; i++)
        if (c[i]->name && strcmp(c[i]->name, name) == 0) return c[i];
    return NULL;
}


static int check_tol(const char *who, kc_tol t, char *err, size_t cap)
{
    if ((t.rtol != 0 || t.atol != 0) && !t.reason)
        return kc_errf(err, cap, "%s: tolerance override (rtol %g, atol %g) without a reason", who, t.rtol, t.atol);
    if (t.reason && (t.rtol < 0 || t.atol < 0))
        return kc_errf(err, cap, "%s: negative tolerance (rtol %g, atol %g)", who, t.rtol, t.atol);
    return 0;
}

/* An error model given without a reason, or naming a distribution that is
 * not one of the random ones (the only ones judged: error_model.h). */
static int check_errors(const char *who, const kc_errors *m, char *err, size_t cap)
{
    if (!kc_errors_given(m)) return 0;
    if (!m->reason || !*m->reason) return kc_errf(err, cap, "%s: error model given without a reason", who);
    for (int i = 0; i < KC_MAX_UNJUDGED && m->unjudged[i] != KC_DIST_END; i++)
        if (m->unjudged[i] < KC_UNIFORM || m->unjudged[i] >= KC_ZEROS)
            return kc_errf(err, cap, "%s: unjudged distribution %d is not a random one (uniform .. masked: the others are "
                           "never judged)", who, (int)m->unjudged[i]);
    return 0;
}

int kc_contract_check(const kc_contract *c, char *err, size_t cap)
{
    const char *n = c->name ? c->name : "(unnamed)";
    if (!c->name || !*c->name) return kc_errf(err, cap, "a contract has no name (module %s)", c->module ? c->module : "?");
    if (strpbrk(c->name, " \t:/"))
        return kc_errf(err, cap, "contract \"%s\": names may not contain spaces, ':' or '/'", n);
    /* A library kernel (library + entry) instead of a module kernel (module +
     * symbol + launch); its shared objects are looked for at gate 1, which names
     * a missing one's path (tests/test_registry.c checks the build made them). */
    const int lib = c->library != NULL;
    if (lib && (c->module || c->symbol || c->launch))
        return kc_errf(err, cap, "contract %s: library %s with a module, symbol or launch: a contract is one or the other", n, c->library);
    if (lib && (!*c->library || strpbrk(c->library, "/@ ") || !c->entry || !*c->entry))
        return kc_errf(err, cap, "contract %s: library needs a plain name (no '/', '@' or spaces) and an entry", n);
    if (!lib && (!c->module || !c->symbol)) return kc_errf(err, cap, "contract %s: missing module or symbol", n);
    if ((!lib && !c->launch) || !c->reference) return kc_errf(err, cap, "contract %s: missing launch or reference function", n);
    if (!c->shapes || !c->shapes[0].name) return kc_errf(err, cap, "contract %s: no shapes", n);
    for (const kc_shape *s = c->shapes; s->name; s++)
        for (const kc_shape *t = c->shapes; t < s; t++)
            if (strcmp(s->name, t->name) == 0) return kc_errf(err, cap, "contract %s: shape %s declared twice", n, s->name);
    int outputs = 0, i = 0;
    for (; i < KC_MAX_ARGS && c->args[i].kind != KC_ARG_END; i++) {
        const kc_arg *a = &c->args[i];
        if (!a->name) return kc_errf(err, cap, "contract %s: argument %d has no name", n, i);
        if (!kc_dtype_size(a->dtype)) return kc_errf(err, cap, "contract %s: argument %s has no dtype", n, a->name);
        if (a->kind == KC_ARG_BUFFER) {
            if (!a->count) return kc_errf(err, cap, "contract %s: buffer %s has no count function", n, a->name);
            if (a->role != KC_IN && a->role != KC_OUT && a->role != KC_INOUT)
                return kc_errf(err, cap, "contract %s: buffer %s has no role (KC_IN, KC_OUT or KC_INOUT)", n, a->name);
            if (a->role != KC_IN) outputs++;
            char who[256];
            snprintf(who, sizeof who, "contract %s, output %s", n, a->name);
            if (check_tol(who, a->tol, err, cap) || check_errors(who, &a->errors, err, cap)) return -1;
        } else if (a->kind == KC_ARG_SCALAR) {
            if (!a->value == !a->ivalue)
                return kc_errf(err, cap, "contract %s: scalar %s needs one value function (value or, for integers, "
                               "ivalue), not %s", n, a->name, a->value ? "both" : "none");
            if (a->ivalue && a->dtype == KC_F32)
                return kc_errf(err, cap, "contract %s: scalar %s is f32: ivalue is for integer scalars (use value)", n,
                               a->name);
            if (a->dtype != KC_F32 && a->dtype != KC_I32 && a->dtype != KC_I64 && a->dtype != KC_U32)
                return kc_errf(err, cap, "contract %s: scalar %s must be f32, i32, i64 or u32, not %s", n, a->name,
                           kc_dtype_name(a->dtype));
        } else {
            return kc_errf(err, cap, "contract %s: argument %d has kind %d", n, i, (int)a->kind);
        }
    }
    if (!outputs) return kc_errf(err, cap, "contract %s: no output buffer (KC_OUT or KC_INOUT)", n);
    if (check_tol(n, c->tol, err, cap) || check_errors(n, &c->errors, err, cap)) return -1;
    for (int d = 0; d < KC_MAX_DISTS && c->dists[d]; d++)
        if (c->dists[d] >= KC_DIST_COUNT) return kc_errf(err, cap, "contract %s: distribution %d is unknown", n, (int)c->dists[d]);
    if (!lib && kc_fatbin_count() > 0 && !kc_fatbin_find(c->module, NULL))
        return kc_errf(err, cap, "contract %s: module %s is not embedded (expected kernels/*/%s.cu)", n, c->module, c->module);
    for (int k = 0; k < KC_MAX_CONTROLS && c->controls[k].name; k++) {
        const kc_control *ct = &c->controls[k];
        if (ct->gate < 1 || ct->gate > 4)
            return kc_errf(err, cap, "contract %s: control %s names gate %d (expected 1-4)", n, ct->name, ct->gate);
        if (!ct->bug) return kc_errf(err, cap, "contract %s: control %s does not say which bug it plants", n, ct->name);
        if (!lib && kc_fatbin_count() > 0 && !kc_fatbin_find(c->module, ct->name))
            return kc_errf(err, cap, "contract %s: control %s has no fatbin: is KC_CONTROL_%s used in %s.cu?", n, ct->name,
                       ct->name, c->module);
        for (int j = 0; j < k; j++)
            if (strcmp(c->controls[j].name, ct->name) == 0)
                return kc_errf(err, cap, "contract %s: control %s listed twice", n, ct->name);
    }
    for (int k = 0; k < KC_MAX_KNOWN && c->known[k].reason; k++)
        if (c->known[k].gate < 1 || c->known[k].gate > 4)
            return kc_errf(err, cap, "contract %s: known finding names gate %d (expected 1-4)", n, c->known[k].gate);
    if (c->nondeterministic && !*c->nondeterministic)
        return kc_errf(err, cap, "contract %s: nondeterministic needs a reason", n);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const kc_item *)a)->name, ((const kc_item *)b)->name);
}

static int push(kc_item **v, int *n, int *cap, kc_item it)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        kc_item *nv = realloc(*v, (size_t)*cap * sizeof **v);
        if (!nv) return -1;
        *v = nv;
    }
    (*v)[(*n)++] = it;
    return 0;
}

/* Appends line to the problem list in err (one per line), as far as it fits. */
static void add_problem(char *err, size_t cap, size_t *len, const char *line)
{
    if (*len + 1 >= cap) return;
    int w = snprintf(err + *len, cap - *len, "%s%s", *len ? "\n" : "", line);
    if (w > 0) *len += (size_t)w < cap - *len ? (size_t)w : cap - *len - 1;
}

int kc_registry_items(kc_item **items, char *err, size_t errcap)
{
    const kc_contract *const *cs;
    const kc_suite *const *ss;
    size_t nc = kc_registry_contracts(&cs), ns = kc_registry_suites(&ss);
    kc_item *v = NULL;
    int n = 0, cap = 0, problems = 0;
    size_t elen = 0;
    char one[1024];
    *items = NULL;
    if (errcap) err[0] = 0;
    for (int i = 0; i < reg_nproblems; i++, problems++) add_problem(err, errcap, &elen, reg_problems[i]);
    for (size_t i = 0; i < nc; i++) {
        const kc_contract *c = cs[i];
        if (kc_contract_check(c, one, sizeof one)) {
            add_problem(err, errcap, &elen, one);
            problems++;
            continue;
        }
        kc_item it = { .kind = KC_KIND_KERNEL, .contract = c };
        snprintf(it.name, sizeof it.name, "%s", c->name);
        if (push(&v, &n, &cap, it)) goto oom;
        /* A library kernel has no CUfunction: no registers, shared memory,
         * spills or occupancy to hold to a budget, so no :limits item. */
        it.kind = KC_KIND_LIMIT;
        snprintf(it.name, sizeof it.name, "%s:limits", c->name);
        if (!c->library && push(&v, &n, &cap, it)) goto oom;
        for (int k = 0; k < KC_MAX_CONTROLS && c->controls[k].name; k++) {
            it.kind = KC_KIND_CONTROL;
            it.control = &c->controls[k];
            snprintf(it.name, sizeof it.name, "%s:control.%s", c->name, c->controls[k].name);
            if (push(&v, &n, &cap, it)) goto oom;
        }
    }
    for (size_t i = 0; i < ns; i++) {
        const kc_suite *s = ss[i];
        if (!s->name || !*s->name || !s->run) {
            snprintf(one, sizeof one, "suite %s: no name or no run function", s->name ? s->name : "(unnamed)");
            add_problem(err, errcap, &elen, one);
            problems++;
            continue;
        }
        kc_item it = { .kind = KC_KIND_SUITE, .suite = s };
        snprintf(it.name, sizeof it.name, "%s", s->name);
        if (push(&v, &n, &cap, it)) goto oom;
    }
    if (n) qsort(v, (size_t)n, sizeof *v, by_name);
    for (int i = 1; i < n; i++)
        if (strcmp(v[i].name, v[i - 1].name) == 0) {
            snprintf(one, sizeof one, "item name %s is registered twice (kinds %s and %s)", v[i].name,
                     kc_kind_name(v[i - 1].kind), kc_kind_name(v[i].kind));
            add_problem(err, errcap, &elen, one);
            problems++;
        }
    if (problems) {
        free(v);
        return -problems;
    }
    *items = v;
    return n;
oom:
    kc_errf(err, errcap, "out of memory building the item list");
    free(v);
    return -1;
}
