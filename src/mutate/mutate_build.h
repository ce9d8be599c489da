/* mutate_build.h — each mutant built as an image the way the module is
 * (share/kcontract.mk's mutant rules, through make -k -jN: the module's own
 * nvcc flags), and trivial compiler equivalence (Papadakis et al., ICSE
 * 2015): a mutant whose machine code is the original's is equivalent, one
 * whose machine code is another mutant's is a duplicate; neither is run. A
 * mutant that does not compile is unviable. The machine code compared is the
 * module's sm_90 (or sm_90a) cubin built without line information, byte for
 * byte (its SASS, constants, shared sizes and symbols: two sources whose
 * cubins are equal cannot behave differently; no cuobjdump needed). */
#ifndef KC_MUTATE_BUILD_H
#define KC_MUTATE_BUILD_H
#include <stddef.h>

#include "mutate_ops.h"

/* What became of one mutant, in the order a mutation run decides it. */
typedef enum kc_mut_state {
    KC_MUT_PENDING = 0,     /* generated, not yet built */
    KC_MUT_ACCEPTED,        /* in the accepted-equivalents file: not built or run */
    KC_MUT_SAMPLED_OUT,     /* left out by --budget */
    KC_MUT_UNVIABLE,        /* does not compile */
    KC_MUT_EQUIVALENT,      /* same machine code as the original */
    KC_MUT_DUPLICATE,       /* same machine code as another mutant (dup_of) */
    KC_MUT_VIABLE,          /* built, to run */
    KC_MUT_CAUGHT,          /* a gate failed on it (gate) */
    KC_MUT_MISSED,          /* every gate passed */
    KC_MUT_TIMEOUT,         /* it hung or took the process down: caught, counted apart */
    KC_MUT_NOTRUN,          /* viable but its run gave no result (another shard's, or an error) */
    KC_MUT_STATE_COUNT
} kc_mut_state;

/* "pending", "accepted", ... "notrun". */
const char *kc_mut_state_name(kc_mut_state s);

typedef struct kc_mut_status {
    kc_mut_state state;
    int gate;               /* CAUGHT: the gate that caught it (1-5); 0 unknown */
    char dup_of[13];        /* DUPLICATE: the mutant it repeats */
    char why[512];          /* UNVIABLE: nvcc's first error; CAUGHT/MISSED/TIMEOUT: the item's message */
    char item[192];         /* the item that decided it ("<contract>:mutant.<id>") */
    int carried;            /* the outcome is an earlier report's (--iterate): not built or run in this run */
    int skipped;            /* NOTRUN because every item that ran it was SKIP (no GPU, no compute-sanitizer):
                             * nothing could run it here; why holds the first SKIP's message */
    int missed;             /* an item of it MISSED in this run (any wave): a SKIP of another contract, in
                             * that wave or the next, leaves it missed, never skipped (mutate_waves.c) */
} kc_mut_status;

/* A module under mutation: its name, its source's path and scanned text. */
typedef struct kc_mut_module {
    char name[64];
    char path[512];
    kc_src src;
} kc_mut_module;

typedef struct kc_mut_build_opts {
    const char *dir;        /* the mutants' folder (KC_MUTANT_DIR), e.g. build/mutants */
    const char *make;       /* the make program ("make": looked up in PATH) */
    int jobs;               /* make -j */
    int fatbins;            /* also build the images of the viable ones (for a run) */
    int cubin_images;       /* with fatbins: the viable ones' .cubin is their image (no fatbin
                               built): the run's device loads sm_90 machine code
                               (kc_mutant_cubin_loads) */
    int verbose;            /* print make's lines */
} kc_mut_build_opts;

/* Builds the mutants whose state is PENDING (their modules in mods[0..nmods)),
 * and the original of each module they mutate, and sets each one's state:
 * UNVIABLE (why: nvcc's first error line), EQUIVALENT, DUPLICATE (of the
 * first mutant, in the order of m, with that code) or VIABLE. With
 * o->fatbins, VIABLE mutants also get their image DIR/<module>@<id>.fatbin
 * (one that fails to build then is UNVIABLE), unless o->cubin_images: then
 * the .cubin built for the equivalence filter is the image. A source already in DIR with
 * the same text is kept, so make rebuilds only what changed. Returns 0, or
 * -1 with err (a folder or file that cannot be written, make that cannot
 * start, an original that does not compile: then nothing can be judged). */
int kc_mutate_build(const kc_mut_module *mods, int nmods, const kc_mutants *m, kc_mut_status *st,
                    const kc_mut_build_opts *o, char *err, size_t cap);

/* Whether a device of compute capability major.minor loads a mutant's
 * .cubin (sm_90 or sm_90a machine code, share/kcontract.mk) as its image.
 * SASS runs only on its own major revision at an equal or higher minor, and
 * an 'a' target only on its exact revision (CUDA C++ Programming Guide,
 * "Binary Compatibility" and "Feature Availability"): so exactly 9.0. */
int kc_mutant_cubin_loads(int cc_major, int cc_minor);

/* The file extension of the image a mutant's run loads: ".cubin" with
 * o->cubin_images, else ".fatbin". */
const char *kc_mutant_image_ext(const kc_mut_build_opts *o);

/* The path of the file DIR/<module>@<id><ext> into buf. */
void kc_mutant_path(char *buf, size_t cap, const char *dir, const char *module, const char *id, const char *ext);
#endif
