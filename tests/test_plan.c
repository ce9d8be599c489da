/* test_plan.c — the memory plan and the refusals of --jobs, fed directly with
 * device descriptions, MemAvailable and free memory: the plan is the largest
 * case (kc_case_memory over every shape) plus the overheads; host memory,
 * GPU memory, integrated-GPU, mixed-GPU and missing-device refusals each name
 * their values; --help prints the switches and the plan. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gates.h"
#include "guard.h"
#include "inputs.h"
#include "hostmem.h"
#include "plan.h"
#include "registry.h"
#include "support/run_output.h"
#include "support/spawn.h"

#define GiB ((size_t)1 << 30)
#define MiB ((size_t)1 << 20)

/* A synthetic contract (not registered): two buffers, three shapes. */
static size_t count_rows_cols(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1]); }
static size_t count_rows(const kc_shape *s) { return (size_t)s->d[0]; }
static void no_launch(const kc_shape *s, const kc_device *d, kc_launch *l) { (void)s; (void)d; (void)l; }
static void no_ref(const kc_ref *r) { (void)r; }

static const kc_shape SHAPES[] = {
    { "model.small", KC_SHAPE_MODEL, { 4, 4096 } },
    { "large.big", KC_SHAPE_LARGE, { 8192, 8192 } },
    { "edge.33", KC_SHAPE_EDGE, { 1, 33 } },
    { 0 },
};

static const kc_contract FAKE = {
    .name = "fake.f32",
    .module = "fake",
    .symbol = "fake",
    .dims = { "rows", "cols" },
    .args = {
        KC_BUFFER("x", KC_F32, KC_IN, count_rows_cols),
        KC_BUFFER("y", KC_F16, KC_OUT, count_rows_cols),
        KC_BUFFER("s", KC_F32, KC_INOUT, count_rows),
    },
    .launch = no_launch,
    .shapes = SHAPES,
    .reference = no_ref,
};

static const kc_suite HOST_SUITE = { "host.only", 0, NULL };

static void items_fake(kc_item it[3])
{
    memset(it, 0, 3 * sizeof *it);
    snprintf(it[0].name, sizeof it[0].name, "fake.f32");
    it[0].kind = KC_KIND_KERNEL;
    it[0].contract = &FAKE;
    snprintf(it[1].name, sizeof it[1].name, "fake.f32:limits");
    it[1].kind = KC_KIND_LIMIT;
    it[1].contract = &FAKE;
    snprintf(it[2].name, sizeof it[2].name, "host.only");
    it[2].kind = KC_KIND_SUITE;
    it[2].suite = &HOST_SUITE;
}

Test(plan, largest_case_plus_overheads)
{
    kc_item it[3];
    items_fake(it);
    size_t hmax = 0, gmax = 0;
    for (const kc_shape *s = SHAPES; s->name; s++) {
        size_t h, g;
        kc_case_memory(&FAKE, s, KC_REF_DEVICE, &h, &g);
        hmax = h > hmax ? h : hmax;
        gmax = g > gmax ? g : gmax;
    }
    cr_assert_gt(gmax, 256 * MiB, "the large shape dominates");
    int sel[] = { 0, 1, 2 };
    kc_plan p;
    kc_plan_compute(it, sel, 3, 1, KC_REF_DEVICE, 1, &p);
    cr_expect_eq(p.host, KC_PLAN_HOST_OVERHEAD + hmax);
    cr_expect_eq(p.gpu, KC_PLAN_GPU_OVERHEAD + KC_INPUT_CACHE_BYTES + gmax);
    cr_expect_eq(p.host_case, hmax);
    cr_expect_str_eq(p.gpu_what, "fake.f32 shape large.big");
    char d[1024];
    kc_plan_describe(&p, d, sizeof d);
    cr_expect(strstr(d, "fake.f32 shape large.big") && strstr(d, "overhead"), "%s", d);
    /* With items in flight (--inflight 4) a worker also keeps guarded buffers (guarded_alloc.h). */
    kc_plan_compute(it, sel, 3, 1, KC_REF_DEVICE, 4, &p);
    cr_expect_eq(p.gpu, KC_PLAN_GPU_OVERHEAD + KC_INPUT_CACHE_BYTES + KC_GUARD_KEEP + gmax);
}

/* A selection with an item that runs compute-sanitizer plans each process
 * its sessions' host memory too (plan.h, kc_plan_sanitizer_host), more
 * with batches (--inflight K > 1); without a GPU nothing runs them. */
Test(plan, sanitizer_items_add_their_sessions)
{
    kc_item it[3];
    items_fake(it);
    it[1].kind = KC_KIND_SANITIZE;
    snprintf(it[1].name, sizeof it[1].name, "fake.f32:sanitize");
    int one[] = { 0 }, both[] = { 0, 1 };
    kc_plan p, q;
    kc_plan_compute(it, one, 1, 1, KC_REF_DEVICE, 1, &p);
    kc_plan_compute(it, both, 2, 1, KC_REF_DEVICE, 1, &q);
    cr_expect_eq(p.sanitizer_host, 0);
    cr_expect_eq(q.sanitizer_host, KC_PLAN_SANITIZER_HOST_BASE);
    cr_expect_eq(q.host, p.host + KC_PLAN_SANITIZER_HOST_BASE);
    cr_expect_eq(q.gpu, p.gpu, "a process's plan holds no GPU share (the work queue's)");
    char d[1024];
    kc_plan_describe(&q, d, sizeof d);
    char want[80];
    snprintf(want, sizeof want, "+ %zu MiB for compute-sanitizer sessions), GPU", KC_PLAN_SANITIZER_HOST_BASE >> 20);
    cr_expect(strstr(d, want), "%s", d);
    kc_plan_set_sanitizer(&q, 100 * MiB);
    cr_expect_eq(q.host, p.host + 100 * MiB);
    kc_plan_set_sanitizer(&p, 100 * MiB);
    cr_expect_eq(p.sanitizer_host, 0, "nothing runs the sanitizer: nothing set");
    cr_expect_eq(p.host, q.host - 100 * MiB);
    kc_plan_compute(it, both, 2, 1, KC_REF_DEVICE, 4, &q);
    cr_expect_eq(q.sanitizer_host, KC_PLAN_SANITIZER_HOST_BASE + 3 * KC_PLAN_SANITIZER_HOST_PER_BATCH_ITEM,
                 "batches of up to 4 under --inflight 4");
    cr_expect_eq(kc_plan_sanitizer_host(8), (size_t)12 << 30, "the receipt's figure for batches of 8");
    cr_expect_eq(kc_plan_sanitizer_host(0), kc_plan_sanitizer_host(1), "no batches either way");
    kc_plan_compute(it, both, 2, 0, KC_REF_DEVICE, 1, &q);
    cr_expect_eq(q.sanitizer_host, 0, "no GPU: the sanitizer's items SKIP");
    cr_expect_eq(q.host, KC_PLAN_HOST_OVERHEAD);
}

/* The plan line prints each figure once, in whole MiB rounded up, so a total
 * is the sum of its parts as printed: it said "host 960 MiB (1006633800
 * bytes: 192 MiB overhead + 768 MiB for ...)", 840 bytes apart. */
Test(plan, describe_prints_figures_that_add_up)
{
    kc_plan p = { .host_case = 768 * MiB + 840, .gpu_case = 5 };
    p.host = KC_PLAN_HOST_OVERHEAD + p.host_case;
    p.gpu_over = KC_PLAN_GPU_PER_PROCESS;
    p.gpu = p.gpu_over + p.gpu_case;
    snprintf(p.host_what, sizeof p.host_what, "sort.f32 shape large.2e25");
    snprintf(p.gpu_what, sizeof p.gpu_what, "tiny.f32 shape edge.1");
    char d[1024];
    kc_plan_describe(&p, d, sizeof d);
    cr_expect_str_eq(d, "host 961 MiB (192 MiB overhead + 769 MiB for sort.f32 shape large.2e25), "
                        "GPU 2625 MiB (2624 MiB overhead + 1 MiB for tiny.f32 shape edge.1)");
    kc_plan none = { .host = KC_PLAN_HOST_OVERHEAD };
    kc_plan_describe(&none, d, sizeof d);
    cr_expect_str_eq(d, "host 192 MiB (overhead only, no GPU item will run), GPU 0 MiB");
}

/* Where the reference runs decides where its memory is: the device
 * reference needs host memory for nothing (inputs are made on the GPU), the
 * host reference for its inputs and float64 outputs, both for both. */
Test(plan, case_memory_follows_the_reference)
{
    kc_contract withdev = FAKE;
    withdev.device_reference = (kc_device_ref){ .module = "fake_ref", .symbol = "fake_ref" };
    const kc_shape *big = &SHAPES[1];
    size_t n = 8192 * 8192, s = 8192, G = 2 * (size_t)KC_GUARD_BYTES;
    size_t dh, dg, hh, hg, bh, bg, nh, ng;
    kc_case_memory(&withdev, big, KC_REF_DEVICE, &dh, &dg);
    kc_case_memory(&withdev, big, KC_REF_HOST, &hh, &hg);
    kc_case_memory(&withdev, big, KC_REF_BOTH, &bh, &bg);
    kc_case_memory(&FAKE, big, KC_REF_DEVICE, &nh, &ng);   /* no device reference: the host's */
    size_t sets = 2 * ((n * 4 + G) + (n * 2 + G) + (s * 4 + G)), pristine = n * 4 + s * 4, ref = (n + s) * 8;
    /* on the host each buffer as mapped: from 16 MiB whole huge pages with the header (hostmem.h) */
    size_t host = kc_hostmem_bytes(n * 4) + kc_hostmem_bytes(s * 4) + kc_hostmem_bytes(n * 8) + kc_hostmem_bytes(s * 8);
    cr_expect_eq(host, pristine + ref + 2 * (size_t)(2 << 20), "n x 4 and n x 8 bytes, each a huge page more");
    cr_expect_eq(dh, 0, "device reference: nothing on the host, got %zu", dh);
    cr_expect_eq(dg, sets + pristine + ref);
    cr_expect_eq(hh, host, "host reference: its inputs and outputs, got %zu", hh);
    cr_expect_eq(hg, sets + pristine + ref);
    cr_expect_eq(bh, host);
    cr_expect_eq(bg, sets + pristine + 2 * ref, "both: two references on the device");
    cr_expect_eq(nh, hh);
    cr_expect_eq(ng, hg);
}

/* A generator needs host memory for its buffer only on the shapes where
 * it runs: gen_on (its distributions) against what the shape runs (a large
 * shape the contract's first distribution alone, uniform by default). */
static void gen_nothing(kc_gen *g) { (void)g; }
Test(plan, a_generator_needs_host_memory_where_its_distributions_run)
{
    kc_contract g = FAKE;
    g.device_reference = (kc_device_ref){ .module = "fake_ref", .symbol = "fake_ref" };
    g.args[0] = (kc_arg)KC_BUFFER_GEN_ON("x", KC_F32, KC_IN, count_rows_cols, gen_nothing, KC_DIST_BIT(KC_NORMAL));
    const kc_shape *big = &SHAPES[1], *small = &SHAPES[0];
    size_t h, gb;
    kc_case_memory(&g, big, KC_REF_DEVICE, &h, &gb);
    cr_expect_eq(h, 0, "a large shape runs uniform alone, which the generator (normal) leaves to the GPU: got %zu "
                 "host bytes", h);
    kc_case_memory(&g, small, KC_REF_DEVICE, &h, &gb);
    cr_expect_eq(h, (size_t)4 * 4096 * 4, "a model shape runs normal too: the generated x on the host, got %zu", h);
    g.args[0].gen_on = 0;
    kc_case_memory(&g, big, KC_REF_DEVICE, &h, &gb);
    cr_expect_eq(h, kc_hostmem_bytes((size_t)8192 * 8192 * 4), "a generator for every distribution runs on the large "
                 "shape: got %zu", h);
}

Test(plan, host_only_selection_needs_the_overhead_only)
{
    kc_item it[3];
    items_fake(it);
    int sel[] = { 2 };
    kc_plan p;
    kc_plan_compute(it, sel, 1, 1, KC_REF_DEVICE, 1, &p);
    cr_expect_eq(p.host, KC_PLAN_HOST_OVERHEAD);
    cr_expect_eq(p.gpu, 0);
    int all[] = { 0, 1, 2 };
    kc_plan_compute(it, all, 3, 0, KC_REF_DEVICE, 1, &p);
    cr_expect_eq(p.host, KC_PLAN_HOST_OVERHEAD, "no GPU: GPU items skip and allocate nothing");
    cr_expect_eq(p.gpu, 0);
}

Test(plan, registry_plan_covers_every_contract_shape)
{
    kc_item *items;
    char err[1024];
    int n = kc_registry_items(&items, err, sizeof err);
    cr_assert_geq(n, 0, "%s", err);
    kc_plan p;
    kc_plan_compute(items, NULL, n, 1, KC_REF_DEVICE, 1, &p);
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    for (size_t i = 0; i < nc; i++)
        for (const kc_shape *s = cs[i]->shapes; s->name; s++) {
            size_t h, g;
            kc_case_memory(cs[i], s, KC_REF_DEVICE, &h, &g);
            cr_expect_leq(h + KC_PLAN_HOST_OVERHEAD, p.host, "%s %s", cs[i]->name, s->name);
            cr_expect_leq(g + KC_PLAN_GPU_OVERHEAD, p.gpu, "%s %s", cs[i]->name, s->name);
        }
    free(items);
}

/* A device description. */
static kc_device dev(int ordinal, const char *name, int ccmaj, int ccmin, int sms, int integrated)
{
    kc_device d;
    memset(&d, 0, sizeof d);
    d.ordinal = ordinal;
    snprintf(d.name, sizeof d.name, "%s", name);
    d.cc_major = ccmaj;
    d.cc_minor = ccmin;
    d.sm_count = sms;
    d.integrated = integrated;
    return d;
}

static kc_plan plan_of(size_t host, size_t gpu)
{
    kc_plan p;
    memset(&p, 0, sizeof p);
    p.host = host;
    p.gpu = gpu;
    return p;
}

Test(plan, host_memory_refusal_names_values)
{
    kc_plan p = plan_of(1 * GiB, 0);
    char err[1024] = "";
    kc_plan_env e = { 4, &p, 3 * GiB, NULL, NULL, 0 };
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), -1);
    cr_expect(strstr(err, "host memory: --jobs 4 needs 4 x 1.00 GiB (1073741824 bytes) = 4.00 GiB (4294967296 bytes)"),
              "%s", err);
    cr_expect(strstr(err, "MemAvailable is 3.00 GiB (3221225472 bytes)"), "%s", err);
    e.mem_available = 4 * GiB;
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), 0, "exactly enough is enough: %s", err);
    e.mem_available = SIZE_MAX;
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), 0, "unknown MemAvailable is not checked");
}

Test(plan, sanitizer_sessions_refusal_names_values)
{
    char err[1024] = "";
    cr_expect_eq(kc_plan_check_sessions(4, 192 * MiB, 12 * GiB, 12 * GiB, err, sizeof err), -1);
    cr_expect(strstr(err, "host memory: the work queue's 4 workers need 4 x 192 MiB + 12.00 GiB for one worker's "
                          "compute-sanitizer sessions (src/run/plan.h) = 12.75 GiB (13690208256 bytes), but "
                          "MemAvailable is 12.00 GiB (12884901888 bytes)"), "%s", err);
    cr_expect(strstr(err, "--exclude '*:sanitize'"), "%s", err);
    cr_expect_eq(kc_plan_check_sessions(4, 192 * MiB, 12 * GiB, 13 * GiB, err, sizeof err), 0, "12.75 of 13 GiB");
    cr_expect_eq(kc_plan_check_sessions(4, 192 * MiB, 0, 1 * GiB, err, sizeof err), 0, "no sanitizer item: nothing");
    cr_expect_eq(kc_plan_check_sessions(4, 192 * MiB, 12 * GiB, SIZE_MAX, err, sizeof err), 0, "unknown: not checked");
}

/* A --jobs run whose selection runs the sanitizer plans one worker's
 * compute-sanitizer sessions, at KC_SANITIZER_HOST_MIB when set: refused
 * when they cannot fit beside the workers (16 TiB here, whatever this host
 * has), said in the header when they can, not counted at 0 or without such
 * an item; a bad figure is refused; the static schedule plans them per
 * process. */
Test(plan, a_jobs_run_plans_the_sanitizer_sessions, .timeout = 120)
{
    char san[PATH_MAX + 32], sanpath[PATH_MAX];
    cr_assert(realpath("tests/fake/compute-sanitizer", sanpath));
    snprintf(san, sizeof san, "KC_COMPUTE_SANITIZER=%s", sanpath);
    char *huge[] = { san, "KC_SANITIZER_HOST_MIB=16777216", NULL }, *some[] = { san, "KC_SANITIZER_HOST_MIB=100", NULL };
    char *bad[] = { san, "KC_SANITIZER_HOST_MIB=lots", NULL }, *off[] = { san, "KC_SANITIZER_HOST_MIB=0", NULL };
    char costs[300];
    snprintf(costs, sizeof costs, "%s/kc-plan-sessions.%ld.costs.tsv", kc_test_tmpdir(), (long)getpid());
    char *withsan[] = { "run", "fakeedges.copy.f16:sanitize", "fake.axpy.f32", "--jobs", "2", "--no-cache", "--costs",
                        costs, NULL };
    char *nosan[] = { "run", "fake.copy.f16", "fake.axpy.f32", "--jobs", "2", "--no-cache", "--costs", costs, NULL };
    char *stat[] = { "run", "fakeedges.copy.f16:sanitize", "fake.axpy.f32", "--jobs", "2", "--schedule", "static",
                     "--no-cache", NULL };

    kc_proc r = kc_run_fake(withsan, huge, 60);
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "--jobs 2 refused: host memory: the work queue's 2 workers need 2 x 192 MiB + 16384.00 "
                            "GiB for one worker's compute-sanitizer sessions (src/run/plan.h) = "), "%s", r.err);
    cr_expect(!strstr(r.out, "PASS"), "nothing ran: %s", r.out);
    kc_proc_free(&r);

    r = kc_run_fake(withsan, some, 60);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "memory: each worker 192 MiB host + 2624 MiB GPU, and 100 MiB host while it holds "
                            "compute-sanitizer sessions; items are admitted"), "%s", r.out);
    kc_proc_free(&r);
    /* the GPU's share too (the fake GPU has 16 GiB) */
    char *both[] = { san, "KC_SANITIZER_HOST_MIB=100", "KC_SANITIZER_GPU_MIB=300", NULL };
    r = kc_run_fake(withsan, both, 60);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, ", and 100 MiB host + 300 MiB GPU while it holds compute-sanitizer sessions; items"), "%s",
              r.out);
    kc_proc_free(&r);
    /* a share over half a device's budget (the fake GPU's 16 GiB less two workers' overheads) is
     * not counted there, said so, and nothing runs alone for it */
    char *bigg[] = { san, "KC_SANITIZER_GPU_MIB=8192", NULL };
    char *four[] = { "run", "fakeedges.copy.f16:sanitize", "fake.axpy.f32", "fake.copy.f16", "fake.copy.f16:limits",
                     "--jobs", "2", "--no-cache", "--costs", costs, NULL };
    r = kc_run_fake(four, bigg, 60);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "memory: each worker 192 MiB host + 2624 MiB GPU, the sessions' 8192 MiB GPU not counted on "
                            "device 0 (under twice it is left there); items"), "%s", r.out);
    cr_expect(!strstr(r.out, "runs alone"), "%s", r.out);
    kc_proc_free(&r);
    char *badgpu[] = { san, "KC_SANITIZER_GPU_MIB=-1", NULL };
    r = kc_run_fake(withsan, badgpu, 60);
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "KC_SANITIZER_GPU_MIB = '-1': expected a whole number of MiB from 0 to 16777216 (the GPU "
                            "memory one worker's compute-sanitizer sessions are planned at; 0: not counted)"), "%s", r.err);
    kc_proc_free(&r);
    r = kc_run_fake(stat, badgpu, 60);     /* the static schedule reads it for its errors too */
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "KC_SANITIZER_GPU_MIB = '-1'"), "%s", r.err);
    kc_proc_free(&r);

    r = kc_run_fake(withsan, bad, 60);
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "KC_SANITIZER_HOST_MIB = 'lots': expected a whole number of MiB from 0 to 16777216"),
              "%s", r.err);
    kc_proc_free(&r);

    r = kc_run_fake(withsan, off, 60);
    cr_expect_eq(r.status, 0, "0: not counted: %s%s", r.out, r.err);
    cr_expect(strstr(r.out, "memory: each worker 192 MiB host + 2624 MiB GPU; items"), "%s", r.out);
    kc_proc_free(&r);

    r = kc_run_fake(nosan, huge, 60);
    cr_expect_eq(r.status, 0, "no item runs the sanitizer: nothing planned for it: %s%s", r.out, r.err);
    cr_expect(!strstr(r.out, "compute-sanitizer sessions"), "%s", r.out);
    kc_proc_free(&r);

    r = kc_run_fake(stat, huge, 60);
    cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "--jobs 2 refused: host memory: --jobs 2 needs 2 x 16384."), "%s", r.err);
    kc_proc_free(&r);

    /* batches off: no batch term (5 GiB under --inflight 8, not 12) */
    char *nobatch[] = { san, "KC_SANITIZE_BATCH=0", "KC_SANITIZER_HOST_MIB=", NULL };   /* empty: the default (GPU: 0) */
    char *k8[] = { "run", "fakeedges.copy.f16:sanitize", "fake.axpy.f32", "--jobs", "2", "--inflight", "8",
                   "--no-cache", "--costs", costs, NULL };
    r = kc_run_fake(k8, nobatch, 60);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, ", and 5120 MiB host while it holds compute-sanitizer sessions;"), "%s", r.out);
    kc_proc_free(&r);
    /* sessions off: each item of the sanitizer starts and ends its own, so they are its */
    char *nosess[] = { san, "KC_SANITIZE_SESSIONS=0", "KC_SANITIZER_HOST_MIB=100", NULL };
    r = kc_run_fake(withsan, nosess, 60);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "GPU; items are admitted while the running ones fit (largest item that runs here: host "
                            "100 MiB,"), "%s", r.out);
    kc_proc_free(&r);
    /* a static run with nothing of the sanitizer reads no figure */
    char *statnosan[] = { "run", "fake.copy.f16", "fake.axpy.f32", "--jobs", "2", "--schedule", "static", "--no-cache",
                          NULL };
    r = kc_run_fake(statnosan, bad, 60);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    kc_proc_free(&r);
    unlink(costs);
}

Test(plan, gpu_memory_refusal_names_device_and_values)
{
    kc_plan p = plan_of(256 * MiB, 2 * GiB);
    kc_device d[2] = { dev(0, "NVIDIA H200", 9, 0, 132, 0), dev(3, "NVIDIA H200", 9, 0, 132, 0) };
    size_t fr[2] = { 3 * GiB, 100 * GiB };
    char err[1024] = "";
    /* --jobs 3 over two devices: device 0 gets children 0 and 2. */
    kc_plan_env e = { 3, &p, 100 * GiB, d, fr, 2 };
    cr_expect_eq(kc_plan_children_on(3, 2, 0), 2);
    cr_expect_eq(kc_plan_children_on(3, 2, 1), 1);
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), -1);
    cr_expect(strstr(err, "GPU memory: device 0 (NVIDIA H200) gets 2 of the 3 children, needing 2 x 2.00 GiB (2147483648 bytes) = 4.00 GiB (4294967296 bytes), but it has 3.00 GiB (3221225472 bytes) free"),
              "%s", err);
    fr[0] = 100 * GiB;
    fr[1] = 1 * GiB;
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), -1);
    cr_expect(strstr(err, "device 3 (NVIDIA H200) gets 1 of the 3 children"), "%s", err);
    fr[1] = 2 * GiB;
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), 0, "%s", err);
}

Test(plan, integrated_gpu_refusal_names_values)
{
    kc_plan p = plan_of(1 * GiB, 1 * GiB);
    kc_device d[1] = { dev(0, "NVIDIA GB10", 12, 1, 48, 1) };
    size_t fr[1] = { 100 * GiB };
    char err[1024] = "";
    kc_plan_env e = { 2, &p, 3 * GiB, d, fr, 1 };   /* host alone fits: 2 GiB <= 3 GiB */
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), -1);
    cr_expect(strstr(err, "integrated GPU: device 0 (NVIDIA GB10) shares host memory: --jobs 2 needs 2 x (host 1073741824 + GPU 1073741824 bytes)"),
              "%s", err);
    cr_expect(strstr(err, "= 4.00 GiB (4294967296 bytes), but MemAvailable is 3.00 GiB (3221225472 bytes)"), "%s", err);
    d[0].integrated = 0;
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), 0, "a discrete GPU's memory is not host memory: %s", err);
}

static void mixed(kc_device b, const char *expect)
{
    kc_plan p = plan_of(MiB, MiB);
    kc_device d[2] = { dev(0, "NVIDIA H200", 9, 0, 132, 0), b };
    size_t fr[2] = { 100 * GiB, 100 * GiB };
    char err[1024] = "";
    kc_plan_env e = { 2, &p, 100 * GiB, d, fr, 2 };
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), -1, "expected '%s'", expect);
    cr_expect(strstr(err, expect), "want '%s' in '%s'", expect, err);
    e.jobs = 1;     /* one child uses device 0 only */
    cr_expect_eq(kc_plan_check(&e, err, sizeof err), 0, "an unused device does not count: %s", err);
}

Test(plan, mixed_gpus_refusal_names_field_devices_and_values)
{
    mixed(dev(2, "NVIDIA H200", 8, 9, 132, 0),
          "mixed GPUs: devices 0 and 2 differ in compute capability: 9.0 on device 0, 8.9 on device 2");
    mixed(dev(1, "NVIDIA H200", 9, 0, 114, 0), "mixed GPUs: devices 0 and 1 differ in SM count: 132 on device 0, 114 on device 1");
    mixed(dev(5, "NVIDIA H100 80GB HBM3", 9, 0, 132, 0),
          "mixed GPUs: devices 0 and 5 differ in name: 'NVIDIA H200' on device 0, 'NVIDIA H100 80GB HBM3' on device 5");
}

Test(plan, missing_device_refusal)
{
    int o[] = { 0, 5 };
    char err[512] = "";
    cr_expect_eq(kc_plan_devices_exist(o, 2, 2, "--devices 0,5", err, sizeof err), -1);
    cr_expect_str_eq(err, "--devices 0,5: device 5 does not exist: 2 visible devices (0..1)");
    cr_expect_eq(kc_plan_devices_exist(o, 1, 1, "--devices 0", err, sizeof err), 0);
    int one[] = { 3 };
    cr_expect_eq(kc_plan_devices_exist(one, 1, 1, "--device 3", err, sizeof err), -1);
    cr_expect_str_eq(err, "--device 3: device 3 does not exist: 1 visible device (0..0)");
}

Test(plan, meminfo_parse)
{
    size_t b = 0;
    const char *text = "MemTotal:       32803740 kB\nMemFree:         1234 kB\nMemAvailable:   24351636 kB\n";
    cr_expect_eq(kc_meminfo_available(text, &b), 0);
    cr_expect_eq(b, (size_t)24351636 * 1024);
    cr_expect_eq(kc_meminfo_available("MemTotal: 5 kB\n", &b), -1);
    cr_expect_eq(kc_meminfo_available("MemAvailable: lots\n", &b), -1);
    cr_expect_eq(kc_read_mem_available(&b), 0, "this machine's /proc/meminfo");
    cr_expect_gt(b, 0);
}

Test(plan, help_prints_switches_and_plan)
{
    char *argv[] = { (char *)kc_test_bin(), "--help", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, NULL, 30, &p), 0);
    cr_expect_eq(p.status, 0);
    cr_expect(strstr(p.out, "--shard K/N") && strstr(p.out, "--jobs N") && strstr(p.out, "--devices L"), "%s", p.out);
    cr_expect(strstr(p.out, "memory plan per process") && strstr(p.out, "overhead + "), "%s", p.out);
    /* the registry's plan: one figure per quantity, and they add up */
    const char *l = strstr(p.out, ":\n  host ");
    size_t h = 0, ho = 0, hc = 0, hs = 0, g = 0, go = 0, gc = 0;
    /* the registry has :sanitize items: their sessions are a part of the host's */
    cr_expect(l && sscanf(l, ":\n  host %zu MiB (%zu MiB overhead + %zu MiB for %*s shape %*s + %zu MiB for "
                             "compute-sanitizer sessions), GPU %zu MiB (%zu MiB overhead + %zu MiB",
                          &h, &ho, &hc, &hs, &g, &go, &gc) == 7, "%s", p.out);
    cr_expect(h == ho + hc + hs && g == go + gc && h > 0 && g > 0, "%s", l ? l : p.out);
    cr_expect_eq(hs, KC_PLAN_SANITIZER_HOST_BASE >> 20);
    char line[1024] = "";
    if (l) snprintf(line, sizeof line, "%.*s", (int)strcspn(l + 2, "\n"), l + 2);
    cr_expect(line[0] && !strstr(line, "bytes"), "no byte counts beside the MiB: %s", line);
    cr_expect(strstr(p.out, "overheads: host 192 MiB, GPU 576 MiB (the context, measured on an H200"), "%s", p.out);
    cr_expect(strstr(p.out, "+ 2048 MiB\n  of generated inputs kept for later items"), "%s", p.out);
    kc_proc_free(&p);
}
