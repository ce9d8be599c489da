/* devmem.h — device buffers of a GPU item's cases (guarded buffer sets,
 * float64 references), kept when freed and handed to a later case of the
 * same item. cuMemFree waits for the whole device, and a process with many
 * small cases paid that wait several times a case; on one GPU shared by N
 * workers each wait also waits for the other contexts' time slices (H200,
 * 2026-12-01: a --jobs 8 run spent 179 s of item time in checks that a
 * serial run did in 3.5 s). An item's cases mostly repeat the same sizes (one
 * shape, several distributions, gate 4's second set), so a freed buffer is
 * kept and reused for a request of n to 2n bytes; everything is freed at the
 * item's end (kc_devmem_release), so an item holds at most what its cases
 * need at once plus what the previous case freed: the memory plan's per-case
 * figure (kc_case_memory) counts both sets and the references already. */
#ifndef KC_DEVMEM_H
#define KC_DEVMEM_H
#include <stddef.h>
#include "cuda_driver.h"

struct kc_gpu;

/* A device buffer of n bytes (n 0 gets 1), reused when one kept fits (n to
 * 2n bytes), else cuMemAlloc'ed; on CUDA_ERROR_OUT_OF_MEMORY every kept
 * buffer is freed and the allocation tried once more. */
CUresult kc_devmem_alloc(struct kc_gpu *gpu, CUdeviceptr *p, size_t n);
/* Keeps p (0 is ignored) for reuse; nothing is freed on the device. */
void kc_devmem_free(struct kc_gpu *gpu, CUdeviceptr p);
/* Frees every kept buffer (nothing when the context is lost): an item's end. */
void kc_devmem_release(struct kc_gpu *gpu);
/* Bytes kept now. */
size_t kc_devmem_kept(const struct kc_gpu *gpu);
#endif
