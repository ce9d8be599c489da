/* module_cache.h — kernel modules kept loaded for a per-thread session's
 * lanes (issue 23, part 1). Loading a module and unloading it per item took
 * the context's locks and, with lazy loading, loaded each function again at
 * its first use (which may synchronize the context): lanes of one context
 * waited on each other there (docs/receipts/2026-12-02-h200-inflight-lanes).
 * With gpu->share_modules, a module image is loaded once per context and
 * its copy kept across items; a copy is held by one item at a time (a
 * second item of the same image meanwhile gets a copy of its own), so two
 * items never change one function's attributes under each other, and a
 * function handed out again has the attributes of a fresh load
 * (kc_module_function). An image whose module has device variables
 * (machine_code.h: kc_elf_global_bytes), or that cannot be read, is loaded
 * for the item and unloaded after it, as without the cache: its variables
 * would carry one item's state into the next. Without share_modules (a
 * legacy session: K = 1) every call loads and unloads, as always. */
#ifndef KC_MODULE_CACHE_H
#define KC_MODULE_CACHE_H
#include "cuda_driver.h"
#include "fatbin.h"

struct kc_gpu;

/* A loaded module of image fb for the calling thread's item into *mod: a
 * kept copy no item holds, or a fresh load (kept at kc_module_give when the
 * image may be shared). Returns the driver's result (*mod NULL on failure). */
CUresult kc_module_take(struct kc_gpu *gpu, const kc_fatbin *fb, CUmodule *mod);
/* Function symbol of mod into *fn; of a kept copy, with its dynamic shared
 * memory limit and non-portable cluster permission as when first handed
 * out (an earlier item may have raised them). Returns the driver's result. */
CUresult kc_module_function(struct kc_gpu *gpu, CUmodule mod, const char *symbol, CUfunction *fn);
/* The item is done with mod: a kept copy is free for the next item, any
 * other is unloaded (nothing on the device once the session is lost). */
void kc_module_give(struct kc_gpu *gpu, CUmodule mod);
/* Whether mod is a kept copy (kc_module_give keeps it loaded). */
int kc_module_kept(CUmodule mod);
/* Unloads every kept copy of gpu's context (nothing on the device once the
 * session is lost) and forgets them: the session's end, before its context
 * is released. */
void kc_module_cache_close(struct kc_gpu *gpu);
/* Copies kept for gpu's context now, and how many of them items hold (for
 * tests and the bench). */
int kc_module_cache_count(const struct kc_gpu *gpu, int *held);
/* Whether image fb may be kept and shared between items on a device of
 * compute capability sm (90 for 9.0): its sm ELF has no device variables,
 * or, an image that is no fatbin (PTX text, the fake driver's), it declares
 * no .global variable. A fatbin without that architecture's ELF, or one
 * that cannot be read, may not. */
int kc_module_shareable(const kc_fatbin *fb, int sm);
#endif
