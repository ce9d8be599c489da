/* check_rules.h — the element rules of gates 2-4 and how partial results
 * fold, as inline functions that compile as host C and as CUDA: the device
 * check kernels (kernels/harness/harness.cu), the host scans of
 * tolerance.c and guard.c, and the fake driver all apply these same lines,
 * so a check gives the same count, worst element and values wherever it
 * runs.
 *
 * Gate 3's rule per element (torch.testing.assert_close with
 * equal_nan=True): a NaN reference accepts only NaN; an infinite reference
 * accepts only the same infinity; otherwise out must be finite with
 * |out - ref| <= atol + rtol*|ref|. -0 and +0 are equal; subnormals are
 * ordinary values. Integer dtypes compare exactly (the caller zeroes tol).
 *
 * The worst element: any NaN/inf mismatch (the first one) beats every
 * finite error; among the rest the largest ratio err/allowed wins, the first
 * on ties, where err > 0 against allowed == 0 is an infinite ratio and a
 * matching NaN or inf pair has ratio 0. Each element's ratio is computed
 * alone, so partial results fold in any order (kc_cmp_fold is commutative
 * and associative) to the answer of one sequential scan. */
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
} kc_cmp_part;

KC_HD double kc_rule_fabs(double x) { return kc_cvt_bitsd(kc_cvt_dbits(x) & 0x7fffffffffffffffULL); }
KC_HD int kc_rule_isinf(double x) { return (kc_cvt_dbits(x) & 0x7fffffffffffffffULL) == 0x7ff0000000000000ULL; }
KC_HD int kc_rule_isfinite(double x) { return (kc_cvt_dbits(x) & 0x7ff0000000000000ULL) != 0x7ff0000000000000ULL; }

/* 1 when out vs ref is a NaN/inf mismatch (NaN or inf on either side and not
 * the accepted pairing), 0 otherwise (both finite, or a matching pair). */
KC_HD int kc_rule_special_mismatch(double out, double ref) {
    if (kc_cvt_isnan(ref)) return !kc_cvt_isnan(out);
    if (kc_cvt_isnan(out)) return 1;
    if (kc_rule_isinf(ref) || kc_rule_isinf(out)) return out != ref;
    return 0;
}

KC_HD int kc_rule_both_special(double out, double ref) {
    return (kc_cvt_isnan(out) && kc_cvt_isnan(ref)) || (kc_rule_isinf(ref) && out == ref);
}

KC_HD kc_cmp_part kc_cmp_empty(void) {
    kc_cmp_part p;
    p.count = 0; p.bad = 0; p.worst = KC_NO_INDEX; p.special = 0;
    p.ratio = 0; p.out = 0; p.ref = 0; p.err = 0; p.allowed = 0;
    return p;
}

/* Nonzero when element (special b, ratio rb, index ib) is worse than a's worst. */
KC_HD int kc_cmp_worse(const kc_cmp_part *a, int sb, double rb, uint64_t ib) {
    if (a->worst == KC_NO_INDEX) return 1;
    if (sb != a->special) return sb;
    if (sb) return ib < a->worst;                      /* the first mismatch */
    if (rb != a->ratio) return rb > a->ratio;
    return ib < a->worst;                              /* the first on ties */
}

/* Adds element i (out against ref, under rtol/atol) to p. */
KC_HD void kc_cmp_element(kc_cmp_part *p, uint64_t i, double out, double ref, double rtol, double atol) {
    double allowed = atol + rtol * kc_rule_fabs(ref);
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
        ratio = allowed > 0 ? err / allowed : (err > 0 ? kc_cvt_bitsd(0x7ff0000000000000ULL) : 0.0);
    }
    if (kc_cmp_worse(p, special, ratio, i)) {
        p->worst = i; p->special = special; p->ratio = ratio;
        p->out = out; p->ref = ref; p->err = err; p->allowed = allowed;
    }
}

/* Folds partial result b into a. */
KC_HD void kc_cmp_fold(kc_cmp_part *a, const kc_cmp_part *b) {
    uint64_t count = a->count + b->count, bad = a->bad + b->bad;
    if (b->worst != KC_NO_INDEX && kc_cmp_worse(a, b->special, b->ratio, b->worst)) *a = *b;
    a->count = count;
    a->bad = bad;
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
