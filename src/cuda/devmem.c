/* devmem.c — owns the reuse of device buffers between an item's cases
 * (devmem.h): a small table per session of live and kept buffers with their
 * sizes. One table a session or lane, used by one thread. Allocation is
 * kc_cuda_alloc's: stream-ordered on the thread's stream in a lane
 * (cuda_driver.h), so an item's end frees without waiting for the device. */
#include "devmem.h"

#include <stdlib.h>

#include "gpu.h"

typedef struct kc_devbuf {
    CUdeviceptr ptr;
    size_t bytes;
    int kept;                  /* freed by its case, waiting for reuse */
} kc_devbuf;

struct kc_devmem {
    kc_devbuf *v;
    int n, cap;
};

static struct kc_devmem *table(kc_gpu *gpu)
{
    if (!gpu->devmem) gpu->devmem = calloc(1, sizeof *gpu->devmem);
    return gpu->devmem;
}

static void drop_kept(kc_gpu *gpu, struct kc_devmem *m)
{
    int w = 0;
    for (int i = 0; i < m->n; i++) {
        if (m->v[i].kept) {
            if (!gpu->lost) kc_cuda_free(&gpu->cu, m->v[i].ptr);
        } else {
            m->v[w++] = m->v[i];
        }
    }
    m->n = w;
}

CUresult kc_devmem_alloc(kc_gpu *gpu, CUdeviceptr *p, size_t n)
{
    struct kc_devmem *m = table(gpu);
    if (!n) n = 1;
    if (m) {
        int best = -1;
        for (int i = 0; i < m->n; i++)
            if (m->v[i].kept && m->v[i].bytes >= n && m->v[i].bytes / 2 <= n &&
                (best < 0 || m->v[i].bytes < m->v[best].bytes))
                best = i;
        if (best >= 0) {
            m->v[best].kept = 0;
            *p = m->v[best].ptr;
            return CUDA_SUCCESS;
        }
    }
    CUresult r = kc_cuda_alloc(&gpu->cu, p, n);
    if (r == CUDA_ERROR_OUT_OF_MEMORY && m) {
        drop_kept(gpu, m);
        r = kc_cuda_alloc(&gpu->cu, p, n);
    }
    if (r != CUDA_SUCCESS) {
        *p = 0;
        return r;
    }
    if (m && m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 32;
        kc_devbuf *v = realloc(m->v, (size_t)cap * sizeof *v);
        if (!v) return CUDA_SUCCESS;           /* untracked: kc_devmem_free frees it at once */
        m->v = v;
        m->cap = cap;
    }
    if (m) m->v[m->n++] = (kc_devbuf){ *p, n, 0 };
    return CUDA_SUCCESS;
}

void kc_devmem_free(kc_gpu *gpu, CUdeviceptr p)
{
    if (!p) return;
    struct kc_devmem *m = gpu->devmem;
    for (int i = 0; m && i < m->n; i++)
        if (m->v[i].ptr == p) {
            m->v[i].kept = 1;
            return;
        }
    if (!gpu->lost) kc_cuda_free(&gpu->cu, p);
}

void kc_devmem_release(kc_gpu *gpu)
{
    struct kc_devmem *m = gpu->devmem;
    if (!m) return;
    for (int i = 0; i < m->n; i++)
        if (!gpu->lost) kc_cuda_free(&gpu->cu, m->v[i].ptr);   /* live ones too: the item is over */
    free(m->v);
    free(m);
    gpu->devmem = NULL;
}

size_t kc_devmem_kept(const kc_gpu *gpu)
{
    size_t k = 0;
    for (int i = 0; gpu->devmem && i < gpu->devmem->n; i++)
        if (gpu->devmem->v[i].kept) k += gpu->devmem->v[i].bytes;
    return k;
}
