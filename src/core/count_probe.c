/* count_probe.c — every contract's buffer counts, arithmetic and scalar
 * values tried over its shapes in a forked child, the one that ended it
 * named, and a read of a dim the contract does not name caught as it is
 * made (count_probe.h). */
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

/* The guard, in the child only: a page that may be read, then one that may
 * not. Each shape is copied whole so that its dims the contract does not
 * name (d[named] ..) and the fields after them (no_racecheck) lie on the
 * second page: a function that touches one faults there, and the handler
 * notes the first dim touched, makes the page readable (the read then sees
 * the shape's own values) and lets the function go on. A touch alone is no
 * mistake: a count may copy its shape (kc_shape t = *s, a helper taking a
 * kc_shape by value) or read no_racecheck, and a compiler may load a whole
 * shape. What is refused is a result that depends on a dim the contract
 * does not name (depends_unnamed): without it such a read gives 0 (the
 * entry a shape leaves out), a buffer of no elements or a 0 passed, and the
 * contract ran as if fine. Statics: a signal handler has nothing else to
 * read. */
static unsigned char *guard_fence;      /* the first byte of the guarded page; NULL: no guard */
static size_t guard_page;               /* its size */
static int guard_named;                 /* the dims of the shape copied last */
static int guard_open_now;              /* the page is readable (a touch since the last arm) */
static volatile sig_atomic_t guard_touched;     /* -1 none; the first unnamed dim touched; KC_MAX_DIMS: a field past d */

/* SIGSEGV: a fault on the guarded page notes what it touched and makes the
 * page readable, so the read, run again, sees the shape's own value; any
 * other fault restores the default action, and the read, run again, ends
 * the process (named by the parent as before). */
static void guard_fault(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    const uintptr_t a = (uintptr_t)si->si_addr, f = (uintptr_t)guard_fence;
    if (guard_fence && a >= f && a < f + guard_page) {
        if (guard_touched < 0)
            guard_touched = a < f + (size_t)(KC_MAX_DIMS - guard_named) * sizeof(int64_t)
                          ? guard_named + (int)((a - f) / sizeof(int64_t)) : KC_MAX_DIMS;
        if (mprotect(guard_fence, guard_page, PROT_READ | PROT_WRITE) == 0) return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGSEGV, &dfl, NULL);
}

/* Maps the guard and catches its faults; without it (no memory) the
 * shapes are probed as they are. */
static void guard_open(void)
{
    const long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0 || (size_t)ps < sizeof(kc_shape)) return;
    unsigned char *p = mmap(NULL, 2 * (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    if (mprotect(p + ps, (size_t)ps, PROT_NONE)) {
        munmap(p, 2 * (size_t)ps);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = guard_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL)) return;
    guard_fence = p + ps;
    guard_page = (size_t)ps;
    guard_touched = -1;
}

/* The guarded page unreadable again, nothing touched yet. */
static void guard_arm(void)
{
    guard_touched = -1;
    if (guard_open_now && mprotect(guard_fence, guard_page, PROT_NONE) == 0) guard_open_now = 0;
}

/* Shape s of contract c as the probe passes it: a whole copy whose named
 * dims end at the guard; s itself where there is no guard or nothing to
 * guard (a contract that names no dims, or all of them). */
static const kc_shape *guarded(const kc_contract *c, const kc_shape *s)
{
    const int named = kc_dims_named(c);
    if (!guard_fence || named == 0 || named == KC_MAX_DIMS) return s;
    const size_t head = offsetof(kc_shape, d) + (size_t)named * sizeof s->d[0];
    if (mprotect(guard_fence, guard_page, PROT_READ | PROT_WRITE)) return s;
    kc_shape *g = (kc_shape *)(void *)(guard_fence - head);
    memcpy(g, s, sizeof *g);
    guard_named = named;
    guard_open_now = 1;
    guard_arm();
    return g;
}

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

/* After f touched an unnamed dim of s (guarded): whether its result r
 * changes with one. Each unnamed dim in turn is set to other values (1, 7, 4096 more) on a
 * copy of orig (at->dim says which, so a call that ends the process is
 * named by it); the first that changes the result is left in at->dim and
 * the child ends, refused by the parent. */
static void depends_unnamed(probe_at *at, const probe_fn_ref *f, const kc_shape *orig, uint64_t r)
{
    static const int64_t other[] = { 1, 7, 4096 };
    for (int i = guard_named; i < KC_MAX_DIMS; i++)
        for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) {
            kc_shape p = *orig;
            p.d[i] = (orig->d[i] > 0 ? orig->d[i] : 0) + other[k];
            at->dim = i;
            if (call_bits(f, &p) != r) _exit(1);
        }
    at->dim = -1;
}

/* Calls f on sh (the guarded copy of orig), then holds it to the dims the
 * contract names when it touched another. */
static void probe_call(probe_at *at, const probe_fn_ref *f, const kc_shape *sh, const kc_shape *orig)
{
    if (sh != orig) guard_arm();
    uint64_t r = call_bits(f, sh);
    if (sh != orig && guard_touched >= 0 && guard_touched < KC_MAX_DIMS) depends_unnamed(at, f, orig, r);
}

/* The arithmetic's functions (kc_arith: the derived bound's K and depth),
 * which the build identity and the bound call on every shape. */
static void probe_arith(probe_at *at, const kc_arith *m, const kc_shape *s, const kc_shape *orig)
{
    at->what = AT_TERMS;
    if (m->terms) probe_call(at, &(probe_fn_ref){ .i64 = m->terms }, s, orig);
    at->what = AT_DEPTH;
    if (m->depth) probe_call(at, &(probe_fn_ref){ .i64 = m->depth }, s, orig);
}

/* A scalar's value, or each of a struct's scalar fields', which every case
 * passes to the kernel. */
static void probe_values(probe_at *at, const kc_arg *ar, const kc_shape *s, const kc_shape *orig)
{
    at->what = AT_VALUE;
    if (ar->kind == KC_ARG_SCALAR) {
        if (ar->value) probe_call(at, &(probe_fn_ref){ .f64 = ar->value }, s, orig);
        if (ar->ivalue) probe_call(at, &(probe_fn_ref){ .i64 = ar->ivalue }, s, orig);
    }
    for (int f = 0; ar->kind == KC_ARG_STRUCT && ar->layout && f < KC_MAX_FIELDS && ar->layout->fields[f].name; f++) {
        const kc_field *fd = &ar->layout->fields[f];
        at->field = f;
        if (fd->arg) continue;
        if (fd->value) probe_call(at, &(probe_fn_ref){ .f64 = fd->value }, s, orig);
        if (fd->ivalue) probe_call(at, &(probe_fn_ref){ .i64 = fd->ivalue }, s, orig);
    }
    at->field = -1;
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

static int probe_fn(void *ctx, void *out)
{
    probe_at *at = ctx;
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    (void)out;
    if (getpid() != at->parent) {   /* the guard's faults end a child, never the caller */
        child_limits();
        guard_open();
    }
    for (size_t i = 0; i < nc; i++)
        for (int s = 0; cs[i]->shapes && cs[i]->shapes[s].name; s++) {
            const kc_shape *sh = guarded(cs[i], &cs[i]->shapes[s]);
            at->contract = (int)i, at->shape = s, at->arg = -1, at->field = -1;
            const kc_shape *orig = &cs[i]->shapes[s];
            probe_arith(at, &cs[i]->arith, sh, orig);
            for (int a = 0; a < KC_MAX_ARGS && cs[i]->args[a].kind != KC_ARG_END; a++) {
                const kc_arg *ar = &cs[i]->args[a];
                at->arg = a, at->what = AT_COUNT;
                if ((ar->kind == KC_ARG_BUFFER || ar->kind == KC_ARG_PTR_ARRAY) && ar->count)
                    probe_call(at, &(probe_fn_ref){ .count = ar->count }, sh, orig);
                probe_arith(at, &ar->arith, sh, orig);
            }
        }
    /* The values after every count and arithmetic: what the memory plan
     * and the build identity call is named first, as it was before values
     * were probed. */
    for (size_t i = 0; i < nc; i++)
        for (int s = 0; cs[i]->shapes && cs[i]->shapes[s].name; s++) {
            const kc_shape *sh = guarded(cs[i], &cs[i]->shapes[s]);
            at->contract = (int)i, at->shape = s;
            for (int a = 0; a < KC_MAX_ARGS && cs[i]->args[a].kind != KC_ARG_END; a++) {
                at->arg = a;
                probe_values(at, &cs[i]->args[a], sh, &cs[i]->shapes[s]);
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
    if (r < 0) {
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
