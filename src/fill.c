/* fill.c — owns seeding a generated input buffer and running its generator
 * on the host (fill.h): a buffer's key from its case seed and argument, the
 * kc_rand_* state derived from the key, then the contract's generator or
 * the built-in stream. */
#include "fill.h"

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
