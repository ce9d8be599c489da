/* generate.c — owns the generator API of kcontract.h: the xoshiro256**
 * stream of custom generators (kc_rand_*), kc_gen_put, and kc_gen_default,
 * the host side of the built-in distributions (gen_stream.h defines them;
 * the GPU computes the same bits in kernels/harness/harness.cu).
 *
 * kc_rand_* draw only from g->rng, so a custom buffer's contents are a pure
 * function of the seed the runner derived (seed.c); kc_rand_normal has no
 * cached second value for the same reason. kc_gen_default computes element i
 * from g->key and i alone, so it runs in parallel chunks on the harness's
 * threads with the same result on any number of them, unless the harness
 * attached the GPU's copy of exactly this buffer (fill.h, kc_gen_source).
 * kc_gen_rows runs a generator's rows on those threads, each row with a
 * stream of its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dtype.h"
#include "fill.h"
#include "gen_stream.h"
#include "kcontract.h"
#include "parallel.h"
#include "progname.h"
#include "seed.h"

#define INLINE static inline __attribute__((always_inline))

INLINE uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** 1.0 (Blackman and Vigna). */
INLINE uint64_t next(uint64_t s[4]) {
    uint64_t r = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* The top 53 bits as a double in [0, 1). */
INLINE double unit53(uint64_t r) { return (double)(r >> 11) * 0x1p-53; }

/* One draw of approximately N(0, 1) without libm, so a buffer is bit-identical
 * on every machine whatever its libm (glibc's log/sin/cos are not guaranteed
 * correctly rounded, and the GPU hosts run another glibc than CI): the sum of
 * sixteen uniform 16-bit integers from four 64-bit draws, standardised by the
 * Irwin-Hall mean 16*(2^16-1)/2 and deviation sqrt(16*(2^32-1)/12). Integer
 * sums and one IEEE division: exact and portable. Tails end at +-6.93. */
INLINE double normal1(uint64_t s[4]) {
    uint64_t sum = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t r = next(s);
        sum += (r & 0xFFFF) + ((r >> 16) & 0xFFFF) + ((r >> 32) & 0xFFFF) + (r >> 48);
    }
    const double mean = 16.0 * 65535.0 / 2.0;
    const double sd = 75674.45447441297;   /* sqrt(16 * (2^32 - 1) / 12), to the nearest double */
    return ((double)sum - mean) / sd;
}

uint64_t kc_rand_u64(kc_gen *g) { return next(g->rng); }

double kc_rand_uniform(kc_gen *g, double lo, double hi) {
    double v = lo + (hi - lo) * unit53(next(g->rng));
    if (v >= hi && hi > lo) v = nextafter(hi, lo);   /* rounding must not reach hi */
    return v;
}

double kc_rand_normal(kc_gen *g) {
    return normal1(g->rng);
}

/* Lemire's multiply-and-reject: unbiased in [0, range). */
INLINE uint64_t below(uint64_t s[4], uint64_t range) {
    unsigned __int128 m = (unsigned __int128)next(s) * range;
    uint64_t l = (uint64_t)m;
    if (l < range) {
        uint64_t t = -range % range;
        while (l < t) {
            m = (unsigned __int128)next(s) * range;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

int64_t kc_rand_int(kc_gen *g, int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1;
    if (range == 0) return (int64_t)next(g->rng);      /* the full 64-bit range */
    return (int64_t)((uint64_t)lo + below(g->rng, range));
}

void kc_gen_put(kc_gen *g, size_t i, double x) { kc_store(g->dtype, g->data, i, x); }

/* ---- row-parallel generators ---- */

/* g->harness of a row's kc_gen (kc_gen_rows): kc_gen_default refuses it. */
static kc_gen_source in_a_row;

typedef struct rows_job {
    const kc_gen *g;
    uint64_t base;             /* from the parent's state: the rows' streams */
    void (*row)(kc_gen *rg, size_t r);
    int drew;                  /* some row drew (written with __atomic) */
} rows_job;

/* Row r with its own stream (kc_parallel_rows's body). */
static void one_row(void *ctx, size_t r)
{
    rows_job *j = ctx;
    kc_gen rg = *j->g;
    kc_gen_seed(&rg, kc_mix64(j->base ^ (0xD1B54A32D192ED03ULL * (uint64_t)(r + 1))));
    rg.key = j->g->key;
    rg.harness = &in_a_row;
    uint64_t seeded[4];
    memcpy(seeded, rg.rng, sizeof seeded);
    j->row(&rg, r);
    if (memcmp(seeded, rg.rng, sizeof seeded) != 0) __atomic_store_n(&j->drew, 1, __ATOMIC_RELAXED);
}

void kc_gen_rows(kc_gen *g, size_t rows, void (*row)(kc_gen *rg, size_t r))
{
    if (!rows && g->count) {
        kc_say(stderr, "kc_gen_rows called with 0 rows for a buffer of %zu elements (dtype %s): nothing would be "
               "generated (expected the buffer's row count, at least 1)\n", g->count, kc_dtype_name(g->dtype));
        abort();
    }
    if (!rows) return;
    /* The rows' streams come from the parent's state without drawing from
     * it, so a table generator whose rows draw nothing stays a table; when
     * any row drew, the parent draws once, as if it had (the table check,
     * and a second kc_gen_rows gets other streams). */
    rows_job j = { g, kc_mix64(g->rng[0] ^ rotl(g->rng[1], 17) ^ rotl(g->rng[2], 31) ^ rotl(g->rng[3], 47)), row, 0 };
    kc_parallel_rows(rows, g->count / rows, one_row, &j);
    if (__atomic_load_n(&j.drew, __ATOMIC_RELAXED)) (void)next(g->rng);
}

/* ---- the built-in stream on the host ---- */

typedef struct stream_job {
    kc_dtype dtype;
    kc_dist dist;
    uint64_t key;
    void *data;
} stream_job;

static void stream_chunk(void *ctx, size_t begin, size_t end)
{
    const stream_job *j = ctx;
    for (size_t i = begin; i < end; i++) kc_stream_put(j->dtype, j->dist, j->key, j->data, i);
}

#define STREAM_GRAIN ((size_t)1 << 16)   /* elements per chunk on the harness's threads */

void kc_gen_default(kc_gen *g)
{
    kc_gen_source *src = g->harness;
    if (src == &in_a_row) {
        kc_say(stderr, "kc_gen_default called inside a row function of kc_gen_rows (a buffer of %zu %s elements): "
               "call it on the whole buffer's kc_gen before kc_gen_rows\n", g->count, kc_dtype_name(g->dtype));
        abort();
    }
    if (src && src->data == g->data && src->count == g->count && src->dtype == g->dtype && src->dist == g->dist &&
        src->key == g->key && src->fill(src) == 0)
        return;
    if (kc_dtype_size(g->dtype) == 0) return;
    stream_job j = { g->dtype, g->dist, g->key, g->data };
    kc_parallel_for(g->count, STREAM_GRAIN, stream_chunk, &j);
}
