/* error_model.h — gate 3's error statistics judged against an output's error
 * model (kcontract.h, kc_errors): the model in force for an output, and the
 * verdict on its kc_err_stats (tolerance.h), with the numbers a failure line
 * gives. docs/error-statistics.md explains the tests to a kernel author.
 *
 * Under ROUNDED with slack s, over the n elements with finite values in the
 * relative regime of the tolerance (rtol |ref| >= atol), where e is the
 * error in ulps of the output dtype at the reference:
 *   lean:      |mean e| and |mean e*sign(ref)| <= s + Z sigma / sqrt(n),
 *              sigma = sqrt(1/12), the deviation of a rounding error uniform
 *              on [-1/2, 1/2] (what one rounding to nearest gives on data with
 *              random low bits);
 *   over half: the fraction with |e| > 1/2 <= 2 s + Z sqrt(2 s / n): an error
 *              within s ulps of a correct rounding exceeds half an ulp only
 *              when the rounding error was within s of 1/2, with probability
 *              at most 2 s.
 * Judged for the random distributions only (UNIFORM .. MASKED): the boundary
 * ones (ZEROS, CONSTANT, ...) repeat values, whose errors are not independent.
 * Z = 6: a correct kernel fails one test in about 5e8 (the two-sided normal
 * tail beyond 6 sigma, 2.0e-9, per test; the central limit theorem makes the
 * means normal for the n of real shapes). */
#ifndef KC_ERROR_MODEL_H
#define KC_ERROR_MODEL_H
#include <stddef.h>
#include "kcontract.h"
#include "tolerance.h"

#define KC_ERRORS_Z 6.0                 /* standard errors allowed beyond the model's own slack */
#define KC_ERRORS_SLACK (1.0 / 32)      /* ROUNDED's default slack, in ulps */

/* The error model of output argument a of c: the argument's, else the
 * contract's, else the default for its dtype; kind is never DEFAULT and
 * slack never 0 for ROUNDED. */
kc_errors kc_errors_for(const kc_contract *c, int a);

/* Nonzero when m says anything (a kind or unjudged distributions). */
int kc_errors_given(const kc_errors *m);

/* Nonzero when the statistics are judged on inputs of distribution d: the
 * random distributions (UNIFORM .. MASKED) not in m->unjudged. */
int kc_errors_judged_on(const kc_errors *m, kc_dist d);

/* Judges st (of an output of dtype t) under m. Returns 0, or 1 with a
 * description of the failed test and every figure in why ("errors lean
 * toward zero: mean e*sign(ref) -0.4981 ulp of bf16 over 1048576 elements,
 * allowed 0.0330 (slack 0.03125 + 6 sigma/sqrt(n)); ..."). */
int kc_errors_judge(const kc_errors *m, kc_dtype t, const kc_err_stats *st, char *why, size_t cap);

/* "mean -0.0001, mean e*sign 0.0002, rms 0.29, max 0.50, 0.0% above half an ulp of bf16 over 4096 elements" */
void kc_errors_describe(kc_dtype t, const kc_err_stats *st, char *buf, size_t cap);
#endif
