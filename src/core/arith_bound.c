/* arith_bound.c — owns the choice of gate 3's bound for an output (hand-set,
 * default, or derived from a declared arithmetic) and the derivation
 * (arith_bound.h; the rules and their sources are kcontract.h's, kc_arith). */
#include "arith_bound.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dim_names.h"
#include "dtype.h"
#include "kcontract_dtype.h"
#include "tolerance.h"

double kc_unit_roundoff(kc_dtype t)
{
    int mbits, emin;
    if (!kc_cvt_float_params(t, &mbits, &emin)) return 0.0;
    return ldexp(1.0, -(mbits + 1));
}

/* Half the smallest subnormal of a floating dtype: the largest error of one
 * rounding below its normal range (Higham §2.1, (2.8)). */
static double half_subnormal(kc_dtype t)
{
    int mbits, emin;
    if (!kc_cvt_float_params(t, &mbits, &emin)) return 0.0;
    return ldexp(1.0, emin - mbits - 1);
}

double kc_gamma(int64_t n, double u)
{
    double nu = (double)n * u;
    if (n < 0 || !(nu < 1.0)) return NAN;
    return nu / (1.0 - nu);
}

/* ceil(log2 k) for k >= 1. */
static int64_t ceil_log2(int64_t k)
{
    int64_t b = 0;
    while (b < 63 && ((int64_t)1 << b) < k) b++;
    return b;
}

int64_t kc_arith_ops(const kc_arith *m, int64_t terms, int64_t depth)
{
    int64_t n = 0;
    if (terms > 0) n = m->depth ? depth : m->order == KC_SUM_PAIRWISE ? ceil_log2(terms) + 1 : terms;
    return n + m->roundings;
}

int kc_arith_given(const kc_arith *m)
{
    return m->acc != KC_DTYPE_NONE || m->terms_dim || m->terms || m->depth || m->roundings || m->order || m->magnitude;
}

/* K on shape s (0: no sum); the caller has checked the declaration. */
static int64_t terms_on(const kc_contract *c, const kc_arith *m, const kc_shape *s)
{
    if (m->terms_dim) {
        int d = kc_dim_named(c, m->terms_dim);
        return d >= 0 ? s->d[d] : 0;
    }
    return m->terms ? m->terms(s) : 0;
}

int kc_arith_check(const kc_contract *c, const kc_arith *m, kc_dtype out, const kc_shape *s, char *why, size_t cap)
{
    if (!kc_dtype_is_float(m->acc)) {
        snprintf(why, cap, "arithmetic dtype %s (%d) is no floating type (expected f64, f32, f16, bf16 or e4m3)",
                 kc_dtype_name(m->acc) ? kc_dtype_name(m->acc) : "?", (int)m->acc);
        return 1;
    }
    if (!kc_dtype_is_float(out)) {
        snprintf(why, cap, "an arithmetic for an output of %s: integer outputs compare exactly", kc_dtype_name(out));
        return 1;
    }
    if (m->terms_dim && m->terms) {
        snprintf(why, cap, "both terms_dim \"%s\" and a terms function: give one", m->terms_dim);
        return 1;
    }
    if (m->terms_dim && kc_dim_named(c, m->terms_dim) < 0) {
        char dims[400], near[200];
        snprintf(why, cap, "terms_dim \"%s\" is none of the contract's dims (its dims: %s)%s", m->terms_dim,
                 kc_dim_list(c, dims, sizeof dims), kc_dim_suggestion(c, m->terms_dim, near, sizeof near));
        return 1;
    }
    if (m->depth && !m->terms_dim && !m->terms) {
        snprintf(why, cap, "a depth function without terms (terms_dim or terms): a depth is a sum's");
        return 1;
    }
    if (m->depth && m->order != KC_SUM_ANY) {
        snprintf(why, cap, "both a depth function and order %d: give one", (int)m->order);
        return 1;
    }
    if (m->roundings < 0) {
        snprintf(why, cap, "roundings %d is negative (expected the count of further roundings, >= 0)", m->roundings);
        return 1;
    }
    if (m->order != KC_SUM_ANY && m->order != KC_SUM_PAIRWISE) {
        snprintf(why, cap, "order %d is unknown (expected KC_SUM_ANY or KC_SUM_PAIRWISE)", (int)m->order);
        return 1;
    }
    if (m->magnitude != KC_MAG_REF && m->magnitude != KC_MAG_REFERENCE) {
        snprintf(why, cap, "magnitude %d is unknown (expected KC_MAG_REF or KC_MAG_REFERENCE)", (int)m->magnitude);
        return 1;
    }
    if (!s) return 0;
    const int sum = m->terms_dim || m->terms;
    const int64_t k = terms_on(c, m, s);
    if (sum && k <= 0) {
        snprintf(why, cap, "terms K = %lld on shape %s: a sum has at least one term (K >= 1)", (long long)k, s->name);
        return 1;
    }
    const int64_t depth = sum && m->depth ? m->depth(s) : 0;
    if (sum && m->depth && (depth < 1 || depth > k + 63)) {
        snprintf(why, cap, "depth %lld on shape %s (K = %lld): expected 1 .. K + 63 (each term's roundings on its way into the sum)",
                 (long long)depth, s->name, (long long)k);
        return 1;
    }
    const int64_t n = kc_arith_ops(m, k, depth);
    if (n < 1) {
        snprintf(why, cap, "no operation counted on shape %s (no terms, roundings %d): expected a sum or roundings >= 1",
                 s->name, m->roundings);
        return 1;
    }
    const double u = kc_unit_roundoff(m->acc);
    if (!((double)n * u < 1.0)) {
        snprintf(why, cap, "n u = %lld x %g = %g >= 1 on shape %s (K = %lld): gamma_n is undefined, %s cannot bound %lld operations",
                 (long long)n, u, (double)n * u, s->name, (long long)k, kc_dtype_name(m->acc), (long long)n);
        return 1;
    }
    return 0;
}

/* Appends reason to buf, cut at about 100 bytes on a character boundary. */
static void put_reason(char *buf, size_t cap, const char *prefix, const char *reason)
{
    size_t len = strlen(reason), cut = len;
    if (cut > 100) {
        cut = 100;
        while (cut > 0 && ((unsigned char)reason[cut] & 0xC0) == 0x80) cut--;
    }
    snprintf(buf, cap, "%s%.*s%s", prefix, (int)cut, reason, cut < len ? "..." : "");
}

/* The bound derived from declaration m for output a on shape s; `whose`
 * names the declaration's place for the line. */
static kc_bound derive(const kc_contract *c, const kc_arith *m, int a, const kc_shape *s, const char *whose)
{
    kc_bound b = { .source = KC_BOUND_DERIVED };
    const kc_dtype out = c->args[a].dtype;
    char problem[200];
    if (kc_arith_check(c, m, out, s, problem, sizeof problem)) {
        b.tol = (kc_tol){ 0, 0, "refused" };
        snprintf(b.why, sizeof b.why, "%s, refused: %s", whose, problem);
        return b;
    }
    const double u = kc_unit_roundoff(m->acc), uo = kc_unit_roundoff(out);
    const int final = uo > u;                   /* the store rounds once more */
    b.terms = terms_on(c, m, s);
    b.depth = b.terms > 0 && m->depth ? m->depth(s) : 0;
    b.n = kc_arith_ops(m, b.terms, b.depth);
    b.gamma = kc_gamma(b.n, u);
    b.mag = m->magnitude == KC_MAG_REFERENCE;
    const double g = b.gamma, fin = final ? uo : 0.0;
    b.tol.atol = (final ? half_subnormal(out) : 0.0) + (double)b.n * half_subnormal(m->acc);
    if (b.mag) {
        b.tol.rtol = fin;
        b.mtol = g * (1 + fin);
    } else {
        b.tol.rtol = g + fin * (1 + g);
    }
    b.tol.reason = "derived from the declared arithmetic";
    char ops[96];
    if (b.terms > 0)
    {
        if (b.depth) snprintf(ops, sizeof ops, "%lld terms, depth %lld", (long long)b.terms, (long long)b.depth);
        else snprintf(ops, sizeof ops, "%lld terms, %s", (long long)b.terms, m->order == KC_SUM_PAIRWISE ? "pairwise" : "any order");
    }
    else
        ops[0] = 0;
    if (m->roundings)
        snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "%s%d rounding%s", b.terms > 0 ? ", + " : "", m->roundings,
                 m->roundings == 1 ? "" : "s");
    snprintf(b.why, sizeof b.why, "γ_%lld of %s (%s)%s%s, on %s: %s", (long long)b.n, kc_dtype_name(m->acc), ops,
             final ? " + ½ ulp of " : "", final ? kc_dtype_name(out) : "", b.mag ? "the reference's magnitude" : "|ref|",
             whose);
    return b;
}

kc_bound kc_bound_for(const kc_contract *c, int a, const kc_shape *s)
{
    kc_bound b = { .source = KC_BOUND_HAND };
    const int ok = a >= 0 && a < KC_MAX_ARGS;
    const kc_arg *ar = ok ? &c->args[a] : NULL;
    char whose[96];
    if (ar && ar->tol.reason) {
        b.tol = ar->tol;
        put_reason(b.why, sizeof b.why, "a hand-set tolerance: ", ar->tol.reason);
        return b;
    }
    if (ar && kc_arith_given(&ar->arith)) {
        snprintf(whose, sizeof whose, "the error model of %s", ar->name ? ar->name : "?");
        return derive(c, &ar->arith, a, s, whose);
    }
    if (c->tol.reason) {
        b.tol = c->tol;
        put_reason(b.why, sizeof b.why, "the contract's hand-set tolerance: ", c->tol.reason);
        return b;
    }
    if (ar && kc_arith_given(&c->arith)) return derive(c, &c->arith, a, s, "the contract's error model");
    b.source = KC_BOUND_DEFAULT;
    b.tol = kc_tol_default(ar ? ar->dtype : KC_DTYPE_NONE);
    if (ar && kc_dtype_is_float(ar->dtype)) snprintf(b.why, sizeof b.why, "the dtype %s", b.tol.reason);
    else snprintf(b.why, sizeof b.why, "the exact comparison of integers");
    return b;
}
