/* fatbin.h — the kernel images embedded in the binary and the libraries it
 * loaded. The build helpers (kcontract.mk, kcontract_add_suite) compile every
 * <module>.cu with nvcc into a fatbin (sm_90 SASS plus compute_90 PTX), once
 * clean and once per control switch KC_CONTROL_<name> found in the source,
 * and embed each one in an object of its own (kcontract_embed.c) that
 * registers it when loaded (kc_register_module). */
#ifndef KC_FATBIN_H
#define KC_FATBIN_H
#include <stddef.h>

typedef struct kc_fatbin {
    const char *module;            /* "rmsnorm" */
    const char *control;           /* NULL for the clean build, else the control name */
    const unsigned char *start;    /* fatbin image */
    const unsigned char *end;
    /* 16 hex digits: what the image is built from (its source, the headers
     * nvcc read and the control; share/kcontract_digest.sh), the same for
     * every checkout of one commit, unlike the image's bytes (build_id.h) */
    const char *source;
} kc_fatbin;

/* How many images are registered (0 in a binary with no kernels, such as the
 * fuzz targets: then the registry does not ask contracts for theirs). */
int kc_fatbin_count(void);

/* Image i (0 .. kc_fatbin_count() - 1) in registration order; NULL outside. */
const kc_fatbin *kc_fatbin_at(int i);

/* The registered image of module (clean when control is NULL); NULL if absent. */
const kc_fatbin *kc_fatbin_find(const char *module, const char *control);
#endif
