/* mutant_images.h — the mutants a run checks (kcontract mutate,
 * docs/mutation.md): the file named by the environment variable KC_MUTANTS
 * lists them, one per line,
 *
 *     mutant <id> <module> <gate> <image> <operator> <file>:<line> [contracts=<c>,<c>...]
 *
 * (id: 12 hex digits; gate: 4 for gates 1-4, 5 to go on to the sanitizer
 * when gates 1-4 pass; image: the mutant's fatbin, built as the module's
 * controls are). Each image is registered as the module's control
 * "mut_<id>" (fatbin.h), and each contract of that module (or each one
 * contracts= names: the ones a wave of kcontract mutate routes it to,
 * mutate_route.h) gets one item "<contract>:mutant.<id>" of kind control
 * (registry.c): a mutant runs
 * exactly as a planted control does, through the work queue, --shard and
 * merge, in every process of the run (KC_MUTANTS is inherited). */
#ifndef KC_MUTANT_IMAGES_H
#define KC_MUTANT_IMAGES_H
#include <stddef.h>
#include "kcontract.h"

#define KC_MUTANTS_ENV "KC_MUTANTS"

typedef struct kc_mutant_image {
    char id[13];
    char module[64];
    char control[20];       /* "mut_<id>": the image's control name */
    char bug[400];          /* "<operator> at <file>:<line>": the control's bug */
    kc_control ctl;         /* the control each item points at (name, gate, bug point into this struct) */
    kc_control ctl_gates;   /* the same with gate 4: for a contract without a :sanitize item (no_sanitize) */
    char *contracts;        /* ",<c>,<c>,": the contracts that judge it (contracts=); NULL: every one of its module */
} kc_mutant_image;

/* Reads $KC_MUTANTS once (later calls return the first result) and
 * registers its images. 0: done, or the variable is unset or empty; -1 with
 * the reason in err (a file that cannot be read, a malformed line with its
 * number, an image that cannot be read). */
int kc_mutant_images_load(char *err, size_t cap);

/* How many mutants are loaded, and mutant i (NULL outside). */
int kc_mutant_image_count(void);
const kc_mutant_image *kc_mutant_image_at(int i);

/* Whether contract `contract` (of the mutant's module) gets an item of mutant m. */
int kc_mutant_image_judged_by(const kc_mutant_image *m, const char *contract);

/* Whether control ct is a mutant's (then its messages say so, not "planted"). */
int kc_control_is_mutant(const kc_control *ct);
#endif
