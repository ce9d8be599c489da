/* error_model.c — owns gate 3's error model (error_model.h): which model an
 * output is under, and the verdict of its error statistics with the figures
 * that explain it. */
#include "error_model.h"

#include <math.h>
#include <stdio.h>

#include "dtype.h"

int kc_errors_given(const kc_errors *m)
{
    return m->kind != KC_ERRORS_DEFAULT || m->unjudged[0] != KC_DIST_END;
}

int kc_errors_judged_on(const kc_errors *m, kc_dist d)
{
    if (d < KC_UNIFORM || d >= KC_ZEROS) return 0;
    for (int i = 0; i < KC_MAX_UNJUDGED && m->unjudged[i] != KC_DIST_END; i++)
        if (m->unjudged[i] == d) return 0;
    return 1;
}

kc_errors kc_errors_for(const kc_contract *c, int a)
{
    kc_errors m = { KC_ERRORS_DEFAULT, 0, NULL, { KC_DIST_END } };
    if (a >= 0 && a < KC_MAX_ARGS && kc_errors_given(&c->args[a].errors)) m = c->args[a].errors;
    else if (kc_errors_given(&c->errors)) m = c->errors;
    if (m.kind == KC_ERRORS_DEFAULT) {
        kc_dtype t = a >= 0 && a < KC_MAX_ARGS ? c->args[a].dtype : KC_DTYPE_NONE;
        int narrow = t == KC_F16 || t == KC_BF16 || t == KC_E4M3;
        m.kind = narrow ? KC_ERRORS_ROUNDED : KC_ERRORS_REPORTED;
        if (!m.reason) m.reason = narrow ? "the default for a narrow output: rounded once" : "the default for a wide output: reported";
    }
    if (m.kind == KC_ERRORS_ROUNDED && !(m.slack > 0)) m.slack = KC_ERRORS_SLACK;
    return m;
}

void kc_errors_describe(kc_dtype t, const kc_err_stats *st, char *buf, size_t cap)
{
    double n = (double)st->n;
    if (!st->n) {
        snprintf(buf, cap, "no finite elements of %s", kc_dtype_name(t));
        return;
    }
    snprintf(buf, cap, "mean %.4f, mean e*sign(ref) %.4f, rms %.3f, max %.3g, %.2f%% above half an ulp of %s over %zu elements",
             st->sum_e / n, st->sum_tz / n, sqrt(st->sum_e2 / n), st->max_abs, 100.0 * (double)st->over_half / n,
             kc_dtype_name(t), st->n);
}

int kc_errors_judge(const kc_errors *m, kc_dtype t, const kc_err_stats *st, char *why, size_t cap)
{
    if (m->kind != KC_ERRORS_ROUNDED || st->n == 0) return 0;
    const double n = (double)st->n, sigma = sqrt(1.0 / 12.0), s = m->slack;
    const double lean_max = s + KC_ERRORS_Z * sigma / sqrt(n);
    const double mean = st->sum_e / n, tz = st->sum_tz / n, frac = (double)st->over_half / n;
    const double frac_max = 2 * s + KC_ERRORS_Z * sqrt(2 * s / n);
    char all[256];
    kc_errors_describe(t, st, all, sizeof all);
    if (fabs(tz) > lean_max) {
        snprintf(why, cap, "errors lean %s zero: mean e*sign(ref) %.4f ulp, allowed %.4f (slack %.4g + %g sigma/sqrt(n)) for a result rounded once (%s)",
                 tz < 0 ? "toward" : "away from", tz, lean_max, s, KC_ERRORS_Z, all);
        return 1;
    }
    if (fabs(mean) > lean_max) {
        snprintf(why, cap, "errors lean %s: mean %.4f ulp, allowed %.4f (slack %.4g + %g sigma/sqrt(n)) for a result rounded once (%s)",
                 mean < 0 ? "low" : "high", mean, lean_max, s, KC_ERRORS_Z, all);
        return 1;
    }
    if (frac > frac_max) {
        snprintf(why, cap, "%.2f%% of errors exceed half an ulp, allowed %.2f%% (2 x slack %.4g + %g standard errors) for a result rounded once: rounded twice? (%s)",
                 100 * frac, 100 * frac_max, s, KC_ERRORS_Z, all);
        return 1;
    }
    return 0;
}
