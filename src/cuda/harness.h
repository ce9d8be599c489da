/* harness.h — the host end of the harness's own device module
 * (kernels/harness/harness.cu, embedded as module "harness"): loading it,
 * and launching its generator and checks and reading back their results.
 * Everything here runs on the context's default stream, in order with the
 * kernel under test; a function returns the first CUDA error it met (a
 * sticky one means the context is lost: the caller marks it). Partial results
 * come back one per block and are folded with check_rules.h, so a count, a
 * first index and a worst element equal those of one sequential host scan. */
#ifndef KC_HARNESS_H
#define KC_HARNESS_H
#include <stddef.h>
#include <stdint.h>
#include "cuda_driver.h"
#include "kcontract.h"
#include "tolerance.h"

#define KC_HARNESS_THREADS 256      /* threads per block of every check (harness.cu) */
#define KC_HARNESS_MAX_BLOCKS 1024  /* partial results per check, at most */
#define KC_BATCH_MAX_CHECKS 64      /* count checks queued in one kc_check_batch */
#define KC_BATCH_PARTS (KC_BATCH_MAX_CHECKS * KC_HARNESS_MAX_BLOCKS)

typedef struct kc_harness {
    CUmodule mod;
    CUfunction poison, gen, bytes, unwritten, differs, close;
    CUdeviceptr parts;              /* KC_HARNESS_MAX_BLOCKS partial results of a check */
    void *host_parts;               /* their host copy */
    CUdeviceptr batch_parts;        /* KC_BATCH_PARTS count partials of a kc_check_batch */
    void *host_batch_parts;         /* their host copy */
    int sm_count;
    size_t smem_optin, smem_default;
    /* The poison's dynamic shared memory per block: the opt-in maximum, set
     * on its function once when the harness opens (cuFuncSetAttribute waits
     * for the context's work: on the H200 it was 79 of 132 item-seconds of
     * 16 lanes when set before every poison, docs/receipts/2026-12-03-h200-lanes),
     * or the default where the function refuses it. */
    int poison_smem;
    /* 1: host_parts and host_batch_parts are page-locked (cuMemAllocHost),
     * so reading a check's results back skips the driver's staging buffer,
     * which lanes of one context share: on the H200 the pageable copies
     * were 2.2 ms each beside 16 lanes against 0.2 ms serially
     * (docs/receipts/2026-12-03-h200-lanes); 0: malloc'd (no such entry) */
    int host_pinned;
} kc_harness;

/* The harness module's kernels by name (kernels/harness/harness.cu): its
 * shared-memory poison, input generator and checks. The sanitizer gate leaves
 * them unchecked (sanitize.h). */
#define KC_HARNESS_KERNELS 6
extern const char *const kc_harness_kernel_names[KC_HARNESS_KERNELS];

/* Loads the embedded "harness" module on the current context and allocates
 * its result buffers. Returns 0, or 1 with the reason in why (the module is
 * not embedded, does not load on this device's compute capability, a kernel
 * is missing, or memory ran out). */
int kc_harness_open(kc_cuda *cu, const kc_device *dev, kc_harness *h, char *why, size_t cap);
/* Frees the module and buffers; lost: the context is unusable, free nothing
 * on the device. */
void kc_harness_close(kc_cuda *cu, kc_harness *h, int lost);

struct kc_gpu;
/* Shared-memory poison patterns (kernels/harness/harness.cu): 0xFF bytes
 * (NaN in f16, bf16, f32) before a case's launch; 0x7B bytes (1.3e36 in f32
 * and bf16, 60768 in f16: large and finite) before gate 4's relaunch. A
 * kernel that reads shared memory no thread wrote through fmaxf or fminf
 * (which drop a NaN) passes on the first pattern and differs on the second:
 * found by mutation analysis (block maxima reading one slot past the warps'
 * partials, docs/receipts/2026-12-02-h200-mutate-run). */
#define KC_SMEM_POISON 0xFFFFFFFFu
#define KC_SMEM_POISON_RELAUNCH 0x7B7B7B7Bu
/* Fills every SM's shared memory with the 32-bit pattern before a checked launch. */
CUresult kc_dev_poison_smem(struct kc_gpu *gpu, unsigned pattern);
/* A ranged stream's bounds (kc_arg.range); on 0: the distribution's values. */
typedef struct kc_stream_range {
    int on;
    double lo, hi;
} kc_stream_range;

/* Writes the built-in stream (gen_stream.h) of (t, d, key) into count
 * elements at dst; with range->on, the ranged stream of [lo, hi] instead
 * (range may be NULL). */
CUresult kc_dev_fill_stream(struct kc_gpu *gpu, CUdeviceptr dst, kc_dtype t, kc_dist d, uint64_t key, size_t count,
                            const kc_stream_range *range);
/* Counts the bytes of p[0..n) that are not `expect`; *first gets the first
 * one's offset (n when none). */
CUresult kc_dev_count_not(struct kc_gpu *gpu, CUdeviceptr p, size_t n, uint8_t expect, size_t *count, size_t *first);
/* Counts the elements (esize bytes each) of a still all poison pa and, when b
 * is not 0, of b all poison pb: left unwritten by the launch(es) that wrote
 * a and b. *first gets the first index (count when none). */
CUresult kc_dev_count_unwritten(struct kc_gpu *gpu, CUdeviceptr a, CUdeviceptr b, size_t count, size_t esize,
                                uint8_t pa, uint8_t pb, size_t *n, size_t *first);
/* Counts the elements that differ bitwise between a and b; *first gets the
 * first index (count when none). */
CUresult kc_dev_count_differs(struct kc_gpu *gpu, CUdeviceptr a, CUdeviceptr b, size_t count, size_t esize,
                              size_t *n, size_t *first);
/* A batch of count checks (bytes not `expect`, unwritten, differs) launched
 * one after another on the default stream and read back with one copy: a
 * case's gate 2 is one synchronization instead of one per check. Where N
 * processes share a GPU, every synchronization waits for the other
 * contexts' time slices; on an H200 at --jobs 8 the checks' item time was
 * 51 times the serial run's with one copy per check (docs/receipts/
 * 2026-12-01-h200-device-pipeline.md). Usage: kc_batch_begin; each
 * kc_batch_* returns the check's slot (or -1: b->r says why, and the batch
 * fails at kc_batch_finish); kc_batch_finish copies and folds; then
 * b->count[slot] and b->first[slot] (first: the check's element count when
 * none) hold what the single-check functions return. */
typedef struct kc_check_batch {
    int n;                                  /* checks queued */
    unsigned used;                          /* partials taken */
    unsigned off[KC_BATCH_MAX_CHECKS], blocks[KC_BATCH_MAX_CHECKS];
    size_t none_as[KC_BATCH_MAX_CHECKS];
    size_t count[KC_BATCH_MAX_CHECKS], first[KC_BATCH_MAX_CHECKS];
    CUresult r;                             /* the first error met */
} kc_check_batch;

void kc_batch_begin(kc_check_batch *b);
int kc_batch_count_not(struct kc_gpu *gpu, kc_check_batch *b, CUdeviceptr p, size_t n, uint8_t expect);
int kc_batch_count_unwritten(struct kc_gpu *gpu, kc_check_batch *b, CUdeviceptr a, CUdeviceptr pb_buf, size_t count,
                             size_t esize, uint8_t pa, uint8_t pb);
int kc_batch_count_differs(struct kc_gpu *gpu, kc_check_batch *b, CUdeviceptr a, CUdeviceptr bb, size_t count,
                           size_t esize);
/* Waits for the queued checks (one device-to-host copy) and folds each:
 * returns b->r, or the copy's error. */
CUresult kc_batch_finish(struct kc_gpu *gpu, kc_check_batch *b);

/* Gate 3's scan of n elements of out (dtype t) against the float64 reference
 * ref under tol (integers exactly whatever tol says): res as
 * kc_compare_output gives it on the host. */
CUresult kc_dev_compare(struct kc_gpu *gpu, CUdeviceptr out, kc_dtype t, CUdeviceptr ref, size_t n, kc_tol tol,
                        kc_compare *res);
/* The same scan where the allowed error also scales with a magnitude per
 * element (an error model's bound, kcontract.h kc_arith): allowed = atol +
 * rtol |ref| + mtol mag[i] (check_rules.h, kc_rule_allowed_mag); mag 0 is
 * kc_dev_compare. */
CUresult kc_dev_compare_mag(struct kc_gpu *gpu, CUdeviceptr out, kc_dtype t, CUdeviceptr ref, CUdeviceptr mag, size_t n,
                            kc_tol tol, double mtol, kc_compare *res);
/* Element i of the array of dtype t at p, as a double (for failure lines). */
CUresult kc_dev_read_value(struct kc_gpu *gpu, CUdeviceptr p, kc_dtype t, size_t i, double *v);
#endif
