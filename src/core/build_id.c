/* build_id.c — owns the build identity (build_id.h): a hash over the
 * registered contracts' definitions, the suites, the embedded fatbins'
 * source digests and the library kernels' (hostlib_path.h); and one contract's definition hash (kc_contract_hash),
 * which the results cache keys each item with (result_cache.h). Each registration is hashed on its own and the hashes are
 * summed, so the link order does not matter. */
#include "build_id.h"

#include <string.h>

#include "fatbin.h"
#include "hostlib_path.h"
#include "registry.h"
#include "seed.h"

static uint64_t mix_bytes(uint64_t h, const void *p, size_t n) { return kc_fnv1a64(p, n, h); }
static uint64_t mix_u64(uint64_t h, uint64_t v) { return mix_bytes(h, &v, sizeof v); }
static uint64_t mix_dbl(uint64_t h, double v) { return mix_bytes(h, &v, sizeof v); }
/* A string with its length (NULL differs from ""). */
static uint64_t mix_str(uint64_t h, const char *s)
{
    if (!s) return mix_u64(h, UINT64_MAX);
    size_t n = strlen(s);
    return mix_bytes(mix_u64(h, n), s, n);
}

static uint64_t mix_tol(uint64_t h, const kc_tol *t) { return mix_str(mix_dbl(mix_dbl(h, t->rtol), t->atol), t->reason); }

static uint64_t mix_errors(uint64_t h, const kc_errors *e)
{
    h = mix_str(mix_dbl(mix_u64(h, (uint64_t)e->kind), e->slack), e->reason);
    for (int i = 0; i < KC_MAX_UNJUDGED; i++) h = mix_u64(h, (uint64_t)e->unjudged[i]);
    return h;
}

/* A declared arithmetic (kc_arith), its functions by their values on
 * every shape of c: what the derived bound depends on. */
static uint64_t mix_arith(uint64_t h, const kc_contract *c, const kc_arith *m)
{
    h = mix_str(mix_u64(h, (uint64_t)m->acc), m->terms_dim);
    h = mix_u64(mix_u64(mix_u64(h, (uint64_t)m->order), (uint64_t)(int64_t)m->roundings), (uint64_t)m->magnitude);
    for (const kc_shape *s = c->shapes; (m->terms || m->depth) && s && s->name; s++) {
        h = mix_u64(h, m->terms ? (uint64_t)m->terms(s) : 0);
        h = mix_u64(h, m->depth ? (uint64_t)m->depth(s) : 0);
    }
    return h;
}

static uint64_t mix_arg(uint64_t h, const kc_contract *c, const kc_arg *a)
{
    h = mix_str(mix_u64(h, (uint64_t)a->kind), a->name);
    h = mix_u64(mix_u64(h, (uint64_t)a->dtype), (uint64_t)a->role);
    h = mix_u64(h, (uint64_t)((a->count != NULL) + 2 * (a->gen != NULL) + 4 * (a->value != NULL) + 8 * (a->range != NULL) + 16 * (a->table != 0)));
    h = mix_u64(mix_u64(mix_str(h, a->of), (uint64_t)a->offset), (uint64_t)a->carried);
    h = mix_u64(mix_u64(h, (uint64_t)((a->ivalue != NULL) + 2 * (a->tensor_map != NULL))), (uint64_t)a->gen_on);
    if (a->layout) {
        h = mix_u64(mix_u64(h, (uint64_t)a->layout->size), (uint64_t)a->layout->align);
        for (int i = 0; i < KC_MAX_FIELDS && a->layout->fields[i].name; i++) {
            const kc_field *f = &a->layout->fields[i];
            h = mix_u64(mix_u64(mix_str(mix_str(h, f->name), f->arg), (uint64_t)f->offset), (uint64_t)f->dtype);
        }
    }
    return mix_arith(mix_errors(mix_tol(h, &a->tol), &a->errors), c, &a->arith);
}

uint64_t kc_contract_hash(const kc_contract *c)
{
    uint64_t h = mix_str(KC_FNV_OFFSET, "contract");
    h = mix_str(mix_str(mix_str(h, c->name), c->module), c->symbol);
    h = mix_str(mix_str(h, c->library), c->entry);
    for (int i = 0; i < KC_MAX_DIMS; i++) h = mix_str(h, c->dims[i]);
    for (int i = 0; i < KC_MAX_ARGS && c->args[i].kind != KC_ARG_END; i++) h = mix_arg(h, c, &c->args[i]);
    for (const kc_shape *s = c->shapes; s && s->name; s++)
        h = mix_bytes(mix_u64(mix_str(h, s->name), (uint64_t)s->cls), s->d, sizeof s->d);
    for (int i = 0; i < KC_MAX_DISTS; i++)
        h = mix_str(mix_u64(mix_u64(h, (uint64_t)c->dists[i]), (uint64_t)c->no_boundary[i].dist), c->no_boundary[i].reason);
    h = mix_u64(h, (uint64_t)((c->launch != NULL) + 2 * (c->reference != NULL) + 4 * (c->device_reference.launch != NULL)));
    h = mix_tol(mix_str(mix_str(h, c->device_reference.module), c->device_reference.symbol), &c->device_reference.agree);
    h = mix_arith(mix_errors(mix_tol(h, &c->tol), &c->errors), c, &c->arith);
    h = mix_str(h, c->nondeterministic);
    h = mix_u64(mix_u64(h, (uint64_t)c->budget.max_regs), (uint64_t)c->budget.max_smem);
    h = mix_u64(mix_u64(h, (uint64_t)c->budget.max_local), (uint64_t)c->budget.min_blocks_per_sm);
    for (int i = 0; i < KC_MAX_CONTROLS && c->controls[i].name; i++)
        h = mix_u64(mix_str(mix_u64(mix_str(h, c->controls[i].name), (uint64_t)c->controls[i].gate), c->controls[i].bug),
                    (uint64_t)c->controls[i].harness);
    for (int i = 0; i < KC_MAX_KNOWN && c->known[i].gate; i++)
        h = mix_str(mix_str(mix_str(mix_str(mix_str(mix_str(mix_u64(h, (uint64_t)c->known[i].gate), c->known[i].shape),
                                                      c->known[i].reason), c->known[i].dist), c->known[i].tool),
                            c->known[i].kernel), c->known[i].error);
    for (int i = 0; i < KC_MAX_BLOCK_SIZES && c->block_sizes[i]; i++) h = mix_u64(h, c->block_sizes[i]);
    for (int i = 0; i < KC_MAX_STEPS && c->steps[i].symbol; i++) {     /* a sequence's kernels (steps.h) */
        const kc_step *st = &c->steps[i];
        h = mix_u64(mix_str(h, st->symbol), (uint64_t)((st->launch != NULL) + 2 * (uint64_t)(unsigned)st->programmatic));
        for (int j = 0; j < KC_MAX_ARGS && st->args[j]; j++) h = mix_str(h, st->args[j]);
    }
    return kc_mix64(mix_dbl(h, c->timeout_s));
}

/* kc_hostlib_source's hash of library's shared object (control's, or the
 * clean one for NULL), each read once however many contracts share it
 * (kc_hostlib_source hashes the .so's bytes: megabytes for a CUB wrapper,
 * which seven contracts name). The memo lives for one kc_build_id call. */
typedef struct lib_memo {
    const char *library, *control;
    uint64_t hash;
} lib_memo;
#define LIB_MEMO_MAX 256

static uint64_t library_hash(lib_memo *memo, int *n, const char *library, const char *control)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(memo[i].library, library) == 0 &&
            (memo[i].control == control || (memo[i].control && control && strcmp(memo[i].control, control) == 0)))
            return memo[i].hash;
    uint64_t h;
    kc_hostlib_source(library, control, &h);
    if (*n < LIB_MEMO_MAX) memo[(*n)++] = (lib_memo){ library, control, h };
    return h;
}

/* What the shared objects of c's library kernel (c->library: the clean
 * build and each control's own, none for a control the harness plants)
 * were built from: kc_hostlib_source's hash of each, under c's name and
 * the control's. */
static uint64_t library_sources(lib_memo *memo, int *n, const kc_contract *c)
{
    uint64_t sum = 0, h = library_hash(memo, n, c->library, NULL);
    sum += kc_mix64(mix_u64(mix_str(mix_str(mix_str(KC_FNV_OFFSET, "library"), c->name), NULL), h));
    for (int i = 0; i < KC_MAX_CONTROLS && c->controls[i].name; i++) {
        if (c->controls[i].harness) continue;
        h = library_hash(memo, n, c->library, c->controls[i].name);
        sum += kc_mix64(mix_u64(mix_str(mix_str(mix_str(KC_FNV_OFFSET, "library"), c->name), c->controls[i].name), h));
    }
    return sum;
}

uint64_t kc_build_id(void)
{
    static uint64_t id;
    if (id) return id;
    uint64_t sum = 0;
    const kc_contract *const *cs;
    const kc_suite *const *ss;
    size_t nc = kc_registry_contracts(&cs), ns = kc_registry_suites(&ss);
    lib_memo memo[LIB_MEMO_MAX];
    int nmemo = 0;
    for (size_t i = 0; i < nc; i++) {
        sum += kc_contract_hash(cs[i]);
        if (cs[i]->library) sum += library_sources(memo, &nmemo, cs[i]);
    }
    for (size_t i = 0; i < ns; i++)
        sum += kc_mix64(mix_u64(mix_str(mix_str(KC_FNV_OFFSET, "suite"), ss[i]->name), (uint64_t)ss[i]->needs_gpu));
    for (int i = 0; i < kc_fatbin_count(); i++) {
        const kc_fatbin *f = kc_fatbin_at(i);
        sum += kc_mix64(mix_str(mix_str(mix_str(mix_str(KC_FNV_OFFSET, "fatbin"), f->module), f->control), f->source));
    }
    id = kc_mix64(sum) | 1;   /* never 0 */
    return id;
}
