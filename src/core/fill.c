/* fill.c — owns seeding a generated input buffer and running its generator
 * on the host (fill.h): a buffer's key from its case seed and argument, the
 * kc_rand_* state derived from the key, then the contract's generator or
 * the built-in stream. */
#include "fill.h"

#include <string.h>

#include "dtype.h"
#include "gen_stream.h"
#include "seed.h"

uint64_t kc_buffer_key(uint64_t case_seed, int a)
{
    return kc_mix64(case_seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(a + 1)));
}

void kc_fill(kc_gen *g, uint64_t key, void (*gen)(kc_gen *))
{
    kc_gen_seed(g, key);
    if (gen) gen(g);
    else kc_gen_default(g);
}

int kc_gen_drew_nothing(const kc_gen *g, uint64_t key)
{
    kc_gen fresh;
    memset(&fresh, 0, sizeof fresh);
    kc_gen_seed(&fresh, key);
    return memcmp(fresh.rng, g->rng, sizeof fresh.rng) == 0;
}

void (*kc_arg_gen_for(const kc_arg *ar, kc_dist d))(kc_gen *)
{
    if (ar->gen_on && !(ar->gen_on & KC_DIST_BIT(d))) return NULL;
    return ar->gen;
}

int kc_fill_arg(kc_gen *g, uint64_t key, const kc_arg *ar)
{
    void (*gen)(kc_gen *) = kc_arg_gen_for(ar, g->dist);
    if (ar->range && !gen) {
        double lo = 0, hi = 0;
        ar->range(g->shape, &lo, &hi);
        kc_gen_seed(g, key);
        for (size_t i = 0; i < g->count; i++) kc_stream_put_range(g->dtype, key, g->data, i, lo, hi);
        return 0;
    }
    kc_fill(g, key, gen);
    return ar->table && !kc_gen_drew_nothing(g, key) ? -1 : 0;
}
