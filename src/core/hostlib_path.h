/* hostlib_path.h — where the shared libraries of library kernels
 * (kc_contract.library) are: lib<library>.so (a control's:
 * lib<library>@<control>.so) is looked for, first found wins, in
 *   $KC_LIBDIR, a ':'-separated list of directories, when set (only there);
 *   else lib/ next to the binary (build/lib/ for build/kcontract*, where the
 *   build helpers put a suite's), then ../lib/kcontract/ from the binary's
 *   directory (an installed suite: PREFIX/bin/ and PREFIX/lib/kcontract/).
 * No CUDA and no dlopen here: the layers below the GPU's (the build
 * identity, build_id.h) find a library's files without loading it; loading
 * one is hostlib.h's. */
#ifndef KC_HOSTLIB_PATH_H
#define KC_HOSTLIB_PATH_H
#include <stddef.h>
#include <stdint.h>

#define KC_HOSTLIB_MAX_DIRS 8

/* The directories searched, in order, into dirs; returns how many (at most max). */
int kc_hostlib_dirs(char dirs[][4096], int max);
/* The file name of library's shared object (clean when control is NULL):
 * lib<library>.so, or lib<library>@<control>.so. */
void kc_hostlib_name(const char *library, const char *control, char *buf, size_t cap);
/* The path of library's shared object (clean when control is NULL): the
 * first that exists along the search path, else where the first directory
 * would hold it. */
void kc_hostlib_path(const char *library, const char *control, char *buf, size_t cap);

/* How kc_hostlib_source knows what a library kernel was built from. */
typedef enum kc_hostlib_src {
    KC_HOSTLIB_SRC_DIGEST,   /* its source digest, PATH.source (kcontract.mk's kc_libsource) */
    KC_HOSTLIB_SRC_BYTES,    /* no usable PATH.source: the bytes of the .so */
    KC_HOSTLIB_SRC_ABSENT,   /* no .so to read along the search path */
} kc_hostlib_src;

/* What library's shared object (clean when control is NULL; at
 * kc_hostlib_path's path) was built from, for the build identity
 * (build_id.h), into *hash, without loading it: the source digest beside it
 * (PATH.source: 16 lowercase hex digits and a newline, written by the build
 * rules after the .so), hashed, when there is one that is not older than
 * the .so; else a hash of the .so's bytes (a library of one's own rules, or
 * a .so.source that is malformed or stale: conservative, two checkouts of
 * one commit may then differ, never two sources agree); else, with no
 * readable .so, a hash saying so. Returns which of the three it used. */
kc_hostlib_src kc_hostlib_source(const char *library, const char *control, uint64_t *hash);
#endif
