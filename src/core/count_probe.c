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
 * not. Each shape is copied so that its dims the contract does not name
 * (d[named] ..) lie on the second page: a function that reads one faults
 * there, and the handler notes which before the process ends. Without it
 * such a read gives 0 (the entry a shape leaves out), a buffer of no
 * elements or a 0 passed, and the contract ran as if fine. Statics: a
 * signal handler has nothing else to read. */
static probe_at *guard_at;
static unsigned char *guard_fence;      /* the first byte that may not be read; NULL: no guard */
static int guard_named;                 /* the dims of the shape copied last */

/* SIGSEGV (SA_RESETHAND: the default action again): a fault inside the
 * guarded dims names the dim; returning re-runs the read, which now ends
 * the process. */
static void guard_fault(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    const uintptr_t a = (uintptr_t)si->si_addr, f = (uintptr_t)guard_fence;
    if (guard_at && a >= f && a < f + (size_t)(KC_MAX_DIMS - guard_named) * sizeof(int64_t))
        guard_at->dim = guard_named + (int)((a - f) / sizeof(int64_t));
}

/* Maps the guard and catches its faults; without it (no memory) the
 * shapes are probed as they are. */
static void guard_open(probe_at *at)
{
    const long ps = sysconf(_SC_PAGESIZE);
    unsigned char *p = ps > 0 ? mmap(NULL, 2 * (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                              : MAP_FAILED;
    if (p == MAP_FAILED) return;
    if (mprotect(p + ps, (size_t)ps, PROT_NONE)) {
        munmap(p, 2 * (size_t)ps);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = guard_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL)) return;
    guard_at = at;
    guard_fence = p + ps;
}

/* Shape s of contract c as the probe passes it: a copy whose named dims
 * end at the guard; s itself where there is no guard or nothing to guard
 * (a contract that names no dims, or all of them). */
static const kc_shape *guarded(const kc_contract *c, const kc_shape *s)
{
    const int named = kc_dims_named(c);
    if (!guard_fence || named == 0 || named == KC_MAX_DIMS) return s;
    const size_t head = offsetof(kc_shape, d) + (size_t)named * sizeof s->d[0];
    kc_shape *g = (kc_shape *)(void *)(guard_fence - head);
    memcpy(g, s, head);
    guard_named = named;
    return g;
}

/* The arithmetic's functions (kc_arith: the derived bound's K and depth),
 * which the build identity and the bound call on every shape. */
static void probe_arith(probe_at *at, const kc_arith *m, const kc_shape *s)
{
    at->what = AT_TERMS;
    if (m->terms) (void)m->terms(s);
    at->what = AT_DEPTH;
    if (m->depth) (void)m->depth(s);
}

/* A scalar's value, or each of a struct's scalar fields', which every case
 * passes to the kernel. */
static void probe_values(probe_at *at, const kc_arg *ar, const kc_shape *s)
{
    at->what = AT_VALUE;
    if (ar->kind == KC_ARG_SCALAR) {
        if (ar->value) (void)ar->value(s);
        if (ar->ivalue) (void)ar->ivalue(s);
    }
    for (int f = 0; ar->kind == KC_ARG_STRUCT && ar->layout && f < KC_MAX_FIELDS && ar->layout->fields[f].name; f++) {
        const kc_field *fd = &ar->layout->fields[f];
        at->field = f;
        if (fd->arg) continue;
        if (fd->value) (void)fd->value(s);
        if (fd->ivalue) (void)fd->ivalue(s);
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
        guard_open(at);
    }
    for (size_t i = 0; i < nc; i++)
        for (int s = 0; cs[i]->shapes && cs[i]->shapes[s].name; s++) {
            const kc_shape *sh = guarded(cs[i], &cs[i]->shapes[s]);
            at->contract = (int)i, at->shape = s, at->arg = -1, at->field = -1;
            probe_arith(at, &cs[i]->arith, sh);
            for (int a = 0; a < KC_MAX_ARGS && cs[i]->args[a].kind != KC_ARG_END; a++) {
                const kc_arg *ar = &cs[i]->args[a];
                at->arg = a, at->what = AT_COUNT;
                if ((ar->kind == KC_ARG_BUFFER || ar->kind == KC_ARG_PTR_ARRAY) && ar->count) (void)ar->count(sh);
                probe_arith(at, &ar->arith, sh);
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
                probe_values(at, &cs[i]->args[a], sh);
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
