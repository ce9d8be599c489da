/* arith_bound.h — gate 3's bound for one output on one shape, and where it
 * came from: a hand-set tolerance (kc_tol with a reason), the dtype's
 * default, or a bound derived from the arithmetic the contract declares
 * (kcontract.h, kc_arith: Higham's gamma_n, the output's final rounding).
 * The registry checks declarations here (kc_arith_check) so that a bound a
 * gate derives is always defined. */
#ifndef KC_ARITH_BOUND_H
#define KC_ARITH_BOUND_H
#include <stddef.h>
#include <stdint.h>
#include "kcontract.h"

typedef enum kc_bound_source {
    KC_BOUND_DEFAULT = 0,   /* the output dtype's default (tolerance.h, kc_tol_default) */
    KC_BOUND_HAND,          /* a kc_tol with a reason, the output's or the contract's */
    KC_BOUND_DERIVED        /* from a kc_arith, the output's or the contract's */
} kc_bound_source;

/* An output's bound on one shape: |out - ref| <= tol.atol + tol.rtol |ref|
 * (+ mtol M, M the reference's magnitude of the element, where mag). */
typedef struct kc_bound {
    kc_tol tol;
    double mtol;                /* times M; 0 without mag */
    int mag;                    /* 1: the reference writes M (kc_ref.mag, KC_MAG_REFERENCE) */
    kc_bound_source source;
    int64_t terms;              /* DERIVED: K (0: no sum) */
    int64_t n;                  /* DERIVED: the operations counted, gamma_n */
    int64_t depth;              /* DERIVED: the declared depth of the sum (0: from the order) */
    double gamma;               /* DERIVED: gamma_n */
    /* For failure lines: "the f32 default (torch.testing)", "hand-set:
     * <reason>", "γ_770 of f32 (768 terms, any order, + 2 roundings) + ½ ulp
     * of bf16, on |ref|: the error model of out". */
    char why[256];
} kc_bound;

/* The unit roundoff u of a floating dtype, 2^-(significand bits + 1) (Higham
 * §2.1: half an ulp at 1): f64 2^-53, f32 2^-24, f16 2^-11, bf16 2^-8, e4m3
 * 2^-4; 0 for anything else. */
double kc_unit_roundoff(kc_dtype t);

/* Higham's gamma_n = n u / (1 - n u) (§3.1, Lemma 3.1); NAN when n < 0 or
 * n u >= 1, where it is not defined. */
double kc_gamma(int64_t n, double u);

/* The operations n a declaration counts for K terms: K (any order),
 * ceil(log2 K) + 1 (pairwise) or `depth` (m->depth(s), given), 0 for K = 0
 * (no sum); plus m->roundings. */
int64_t kc_arith_ops(const kc_arith *m, int64_t terms, int64_t depth);

/* Nonzero when m declares anything (any field set). */
int kc_arith_given(const kc_arith *m);

/* Checks declaration m of contract c for an output of dtype out on shape s
 * (NULL: only what does not depend on the shape). Returns 0, or 1 with the
 * problem in why, naming the value and what was expected: an arithmetic
 * dtype that is no float, terms_dim not among c->dims (listing them, and
 * any near the name), both terms_dim and terms, negative roundings, an
 * unknown order or magnitude, an integer output, K <= 0 on s, a depth
 * below 1 or above K + 63 (no order of K terms is deeper than K), n < 1,
 * n u >= 1 (gamma undefined). */
int kc_arith_check(const kc_contract *c, const kc_arith *m, kc_dtype out, const kc_shape *s, char *why, size_t cap);

/* The bound of output argument a of c on shape s: the argument's hand-set
 * tolerance, else its arithmetic, else the contract's tolerance, else the
 * contract's arithmetic, else the dtype default. A declaration the registry
 * would refuse gives rtol = atol = 0 with the problem in why. */
kc_bound kc_bound_for(const kc_contract *c, int a, const kc_shape *s);
#endif
