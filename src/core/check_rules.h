/* check_rules.h — the element rules of gates 2-4 and how partial results
 * fold, as inline functions that compile as host C and as CUDA: the device
 * check kernels (kernels/harness/harness.cu), the host scans of
 * tolerance.c and guard.c, and the fake driver all apply these same lines,
 * so a check gives the same count, worst element and values wherever it
 * runs.
 *
 * Gate 3's rule per element (torch.testing.assert_close with
 * equal_nan=True): a NaN reference accepts only NaN, and an element the
 * reference never wrote (KC_REF_UNWRITTEN_BITS) nothing; an infinite reference
 * accepts only the same infinity; otherwise out must be finite with
 * |out - ref| <= atol + rtol*|ref| (+ mtol*M, where an error model scales
 * with a magnitude M the reference wrote: kc_rule_allowed_mag). -0 and +0
 * are equal; subnormals are ordinary values. Integer dtypes compare exactly (the caller zeroes tol).
 *
 * The worst element: any NaN/inf mismatch (the first one) beats every
 * finite error; among the rest the largest ratio err/allowed wins, the first
 * on ties, where err > 0 against allowed == 0 is an infinite ratio and a
 * matching NaN or inf pair has ratio 0. Each element's ratio is computed
 * alone, so partial results fold in any order (kc_cmp_fold is commutative
 * and associative) to the answer of one sequential scan.
 *
 * Error statistics (error_model.h judges them): over the elements where out
 * and ref are both finite and the tolerance is relative there (rtol |ref| >=
 * atol: near zero the absolute tolerance governs, and ulps of subnormals or
 * of cancellations' tiny results say nothing about rounding), e = (out -
 * ref) / ulp, the ulp of the output's dtype at the reference value (kc_rule_ulp); sums of e, e^2, e * sign(ref)
 * (negative when errors lean toward zero), the largest |e| and how many |e|
 * exceed half an ulp. Their sums fold in the order partials meet, so host
 * and device agree on them to rounding, not bitwise. */
#ifndef KC_CHECK_RULES_H
#define KC_CHECK_RULES_H
#include <stdint.h>
#include "kcontract_dtype.h"

#define KC_NO_INDEX UINT64_MAX

/* A count of elements and the first of them (KC_NO_INDEX: none). */
typedef struct kc_count_part {
    uint64_t n, first;
} kc_count_part;

/* Gate 3's partial result over some elements. */
typedef struct kc_cmp_part {
    uint64_t count;          /* elements compared */
    uint64_t bad;            /* outside tolerance (NaN/inf mismatches included) */
    uint64_t worst;          /* index of the worst element; KC_NO_INDEX: none yet */
    int special;             /* the worst is a NaN/inf mismatch */
    double ratio;            /* its err/allowed (infinite for a mismatch) */
    double out, ref;         /* its values */
    double err;              /* |out - ref| (inf for NaN/inf mismatches) */
    double allowed;          /* atol + rtol*|ref| */
    /* error statistics, in ulps of the output dtype (floating outputs only) */
    uint64_t nstat;          /* elements with out and ref finite */
    uint64_t over_half;      /* of them, |e| > 1/2 */
    double sum_e, sum_e2, sum_tz, max_abs;
} kc_cmp_part;

/* The significand bits and smallest normal exponent of a floating dtype (the
 * ulp at x is 2^(max(floor(log2 |x|), emin) - mbits)); 0 for integers. */
KC_HD int kc_rule_ulp_params(kc_dtype t, int *mbits, int *emin) { return kc_cvt_float_params(t, mbits, emin); }

/* 2^k as a double, for k in [-1074, 1023]. */
KC_HD double kc_rule_pow2(int k) {
    if (k >= -1022) return kc_cvt_bitsd((uint64_t)(k + 1023) << 52);
    return kc_cvt_bitsd(1ULL << (k + 1074));
}

/* The ulp of a dtype (mbits, emin) at the finite value x. */
KC_HD double kc_rule_ulp(double x, int mbits, int emin) {
    int e = (int)((kc_cvt_dbits(x) >> 52) & 0x7ff) - 1023;   /* a double subnormal or 0 gives -1023 */
    if (e < emin) e = emin;
    return kc_rule_pow2(e - mbits);
}

KC_HD double kc_rule_fabs(double x) { return kc_cvt_bitsd(kc_cvt_dbits(x) & 0x7fffffffffffffffULL); }
KC_HD int kc_rule_isinf(double x) { return (kc_cvt_dbits(x) & 0x7fffffffffffffffULL) == 0x7ff0000000000000ULL; }
KC_HD int kc_rule_isfinite(double x) { return (kc_cvt_dbits(x) & 0x7ff0000000000000ULL) != 0x7ff0000000000000ULL; }

/* The bits of a reference element not yet written: gate 3 fills every
 * reference output with them before the reference runs (on the host and,
 * as 32-bit words 0x7FF47FF4, on the device). A signaling NaN with a payload
 * no arithmetic makes (operations on NaN give quiet ones; negation keeps the
 * payload and flips the sign, 0xFFF4...), so that an element the reference
 * left is told from a NaN it computed: a NaN output used to match it, and
 * a reference that forgot elements passed wherever the kernel wrote NaN
 * (a too-small input read into its NaN guard band, say). */
#define KC_REF_UNWRITTEN_BITS 0x7FF47FF47FF47FF4ULL
#define KC_REF_UNWRITTEN_WORD 0x7FF47FF4u
KC_HD int kc_rule_ref_unwritten(double ref) { return kc_cvt_dbits(ref) == KC_REF_UNWRITTEN_BITS; }

/* 1 when out vs ref is a NaN/inf mismatch (NaN or inf on either side and not
 * the accepted pairing, or a reference element never written), 0 otherwise
 * (both finite, or a matching pair). */
KC_HD int kc_rule_special_mismatch(double out, double ref) {
    if (kc_rule_ref_unwritten(ref)) return 1;
    if (kc_cvt_isnan(ref)) return !kc_cvt_isnan(out);
    if (kc_cvt_isnan(out)) return 1;
    if (kc_rule_isinf(ref) || kc_rule_isinf(out)) return out != ref;
    return 0;
}

KC_HD int kc_rule_both_special(double out, double ref) {
    return (kc_cvt_isnan(out) && kc_cvt_isnan(ref) && !kc_rule_ref_unwritten(ref)) || (kc_rule_isinf(ref) && out == ref);
}

KC_HD kc_cmp_part kc_cmp_empty(void) {
    kc_cmp_part p;
    p.count = 0; p.bad = 0; p.worst = KC_NO_INDEX; p.special = 0;
    p.ratio = 0; p.out = 0; p.ref = 0; p.err = 0; p.allowed = 0;
    p.nstat = 0; p.over_half = 0; p.sum_e = 0; p.sum_e2 = 0; p.sum_tz = 0; p.max_abs = 0;
    return p;
}

/* Adds element (out, ref), both finite, to p's error statistics for a dtype
 * of (mbits, emin); mbits 0 (integers) adds nothing. */
KC_HD void kc_cmp_stat(kc_cmp_part *p, double out, double ref, int mbits, int emin) {
    if (!mbits) return;
    double e = (out - ref) / kc_rule_ulp(ref, mbits, emin), a = kc_rule_fabs(e);
    p->nstat++;
    p->sum_e += e;
    p->sum_e2 += e * e;
    p->sum_tz += ref > 0 ? e : ref < 0 ? -e : 0.0;
    if (a > 0.5) p->over_half++;
    if (a > p->max_abs) p->max_abs = a;
}

/* Nonzero when element (special b, ratio rb, index ib) is worse than a's worst. */
KC_HD int kc_cmp_worse(const kc_cmp_part *a, int sb, double rb, uint64_t ib) {
    if (a->worst == KC_NO_INDEX) return 1;
    if (sb != a->special) return sb;
    if (sb) return ib < a->worst;                      /* the first mismatch */
    if (rb != a->ratio) return rb > a->ratio;
    return ib < a->worst;                              /* the first on ties */
}

/* Adds element i (out against ref, allowed `allowed`, the tolerance's
 * atol and rtol for the statistics' regime) to p; mbits and emin
 * (kc_rule_ulp_params of the output's dtype) for its error statistics. A NaN
 * allowed fails the element (a magnitude never written). */
KC_HD void kc_cmp_element_allowed(kc_cmp_part *p, uint64_t i, double out, double ref, double allowed, double rtol,
                                  double atol, int mbits, int emin) {
    double err, ratio;
    int special = 0;
    p->count++;
    if (kc_rule_special_mismatch(out, ref)) {
        special = 1;
        err = kc_cvt_bitsd(0x7ff0000000000000ULL);
        ratio = err;
        p->bad++;
    } else if (kc_rule_both_special(out, ref)) {
        err = 0.0;                                     /* a matching NaN or inf is an exact match */
        ratio = 0.0;
    } else {
        err = kc_rule_fabs(out - ref);
        if (!(err <= allowed)) p->bad++;
        ratio = allowed > 0 ? err / allowed : (err > 0 || allowed != allowed ? kc_cvt_bitsd(0x7ff0000000000000ULL) : 0.0);
        if (rtol * kc_rule_fabs(ref) >= atol) kc_cmp_stat(p, out, ref, mbits, emin);   /* the relative regime only */
    }
    if (kc_cmp_worse(p, special, ratio, i)) {
        p->worst = i; p->special = special; p->ratio = ratio;
        p->out = out; p->ref = ref; p->err = err; p->allowed = allowed;
    }
}

/* Adds element i (out against ref, under rtol/atol) to p; mbits and emin
 * (kc_rule_ulp_params of the output's dtype) for its error statistics. */
KC_HD void kc_cmp_element(kc_cmp_part *p, uint64_t i, double out, double ref, double rtol, double atol, int mbits,
                          int emin) {
    kc_cmp_element_allowed(p, i, out, ref, atol + rtol * kc_rule_fabs(ref), rtol, atol, mbits, emin);
}

/* The bound of an error model that scales with a magnitude M the reference
 * wrote (kcontract.h, kc_arith, KC_MAG_REFERENCE): allowed = atol +
 * rtol*|ref| + mtol*M. M NaN (never written) or negative makes allowed NaN:
 * the element fails. */
KC_HD double kc_rule_allowed_mag(double ref, double mag, double rtol, double atol, double mtol) {
    if (!(mag >= 0)) return kc_cvt_bitsd(0x7ff8000000000000ULL);
    return atol + rtol * kc_rule_fabs(ref) + mtol * mag;
}

/* Folds partial result b into a. */
KC_HD void kc_cmp_fold(kc_cmp_part *a, const kc_cmp_part *b) {
    uint64_t count = a->count + b->count, bad = a->bad + b->bad, nstat = a->nstat + b->nstat;
    uint64_t over = a->over_half + b->over_half;
    double se = a->sum_e + b->sum_e, se2 = a->sum_e2 + b->sum_e2, stz = a->sum_tz + b->sum_tz;
    double mx = a->max_abs > b->max_abs ? a->max_abs : b->max_abs;
    if (b->worst != KC_NO_INDEX && kc_cmp_worse(a, b->special, b->ratio, b->worst)) *a = *b;
    a->count = count;
    a->bad = bad;
    a->nstat = nstat;
    a->over_half = over;
    a->sum_e = se;
    a->sum_e2 = se2;
    a->sum_tz = stz;
    a->max_abs = mx;
}

/* Folds count b into a. */
KC_HD void kc_count_fold(kc_count_part *a, const kc_count_part *b) {
    a->n += b->n;
    if (b->first < a->first) a->first = b->first;
}

/* Nonzero when all esize bytes at p equal v. */
KC_HD int kc_rule_all_bytes(const uint8_t *p, uint32_t esize, uint8_t v) {
    for (uint32_t j = 0; j < esize; j++)
        if (p[j] != v) return 0;
    return 1;
}

/* Element i of a (esize bytes each) still holds poison pa and, when b is not
 * NULL, element i of b holds pb: never written in either launch. */
KC_HD int kc_rule_unwritten(const uint8_t *a, const uint8_t *b, uint64_t i, uint32_t esize, uint8_t pa, uint8_t pb) {
    return kc_rule_all_bytes(a + i * esize, esize, pa) && (!b || kc_rule_all_bytes(b + i * esize, esize, pb));
}

/* Element i of a and of b differ in some byte. */
KC_HD int kc_rule_differs(const uint8_t *a, const uint8_t *b, uint64_t i, uint32_t esize) {
    for (uint32_t j = 0; j < esize; j++)
        if (a[i * esize + j] != b[i * esize + j]) return 1;
    return 0;
}
#endif /* KC_CHECK_RULES_H */
