/* input_prefetch.h — the host-generated inputs of an item's coming cases,
 * made ahead on the harness's threads while the item's earlier cases run on
 * the GPU and in their references (issue 23: a serial run spent 14.7 of its
 * 70.9 s making inputs, most of it contracts' generators on one thread, one
 * case after another).
 *
 * The gates list an item's cases before running them (kc_prefetch_add, in
 * case order); up to `threads` host threads run the contracts' generators
 * for them in that order into host buffers, holding at most `budget` bytes
 * of buffers made and not yet taken (one buffer larger than the budget is
 * still made, alone). When a case needs such an input, the input cache
 * (inputs.c) takes the made buffer (kc_prefetch_take), waiting for it if a
 * thread is still making it or making it itself if none has started it,
 * and uploads it as it would have uploaded its
 * own. The bits are the same: a generator's output is a pure function of
 * its key and shape (kcontract.h, kc_gen), and kc_gen_default computes on
 * the host the same stream the GPU computes (the gpu.generator suite checks
 * them bit for bit), so an input made ahead equals one made in its case.
 *
 * Generators therefore run on other threads than the item's and several at
 * once: a generator must not keep state of its own between calls (the
 * contract API already requires a pure function of kc_gen). Nothing is made
 * ahead for a buffer without a generator (the GPU makes those in
 * microseconds). */
#ifndef KC_INPUT_PREFETCH_H
#define KC_INPUT_PREFETCH_H
#include <stddef.h>
#include <stdint.h>
#include "kcontract.h"

/* The serial run's budget of made, untaken input buffers: 1 GiB holds the
 * next case's inputs of every bundled contract (the largest, a 512 x 128256
 * f32 logits buffer, is 263 MB) and several of its smaller ones. */
#define KC_PREFETCH_BYTES ((size_t)1 << 30)

typedef struct kc_prefetch kc_prefetch;

/* The generators seen calling kc_gen_default, a session's: their case
 * has the GPU make the stream (inputs.c), which is faster than the host's
 * threads (on the H200, fused_add_rmsnorm's inputs took 0.57 s made ahead
 * against 0.24 s in their cases), so they are not made ahead. */
#define KC_STREAM_GENS_MAX 64
typedef struct kc_stream_gens {
    void (*gen[KC_STREAM_GENS_MAX])(kc_gen *g);
    int n;
} kc_stream_gens;

/* Whether m holds gen. */
int kc_stream_gens_has(const kc_stream_gens *m, void (*gen)(kc_gen *g));
/* Adds gen to m (under p's lock while p's threads may read m; p may be
 * NULL); a full m keeps what it has. */
void kc_stream_gens_add(kc_prefetch *p, kc_stream_gens *m, void (*gen)(kc_gen *g));

/* A prefetch with no cases yet and `threads` threads (at least 1) that hold
 * at most `budget` bytes of made, untaken buffers, and leave to their cases
 * the inputs of generators in `stream_gens` (which they add to when a
 * generator calls kc_gen_default; NULL: none). NULL when out of memory or
 * no thread could start (then inputs are made in their cases, as without). */
kc_prefetch *kc_prefetch_new(int threads, size_t budget, kc_stream_gens *stream_gens);
/* Queues the input of argument a (a buffer with a generator, IN or INOUT) of
 * contract c's case (shape s, distribution dist, case seed `seed`, 0 for a
 * KC_BUFFER_TABLE argument) with `count` elements, unless the same input is
 * queued already. Call before kc_prefetch_go. 0, or -1 out of memory (the
 * input is then made in its case). */
int kc_prefetch_add(kc_prefetch *p, const kc_contract *c, const kc_shape *s, kc_dist dist, uint64_t seed, int a,
                    size_t count);
/* Lets the threads start on the queued inputs, in the order queued. */
void kc_prefetch_go(kc_prefetch *p);
/* The made input matching (seed, shape s's dims, argument a, count) of
 * contract c, handed over: *host is a calloc'd buffer of count elements that
 * the caller frees with free(). Waits while a thread is making it; makes it
 * on the calling thread when no thread has started it. Returns 1 when
 * handed over; 0 when no such input was queued, it was handed over before,
 * or its generator is one of the stream's (make it in the case); -1 when its generator failed, with why (a
 * table generator that drew from kc_rand_*). p may be NULL (returns 0). */
int kc_prefetch_take(kc_prefetch *p, const kc_contract *c, const kc_shape *s, uint64_t seed, int a, size_t count,
                     void **host, char *why, size_t cap);
/* Stops the threads (an input being made is finished first), frees every
 * buffer not taken and p. NULL is ignored. */
void kc_prefetch_free(kc_prefetch *p);
#endif
