/* mutate_reach.h — which kernels of a module a mutated byte can run in: the
 * functions a scanned source defines (their names and bodies) and who calls
 * whom by name, so that a mutant is judged first by a contract whose kernel
 * can execute it (kcontract mutate's routing, docs/mutation.md).
 *
 * The call graph is by name, read from the tokens (mutate_scan.h), without
 * types or overload resolution: a function whose name appears in another's
 * body is taken to be called by it (a template's every instance, every
 * overload of that name). It errs towards "reaches": a wrong "reaches" only
 * costs a run, a wrong "does not" would hide a catch. Code outside every
 * function (file-scope constants, tables, macros' bodies, which are
 * preprocessor lines) reaches every kernel, and a kernel whose definition the
 * source does not show (one a macro defines) is reached by everything. */
#ifndef KC_MUTATE_REACH_H
#define KC_MUTATE_REACH_H
#include <stddef.h>

#include "mutate_scan.h"

/* One function definition of the source: its name (name_len 0 when it has
 * none the scan can tell: a lambda at file scope, an operator) and its body,
 * the bytes [lo, hi) from its '{' to after its '}'. */
typedef struct kc_src_fn {
    size_t name_off, name_len;
    size_t lo, hi;
    int tok_lo, tok_hi;     /* the body's tokens: [tok_lo, tok_hi] are '{' .. '}' */
} kc_src_fn;

/* A kernel a #define defines (`extern "C" __global__ void k_##sfx(...)
 * { body }`, expanded by a macro call at file scope): its name as a glob
 * (each macro parameter and each ## join a '*': "k_*") and the functions
 * its part of the macro's body names. */
typedef struct kc_macro_kernel {
    char glob[128];
    int *calls, ncalls;
} kc_macro_kernel;

/* The functions of one source and the calls between them (calls[f] lists
 * the functions f's body names, ncalls[f] of them), and the kernels its
 * macros define. */
typedef struct kc_reach {
    kc_src_fn *fn;
    int nfn;
    int **calls;
    int *ncalls;
    kc_macro_kernel *mk;
    int nmk;
} kc_reach;

/* Indexes the function definitions of the scanned source s (which must
 * outlive r) and their calls by name. 0, or -1 with err (out of memory). */
int kc_reach_index(const kc_src *s, kc_reach *r, char *err, size_t cap);

void kc_reach_free(kc_reach *r);

/* Whether a change of the byte at off can run in the kernel named symbol
 * (an extern "C" __global__ function of s): 1 when off is in symbol's body
 * or in a function symbol calls, directly or through others; 0 when off is
 * in a function symbol never calls; -1 unknown: off is outside every
 * function, or s defines no function named symbol, neither as itself nor
 * through a macro kernel whose glob matches it (all such count). */
int kc_reach_kernel(const kc_src *s, const kc_reach *r, size_t off, const char *symbol);
#endif
