/* plan.c — owns the per-process memory plan (the largest selected case, from
 * case.c's kc_case_memory, plus the measured overheads in plan.h) and the
 * refusals of a --jobs run: mixed GPUs, host memory against MemAvailable, GPU
 * memory against each device's free memory, integrated GPUs. Everything but
 * kc_read_mem_available is pure. */
#include "plan.h"
#include "errmsg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "inputs.h"
#include "item_run.h"
#include "size_sat.h"

void kc_bytes_str(size_t b, char *buf, size_t cap)
{
    if (b >= ((size_t)1 << 30)) snprintf(buf, cap, "%.2f GiB", (double)b / (1 << 30));
    else if (b >= ((size_t)1 << 20)) snprintf(buf, cap, "%.0f MiB", (double)b / (1 << 20));
    else if (b >= 1024) snprintf(buf, cap, "%.0f KiB", (double)b / 1024);
    else snprintf(buf, cap, "%zu bytes", b);
}

/* ---- the plan ---- */

static int uses_gpu(const kc_item *it) { return it->kind != KC_KIND_SUITE || it->suite->needs_gpu; }

/* Folds one contract's shapes into p's largest cases. */
static void fold_contract(const kc_contract *c, kc_ref_mode mode, kc_plan *p)
{
    for (const kc_shape *s = c->shapes; s && s->name; s++) {
        size_t h = 0, g = 0;
        kc_case_memory(c, s, mode, &h, &g);
        if (h > p->host_case) {
            p->host_case = h;
            snprintf(p->host_what, sizeof p->host_what, "%s shape %s", c->name, s->name);
        }
        if (g > p->gpu_case) {
            p->gpu_case = g;
            snprintf(p->gpu_what, sizeof p->gpu_what, "%s shape %s", c->name, s->name);
        }
    }
}

void kc_plan_compute(const kc_item *items, const int *sel, int ns, int with_gpu, kc_ref_mode mode, int inflight,
                     kc_plan *p)
{
    memset(p, 0, sizeof *p);
    int any_gpu = 0, any_sanitizer = 0;
    for (int i = 0; i < ns; i++) {
        const kc_item *it = &items[sel ? sel[i] : i];
        if (!uses_gpu(it)) continue;
        any_gpu = 1;
        any_sanitizer |= kc_item_runs_sanitizer(it);
        if (with_gpu && it->contract) fold_contract(it->contract, mode, p);   /* suites: no known cases */
    }
    p->host = KC_PLAN_HOST_OVERHEAD;
    p->gpu = 0;
    if (with_gpu && any_gpu) {
        p->sanitizer = any_sanitizer;
        p->sanitizer_host = any_sanitizer ? kc_plan_sanitizer_host(inflight) : 0;
        p->host = kc_add_sat(kc_add_sat(p->host, p->host_case), p->sanitizer_host);
        p->gpu_over = kc_plan_gpu_per_worker(inflight);
        p->gpu = kc_add_sat(p->gpu_over, p->gpu_case);
    } else {
        p->host_case = p->gpu_case = 0;
        p->host_what[0] = p->gpu_what[0] = 0;
    }
}

void kc_plan_set_sanitizer(kc_plan *p, size_t host)
{
    if (!p->sanitizer) return;      /* nothing here runs the sanitizer */
    p->host = kc_add_sat(p->host - p->sanitizer_host, host);
    p->sanitizer_host = host;
}

/* MiB from variable `name`'s value env (unset: *bytes stays dflt). */
static int mib_env(const char *name, const char *what, const char *env, size_t dflt, size_t *bytes, char *err,
                   size_t errcap)
{
    *bytes = dflt;
    if (!env || !*env) return 0;
    char *end;
    errno = 0;
    unsigned long long mib = strtoull(env, &end, 10);
    if (*env < '0' || *env > '9' || *end || errno || mib > KC_PLAN_SANITIZER_HOST_MIB_MAX)
        return kc_errf(err, errcap, "%s = '%s': expected a whole number of MiB from 0 to %llu (the %s one worker's "
                       "compute-sanitizer sessions are planned at; 0: not counted)",
                       name, env, KC_PLAN_SANITIZER_HOST_MIB_MAX, what);
    *bytes = (size_t)mib << 20;
    return 0;
}

int kc_plan_sanitizer_host_env(const char *env, int inflight, size_t *bytes, char *err, size_t errcap)
{
    return mib_env("KC_SANITIZER_HOST_MIB", "host memory", env, kc_plan_sanitizer_host(inflight), bytes, err, errcap);
}

int kc_plan_sanitizer_gpu_env(const char *env, size_t *bytes, char *err, size_t errcap)
{
    return mib_env("KC_SANITIZER_GPU_MIB", "GPU memory", env, KC_PLAN_SANITIZER_GPU, bytes, err, errcap);
}

/* b in whole MiB, rounded up: a plan over-counts, never under. */
static size_t mib_up(size_t b) { return b / ((size_t)1 << 20) + (b % ((size_t)1 << 20) != 0); }

void kc_plan_describe(const kc_plan *p, char *buf, size_t cap)
{
    /* One figure per quantity, all in whole MiB rounded up: the overheads are
     * whole MiB, so each total is exactly the sum of its parts as printed
     * (a byte count beside a rounded figure read as a disagreement). */
    if (p->gpu == 0)
        snprintf(buf, cap, "host %zu MiB (overhead only, no GPU item will run), GPU 0 MiB", mib_up(p->host));
    else {
        char san[80] = "";
        if (p->sanitizer_host)
            snprintf(san, sizeof san, " + %zu MiB for compute-sanitizer sessions", mib_up(p->sanitizer_host));
        snprintf(buf, cap, "host %zu MiB (%zu MiB overhead + %zu MiB for %s%s), GPU %zu MiB (%zu MiB overhead + %zu MiB for %s)",
                 mib_up(p->host), mib_up(KC_PLAN_HOST_OVERHEAD), mib_up(p->host_case),
                 p->host_what[0] ? p->host_what : "no contract", san, mib_up(p->gpu), mib_up(p->gpu_over),
                 mib_up(p->gpu_case), p->gpu_what[0] ? p->gpu_what : "no contract");
    }
}

void kc_plan_help(FILE *out, const kc_item *items, int n)
{
    kc_plan p;
    char line[1024];
    kc_plan_compute(items, NULL, n, 1, KC_REF_DEVICE, 1, &p);
    kc_plan_describe(&p, line, sizeof line);
    fprintf(out,
            "\nmemory plan per process in MiB (rounded up), over every registered item (a run plans over its selection):\n"
            "  %s\n"
            "  overheads: host %zu MiB, GPU %zu MiB (the context, measured on an H200, src/run/plan.h) + %zu MiB\n"
            "  of generated inputs kept for later items (src/cuda/inputs.h).\n"
            "  --jobs N --schedule static is refused when N x host > MemAvailable, when the children on\n"
            "  one GPU need more than its free memory, or, on an integrated GPU, when N x (host + GPU) >\n"
            "  MemAvailable. The work queue (--jobs N) plans per item: the workers' overheads must fit,\n"
            "  and an item starts only while the running items plus its own largest case fit. A worker's\n"
            "  compute-sanitizer sessions are planned at %zu MiB of host memory, %zu MiB more for each\n"
            "  item of a racecheck batch past the first (--inflight K > 1; none with KC_SANITIZE_BATCH=0),\n"
            "  and %zu MiB of its GPU's (the work queue's, on a GPU whose budget holds it twice), held\n"
            "  until the worker ends (with KC_SANITIZE_SESSIONS=0, by each such item instead): with items\n"
            "  that run the sanitizer, one worker's host share must fit beside the overheads, and another\n"
            "  worker starts its own only while they fit (measured, src/run/plan.h).\n",
            line, KC_PLAN_HOST_OVERHEAD >> 20, KC_PLAN_GPU_OVERHEAD >> 20, KC_INPUT_CACHE_BYTES >> 20,
            KC_PLAN_SANITIZER_HOST_BASE >> 20, KC_PLAN_SANITIZER_HOST_PER_BATCH_ITEM >> 20, KC_PLAN_SANITIZER_GPU >> 20);
}

/* ---- refusals ---- */

int kc_plan_children_on(int jobs, int ndevs, int slot)
{
    if (ndevs <= 0 || slot < 0 || slot >= ndevs || jobs <= slot) return 0;
    return jobs / ndevs + (slot < jobs % ndevs);
}

/* Devices devs[0] and devs[j] must agree on what launch configurations depend on. */
static int check_same(const kc_device *a, const kc_device *b, char *err, size_t cap)
{
    const char *tail = "launch configurations depend on it; pick matching devices with --devices";
    if (a->cc_major != b->cc_major || a->cc_minor != b->cc_minor)
        return kc_errf(err, cap, "mixed GPUs: devices %d and %d differ in compute capability: %d.%d on device %d, %d.%d on device %d (%s)",
                    a->ordinal, b->ordinal, a->cc_major, a->cc_minor, a->ordinal, b->cc_major, b->cc_minor, b->ordinal, tail);
    if (a->sm_count != b->sm_count)
        return kc_errf(err, cap, "mixed GPUs: devices %d and %d differ in SM count: %d on device %d, %d on device %d (%s)",
                    a->ordinal, b->ordinal, a->sm_count, a->ordinal, b->sm_count, b->ordinal, tail);
    if (strcmp(a->name, b->name) != 0)
        return kc_errf(err, cap, "mixed GPUs: devices %d and %d differ in name: '%s' on device %d, '%s' on device %d (%s)",
                    a->ordinal, b->ordinal, a->name, a->ordinal, b->name, b->ordinal, tail);
    return 0;
}

static int check_host(const kc_plan_env *e, char *err, size_t cap)
{
    size_t need = kc_mul_sat((size_t)e->jobs, e->plan->host);
    if (e->mem_available == SIZE_MAX || need <= e->mem_available) return 0;
    char per[32], tot[32], av[32];
    kc_bytes_str(e->plan->host, per, sizeof per);
    kc_bytes_str(need, tot, sizeof tot);
    kc_bytes_str(e->mem_available, av, sizeof av);
    return kc_errf(err, cap, "host memory: --jobs %d needs %d x %s (%zu bytes) = %s (%zu bytes), but MemAvailable is %s (%zu bytes); use fewer jobs",
                e->jobs, e->jobs, per, e->plan->host, tot, need, av, e->mem_available);
}

static int check_integrated(const kc_plan_env *e, const kc_device *d, char *err, size_t cap)
{
    size_t per = kc_add_sat(e->plan->host, e->plan->gpu), need = kc_mul_sat((size_t)e->jobs, per);
    if (!d->integrated || e->mem_available == SIZE_MAX || need <= e->mem_available) return 0;
    char ps[32], ts[32], av[32];
    kc_bytes_str(per, ps, sizeof ps);
    kc_bytes_str(need, ts, sizeof ts);
    kc_bytes_str(e->mem_available, av, sizeof av);
    return kc_errf(err, cap, "integrated GPU: device %d (%s) shares host memory: --jobs %d needs %d x (host %zu + GPU %zu bytes) = %d x %s = %s (%zu bytes), but MemAvailable is %s (%zu bytes); use fewer jobs",
                d->ordinal, d->name, e->jobs, e->jobs, e->plan->host, e->plan->gpu, e->jobs, ps, ts, need, av,
                e->mem_available);
}

static int check_gpu(const kc_plan_env *e, int slot, char *err, size_t cap)
{
    const kc_device *d = &e->devs[slot];
    int kids = kc_plan_children_on(e->jobs, e->ndevs, slot);
    size_t need = kc_mul_sat((size_t)kids, e->plan->gpu), fr = e->free_mem ? e->free_mem[slot] : SIZE_MAX;
    if (fr == SIZE_MAX || need <= fr) return 0;
    char per[32], tot[32], fs[32];
    kc_bytes_str(e->plan->gpu, per, sizeof per);
    kc_bytes_str(need, tot, sizeof tot);
    kc_bytes_str(fr, fs, sizeof fs);
    return kc_errf(err, cap, "GPU memory: device %d (%s) gets %d of the %d children, needing %d x %s (%zu bytes) = %s (%zu bytes), but it has %s (%zu bytes) free; use fewer jobs or more devices",
                d->ordinal, d->name, kids, e->jobs, kids, per, e->plan->gpu, tot, need, fs, fr);
}

int kc_plan_check(const kc_plan_env *e, char *err, size_t errcap)
{
    int used = e->ndevs < e->jobs ? e->ndevs : e->jobs;
    for (int j = 1; j < used; j++)
        if (check_same(&e->devs[0], &e->devs[j], err, errcap)) return -1;
    if (check_host(e, err, errcap)) return -1;
    for (int j = 0; j < used; j++)
        if (check_integrated(e, &e->devs[j], err, errcap)) return -1;
    for (int j = 0; j < used; j++)
        if (check_gpu(e, j, err, errcap)) return -1;
    return 0;
}

int kc_plan_check_sessions(int workers, size_t per_worker, size_t sessions, size_t mem_available, char *err,
                           size_t errcap)
{
    size_t w = kc_mul_sat((size_t)(workers > 0 ? workers : 1), per_worker), need = kc_add_sat(w, sessions);
    if (!sessions || mem_available == SIZE_MAX || need <= mem_available) return 0;
    char per[32], ss[32], tot[32], av[32];
    kc_bytes_str(per_worker, per, sizeof per);
    kc_bytes_str(sessions, ss, sizeof ss);
    kc_bytes_str(need, tot, sizeof tot);
    kc_bytes_str(mem_available, av, sizeof av);
    int n = workers > 0 ? workers : 1;
    return kc_errf(err, errcap, "host memory: the work queue's %d worker%s need%s %d x %s + %s for one worker's "
                   "compute-sanitizer sessions (src/run/plan.h) = %s (%zu bytes), but MemAvailable is %s (%zu bytes); "
                   "use fewer jobs, or leave out the items that run the sanitizer (--exclude '*:sanitize', and "
                   "the controls planted for the sanitizer)",
                   n, n == 1 ? "" : "s", n == 1 ? "s" : "", n, per, ss, tot, need, av, mem_available);
}

int kc_plan_devices_exist(const int *ords, int n, int visible, const char *what, char *err, size_t errcap)
{
    for (int i = 0; i < n; i++)
        if (ords[i] < 0 || ords[i] >= visible) {
            if (visible == 0)
                return kc_errf(err, errcap, "%s: device %d does not exist: no visible device", what, ords[i]);
            return kc_errf(err, errcap, "%s: device %d does not exist: %d visible device%s (0..%d)", what, ords[i],
                        visible, visible == 1 ? "" : "s", visible - 1);
        }
    return 0;
}

/* ---- /proc/meminfo ---- */

int kc_meminfo_available(const char *text, size_t *bytes)
{
    for (const char *p = text; p && *p;) {
        if (strncmp(p, "MemAvailable:", 13) == 0) {
            char *end;
            unsigned long long kb = strtoull(p + 13, &end, 10);
            while (*end == ' ') end++;
            if (end == p + 13 || strncmp(end, "kB", 2) != 0) return -1;
            *bytes = kc_mul_sat((size_t)kb, 1024);
            return 0;
        }
        p = strchr(p, '\n');
        if (p) p++;
    }
    return -1;
}

int kc_read_mem_available(size_t *bytes)
{
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f) return -1;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return kc_meminfo_available(buf, bytes);
}
