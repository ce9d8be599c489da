/* steps.c — a contract's kernels as a sequence of launches (steps.h): its
 * declared steps, checked, with their argument names resolved to the
 * contract's argument indices; or its one kernel as one step. */
#include "steps.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "strbuf.h"

int kc_contract_has_steps(const kc_contract *c)
{
    return c->steps[0].symbol != NULL;
}

/* Problems of one contract's steps: lines in err, counted. */
typedef struct step_problems {
    char *err;
    size_t cap;
    int n;
} step_problems;

static void problem(step_problems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(step_problems *p, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (p->cap) kc_strcatf(p->err, p->cap, "%s%s", p->n ? "\n" : "", line);
    p->n++;
}

/* The index of c's argument called name, or -1. */
static int arg_index(const kc_contract *c, const char *name)
{
    for (int a = 0; a < KC_MAX_ARGS && c->args[a].kind != KC_ARG_END; a++)
        if (c->args[a].name && strcmp(c->args[a].name, name) == 0) return a;
    return -1;
}

/* c's argument names, space-separated, for a message. */
static void arg_names(const kc_contract *c, char *buf, size_t cap)
{
    kc_strbuf b;
    kc_sb_init(&b, buf, cap);
    for (int a = 0; a < KC_MAX_ARGS && c->args[a].kind != KC_ARG_END; a++)
        kc_sb_printf(&b, "%s%s", a ? " " : "", c->args[a].name ? c->args[a].name : "?");
}

/* Whether step st declares anything (a step past the last must be empty). */
static int step_given(const kc_step *st)
{
    if (st->symbol || st->launch || st->programmatic) return 1;
    for (int j = 0; j < KC_MAX_ARGS; j++)
        if (st->args[j]) return 1;
    return 0;
}

/* Step i of c into *out, its problems into p. */
static void plan_step(const kc_contract *c, const char *n, int i, kc_step_plan *out, step_problems *p)
{
    const kc_step *st = &c->steps[i];
    const char *sym = *st->symbol ? st->symbol : "(empty)";
    char names[512];
    *out = (kc_step_plan){ .symbol = st->symbol, .launch = st->launch, .programmatic = st->programmatic };
    if (!*st->symbol) problem(p, "contract %s: step %d has an empty symbol", n, i + 1);
    if (!st->launch) problem(p, "contract %s: step %d (%s) has no launch function", n, i + 1, sym);
    if (st->programmatic != 0 && st->programmatic != 1)
        problem(p, "contract %s: step %d (%s) has programmatic %d (expected 0 or 1)", n, i + 1, sym, st->programmatic);
    if (i == 0 && st->programmatic)
        problem(p, "contract %s: step 1 (%s) is programmatic, but there is no step before it to overlap: "
                "programmatic is for a step after the first (it may start before the step before it ends)", n, sym);
    int end = 0;
    for (int j = 0; j < KC_MAX_ARGS; j++) {
        const char *a = st->args[j];
        if (!a) {
            end = 1;
            continue;
        }
        if (end) {
            problem(p, "contract %s: step %d (%s) names argument %s after the list's end (a NULL at parameter %d)", n,
                    i + 1, sym, a, out->nargs + 1);
            continue;
        }
        int idx = arg_index(c, a);
        if (idx < 0) {
            arg_names(c, names, sizeof names);
            problem(p, "contract %s: step %d (%s) takes argument %s, which the contract does not have (its arguments: %s)",
                    n, i + 1, sym, a, names);
        }
        for (int k = 0; k < out->nargs; k++)
            if (idx >= 0 && out->arg[k] == idx)
                problem(p, "contract %s: step %d (%s) takes argument %s twice (parameters %d and %d)", n, i + 1, sym, a,
                        k + 1, out->nargs + 1);
        out->arg[out->nargs++] = idx;
    }
}

int kc_contract_steps(const kc_contract *c, kc_step_plan out[KC_MAX_STEPS], char *err, size_t cap)
{
    step_problems p = { err, cap, 0 };
    const char *n = c->name && *c->name ? c->name : "(unnamed)";
    int nargs = 0;
    if (cap) err[0] = 0;
    while (nargs < KC_MAX_ARGS && c->args[nargs].kind != KC_ARG_END) nargs++;
    if (!kc_contract_has_steps(c)) {
        for (int i = 0; i < KC_MAX_STEPS; i++)
            if (step_given(&c->steps[i]))
                problem(&p, "contract %s: step %d is given, but step 1 has no symbol (steps end at the first without "
                        "one)", n, i + 1);
        if (p.n) return -p.n;
        if (c->library) return 0;
        out[0] = (kc_step_plan){ .symbol = c->symbol, .launch = c->launch, .nargs = nargs };
        for (int a = 0; a < nargs; a++) out[0].arg[a] = a;
        return 1;
    }
    if (c->library)
        problem(&p, "contract %s: library %s with steps: a library kernel launches itself (no steps)", n, c->library);
    if (c->symbol || c->launch)
        problem(&p, "contract %s: steps and a %s of the contract's own: a contract with steps names each kernel and "
                "launch in its steps (leave symbol and launch NULL)", n, c->symbol ? "symbol" : "launch");
    int ns = 0, ended = 0;
    for (int i = 0; i < KC_MAX_STEPS; i++) {
        if (!c->steps[i].symbol) {
            if (step_given(&c->steps[i]))
                problem(&p, "contract %s: step %d has no symbol (a step names its kernel)", n, i + 1);
            ended = 1;
            continue;
        }
        if (ended) {
            problem(&p, "contract %s: step %d (%s) follows a step without a symbol (steps end at the first without "
                    "one)", n, i + 1, c->steps[i].symbol);
            continue;
        }
        plan_step(c, n, i, &out[ns++], &p);
    }
    for (int a = 0; a < nargs; a++) {
        int taken = 0;
        for (int i = 0; i < ns && !taken; i++)
            for (int j = 0; j < out[i].nargs && !taken; j++) taken = out[i].arg[j] == a;
        if (!taken)
            problem(&p, "contract %s: argument %s is taken by no step (each argument is some kernel's parameter)", n,
                    c->args[a].name ? c->args[a].name : "?");
    }
    return p.n ? -p.n : ns;
}

void kc_step_label(const kc_step_plan *st, int i, int n, char *buf, size_t cap)
{
    if (n > 1) snprintf(buf, cap, "step %d of %d (%s): ", i + 1, n, st->symbol);
    else if (cap) buf[0] = 0;
}
