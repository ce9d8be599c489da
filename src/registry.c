/* registry.c — reads the kc_contracts and kc_suites linker sections, checks
 * each registration, and expands them into the sorted list of items: per
 * contract <name>, <name>:limits (module kernels), <name>:control.<c> and
 * <name>:sanitize (unless no_sanitize gives a reason). */
#include "registry.h"
#include "errmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error_model.h"
#include "fatbin.h"

/* Bounds of the sections, provided by the GNU linker; weak so a binary with no
 * contracts still links. */
extern const kc_contract *const __start_kc_contracts[] __attribute__((weak));
extern const kc_contract *const __stop_kc_contracts[] __attribute__((weak));
extern const kc_suite *const __start_kc_suites[] __attribute__((weak));
extern const kc_suite *const __stop_kc_suites[] __attribute__((weak));

size_t kc_registry_contracts(const kc_contract *const **out)
{
    *out = __start_kc_contracts;
    return __start_kc_contracts ? (size_t)(__stop_kc_contracts - __start_kc_contracts) : 0;
}

size_t kc_registry_suites(const kc_suite *const **out)
{
    *out = __start_kc_suites;
    return __start_kc_suites ? (size_t)(__stop_kc_suites - __start_kc_suites) : 0;
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
            if (!a->value) return kc_errf(err, cap, "contract %s: scalar %s has no value function", n, a->name);
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
    if (!lib && kc_fatbin_count > 0 && !kc_fatbin_find(c->module, NULL))
        return kc_errf(err, cap, "contract %s: module %s is not embedded (expected kernels/*/%s.cu)", n, c->module, c->module);
    for (int k = 0; k < KC_MAX_CONTROLS && c->controls[k].name; k++) {
        const kc_control *ct = &c->controls[k];
        if (ct->gate < 1 || ct->gate > KC_GATE_SANITIZE)
            return kc_errf(err, cap, "contract %s: control %s names gate %d (expected 1-4, or %d: the sanitizer)", n,
                           ct->name, ct->gate, KC_GATE_SANITIZE);
        if (ct->gate == KC_GATE_SANITIZE && c->no_sanitize)
            return kc_errf(err, cap, "contract %s: control %s is planted for the sanitizer, but the contract opts out of it "
                           "(no_sanitize: %s)", n, ct->name, c->no_sanitize);
        if (!ct->bug) return kc_errf(err, cap, "contract %s: control %s does not say which bug it plants", n, ct->name);
        if (!lib && kc_fatbin_count > 0 && !kc_fatbin_find(c->module, ct->name))
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
    if (c->no_racecheck && !*c->no_racecheck)
        return kc_errf(err, cap, "contract %s: no_racecheck needs a reason (why racecheck may not run on its kernel)", n);
    if (c->no_sanitize && !*c->no_sanitize)
        return kc_errf(err, cap, "contract %s: no_sanitize needs a reason (why compute-sanitizer may not run its kernel)", n);
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

int kc_registry_items(kc_item **items, char *err, size_t errcap)
{
    const kc_contract *const *cs;
    const kc_suite *const *ss;
    size_t nc = kc_registry_contracts(&cs), ns = kc_registry_suites(&ss);
    kc_item *v = NULL;
    int n = 0, cap = 0;
    *items = NULL;
    for (size_t i = 0; i < nc; i++) {
        const kc_contract *c = cs[i];
        if (kc_contract_check(c, err, errcap)) goto fail;
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
        /* The sanitizer gate (sanitize.h), unless the contract says why not. */
        it.kind = KC_KIND_SANITIZE;
        it.control = NULL;
        snprintf(it.name, sizeof it.name, "%s:sanitize", c->name);
        if (!c->no_sanitize && push(&v, &n, &cap, it)) goto oom;
    }
    for (size_t i = 0; i < ns; i++) {
        const kc_suite *s = ss[i];
        if (!s->name || !*s->name || !s->run) {
            kc_errf(err, errcap, "a suite has no name or no run function");
            goto fail;
        }
        kc_item it = { .kind = KC_KIND_SUITE, .suite = s };
        snprintf(it.name, sizeof it.name, "%s", s->name);
        if (push(&v, &n, &cap, it)) goto oom;
    }
    if (n) qsort(v, (size_t)n, sizeof *v, by_name);
    for (int i = 1; i < n; i++)
        if (strcmp(v[i].name, v[i - 1].name) == 0) {
            kc_errf(err, errcap, "item name %s is registered twice (kinds %s and %s)", v[i].name,
                kc_kind_name(v[i - 1].kind), kc_kind_name(v[i].kind));
            goto fail;
        }
    *items = v;
    return n;
oom:
    kc_errf(err, errcap, "out of memory building the item list");
fail:
    free(v);
    return -1;
}
