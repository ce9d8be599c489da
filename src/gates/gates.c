/* gates.c — the four gates, one (shape, distribution) case at a time, and
 * the three kinds of GPU item built on them:
 *   gate 1 launch and fit: module, function, resources, launch, synchronize;
 *   gate 2 bounds and writes: guard bands intact, inputs unchanged, every
 *          output element written (no poison left); floating inputs' guard
 *          bands hold NaN, so a read past an input's end that reaches an
 *          output fails gate 3;
 *   gate 3 accuracy: every output element within tolerance of the float64
 *          reference (NaN and inf exactly where the reference has them), and
 *          the errors, in ulps, as the output's error model allows (no lean,
 *          few beyond half an ulp: error_model.h);
 *   gate 4 determinism: a relaunch on fresh buffers at other addresses, with
 *          other poison, gives bitwise identical outputs.
 * Everything but a host reference runs on the device: inputs are made there
 * (inputs.h), the checks are the harness module's (harness.h), and the host
 * reads back only what a failure line names (counts, an index, its values). */
#include "gates.h"
#include "case.h"
#include "gate_checks.h"
#include "launch.h"
#include "limits_item.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "devmem.h"
#include "dtype.h"
#include "error_model.h"
#include "fatbin.h"
#include "guard.h"
#include "harness.h"
#include "hostlib.h"
#include "hostmem.h"
#include "inputs.h"
#include "parallel.h"
#include "seed.h"
#include "strbuf.h"
#include "tolerance.h"

/* Runs gates 1..maxgate on one case; returns 0 or the failing gate. */
static int run_case(kc_gpu *gpu, CUfunction f, kc_case *k, int maxgate)
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
        k->sticky = kc_cuda_error_is_sticky(r);
        if (k->sticky) gpu->lost = 1;
        return kc_case_fail(k, KC_INTERNAL, "allocating or filling device buffers failed: %s",
                            kc_cuda_error_name(&gpu->cu, r));
    }
    g = kc_case_launch(gpu, f, k, 0, 1);
    double t2 = kc_now_s();
    k->time->gpu_s += t2 - t1;
    if (g) return g;
    if (maxgate >= 2) {
        g = kc_gate2(gpu, f, k);
        k->time->checks_s += kc_now_s() - t2;
        if (g) return g;
    }
    if (maxgate >= 3 && (g = kc_gate3(gpu, k))) return g;
    if (maxgate >= 4 && !k->c->nondeterministic && (g = kc_gate4(gpu, f, k))) return g;
    return 0;
}

/* ---- items --------------------------------------------------------------- */

static const kc_known *match_known(const kc_contract *c, int gate, const char *shape, int *idx)
{
    for (int i = 0; i < KC_MAX_KNOWN && c->known[i].reason; i++) {
        const kc_known *kn = &c->known[i];
        if (kn->gate == gate && (!kn->shape || fnmatch(kn->shape, shape, 0) == 0)) {
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
    if ((r = gpu->cu.ModuleLoadData(mod, fb->start)) != CUDA_SUCCESS) {
        *mod = NULL;
        snprintf(why, cap, "internal error: loading the device reference's module %s failed: %s", d->module,
                 kc_cuda_error_name(&gpu->cu, r));
        return 1;
    }
    if ((r = gpu->cu.ModuleGetFunction(fn, *mod, d->symbol)) != CUDA_SUCCESS) {
        snprintf(why, cap, "internal error: the device reference %s is not in module %s: %s", d->symbol, d->module,
                 kc_cuda_error_name(&gpu->cu, r));
        gpu->cu.ModuleUnload(*mod);
        *mod = NULL;
        *fn = NULL;
        return 1;
    }
    return 0;
}

/* A library kernel's control failed gate 1 on case k (its library call, or
 * the synchronize after it, failed): runs gate 1 of the same case with the
 * clean build's library. Nonzero, with the control's line in msg, when the
 * clean build fails there too (or cannot be loaded, or the case cannot be
 * run): then the control's failure is no catch (issue 21). 0 when the clean
 * call succeeds: the planted bug made the difference. */
static int clean_fails_too(kc_gpu *gpu, const kc_contract *c, const kc_case *k, char *msg, size_t cap)
{
    static const char broken[] = " (the control's build is broken, so it was not checked)";
    kc_host_entry clean;
    char why[900];
    if (gpu->lost) return 0;    /* a sticky fault is the control's: the context is gone, nothing more runs here */
    msg[0] = 0;
    if (kc_hostlib_load(c->library, NULL, c->entry, &clean, why, sizeof why)) {
        kc_strcatf(msg, cap, "%s; and the clean build cannot be compared: %s%s", k->why, why, broken);
        return 1;
    }
    kc_case ck = { .c = c, .s = k->s, .dist = k->dist, .seed = k->seed, .mode = k->mode, .time = k->time,
                   .entry = clean };
    int g = run_case(gpu, NULL, &ck, 1);
    const char *call = ck.why + ck.body, *d = strstr(call, ", dist ");   /* past "shape S, dist D: ": the same case */
    if (d && (d = strstr(d, ": "))) call = d + 2;
    if (g == 1)
        kc_strcatf(msg, cap, "%s; the clean build fails the same way: %s%s", k->why, call, broken);
    else if (g < 0)
        kc_strcatf(msg, cap, "%s; the clean build could not be run on that case: %s%s", k->why, ck.why, broken);
    kc_case_free(gpu, &ck);
    return g != 0;
}

/* Gates 1-4 over every case (kernels), or until a gate fails (controls). */
static void run_gates(kc_gpu *gpu, const kc_item *it, uint64_t seed, kc_ref_mode mode, kc_item_result *res,
                      kc_lines *detail)
{
    const kc_contract *c = it->contract;
    int control = it->kind == KC_KIND_CONTROL;
    CUmodule mod = NULL, ref_mod = NULL;
    CUfunction fn = NULL, ref_fn = NULL;
    kc_host_entry entry;
    char why[1024];
    if (kc_load_function(gpu, c, control ? it->control->name : NULL, &mod, &fn, &entry, why, sizeof why)) {
        res->gate = 1;
        res->cases_failed = 1;
        /* A control whose own build does not load proves nothing about the
         * gates: it must not pass for a caught bug. */
        snprintf(res->msg, sizeof res->msg, "%s%s", why,
                 control ? " (the control's build is broken, so it was not checked)" : "");
        res->state = control ? KC_MISSED : KC_FAIL;
        return;
    }
    if (load_device_reference(gpu, c, mode, &ref_mod, &ref_fn, why, sizeof why)) {
        /* The contract's own error: never green, never a catch. */
        snprintf(res->msg, sizeof res->msg, "%s%s", why, control ? " (the control could not be checked)" : "");
        res->state = control ? KC_MISSED : KC_FAIL;
        if (mod && !gpu->lost) gpu->cu.ModuleUnload(mod);
        return;
    }
    kc_dist dists[KC_MAX_DISTS + 2];
    int nd = kc_dists_of(c, dists), reproduced[KC_MAX_KNOWN] = { 0 }, unknown = 0, known = 0;
    char first[1600] = "";
    for (const kc_shape *s = c->shapes; s->name && !gpu->lost; s++) {
        int per_shape = s->cls == KC_SHAPE_LARGE ? 1 : nd;
        for (int d = 0; d < per_shape && !gpu->lost; d++) {
            kc_case k = { .c = c, .s = s, .dist = dists[d], .mode = mode, .ref_fn = ref_fn, .time = &res->time,
                          .entry = entry };
            k.seed = kc_case_seed(seed, c->name, s->name, dists[d]);
            int g = run_case(gpu, fn, &k, 4);
            kc_case_free(gpu, &k);
            res->cases++;
            if (!g) continue;
            res->cases_failed++;
            if (g < 0) {
                /* The harness could not run the case: never green, never RED. */
                res->state = control ? KC_MISSED : KC_FAIL;
                snprintf(res->msg, sizeof res->msg, "%s%s", k.why,
                         control ? " (the control could not be checked)" : "");
                goto done;
            }
            if (control && g == 1 && entry && clean_fails_too(gpu, c, &k, res->msg, sizeof res->msg)) {
                /* The library call fails for the clean build as well (an
                 * environment fault: a library that cannot start here), so
                 * the control proves nothing: as a control whose own build
                 * does not load. */
                res->gate = 1;
                res->state = KC_MISSED;
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
            const kc_known *kn = match_known(c, g, s->name, &ki);
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
        snprintf(res->msg, sizeof res->msg, "passed gates 1-4 on all %d cases: the suite is blind to this bug (%s; planted for gate %d)",
                 res->cases, it->control->bug, it->control->gate);
        goto done;
    }
    /* A record item checks one shape: it cannot show a known finding stale. */
    for (int i = 0; i < KC_MAX_KNOWN && c->known[i].reason && !gpu->lost && !it->record; i++)
        if (!reproduced[i]) {
            res->stale++;
            kc_lines_add(detail,
                   "    stale known finding: gate %d on shapes %s (%s) no longer fails: remove it from the contract",
                   c->known[i].gate, c->known[i].shape ? c->known[i].shape : "*", c->known[i].reason);
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
    if (mod && !gpu->lost) gpu->cu.ModuleUnload(mod);
    if (ref_mod && !gpu->lost) gpu->cu.ModuleUnload(ref_mod);
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

/* ---- the sanitizer's target (sanitize.h) ---------------------------------- */

int kc_sanitize_shapes(const kc_contract *c, const kc_shape **out, int cap)
{
    int n = 0;
    const kc_shape *model = NULL;
    size_t model_bytes = SIZE_MAX;
    for (const kc_shape *s = c->shapes; s->name; s++) {
        if (s->cls == KC_SHAPE_EDGE && n < cap) out[n++] = s;
        if (s->cls != KC_SHAPE_MODEL) continue;
        size_t h, g;
        kc_case_memory(c, s, KC_REF_DEVICE, &h, &g);
        if (g < model_bytes) {
            model_bytes = g;
            model = s;
        }
    }
    if (model && n < cap) out[n++] = model;
    return n;
}

/* The shared memory one launch of shape s uses: static + dynamic bytes. */
static long launch_smem(kc_gpu *gpu, const kc_contract *c, CUfunction fn, const kc_shape *s)
{
    kc_launch l = { { 1, 1, 1 }, { 1, 1, 1 }, 0 };
    int statics = 0;
    c->launch(s, &gpu->dev, &l);
    gpu->cu.FuncGetAttribute(&statics, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
    return (long)statics + (long)l.smem;
}

/* One case of the sanitizer's target: its inputs made, its buffers of exact
 * size allocated and filled. 0, or the failure in k->why. */
static int exact_prepare(kc_gpu *gpu, kc_case *k)
{
    int g = kc_case_prepare(gpu, k);
    CUresult r = g ? CUDA_SUCCESS : kc_case_upload(gpu, k, 0, 0);
    if (!g && r != CUDA_SUCCESS)
        g = kc_case_fail(k, KC_INTERNAL, "allocating or filling device buffers failed: %s", kc_cuda_error_name(&gpu->cu, r));
    return g;
}

/* Launches cases k[0..n) together, each on its own non-blocking stream, and
 * synchronizes once. 0, or 1 with the failure in msg: a launch that did not
 * start names its shape; an error at the synchronize, or a sticky one met at
 * a later launch's calls, names the shapes launched before it, never the one
 * whose calls met it (which one faulted is for the sanitizer command to say:
 * it runs them one at a time).
 * A sticky error at the synchronize always marks the context lost, even
 * after a launch refused for its own reason. */
static int launch_together(kc_gpu *gpu, CUfunction fn, kc_case *k, int n, char *msg, size_t cap)
{
    CUstream st[KC_SAN_TOGETHER_MAX] = { 0 };
    /* The inputs were made and copied on the default stream, which a
     * non-blocking stream does not wait for. */
    CUresult r = gpu->cu.CtxSynchronize();
    int rc = 0;
    for (int i = 0; i < n && r == CUDA_SUCCESS; i++)
        if ((r = gpu->cu.StreamCreate(&st[i], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) st[i] = NULL;
    if (r != CUDA_SUCCESS) {
        if (kc_cuda_error_is_sticky(r)) gpu->lost = 1;
        snprintf(msg, cap, "internal error: before launching %d edge shapes together: %s", n, kc_cuda_error_name(&gpu->cu, r));
        rc = 1;
    }
    int launched = 0;           /* k[0..launched) are running */
    for (; launched < n && !rc; launched++)
        if (kc_case_launch_on(gpu, fn, &k[launched], 0, 1, st[launched], 0)) {
            if (k[launched].sticky && launched > 0) {
                rc = -1;        /* an earlier launch's fault, surfacing at this launch's calls */
            } else {
                snprintf(msg, cap, "%s", k[launched].why);
                rc = 1;
            }
            break;
        }
    /* Always: the launches that started end before their buffers are freed.
     * A sticky error stays, so this returns the one a launch call met. */
    r = gpu->cu.CtxSynchronize();
    const int sticky = kc_cuda_error_is_sticky(r);
    if (sticky) gpu->lost = 1;
    if (rc < 0 || (!rc && r != CUDA_SUCCESS)) {
        kc_strbuf b;
        kc_sb_init(&b, msg, cap);
        kc_sb_printf(&b, "gate 1 (%s): shape%s", kc_gate_name[1], launched == 1 ? "" : "s");
        for (int i = 0; i < launched; i++) kc_sb_printf(&b, " %s", k[i].s->name);
        kc_sb_printf(&b, ", dist %s, launched together (one stream each): ", kc_dist_name(k[0].dist));
        if (rc < 0) kc_sb_printf(&b, "a fault met at the calls of the next launch (%s, not launched): ", k[launched].s->name);
        else kc_sb_printf(&b, "synchronize failed: ");
        kc_sb_printf(&b, "%s%s; the sanitizer command launches them one at a time", kc_cuda_error_name(&gpu->cu, r),
                     sticky ? " (the CUDA context is now unusable)" : "");
        rc = 1;
    } else if (rc && sticky && launched > 0) {
        /* a launch refused for its own reason while earlier ones faulted */
        kc_strcatf(msg, cap, "; the shape%s launched together before it,", launched == 1 ? "" : "s");
        for (int i = 0; i < launched; i++) kc_strcatf(msg, cap, " %s", k[i].s->name);
        kc_strcatf(msg, cap, ", then failed at synchronize: %s (the CUDA context is now unusable)",
                   kc_cuda_error_name(&gpu->cu, r));
    }
    for (int i = 0; i < n; i++)
        if (st[i] && !gpu->lost) gpu->cu.StreamDestroy(st[i]);
    return rc;
}

/* The device bytes the target's case of shape s holds: every buffer of
 * exact size and the pristine inputs they are copied from (no guard bands,
 * no second set, no reference: at most kc_case_memory's). */
static size_t exact_bytes(const kc_contract *c, const kc_shape *s)
{
    size_t g = 0;
    for (int a = 0; a < kc_nargs_of(c); a++) {
        const kc_arg *ar = &c->args[a];
        if (ar->kind != KC_ARG_BUFFER) continue;
        g = kc_mul_add_sat(kc_mul_add_sat(ar->count(s), kc_dtype_size(ar->dtype), 0), ar->role == KC_OUT ? 1 : 2, g);
    }
    return g;
}

/* What a round may hold on the device: what the memory plan admits the
 * :sanitize item with (kc_item_memory: its largest shape's case, one at a
 * time), at most KC_SAN_TOGETHER_BYTES. */
static size_t round_budget(const kc_contract *c)
{
    const kc_shape *sh[64];
    size_t most = 0;
    for (int i = 0, n = kc_sanitize_shapes(c, sh, 64); i < n; i++) {
        size_t h, g;
        kc_case_memory(c, sh[i], KC_REF_DEVICE, &h, &g);
        if (g > most) most = g;
    }
    return most < KC_SAN_TOGETHER_BYTES ? most : KC_SAN_TOGETHER_BYTES;
}

/* Where the next round of the target's launches ends: one shape, or with
 * `together` the shapes from `i` whose exact device bytes fit `budget`
 * (round_budget; at least one). */
static int round_end(const kc_contract *c, const kc_shape *const *shapes, int ns, int i, int together, size_t budget)
{
    size_t total = 0;
    int j = i;
    for (; j < ns && j - i < KC_SAN_TOGETHER_MAX; j++) {
        size_t g = exact_bytes(c, shapes[j]);
        if (j > i && (!together || total > budget || g > budget - total)) break;
        total = kc_mul_add_sat(g, 1, total);
    }
    return j;
}

int kc_run_exact_launches(kc_gpu *gpu, const kc_contract *c, const char *control, uint64_t seed, int edges_only,
                          char *msg, size_t cap, kc_exact_stats *st)
{
    memset(st, 0, sizeof *st);
    st->smem_bytes = c->library ? -1 : 0;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    kc_host_entry entry;
    kc_time_split time = { 0 };
    char why[1024];
    if (kc_load_function(gpu, c, control, &mod, &fn, &entry, why, sizeof why)) {
        snprintf(msg, cap, "%s", why);
        return 1;
    }
    const kc_shape *shapes[64];
    kc_dist dists[KC_MAX_DISTS + 2];
    kc_dists_of(c, dists);
    int ns = kc_sanitize_shapes(c, shapes, 64), rc = 0, launched = 0;
    if (edges_only)
        while (ns > 0 && shapes[ns - 1]->cls != KC_SHAPE_EDGE) ns--;     /* the model shape comes last */
    /* racecheck's request: its edge shapes together (gates.h); a library's
     * entry launches on the default stream and synchronizes itself. */
    const int together = edges_only && !entry;
    const size_t budget = together ? round_budget(c) : 0;
    kc_case *k = calloc(ns > 0 ? (size_t)ns : 1, sizeof *k);
    if (!k) {
        snprintf(msg, cap, "internal error: out of host memory for %d cases", ns);
        rc = 1;
    }
    for (int i = 0, j; i < ns && !rc; i = j) {
        j = round_end(c, shapes, ns, i, together, budget);
        double t0 = kc_now_s();
        int prepared = i;
        for (; prepared < j && !rc; prepared++) {
            kc_case *kk = &k[prepared];
            *kk = (kc_case){ .c = c, .s = shapes[prepared], .dist = dists[0], .mode = KC_REF_DEVICE, .time = &time,
                             .entry = entry, .exact = 1 };
            kk->seed = kc_case_seed(seed, c->name, shapes[prepared]->name, dists[0]);
            if (!c->library) {
                long smem = launch_smem(gpu, c, fn, shapes[prepared]);
                if (smem > st->smem_bytes) st->smem_bytes = smem;
            }
            if (exact_prepare(gpu, kk)) {
                snprintf(msg, cap, "%s", kk->why);
                rc = 1;
            }
        }
        if (!rc && j - i > 1) {
            rc = launch_together(gpu, fn, &k[i], j - i, msg, cap);
            if (j - i > st->together) st->together = j - i;
        } else if (!rc && kc_case_launch(gpu, fn, &k[i], 0, 1)) {
            snprintf(msg, cap, "%s", k[i].why);
            rc = 1;
        }
        for (int a = i; a < prepared; a++) kc_case_free(gpu, &k[a]);
        if (!rc) {
            launched += j - i;
            if (j - i == 1 && kc_now_s() - t0 >= st->slowest_s) {
                st->slowest_s = kc_now_s() - t0;
                st->slowest = shapes[i]->name;
            }
        }
    }
    if (!rc) {
        kc_strbuf b;
        kc_sb_init(&b, msg, cap);
        kc_sb_printf(&b, "%d launch%s of %s%s%s (dist %s):", launched, launched == 1 ? "" : "es", c->name,
                      control ? "@" : "", control ? control : "", kc_dist_name(dists[0]));
        for (int i = 0; i < ns; i++) kc_sb_printf(&b, " %s", shapes[i]->name);
        if (st->together) kc_sb_printf(&b, " (up to %d launched together, one stream each)", st->together);
    }
    free(k);
    if (mod && !gpu->lost) gpu->cu.ModuleUnload(mod);
    kc_hostmem_release();
    kc_devmem_release(gpu);
    return rc;
}
