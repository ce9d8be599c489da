/* count_probe.c — every contract's buffer counts, arithmetic and scalar
 * values tried over its shapes in a forked child, the one that ended it
 * named, and one whose result depends on a dim the contract does not name
 * refused (count_probe.h). */
#include "count_probe.h"

#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dim_names.h"
#include "errmsg.h"
#include "forked_call.h"
#include "registry.h"
#include "signame.h"

/* Where the child is: written before each call, read by the parent after
 * the child ended (a page shared with it). */
typedef struct {
    volatile int contract, shape, arg;  /* arg -1: the contract's own arithmetic */
    volatile int field;                 /* a struct argument's field, else -1 */
    volatile int what;                  /* an index of WHAT */
    volatile int dim;                   /* d[dim], which the contract does not name, was read; else -1 */
    pid_t parent;       /* the caller: no core file is turned off there */
} probe_at;

enum { AT_COUNT, AT_TERMS, AT_DEPTH, AT_VALUE };
static const char *const WHAT[] = { "the element count", "the arithmetic's terms", "the arithmetic's depth",
                                    "the value" };

/* Every count of every contract over every shape, in the child: they take
 * well under a millisecond together (0.5 ms for the 106 contracts of
 * build/kcontract); one that has not returned by then never will. */
#define PROBE_LIMIT_S 10

/* A dim the contract does not name is 0 on every shape that leaves it out
 * and on every launch record, so a result that depends on one is silently
 * wrong (a buffer of no elements, a 0 passed) and no failure line shows
 * it. Each function is called again with each such dim set to other values
 * (1, 7 and 4096 past the shape's own, or past 0): a result that changes
 * reads one. A touch alone is no mistake (a count may copy its shape, a
 * helper take a kc_shape by value, a compiler load a whole shape). */
static const int64_t UNNAMED_OTHER[] = { 1, 7, 4096 };

/* One function the probe calls: a count, an integer (terms, depth, ivalue)
 * or a value; its result as bits, to compare. */
typedef struct {
    size_t (*count)(const kc_shape *);
    int64_t (*i64)(const kc_shape *);
    double (*f64)(const kc_shape *);
} probe_fn_ref;

static uint64_t call_bits(const probe_fn_ref *f, const kc_shape *s)
{
    if (f->count) return (uint64_t)f->count(s);
    if (f->i64) return (uint64_t)f->i64(s);
    double v = f->f64(s);
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* Calls f on shape s of a contract that names `named` dims, then on copies
 * of s with each unnamed dim changed in turn (at->dim says which, so a call
 * that ends the process is named by it). 0, or 1 with at->dim the first
 * unnamed dim the result depends on. */
static int probe_call(probe_at *at, const probe_fn_ref *f, const kc_shape *s, int named)
{
    at->dim = -1;
    const uint64_t r = call_bits(f, s);
    for (int i = named > 0 ? named : KC_MAX_DIMS; i < KC_MAX_DIMS; i++)
        for (size_t k = 0; k < sizeof UNNAMED_OTHER / sizeof UNNAMED_OTHER[0]; k++) {
            kc_shape p = *s;
            p.d[i] = (s->d[i] > 0 ? s->d[i] : 0) + UNNAMED_OTHER[k];
            at->dim = i;
            if (call_bits(f, &p) != r) return 1;
        }
    at->dim = -1;
    return 0;
}

/* The arithmetic's functions (kc_arith: the derived bound's K and depth),
 * which the build identity and the bound call on every shape. 0, or 1 when
 * one depends on an unnamed dim (probe_call). */
static int probe_arith(probe_at *at, const kc_arith *m, const kc_shape *s, int named)
{
    at->what = AT_TERMS;
    if (m->terms && probe_call(at, &(probe_fn_ref){ .i64 = m->terms }, s, named)) return 1;
    at->what = AT_DEPTH;
    return m->depth && probe_call(at, &(probe_fn_ref){ .i64 = m->depth }, s, named);
}

/* A scalar's value, or each of a struct's scalar fields', which every case
 * passes to the kernel. 0, or 1 as probe_arith. */
static int probe_values(probe_at *at, const kc_arg *ar, const kc_shape *s, int named)
{
    at->what = AT_VALUE;
    if (ar->kind == KC_ARG_SCALAR) {
        if (ar->value && probe_call(at, &(probe_fn_ref){ .f64 = ar->value }, s, named)) return 1;
        if (ar->ivalue && probe_call(at, &(probe_fn_ref){ .i64 = ar->ivalue }, s, named)) return 1;
    }
    for (int f = 0; ar->kind == KC_ARG_STRUCT && ar->layout && f < KC_MAX_FIELDS && ar->layout->fields[f].name; f++) {
        const kc_field *fd = &ar->layout->fields[f];
        at->field = f;
        if (fd->arg) continue;
        if (fd->value && probe_call(at, &(probe_fn_ref){ .f64 = fd->value }, s, named)) return 1;
        if (fd->ivalue && probe_call(at, &(probe_fn_ref){ .i64 = fd->ivalue }, s, named)) return 1;
    }
    at->field = -1;
    return 0;
}

/* In the child: no core file, a time limit. */
static void child_limits(void)
{
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);   /* an abort here is a finding, not a core file */
    /* A count that never returns ends the child (SIGALRM, named below)
     * rather than hanging the run before it printed anything (the child
     * dies with the process that waits for it: kc_forked_call). */
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    signal(SIGALRM, SIG_DFL);
    sigprocmask(SIG_UNBLOCK, &alrm, NULL);
    alarm(PROBE_LIMIT_S);
}

/* 0; or PROBE_UNNAMED with *at naming the call whose result depends on a
 * dim the contract does not name. */
enum { PROBE_UNNAMED = 2 };
static int probe_fn(void *ctx, void *out)
{
    probe_at *at = ctx;
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    (void)out;
    if (getpid() != at->parent) child_limits();
    for (size_t i = 0; i < nc; i++)
        for (int s = 0; cs[i]->shapes && cs[i]->shapes[s].name; s++) {
            const kc_shape *sh = &cs[i]->shapes[s];
            const int named = kc_dims_named(cs[i]);
            at->contract = (int)i, at->shape = s, at->arg = -1, at->field = -1;
            if (probe_arith(at, &cs[i]->arith, sh, named)) return PROBE_UNNAMED;
            for (int a = 0; a < KC_MAX_ARGS && cs[i]->args[a].kind != KC_ARG_END; a++) {
                const kc_arg *ar = &cs[i]->args[a];
                at->arg = a, at->what = AT_COUNT;
                if ((ar->kind == KC_ARG_BUFFER || ar->kind == KC_ARG_PTR_ARRAY) && ar->count &&
                    probe_call(at, &(probe_fn_ref){ .count = ar->count }, sh, named))
                    return PROBE_UNNAMED;
                if (probe_arith(at, &ar->arith, sh, named)) return PROBE_UNNAMED;
            }
        }
    /* The values after every count and arithmetic: what the memory plan
     * and the build identity call is named first, as it was before values
     * were probed. */
    for (size_t i = 0; i < nc; i++)
        for (int s = 0; cs[i]->shapes && cs[i]->shapes[s].name; s++) {
            at->contract = (int)i, at->shape = s;
            for (int a = 0; a < KC_MAX_ARGS && cs[i]->args[a].kind != KC_ARG_END; a++) {
                at->arg = a;
                if (probe_values(at, &cs[i]->args[a], &cs[i]->shapes[s], kc_dims_named(cs[i]))) return PROBE_UNNAMED;
            }
        }
    at->contract = -1;
    return 0;
}

/* " of buffer x", " of field f of struct s": what the child was calling. */
static void probe_of(const kc_contract *c, const probe_at *at, char *of, size_t cap)
{
    const kc_arg *ar = at->arg >= 0 && at->arg < KC_MAX_ARGS ? &c->args[at->arg] : NULL;
    const char *name = ar && ar->name ? ar->name : "(unnamed)";
    of[0] = 0;
    if (!ar) return;
    if (ar->kind == KC_ARG_STRUCT && ar->layout && at->field >= 0 && at->field < KC_MAX_FIELDS)
        snprintf(of, cap, " of field %s of struct %s", ar->layout->fields[at->field].name, name);
    else
        snprintf(of, cap, " of %s %s", ar->kind == KC_ARG_PTR_ARRAY ? "pointer table" : ar->kind == KC_ARG_BUFFER ? "buffer"
                                       : ar->kind == KC_ARG_SCALAR ? "scalar" : "argument", name);
}

/* "SIGABRT" or "exit status N": how the child ended. */
static const char *ended_how(int st, char *how, size_t cap)
{
    char sig[32];
    if (WIFSIGNALED(st)) snprintf(how, cap, "%s", kc_signal_name(WTERMSIG(st), sig, sizeof sig));
    else snprintf(how, cap, "exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return how;
}

/* The refusal of a child that ended inside contract c's call at->what. */
static void probe_refusal(const kc_contract *c, const probe_at *at, int st, char *why, size_t cap)
{
    char how[64], of[200], dims[400];
    const kc_shape *s = &c->shapes[at->shape];
    const char *cn = c->name ? c->name : "(unnamed)";
    probe_of(c, at, of, sizeof of);
    if (at->dim >= 0 && at->dim < KC_MAX_DIMS)
        kc_errf(why, cap, "contract %s: shape %s: %s%s reads d[%d], a dim the contract does not name (its dims: %s): "
                "d[%d] is %" PRId64 " on this shape and 0 on every launch record (they give the named dims only), and "
                "no failure line shows it, so what reads it is silently wrong (a buffer of 0 elements, a 0 passed); "
                "expected a read of a named dim, or a name for d[%d] in .dims", cn, s->name, WHAT[at->what], of, at->dim,
                kc_dim_list(c, dims, sizeof dims), at->dim, s->d[at->dim], at->dim);
    else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
        kc_errf(why, cap, "contract %s: shape %s: %s%s did not return within %d s: each must take every "
                "shape of the contract and return (arithmetic on its dims: it is computed for every case)",
                cn, s->name, WHAT[at->what], of, PROBE_LIMIT_S);
    else
        kc_errf(why, cap, "contract %s: shape %s: %s%s ended the process (%s; the line above says why): "
                "each must take every shape of the contract (a dim a count reads must be >= 0, and their "
                "product at most SIZE_MAX)", cn, s->name, WHAT[at->what], of, ended_how(st, how, sizeof how));
}

int kc_count_probe(char *why, size_t cap)
{
    probe_at local = { .contract = -1, .shape = -1, .arg = -1, .field = -1, .dim = -1, .parent = getpid() };
    probe_at *at = mmap(NULL, sizeof *at, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) at = &local;      /* no page to share: a child's end is still caught, not placed */
    *at = local;
    int rc = 0, st = 0, r = kc_forked_call(probe_fn, at, NULL, 0, &rc, &st);
    int ret = r == 1 ? 1 : 0;
    if (r >= 0 && rc == PROBE_UNNAMED) {       /* here or in the child: a result that reads an unnamed dim */
        const kc_contract *const *cs;
        size_t nc = kc_registry_contracts(&cs);
        if (at->contract >= 0 && (size_t)at->contract < nc) {
            probe_refusal(cs[at->contract], at, 0, why, cap);
            ret = -1;
        }
    } else if (r < 0) {
        char how[64];
        const kc_contract *const *cs;
        size_t nc = kc_registry_contracts(&cs);
        if (at->contract >= 0 && (size_t)at->contract < nc)
            probe_refusal(cs[at->contract], at, st, why, cap);
        else
            kc_errf(why, cap, "trying the contracts' element counts over their shapes ended the process (%s; the "
                    "line above says why), outside any one count", ended_how(st, how, sizeof how));
        ret = -1;
    }
    if (at != &local) munmap(at, sizeof *at);
    return ret;
}
