/* fatbin.h — the kernels embedded in the binary. The build compiles every
 * kernels/<family>/<module>.cu with nvcc into a fatbin (sm_90 SASS plus
 * compute_90 PTX), once clean and once per control switch KC_CONTROL_<name>
 * found in the source, and links them in (tools/gen_fatbin_table.sh). */
#ifndef KC_FATBIN_H
#define KC_FATBIN_H
#include <stddef.h>

typedef struct kc_fatbin {
    const char *module;            /* "rmsnorm" */
    const char *control;           /* NULL for the clean build, else the control name */
    const unsigned char *start;    /* fatbin image */
    const unsigned char *end;
    /* 16 hex digits: what the image is built from (its source, the headers
     * nvcc read and the control; tools/gen_fatbin_table.sh), the same for
     * every checkout of one commit, unlike the image's bytes (build_id.h) */
    const char *source;
} kc_fatbin;

extern const kc_fatbin kc_fatbins[];
extern const int kc_fatbin_count;

/* The embedded image of module (clean when control is NULL); NULL if absent. */
const kc_fatbin *kc_fatbin_find(const char *module, const char *control);
#endif
