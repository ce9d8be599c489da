/* gates.h — running one item on the GPU: a kernel through gates 1-4 over every
 * shape and distribution, a control until some gate catches it, or a kernel's
 * limit checks. Results are plain data (result.h); item_run.c prints them. */
#ifndef KC_GATES_H
#define KC_GATES_H
#include <stddef.h>
#include <stdint.h>
#include "gpu.h"
#include "item.h"
#include "line_text.h"
#include "result.h"

/* Runs a kernel, control or limit item into *res (result.h: state, gate,
 * limit problems, stale findings, cases, message, context_lost, time split;
 * reset first). Further lines (indented, may be none: also, known, stale
 * known finding) are added to *detail (kc_lines_init'ed by the caller), each
 * whole or cut at its cap with the marker that says how much was cut
 * (line_text.h). seed is --seed, mode --reference. */
void kc_run_gpu_item(kc_gpu *gpu, const kc_item *it, uint64_t seed, kc_ref_mode mode, kc_item_result *res,
                     kc_lines *detail);

/* "edge.33 (rows=1, cols=33)" */
void kc_shape_describe(const kc_contract *c, const kc_shape *s, char *buf, size_t cap);
/* Bytes of device and host memory one case of shape s needs under --reference
 * mode, for memory plans: on the device its pristine inputs, two guarded
 * buffer sets (gate 4's relaunch) and the float64 reference(s); on the host
 * what a contract's generator fills, and for a host reference its inputs
 * and outputs. */
void kc_case_memory(const kc_contract *c, const kc_shape *s, kc_ref_mode mode, size_t *host_bytes, size_t *gpu_bytes);
/* Whether gate 3 runs the contract's host reference under mode (it has no
 * device reference, or --reference host or both), and its device reference. */
int kc_uses_host_reference(const kc_contract *c, kc_ref_mode mode);
int kc_uses_device_reference(const kc_contract *c, kc_ref_mode mode);

/* The shapes the sanitizer gate runs (sanitize.h): every edge shape, then the
 * model shape with the smallest device footprint; at most cap into out.
 * Returns how many. */
int kc_sanitize_shapes(const kc_contract *c, const kc_shape **out, int cap);
/* The sanitizer's target: for each kc_sanitize_shapes shape, its first
 * distribution's inputs, every buffer in a cuMemAlloc of exactly its size
 * (no guard bands; outputs left as allocated, so a read of an output element
 * before any write reads memory no one wrote), one launch of the contract's
 * kernel (control: its build), synchronized; no checks. With edges_only
 * (racecheck's request) the edge shapes launch together, each on its own
 * non-blocking stream, up to KC_SAN_TOGETHER_MAX of them a round, their
 * buffers and inputs within what the memory plan admits the item with (its
 * largest shape's case, kc_item_memory) and KC_SAN_TOGETHER_BYTES, then one
 * synchronize:
 * racecheck instruments every shared-memory access, and an edge shape is a
 * few blocks that leave most SMs idle while its context holds the GPU
 * (H200, run 14: eight one-block launches on eight streams took 7.5 s under
 * racecheck, one alone 3.5 s). A hazard is between two accesses of one
 * launch (one block's shared memory; a cluster's distributed shared memory
 * is its blocks', still of one launch), so launches side by side hide none.
 * A library's entry (its own stream) launches one at a time. 0 with a summary in
 * msg ("3 launches of X (dist uniform): edge.1 edge.33 model.4096"); 1 with
 * the first failure (a gate 1 line, or an internal error) in msg. st gets
 * (edges_only: the edge shapes alone, racecheck's share) what the
 * sanitizer gate plans its tools by: the shared memory the kernel
 * uses (racecheck checks shared memory only), the slowest launch made
 * alone, and how many launched together. */
typedef struct kc_exact_stats {
    long smem_bytes;              /* the most shared memory (static + dynamic) of one launch; -1 a library kernel (unknown) */
    const char *slowest;          /* the shape whose launch took longest (its name), NULL none */
    double slowest_s;             /* its seconds, inputs to synchronize (under a sanitizer: the tool's work) */
    int together;                 /* the most shapes launched together in one round; 0 one at a time */
} kc_exact_stats;
#define KC_SAN_TOGETHER_MAX 16
#define KC_SAN_TOGETHER_BYTES ((size_t)1 << 30)
int kc_run_exact_launches(kc_gpu *gpu, const kc_contract *c, const char *control, uint64_t seed, int edges_only,
                          char *msg, size_t cap, kc_exact_stats *st);
#endif
