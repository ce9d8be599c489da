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
    volatile int contract, shape, arg;
    pid_t parent;       /* the caller: no core file is turned off there */
} probe_at;

static int probe_fn(void *ctx, void *out)
{
    probe_at *at = ctx;
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    struct rlimit none = { 0, 0 };
    (void)out;
    if (getpid() != at->parent) setrlimit(RLIMIT_CORE, &none);   /* an abort here is a finding, not a core file */
    for (size_t i = 0; i < nc; i++)
        for (int s = 0; cs[i]->shapes && cs[i]->shapes[s].name; s++)
            for (int a = 0; a < KC_MAX_ARGS && cs[i]->args[a].kind != KC_ARG_END; a++) {
                const kc_arg *ar = &cs[i]->args[a];
                if ((ar->kind != KC_ARG_BUFFER && ar->kind != KC_ARG_PTR_ARRAY) || !ar->count) continue;
                at->contract = (int)i, at->shape = s, at->arg = a;
                (void)ar->count(&cs[i]->shapes[s]);
            }
    at->contract = -1;
    return 0;
}

int kc_count_probe(char *why, size_t cap)
{
    probe_at local = { -1, -1, -1, getpid() }, *at = mmap(NULL, sizeof *at, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
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
            kc_errf(why, cap, "contract %s: shape %s: the element count of %s %s ended the process (%s; the line "
                    "above says why): every count must take each of the contract's shapes (a dim a count reads "
                    "must be >= 0, and their product at most SIZE_MAX)",
                    c->name ? c->name : "(unnamed)", c->shapes[at->shape].name,
                    c->args[at->arg].kind == KC_ARG_PTR_ARRAY ? "pointer table" : "buffer",
                    c->args[at->arg].name ? c->args[at->arg].name : "(unnamed)", how);
        } else
            kc_errf(why, cap, "trying the contracts' element counts over their shapes ended the process (%s; the "
                    "line above says why), outside any one count", how);
        ret = -1;
    }
    if (at != &local) munmap(at, sizeof *at);
    return ret;
}
