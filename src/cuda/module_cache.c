/* module_cache.c — owns the process's table of kept module copies
 * (module_cache.h): one entry per loaded copy, keyed by context and image,
 * looked up and changed under one lock; the copy's function records are its
 * holder's alone. */
#include "module_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "machine_code.h"

typedef struct fn_rec {
    CUfunction fn;
    int max_dynamic_smem, nonportable;     /* as when first handed out */
} fn_rec;

typedef struct copy {
    CUcontext ctx;
    const unsigned char *image;
    CUmodule mod;
    int held;
    fn_rec *fn;
    int nfn;
} copy;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static copy **copies;
static int ncopies, capcopies;

int kc_module_shareable(const kc_fatbin *fb, int sm)
{
    const size_t n = (size_t)(fb->end - fb->start);
    const unsigned char *elf;
    size_t elf_n, globals = 0;
    char why[256];
    int r = kc_fatbin_elf(fb->start, n, sm, &elf, &elf_n, why, sizeof why);
    if (r == 0) return kc_elf_global_bytes(elf, elf_n, &globals, why, sizeof why) == 0 && globals == 0;
    static const unsigned char magic[4] = { 0x50, 0xed, 0x55, 0xba };
    if (r < 0 || (n >= 4 && memcmp(fb->start, magic, 4) == 0)) return 0;
    /* text: a module-scope ".global" declaration (".visible .global .align 4 .u32 x;"), never "ld.global" */
    for (size_t i = 0; i + 8 <= n; i++)
        if (memcmp(fb->start + i, ".global", 7) == 0 && (fb->start[i + 7] == ' ' || fb->start[i + 7] == '\t') &&
            (i == 0 || fb->start[i - 1] == ' ' || fb->start[i - 1] == '\t' || fb->start[i - 1] == '\n'))
            return 0;
    return 1;
}

/* The entry of mod, or NULL (a copy not kept). Under the lock. */
static copy *find(CUmodule mod)
{
    for (int i = 0; i < ncopies; i++)
        if (copies[i]->mod == mod) return copies[i];
    return NULL;
}

CUresult kc_module_take(kc_gpu *gpu, const kc_fatbin *fb, CUmodule *mod)
{
    *mod = NULL;
    const int keep = gpu->share_modules && kc_module_shareable(fb, gpu->dev.cc_major * 10 + gpu->dev.cc_minor);
    if (keep) {
        pthread_mutex_lock(&lock);
        for (int i = 0; i < ncopies; i++)
            if (copies[i]->ctx == gpu->ctx && copies[i]->image == fb->start && !copies[i]->held) {
                copies[i]->held = 1;
                *mod = copies[i]->mod;
                pthread_mutex_unlock(&lock);
                return CUDA_SUCCESS;
            }
        pthread_mutex_unlock(&lock);
    }
    CUresult r = gpu->cu.ModuleLoadData(mod, fb->start);    /* outside the lock: other lanes' takes go on */
    if (r != CUDA_SUCCESS) {
        *mod = NULL;
        return r;
    }
    if (!keep) return CUDA_SUCCESS;
    copy *c = calloc(1, sizeof *c);
    pthread_mutex_lock(&lock);
    if (c && ncopies == capcopies) {
        int cap = capcopies ? 2 * capcopies : 64;
        copy **v = realloc(copies, (size_t)cap * sizeof *v);
        if (v) {
            copies = v;
            capcopies = cap;
        }
    }
    if (c && ncopies < capcopies) {
        *c = (copy){ gpu->ctx, fb->start, *mod, 1, NULL, 0 };
        copies[ncopies++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(c);                /* not kept (out of host memory): kc_module_give unloads it */
    return CUDA_SUCCESS;
}

CUresult kc_module_function(kc_gpu *gpu, CUmodule mod, const char *symbol, CUfunction *fn)
{
    CUresult r = gpu->cu.ModuleGetFunction(fn, mod, symbol);
    if (r != CUDA_SUCCESS) return r;
    pthread_mutex_lock(&lock);
    copy *c = find(mod);
    pthread_mutex_unlock(&lock);
    if (!c) return CUDA_SUCCESS;        /* a fresh load's function: its attributes are fresh */
    for (int i = 0; i < c->nfn; i++)    /* the holder's own records: no lock */
        if (c->fn[i].fn == *fn) {
            if ((r = kc_cuda_func_set(&gpu->cu, *fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      c->fn[i].max_dynamic_smem)) != CUDA_SUCCESS)
                return r;
            return kc_cuda_func_set(&gpu->cu, *fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                    c->fn[i].nonportable);
        }
    fn_rec rec = { *fn, 0, 0 };
    if ((r = gpu->cu.FuncGetAttribute(&rec.max_dynamic_smem, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, *fn)) !=
            CUDA_SUCCESS ||
        (r = gpu->cu.FuncGetAttribute(&rec.nonportable, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, *fn)) !=
            CUDA_SUCCESS)
        return r;
    fn_rec *v = realloc(c->fn, (size_t)(c->nfn + 1) * sizeof *v);
    if (!v) return CUDA_ERROR_OUT_OF_MEMORY;
    c->fn = v;
    c->fn[c->nfn++] = rec;
    return CUDA_SUCCESS;
}

int kc_module_kept(CUmodule mod)
{
    pthread_mutex_lock(&lock);
    const int kept = mod && find(mod);
    pthread_mutex_unlock(&lock);
    return kept;
}

void kc_module_give(kc_gpu *gpu, CUmodule mod)
{
    if (!mod) return;
    pthread_mutex_lock(&lock);
    copy *c = find(mod);
    if (c) c->held = 0;
    pthread_mutex_unlock(&lock);
    if (!c && !gpu->lost) gpu->cu.ModuleUnload(mod);
}

void kc_module_cache_close(kc_gpu *gpu)
{
    pthread_mutex_lock(&lock);
    int w = 0;
    for (int i = 0; i < ncopies; i++) {
        copy *c = copies[i];
        if (c->ctx != gpu->ctx) {
            copies[w++] = c;
            continue;
        }
        if (!gpu->lost) gpu->cu.ModuleUnload(c->mod);
        free(c->fn);
        free(c);
    }
    ncopies = w;
    if (!ncopies) {
        free(copies);
        copies = NULL;
        capcopies = 0;
    }
    pthread_mutex_unlock(&lock);
}

int kc_module_cache_count(const kc_gpu *gpu, int *held)
{
    int n = 0, h = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncopies; i++)
        if (copies[i]->ctx == gpu->ctx) {
            n++;
            h += copies[i]->held;
        }
    pthread_mutex_unlock(&lock);
    if (held) *held = h;
    return n;
}
