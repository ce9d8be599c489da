/* tolerance.h — gate 3's comparison of a kernel's output with the float64
 * reference: |out - ref| <= atol + rtol*|ref| (torch.testing.assert_close),
 * NaN only where the reference is NaN, +-inf only where it has the same inf.
 * Integers compare exactly. */
#ifndef KC_TOLERANCE_H
#define KC_TOLERANCE_H
#include <stddef.h>
#include "kcontract.h"

/* The torch.testing.assert_close default for an output dtype (see kcontract.h;
 * f64 rtol 1e-7 atol 1e-7; e4m3, which torch lacks, rtol 2^-3 atol 2^-9;
 * integers 0/0). Its reason is a non-NULL description of the default. */
kc_tol kc_tol_default(kc_dtype t);
/* The hand-set tolerance of output argument `a` of contract c: the
 * argument's override, else the contract's, else the dtype default. It
 * ignores declared arithmetic (kc_arith): the bound gate 3 uses, derived
 * ones included, is arith_bound.h's kc_bound_for. */
kc_tol kc_tol_for(const kc_contract *c, int a);

/* Error statistics of an output in ulps of its dtype at the reference value
 * (check_rules.h; judged by error_model.h): over the n elements where output
 * and reference are both finite, the sums of e, e^2 and e * sign(ref), the
 * largest |e| and the count of |e| > 1/2. */
typedef struct kc_err_stats {
    size_t n, over_half;
    double sum_e, sum_e2, sum_tz, max_abs;
} kc_err_stats;

typedef struct kc_compare {
    size_t count;        /* elements compared */
    size_t bad;          /* elements outside tolerance (NaN/inf mismatches included) */
    size_t worst;        /* index of the worst element (largest err/allowed; a NaN or inf mismatch beats any finite one) */
    double out, ref;     /* the worst element's values */
    double err;          /* |out - ref| (inf for NaN/inf mismatches) */
    double allowed;      /* atol + rtol*|ref| at the worst element */
    kc_err_stats stats;  /* floating outputs; zero for integers */
} kc_compare;

/* Compares n elements of `out` (dtype t) with `ref`. Integer dtypes compare
 * exactly whatever tol says. Returns the number of bad elements (also in
 * res->bad; res may be NULL). */
size_t kc_compare_output(kc_dtype t, const void *out, const double *ref, size_t n,
                         kc_tol tol, kc_compare *res);
struct kc_cmp_part;
/* The kc_compare of a folded partial result (check_rules.h) over n elements. */
void kc_compare_from_part(const struct kc_cmp_part *p, size_t n, kc_tol tol, kc_compare *res);
/* One element: nonzero when out is acceptable for ref. */
int kc_close(double out, double ref, kc_tol tol);
#endif
