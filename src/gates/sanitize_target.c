/* sanitize_target.c — the sanitizer's target (kc_run_exact_launches,
 * sanitize_target.h): the shapes the sanitizer gate runs, each case's buffers of
 * exact size, and their launches, one at a time or, for racecheck's edge
 * shapes, together on a stream each within a memory budget; no checks; and
 * the process that serves them under the sanitizer (kc_sanitize_target). */
#include "sanitize_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "clock.h"
#include "devmem.h"
#include "dtype.h"
#include "gpu_open.h"
#include "hostmem.h"
#include "launch.h"
#include "sanitize_session.h"
#include "seed.h"
#include "strbuf.h"

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

/* The most shared memory one launch of shape s uses, static + dynamic
 * bytes, over K's steps, into *smem: 0; or 1 with the failing driver call in
 * msg (a sticky error marks the session lost). */
static int launch_smem(kc_gpu *gpu, const kc_kernels *K, const kc_shape *s, long *smem, char *msg, size_t cap)
{
    *smem = 0;
    for (int i = 0; i < K->n; i++) {
        kc_launch l;
        int statics = 0;
        kc_step_launch(K, i, s, &gpu->dev, &l);
        CUresult r = gpu->cu.FuncGetAttribute(&statics, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, K->fn[i]);
        if (r != CUDA_SUCCESS) {
            snprintf(msg, cap, "internal error: cuFuncGetAttribute(SHARED_SIZE_BYTES) of %s failed: %s%s",
                     K->step[i].symbol, kc_cuda_error_name(&gpu->cu, r),
                     kc_gpu_lost_if_sticky(gpu, r) ? " (the CUDA context is now unusable)" : "");
            return 1;
        }
        if ((long)statics + (long)l.smem > *smem) *smem = (long)statics + (long)l.smem;
    }
    return 0;
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

/* Launches cases k[0..n) together, each on its own non-blocking stream (case
 * i's kernels K[i]), and synchronizes once. 0, or 1 with the failure in msg: a launch that did not
 * start names its shape; an error at the synchronize, or a sticky one met at
 * a later launch's calls, names the shapes launched before it, never the one
 * whose calls met it (which one faulted is for the sanitizer command to say:
 * it runs them one at a time).
 * A sticky error at the synchronize always marks the context lost, even
 * after a launch refused for its own reason. */
static int launch_together(kc_gpu *gpu, const kc_kernels *const *K, kc_case *k, int n, char *msg, size_t cap)
{
    CUstream st[KC_SAN_BATCH_CASES] = { 0 };
    /* The inputs were made and copied on the default stream, which a
     * non-blocking stream does not wait for. */
    CUresult r = gpu->cu.CtxSynchronize();
    int rc = 0;
    for (int i = 0; i < n && r == CUDA_SUCCESS; i++)
        if ((r = gpu->cu.StreamCreate(&st[i], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) st[i] = NULL;
    if (r != CUDA_SUCCESS) {
        kc_gpu_lost_if_sticky(gpu, r);
        snprintf(msg, cap, "internal error: before launching %d edge shapes together: %s", n, kc_cuda_error_name(&gpu->cu, r));
        rc = 1;
    }
    int launched = 0;           /* k[0..launched) are running */
    for (; launched < n && !rc; launched++)
        if (kc_case_launch_on(gpu, K[launched], &k[launched], 0, 1, st[launched], 0)) {
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
    const int sticky = kc_gpu_lost_if_sticky(gpu, r);
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

/* One round of prepared cases k[0..n): together (launch_together) when
 * there are several, else the one alone, synchronized. 0, or 1 with the
 * failure in msg. */
static int round_launch(kc_gpu *gpu, const kc_kernels *const *K, kc_case *k, int n, char *msg, size_t cap)
{
    if (n > 1) return launch_together(gpu, K, k, n, msg, cap);
    if (!kc_case_launch(gpu, K[0], &k[0], 0, 1)) return 0;
    snprintf(msg, cap, "%s", k[0].why);
    return 1;
}

/* The device bytes the target's case of shape s holds: every buffer of
 * exact size and the pristine inputs they are copied from (no guard bands,
 * no second set, no reference: at most kc_case_memory's). */
static size_t exact_bytes(const kc_contract *c, const kc_shape *s)
{
    size_t g = 0;
    for (int a = 0; a < kc_nargs_of(c); a++) {
        const kc_arg *ar = &c->args[a];
        if (!kc_arg_owns_buffer(ar)) continue;
        g = kc_mul_add_sat(kc_mul_add_sat(ar->count(s), kc_dtype_size(ar->dtype), ar->offset * kc_dtype_size(ar->dtype)),
                           ar->role == KC_OUT ? 1 : 2, g);
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

/* Where the next round of the target's launches ends: one case, or with
 * `together` the cases from `i` (k[j]'s contract and shape set) whose exact
 * device bytes fit `budget` (at least one), at most `most`. */
static int round_end(const kc_case *k, int nk, int i, int together, size_t budget, int most)
{
    size_t total = 0;
    int j = i;
    for (; j < nk && j - i < most; j++) {
        size_t g = exact_bytes(k[j].c, k[j].s);
        if (j > i && (!together || total > budget || g > budget - total)) break;
        total = kc_mul_add_sat(g, 1, total);
    }
    return j;
}

/* The item's kernels (control: its build) loaded into K and their hang
 * watchdog raised (st->watchdog). 0, or 1 with the failure in msg (nothing
 * stays loaded). */
static int target_load(kc_gpu *gpu, const kc_contract *c, const char *control, kc_kernels *K, kc_exact_stats *st,
                       char *msg, size_t cap)
{
    char why[1024];
    if (kc_load_kernels(gpu, c, control, K, why, sizeof why)) {
        snprintf(msg, cap, "%s", why);
        return 1;
    }
    int wd = kc_kernels_set_watchdog(gpu, K, c, control, KC_WATCHDOG_UNDER_TOOL_NS, &st->watchdog_was_ns, why,
                                     sizeof why);
    if (wd < 0) {
        snprintf(msg, cap, "the kernel's hang watchdog: %s", why);
        kc_unload_kernels(gpu, K);
        return 1;
    }
    st->watchdog = wd;
    return 0;
}

/* racecheck's shapes of c, kept in shapes[0..ns) in order: the edge shapes
 * but those it need not run (kc_shape.no_racecheck; counted in *left).
 * Returns how many are kept. */
static int race_shapes(const kc_shape **shapes, int ns, int *left)
{
    int m = 0;
    *left = 0;
    for (int i = 0; i < ns; i++) {
        if (shapes[i]->cls != KC_SHAPE_EDGE) continue;
        if (shapes[i]->no_racecheck) ++*left;
        else shapes[m++] = shapes[i];
    }
    return m;
}

/* Case k of shape s for the target (its first distribution's inputs, buffers
 * of exact size), prepared: 0, or 1 with the failure in msg. The most shared
 * memory of its launches raises st->smem_bytes (not for a library kernel).
 * A case that failed holds nothing. */
static int target_case(kc_gpu *gpu, const kc_kernels *K, const kc_contract *c, const kc_shape *s, uint64_t seed,
                       kc_time_split *time, kc_case *k, kc_exact_stats *st, char *msg, size_t cap)
{
    kc_dist dists[KC_MAX_DISTS + 2];
    kc_dists_of(c, dists);
    *k = (kc_case){ .c = c, .s = s, .dist = dists[0], .mode = KC_REF_DEVICE, .time = time, .entry = K->entry,
                    .exact = 1 };
    k->seed = kc_case_seed(seed, c->name, s->name, dists[0]);
    long smem = -1;         /* a library kernel's: unknown */
    if (!c->library && launch_smem(gpu, K, s, &smem, msg, cap)) return 1;
    if (smem > st->smem_bytes) st->smem_bytes = smem;
    if (exact_prepare(gpu, k)) {
        snprintf(msg, cap, "%s", k->why);
        kc_case_free(gpu, k);   /* its buffers, as far as they got */
        return 1;
    }
    return 0;
}

int kc_run_exact_launches(kc_gpu *gpu, const kc_contract *c, const char *control, uint64_t seed, int edges_only,
                          char *msg, size_t cap, kc_exact_stats *st)
{
    memset(st, 0, sizeof *st);
    st->smem_bytes = c->library ? -1 : 0;
    kc_kernels K;
    kc_time_split time = { 0 };
    char why[1024];
    if (target_load(gpu, c, control, &K, st, msg, cap)) return 1;
    const kc_shape *shapes[64];
    kc_dist dists[KC_MAX_DISTS + 2];
    kc_dists_of(c, dists);
    int ns = kc_sanitize_shapes(c, shapes, 64), rc = 0, launched = 0, left = 0;
    if (edges_only) ns = race_shapes(shapes, ns, &left);   /* racecheck's: the model shape comes last */
    /* racecheck's request: its edge shapes together (sanitize_target.h); a library's
     * entry launches on the default stream and synchronizes itself. */
    const int together = edges_only && !K.entry;
    const size_t budget = together ? round_budget(c) : 0;
    kc_case *k = calloc(ns > 0 ? (size_t)ns : 1, sizeof *k);
    const kc_kernels **kof = calloc(ns > 0 ? (size_t)ns : 1, sizeof *kof);
    if (!k || !kof) {
        snprintf(msg, cap, "internal error: out of host memory for %d cases", ns);
        rc = 1;
    }
    for (int i = 0; i < ns && !rc; i++) {
        k[i] = (kc_case){ .c = c, .s = shapes[i] };     /* what round_end reads */
        kof[i] = &K;
    }
    for (int i = 0, j; i < ns && !rc; i = j) {
        j = round_end(k, ns, i, together, budget, KC_SAN_TOGETHER_MAX);
        double t0 = kc_now_s();
        int prepared = i;
        for (; prepared < j && !rc; prepared++)
            if ((rc = target_case(gpu, &K, c, shapes[prepared], seed, &time, &k[prepared], st, msg, cap))) break;
        if (!rc) rc = round_launch(gpu, &kof[i], &k[i], j - i, msg, cap);
        if (!rc && j - i > 1 && j - i > st->together) st->together = j - i;
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
        if (left) kc_sb_printf(&b, "; %d edge shape%s left to the other tools (no_racecheck)", left, left == 1 ? "" : "s");
    }
    free(k);
    free(kof);
    if (kc_release_library(gpu, c, control, &K, why, sizeof why)) {   /* what the library keeps is unknown now */
        kc_strcatf(msg, cap, "; but %s: the session ends", why);
        st->released_badly = 1;
        rc = 1;
    }
    kc_unload_kernels(gpu, &K);
    kc_hostmem_release();
    kc_devmem_release(gpu);
    return rc;
}

/* ---- a batch: several items' racecheck launches at once ----------------- */

int kc_run_batch_launches(kc_gpu *gpu, const kc_contract *const *cs, int n, uint64_t seed, char *const *msg, size_t cap,
                          kc_exact_stats *st)
{
    kc_kernels *K = calloc((size_t)n, sizeof *K);
    int *loaded = calloc((size_t)n, sizeof *loaded), *left = calloc((size_t)n, sizeof *left), *mine = NULL;
    int nc = 0, rc = 0, failed = -1;           /* failed: the item whose line says why; n: the batch's launches */
    kc_case *k = NULL;
    const kc_kernels **kof = NULL;
    kc_time_split time = { 0 };
    size_t budget = 0;
    char why[2048] = "";
    for (int i = 0; i < n; i++) {
        memset(&st[i], 0, sizeof st[i]);
        st[i].smem_bytes = cs[i]->library ? -1 : 0;
        msg[i][0] = 0;
    }
    const kc_shape *shapes[64];
    for (int i = 0; i < n && left; i++)     /* every case first: how many */
        if (!cs[i]->library) nc += race_shapes(shapes, kc_sanitize_shapes(cs[i], shapes, 64), &left[i]);
    k = calloc(nc > 0 ? (size_t)nc : 1, sizeof *k);
    kof = calloc(nc > 0 ? (size_t)nc : 1, sizeof *kof);
    mine = calloc(nc > 0 ? (size_t)nc : 1, sizeof *mine);
    if (!K || !loaded || !left || !k || !kof || !mine) {
        snprintf(why, sizeof why, "internal error: out of host memory for a batch of %d items", n);
        rc = 1, failed = n;
    }
    nc = 0;
    for (int i = 0; i < n && !rc; i++) {    /* the kernels of those launched here, and their cases */
        if (cs[i]->library) continue;
        if (target_load(gpu, cs[i], NULL, &K[i], &st[i], msg[i], cap)) {
            rc = 1, failed = i;
            break;
        }
        loaded[i] = 1;
        budget = kc_mul_add_sat(round_budget(cs[i]), 1, budget);
        int m = race_shapes(shapes, kc_sanitize_shapes(cs[i], shapes, 64), &left[i]);
        for (int a = 0; a < m; a++, nc++) {
            k[nc] = (kc_case){ .c = cs[i], .s = shapes[a] };
            kof[nc] = &K[i];
            mine[nc] = i;
        }
    }
    for (int i = 0, j; i < nc && !rc; i = j) {
        j = round_end(k, nc, i, 1, budget, KC_SAN_BATCH_CASES);
        int prepared = i;
        for (; prepared < j && !rc; prepared++)
            if ((rc = target_case(gpu, kof[prepared], k[prepared].c, k[prepared].s, seed, &time, &k[prepared],
                                  &st[mine[prepared]], msg[mine[prepared]], cap))) {
                failed = mine[prepared];
                break;
            }
        if (!rc) rc = round_launch(gpu, &kof[i], &k[i], j - i, why, sizeof why);
        if (rc && failed < 0) failed = n;
        for (int a = i; a < prepared; a++) kc_case_free(gpu, &k[a]);
        for (int a = i; a < j && !rc && j - i > 1; a++)     /* the most launched together with its cases */
            if (j - i > st[mine[a]].together) st[mine[a]].together = j - i;
    }
    for (int i = 0; i < n && loaded; i++)
        if (loaded[i]) kc_unload_kernels(gpu, &K[i]);
    kc_hostmem_release();
    kc_devmem_release(gpu);
    /* a library's entry launches on the default stream and synchronizes
     * itself: its items run one at a time, after the others */
    for (int i = 0; i < n && !rc && !gpu->lost; i++)
        if (cs[i]->library && kc_run_exact_launches(gpu, cs[i], NULL, seed, 1, msg[i], cap, &st[i])) rc = 1, failed = i;
    for (int i = 0; i < n; i++) {
        if (rc && i != failed) {
            snprintf(msg[i], cap, "not decided: the batch of %d items failed %s%s%s", n,
                     failed == n ? "at its launches together: " : "at ", failed == n ? why : cs[failed]->name,
                     failed == n ? "" : " (its line says why)");
            continue;
        }
        if (rc) continue;                   /* the failing item's own line */
        int m = race_shapes(shapes, kc_sanitize_shapes(cs[i], shapes, 64), &left[i]);     /* rc 0: left exists */
        if (cs[i]->library) {               /* its line from kc_run_exact_launches */
            kc_strcatf(msg[i], cap, " (in a batch of %d items, one at a time)", n);
            continue;
        }
        kc_dist dists[KC_MAX_DISTS + 2];
        kc_dists_of(cs[i], dists);
        kc_strbuf b;
        kc_sb_init(&b, msg[i], cap);
        kc_sb_printf(&b, "%d launch%s of %s (dist %s):", m, m == 1 ? "" : "es", cs[i]->name, kc_dist_name(dists[0]));
        for (int a = 0; a < m; a++) kc_sb_printf(&b, " %s", shapes[a]->name);
        kc_sb_printf(&b, " (in a batch of %d items", n);
        if (st[i].together) kc_sb_printf(&b, ", up to %d launched together, one stream each", st[i].together);
        kc_sb_printf(&b, ")");
        if (left[i]) kc_sb_printf(&b, "; %d edge shape%s left to the other tools (no_racecheck)", left[i],
                                  left[i] == 1 ? "" : "s");
    }
    free(K), free(loaded), free(left), free(k), free(kof), free(mine);
    return rc;
}

/* ---- the session's side (--sanitize-target) ------------------------------ */

/* One item's lines: what the sanitizer gate plans its tools by, then its
 * ok or FAIL line. */
static void target_lines(const kc_exact_stats *st, int rc, const char *msg)
{
    printf(KC_SAN_TARGET_SMEM "%ld\n", st->smem_bytes);
    if (st->slowest) printf(KC_SAN_TARGET_SLOWEST "%s %.3f\n", st->slowest, st->slowest_s);
    if (st->watchdog)
        printf(KC_SAN_TARGET_WATCHDOG KC_WATCHDOG_SYMBOL " %.0f s under the tool (the module's %.3f s)\n",
               KC_WATCHDOG_UNDER_TOOL_NS / 1e9, st->watchdog_was_ns / 1e9);
    printf("%s%s\n", rc ? KC_SAN_TARGET_FAIL : KC_SAN_TARGET_OK, msg);
}

/* Runs one item's exact launches (edge shapes only when edges_only) and
 * prints its lines. 0 ran, 1 a launch failed, 2 its library's
 * KC_HOST_RELEASE failed (the session serves nothing more). */
static int target_item(kc_gpu *gpu, const kc_item *it, uint64_t seed, int edges_only)
{
    char msg[2048];
    kc_exact_stats st;
    int rc = kc_run_exact_launches(gpu, it->contract, it->kind == KC_KIND_CONTROL ? it->control->name : NULL, seed,
                                   edges_only, msg, sizeof msg, &st);
    target_lines(&st, rc, msg);
    return st.released_badly ? 2 : rc ? 1 : 0;
}

static const kc_item *target_find(const kc_item *items, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(items[i].name, name) == 0)
            return items[i].kind == KC_KIND_SANITIZE || items[i].kind == KC_KIND_CONTROL ? &items[i] : NULL;
    return NULL;
}

/* A batch request (sanitize_target.h): "<item> edge" words separated by
 * tabs in `line`, each a :sanitize item. Every item's begin line, its lines
 * and its end line, in the request's order; the launches run after the first
 * item's begin line, so whatever the tool reports of them falls inside the
 * batch's window. 0 ran, 1 failed, 2 the session serves nothing more. */
static int target_batch(kc_gpu *gpu, const kc_opts *o, const kc_item *items, int n, char *line)
{
    char name[KC_SAN_BATCH_ITEMS][400], bad[600] = "";
    const kc_contract *cs[KC_SAN_BATCH_ITEMS];
    int nb = 0, more = 0;
    for (char *save = NULL, *tok = strtok_r(line, "\t\n", &save); tok; tok = strtok_r(NULL, "\t\n", &save)) {
        char scope[16] = "";
        if (nb == KC_SAN_BATCH_ITEMS) {
            more++;
            continue;
        }
        if (sscanf(tok, "%399s %15s", name[nb], scope) < 1) continue;
        const kc_item *it = target_find(items, n, name[nb]);
        if (!bad[0] && (!it || it->kind != KC_KIND_SANITIZE))
            snprintf(bad, sizeof bad, "bad batch: '%s' is no :sanitize item of this binary (a batch takes "
                     ":sanitize items only, never a control)", name[nb]);
        else if (!bad[0] && strcmp(scope, "edge"))
            snprintf(bad, sizeof bad, "bad batch: '%s %s': expected 'edge' after each item (racecheck's request)",
                     name[nb], scope);
        cs[nb] = it ? it->contract : NULL;
        nb++;
    }
    if (more && !bad[0])
        snprintf(bad, sizeof bad, "bad batch: %d items, at most %d a batch", nb + more, KC_SAN_BATCH_ITEMS);
    if (bad[0] || nb == 0) {
        for (int i = 0; i < nb; i++)
            printf(KC_SAN_TARGET_BEGIN "%s\n" KC_SAN_TARGET_FAIL "%s\n" KC_SAN_TARGET_END "%s\n", name[i], bad,
                   name[i]);
        return 1;
    }
    printf(KC_SAN_TARGET_BEGIN "%s\n", name[0]);
    fflush(stdout);
    static char buf[KC_SAN_BATCH_ITEMS][2048];
    char *msg[KC_SAN_BATCH_ITEMS];
    kc_exact_stats st[KC_SAN_BATCH_ITEMS];
    for (int i = 0; i < nb; i++) msg[i] = buf[i];
    int rc = kc_run_batch_launches(gpu, cs, nb, o->seed, msg, sizeof buf[0], st), released_badly = 0;
    for (int i = 0; i < nb; i++) {
        if (i) printf(KC_SAN_TARGET_BEGIN "%s\n", name[i]);
        target_lines(&st[i], rc, msg[i]);
        printf(KC_SAN_TARGET_END "%s\n", name[i]);
        released_badly |= st[i].released_badly;
    }
    return released_badly ? 2 : rc ? 1 : 0;
}

/* The session's side: "<item> all|edge" a line on stdin, each answered
 * between its begin and end lines, or a batch (target_batch); ends at end of input, or after an item
 * that left the context unusable or its library's state unknown. */
static int target_serve(kc_gpu *gpu, const kc_opts *o, const kc_item *items, int n)
{
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, ended = 0;
    while (!ended && getline(&line, &cap, stdin) > 0) {
        char name[400] = "", scope[16] = "all";
        if (strchr(line, '\t')) {
            int r = target_batch(gpu, o, items, n, line);
            rc |= r != 0;
            ended = r == 2;
            fflush(stdout);
            if (gpu->lost) break;
            continue;
        }
        if (sscanf(line, "%399s %15s", name, scope) < 1) continue;
        printf(KC_SAN_TARGET_BEGIN "%s\n", name);
        const kc_item *it = target_find(items, n, name);
        if (!it)
            printf(KC_SAN_TARGET_FAIL "no :sanitize item or control named '%s' in this binary\n", name);
        else if (strcmp(scope, "all") && strcmp(scope, "edge"))
            printf(KC_SAN_TARGET_FAIL "bad request '%s %s': expected 'all' or 'edge' after the item\n", name, scope);
        else {
            int r = target_item(gpu, it, o->seed, strcmp(scope, "edge") == 0);
            rc |= r != 0;
            ended = r == 2;
        }
        printf(KC_SAN_TARGET_END "%s\n", name);
        fflush(stdout);
        if (gpu->lost) break;
    }
    free(line);
    return rc;
}

int kc_sanitize_target(const kc_opts *o, const kc_item *items, int n)
{
    const kc_item *it = o->npatterns == 1 ? target_find(items, n, o->patterns[0]) : NULL;
    if (o->npatterns > 1 || (o->npatterns == 1 && !it)) {
        printf(KC_SAN_TARGET_FAIL "--sanitize-target takes one item name, a <contract>:sanitize item or a control, "
               "or none (then item requests on stdin) (got %d pattern%s, first '%s')\n", o->npatterns,
               o->npatterns == 1 ? "" : "s", o->npatterns ? o->patterns[0] : "");
        return 2;
    }
    kc_gpu gpu;
    int rc = kc_gpu_open(&gpu, o->device);
    if (rc) {
        printf(KC_SAN_TARGET_FAIL "no GPU: %s\n", gpu.why);
        kc_gpu_close(&gpu);
        return rc < 0 ? 2 : 3;
    }
    rc = it ? target_item(&gpu, it, o->seed, 0) : target_serve(&gpu, o, items, n);
    fflush(stdout);
    kc_gpu_close(&gpu);
    return rc;
}
