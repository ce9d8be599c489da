/* gates.h — running one item on the GPU: a kernel through gates 1-4 over every
 * shape and distribution, a control until some gate catches it, or a kernel's
 * limit checks. Results are plain data (result.h); item_run.c prints them.
 * The layer's public header: it also gives the figures of a case (case.h)
 * and the sanitizer's target (sanitize_target.h) to the layers above. */
#ifndef KC_GATES_H
#define KC_GATES_H
#include <stddef.h>
#include <stdint.h>
#include "gpu.h"
#include "item.h"
#include "line_text.h"
#include "result.h"
#include "run_options.h"
#include "case.h"
#include "sanitize_target.h"

/* Runs a kernel, control or limit item into *res (result.h: state, gate,
 * limit problems, stale findings, cases, message, context_lost, time split;
 * reset first). Further lines (indented, may be none: also, known, stale
 * known finding) are added to *detail (kc_lines_init'ed by the caller), each
 * whole or cut at its cap with the marker that says how much was cut
 * (line_text.h). seed is --seed, mode --reference. o: the run's settings,
 * with which a known finding's case that loses the CUDA context runs alone in
 * a fresh process, and the cases after it in another (known_fault.h); NULL:
 * such a case FAILs the item as any lost context does. */
void kc_run_gpu_item(kc_gpu *gpu, const kc_item *it, uint64_t seed, kc_ref_mode mode, const kc_opts *o,
                     kc_item_result *res, kc_lines *detail);
/* The --cases I:J process (known_fault.h): kernel item o->patterns[0]'s
 * cases [I, J) on device o->device, their sums on stdout. 0; 2 a usage
 * error; 3 no GPU. */
int kc_cases_target(const kc_opts *o, const kc_item *items, int n);

#endif
