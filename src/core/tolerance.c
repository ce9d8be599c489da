/* tolerance.c — owns gate 3's tolerances: the dtype defaults of
 * torch.testing.assert_close, the choice between override and default, and
 * the host scan of an output against its float64 reference (tests and
 * machines without the device checks). The rule per element and the choice
 * of the worst element are check_rules.h's, shared with the device scan of
 * kernels/harness/harness.cu. Integer dtypes compare exactly whatever the
 * tolerance says. */
#include <math.h>
#include <stdlib.h>
#include "check_rules.h"
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

int kc_close(double out, double ref, kc_tol tol) {
    kc_cmp_part p = kc_cmp_empty();
    kc_cmp_element(&p, 0, out, ref, tol.rtol, tol.atol, 0, 0);
    return p.bad == 0;
}

/* Scans out[begin, end) against ref. */
static kc_cmp_part scan_range(kc_dtype t, const void *out, const double *ref, size_t begin, size_t end, kc_tol tol) {
    kc_cmp_part p = kc_cmp_empty();
    int mb, em;
    kc_rule_ulp_params(t, &mb, &em);
    switch (t) {   /* one loop per dtype: no per-element dispatch on t */
#define CASE(T) case T: for (size_t i = begin; i < end; i++) kc_cmp_element(&p, i, kc_load(T, out, i), ref[i], tol.rtol, tol.atol, mb, em); break
    CASE(KC_F64); CASE(KC_F32); CASE(KC_F16); CASE(KC_BF16); CASE(KC_E4M3);
    CASE(KC_I64); CASE(KC_I32); CASE(KC_U32); CASE(KC_I8); CASE(KC_U8); CASE(KC_I16); CASE(KC_U16); CASE(KC_U64);
#undef CASE
    default: break;
    }
    return p;
}

#define COMPARE_GRAIN ((size_t)1 << 20)   /* elements per chunk of a parallel comparison */

typedef struct compare_job {
    kc_dtype t;
    const void *out;
    const double *ref;
    kc_tol tol;
    kc_cmp_part *parts;
} compare_job;

static void compare_chunk(void *ctx, size_t chunk, size_t begin, size_t end) {
    compare_job *j = ctx;
    j->parts[chunk] = scan_range(j->t, j->out, j->ref, begin, end, j->tol);
}

void kc_compare_from_part(const kc_cmp_part *p, size_t n, kc_tol tol, kc_compare *res) {
    if (p->worst == KC_NO_INDEX) *res = (kc_compare){ n, 0, 0, 0, 0, 0, tol.atol, { 0 } };
    else *res = (kc_compare){ n, p->bad, p->worst, p->out, p->ref, p->err, p->allowed, { 0 } };
    kc_err_stats *st = &res->stats;
    st->n = (size_t)p->nstat;
    st->over_half = (size_t)p->over_half;
    st->sum_e = p->sum_e;
    st->sum_e2 = p->sum_e2;
    st->sum_tz = p->sum_tz;
    st->max_abs = p->max_abs;
}

size_t kc_compare_output(kc_dtype t, const void *out, const double *ref, size_t n,
                         kc_tol tol, kc_compare *res) {
    if (!kc_dtype_is_float(t)) tol.atol = tol.rtol = 0.0;
    size_t chunks = n ? (n - 1) / COMPARE_GRAIN + 1 : 0;
    compare_job j = { t, out, ref, tol, NULL };
    kc_cmp_part s;
    if (chunks > 1 && (j.parts = malloc(chunks * sizeof *j.parts)) != NULL) {
        /* Chunks on the harness's threads, folded: the same worst element
         * and count as the sequential scan (check_rules.h). */
        kc_parallel_chunks(n, COMPARE_GRAIN, compare_chunk, &j);
        s = j.parts[0];
        for (size_t c = 1; c < chunks; c++) kc_cmp_fold(&s, &j.parts[c]);
        free(j.parts);
    } else {
        s = scan_range(t, out, ref, 0, n, tol);
    }
    if (res) kc_compare_from_part(&s, n, tol, res);
    return s.bad;
}
