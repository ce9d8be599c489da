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
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "clock.h"
#include "devmem.h"
#include "fatbin.h"
#include "gpu_open.h"
#include "gate_checks.h"
#include "guard.h"
#include "hostlib.h"
#include "hostmem.h"
#include "known_fault.h"
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
 * call succeeds: the planted bug made the difference. A failure of the clean
 * library's KC_HOST_RELEASE afterwards goes to released (else it is left as
 * it is), for the caller to say with the verdict. */
static int clean_fails_too(kc_gpu *gpu, const kc_contract *c, const kc_case *k, char *msg, size_t cap, char *released,
                           size_t released_cap)
{
    kc_host_entry clean;
    kc_host_release_fn release;
    char why[900];
    if (gpu->lost) return 0;    /* a sticky fault is the control's: the context is gone, nothing more runs here */
    msg[0] = 0;
    if (kc_hostlib_load(c->library, NULL, c->entry, &clean, &release, why, sizeof why)) {
        kc_strcatf(msg, cap, "%s; and the clean build cannot be compared: %s%s", k->why, why, BROKEN);
        return 1;
    }
    kc_case ck = { .c = c, .s = k->s, .dist = k->dist, .seed = k->seed, .mode = k->mode, .time = k->time,
                   .entry = clean };
    const kc_kernels library = { .entry = clean, .release = release };
    int g = run_case(gpu, &library, &ck, 1);
    const char *call = ck.why + ck.body, *d = strstr(call, ", dist ");   /* past "shape S, dist D: ": the same case */
    if (d && (d = strstr(d, ": "))) call = d + 2;
    if (g == 1)
        kc_strcatf(msg, cap, "%s; the clean build fails the same way: %s%s", k->why, call, BROKEN);
    else if (g < 0)
        kc_strcatf(msg, cap, "%s; the clean build could not be run on that case: %s%s", k->why, ck.why, BROKEN);
    kc_case_free(gpu, &ck);
    kc_release_library(gpu, c, NULL, &library, released, released_cap);   /* the clean build's handle too */
    return g != 0;
}

/* The item's library (or the clean build it was compared with) failed to
 * free what it keeps (kc_release_library, why): its verdict stands, said
 * with it, and its process is replaced as after GPU state left behind (a
 * sticky failure lost the context, and run_gates's rule for a lost one
 * has set that already). */
static void released_badly(kc_item_result *res, const char *why)
{
    kc_strcatf(res->msg, sizeof res->msg, "; %s: this process is replaced", why);
    if (!res->context_lost) res->context_lost = KC_LOST_GPU_STATE;
}

/* Cases planned for contract c with nd distributions a shape: what a
 * large shape runs (its first distribution) and every other shape's nd. */
static int planned_cases(const kc_contract *c, int nd)
{
    int planned = 0;
    for (const kc_shape *s = c->shapes; s->name; s++) planned += s->cls == KC_SHAPE_LARGE ? 1 : nd;
    return planned;
}

/* The launch variants cases run under (kc_contract.block_sizes) into out:
 * every one, or --block-size's alone; {0} for a contract without any.
 * Returns how many; 0 with why when --block-size names one the contract
 * does not list (the command line refuses such a run before anything runs,
 * kc_cli_check_block_size: this is for a caller that did not ask it). */
static int block_variants(const kc_contract *c, const kc_opts *o, unsigned *out, char *why, size_t cap)
{
    unsigned only = o ? o->block_size : 0;
    int n = 0;
    for (int i = 0; i < KC_MAX_BLOCK_SIZES && c->block_sizes[i]; i++)
        if (!only || c->block_sizes[i] == only) out[n++] = c->block_sizes[i];
    if (n) return n;
    if (only) {
        char list[120] = "";
        for (int i = 0; i < KC_MAX_BLOCK_SIZES && c->block_sizes[i]; i++)
            kc_strcatf(list, sizeof list, "%s%u", i ? ", " : "", c->block_sizes[i]);
        snprintf(why, cap, "--block-size %u is not one of contract %s's block sizes (%s)", only, c->name,
                 list[0] ? list : "it lists none: its launch function chooses");
        return 0;
    }
    out[0] = 0;
    return 1;
}

/* "128, 256" of blocks[0..n). */
static const char *block_list(const unsigned *blocks, int n)
{
    static _Thread_local char buf[120];
    buf[0] = 0;
    for (int i = 0; i < n; i++) kc_strcatf(buf, sizeof buf, "%s%u", i ? ", " : "", blocks[i]);
    return buf;
}

/* A failure of case k at gate g that is no known finding, into sums. */
static void add_unknown(kc_case_sums *sums, kc_lines *detail, int g, unsigned block, const char *line)
{
    if (!sums->unknown++) {
        snprintf(sums->first, sizeof sums->first, "%s", line);
        sums->gate = g;
        sums->block = block;
    } else
        kc_lines_add(detail, "    also: %s", line);
}

/* Case `idx` failed gate g as the known finding ki registers, and lost the
 * context (known_fault.h): that case runs alone in a fresh process, which
 * decides whether it is the finding, and cases (idx, hi) run in another.
 * Their outcome goes into sums (k's own case counted already). */
static void isolate_fault(const kc_opts *o, const kc_item *it, const kc_case *k, int g, int ki, int idx, int hi,
                          kc_case_sums *sums, kc_lines *detail)
{
    const kc_known *kn = &it->contract->known[ki];
    kc_case_sums alone, rest;
    char why[700] = "";
    if (kc_cases_elsewhere(o, it, idx, idx + 1, &alone, NULL, why, sizeof why) == 0 && (alone.reproduced >> ki & 1)) {
        sums->known++;
        sums->reproduced |= 1u << ki;
        kc_lines_add(detail, "    known: %s [%s] (it lost the CUDA context; alone in a fresh process it failed "
                     "so again)", k->why, kn->reason);
    } else {
        char line[1600] = "";
        if (why[0] && alone.cases == 0)
            kc_strcatf(line, sizeof line, "%s; it lost the CUDA context and could not be run alone to tell whether "
                     "it is the known finding [%s]: %s", k->why, kn->reason, why);
        else
            kc_strcatf(line, sizeof line, "%s; it lost the CUDA context, but alone in a fresh process it %s%s%s, so "
                     "the fault is not the known finding's [%s] (an earlier case's?)", k->why,
                     alone.failed ? "failed otherwise: " : "passed", alone.failed ? alone.first : "",
                     alone.failed && !alone.first[0] ? "as another known finding" : "", kn->reason);
        add_unknown(sums, detail, g, k->block_size, line);
    }
    if (idx + 1 >= hi) return;
    if (kc_cases_elsewhere(o, it, idx + 1, hi, &rest, detail, why, sizeof why)) {
        char line[900];
        snprintf(line, sizeof line, "the %d case%s after a known finding's fault were not run: %s", hi - idx - 1,
                 hi - idx - 1 == 1 ? "" : "s", why);
        add_unknown(sums, detail, 1, 0, line);
        return;
    }
    sums->cases += rest.cases;
    sums->failed += rest.failed;
    sums->known += rest.known;
    sums->reproduced |= rest.reproduced;
    sums->lost = rest.lost;
    if (rest.unknown) {
        if (!sums->unknown) {
            snprintf(sums->first, sizeof sums->first, "%s", rest.first);
            sums->gate = rest.gate;
            sums->block = rest.block;
        } else
            kc_lines_add(detail, "    also: %s", rest.first);
        sums->unknown += rest.unknown;
    }
}

/* Gates 1-4 over cases [lo, hi) (kernels; hi -1: every case), or until a
 * gate fails (controls). sums_out: a --cases process (known_fault.h): the
 * sums go there and no verdict is made. o: the run's settings, for a known
 * finding's fault run alone (NULL: such a fault FAILs the item). */
static void run_gates(kc_gpu *gpu, const kc_item *it, uint64_t seed, kc_ref_mode mode, const kc_opts *o, int lo,
                      int hi, kc_case_sums *sums_out, kc_item_result *res, kc_lines *detail)
{
    const kc_contract *c = it->contract;
    int control = it->kind == KC_KIND_CONTROL;
    CUmodule ref_mod = NULL;
    CUfunction ref_fn = NULL;
    kc_kernels K;
    char why[1024], released[1024] = "", clean_released[1024] = "";
    const int harness = control ? it->control->harness : 0;  /* no build of its own: the clean one */
    if (kc_load_kernels(gpu, c, control && !harness ? it->control->name : NULL, &K, why, sizeof why)) {
        res->gate = 1;
        res->cases_failed = 1;
        /* A control whose own build does not load proves nothing about the
         * gates: it must not pass for a caught bug. */
        not_checked(res, control, why, BROKEN);
        if (gpu->lost) res->context_lost = KC_LOST_CONTEXT;    /* an earlier fault, seen first at the load */
        return;
    }
    K.harness_control = harness;
    if (load_device_reference(gpu, c, mode, &ref_mod, &ref_fn, why, sizeof why)) {
        not_checked(res, control, why, UNCHECKED);   /* the contract's own error */
        kc_unload_kernels(gpu, &K);
        return;
    }
    kc_dist dists[KC_MAX_DISTS + 2];
    unsigned blocks[KC_MAX_BLOCK_SIZES];
    int nd = kc_dists_of(c, dists), ci = 0, isolated = 0, nb = block_variants(c, o, blocks, why, sizeof why);
    if (!nb) {
        not_checked(res, control, why, UNCHECKED);   /* --block-size names no variant of it */
        kc_unload_kernels(gpu, &K);
        kc_module_give(gpu, ref_mod);      /* unloaded, or a lane's kept copy free again */
        return;
    }
    if (hi < 0) hi = planned_cases(c, nd) * nb;
    kc_case_sums sums = { 0 };
    for (const kc_shape *s = c->shapes; s->name && !gpu->lost && !isolated; s++) {
        int per_shape = s->cls == KC_SHAPE_LARGE ? 1 : nd;
        for (int d = 0; d < per_shape * nb && !gpu->lost && !isolated; d++) {
            int idx = ci++;
            if (idx < lo || idx >= hi) continue;
            K.block_size = blocks[d % nb];      /* each distribution's cases under every block size */
            kc_case k = { .c = c, .s = s, .dist = dists[d / nb], .mode = mode, .ref_fn = ref_fn, .time = &res->time,
                          .entry = K.entry, .block_size = blocks[d % nb] };
            k.seed = kc_case_seed(seed, c->name, s->name, dists[d / nb]);
            int g = run_case(gpu, &K, &k, 4);
            kc_case_free(gpu, &k);
            res->cases++;
            if (!g) continue;
            res->cases_failed++;
            if (g < 0) {
                not_checked(res, control, k.why, UNCHECKED);   /* the harness could not run the case */
                goto done;
            }
            if (control && g == 1 && K.entry && clean_fails_too(gpu, c, &k, res->msg, sizeof res->msg, clean_released,
                                                             sizeof clean_released)) {
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
            const kc_known *kn = match_known(c, g, s->name, dists[d / nb], &ki);
            if (kn && gpu->lost && o && !it->record && !(lo == idx && hi == idx + 1)) {
                /* the registered finding faulted: it and the cases after it run elsewhere */
                isolate_fault(o, it, &k, g, ki, idx, hi, &sums, detail);
                isolated = 1;
            } else if (kn) {
                sums.reproduced |= 1u << ki;
                sums.known++;
                kc_lines_add(detail, "    known: %s [%s]", k.why, kn->reason);
            } else
                add_unknown(&sums, detail, g, k.block_size, k.why);
        }
    }
    res->cases += sums.cases;          /* those run elsewhere (isolate_fault) */
    res->cases_failed += sums.failed;
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
    if (sums_out) {     /* a --cases process: its sums, no verdict */
        sums.cases = res->cases;
        sums.failed = res->cases_failed;
        sums.lost = gpu->lost;
        *sums_out = sums;
        goto done;
    }
    int all_run = isolated || !gpu->lost;
    /* A record item checks one shape: it cannot show a known finding stale. */
    for (int i = 0; i < KC_MAX_KNOWN && c->known[i].reason && all_run && !it->record; i++)
        if (!(sums.reproduced >> i & 1) && c->known[i].gate != KC_GATE_SANITIZE) {   /* gate 5's: sanitize.c's */
            res->stale++;
            kc_lines_add(detail,
                   "    stale known finding: gate %d on shapes %s%s%s (%s) no longer fails: remove it from the contract",
                   c->known[i].gate, c->known[i].shape ? c->known[i].shape : "*",
                   c->known[i].dist ? ", distributions " : "", c->known[i].dist ? c->known[i].dist : "", c->known[i].reason);
        }
    if (sums.unknown) {
        res->state = KC_FAIL;
        res->gate = sums.gate;
        res->block_size = sums.block;
        snprintf(res->msg, sizeof res->msg, "%s; %d of %d cases failed", sums.first, res->cases_failed, res->cases);
    } else if (res->stale) {
        res->state = KC_FAIL;
        snprintf(res->msg, sizeof res->msg, "%d stale known finding%s (listed below); gates 1-4 pass on %d cases",
                 res->stale, res->stale == 1 ? "" : "s", res->cases);
    } else if (sums.known) {
        res->state = KC_KNOWN;
        snprintf(res->msg, sizeof res->msg, "%d of %d cases fail as registered known findings", sums.known, res->cases);
    } else {
        res->state = KC_PASS;
        int shapes = 0;
        for (const kc_shape *s = c->shapes; s->name; s++) shapes++;
        snprintf(res->msg, sizeof res->msg, "gates 1-4 on %d cases (%d shape%s x up to %d distributions)", res->cases,
                 shapes, shapes == 1 ? "" : "s", nd);
        if (blocks[0])
            kc_strcatf(res->msg, sizeof res->msg, " under block size%s %s", nb == 1 ? "" : "s", block_list(blocks, nb));
    }
    if (isolated && planned_cases(c, nd) * nb > res->cases)    /* a later fault, no known finding, ended the rest */
        kc_strcatf(res->msg, sizeof res->msg, "; %d more case%s not run (the CUDA context is unusable)",
                   planned_cases(c, nd) * nb - res->cases, planned_cases(c, nd) * nb - res->cases == 1 ? "" : "s");
done:
    /* before the lost context's rule below: a sticky error in the release loses it too */
    kc_release_library(gpu, c, control && !harness ? it->control->name : NULL, &K, released, sizeof released);
    if (gpu->lost) {
        res->context_lost = 1;
        if (!control && !sums_out && !isolated && res->state != KC_FAIL) {
            res->state = KC_FAIL;
            res->gate = sums.gate;
            res->block_size = sums.block;
            snprintf(res->msg, sizeof res->msg, "%s", sums.first[0] ? sums.first : "the CUDA context was lost");
        }
        if (!control && !sums_out && !isolated) {     /* say what a lost context left unchecked */
            int planned = planned_cases(c, nd) * nb;
            if (planned > res->cases)
                kc_strcatf(res->msg, sizeof res->msg, "; %d more case%s not run (the CUDA context is unusable)",
                       planned - res->cases, planned - res->cases == 1 ? "" : "s");
        }
    }
    if (clean_released[0]) released_badly(res, clean_released);
    if (released[0]) released_badly(res, released);
    kc_unload_kernels(gpu, &K);
    kc_module_give(gpu, ref_mod);
}

void kc_run_gpu_item(kc_gpu *gpu, const kc_item *it, uint64_t seed, kc_ref_mode mode, const kc_opts *o,
                     kc_item_result *res, kc_lines *detail)
{
    memset(res, 0, sizeof *res);
    if (it->kind == KC_KIND_LIMIT) kc_run_limits(gpu, it, res);
    else run_gates(gpu, it, seed, mode, o, 0, -1, NULL, res, detail);
    kc_lines_end(detail, "    ");
    kc_hostmem_release();   /* kept buffers serve one item's cases only (the memory plan is per item) */
    kc_devmem_release(gpu);
}

#define KC_DETAIL_CAP 8192       /* as item_run.c's: the detail lines a --cases process sends back */

int kc_cases_target(const kc_opts *o, const kc_item *items, int n)
{
    const kc_item *it = NULL;
    for (int i = 0; i < n && o->npatterns == 1; i++)
        if (strcmp(items[i].name, o->patterns[0]) == 0 && items[i].kind == KC_KIND_KERNEL && !items[i].record)
            it = &items[i];
    if (!it) {
        printf("--cases: internal option of a known finding's fault, one kernel item by its name (got %d "
               "pattern%s, first '%s')\n", o->npatterns, o->npatterns == 1 ? "" : "s",
               o->npatterns ? o->patterns[0] : "");
        return 2;
    }
    kc_gpu gpu;
    int rc = kc_gpu_open(&gpu, o->device);
    if (rc) {
        printf("--cases: no GPU: %s\n", gpu.why);
        kc_gpu_close(&gpu);
        return rc < 0 ? 2 : 3;
    }
    kc_item_result res;
    kc_case_sums sums = { 0 };
    char *buf = malloc(KC_DETAIL_CAP);
    kc_lines detail;
    kc_lines_init(&detail, buf, buf ? KC_DETAIL_CAP : 0);
    memset(&res, 0, sizeof res);
    run_gates(&gpu, it, o->seed, o->reference, o, o->cases_lo, o->cases_hi, &sums, &res, &detail);
    if (res.state == KC_FAIL && !sums.cases) {      /* not checked: the build or the device reference */
        sums.unknown = sums.failed = 1;
        sums.gate = res.gate;
        sums.first[0] = 0;
        kc_strcatf(sums.first, sizeof sums.first, "%s", res.msg);
    }
    kc_lines_end(&detail, "    ");
    kc_cases_print(&sums, buf);
    free(buf);
    kc_hostmem_release();
    kc_devmem_release(&gpu);
    kc_gpu_close(&gpu);
    return 0;
}
