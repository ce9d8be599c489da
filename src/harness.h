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

typedef struct kc_harness {
    CUmodule mod;
    CUfunction poison, gen, bytes, unwritten, differs, close;
    CUdeviceptr parts;              /* KC_HARNESS_MAX_BLOCKS partial results of a check */
    void *host_parts;               /* their host copy */
    int sm_count;
    size_t smem_optin, smem_default;
} kc_harness;

/* Loads the embedded "harness" module on the current context and allocates
 * its result buffers. Returns 0, or 1 with the reason in why (the module is
 * not embedded, does not load on this device's compute capability, a kernel
 * is missing, or memory ran out). */
int kc_harness_open(kc_cuda *cu, const kc_device *dev, kc_harness *h, char *why, size_t cap);
/* Frees the module and buffers; lost: the context is unusable, free nothing
 * on the device. */
void kc_harness_close(kc_cuda *cu, kc_harness *h, int lost);

struct kc_gpu;
/* Fills every SM's shared memory with 0xFF before a checked launch. */
CUresult kc_dev_poison_smem(struct kc_gpu *gpu);
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
/* Gate 3's scan of n elements of out (dtype t) against the float64 reference
 * ref under tol (integers exactly whatever tol says): res as
 * kc_compare_output gives it on the host. */
CUresult kc_dev_compare(struct kc_gpu *gpu, CUdeviceptr out, kc_dtype t, CUdeviceptr ref, size_t n, kc_tol tol,
                        kc_compare *res);
/* Element i of the array of dtype t at p, as a double (for failure lines). */
CUresult kc_dev_read_value(struct kc_gpu *gpu, CUdeviceptr p, kc_dtype t, size_t i, double *v);
#endif
