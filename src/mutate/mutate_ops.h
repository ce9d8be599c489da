/* mutate_ops.h — mutation operators on a module's CUDA source, and the
 * mutants they make. Each operator stands for a class of real bug
 * (docs/mutation.md lists them with their sources): the conventional ones
 * of mutation testing (relational and arithmetic operator replacement,
 * constants +-1, a bound's < <-> <=, a statement or a guard deleted, an
 * early return) and GPU-specific ones (a barrier or fence dropped, a
 * shuffle's mask, offset or width changed, thread/block index dimensions
 * swapped, an atomic made a plain read-modify-write, an accumulator
 * narrowed to half, a rounding mode changed, an intrinsic's fast form, a
 * loop's bound or stride changed, a tile index off by one), after the
 * GPU-specific classes of Zhu and Zaidman (ICST 2020) where they are theirs.
 *
 * A mutant replaces one byte range of the source with other text. Its id is
 * stable: the hash of module, operator, byte offset, original and
 * replacement text (so it survives a rerun, and changes when the code it
 * mutates moves). */
#ifndef KC_MUTATE_OPS_H
#define KC_MUTATE_OPS_H
#include <stddef.h>

#include "mutate_scan.h"

/* One operator: its name (--operators, the report), whether it is GPU-specific,
 * the bug class it stands for, and where the class comes from. */
typedef struct kc_mut_op {
    const char *name;
    int gpu;
    const char *bug;
    const char *source;
} kc_mut_op;

/* The operators, in the order they are applied; the table ends with a NULL name. */
extern const kc_mut_op kc_mut_ops[];

/* The operator named name, or NULL. */
const kc_mut_op *kc_mut_op_find(const char *name);

#define KC_MUT_TEXT 160     /* original and replacement texts are cut to this (with "...") in the report */

/* One mutant: module (the .cu's base name), operator, file, 1-based line and
 * column of the replaced range src[off .. off + len), and the texts. */
typedef struct kc_mutant {
    char id[13];                /* 12 hex digits */
    const kc_mut_op *op;
    char module[64];
    const char *file;           /* the caller's path string (not owned) */
    int line, col;
    size_t off, len;
    char *orig, *repl;          /* owned */
} kc_mutant;

typedef struct kc_mutants {
    kc_mutant *v;
    int n, cap;
} kc_mutants;

/* Appends every mutant of the scanned source s (module, file as given) made
 * by the operators whose bit is set in ops_mask (bit i: kc_mut_ops[i]; ~0u
 * all), in source order per operator, without two mutants of one id.
 * Returns how many it added, or -1 with err (out of memory). */
int kc_mutate_source(const kc_src *s, const char *module, const char *file, unsigned ops_mask, kc_mutants *out,
                     char *err, size_t cap);

void kc_mutants_free(kc_mutants *m);

/* The mutant's whole source (s with the replacement applied), malloc'ed and
 * NUL-terminated; NULL when out of memory. */
char *kc_mutant_text(const kc_src *s, const kc_mutant *m);

/* A unified diff of the mutant against s (--- a/FILE, +++ b/FILE, one hunk
 * with up to `context` lines either side), malloc'ed; NULL when out of memory. */
char *kc_mutant_diff(const kc_src *s, const kc_mutant *m, int context);
#endif
