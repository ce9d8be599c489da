/* contract_lint.c — the rules every bundled contract is held to beyond the
 * registry's (contract_lint.h), checked against an H200's launch limits
 * without a GPU: every shape gives non-empty buffers and a launch within
 * CUDA's grid and block limits, every tolerance override is sane, every
 * family has at least two controls, ranges hold values of their dtype,
 * tables have generators, device references name their module and give a
 * reasoned, tight bound, error models a reason. */
#include "contract_lint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arith_bound.h"
#include "dtype.h"
#include "registry.h"
#include "seed.h"
#include "steps.h"
#include "suite.h"

/* The H200 as measured by `kcontract info` (docs/receipts). */
static const kc_device h200 = {
    .name = "NVIDIA H200", .cc_major = 9, .cc_minor = 0, .sm_count = 132, .max_threads_per_block = 1024,
    .warp_size = 32, .smem_per_block = 49152, .smem_per_block_optin = 232448, .smem_per_sm = 233472,
    .regs_per_sm = 65536, .max_blocks_per_sm = 32, .total_mem = 150754820096ull,
};

/* A buffer's declared range on shape s: finite, lo <= hi, and for integer
 * dtypes whole numbers the dtype holds. */
static int lint_range(kc_suite_ctx *ctx, const kc_contract *c, const kc_arg *a, const kc_shape *s)
{
    double lo = 0, hi = 0;
    a->range(s, &lo, &hi);
    if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi))
        return kc_suite_fail(ctx, "contract %s shape %s: buffer %s's range [%g, %g] is empty or not finite", c->name,
                             s->name, a->name, lo, hi);
    if (!kc_dtype_is_float(a->dtype)) {
        double tmp = 0;
        kc_store(a->dtype, &tmp, 0, lo);
        int lo_ok = kc_load(a->dtype, &tmp, 0) == lo;
        kc_store(a->dtype, &tmp, 0, hi);
        if (!lo_ok || kc_load(a->dtype, &tmp, 0) != hi)
            return kc_suite_fail(ctx, "contract %s shape %s: buffer %s's range [%g, %g] is not whole %s values", c->name,
                                 s->name, a->name, lo, hi, kc_dtype_name(a->dtype));
    }
    return 0;
}

/* The input and reference declarations: a range or a table but not both, a
 * range beside a generator only where gen_on leaves it distributions, a
 * table with its generator, a device reference with its module, and a bound
 * on its agreement with a reason. */
static int lint_declarations(kc_suite_ctx *ctx, const kc_contract *c)
{
    for (int i = 0; i < KC_MAX_ARGS && c->args[i].kind; i++) {
        const kc_arg *a = &c->args[i];
        if (a->range && (a->table || (a->gen && !a->gen_on)))
            return kc_suite_fail(ctx, "contract %s: buffer %s has a range and a %s: one or the other%s", c->name, a->name,
                                 a->table ? "table" : "generator for every distribution",
                                 a->table ? "" : " (or name the generator's distributions in gen_on)");
        if (a->table && !a->gen)
            return kc_suite_fail(ctx, "contract %s: buffer %s is a table without a generator", c->name, a->name);
        if (a->errors.kind != KC_ERRORS_DEFAULT && !a->errors.reason)
            return kc_suite_fail(ctx, "contract %s: output %s's error model needs a reason", c->name, a->name);
    }
    if (c->errors.kind != KC_ERRORS_DEFAULT && !c->errors.reason)
        return kc_suite_fail(ctx, "contract %s: its error model needs a reason", c->name);
    const kc_device_ref *d = &c->device_reference;
    if (d->symbol && !d->module)
        return kc_suite_fail(ctx, "contract %s: device reference %s names no module", c->name, d->symbol);
    if ((d->agree.rtol > 0 || d->agree.atol > 0) && !d->agree.reason)
        return kc_suite_fail(ctx, "contract %s: device reference %s's bound (rtol %g, atol %g) needs a reason", c->name,
                             d->symbol ? d->symbol : "?", d->agree.rtol, d->agree.atol);
    if (d->agree.rtol >= 1e-6)
        return kc_suite_fail(ctx, "contract %s: device reference %s's bound rtol %g is too loose to catch a wrong reference (float64 agrees to ulps)",
                             c->name, d->symbol ? d->symbol : "?", d->agree.rtol);
    return 0;
}

/* Whether input a is the built-in stream under distribution d: no range,
 * and no generator, or one whose gen_on leaves d out. */
static int builtin_on(const kc_arg *a, kc_dist d)
{
    if (a->kind != KC_ARG_BUFFER || a->role == KC_OUT || a->range || a->of) return 0;
    return !a->gen || (a->gen_on && !(a->gen_on & KC_DIST_BIT(d)));
}

/* The boundary distributions a contract's inputs can take: ZEROS, CONSTANT
 * and DENORMAL when a floating input comes from the built-in stream on them
 * (no generator, or one whose gen_on leaves them out), INT_EXTREMES when an
 * integer one does; each must be run (in dists) or skipped with a reason
 * (no_boundary). */
static int lint_boundaries(kc_suite_ctx *ctx, const kc_contract *c)
{
    static const kc_dist fdists[] = { KC_ZEROS, KC_CONSTANT, KC_DENORMAL };
    for (int k = 0; k < 4; k++) {
        kc_dist d = k < 3 ? fdists[k] : KC_INT_EXTREMES;
        int takes = 0;
        for (int i = 0; i < KC_MAX_ARGS && c->args[i].kind; i++)
            takes |= builtin_on(&c->args[i], d) && (k < 3) == (kc_dtype_is_float(c->args[i].dtype) != 0);
        if (!takes) continue;
        int run = 0, skipped = 0;
        for (int j = 0; j < KC_MAX_DISTS && c->dists[j]; j++) run |= c->dists[j] == d;
        for (int j = 0; j < KC_MAX_DISTS && c->no_boundary[j].dist; j++) {
            if (c->no_boundary[j].dist != d) continue;
            if (!c->no_boundary[j].reason || !*c->no_boundary[j].reason)
                return kc_suite_fail(ctx, "contract %s: no_boundary %s needs a reason", c->name, kc_dist_name(d));
            skipped = 1;
        }
        if (!run && !skipped)
            return kc_suite_fail(ctx, "contract %s: its %s inputs can take the boundary distribution %s: add it to .dists, or to .no_boundary with the reason it does not apply",
                                 c->name, k < 3 ? "floating" : "integer", kc_dist_name(d));
        if (run && skipped)
            return kc_suite_fail(ctx, "contract %s: %s is both run and skipped", c->name, kc_dist_name(d));
    }
    return 0;
}

int kc_contract_lint(kc_suite_ctx *ctx, const kc_contract *c)
{
    if (lint_declarations(ctx, c) || lint_boundaries(ctx, c)) return 1;
    int controls = 0;
    while (controls < KC_MAX_CONTROLS && c->controls[controls].name) controls++;
    if (controls < 2) return kc_suite_fail(ctx, "contract %s has %d control(s); each needs at least 2", c->name, controls);
    /* The sanitizer gate (docs/sanitizer-gate.md): opting out takes a reason a
     * reader can judge, not a word. */
    if (c->no_sanitize && strlen(c->no_sanitize) < 16)
        return kc_suite_fail(ctx, "contract %s: no_sanitize \"%s\" does not say why compute-sanitizer may not run its "
                             "kernel (at least a sentence)", c->name, c->no_sanitize);
    if (c->tol.reason && (c->tol.rtol >= 0.5 || c->tol.atol >= 1.0))
        return kc_suite_fail(ctx, "contract %s: tolerance rtol %g atol %g is too loose to catch anything", c->name,
                             c->tol.rtol, c->tol.atol);
    for (const kc_shape *s = c->shapes; s->name; s++) {
        for (int a = 0; a < KC_MAX_ARGS && c->args[a].kind; a++) {
            if (c->args[a].kind == KC_ARG_BUFFER && c->args[a].count(s) == 0)
                return kc_suite_fail(ctx, "contract %s shape %s: buffer %s is empty", c->name, s->name, c->args[a].name);
            if (c->args[a].range && lint_range(ctx, c, &c->args[a], s)) return 1;
            /* The bound in force on this shape, derived ones too (arith_bound.h),
             * must be able to catch something. */
            if (c->args[a].kind == KC_ARG_BUFFER && !c->args[a].of && c->args[a].role != KC_IN) {
                kc_bound b = kc_bound_for(c, a, s);
                if (b.tol.rtol >= 0.5 || b.tol.atol >= 1.0 || b.mtol >= 0.5)
                    return kc_suite_fail(ctx, "contract %s shape %s: output %s's bound (rtol %g, atol %g, magnitude %g: %s) is too loose to catch anything",
                                         c->name, s->name, c->args[a].name, b.tol.rtol, b.tol.atol, b.mtol, b.why);
            }
        }
        /* Every kernel's launch: a sequence's steps, or the one kernel (none
         * for a library kernel: the library picks its launches). */
        kc_step_plan steps[KC_MAX_STEPS];
        char err[1024], who[160];
        int ns = kc_contract_steps(c, steps, err, sizeof err);
        if (ns < 0) return kc_suite_fail(ctx, "%s", err);
        for (int i = 0; i < ns; i++) {
            kc_launch l = { { 1, 1, 1 }, { 1, 1, 1 }, 0 };
            steps[i].launch(s, &h200, &l);
            kc_step_label(&steps[i], i, ns, who, sizeof who);
            unsigned long long threads = (unsigned long long)l.block[0] * l.block[1] * l.block[2];
            if (!threads || threads > 1024 || l.block[2] > 64)
                return kc_suite_fail(ctx, "contract %s shape %s: %sblock %ux%ux%u is outside CUDA's limits", c->name,
                                     s->name, who, l.block[0], l.block[1], l.block[2]);
            if (!l.grid[0] || !l.grid[1] || !l.grid[2] || l.grid[0] > 2147483647u || l.grid[1] > 65535 ||
                l.grid[2] > 65535)
                return kc_suite_fail(ctx, "contract %s shape %s: %sgrid %ux%ux%u is outside CUDA's limits", c->name,
                                     s->name, who, l.grid[0], l.grid[1], l.grid[2]);
            if (l.smem > h200.smem_per_block_optin)
                return kc_suite_fail(ctx, "contract %s shape %s: %s%u bytes of dynamic shared memory > %zu on an H200",
                                     c->name, s->name, who, l.smem, h200.smem_per_block_optin);
        }
    }
    return 0;
}


int kc_lint_contracts(kc_suite_ctx *ctx)
{
    const kc_contract *const *cs;
    size_t n = kc_registry_contracts(&cs);
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += kc_contract_lint(ctx, cs[i]);   /* every contract: the message says how many failed */
    if (bad > 1) {
        size_t used = strlen(ctx->msg);
        snprintf(ctx->msg + used, sizeof ctx->msg - used, " (and %d more of the %zu contracts have problems)", bad - 1, n);
    }
    return bad > 0;
}
