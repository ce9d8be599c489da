/* fill.h — filling a generated input buffer on the host: a contract's own
 * generator, or the built-in stream (kc_gen_default, gen_stream.h), whose
 * element i depends only on the buffer's key and i, so it runs in parallel
 * chunks with the same bits on any number of threads. The harness may attach
 * a kc_gen_source to g->harness: the GPU's copy of the built-in stream for
 * exactly that buffer, which kc_gen_default then copies instead of computing
 * (a custom generator that starts from the built-in stream, or uses it for
 * some distributions, costs a download, not a host generation). */
#ifndef KC_FILL_H
#define KC_FILL_H
#include <stddef.h>
#include <stdint.h>
#include "kcontract.h"

/* A ready copy of the built-in stream for one buffer: kc_gen_default(g) calls
 * fill(src) when g->harness is src and g's data, count, dtype, dist and key
 * are these. fill writes the stream into data and returns 0, or returns -1
 * (kc_gen_default then computes it on the host). */
typedef struct kc_gen_source {
    void *data;
    size_t count;
    kc_dtype dtype;
    kc_dist dist;
    uint64_t key;
    int (*fill)(struct kc_gen_source *src);
    void *ctx;                 /* the fill function's own */
} kc_gen_source;

/* The key of argument a's built-in stream in the case seeded case_seed: the
 * same in every process, on the host and on the GPU. */
uint64_t kc_buffer_key(uint64_t case_seed, int a);

/* Seeds g (its kc_rand_* state and its stream key) from key and fills
 * g->data (g->count elements of g->dtype) with gen, or with the built-in
 * stream when gen is NULL. A custom generator starts from zeroed memory,
 * which the caller provides. */
void kc_fill(kc_gen *g, uint64_t key, void (*gen)(kc_gen *));
/* The generator that makes argument ar's buffer under distribution d: its
 * gen, or NULL (the built-in stream) when it has none or its gen_on leaves
 * d out. */
void (*kc_arg_gen_for(const kc_arg *ar, kc_dist d))(kc_gen *);
/* As kc_fill for argument ar of a contract: its generator, its range
 * (kc_arg.range, on the host), or the built-in stream. Returns 0, or -1 when
 * ar is a table (KC_BUFFER_TABLE) whose generator drew from kc_rand_*. */
int kc_fill_arg(kc_gen *g, uint64_t key, const kc_arg *ar);
/* Whether a table generator kept its word: g's kc_rand_* state is still the
 * one kc_gen_seed gave it for key. */
int kc_gen_drew_nothing(const kc_gen *g, uint64_t key);
#endif
