/* count_probe.c — every contract's buffer counts tried over its shapes in a
 * forked child, the one that ended it named (count_probe.h). */
#include "count_probe.h"

#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "forked_call.h"
#include "registry.h"
#include "signame.h"

/* Where the child is: written before each count, read by the parent after
 * the child ended (a page shared with it). */
typedef struct {
    volatile int contract, shape, arg;  /* arg -1: the contract's own arithmetic */
    volatile int what;                  /* 0 the count, 1 arith.terms, 2 arith.depth */
    pid_t parent;       /* the caller: no core file is turned off there */
} probe_at;

static const char *const WHAT[] = { "the element count", "the arithmetic's terms", "the arithmetic's depth" };

/* Every count of every contract over every shape, in the child: they take
 * well under a millisecond together (0.5 ms for the 106 contracts of
 * build/kcontract); one that has not returned by then never will. */
#define PROBE_LIMIT_S 10

/* The arithmetic's functions (kc_arith: the derived bound's K and depth),
 * which the build identity and the bound call on every shape. */
static void probe_arith(probe_at *at, const kc_arith *m, const kc_shape *s)
{
    at->what = 1;
    if (m->terms) (void)m->terms(s);
    at->what = 2;
    if (m->depth) (void)m->depth(s);
}

static int probe_fn(void *ctx, void *out)
{
    probe_at *at = ctx;
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    struct rlimit none = { 0, 0 };
    (void)out;
    if (getpid() != at->parent) {
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
    for (size_t i = 0; i < nc; i++)
        for (int s = 0; cs[i]->shapes && cs[i]->shapes[s].name; s++) {
            const kc_shape *sh = &cs[i]->shapes[s];
            at->contract = (int)i, at->shape = s, at->arg = -1;
            probe_arith(at, &cs[i]->arith, sh);
            for (int a = 0; a < KC_MAX_ARGS && cs[i]->args[a].kind != KC_ARG_END; a++) {
                const kc_arg *ar = &cs[i]->args[a];
                at->arg = a, at->what = 0;
                if ((ar->kind == KC_ARG_BUFFER || ar->kind == KC_ARG_PTR_ARRAY) && ar->count) (void)ar->count(sh);
                probe_arith(at, &ar->arith, sh);
            }
        }
    at->contract = -1;
    return 0;
}

int kc_count_probe(char *why, size_t cap)
{
    probe_at local = { -1, -1, -1, 0, getpid() }, *at = mmap(NULL, sizeof *at, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) at = &local;      /* no page to share: a child's end is still caught, not placed */
    *at = local;
    int rc = 0, st = 0, r = kc_forked_call(probe_fn, at, NULL, 0, &rc, &st);
    int ret = r == 1 ? 1 : 0;
    if (r < 0) {
        char sig[32], how[64];
        if (WIFSIGNALED(st)) snprintf(how, sizeof how, "%s", kc_signal_name(WTERMSIG(st), sig, sizeof sig));
        else snprintf(how, sizeof how, "exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        const kc_contract *const *cs;
        size_t nc = kc_registry_contracts(&cs);
        if (at->contract >= 0 && (size_t)at->contract < nc) {
            const kc_contract *c = cs[at->contract];
            const kc_arg *ar = at->arg >= 0 ? &c->args[at->arg] : NULL;
            char of[200] = "";
            if (ar)
                snprintf(of, sizeof of, " of %s %s", ar->kind == KC_ARG_PTR_ARRAY ? "pointer table"
                                                    : ar->kind == KC_ARG_BUFFER ? "buffer" : "argument",
                         ar->name ? ar->name : "(unnamed)");
            if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
                kc_errf(why, cap, "contract %s: shape %s: %s%s did not return within %d s: each must take every "
                        "shape of the contract and return (arithmetic on its dims: it is computed for every case)",
                        c->name ? c->name : "(unnamed)", c->shapes[at->shape].name, WHAT[at->what], of, PROBE_LIMIT_S);
            else
                kc_errf(why, cap, "contract %s: shape %s: %s%s ended the process (%s; the line above says why): "
                        "each must take every shape of the contract (a dim a count reads must be >= 0, and their "
                        "product at most SIZE_MAX)",
                        c->name ? c->name : "(unnamed)", c->shapes[at->shape].name, WHAT[at->what], of, how);
        } else
            kc_errf(why, cap, "trying the contracts' element counts over their shapes ended the process (%s; the "
                    "line above says why), outside any one count", how);
        ret = -1;
    }
    if (at != &local) munmap(at, sizeof *at);
    return ret;
}
