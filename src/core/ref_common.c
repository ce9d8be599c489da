/* ref_common.c — the common float64 references of kcontract.h: the
 * row-wise LayerNorm, RMSNorm, softmax and cross-entropy, and the
 * elementwise GELU (both forms), each over arguments named by the caller,
 * their rows on the harness's threads (kc_parallel_rows). The arithmetic of
 * the row-wise ones is written in the order of the bundled contracts' own
 * references (kernels/layernorm, kernels/rmsnorm, kernels/softmax), which
 * tests/test_ref_common.c checks bit for bit. A mistake in the call is the
 * contract's: reported on stderr with the values, then abort (kc_ref_arg's
 * convention). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kcontract.h"
#include "progname.h"

static const char *shape_of(const kc_ref *r) { return r->shape && r->shape->name ? r->shape->name : "?"; }

static void refuse(const char *fn, const kc_ref *r, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));
static void refuse(const char *fn, const kc_ref *r, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kc_say(stderr, "%s: %s (shape %s)\n", fn, msg, shape_of(r));
    abort();
}

/* The output called name, with its count checked against want. */
static double *output(const char *fn, const kc_ref *r, const char *name, size_t want)
{
    const int a = kc_ref_arg(r, name);
    if (!r->out[a]) refuse(fn, r, "argument %s is no output (only OUT and INOUT buffers have one)", name);
    if (r->count[a] != want)
        refuse(fn, r, "output %s has %zu elements, expected %zu", name, r->count[a], want);
    return r->out[a];
}

/* The input called name with at least `want` elements; name NULL: none. */
static kc_in input_of(const char *fn, const kc_ref *r, const char *name, size_t want)
{
    kc_in v = kc_ref_input(r, name);
    if (v.count < want) refuse(fn, r, "input %s has %zu elements, expected at least %zu", name, v.count, want);
    return v;
}

/* rows = count(x) / cols, refused where cols does not divide it. */
static size_t rows_of(const char *fn, const kc_ref *r, const kc_in *x, size_t cols)
{
    if (cols == 0) {
        if (x->count) refuse(fn, r, "cols = 0 for input %s of %zu elements", x->name, x->count);
        return 0;
    }
    if (x->count % cols)
        refuse(fn, r, "input %s has %zu elements, not a multiple of cols = %zu", x->name, x->count, cols);
    return x->count / cols;
}

/* ---- LayerNorm and RMSNorm ----------------------------------------------- */

typedef struct norm_job {
    kc_in x, w, b;
    int has_w, has_b;
    double *y;
    size_t cols;
    double eps;
} norm_job;

static void layernorm_row(void *p, size_t t)
{
    const norm_job *j = p;
    const size_t n = j->cols, base = t * n;
    double s = 0;
    for (size_t c = 0; c < n; c++) s += kc_in_at(&j->x, base + c);
    const double mean = s / (double)n;
    double ss = 0;
    for (size_t c = 0; c < n; c++) {
        const double d = kc_in_at(&j->x, base + c) - mean;
        ss += d * d;
    }
    const double rinv = 1.0 / sqrt(ss / (double)n + j->eps);
    for (size_t c = 0; c < n; c++) {
        double v = (kc_in_at(&j->x, base + c) - mean) * rinv;
        if (j->has_w) v = v * kc_in_at(&j->w, c);
        if (j->has_b) v = v + kc_in_at(&j->b, c);
        j->y[base + c] = v;
    }
}

static void rmsnorm_row(void *p, size_t t)
{
    const norm_job *j = p;
    const size_t n = j->cols, base = t * n;
    double ss = 0;
    for (size_t c = 0; c < n; c++) {
        const double v = kc_in_at(&j->x, base + c);
        ss += v * v;
    }
    const double rinv = 1.0 / sqrt(ss / (double)n + j->eps);
    for (size_t c = 0; c < n; c++) {
        double v = kc_in_at(&j->x, base + c) * rinv;
        if (j->has_w) v = v * kc_in_at(&j->w, c);
        j->y[base + c] = v;
    }
}

static void norm(const char *fn, const kc_ref *r, const char *y, const char *x, const char *w, const char *b,
                 size_t cols, double eps, void (*row)(void *, size_t))
{
    norm_job j = { .x = kc_ref_input(r, x), .has_w = w != NULL, .has_b = b != NULL, .cols = cols, .eps = eps };
    const size_t rows = rows_of(fn, r, &j.x, cols);
    if (w) j.w = input_of(fn, r, w, cols);
    if (b) j.b = input_of(fn, r, b, cols);
    j.y = output(fn, r, y, j.x.count);
    kc_parallel_rows(rows, cols, row, &j);
}

void kc_ref_layernorm(const kc_ref *r, const char *y, const char *x, const char *w, const char *b, size_t cols,
                      double eps)
{
    norm("kc_ref_layernorm", r, y, x, w, b, cols, eps, layernorm_row);
}

void kc_ref_rmsnorm(const kc_ref *r, const char *y, const char *x, const char *w, size_t cols, double eps)
{
    norm("kc_ref_rmsnorm", r, y, x, w, NULL, cols, eps, rmsnorm_row);
}

/* ---- softmax and cross-entropy ------------------------------------------- */

typedef struct softmax_job {
    kc_in x, target;
    double *y;
    size_t cols;
    int64_t ignore;
    const kc_ref *r;
} softmax_job;

/* The row's max; -inf when every entry is -inf (NaN entries are passed
 * over here and poison the sum after). */
static double row_max(const kc_in *x, size_t base, size_t n)
{
    double m = -INFINITY;
    for (size_t c = 0; c < n; c++) {
        const double v = kc_in_at(x, base + c);
        if (v > m) m = v;
    }
    return m;
}

static void softmax_row(void *p, size_t i)
{
    const softmax_job *j = p;
    const size_t n = j->cols, base = i * n;
    double *y = j->y;
    const double m = row_max(&j->x, base, n);
    if (m == -INFINITY) {          /* all -inf: NaN, as torch */
        for (size_t c = 0; c < n; c++) y[base + c] = NAN;
        return;
    }
    double sum = 0;
    for (size_t c = 0; c < n; c++) {
        const double e = exp(kc_in_at(&j->x, base + c) - m);
        y[base + c] = e;
        sum += e;
    }
    for (size_t c = 0; c < n; c++) y[base + c] /= sum;
}

void kc_ref_softmax(const kc_ref *r, const char *y, const char *x, size_t cols)
{
    softmax_job j = { .x = kc_ref_input(r, x), .cols = cols, .r = r };
    const size_t rows = rows_of("kc_ref_softmax", r, &j.x, cols);
    j.y = output("kc_ref_softmax", r, y, j.x.count);
    kc_parallel_rows(rows, cols, softmax_row, &j);
}

static void cross_entropy_row(void *p, size_t i)
{
    const softmax_job *j = p;
    const size_t n = j->cols, base = i * n;
    const double tv = kc_in_at(&j->target, i);
    const int64_t t = (int64_t)tv;
    if (t == j->ignore && tv == (double)t) {
        j->y[i] = 0;
        return;
    }
    if (!(tv >= 0 && tv < (double)n))
        refuse("kc_ref_cross_entropy", j->r, "target %s[%zu] = %.17g is outside [0, %zu) and is not ignore_index %" PRId64,
               j->target.name, i, tv, n, j->ignore);
    const double m = row_max(&j->x, base, n);
    if (m == -INFINITY) {
        j->y[i] = NAN;
        return;
    }
    double sum = 0;
    for (size_t c = 0; c < n; c++) sum += exp(kc_in_at(&j->x, base + c) - m);
    j->y[i] = log(sum) - (kc_in_at(&j->x, base + (size_t)t) - m);
}

void kc_ref_cross_entropy(const kc_ref *r, const char *loss, const char *x, const char *target, size_t cols,
                          int64_t ignore_index)
{
    const char *fn = "kc_ref_cross_entropy";
    softmax_job j = { .x = kc_ref_input(r, x), .cols = cols, .ignore = ignore_index, .r = r };
    const size_t rows = rows_of(fn, r, &j.x, cols);
    j.target = input_of(fn, r, target, rows);
    if (kc_dtype_is_float(j.target.dtype))
        refuse(fn, r, "target %s is %s, expected an integer dtype (class indices)", target, kc_dtype_name(j.target.dtype));
    j.y = output(fn, r, loss, rows);
    kc_parallel_rows(rows, cols, cross_entropy_row, &j);
}

/* ---- GELU ------------------------------------------------------------------ */

double kc_gelu(double x, kc_gelu_form form)
{
    if (isnan(x)) return x;
    if (isinf(x)) return x > 0 ? x : -0.0;
    if (form == KC_GELU_TANH) {
        /* 1 + tanh(u) without cancellation for u < 0: 2 e^{2u} / (1 + e^{2u}) */
        const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);   /* sqrt(2/pi) */
        double one_plus;
        if (u >= 0) one_plus = 1.0 + tanh(u);
        else {
            const double e = exp(2.0 * u);
            one_plus = 2.0 * e / (1.0 + e);
        }
        return 0.5 * x * one_plus;
    }
    /* 1 + erf(x / sqrt 2) = erfc(-x / sqrt 2): no cancellation for x < 0 */
    return 0.5 * x * erfc(-x * 0.70710678118654752440);
}

typedef struct gelu_job {
    kc_in x;
    double *y;
    kc_gelu_form form;
} gelu_job;

static void gelu_chunk(void *p, size_t begin, size_t end)
{
    const gelu_job *j = p;
    for (size_t i = begin; i < end; i++) j->y[i] = kc_gelu(kc_in_at(&j->x, i), j->form);
}

void kc_ref_gelu(const kc_ref *r, const char *y, const char *x, kc_gelu_form form)
{
    if (form != KC_GELU_ERF && form != KC_GELU_TANH)
        refuse("kc_ref_gelu", r, "form %d (expected KC_GELU_ERF or KC_GELU_TANH)", (int)form);
    gelu_job j = { .x = kc_ref_input(r, x), .form = form };
    j.y = output("kc_ref_gelu", r, y, j.x.count);
    kc_parallel_for(j.x.count, (size_t)1 << 16, gelu_chunk, &j);
}
