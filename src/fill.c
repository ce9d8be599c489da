/* fill.c — parallel filling of generated inputs (see fill.h): fixed chunks of
 * KC_FILL_CHUNK elements on the harness's threads (parallel.c), with
 * deterministic per-chunk seeds. Measured motive: one thread fills f16
 * uniform at ~4 ns an element, so the 2.15e9-element reduction shape took
 * ~9 s a case. */
#include "fill.h"

#include "dtype.h"
#include "parallel.h"
#include "seed.h"

typedef struct fill_job {
    const kc_gen *g;
    uint64_t seed;
} fill_job;

static void fill_chunk(void *ctx, size_t c, size_t first, size_t end)
{
    const fill_job *j = ctx;
    kc_gen part = *j->g;
    part.data = (char *)part.data + first * kc_dtype_size(part.dtype);
    part.count = end - first;
    kc_gen_seed(&part, kc_mix64(j->seed + (uint64_t)c * 0x9E3779B97F4A7C15ULL));
    kc_gen_default(&part);
}

void kc_fill(kc_gen *g, uint64_t seed, void (*gen)(kc_gen *))
{
    if (gen || g->count <= KC_FILL_CHUNK) {
        kc_gen_seed(g, seed);
        if (gen) gen(g);
        else kc_gen_default(g);
        return;
    }
    fill_job j = { .g = g, .seed = seed };
    kc_parallel_chunks(g->count, KC_FILL_CHUNK, fill_chunk, &j);
}
