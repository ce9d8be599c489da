/* inputs.h — the generated inputs of a process's cases, on the device: each
 * input buffer is made once as a pristine device copy (the built-in stream by
 * the GPU, kc_dev_fill_stream; a contract's own generator on the host, then
 * uploaded) and kept in a per-process cache, keyed by the case seed and the
 * argument, so the controls of a contract (same contract name: same case
 * seeds, same inputs) reuse what its earlier items made. A case copies the
 * pristine input into its guarded buffers on the device, checks after the
 * launch that an input came back unchanged against it, and references read
 * it (on the device, or downloaded for a host reference).
 *
 * Entries the current case uses are pinned; the rest are evicted, least
 * recently used first, while the cache holds more than its budget. */
#ifndef KC_INPUTS_H
#define KC_INPUTS_H
#include <stddef.h>
#include <stdint.h>
#include "cuda_driver.h"
#include "item.h"
#include "kcontract.h"

/* Device bytes kept for later items beyond the current case's own inputs,
 * per process (the --jobs memory plan counts it as overhead). 2 GiB holds
 * every input of all but the largest shapes of the bundled contracts. */
#define KC_INPUT_CACHE_BYTES ((size_t)2 << 30)

typedef struct kc_inputs kc_inputs;
struct kc_gpu;

/* An empty cache that keeps up to `budget` unpinned bytes; NULL when out of
 * host memory. */
kc_inputs *kc_inputs_new(size_t budget);
/* Frees every entry (on the device unless the context is lost) and the cache. */
void kc_inputs_free(struct kc_gpu *gpu, kc_inputs *in);

/* The pristine device copy of input argument a (IN or INOUT, count elements)
 * of contract c's case (shape s, distribution dist, seed case_seed), made now
 * or found in the cache, pinned until kc_inputs_unpin. Counts what it did
 * into stats (inputs_made_gpu, inputs_made_host, inputs_reused). Returns
 * CUDA_SUCCESS; a CUDA error (CUDA_ERROR_OUT_OF_MEMORY included: the
 * harness's failure, never the kernel's), or CUDA_ERROR_UNKNOWN with why set
 * when host memory ran out. */
CUresult kc_inputs_get(struct kc_gpu *gpu, const kc_contract *c, const kc_shape *s, kc_dist dist, uint64_t case_seed,
                       int a, size_t count, CUdeviceptr *out, kc_time_split *stats, char *why, size_t cap);
/* Unpins every entry (the case is over) and evicts down to the budget. */
void kc_inputs_unpin(struct kc_gpu *gpu, kc_inputs *in);
/* Bytes held on the device now (pinned and kept). */
size_t kc_inputs_held(const kc_inputs *in);
#endif
