/* test_control_margins.c — the controls that only gate 3's new checks catch
 * (issue 12, item 5), emulated on the host: each planted kernel's float32
 * arithmetic (as in kernels/<family>/<family>.cu) on the built-in input
 * streams (gen_stream.h), judged by the same element rule and error model as
 * the GPU scan (check_rules.h, error_model.h) under the contract's own
 * tolerance and model (the registered contract, looked up by name). This
 * pins the margins each control's derivation claims, so a change of a
 * tolerance, of the error model or of a generator that would let a control
 * pass, or be caught by another check than the one it was planted for, fails
 * here before it shows as MISSED on a GPU:
 *   error statistics   truncating_store (residual_add.bf16, axpy.bf16) and
 *                      rounded_twice (silu_mul.f16, .bf16): every element
 *                      within tolerance on the random distributions, the
 *                      error statistics fail; the clean arithmetic passes both;
 *   read canaries      vector_tail_overread (rmsnorm.*): the last token's row
 *                      read past x's end into a guard band of the old byte
 *                      (KC_CANARY) passes, of the read canary fails;
 *   boundary values    eps_per_sum (rmsnorm.f16), subnormal_flush
 *                      (reduce_sum.f16): every random distribution passes
 *                      tolerance and statistics, DENORMAL fails the tolerance.
 * Emulation, not the GPU: host expf/sqrtf differ from CUDA's by an ulp or
 * two of float32 (1e-7 relative), far inside every margin checked here. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith_bound.h"
#include "check_rules.h"
#include "dtype.h"
#include "error_model.h"
#include "gen_stream.h"
#include "guard.h"
#include "registry.h"
#include "tolerance.h"

/* The verdict of gate 3 on one emulated output: the element scan and the
 * error model's judgement (only on the distributions it judges). */
typedef struct verdict {
    kc_cmp_part p;
    kc_dtype t;
    kc_tol tol;
    kc_errors m;
    int mbits, emin;
} verdict;

/* The verdict under the bound gate 3 uses for output out_arg on shape s
 * (arith_bound.h: hand-set, default, or derived from the contract's
 * declared arithmetic, which depends on the shape). Magnitude bounds
 * (KC_MAG_REFERENCE) are not emulated here. */
static verdict verdict_on(const char *contract, int out_arg, const kc_shape *s)
{
    const kc_contract *c = kc_registry_find_contract(contract);
    cr_assert_not_null(c, "contract %s is registered", contract);
    kc_bound b = kc_bound_for(c, out_arg, s);
    cr_assert(!b.mag, "%s: a bound on the reference's magnitude is not emulated here", contract);
    verdict v = { .p = kc_cmp_empty(), .t = c->args[out_arg].dtype, .tol = b.tol, .m = kc_errors_for(c, out_arg) };
    kc_cvt_float_params(v.t, &v.mbits, &v.emin);
    return v;
}

/* The same, for contracts whose bound does not depend on the shape (a
 * hand-set tolerance or the dtype default). */
static verdict verdict_for(const char *contract, int out_arg)
{
    const kc_contract *c = kc_registry_find_contract(contract);
    cr_assert_not_null(c, "contract %s is registered", contract);
    cr_assert(!kc_arith_given(&c->args[out_arg].arith) && !kc_arith_given(&c->arith),
              "%s derives its bound from the shape: use verdict_on", contract);
    return verdict_on(contract, out_arg, NULL);
}

static void add(verdict *v, uint64_t i, double out, double ref)
{
    kc_cmp_element(&v->p, i, out, ref, v->tol.rtol, v->tol.atol, v->mbits, v->emin);
}

/* Nonzero when the error model fails the statistics on distribution d
 * (why gets the verdict's sentence). */
static int stats_fail(const verdict *v, kc_dist d, char *why, size_t cap)
{
    why[0] = 0;
    if (!kc_errors_judged_on(&v->m, d)) return 0;
    kc_err_stats st = { v->p.nstat, v->p.over_half, v->p.sum_e, v->p.sum_e2, v->p.sum_tz, v->p.max_abs };
    return kc_errors_judge(&v->m, v->t, &st, why, cap);
}

/* The contract lists control `name` for gate 3. */
static void expect_control(const char *contract, const char *name)
{
    const kc_contract *c = kc_registry_find_contract(contract);
    cr_assert_not_null(c);
    for (int k = 0; k < KC_MAX_CONTROLS && c->controls[k].name; k++)
        if (!strcmp(c->controls[k].name, name)) {
            cr_expect_eq(c->controls[k].gate, 3, "%s:control.%s is planted for gate 3", contract, name);
            return;
        }
    cr_expect_fail("%s does not list control %s", contract, name);
}

/* Element i of a t buffer of stream (d, key), as the kernel reads it. */
static double in_elem(kc_dtype t, kc_dist d, uint64_t key, uint64_t i)
{
    double x = kc_stream_float(t, d, key, i);
    if (t == KC_F16) return kc_f16_to_double(kc_double_to_f16(x));
    if (t == KC_BF16) return kc_bf16_to_double(kc_double_to_bf16(x));
    return (double)(float)x;
}

static float to_t(kc_dtype t, float v)
{
    if (t == KC_F16) return (float)kc_f16_to_double(kc_double_to_f16(v));
    if (t == KC_BF16) return (float)kc_bf16_to_double(kc_double_to_bf16(v));
    return v;
}

/* __float2bfloat16_rz: the top 16 bits of a finite float. */
static float bf16_rz(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) u &= 0xffff0000u;
    memcpy(&v, &u, 4);
    return v;
}

static const kc_dist random_ew[] = { KC_UNIFORM, KC_NORMAL, KC_SPECIALS };

/* residual_add (axpy 0) or axpy (1) over n elements, bf16; trunc: the control. */
static verdict emulate_ew(int axpy, int trunc, kc_dist d, size_t n)
{
    verdict v = verdict_for(axpy ? "axpy.bf16" : "residual_add.bf16", axpy ? 1 : 0);
    for (size_t i = 0; i < n; i++) {
        double x = in_elem(KC_BF16, d, 11, i), r = in_elem(KC_BF16, d, 22, i);
        float s = axpy ? fmaf(-0.8125f, (float)x, (float)r) : (float)x + (float)r;
        add(&v, i, trunc ? bf16_rz(s) : to_t(KC_BF16, s), axpy ? -0.8125 * x + r : x + r);
    }
    return v;
}

Test(control_margins, truncating_store_is_within_tolerance_and_leans)
{
    expect_control("residual_add.bf16", "truncating_store");
    expect_control("axpy.bf16", "truncating_store");
    char why[1024];
    for (int axpy = 0; axpy < 2; axpy++)
        for (size_t k = 0; k < sizeof random_ew / sizeof random_ew[0]; k++) {
            verdict clean = emulate_ew(axpy, 0, random_ew[k], 28672);
            cr_expect_eq(clean.p.bad, 0);
            cr_expect_not(stats_fail(&clean, random_ew[k], why, sizeof why), "clean %d: %s", axpy, why);
            verdict bug = emulate_ew(axpy, 1, random_ew[k], 28672);
            cr_expect_eq(bug.p.bad, 0, "axpy %d dist %d: truncation stays within tolerance (worst %g vs %g)", axpy,
                         random_ew[k], bug.p.out, bug.p.ref);
            cr_expect(stats_fail(&bug, random_ew[k], why, sizeof why), "axpy %d dist %d: statistics fail", axpy, random_ew[k]);
            cr_expect_not_null(strstr(why, "lean toward zero"), "%s", why);
        }
}

/* silu_mul over one token of d outputs; twice: the control. */
static verdict emulate_silu(kc_dtype t, int twice, kc_dist d, long dd)
{
    verdict v = verdict_for(t == KC_F16 ? "silu_mul.f16" : "silu_mul.bf16", 0);
    for (long i = 0; i < dd; i++) {
        double g = in_elem(t, d, 33, (uint64_t)i), u = in_elem(t, d, 33, (uint64_t)(dd + i));
        float gf = (float)g, s = gf / (1.0f + expf(-gf));
        if (twice) s = to_t(t, s);
        add(&v, (uint64_t)i, to_t(t, s * (float)u), g / (1.0 + exp(-g)) * u);
    }
    return v;
}

Test(control_margins, rounded_twice_is_within_tolerance_and_too_wide)
{
    const kc_dtype ts[] = { KC_F16, KC_BF16 };
    expect_control("silu_mul.f16", "rounded_twice");
    expect_control("silu_mul.bf16", "rounded_twice");
    char why[1024];
    for (int a = 0; a < 2; a++)
        for (size_t k = 0; k < sizeof random_ew / sizeof random_ew[0]; k++) {
            verdict clean = emulate_silu(ts[a], 0, random_ew[k], 14336);
            cr_expect_eq(clean.p.bad, 0);
            cr_expect_not(stats_fail(&clean, random_ew[k], why, sizeof why), "clean: %s", why);
            verdict bug = emulate_silu(ts[a], 1, random_ew[k], 14336);
            cr_expect_eq(bug.p.bad, 0, "%s dist %d: rounded twice stays within tolerance (worst err/allowed %g)",
                         kc_dtype_name(ts[a]), random_ew[k], bug.p.ratio);
            cr_expect(stats_fail(&bug, random_ew[k], why, sizeof why), "%s dist %d: statistics fail",
                      kc_dtype_name(ts[a]), random_ew[k]);
            cr_expect_not_null(strstr(why, "exceed half an ulp"), "%s", why);
        }
}

/* rmsnorm input element: LARGE is the contract's own (|x| in [512, 1024),
 * negative with p 1/4), approximated by the same law on the built-in stream. */
static double rms_in(kc_dtype t, kc_dist d, uint64_t key, uint64_t i)
{
    if (d != KC_LARGE) return in_elem(t, d, key, i);
    philox4x32_ctr_t x = kc_stream_draw(key, i, 0, 0);
    double m = 512.0 + 512.0 * kc_stream_u53(x.v[0], x.v[1]);
    return to_t(t, (float)((x.v[2] & 3u) == 0 ? -m : m));
}

/* The kernel's block sum (kernels/rmsnorm/rmsnorm.cu, block_sum): each
 * warp's butterfly (__shfl_xor_sync over offsets 16 .. 1: every lane ends
 * with the same float sum, lane 0's is used), its lane 0 into slot w, then
 * warp 0's butterfly over the nw slots (lanes past nw give 0). pow2: the
 * control pow2_reduce's tree over the slots instead, for nw / 2 .. 1
 * (slots a tree of a non-power-of-two count never reaches are dropped). */
static float butterfly(float *v)
{
    for (int off = 16; off > 0; off >>= 1) {
        float n[32];
        for (int l = 0; l < 32; l++) n[l] = v[l] + v[l ^ off];
        memcpy(v, n, sizeof n);
    }
    return v[0];
}
static float rms_block_sum(const float *part, int threads, int pow2)
{
    const int nw = (threads + 31) / 32;
    float red[32] = { 0 };
    for (int w = 0; w < nw; w++) {
        float v[32];
        memcpy(v, part + 32 * w, sizeof v);
        red[w] = butterfly(v);
    }
    if (pow2) {
        for (int s = nw / 2; s > 0; s >>= 1)
            for (int t = 0; t < s; t++) red[t] += red[t + s];
        return red[0];
    }
    return butterfly(red);
}

/* rmsnorm.<t> over tokens x hidden (eps 10^-k) with the bug `bug` (0 none,
 * 1 eps_per_sum, 2 vector_tail_overread with guard byte `guard` past x's
 * end, 3 half_accum, 4 pow2_reduce), its sum of squares in the kernel's
 * order: rms_launch's threads, each a serial fmaf over its elements (or,
 * half_accum, __hadd of the squares rounded to f16), then the block sum. */
static verdict emulate_rms(kc_dtype t, int bug, uint8_t guard, kc_dist d, long tokens, long hidden, int k)
{
    char name[32];
    snprintf(name, sizeof name, "rmsnorm.%s", kc_dtype_name(t));
    const kc_shape shape = { "emulated", KC_SHAPE_MODEL, { tokens, hidden, k } };
    verdict v = verdict_on(name, 0, &shape);
    const float eps = (float)pow(10.0, -k);
    const uint8_t gb[4] = { guard, guard, guard, guard };
    float g32;
    memcpy(&g32, gb, 4);
    double past = t == KC_F16 ? kc_f16_to_double((uint16_t)(guard * 0x0101u))
                : t == KC_BF16 ? kc_bf16_to_double((uint16_t)(guard * 0x0101u)) : (double)g32;
    long threads = ((hidden + 7) / 8 + 31) / 32 * 32;
    if (threads < 32) threads = 32;
    if (threads > 1024) threads = 1024;
    for (long tk = 0; tk < tokens; tk++) {
        double ss = 0;
        float part[1024] = { 0 };
        long hv = bug == 2 ? (hidden + 7) & ~7L : hidden;
        for (long th = 0; th < threads; th++) {
            float fs = 0;
            for (long j = th; j < hv; j += threads) {
                uint64_t i = (uint64_t)(tk * hidden + j);
                double x = i < (uint64_t)(tokens * hidden) ? rms_in(t, d, 44, i) : past;
                float xm = (float)x * (j < hidden ? 1.f : 0.f);
                if (bug == 3) fs = (float)kc_f16_to_double(kc_double_to_f16((double)fs + kc_f16_to_double(kc_double_to_f16(xm * xm))));
                else fs = fmaf(xm, xm, fs);
            }
            part[th] = fs;
        }
        for (long j = 0; j < hidden; j++) {
            double x = rms_in(t, d, 44, (uint64_t)(tk * hidden + j));
            ss += x * x;
        }
        const float fsum = rms_block_sum(part, (int)threads, bug == 4);
        double rinv = 1.0 / sqrt(ss / (double)hidden + (double)eps);
        float fr = bug == 1 ? 1.0f / sqrtf((fsum + eps) / (float)hidden) : 1.0f / sqrtf(fsum / (float)hidden + eps);
        for (long j = 0; j < hidden; j++) {
            uint64_t i = (uint64_t)(tk * hidden + j);
            double x = rms_in(t, d, 44, i), w = rms_in(t, d, 55, (uint64_t)j);
            add(&v, i, to_t(t, (float)x * fr * (float)w), x * rinv * w);
        }
    }
    return v;
}

/* rmsnorm.f32's bound is derived from its declared arithmetic (issue 25):
 * the clean kernel's float32 arithmetic, in its own order, stays inside it
 * on every distribution and on shapes of every thread count, and the
 * controls that gate 3 catches by value are still outside it: half_accum
 * on the random rows (the f16 sum's rounding, ~1e-5 relative, which the old
 * hand-set rtol 4e-6 caught too) and on LARGE ones (overflow: outputs 0),
 * pow2_reduce on the 448- and 640-thread blocks (partials dropped). */
Test(control_margins, rmsnorm_f32_derived_bound_holds_the_arithmetic_and_not_the_controls)
{
    const kc_dist dists[] = { KC_NORMAL, KC_UNIFORM, KC_LARGE, KC_DENORMAL, KC_ZEROS, KC_CONSTANT };
    const long shapes[][3] = { { 7, 4096, 5 }, { 7, 3584, 6 }, { 3, 5120, 5 }, { 33, 768, 6 }, { 5, 1023, 5 },
                               { 7, 31, 5 }, { 3, 1, 5 } };
    const kc_contract *c = kc_registry_find_contract("rmsnorm.f32");
    cr_assert_not_null(c);
    const kc_shape s4096 = { "t", KC_SHAPE_MODEL, { 7, 4096, 5 } };
    kc_bound b = kc_bound_for(c, 0, &s4096);
    cr_assert_eq(b.source, KC_BOUND_DERIVED, "rmsnorm.f32 declares its arithmetic: %s", b.why);
    cr_expect_lt(b.tol.rtol, 4e-6, "the derived bound at hidden 4096 (%g) is tighter than the hand-set rtol it replaced",
                 b.tol.rtol);
    double worst = 0;
    for (size_t k = 0; k < sizeof dists / sizeof *dists; k++)
        for (size_t h = 0; h < sizeof shapes / sizeof *shapes; h++) {
            verdict clean = emulate_rms(KC_F32, 0, 0, dists[k], shapes[h][0], shapes[h][1], (int)shapes[h][2]);
            cr_expect_eq(clean.p.bad, 0, "dist %d, hidden %ld: worst err/allowed %g (%g vs %g)", dists[k], shapes[h][1],
                         clean.p.ratio, clean.p.out, clean.p.ref);
            if (clean.p.ratio > worst) worst = clean.p.ratio;
        }
    cr_expect_lt(worst, 0.5, "the clean arithmetic's worst err/allowed %g: a margin of 2 at least", worst);
    expect_control("rmsnorm.f32", "half_accum");
    expect_control("rmsnorm.f32", "pow2_reduce");
    for (int k = 0; k < 3; k++) {
        verdict half = emulate_rms(KC_F32, 3, 0, dists[k], 7, 4096, 5);
        cr_expect_gt(half.p.bad, 0, "half_accum, dist %d: caught (worst err/allowed %g)", dists[k], half.p.ratio);
    }
    verdict pow2 = emulate_rms(KC_F32, 4, 0, KC_NORMAL, 7, 3584, 6);
    cr_expect_gt(pow2.p.bad, 7 * 3584 / 2, "pow2_reduce at 448 threads: %llu bad", (unsigned long long)pow2.p.bad);
    pow2 = emulate_rms(KC_F32, 4, 0, KC_NORMAL, 3, 5120, 5);
    cr_expect_gt(pow2.p.bad, 3 * 5120 / 2, "pow2_reduce at 640 threads: %llu bad", (unsigned long long)pow2.p.bad);
}

Test(control_margins, eps_per_sum_passes_random_rows_and_fails_denormal_ones)
{
    const kc_dist random[] = { KC_NORMAL, KC_UNIFORM, KC_LARGE };
    expect_control("rmsnorm.f16", "eps_per_sum");
    char why[1024];
    for (size_t k = 0; k < 3; k++) {
        /* UNIFORM leans most (mean square 1/3): checked at t128, the largest n, where the allowance is least */
        verdict bug = emulate_rms(KC_F16, 1, 0, random[k], random[k] == KC_UNIFORM ? 128 : 16, 4096, 5);
        cr_expect_eq(bug.p.bad, 0, "dist %d: worst err/allowed %g", random[k], bug.p.ratio);
        cr_expect_not(stats_fail(&bug, random[k], why, sizeof why), "dist %d: %s", random[k], why);
        bug = emulate_rms(KC_F16, 1, 0, random[k], 7, 31, 5);      /* edge.t7.h31: mean squares still >> eps */
        cr_expect_eq(bug.p.bad, 0, "dist %d, hidden 31: worst err/allowed %g", random[k], bug.p.ratio);
    }
    verdict clean = emulate_rms(KC_F16, 0, 0, KC_DENORMAL, 7, 4096, 5);
    cr_expect_eq(clean.p.bad, 0);
    verdict bug = emulate_rms(KC_F16, 1, 0, KC_DENORMAL, 7, 4096, 5);
    cr_expect_gt(bug.p.bad, 7 * 4096 / 4, "DENORMAL: %llu of 28672 elements outside tolerance",
                 (unsigned long long)bug.p.bad);
    bug = emulate_rms(KC_F16, 1, 0, KC_DENORMAL, 7, 3584, 6);
    cr_expect_gt(bug.p.bad, 7 * 3584 / 4, "DENORMAL (eps 1e-6): %llu outside tolerance", (unsigned long long)bug.p.bad);
}

Test(control_margins, vector_tail_overread_is_seen_by_the_read_canary_only)
{
    const kc_dtype ts[] = { KC_F32, KC_F16, KC_BF16 };
    const long hidden[] = { 1, 31, 33, 1023 };
    char name[32];
    for (int a = 0; a < 3; a++) {
        snprintf(name, sizeof name, "rmsnorm.%s", kc_dtype_name(ts[a]));
        expect_control(name, "vector_tail_overread");
        for (int h = 0; h < 4; h++) {
            verdict old = emulate_rms(ts[a], 2, KC_CANARY, KC_NORMAL, 3, hidden[h], 5);
            cr_expect_eq(old.p.bad, 0, "%s h%ld: the old guard byte is finite, masked to 0", name, hidden[h]);
            verdict now = emulate_rms(ts[a], 2, KC_READ_CANARY, KC_NORMAL, 3, hidden[h], 5);
            /* the last token's row at least (with hidden 1, rows whose 8 lanes reach past x's end too) */
            cr_expect_geq(now.p.bad, (uint64_t)hidden[h], "%s h%ld: the last token's outputs are NaN (%llu bad)", name,
                          hidden[h], (unsigned long long)now.p.bad);
            cr_expect(now.p.special, "%s: a NaN where the reference is finite", name);
        }
        verdict aligned = emulate_rms(ts[a], 2, KC_READ_CANARY, KC_NORMAL, 3, 768, 5);
        cr_expect_eq(aligned.p.bad, 0, "%s: hidden %% 8 == 0 reads nothing past a row", name);
    }
}

/* reduce_sum.f16 over rows x cols; flush: the control. */
static verdict emulate_sum(int flush, kc_dist d, long rows, long cols)
{
    verdict v = verdict_for("reduce_sum.f16", 1);
    for (long r = 0; r < rows; r++) {
        double ref = 0;
        float acc = 0;
        for (long c = 0; c < cols; c++) {
            double x = in_elem(KC_F16, d, 66, (uint64_t)(r * cols + c));
            ref += x;
            acc += flush && fabs(x) < 0x1p-14 ? 0.0f : (float)x;
        }
        add(&v, (uint64_t)r, acc, ref);
    }
    return v;
}

Test(control_margins, subnormal_flush_passes_random_rows_and_fails_denormal_ones)
{
    const kc_dist random[] = { KC_UNIFORM, KC_NORMAL, KC_SPECIALS };
    expect_control("reduce_sum.f16", "subnormal_flush");
    for (size_t k = 0; k < 3; k++) {
        verdict bug = emulate_sum(1, random[k], 2, 152064);
        cr_expect_eq(bug.p.bad, 0, "dist %d: worst %g vs %g", random[k], bug.p.out, bug.p.ref);
    }
    verdict clean = emulate_sum(0, KC_DENORMAL, 7, 4096);
    cr_expect_eq(clean.p.bad, 0);
    verdict bug = emulate_sum(1, KC_DENORMAL, 7, 128256);
    cr_expect_geq(bug.p.bad, 5, "DENORMAL: %llu of 7 rows outside tolerance (worst %g vs %g)",
                  (unsigned long long)bug.p.bad, bug.p.out, bug.p.ref);
}
