/* tolerance.c — owns gate 3's element comparison: the dtype defaults of
 * torch.testing.assert_close, the choice between override and default, and
 * the scan of an output against its float64 reference.
 *
 * Rule per element (assert_close with equal_nan=True): a NaN reference
 * accepts only NaN; an infinite reference accepts only the same infinity;
 * otherwise out must be finite with |out - ref| <= atol + rtol*|ref|. -0 and
 * +0 are equal; subnormals are ordinary values. Integer dtypes compare
 * exactly whatever the tolerance says.
 *
 * The worst element: any NaN/inf mismatch (the first one) beats every finite
 * error; among finite errors the largest err/allowed wins (first on ties),
 * where err > 0 against allowed == 0 counts as an infinite ratio. */
#include <math.h>
#include <stdlib.h>
#include "dtype.h"
#include "parallel.h"
#include "tolerance.h"

kc_tol kc_tol_default(kc_dtype t) {
    switch (t) {
    case KC_F64: return (kc_tol){ 1e-7, 1e-7, "default for f64 (torch.testing)" };
    case KC_F32: return (kc_tol){ 1.3e-6, 1e-5, "default for f32 (torch.testing)" };
    case KC_F16: return (kc_tol){ 1e-3, 1e-5, "default for f16 (torch.testing)" };
    case KC_BF16: return (kc_tol){ 1.6e-2, 1e-5, "default for bf16 (torch.testing)" };
    /* torch has none for float8: one ulp relative (2^-3) and the smallest
     * subnormal (2^-9) absolute, the spacing of E4M3 itself. */
    case KC_E4M3: return (kc_tol){ 0.125, 0x1p-9, "default for e4m3 (one ulp)" };
    default: return (kc_tol){ 0.0, 0.0, "integers compare exactly" };
    }
}

kc_tol kc_tol_for(const kc_contract *c, int a) {
    if (a >= 0 && a < KC_MAX_ARGS && c->args[a].tol.reason != NULL) return c->args[a].tol;
    if (c->tol.reason != NULL) return c->tol;
    kc_dtype t = (a >= 0 && a < KC_MAX_ARGS) ? c->args[a].dtype : KC_DTYPE_NONE;
    return kc_tol_default(t);
}

/* 1 when out vs ref is a NaN/inf mismatch (NaN or inf on either side and
 * not the accepted pairing), 0 otherwise (both finite, or a matching pair). */
static int special_mismatch(double out, double ref) {
    if (isnan(ref)) return !isnan(out);
    if (isnan(out)) return 1;
    if (isinf(ref) || isinf(out)) return out != ref;
    return 0;
}

static int both_special(double out, double ref) {
    return (isnan(out) && isnan(ref)) || (isinf(ref) && out == ref);
}

int kc_close(double out, double ref, kc_tol tol) {
    if (special_mismatch(out, ref)) return 0;
    if (both_special(out, ref)) return 1;
    return fabs(out - ref) <= tol.atol + tol.rtol * fabs(ref);
}

/* The running result of a scan. */
typedef struct scan {
    size_t bad, worst;
    int worst_special;     /* the worst is a NaN/inf mismatch */
    double ratio;          /* its err/allowed (finite worst only) */
    double out, ref, err, allowed;
} scan;

static inline void scan_one(scan *s, size_t i, double out, double ref, kc_tol tol) {
    double allowed = tol.atol + tol.rtol * fabs(ref);
    if (isfinite(out) && isfinite(ref)) {    /* the common case: no division unless it may win */
        double err = fabs(out - ref);
        if (!(err <= allowed)) s->bad++;
        if (s->worst_special || (s->ratio >= 0 && !(err > s->ratio * allowed))) return;
        double ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0.0);
        if (ratio > s->ratio) *s = (scan){ s->bad, i, 0, ratio, out, ref, err, allowed };
        return;
    }
    if (special_mismatch(out, ref)) {
        s->bad++;
        if (!s->worst_special) {
            s->worst_special = 1;
            *s = (scan){ s->bad, i, 1, INFINITY, out, ref, INFINITY, allowed };
        }
        return;
    }
    double err = 0.0, ratio = 0.0;
    if (!both_special(out, ref)) {           /* a matching NaN or inf is an exact match */
        err = fabs(out - ref);
        if (!(err <= allowed)) s->bad++;
        ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0.0);
    }
    if (s->worst_special) return;
    if (ratio > s->ratio)
        *s = (scan){ s->bad, i, 0, ratio, out, ref, err, allowed };
}

/* Scans out[begin, end) against ref. */
static scan scan_range(kc_dtype t, const void *out, const double *ref, size_t begin, size_t end, kc_tol tol) {
    scan s = { 0, 0, 0, -1.0, 0, 0, 0, 0 };
    switch (t) {   /* one loop per dtype: no per-element dispatch on t */
#define CASE(T) case T: for (size_t i = begin; i < end; i++) scan_one(&s, i, kc_load(T, out, i), ref[i], tol); break
    CASE(KC_F64); CASE(KC_F32); CASE(KC_F16); CASE(KC_BF16); CASE(KC_E4M3);
    CASE(KC_I64); CASE(KC_I32); CASE(KC_U32); CASE(KC_I8); CASE(KC_U8);
#undef CASE
    default: break;
    }
    return s;
}

/* Folds the scan of a later range r into s, as if one scan had gone on:
 * counts add; the first NaN/inf mismatch stays the worst; otherwise a later
 * range wins only with a strictly larger ratio (first on ties). */
static void scan_merge(scan *s, const scan *r) {
    size_t bad = s->bad + r->bad;
    if (!s->worst_special && r->ratio >= 0 && (r->worst_special || r->ratio > s->ratio)) *s = *r;
    s->bad = bad;
}

#define COMPARE_GRAIN ((size_t)1 << 20)   /* elements per chunk of a parallel comparison */

typedef struct compare_job {
    kc_dtype t;
    const void *out;
    const double *ref;
    kc_tol tol;
    scan *parts;
} compare_job;

static void compare_chunk(void *ctx, size_t chunk, size_t begin, size_t end) {
    compare_job *j = ctx;
    j->parts[chunk] = scan_range(j->t, j->out, j->ref, begin, end, j->tol);
}

size_t kc_compare_output(kc_dtype t, const void *out, const double *ref, size_t n,
                         kc_tol tol, kc_compare *res) {
    if (!kc_dtype_is_float(t)) tol.atol = tol.rtol = 0.0;
    size_t chunks = n ? (n - 1) / COMPARE_GRAIN + 1 : 0;
    compare_job j = { t, out, ref, tol, NULL };
    scan s;
    if (chunks > 1 && (j.parts = malloc(chunks * sizeof *j.parts)) != NULL) {
        /* Chunks on the harness's threads, folded in order: the same worst
         * element and count as the sequential scan. */
        kc_parallel_chunks(n, COMPARE_GRAIN, compare_chunk, &j);
        s = j.parts[0];
        for (size_t c = 1; c < chunks; c++) scan_merge(&s, &j.parts[c]);
        free(j.parts);
    } else {
        s = scan_range(t, out, ref, 0, n, tol);
    }
    if (n == 0) s.allowed = tol.atol;
    if (res) *res = (kc_compare){ n, s.bad, s.worst, s.out, s.ref, s.err, s.allowed };
    return s.bad;
}
