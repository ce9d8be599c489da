/* gates.c — the GPU items (gates.h): a kernel through gates 1-4 on every
 * (shape, distribution) case, a control until some gate catches it (and a
 * library control's failure compared with its clean build), known and
 * stale findings, and what a lost context left unchecked; the :limits item
 * is limits_item.c's. The gates themselves:
 *   gate 1 launch and fit (launch.c): module, function, resources, launch, synchronize;
 *   gate 2 bounds and writes (gate2.c): guard bands intact, inputs unchanged, every
 *          output element written (no poison left); floating inputs' guard
 *          bands hold NaN, so a read past an input's end that reaches an
 *          output fails gate 3;
 *   gate 3 accuracy (gate3.c): every output element within tolerance of the float64
 *          reference (NaN and inf exactly where the reference has them), and
 *          the errors, in ulps, as the output's error model allows (no lean,
 *          few beyond half an ulp: error_model.h);
 *   gate 4 determinism (gate4.c): a relaunch on fresh buffers at other addresses, with
 *          other poison, gives bitwise identical outputs.
 * A case (case.c) is one shape and distribution with its buffers.
 * Everything but a host reference runs on the device: inputs are made there
 * (inputs.h), the checks are the harness module's (harness.h), and the host
 * reads back only what a failure line names (counts, an index, its values). */
#include "gates.h"
#include "mutant_images.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "case.h"
#include "clock.h"
#include "devmem.h"
#include "fatbin.h"
#include "gate_checks.h"
#include "guard.h"
#include "hostlib.h"
#include "hostmem.h"
#include "launch.h"
#include "limits_item.h"
#include "module_cache.h"
#include "seed.h"
#include "strbuf.h"

/* Runs gates 1..maxgate on one case; returns 0 or the failing gate. */
static int run_case(kc_gpu *gpu, const kc_kernels *K, kc_case *k, int maxgate)
{
    double t0 = kc_now_s();
    int g = kc_case_prepare(gpu, k);
    double t1 = kc_now_s();
    k->time->inputs_s += t1 - t0;
    if (g) return g;
    CUresult r = kc_case_upload(gpu, k, 0, KC_POISON_A);
    if (r != CUDA_SUCCESS) {
        /* The harness's failure (e.g. CUDA_ERROR_OUT_OF_MEMORY beside other
         * processes), not the kernel's: an internal error, so a control can
         * never count as caught by it. */
        kc_case_lost_if_sticky(gpu, k, r);
        return kc_case_fail(k, KC_INTERNAL, "allocating or filling device buffers failed: %s",
                            kc_cuda_error_name(&gpu->cu, r));
    }
    g = kc_case_launch(gpu, K, k, 0, 1);
    double t2 = kc_now_s();
    k->time->gpu_s += t2 - t1;
    if (g) return g;
    if (maxgate >= 2) {
        g = kc_gate2(gpu, K, k);
        k->time->checks_s += kc_now_s() - t2;
        if (g) return g;
    }
    if (maxgate >= 3 && (g = kc_gate3(gpu, k))) return g;
    if (maxgate >= 4 && !k->c->nondeterministic && (g = kc_gate4(gpu, K, k))) return g;
    return 0;
}

/* ---- items --------------------------------------------------------------- */

/* The first known finding of c for a failure of gate `gate` on shape `shape`
 * with inputs of distribution `dist` (its index into *idx), or NULL. */
static const kc_known *match_known(const kc_contract *c, int gate, const char *shape, kc_dist dist, int *idx)
{
    for (int i = 0; i < KC_MAX_KNOWN && c->known[i].reason; i++) {
        const kc_known *kn = &c->known[i];
        if (kn->gate == gate && (!kn->shape || fnmatch(kn->shape, shape, 0) == 0) &&
            (!kn->dist || fnmatch(kn->dist, kc_dist_name(dist), 0) == 0)) {
            *idx = i;
            return kn;
        }
    }
    return NULL;
}

/* Loads the contract's device reference for an item, when --reference uses
 * it. 0; or 1 with why (the contract's error: it names a module or symbol
 * this binary lacks). */
static int load_device_reference(kc_gpu *gpu, const kc_contract *c, kc_ref_mode mode, CUmodule *mod, CUfunction *fn,
                                 char *why, size_t cap)
{
    const kc_device_ref *d = &c->device_reference;
    *mod = NULL;
    *fn = NULL;
    if (!kc_uses_device_reference(c, mode)) return 0;
    const kc_fatbin *fb = d->module ? kc_fatbin_find(d->module, NULL) : NULL;
    CUresult r = CUDA_ERROR_NOT_FOUND;
    if (!fb) {
        snprintf(why, cap, "internal error: the device reference's module %s is not embedded in this binary (contract %s)",
                 d->module ? d->module : "(none)", c->name);
        return 1;
    }
    if ((r = kc_module_take(gpu, fb, mod)) != CUDA_SUCCESS) {
        *mod = NULL;
        snprintf(why, cap, "internal error: loading the device reference's module %s failed: %s", d->module,
                 kc_cuda_error_name(&gpu->cu, r));
        return 1;
    }
    if ((r = kc_module_function(gpu, *mod, d->symbol, fn)) != CUDA_SUCCESS) {
        snprintf(why, cap, "internal error: the device reference %s is not in module %s: %s", d->symbol, d->module,
                 kc_cuda_error_name(&gpu->cu, r));
        kc_module_give(gpu, *mod);
        *mod = NULL;
        *fn = NULL;
        return 1;
    }
    return 0;
}

/* What a control's line adds when it could not be checked: its own build is
 * broken (it does not load, or its library call fails as the clean one's
 * does), or the harness or the contract failed on it. */
static const char BROKEN[] = " (the control's build is broken, so it was not checked)";
static const char UNCHECKED[] = " (the control could not be checked)";

/* The item could not be checked (its build, its device reference, the
 * harness could not run a case): never green, never a catch. A kernel
 * FAILs, a control is MISSED; the message is why, with what it means for a
 * control (BROKEN or UNCHECKED). */
static void not_checked(kc_item_result *res, int control, const char *why, const char *control_says)
{
    res->state = control ? KC_MISSED : KC_FAIL;
    snprintf(res->msg, sizeof res->msg, "%s%s", why, control ? control_says : "");
}

/* A library kernel's control failed gate 1 on case k (its library call, or
 * the synchronize after it, failed): runs gate 1 of the same case with the
 * clean build's library. Nonzero, with the control's line in msg, when the
 * clean build fails there too (or cannot be loaded, or the case cannot be
 * run): then the control's failure is no catch (issue 21). 0 when the clean
 * call succeeds: the planted bug made the difference. */
static int clean_fails_too(kc_gpu *gpu, const kc_contract *c, const kc_case *k, char *msg, size_t cap)
{
    kc_host_entry clean;
    char why[900];
    if (gpu->lost) return 0;    /* a sticky fault is the control's: the context is gone, nothing more runs here */
    msg[0] = 0;
    if (kc_hostlib_load(c->library, NULL, c->entry, &clean, why, sizeof why)) {
        kc_strcatf(msg, cap, "%s; and the clean build cannot be compared: %s%s", k->why, why, BROKEN);
        return 1;
    }
    kc_case ck = { .c = c, .s = k->s, .dist = k->dist, .seed = k->seed, .mode = k->mode, .time = k->time,
                   .entry = clean };
    const kc_kernels library = { .entry = clean };
    int g = run_case(gpu, &library, &ck, 1);
    const char *call = ck.why + ck.body, *d = strstr(call, ", dist ");   /* past "shape S, dist D: ": the same case */
    if (d && (d = strstr(d, ": "))) call = d + 2;
    if (g == 1)
        kc_strcatf(msg, cap, "%s; the clean build fails the same way: %s%s", k->why, call, BROKEN);
    else if (g < 0)
        kc_strcatf(msg, cap, "%s; the clean build could not be run on that case: %s%s", k->why, ck.why, BROKEN);
    kc_case_free(gpu, &ck);
    return g != 0;
}

/* Gates 1-4 over every case (kernels), or until a gate fails (controls). */
static void run_gates(kc_gpu *gpu, const kc_item *it, uint64_t seed, kc_ref_mode mode, kc_item_result *res,
                      kc_lines *detail)
{
    const kc_contract *c = it->contract;
    int control = it->kind == KC_KIND_CONTROL;
    CUmodule ref_mod = NULL;
    CUfunction ref_fn = NULL;
    kc_kernels K;
    char why[1024];
    if (kc_load_kernels(gpu, c, control ? it->control->name : NULL, &K, why, sizeof why)) {
        res->gate = 1;
        res->cases_failed = 1;
        /* A control whose own build does not load proves nothing about the
         * gates: it must not pass for a caught bug. */
        not_checked(res, control, why, BROKEN);
        return;
    }
    if (load_device_reference(gpu, c, mode, &ref_mod, &ref_fn, why, sizeof why)) {
        not_checked(res, control, why, UNCHECKED);   /* the contract's own error */
        kc_unload_kernels(gpu, &K);
        return;
    }
    kc_dist dists[KC_MAX_DISTS + 2];
    int nd = kc_dists_of(c, dists), reproduced[KC_MAX_KNOWN] = { 0 }, unknown = 0, known = 0;
    char first[1600] = "";
    for (const kc_shape *s = c->shapes; s->name && !gpu->lost; s++) {
        int per_shape = s->cls == KC_SHAPE_LARGE ? 1 : nd;
        for (int d = 0; d < per_shape && !gpu->lost; d++) {
            kc_case k = { .c = c, .s = s, .dist = dists[d], .mode = mode, .ref_fn = ref_fn, .time = &res->time,
                          .entry = K.entry };
            k.seed = kc_case_seed(seed, c->name, s->name, dists[d]);
            int g = run_case(gpu, &K, &k, 4);
            kc_case_free(gpu, &k);
            res->cases++;
            if (!g) continue;
            res->cases_failed++;
            if (g < 0) {
                not_checked(res, control, k.why, UNCHECKED);   /* the harness could not run the case */
                goto done;
            }
            if (control && g == 1 && K.entry && clean_fails_too(gpu, c, &k, res->msg, sizeof res->msg)) {
                /* The library call fails for the clean build as well (an
                 * environment fault: a library that cannot start here), so
                 * the control proves nothing: as a control whose own build
                 * does not load. */
                res->gate = 1;
                res->state = KC_MISSED;
                goto done;
            }
            if (control && kc_control_is_mutant(it->control)) {
                res->gate = g;
                res->state = KC_RED;
                snprintf(res->msg, sizeof res->msg, "caught by gate %d (%s; %s): %s", g, kc_gate_name[g],
                         it->control->bug, k.why + k.body);
                goto done;
            }
            if (control) {
                res->gate = g;
                res->state = KC_RED;
                snprintf(res->msg, sizeof res->msg, "caught by gate %d (%s; planted for gate %d%s): %s", g,
                         kc_gate_name[g], it->control->gate, g == it->control->gate ? "" : ", caught by another",
                         k.why + k.body);
                goto done;
            }
            int ki;
            const kc_known *kn = match_known(c, g, s->name, dists[d], &ki);
            if (kn) {
                reproduced[ki] = 1;
                known++;
                kc_lines_add(detail, "    known: %s [%s]", k.why, kn->reason);
            } else {
                if (!unknown++) {
                    snprintf(first, sizeof first, "%s", k.why);
                    res->gate = g;
                }
                else kc_lines_add(detail, "    also: %s", k.why);
            }
        }
    }
    if (control) {
        if (gpu->lost) goto done;
        res->state = KC_MISSED;
        if (kc_control_is_mutant(it->control))
            snprintf(res->msg, sizeof res->msg, "passed gates 1-4 on all %d cases: no gate sees this mutant (%s)",
                     res->cases, it->control->bug);
        else
        snprintf(res->msg, sizeof res->msg, "passed gates 1-4 on all %d cases: the suite is blind to this bug (%s; planted for gate %d)",
                 res->cases, it->control->bug, it->control->gate);
        goto done;
    }
    /* A record item checks one shape: it cannot show a known finding stale. */
    for (int i = 0; i < KC_MAX_KNOWN && c->known[i].reason && !gpu->lost && !it->record; i++)
        if (!reproduced[i]) {
            res->stale++;
            kc_lines_add(detail,
                   "    stale known finding: gate %d on shapes %s%s%s (%s) no longer fails: remove it from the contract",
                   c->known[i].gate, c->known[i].shape ? c->known[i].shape : "*",
                   c->known[i].dist ? ", distributions " : "", c->known[i].dist ? c->known[i].dist : "", c->known[i].reason);
        }
    if (unknown) {
        res->state = KC_FAIL;
        snprintf(res->msg, sizeof res->msg, "%s; %d of %d cases failed", first, res->cases_failed, res->cases);
    } else if (res->stale) {
        res->state = KC_FAIL;
        snprintf(res->msg, sizeof res->msg, "%d stale known finding%s (listed below); gates 1-4 pass on %d cases",
                 res->stale, res->stale == 1 ? "" : "s", res->cases);
    } else if (known) {
        res->state = KC_KNOWN;
        snprintf(res->msg, sizeof res->msg, "%d of %d cases fail as registered known findings", known, res->cases);
    } else {
        res->state = KC_PASS;
        int shapes = 0;
        for (const kc_shape *s = c->shapes; s->name; s++) shapes++;
        snprintf(res->msg, sizeof res->msg, "gates 1-4 on %d cases (%d shape%s x up to %d distributions)", res->cases,
                 shapes, shapes == 1 ? "" : "s", nd);
    }
done:
    if (gpu->lost) {
        res->context_lost = 1;
        if (!control && res->state != KC_FAIL) {
            res->state = KC_FAIL;
            snprintf(res->msg, sizeof res->msg, "%s", first[0] ? first : "the CUDA context was lost");
        }
        if (!control) {     /* say what a lost context left unchecked */
            int planned = 0;
            for (const kc_shape *s = c->shapes; s->name; s++) planned += s->cls == KC_SHAPE_LARGE ? 1 : nd;
            if (planned > res->cases)
                kc_strcatf(res->msg, sizeof res->msg, "; %d more case%s not run (the CUDA context is unusable)",
                       planned - res->cases, planned - res->cases == 1 ? "" : "s");
        }
    }
    kc_unload_kernels(gpu, &K);
    kc_module_give(gpu, ref_mod);
}

void kc_run_gpu_item(kc_gpu *gpu, const kc_item *it, uint64_t seed, kc_ref_mode mode, kc_item_result *res,
                     kc_lines *detail)
{
    memset(res, 0, sizeof *res);
    if (it->kind == KC_KIND_LIMIT) kc_run_limits(gpu, it, res);
    else run_gates(gpu, it, seed, mode, res, detail);
    kc_lines_end(detail, "    ");
    kc_hostmem_release();   /* kept buffers serve one item's cases only (the memory plan is per item) */
    kc_devmem_release(gpu);
}
