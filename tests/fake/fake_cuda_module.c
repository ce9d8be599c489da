/* fake_cuda_module.c — the fake driver's modules and functions (fake_cuda.c
 * says what the library is): loading an image ("KCFAKE <module> <control>",
 * or a real fatbin or cubin of an emulated module) into a module of the
 * kernel table's functions, the module's kc_watchdog_ns global
 * (KC_FAKE_WATCHDOG), looking up its functions, their parameter info and
 * attributes (registers, shared and local memory, the settable dynamic
 * shared memory and non-portable cluster size), and the sticky faults a
 * load or a lookup may be the first to see (KC_FAKE_LOAD_LOST,
 * KC_FAKE_FUNC_LOST). KC_FAKE_LOAD_SAYS="<control>=<text>": loading an image
 * "KCFAKE <module> <control>" prints text and a newline on stdout, as an
 * item's host code or a kernel's printf may print a line that reads as a
 * verdict (tests/test_mutate_trust.c). */
#include <cuda.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"
#include "fake_cuda_state.h"

/* A real fatbin (nvcc's, magic 0xBA55ED50, its size in the header) or cubin is taken
 * for the clean build of the emulated module whose kernel symbol it names:
 * so the real harness image of an installed libkcontract loads here too. */
static const char *fatbin_module(const void *image)
{
    const unsigned char *p = image;
    uint32_t magic;
    uint16_t hsize;
    uint64_t fsize;
    size_t len;
    memcpy(&magic, p, 4);
    if (magic == 0xBA55ED50u) {
        memcpy(&hsize, p + 6, 2);
        memcpy(&fsize, p + 8, 8);
        len = hsize + fsize;
    } else if (memcmp(p, "\177ELF\2", 5) == 0) {
        /* a cubin (an ELF64 image, as kcontract mutate loads): it ends with
         * its section header table (e_shoff, e_shentsize x e_shnum) */
        uint64_t shoff;
        uint16_t shentsize, shnum;
        memcpy(&shoff, p + 0x28, 8);
        memcpy(&shentsize, p + 0x3a, 2);
        memcpy(&shnum, p + 0x3c, 2);
        len = shoff + (size_t)shentsize * shnum;
    } else {
        return NULL;
    }
    for (int i = 0; i < NKERNELS; i++)
        if (fake_kernels[i].symbol && memmem(p, len, fake_kernels[i].symbol, strlen(fake_kernels[i].symbol)))
            return fake_kernels[i].module;
    return NULL;
}

/* KC_FAKE_WATCHDOG=N: every module of a kernel under test (not the harness's,
 * not the references') has the variable KC_WATCHDOG_SYMBOL of N bytes (8 as
 * kcontract_watchdog.cuh declares it; another size for the harness's
 * refusal), holding 250 ms as the header's default; unset, no module has it. */
static size_t watchdog_size(const struct CUmod_st *mod)
{
    const char *e = getenv("KC_FAKE_WATCHDOG");
    if (!e || !*e || strcmp(mod->module, "harness") == 0 || strcmp(mod->module, "fake_ref") == 0) return 0;
    if (strcmp(e, "fail") == 0 || strcmp(e, "lost") == 0) return 8;
    long n = atol(e);
    return n > 0 && n <= 8 ? (size_t)n : 0;
}
static unsigned long long watchdog_at_load(void)
{
    const char *e = getenv("KC_FAKE_WATCHDOG_NS");
    return e && *e ? strtoull(e, NULL, 10) : 250000000ull;
}
/* Reads "KCFAKE <module> <control or ->" (the image is not NUL-terminated:
 * it ends with a newline), or a real fatbin of an emulated module. */
/* Whether a call on module m meets a sticky error (an earlier fault, seen
 * there first): the environment variable var (KC_FAKE_LOAD_LOST: loading
 * it; KC_FAKE_FUNC_LOST: looking up one of its functions) names m. */
static int lost_at(const char *var, const char *m)
{
    const char *e = getenv(var);
    return e && strcmp(e, m) == 0;
}

CUresult cuModuleLoadData(CUmodule *mod, const void *image)
{
    CONTEXT_CALL();
    char text[160], m[64], c[64];
    const char *s = image;
    size_t n = 0;
    const char *real = fatbin_module(image);
    if (real && lost_at("KC_FAKE_LOAD_LOST", real)) return fake_sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
    if (real) {
        struct CUmod_st *md = calloc(1, sizeof *md);
        if (!md) return CUDA_ERROR_OUT_OF_MEMORY;
        snprintf(md->module, sizeof md->module, "%s", real);
        md->watchdog_size = watchdog_size(md);
        md->watchdog_ns = watchdog_at_load();
        *mod = md;
        return CUDA_SUCCESS;
    }
    while (n < sizeof text - 1 && s[n] != '\n') n++;
    if (n == sizeof text - 1 || strncmp(s, "KCFAKE ", 7) != 0) return CUDA_ERROR_INVALID_IMAGE;
    memcpy(text, s, n);
    text[n] = 0;
    if (sscanf(text, "KCFAKE %63s %63s", m, c) != 2) return CUDA_ERROR_INVALID_IMAGE;
    int known = 0;
    for (int i = 0; i < NKERNELS; i++) known |= strcmp(fake_kernels[i].module, m) == 0;
    if (!known) return CUDA_ERROR_INVALID_IMAGE;
    if (lost_at("KC_FAKE_LOAD_LOST", m)) return fake_sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
    const char *says = getenv("KC_FAKE_LOAD_SAYS"), *eq = says ? strchr(says, '=') : NULL;
    if (eq && (size_t)(eq - says) == strlen(c) && strncmp(says, c, strlen(c)) == 0) {
        printf("%s\n", eq + 1);
        fflush(stdout);
    }
    struct CUmod_st *md = calloc(1, sizeof *md);
    if (!md) return CUDA_ERROR_OUT_OF_MEMORY;
    snprintf(md->module, sizeof md->module, "%s", m);
    snprintf(md->control, sizeof md->control, "%s", strcmp(c, "-") == 0 ? "" : c);
    md->watchdog_size = watchdog_size(md);
    md->watchdog_ns = watchdog_at_load();
    *mod = md;
    return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule mod) { CONTEXT_CALL(); free(mod); return CUDA_SUCCESS; }
CUresult cuModuleGetGlobal(CUdeviceptr *p, size_t *bytes, CUmodule mod, const char *name)
{
    CONTEXT_CALL();
    if (!mod->watchdog_size || strcmp(name, "kc_watchdog_ns") != 0) return CUDA_ERROR_NOT_FOUND;
    const char *e = getenv("KC_FAKE_WATCHDOG");
    if (e && strcmp(e, "fail") == 0) return CUDA_ERROR_INVALID_CONTEXT;
    if (e && strcmp(e, "lost") == 0) return fake_sticky = CUDA_ERROR_ILLEGAL_ADDRESS;  /* an earlier fault, seen here first */
    if (p) *p = (CUdeviceptr)(uintptr_t)&mod->watchdog_ns;
    if (bytes) *bytes = mod->watchdog_size;
    return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name)
{
    CONTEXT_CALL();
    if (lost_at("KC_FAKE_FUNC_LOST", mod->module)) return fake_sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
    if (strcmp(mod->control, "broken_build") == 0) return CUDA_ERROR_NOT_FOUND;   /* its #ifdef lost the kernel */
    for (int i = 0; i < NKERNELS; i++)
        if (strcmp(fake_kernels[i].symbol, name) == 0 && strcmp(fake_kernels[i].module, mod->module) == 0) {
            mod->fn[i].k = &fake_kernels[i];
            mod->fn[i].mod = mod;
            *f = &mod->fn[i];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}
/* The function's registers per thread: its control reg_growth's where the
 * kernel has one. */
int regs_of(const struct CUfunc_st *f)
{
    return f->k->grown_regs && strcmp(f->mod->control, "reg_growth") == 0 ? f->k->grown_regs : f->k->regs;
}
/* Parameter i of f: its size from the kernel table's list, at the offset
 * each parameter's natural alignment gives (at most 8; 64 for a 128-byte
 * tensor map). */
CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *offset, size_t *size)
{
    CONTEXT_CALL();
    if (!f) return CUDA_ERROR_INVALID_VALUE;
    if (!f->k->params) return CUDA_ERROR_NOT_SUPPORTED;
    const char *s = f->k->params;
    size_t off = 0;
    for (size_t j = 0;; j++) {
        char *end;
        size_t n = strtoul(s, &end, 10), al = n == 128 ? 64 : n > 8 ? 8 : n;
        off = (off + al - 1) / al * al;
        if (j == i) {
            if (offset) *offset = off;
            if (size) *size = n;
            return CUDA_SUCCESS;
        }
        off += n;
        if (*end != ',') return CUDA_ERROR_INVALID_VALUE;
        s = end + 1;
    }
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f)
{
    CONTEXT_CALL();
    switch (a) {
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = regs_of(f); break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = f->k->static_smem; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:     /* KC_FAKE_REF_LOCAL: the device references' (module fake_ref) */
        *v = !strcmp(f->k->module, "fake_ref") && getenv("KC_FAKE_REF_LOCAL") ? atoi(getenv("KC_FAKE_REF_LOCAL"))
                                                                             : f->k->local;
        break;
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = f->k->max_threads; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *v = f->max_dynamic_smem; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *v = f->nonportable; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
    CONTEXT_CALL();
    CUresult l = atomic_exchange(&fake_late, CUDA_SUCCESS);
    if (l) {                        /* an earlier kernel's fault, seen here */
        fake_sticky = l;
        return fake_sticky;
    }
    if (a == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED && (v == 0 || v == 1)) {
        f->nonportable = v;
        return CUDA_SUCCESS;
    }
    if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || v < 0 || v + f->k->static_smem > SMEM_OPTIN)
        return CUDA_ERROR_INVALID_VALUE;
    f->max_dynamic_smem = v;
    return CUDA_SUCCESS;
}
