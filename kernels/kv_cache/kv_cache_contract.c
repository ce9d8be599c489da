/* kv_cache_contract.c — contracts for kv_cache_write.cu: new keys and values
 * [tokens, kv_heads, head_dim] written into a paged cache at slot_mapping[t]
 * (int64; -1 = padding token, skipped), NHD and HND page layouts, f16 and
 * bf16 (the kernel copies 2-byte elements as bits).
 *
 * Shape dims: d[0] tokens, d[1] kv_heads, d[2] head_dim (multiple of 8),
 * d[3] page_size, d[4] num_pages, d[5] layout of the slots: 0 = a prefill
 * chunk (consecutive positions filling pages, starting at a random offset
 * inside the first page), 1 = a decode batch (each token alone on a random
 * page at a random position).
 *
 * The caches are KC_INOUT: generated (the built-in distribution) before the
 * launch, and the reference is the input with the new rows written, so slots
 * the kernel must not touch are checked too. slot_mapping: distinct slots
 * drawn from randomly chosen distinct pages; the first token always goes to
 * the pool's LAST page (2 GiB into the cache on the large shape); with two
 * tokens or more, token 1 and about 1/8 of the others are padding (-1). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kcontract.h"
#include "dtype.h"

enum { KV_KC = 0, KV_VC, KV_K, KV_V, KV_SLOTS, KV_KVH, KV_HD, KV_PS };

static size_t kv_cache_count(const kc_shape *s) { return (size_t)s->d[4] * (size_t)s->d[3] * (size_t)s->d[1] * (size_t)s->d[2]; }
static size_t kv_new_count(const kc_shape *s) { return (size_t)(s->d[0] * s->d[1] * s->d[2]); }
static size_t kv_slots_count(const kc_shape *s) { return (size_t)s->d[0]; }
static double kv_kvh(const kc_shape *s) { return (double)s->d[1]; }
static double kv_hd(const kc_shape *s) { return (double)s->d[2]; }
static double kv_ps(const kc_shape *s) { return (double)s->d[3]; }

static void kv_slots_gen(kc_gen *g)
{
    const int64_t T = g->shape->d[0], ps = g->shape->d[3], np = g->shape->d[4], scatter = g->shape->d[5];
    int64_t need = scatter ? T : T / ps + 2;         /* distinct pages used */
    if (need > np) need = np;
    int64_t *pages = malloc((size_t)np * sizeof *pages);
    if (!pages) abort();
    for (int64_t i = 0; i < np; i++) pages[i] = i;
    for (int64_t i = 0; i < need; i++) {             /* partial Fisher-Yates */
        int64_t j = kc_rand_int(g, i, np - 1);
        int64_t t = pages[i]; pages[i] = pages[j]; pages[j] = t;
    }
    for (int64_t i = 0; i < np; i++)                 /* the last page first */
        if (pages[i] == np - 1) { pages[i] = pages[0]; pages[0] = np - 1; break; }
    const int64_t start = kc_rand_int(g, 0, ps - 1);
    for (int64_t t = 0; t < T; t++) {
        int64_t slot;
        if (scatter) slot = pages[t % need] * ps + kc_rand_int(g, 0, ps - 1);
        else slot = pages[((start + t) / ps) % need] * ps + (start + t) % ps;
        if (T >= 2 && (t == 1 || (t > 1 && kc_rand_int(g, 0, 7) == 0))) slot = -1;
        kc_gen_put(g, (size_t)t, (double)slot);
    }
    free(pages);
}

/* One block of 128 threads per token. */
static void kv_launch(const kc_shape *s, const kc_device *dev, kc_launch *l)
{
    l->grid[0] = (unsigned)s->d[0]; l->grid[1] = 1; l->grid[2] = 1;
    l->block[0] = 128; l->block[1] = 1; l->block[2] = 1;
    l->smem = 0;
}

/* ---- float64 reference: copy the caches, then write the new rows --------- */

#define KV_CHUNK ((size_t)1 << 22)

typedef struct kv_job {
    const kc_ref *r;
    const double *tab;
    size_t n;               /* cache elements */
    atomic_size_t next;
} kv_job;

static void *kv_copy_worker(void *arg)
{
    kv_job *j = arg;
    const uint16_t *kc = j->r->host[KV_KC], *vc = j->r->host[KV_VC];
    double *ko = j->r->out[KV_KC], *vo = j->r->out[KV_VC];
    for (size_t c; (c = atomic_fetch_add(&j->next, 1)) * KV_CHUNK < j->n;) {
        const size_t a = c * KV_CHUNK, b = a + KV_CHUNK < j->n ? a + KV_CHUNK : j->n;
        for (size_t i = a; i < b; i++) { ko[i] = j->tab[kc[i]]; vo[i] = j->tab[vc[i]]; }
    }
    return NULL;
}

static void kv_reference(const kc_ref *r, int hnd)
{
    const int64_t T = r->shape->d[0], kvh = r->shape->d[1], D = r->shape->d[2], ps = r->shape->d[3];
    kv_job j = { .r = r, .n = r->count[KV_KC] };
    atomic_init(&j.next, 0);
    double *tab = malloc(65536 * sizeof *tab);
    if (!tab) abort();
    for (uint32_t x = 0; x < 65536; x++)
        tab[x] = r->dtype[KV_K] == KC_F16 ? kc_f16_to_double((uint16_t)x) : kc_bf16_to_double((uint16_t)x);
    j.tab = tab;
    /* The copy is split in fixed chunks over threads: each element is copied
     * once, whatever the thread count (the large caches hold 1e9 elements). */
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = nt > 32 ? 32 : nt < 1 ? 1 : (int)nt;
    pthread_t tid[32];
    int started = 0;
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, kv_copy_worker, &j) == 0) started++;
    kv_copy_worker(&j);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);

    const int64_t *slots = r->host[KV_SLOTS];
    const uint16_t *K = r->host[KV_K], *V = r->host[KV_V];
    for (int64_t t = 0; t < T; t++) {
        const int64_t slot = slots[t];
        if (slot < 0) continue;                      /* padding */
        const int64_t page = slot / ps, p = slot % ps;
        for (int64_t h = 0; h < kvh; h++) {
            const int64_t row = hnd ? (page * kvh + h) * ps + p : (page * ps + p) * kvh + h;
            for (int64_t d = 0; d < D; d++) {
                r->out[KV_KC][row * D + d] = tab[K[(t * kvh + h) * D + d]];
                r->out[KV_VC][row * D + d] = tab[V[(t * kvh + h) * D + d]];
            }
        }
    }
    free(tab);
}
/* Device twins (kv_cache_ref.cu): kv_cache_nhd_ref and kv_cache_hnd_ref, the
 * same copy and row writes, bitwise. */
static void kv_reference_nhd(const kc_ref *r) { kv_reference(r, 0); }
static void kv_reference_hnd(const kc_ref *r) { kv_reference(r, 1); }

/* tokens, kv_heads, head_dim, page_size, num_pages, scatter */
static const kc_shape kv_shapes[] = {
    { "llama3-8b.prefill.t4096", KC_SHAPE_MODEL, { 4096, 8, 128, 16, 2048, 0 } },
    { "llama3-8b.decode.b64", KC_SHAPE_MODEL, { 64, 8, 128, 16, 2048, 1 } },
    { "qwen2.5-7b.prefill.t1000", KC_SHAPE_MODEL, { 1000, 4, 128, 16, 1024, 0 } },
    { "qwen2.5-7b.decode.b256", KC_SHAPE_MODEL, { 256, 4, 128, 16, 1024, 1 } },
    { "llama3.2-1b.prefill.t1023.d64", KC_SHAPE_MODEL, { 1023, 8, 64, 16, 512, 0 } },
    { "edge.t1", KC_SHAPE_EDGE, { 1, 8, 128, 16, 4, 0 } },
    { "edge.t31", KC_SHAPE_EDGE, { 31, 8, 128, 16, 8, 0 } },
    { "edge.t33.decode", KC_SHAPE_EDGE, { 33, 4, 128, 16, 40, 1 } },
    { "edge.t1023.kv1", KC_SHAPE_EDGE, { 1023, 1, 128, 16, 128, 0 } },
    { "edge.t7.ps1.d64.decode", KC_SHAPE_EDGE, { 7, 2, 64, 1, 20, 1 } },
    /* 66000 pages of 32 KiB: each cache 2.16 GB; the first token's page (65999)
     * starts 2.16e9 bytes in, past 2^31 */
    { "large.llama3-8b.prefill.t4096.pages66000", KC_SHAPE_LARGE, { 4096, 8, 128, 16, 66000, 0 } },
    { 0 }
};

#define KV_CONTROLS_COMMON \
    { "padding_not_skipped", 2, "padding slot -1 not skipped: page 0, in-page slot -1, so the token's row lands just before the cache (guard band); the first shape has padding tokens" }, \
    { "slot_offset_i32", 1, "a row's byte offset computed in 32 bits wraps negative 2 GiB into the cache: on the large shape the first token's row (page 65999) goes ~2.1 GB before the cache, where nothing is mapped, and the launch faults (gate 1 on the H200 in every serial run and in workers with lanes, whose buffers are guarded; gate 3, its slot unwritten, where another buffer lies there, as in the lanes' stream-ordered pool: docs/receipts/2026-12-04-h200-neighbours)" }, \
    { "slot_mapping_i32", 3, "slot_mapping (int64) read as int32: token t takes half of slot t/2, so rows go to wrong slots (odd tokens all to slot 0)" }

#define KV_CONTRACT(id_, name_, sym_, dt_, ref_, dref_, ...) \
KC_CONTRACT(id_) { \
    .name = name_, .module = "kv_cache_write", .symbol = sym_, \
    .dims = { "tokens", "kv_heads", "head_dim", "page_size", "num_pages", "scatter" }, \
    .args = { \
        KC_BUFFER("k_cache", dt_, KC_INOUT, kv_cache_count), \
        KC_BUFFER("v_cache", dt_, KC_INOUT, kv_cache_count), \
        KC_BUFFER("k", dt_, KC_IN, kv_new_count), \
        KC_BUFFER("v", dt_, KC_IN, kv_new_count), \
        KC_BUFFER_GEN("slot_mapping", KC_I64, KC_IN, kv_slots_count, kv_slots_gen), \
        KC_SCALAR("kv_heads", KC_I32, kv_kvh), \
        KC_SCALAR("head_dim", KC_I32, kv_hd), \
        KC_SCALAR("page_size", KC_I32, kv_ps), \
    }, \
    .launch = kv_launch, .shapes = kv_shapes, \
    .dists = { KC_UNIFORM, KC_SPECIALS, KC_ZEROS, KC_CONSTANT, KC_DENORMAL }, \
    .reference = ref_, \
    .device_reference = { .module = "kv_cache_ref", .symbol = dref_, .agree = { 0 } }, \
    .tol = { 0.0, 0.0, "a copy of 2-byte elements: every cache element must be bit-exact (the input or the new row)" }, \
    .budget = { .max_regs = 32, .max_smem = 0, .max_local = 0, .min_blocks_per_sm = 16 }, \
    .controls = { KV_CONTROLS_COMMON, __VA_ARGS__ }, \
}

#define KV_HND_CONTROL { "hnd_with_nhd_strides", 3, "the HND cache written with the NHD layout's strides (slot-major inside the page): rows land at other heads' positions whenever kv_heads > 1" }

KV_CONTRACT(kv_cache_nhd_f16, "kv_cache.nhd.f16", "kv_cache_write_nhd", KC_F16, kv_reference_nhd, "kv_cache_nhd_ref", { 0 });
KV_CONTRACT(kv_cache_nhd_bf16, "kv_cache.nhd.bf16", "kv_cache_write_nhd", KC_BF16, kv_reference_nhd, "kv_cache_nhd_ref", { 0 });
KV_CONTRACT(kv_cache_hnd_f16, "kv_cache.hnd.f16", "kv_cache_write_hnd", KC_F16, kv_reference_hnd, "kv_cache_hnd_ref", KV_HND_CONTROL);
KV_CONTRACT(kv_cache_hnd_bf16, "kv_cache.hnd.bf16", "kv_cache_write_hnd", KC_BF16, kv_reference_hnd, "kv_cache_hnd_ref", KV_HND_CONTROL);
