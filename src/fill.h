/* fill.h — filling a generated input buffer. The built-in generator runs in
 * parallel over fixed chunks of KC_FILL_CHUNK elements, chunk c seeded by
 * kc_mix64(seed + c * golden ratio), so the contents depend only on the seed
 * and never on the number of threads; a buffer of one chunk or less is the
 * plain kc_gen_default stream. A contract's own generator runs once over the
 * whole buffer (it may lay out rows, masks or indices). */
#ifndef KC_FILL_H
#define KC_FILL_H
#include <stdint.h>
#include "kcontract.h"

#define KC_FILL_CHUNK ((size_t)1 << 22)   /* elements */

/* Fills g->data (g->count elements of g->dtype) from seed, with gen or the
 * built-in generator when gen is NULL, on the harness's threads
 * (kc_parallel_threads); the contents never depend on their number. */
void kc_fill(kc_gen *g, uint64_t seed, void (*gen)(kc_gen *));
#endif
