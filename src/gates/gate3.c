/* gate3.c — gate 3, accuracy: the float64 reference of a case (the
 * contract's host reference, or its CUDA twin on the device, or both under
 * --reference both, which must agree), and every output element within
 * tolerance of it with its errors distributed as the output's error model
 * allows (error_model.h). */
#include "gate_checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arith_bound.h"
#include "clock.h"
#include "devmem.h"
#include "check_rules.h"
#include "error_model.h"
#include "guard.h"
#include "harness.h"
#include "hostmem.h"
#include "launch.h"
#include "parallel.h"
#include "tolerance.h"

/* Marks reference elements not yet computed (KC_REF_UNWRITTEN_BITS, a NaN
 * no arithmetic makes): an element the reference forgets fails gate 3
 * whatever the output holds there, a NaN included. */
static void fill_unwritten(void *ctx, size_t begin, size_t end)
{
    double *r = ctx;
    for (size_t i = begin; i < end; i++) r[i] = kc_cvt_bitsd(KC_REF_UNWRITTEN_BITS);
}

/* A float64 buffer of count[a] elements, every one KC_REF_UNWRITTEN_BITS, into *dst. */
static CUresult alloc_unwritten(kc_gpu *gpu, kc_case *k, int a, CUdeviceptr *dst)
{
    size_t b = k->count[a] * sizeof(double);
    CUresult r = kc_devmem_alloc(gpu, dst, b ? b : 1);
    if (r != CUDA_SUCCESS) {
        *dst = 0;
        return r;
    }
    return b ? gpu->cu.MemsetD32(*dst, KC_REF_UNWRITTEN_WORD, b / 4) : CUDA_SUCCESS;
}

/* Nonzero when output a's bound scales with a magnitude the reference
 * writes (kc_arith, KC_MAG_REFERENCE). */
static int wants_mag(const kc_case *k, int a)
{
    return kc_bound_for(k->c, a, k->s).mag;
}

/* A float64 buffer for every output, all not yet written, into dst; and into mag one
 * for each output whose bound needs the reference's magnitudes. */
static CUresult alloc_refs(kc_gpu *gpu, kc_case *k, CUdeviceptr *dst, CUdeviceptr *mag)
{
    CUresult r = CUDA_SUCCESS;
    for (int a = 0; a < k->nargs && r == CUDA_SUCCESS; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (!kc_arg_owns_buffer(ar) || ar->role == KC_IN) continue;
        r = alloc_unwritten(gpu, k, a, &dst[a]);
        if (r == CUDA_SUCCESS && wants_mag(k, a)) r = alloc_unwritten(gpu, k, a, &mag[a]);
    }
    return r;
}

/* The contract's host reference into device buffers dst: its inputs
 * downloaded from the pristine copies, its outputs uploaded. */
static int host_reference(kc_gpu *gpu, kc_case *k, CUdeviceptr *dst, CUdeviceptr *mag)
{
    kc_ref r = { .shape = k->s, .dist = k->dist, .nargs = k->nargs, .user = k->c->user };
    void *host[KC_MAX_ARGS] = { 0 };
    int g = 0;
    CUresult cr = alloc_refs(gpu, k, dst, mag);
    if (cr != CUDA_SUCCESS) g = kc_case_cuda_failed(gpu, k, cr, "allocating the reference of", k->c->name);
    for (int a = 0; a < k->nargs && !g; a++) {
        const kc_arg *ar = &k->c->args[a];
        r.dtype[a] = ar->dtype;
        r.scalar[a] = k->scalar[a];
        r.name[a] = ar->name;
        r.iscalar[a] = ar->kind != KC_ARG_SCALAR ? 0 : ar->ivalue ? ar->ivalue(k->s) : (int64_t)k->scalar[a];
        r.count[a] = k->count[a];
        if (!kc_arg_owns_buffer(ar)) continue;
        if (ar->role != KC_OUT) {
            if (!(host[a] = kc_hostmem_alloc(k->bytes[a], 0)))
                g = kc_case_fail(k, KC_INTERNAL, "out of host memory for the input %s of the host reference (%zu bytes)",
                                 ar->name, k->bytes[a]);
            else if ((cr = gpu->cu.MemcpyDtoH(host[a], k->in[a], k->bytes[a])) != CUDA_SUCCESS)
                g = kc_case_cuda_failed(gpu, k, cr, "downloading the input", ar->name);
            r.host[a] = host[a];
        }
        if (ar->role != KC_IN && !g) {
            double *out = kc_hostmem_alloc(k->count[a] * sizeof(double), 0);
            if (!out) g = kc_case_fail(k, KC_INTERNAL, "out of host memory for the reference of %s", ar->name);
            else kc_parallel_for(k->count[a], (size_t)1 << 20, fill_unwritten, out);
            r.out[a] = out;
        }
        if (mag[a] && !g) {
            double *m = kc_hostmem_alloc(k->count[a] * sizeof(double), 0);
            if (!m) g = kc_case_fail(k, KC_INTERNAL, "out of host memory for the magnitudes of %s", ar->name);
            else kc_parallel_for(k->count[a], (size_t)1 << 20, fill_unwritten, m);
            r.mag[a] = m;
        }
    }
    for (int a = 0; a < k->nargs && !g; a++) {     /* aliases and tensor maps show their buffer's input */
        const int o = k->owner[a];
        if (o < 0 || o == a || k->c->args[a].kind == KC_ARG_PTR_ARRAY) continue;
        r.host[a] = r.host[o];
        r.dtype[a] = r.dtype[o];
        r.count[a] = r.count[o];
    }
    if (!g) k->c->reference(&r);
    for (int a = 0; a < k->nargs && !g; a++)
        if (r.out[a] && k->count[a] &&
            (cr = gpu->cu.MemcpyHtoD(dst[a], r.out[a], k->count[a] * sizeof(double))) != CUDA_SUCCESS)
            g = kc_case_cuda_failed(gpu, k, cr, "uploading the reference of", k->c->args[a].name);
    for (int a = 0; a < k->nargs && !g; a++)
        if (r.mag[a] && k->count[a] &&
            (cr = gpu->cu.MemcpyHtoD(mag[a], r.mag[a], k->count[a] * sizeof(double))) != CUDA_SUCCESS)
            g = kc_case_cuda_failed(gpu, k, cr, "uploading the magnitudes of", k->c->args[a].name);
    for (int a = 0; a < k->nargs; a++) {
        kc_hostmem_free(host[a]);
        kc_hostmem_free(r.out[a]);
        kc_hostmem_free(r.mag[a]);
    }
    return g;
}

/* The contract's device reference into dst. A fault in it is the harness's
 * (the contract's) error, never the kernel's: internal. */
static int device_reference(kc_gpu *gpu, kc_case *k, CUdeviceptr *dst, CUdeviceptr *mag)
{
    const kc_device_ref *d = &k->c->device_reference;
    CUresult r = alloc_refs(gpu, k, dst, mag);
    if (r != CUDA_SUCCESS) return kc_case_cuda_failed(gpu, k, r, "allocating the reference of", k->c->name);
    kc_dref dr;
    memset(&dr, 0, sizeof dr);
    dr.shape = *k->s;
    dr.shape.name = NULL;
    dr.dist = k->dist;
    dr.nargs = k->nargs;
    for (int a = 0; a < k->nargs; a++) {
        /* aliases and tensor maps show their buffer's input */
        const int o = k->owner[a] >= 0 && k->c->args[a].kind != KC_ARG_PTR_ARRAY ? k->owner[a] : a;
        dr.dtype[a] = k->c->args[o].dtype;
        dr.count[a] = k->count[o];
        dr.scalar[a] = k->scalar[a];
        dr.in[a] = (const void *)(uintptr_t)k->in[o];
        dr.out[a] = (double *)(uintptr_t)dst[a];
        dr.mag[a] = (double *)(uintptr_t)mag[a];
        /* its name, for kc_dref_find; one that does not fit stays empty (found by no lookup) */
        const char *nm = k->c->args[a].name ? k->c->args[a].name : "";
        const size_t len = strnlen(nm, KC_DREF_NAME_MAX);
        if (len < KC_DREF_NAME_MAX) memcpy(dr.name[a], nm, len + 1);
    }
    kc_launch l = { { (unsigned)gpu->dev.sm_count * 4, 1, 1 }, { 256, 1, 1 }, 0 };
    if (d->launch) d->launch(k->s, &gpu->dev, &l);
    void *params[] = { &dr };
    r = kc_launch_kernel(&gpu->cu, k->ref_fn, &l, NULL, params, 0);
    /* the context's with the legacy table (as always); this thread's stream
     * with a per-thread one, so a lane waits for its own reference only */
    if (r == CUDA_SUCCESS) r = kc_cuda_sync(&gpu->cu, NULL);
    if (r != CUDA_SUCCESS) {
        const char *lost = kc_case_lost_if_sticky(gpu, k, r);
        return kc_case_fail(k, KC_INTERNAL, "the device reference %s (module %s) failed: %s%s", d->symbol, d->module,
                            kc_cuda_error_name(&gpu->cu, r), lost);
    }
    return 0;
}

/* --reference both: the device reference (dref) against the host's (ref),
 * within the contract's bound (bitwise when it gives none). */
static int references_agree(kc_gpu *gpu, kc_case *k)
{
    const kc_device_ref *d = &k->c->device_reference;
    kc_tol tol = d->agree.reason ? d->agree : (kc_tol){ 0, 0, NULL };
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (!kc_arg_owns_buffer(ar) || ar->role == KC_IN) continue;
        for (int m = 0; m < 2; m++) {     /* the reference, then its magnitudes where the bound uses them */
            const CUdeviceptr dev = m ? k->dmag[a] : k->dref[a], host = m ? k->mag[a] : k->ref[a];
            if (m && !host) continue;
            kc_compare cmp;
            CUresult r = kc_dev_compare(gpu, dev, KC_F64, host, k->count[a], tol, &cmp);
            if (r != CUDA_SUCCESS) return kc_case_cuda_failed(gpu, k, r, "comparing the references of", ar->name);
            if (cmp.bad)
                return kc_case_fail(k, KC_INTERNAL, "the device reference %s disagrees with the host reference: %s%s[%zu] device %.17g, host %.17g, difference %.3g > bound %.3g (%s); %zu of %zu elements differ",
                                    d->symbol, m ? "the magnitude of " : "", ar->name, cmp.worst, cmp.out, cmp.ref, cmp.err,
                                    cmp.allowed, d->agree.reason ? d->agree.reason : "bitwise", cmp.bad, cmp.count);
        }
    }
    return 0;
}

/* The reference gate 3 compares with, into k->ref, as --reference says. */
static int reference(kc_gpu *gpu, kc_case *k)
{
    int g = 0;
    if (k->ref_fn && k->mode != KC_REF_BOTH) return device_reference(gpu, k, k->ref, k->mag);
    if (k->ref_fn && (g = device_reference(gpu, k, k->dref, k->dmag))) return g;
    if ((g = host_reference(gpu, k, k->ref, k->mag))) return g;
    return k->ref_fn ? references_agree(gpu, k) : 0;
}

int kc_gate3(kc_gpu *gpu, kc_case *k)
{
    double t0 = kc_now_s();
    int failed = reference(gpu, k);
    double t1 = kc_now_s();
    k->time->reference_s += t1 - t0;
    for (int a = 0; a < k->nargs && !failed; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (!kc_arg_owns_buffer(ar) || ar->role == KC_IN) continue;
        const kc_bound b = kc_bound_for(k->c, a, k->s);
        const kc_tol tol = b.tol;
        kc_compare cmp;
        CUresult r = kc_dev_compare_mag(gpu, kc_case_data(k, 0, a), ar->dtype, k->ref[a], b.mag ? k->mag[a] : 0,
                                        k->count[a], tol, b.mag ? b.mtol : 0.0, &cmp);
        if (r != CUDA_SUCCESS) {
            failed = kc_case_cuda_failed(gpu, k, r, "comparing the output", ar->name);
            break;
        }
        if (cmp.bad && kc_rule_ref_unwritten(cmp.ref)) {
            failed = kc_case_fail(k, 3, "%s[%zu]: the reference never wrote this element (out there: %.9g); a reference "
                                  "must write every element of every output (a loop over a count too small, or an "
                                  "index it skips); %zu of %zu elements out of tolerance or unwritten",
                                  ar->name, cmp.worst, cmp.out, cmp.bad, cmp.count);
            break;
        }
        if (cmp.bad) {
            /* The bound and where it came from, then the existing figures:
             * "(rtol R, atol A)", with the magnitude term where there is one. */
            char terms[128] = "";
            if (b.mag)
                snprintf(terms, sizeof terms, ", + %g x magnitude %.3g", b.mtol,
                         b.mtol > 0 ? (cmp.allowed - tol.atol - tol.rtol * fabs(cmp.ref)) / b.mtol : NAN);
            failed = kc_case_fail(k, 3, "%s[%zu] = %.9g, reference %.9g, error %.3g > allowed %.3g by %s (rtol %g, atol %g%s); %zu of %zu elements out of tolerance",
                                  ar->name, cmp.worst, cmp.out, cmp.ref, cmp.err, cmp.allowed, b.why, tol.rtol, tol.atol,
                                  terms, cmp.bad, cmp.count);
            break;
        }
        kc_errors model = kc_errors_for(k->c, a);
        char why[700];
        /* Boundary distributions repeat one value (CONSTANT) or few, as do
         * the random ones a contract names: their errors are not
         * independent, so the statistics are not judged. */
        if (kc_errors_judged_on(&model, k->dist) && kc_errors_judge(&model, ar->dtype, &cmp.stats, why, sizeof why))
            failed = kc_case_fail(k, 3, "%s: every element within tolerance, but %s", ar->name, why);
    }
    k->time->checks_s += kc_now_s() - t1;
    return failed;
}
