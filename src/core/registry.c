/* registry.c — owns the registrations of contracts and suites (made by
 * KC_CONTRACT and KC_SUITE when their objects load), checks each one, and
 * expands them into the sorted list of items: per contract <name>,
 * <name>:limits (module kernels), <name>:control.<c> and <name>:sanitize
 * (unless no_sanitize gives a reason). */
#include "registry.h"
#include "mutant_images.h"
#include "errmsg.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith_bound.h"
#include "dtype.h"
#include "error_model.h"
#include "fatbin.h"
#include "filter.h"
#include "machine_code.h"
#include "progname.h"
#include "reg_problems.h"
#include "seed.h"
#include "strbuf.h"
#include "steps.h"

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

static void reg_problem(const char *kind, const char *name, int abi, size_t size, size_t want)
{
    char line[320];
    snprintf(line, sizeof line,
             "%s %s was compiled against kcontract ABI %d (struct size %zu), this library is ABI %d (size %zu): "
             "rebuild it against this kcontract", kind, name ? name : "(unnamed)", abi, size, KC_ABI_VERSION, want);
    kc_reg_problem_note(line);
}

static void reg_push(reglist *l, const void *p)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        const void **v = realloc(l->v, cap * sizeof *v);
        if (!v) {   /* before main: nothing to return to; say it and stop */
            kc_prog_set_before_main();
            kc_say(stderr, "out of memory registering contracts\n");
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


/* The problems found in one contract: lines in the caller's buffer. */
typedef struct problems {
    char *err;
    size_t cap, len;
    int n;
} problems;

static void problem(problems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(problems *p, const char *fmt, ...)
{
    p->n++;
    if (!p->cap || p->len + 1 >= p->cap) return;
    if (p->len) p->err[p->len++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(p->err + p->len, p->cap - p->len, fmt, ap);
    va_end(ap);
    if (w > 0) p->len += (size_t)w < p->cap - p->len ? (size_t)w : p->cap - p->len - 1;
}

/* A hand-set tolerance: with a reason (an empty one is none, as for an
 * error model), never negative, and finite: a NaN bound fails every
 * element and an infinite one passes every finite error (and fails where
 * the reference is 0, inf x 0 being NaN), so neither is a tolerance. */
static void check_tol(problems *p, const char *who, kc_tol t)
{
    if ((t.rtol != 0 || t.atol != 0 || t.reason) && (!t.reason || !*t.reason))
        problem(p, "%s: tolerance override (rtol %g, atol %g) without a reason", who, t.rtol, t.atol);
    if (t.reason && (t.rtol < 0 || t.atol < 0)) problem(p, "%s: negative tolerance (rtol %g, atol %g)", who, t.rtol, t.atol);
    if (!isfinite(t.rtol) || !isfinite(t.atol))
        problem(p, "%s: tolerance (rtol %g, atol %g) is not finite: a NaN bound fails every element, an infinite one "
                "passes every finite error (expected finite values >= 0)", who, t.rtol, t.atol);
}

/* An error model given without a reason, or naming a distribution that is
 * not one of the random ones (the only ones judged: error_model.h). */
static void check_errors(problems *p, const char *who, const kc_errors *m)
{
    if (!kc_errors_given(m)) return;
    if (!m->reason || !*m->reason) problem(p, "%s: error model given without a reason", who);
    for (int i = 0; i < KC_MAX_UNJUDGED && m->unjudged[i] != KC_DIST_END; i++)
        if (m->unjudged[i] < KC_UNIFORM || m->unjudged[i] >= KC_ZEROS)
            problem(p, "%s: unjudged distribution %d is not a random one (uniform .. masked: the others are never judged)",
                    who, (int)m->unjudged[i]);
}

/* A declared arithmetic (kc_arith) for an output of dtype `out`: its own
 * problems, then each shape's (K, n u < 1), one line each; and a hand-set
 * tolerance beside it at the same level (which of the two would hold?). */
static void check_arith(problems *p, const char *who, const kc_contract *c, const kc_arith *m, kc_dtype out,
                        const kc_tol *tol)
{
    if (!kc_arith_given(m)) return;
    char why[800];
    if (tol->reason) problem(p, "%s: both a hand-set tolerance and an arithmetic to derive one from: give one", who);
    if (kc_arith_check(c, m, out, NULL, why, sizeof why)) {
        problem(p, "%s: error model (kc_arith): %s", who, why);
        return;
    }
    for (const kc_shape *s = c->shapes; s && s->name; s++)
        if (kc_arith_check(c, m, out, s, why, sizeof why)) problem(p, "%s: error model (kc_arith): %s", who, why);
}

/* The index of the contract's argument called name, or -1. */
static int arg_named(const kc_contract *c, const char *name)
{
    for (int i = 0; name && i < KC_MAX_ARGS && c->args[i].kind != KC_ARG_END; i++)
        if (c->args[i].name && strcmp(c->args[i].name, name) == 0) return i;
    return -1;
}

/* `of` of argument a names a buffer the contract allocates (a BUFFER that
 * is no alias): its index, or -1 with the problem noted. */
static int check_of(problems *p, const char *n, const kc_contract *c, const kc_arg *a, const char *what)
{
    int o = arg_named(c, a->of);
    if (!a->of) problem(p, "contract %s: %s %s names no buffer (of)", n, what, a->name);
    else if (o < 0) problem(p, "contract %s: %s %s names buffer \"%s\", which the contract does not have", n, what, a->name, a->of);
    else if (c->args[o].kind != KC_ARG_BUFFER || c->args[o].of)
        problem(p, "contract %s: %s %s names %s, which is no buffer of its own (a buffer, not an alias)", n, what,
                a->name, a->of);
    else return o;
    return -1;
}

static void check_scalar_value(problems *p, const char *n, const char *what, const char *name, kc_dtype t,
                               int has_value, int has_ivalue)
{
    if (!kc_dtype_size(t)) problem(p, "contract %s: %s %s has no dtype", n, what, name);
    if (!has_value == !has_ivalue)
        problem(p, "contract %s: %s %s needs one value function (value or, for integers, ivalue), not %s", n, what,
                name, has_value ? "both" : "none");
    if (has_ivalue && kc_dtype_is_float(t))
        problem(p, "contract %s: %s %s is %s, a float, but its value comes as an integer (KC_SCALAR_DIM, "
                   "KC_SCALAR_INT or .ivalue are for integer dtypes such as KC_I32 or KC_I64): give it an integer "
                   "dtype, or a float value function with KC_SCALAR(name, dtype, fn)", n, what, name,
                kc_dtype_name(t));
}

/* The distributions contract c runs, as KC_DIST_BIT bits: its dists, or
 * uniform and normal (kc_dists_of's default). */
static unsigned dists_run(const kc_contract *c)
{
    unsigned m = 0;
    for (int d = 0; d < KC_MAX_DISTS && c->dists[d]; d++)
        if (c->dists[d] < KC_DIST_COUNT) m |= KC_DIST_BIT(c->dists[d]);
    return m ? m : KC_DIST_BIT(KC_UNIFORM) | KC_DIST_BIT(KC_NORMAL);
}

/* "uniform, normal" of the distributions in mask m, into buf. */
static const char *dist_list(unsigned m, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int d = KC_UNIFORM; d < KC_DIST_COUNT; d++)
        if (m & KC_DIST_BIT(d)) kc_strcatf(buf, cap, "%s%s", buf[0] ? ", " : "", kc_dist_name((kc_dist)d));
    return buf;
}

/* A buffer's generator and what it covers: gen_on names distributions that
 * exist and that the contract runs (a generator for one it does not run is
 * dead code, most often a typo), has a generator, and is no table's (a
 * table is the same on every distribution); a range beside a generator is
 * used only where gen_on leaves the generator out, so without gen_on it
 * would never be. */
static void check_gen_on(problems *p, const char *n, const kc_contract *c, const kc_arg *a)
{
    const unsigned known = (KC_DIST_BIT(KC_DIST_COUNT) - 1) & ~KC_DIST_BIT(KC_DIST_END), run = dists_run(c);
    char named[256], runs[256];
    if (a->gen && a->range && !a->gen_on)
        problem(p, "contract %s: buffer %s has a generator and a range: the range is never used (drop one, or list "
                "the generator's distributions in gen_on: the range makes the rest)", n, a->name);
    if (!a->gen_on) return;
    if (a->gen_on & ~known)
        problem(p, "contract %s: buffer %s: gen_on 0x%x has bits that are no distribution (expected KC_DIST_BIT(d) "
                "of KC_UNIFORM .. KC_INT_EXTREMES, or'd)", n, a->name, a->gen_on);
    if (!a->gen)
        problem(p, "contract %s: buffer %s: gen_on names the distributions of a generator, but the buffer has none (gen)",
                n, a->name);
    if (a->table)
        problem(p, "contract %s: buffer %s: a table (KC_BUFFER_TABLE) is the same on every distribution: no gen_on", n,
                a->name);
    const unsigned extra = a->gen_on & known & ~run;
    const char *them = extra & (extra - 1) ? "them" : "it";
    if (a->gen && extra)
        problem(p, "contract %s: buffer %s: gen_on names %s, which the contract does not run (it runs %s%s): its "
                "generator would never run there (drop %s from gen_on, or add %s to the contract's dists)", n, a->name,
                dist_list(extra, named, sizeof named), dist_list(run, runs, sizeof runs),
                c->dists[0] ? "" : ", the default without dists", them, them);
}

static void check_buffer(problems *p, const char *n, const kc_contract *c, const kc_arg *a, int *outputs)
{
    if (a->of) {        /* an alias: the buffer it names is the one generated and checked */
        int o = check_of(p, n, c, a, "alias");
        if (a->count || a->gen || a->gen_on || a->range || a->role || a->carried)
            problem(p, "contract %s: alias %s of %s has a count, generator, role or carried of its own (its buffer's hold)",
                    n, a->name, a->of ? a->of : "?");
        if (o >= 0 && a->dtype && a->dtype != c->args[o].dtype)
            problem(p, "contract %s: alias %s is %s, its buffer %s %s", n, a->name, kc_dtype_name(a->dtype), a->of,
                    kc_dtype_name(c->args[o].dtype));
        return;
    }
    if (!kc_dtype_size(a->dtype)) problem(p, "contract %s: argument %s has no dtype", n, a->name);
    if (!a->count) problem(p, "contract %s: buffer %s has no count function", n, a->name);
    check_gen_on(p, n, c, a);
    if (a->role != KC_IN && a->role != KC_OUT && a->role != KC_INOUT)
        problem(p, "contract %s: buffer %s has no role (KC_IN, KC_OUT or KC_INOUT)", n, a->name);
    if (a->role == KC_OUT || a->role == KC_INOUT) (*outputs)++;
    char who[256];
    snprintf(who, sizeof who, "contract %s, output %s", n, a->name);
    check_tol(p, who, a->tol);
    check_errors(p, who, &a->errors);
    if (kc_arith_given(&a->arith) && a->role == KC_IN)
        problem(p, "contract %s: input %s declares an arithmetic (kc_arith): only outputs have an error bound", n, a->name);
    else
        check_arith(p, who, c, &a->arith, a->dtype, &a->tol);
    /* The contract's arithmetic, for each floating output that has no bound
     * of its own (integer outputs compare exactly). */
    if (kc_arith_given(&c->arith) && a->role != KC_IN && kc_dtype_is_float(a->dtype) && !a->tol.reason &&
        !kc_arith_given(&a->arith))
        check_arith(p, who, c, &c->arith, a->dtype, &(kc_tol){ 0, 0, NULL });
}

/* A struct's layout: size and alignment, fields inside it, not overlapping,
 * each a scalar or a buffer, pointer array or tensor map of the contract. */
static void check_struct(problems *p, const char *n, const kc_contract *c, const kc_arg *a)
{
    const kc_param_struct *L = a->layout;
    if (!L) {
        problem(p, "contract %s: struct %s has no layout", n, a->name);
        return;
    }
    if (!L->size || L->size > 4096) problem(p, "contract %s: struct %s is %zu bytes (expected 1..4096)", n, a->name, L->size);
    if (!L->align || L->align > 128 || (L->align & (L->align - 1)))
        problem(p, "contract %s: struct %s has alignment %zu (expected a power of two, 1..128)", n, a->name, L->align);
    for (int i = 0; i < KC_MAX_FIELDS && L->fields[i].name; i++) {
        const kc_field *f = &L->fields[i];
        size_t bytes = 0, al = 1;
        if (f->arg) {
            int b = arg_named(c, f->arg);
            const kc_argkind k = b >= 0 ? c->args[b].kind : KC_ARG_END;
            if (k != KC_ARG_BUFFER && k != KC_ARG_PTR_ARRAY && k != KC_ARG_TENSOR_MAP) {
                problem(p, "contract %s: struct %s, field %s names \"%s\": no buffer, pointer array or tensor map of the contract",
                        n, a->name, f->name, f->arg);
                continue;
            }
            bytes = al = k == KC_ARG_TENSOR_MAP ? 128 : 8;
            if (k == KC_ARG_TENSOR_MAP) al = 64;
        } else {
            check_scalar_value(p, n, "struct field", f->name, f->dtype, f->value != NULL, f->ivalue != NULL);
            bytes = al = kc_dtype_size(f->dtype) ? kc_dtype_size(f->dtype) : 1;
        }
        if (f->offset % al || f->offset > L->size || bytes > L->size - f->offset)   /* no wrap near SIZE_MAX */
            problem(p, "contract %s: struct %s, field %s at offset %zu (%zu bytes, aligned to %zu) does not fit its %zu bytes",
                    n, a->name, f->name, f->offset, bytes, al, L->size);
        if (al > L->align)
            problem(p, "contract %s: struct %s is aligned to %zu, less than its field %s needs (%zu)", n, a->name, L->align,
                    f->name, al);
        for (int j = 0; j < i; j++) {
            const kc_field *e = &L->fields[j];
            size_t eb = e->arg ? (arg_named(c, e->arg) >= 0 && c->args[arg_named(c, e->arg)].kind == KC_ARG_TENSOR_MAP ? 128 : 8)
                               : kc_dtype_size(e->dtype);
            if (f->offset <= L->size && e->offset <= L->size && f->offset < e->offset + eb && e->offset < f->offset + bytes)
                problem(p, "contract %s: struct %s, fields %s and %s overlap", n, a->name, e->name, f->name);
        }
    }
}

/* Whether the carried buffer called name is passed by some tensor map,
 * struct field or pointer array of the contract. */
static int carried_somewhere(const kc_contract *c, const char *name)
{
    for (int i = 0; i < KC_MAX_ARGS && c->args[i].kind != KC_ARG_END; i++) {
        const kc_arg *a = &c->args[i];
        if ((a->kind == KC_ARG_TENSOR_MAP || a->kind == KC_ARG_PTR_ARRAY) && a->of && strcmp(a->of, name) == 0) return 1;
        if (a->kind != KC_ARG_STRUCT || !a->layout) continue;
        for (int f = 0; f < KC_MAX_FIELDS && a->layout->fields[f].name; f++)
            if (a->layout->fields[f].arg && strcmp(a->layout->fields[f].arg, name) == 0) return 1;
    }
    return 0;
}

/* KC_SCALAR_DIM(name, dtype, i) of a contract that names its dims (.dims):
 * i must be one of them. A dim past the named ones is 0 on every shape, so
 * the kernel got 0 for n (a typo of the index, or a 1-D contract's scalar
 * copied from a 2-D one) and nothing said so before a GPU ran it. */
static void check_scalar_dim(problems *p, const char *n, const kc_contract *c, const kc_arg *a)
{
    static int64_t (*const dim_fn[])(const kc_shape *) = { kc_dim0, kc_dim1, kc_dim2, kc_dim3,
                                                          kc_dim4, kc_dim5, kc_dim6, kc_dim7 };
    int named = 0;
    while (named < KC_MAX_DIMS && c->dims[named]) named++;
    for (int d = named; named > 0 && d < (int)(sizeof dim_fn / sizeof dim_fn[0]); d++)
        if (a->ivalue == dim_fn[d])
            problem(p, "contract %s: scalar %s is KC_SCALAR_DIM of d[%d], but the contract names %d dim%s (%s%s%s%s): "
                    "d[%d] is 0 on every shape (expected an index below %d)", n, a->name, d, named,
                    named == 1 ? "" : "s", c->dims[0], named > 1 ? ", " : "", named > 1 ? c->dims[1] : "",
                    named > 2 ? ", ..." : "", d, named);
}

static void check_arg(problems *p, const char *n, const kc_contract *c, int i, int *outputs)
{
    const kc_arg *a = &c->args[i];
    if (!a->name) {
        problem(p, "contract %s: argument %d has no name", n, i);
        return;
    }
    if (arg_named(c, a->name) != i) problem(p, "contract %s: two arguments are called %s", n, a->name);
    if (a->kind != KC_ARG_BUFFER && (a->offset || a->carried))
        problem(p, "contract %s: argument %s has an offset or carried: those are for buffers", n, a->name);
    if (a->kind == KC_ARG_BUFFER && a->carried && !carried_somewhere(c, a->name))
        problem(p, "contract %s: buffer %s is carried, but no tensor map, struct field or pointer array passes it", n,
                a->name);
    switch (a->kind) {
    case KC_ARG_BUFFER:
        check_buffer(p, n, c, a, outputs);
        break;
    case KC_ARG_SCALAR:
        check_scalar_value(p, n, "scalar", a->name, a->dtype, a->value != NULL, a->ivalue != NULL);
        check_scalar_dim(p, n, c, a);
        break;
    case KC_ARG_TENSOR_MAP:
        check_of(p, n, c, a, "tensor map");
        if (!a->tensor_map) problem(p, "contract %s: tensor map %s has no layout function (tensor_map)", n, a->name);
        break;
    case KC_ARG_PTR_ARRAY:
        check_of(p, n, c, a, "pointer array");
        if (!a->count) problem(p, "contract %s: pointer array %s has no count function (its pointers)", n, a->name);
        break;
    case KC_ARG_STRUCT:
        check_struct(p, n, c, a);
        break;
    default:
        problem(p, "contract %s: argument %d has kind %d", n, i, (int)a->kind);
    }
}

/* The steps of a sequence (and that a contract without them has none
 * half-given): each problem kc_contract_steps finds, one line each. */
static void check_steps(problems *p, const kc_contract *c)
{
    kc_step_plan plan[KC_MAX_STEPS];
    char err[2048];
    if (kc_contract_steps(c, plan, err, sizeof err) >= 0) return;
    for (char *line = err, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = 0;
        problem(p, "%s", line);
    }
}

/* Whether the glob g matches the name of some input distribution. */
static int dist_glob_matches(const char *g)
{
    for (int d = 0; d < KC_DIST_COUNT; d++)
        if (kc_dist_name((kc_dist)d) && fnmatch(g, kc_dist_name((kc_dist)d), 0) == 0) return 1;
    return 0;
}

/* "uniform, normal, ...": every distribution's name, into buf. */
static const char *dist_names(char *buf, size_t cap)
{
    buf[0] = 0;
    for (int d = 0; d < KC_DIST_COUNT; d++)
        if (kc_dist_name((kc_dist)d)) kc_strcatf(buf, cap, "%s%s", buf[0] ? ", " : "", kc_dist_name((kc_dist)d));
    return buf;
}

/* For a module no image has: "; did you mean 'M'?" naming the embedded
 * modules (clean images) within a typo's edit distance of it
 * (kc_filter_suggest, as a mistyped pattern gets), else "". */
static const char *module_suggestion(const char *module, char *buf, size_t cap)
{
    enum { MAXMOD = 512, W = 64 };
    char names[MAXMOD][W];      /* 32 KiB of stack, once, for a refusal */
    char near[3][256];
    int m = 0;
    buf[0] = 0;
    for (int i = 0; i < kc_fatbin_count() && m < MAXMOD; i++) {
        const kc_fatbin *f = kc_fatbin_at(i);
        if (f && !f->control && f->module && strlen(f->module) < W) snprintf(names[m++], W, "%s", f->module);
    }
    const int k = strlen(module) < 200 ? kc_filter_suggest(module, names[0], W, m, near, 3) : 0;
    for (int i = 0; i < k; i++)
        kc_strcatf(buf, cap, "%s'%s'", i == 0 ? "; did you mean " : i == k - 1 ? " or " : ", ", near[i]);
    if (k) kc_strcatf(buf, cap, "?");
    return buf;
}

/* A kernel the contract names (its symbol, a step's, its device
 * reference's) against the functions of its module's embedded sm_90 image:
 * a name the image lacks (a typo, a C++ kernel named unmangled) fails gate 1
 * on the first GPU run ("function ... not found in module ..."), and on a
 * machine without a GPU nothing said so. Images with no sm_90 ELF in them
 * (another architecture or PTX alone, a compressed image, the fake driver's
 * text images) are left to gate 1. */
static void check_symbol(problems *p, const char *n, const char *what, const char *module, const char *symbol)
{
    const kc_fatbin *fb = module && symbol && *symbol ? kc_fatbin_find(module, NULL) : NULL;
    const unsigned char *elf, *code;
    size_t elf_n, code_n;
    char why[300], names[600];
    if (!fb || kc_fatbin_elf(fb->start, (size_t)(fb->end - fb->start), 90, &elf, &elf_n, why, sizeof why) != 0) return;
    if (kc_elf_function_code(elf, elf_n, symbol, &code, &code_n, why, sizeof why) == 0 ||
        strncmp(why, "no section", 10) != 0 || kc_elf_function_names(elf, elf_n, names, sizeof names) < 0)
        return;
    problem(p, "contract %s: %s %s is not a function of module %s (its sm_90 image has: %s); a kernel of C++ "
            "linkage is named by its mangled name (the .entry line of nvcc -ptx)", n, what, symbol, module,
            names[0] ? names : "none");
}

static void check_symbols(problems *p, const char *n, const kc_contract *c)
{
    if (kc_fatbin_count() == 0) return;
    if (!c->library && c->module) {
        kc_step_plan st[KC_MAX_STEPS];
        char err[200];
        const int steps = kc_contract_steps(c, st, err, sizeof err);   /* its own problems: check_steps */
        for (int i = 0; i < steps; i++) check_symbol(p, n, steps > 1 ? "step kernel" : "symbol", c->module, st[i].symbol);
    }
    if (c->device_reference.module)
        check_symbol(p, n, "device reference", c->device_reference.module, c->device_reference.symbol);
}

static void check_controls(problems *p, const char *n, const kc_contract *c, int lib)
{
    for (int k = 0; k < KC_MAX_CONTROLS && c->controls[k].name; k++) {
        const kc_control *ct = &c->controls[k];
        if (ct->gate < 1 || ct->gate > KC_GATE_SANITIZE)
            problem(p, "contract %s: control %s names gate %d (expected 1-4, or %d: the sanitizer)", n, ct->name, ct->gate,
                    KC_GATE_SANITIZE);
        if (ct->gate == KC_GATE_SANITIZE && c->no_sanitize)
            problem(p, "contract %s: control %s is planted for the sanitizer, but the contract opts out of it "
                    "(no_sanitize: %s)", n, ct->name, c->no_sanitize);
        if (!ct->bug) problem(p, "contract %s: control %s does not say which bug it plants", n, ct->name);
        if (ct->harness && ct->harness != KC_HARNESS_BLOCK_SHORT)
            problem(p, "contract %s: control %s names harness control %d (expected 0: a build of its own, or %d: "
                    "KC_HARNESS_BLOCK_SHORT)", n, ct->name, ct->harness, KC_HARNESS_BLOCK_SHORT);
        if (ct->harness && (lib || ct->gate == KC_GATE_SANITIZE))
            problem(p, "contract %s: control %s is a harness control %s", n, ct->name,
                    lib ? "of a library kernel (its entry launches, not the harness)"
                        : "planted for the sanitizer (its target runs builds, not harness controls)");
        /* (a module with no image at all is named once, not once per control) */
        if (!ct->harness && !lib && c->module && kc_fatbin_count() > 0 && kc_fatbin_find(c->module, NULL) &&
            !kc_fatbin_find(c->module, ct->name))
            problem(p, "contract %s: control %s has no fatbin: is KC_CONTROL_%s used in %s.cu? (or, for a patch "
                    "control, is %s.patch in the build's KC_PATCHES_%s / PATCHES_%s?)", n, ct->name, ct->name, c->module,
                    ct->name, c->module, c->module);
        for (int j = 0; j < k; j++)
            if (strcmp(c->controls[j].name, ct->name) == 0) problem(p, "contract %s: control %s listed twice", n, ct->name);
    }
}

int kc_contract_check(const kc_contract *c, char *err, size_t cap)
{
    problems p = { err, cap, 0, 0 };
    if (cap) err[0] = 0;
    const char *n = c->name && *c->name ? c->name : "(unnamed)";
    if (!c->name || !*c->name) problem(&p, "a contract has no name (module %s)", c->module ? c->module : "?");
    else if (strpbrk(c->name, " \t:/")) problem(&p, "contract \"%s\": names may not contain spaces, ':' or '/'", n);
    /* A library kernel (library + entry) instead of a module kernel (module +
     * symbol + launch); its shared objects are looked for at gate 1, which names
     * a missing one's path (tests/test_registry.c checks the build made them). */
    const int lib = c->library != NULL;
    if (lib && (c->module || c->symbol || c->launch))
        problem(&p, "contract %s: library %s with a module, symbol or launch: a contract is one or the other", n, c->library);
    if (lib && (!*c->library || strpbrk(c->library, "/@ ") || !c->entry || !*c->entry))
        problem(&p, "contract %s: library needs a plain name (no '/', '@' or spaces) and an entry", n);
    /* A sequence of kernels (steps.h) names its kernels and launches in its
     * steps, checked there; its module holds them all. */
    const int seq = kc_contract_has_steps(c);
    if (!lib && (!c->module || (!seq && !c->symbol)))
        problem(&p, "contract %s: missing module%s", n, seq ? " (its steps' kernels are in one module)" : " or symbol");
    if (!lib && !seq && !c->launch)
        problem(&p, "contract %s: no .launch function (it sets the grid and block of a shape: kc_launch_1d, or "
                    "one of the contract's own)", n);
    if (!c->reference)
        problem(&p, "contract %s: no .reference function (the float64 reference the outputs are checked against)", n);
    check_steps(&p, c);
    if (!c->shapes || !c->shapes[0].name) problem(&p, "contract %s: no shapes", n);
    for (const kc_shape *s = c->shapes; s && s->name; s++)
        for (const kc_shape *t = c->shapes; t < s; t++)
            if (strcmp(s->name, t->name) == 0) problem(&p, "contract %s: shape %s declared twice", n, s->name);
    int outputs = 0;
    for (int i = 0; i < KC_MAX_ARGS && c->args[i].kind != KC_ARG_END; i++) check_arg(&p, n, c, i, &outputs);
    if (!outputs) problem(&p, "contract %s: no output buffer (KC_OUT or KC_INOUT)", n);
    char who[256];
    snprintf(who, sizeof who, "contract %s", n);
    check_tol(&p, who, c->tol);
    check_errors(&p, n, &c->errors);
    if (kc_arith_given(&c->arith) && c->tol.reason)
        problem(&p, "contract %s: both a hand-set tolerance and an arithmetic to derive one from: give one", n);
    for (int d = 0; d < KC_MAX_DISTS && c->dists[d]; d++)
        if (c->dists[d] >= KC_DIST_COUNT) problem(&p, "contract %s: distribution %d is unknown", n, (int)c->dists[d]);
    if (!lib && c->module && kc_fatbin_count() > 0 && !kc_fatbin_find(c->module, NULL)) {
        char near[200];
        problem(&p, "contract %s: module %s is not embedded (expected a %s.cu built by the kcontract rules)%s", n,
                c->module, c->module, module_suggestion(c->module, near, sizeof near));
    }
    check_symbols(&p, n, c);
    check_controls(&p, n, c, lib);
    for (int k = 0; k < KC_MAX_KNOWN && c->known[k].reason; k++) {
        const kc_known *kn = &c->known[k];
        if (kn->gate < 1 || kn->gate > KC_GATE_SANITIZE)
            problem(&p, "contract %s: known finding names gate %d (expected 1-4, or %d: KC_GATE_SANITIZE)", n, kn->gate,
                    KC_GATE_SANITIZE);
        if (kn->gate == KC_GATE_SANITIZE) {
            if (!kn->tool)
                problem(&p, "contract %s: known finding of gate 5 needs its tool (a glob over memcheck, racecheck, "
                        "initcheck, synccheck)", n);
            else if (fnmatch(kn->tool, "memcheck", 0) && fnmatch(kn->tool, "racecheck", 0) &&
                     fnmatch(kn->tool, "initcheck", 0) && fnmatch(kn->tool, "synccheck", 0))
                problem(&p, "contract %s: known finding's tool '%s' matches no sanitizer tool (expected a glob over "
                        "memcheck, racecheck, initcheck, synccheck)", n, kn->tool);
            if (kn->shape || kn->dist)
                problem(&p, "contract %s: known finding of gate 5 names a %s ('%s'): the sanitizer's report does not "
                        "say which launch's shape or distribution erred (leave it NULL)", n,
                        kn->shape ? "shape" : "distribution", kn->shape ? kn->shape : kn->dist);
            if (c->no_sanitize)
                problem(&p, "contract %s: known finding of gate 5, but the contract has no :sanitize item (no_sanitize: "
                        "%s)", n, c->no_sanitize);
        } else if (kn->tool || kn->kernel || kn->error)
            problem(&p, "contract %s: known finding of gate %d names a sanitizer %s ('%s'): those are gate 5's (%d)", n,
                    kn->gate, kn->tool ? "tool" : kn->kernel ? "kernel" : "error",
                    kn->tool ? kn->tool : kn->kernel ? kn->kernel : kn->error, KC_GATE_SANITIZE);
        char names[400];
        if (c->known[k].dist && !dist_glob_matches(c->known[k].dist))
            problem(&p, "contract %s: known finding's distribution '%s' matches no distribution (expected a glob over %s)",
                    n, c->known[k].dist, dist_names(names, sizeof names));
    }
    for (int b = 0; b < KC_MAX_BLOCK_SIZES && c->block_sizes[b]; b++) {
        if (c->block_sizes[b] > 1024)
            problem(&p, "contract %s: block size %u is past CUDA's 1024 threads per block", n, c->block_sizes[b]);
        for (int e = 0; e < b; e++)
            if (c->block_sizes[e] == c->block_sizes[b])
                problem(&p, "contract %s: block size %u is listed twice", n, c->block_sizes[b]);
        if (b == 0 && (lib || seq))
            problem(&p, "contract %s: block sizes on a %s (expected a contract of one kernel and its launch function)",
                    n, lib ? "library kernel (its entry launches)" : "sequence of steps");
    }
    if (c->nondeterministic && !*c->nondeterministic) problem(&p, "contract %s: nondeterministic needs a reason", n);
    if (c->no_racecheck && !*c->no_racecheck)
        problem(&p, "contract %s: no_racecheck needs a reason (why racecheck may not run on its kernel)", n);
    int edges = 0, race_edges = 0;
    for (const kc_shape *s = c->shapes; s && s->name; s++) {
        edges += s->cls == KC_SHAPE_EDGE;
        race_edges += s->cls == KC_SHAPE_EDGE && !s->no_racecheck;
        if (s->no_racecheck && !*s->no_racecheck)
            problem(&p, "contract %s: shape %s: no_racecheck needs a reason (why racecheck need not run it)", n, s->name);
        else if (s->no_racecheck && s->cls != KC_SHAPE_EDGE)
            problem(&p, "contract %s: shape %s: no_racecheck on a %s shape (racecheck runs the edge shapes only)", n,
                    s->name, s->cls == KC_SHAPE_MODEL ? "model" : "large");
    }
    if (edges && !race_edges && !c->no_racecheck)
        problem(&p, "contract %s: no_racecheck on every edge shape (racecheck would run none; the contract's own "
                "no_racecheck says why it does not run)", n);
    if (c->no_sanitize && !*c->no_sanitize)
        problem(&p, "contract %s: no_sanitize needs a reason (why compute-sanitizer may not run its kernel)", n);
    return -p.n;
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

/* Whether a registered contract of module `module` lists control `control`
 * (a mutation run's mutant images, $KC_MUTANTS, are run as controls of
 * every contract of their module, listed or not). */
static int control_listed(const kc_contract *const *cs, size_t nc, const char *module, const char *control)
{
    for (int k = 0; k < kc_mutant_image_count(); k++) {
        const kc_mutant_image *m = kc_mutant_image_at(k);
        if (strcmp(m->module, module) == 0 && strcmp(m->control, control) == 0) return 1;
    }
    for (size_t i = 0; i < nc; i++) {
        if (!cs[i]->module || strcmp(cs[i]->module, module) != 0) continue;
        for (int k = 0; k < KC_MAX_CONTROLS && cs[i]->controls[k].name; k++)
            if (strcmp(cs[i]->controls[k].name, control) == 0) return 1;
    }
    return 0;
}

/* Every control image (a module built with -DKC_CONTROL_<name>, or a patch
 * control's) listed by a contract of its module: one no contract lists is
 * built and embedded but never run, and nothing said so (the other way
 * round, a listed control with no image, check_controls refuses). Appends
 * one line per such image to err; returns how many. */
static int unlisted_control_images(const kc_contract *const *cs, size_t nc, char *err, size_t cap, size_t *len)
{
    int bad = 0;
    char one[600];
    for (int i = 0; i < kc_fatbin_count(); i++) {
        const kc_fatbin *f = kc_fatbin_at(i);
        if (!f || !f->control || !f->module || control_listed(cs, nc, f->module, f->control)) continue;
        snprintf(one, sizeof one, "module %s has an image of control %s (KC_CONTROL_%s in %s.cu, or a patch), but no "
                 "contract of module %s lists it, so it would never run: list it in that contract's .controls with "
                 "its gate and bug, or take it out of the source", f->module, f->control, f->control, f->module,
                 f->module);
        add_problem(err, cap, len, one);
        bad++;
    }
    return bad;
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
    if (kc_mutant_images_load(one, sizeof one)) {     /* $KC_MUTANTS: a mutation run's images (mutant_images.h) */
        add_problem(err, errcap, &elen, one);
        problems++;
    }
    for (int i = 0; i < kc_reg_problem_count(); i++, problems++) add_problem(err, errcap, &elen, kc_reg_problem_at(i));
    problems += unlisted_control_images(cs, nc, err, errcap, &elen);
    for (size_t i = 0; i < nc; i++) {
        const kc_contract *c = cs[i];
        int bad = kc_contract_check(c, one, sizeof one);
        if (bad) {
            add_problem(err, errcap, &elen, one);
            problems -= bad;
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
        /* A mutation run's mutants of the contract's module, each run as a control. */
        for (int k = 0; k < kc_mutant_image_count() && !c->library; k++) {
            const kc_mutant_image *m = kc_mutant_image_at(k);
            if (strcmp(m->module, c->module) != 0 || !kc_mutant_image_judged_by(m, c->name)) continue;
            it.kind = KC_KIND_CONTROL;
            it.control = c->no_sanitize ? &m->ctl_gates : &m->ctl;   /* no sanitizer for this contract: gates 1-4 */
            snprintf(it.name, sizeof it.name, "%s:mutant.%s", c->name, m->id);
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
            const kc_contract *a = v[i - 1].contract, *b = v[i].contract;
            /* two contracts of one name: said once, by their kernel items,
             * not again for each :limits, control and :sanitize item */
            const int same_contract_name = a && b && a != b && a->name && b->name && strcmp(a->name, b->name) == 0;
            if (same_contract_name && (v[i].kind != KC_KIND_KERNEL || v[i - 1].kind != KC_KIND_KERNEL)) continue;
            if (same_contract_name)
                snprintf(one, sizeof one, "contract name %s is registered twice (modules or libraries %s and %s): "
                         "every contract needs a name of its own", a->name,
                         a->module ? a->module : a->library ? a->library : "?",
                         b->module ? b->module : b->library ? b->library : "?");
            else
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
