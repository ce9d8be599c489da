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
    KC_HOSTLIB_SRC_BYTES,    /* no PATH.source that vouches for the .so: the bytes of the .so */
    KC_HOSTLIB_SRC_ABSENT,   /* no .so to read along the search path */
} kc_hostlib_src;

/* PATH.source, the line the build rules write beside a library's .so
 * (kcontract.mk's kc_libsource, kcontract_digest.sh --record), after the
 * .so is built:
 *     <digest> <sha256>\n
 * <digest>: the 16 lowercase hex digits of what the .so was built from
 * (kcontract_digest.sh: its name and the files nvcc read; the same in every
 * checkout of one commit); <sha256>: the 64 lowercase hex digits of
 * sha256sum of the .so's bytes as built (which hold the checkout's paths:
 * each checkout's own). One space between, the newline optional; nothing
 * else. Its length without the newline: */
#define KC_HOSTLIB_RECORD_LEN (16 + 1 + 64)

/* What library's shared object (clean when control is NULL; at
 * kc_hostlib_path's path) was built from, for the build identity
 * (build_id.h), into *hash, without loading it: the <digest> of PATH.source,
 * hashed, when PATH.source is such a line and the .so's bytes now hash to
 * its <sha256> (the files' times do not matter: a .so replaced by other
 * bytes with its old time kept, cp -p, rsync -a, tar x, is not the digest's
 * library, and the same bytes copied elsewhere with their .so.source in any
 * order are); else a hash of the .so's bytes (its sha256: a library of one's
 * own rules, a PATH.source that is missing, malformed, of the earlier
 * digest-alone format, or written for other bytes: conservative, two
 * checkouts of one commit may then differ, never two sources agree); else,
 * with no readable .so, a hash saying so. Without libcrypto (sha256.h) no
 * record can be checked: the .so counts by its bytes under our own 64-bit
 * hash (a host without it then has another build id than one with it: a
 * merge of their shards is refused, never taken). Returns which of the
 * three it used. Reads the .so's bytes once; kc_build_id calls it once a
 * process for each library. */
kc_hostlib_src kc_hostlib_source(const char *library, const char *control, uint64_t *hash);
#endif
