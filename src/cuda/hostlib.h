/* hostlib.h — the shared libraries of library kernels (kc_contract.library):
 * how one is loaded (where it is looked for: hostlib_path.h). */
#ifndef KC_HOSTLIB_H
#define KC_HOSTLIB_H
#include <stddef.h>
#include "hostlib_path.h"
#include "kcontract.h"

/* Loads it (once per process: dlopen returns the same handle for the same
 * path; never unloaded, since the CUDA runtime and the libraries above it keep
 * per-process state and exit hooks) and finds entry, and its
 * KC_HOST_RELEASE into *release when release is not NULL (NULL when the
 * library exports none). Returns 0, or -1 with a message naming the path in
 * why. */
int kc_hostlib_load(const char *library, const char *control, const char *entry, kc_host_entry *fn,
                    kc_host_release_fn *release, char *why, size_t cap);
/* Whether this process loaded path (kc_hostlib_load) from a file other than
 * the one now there: replaced since (a rebuild), or while dlopen read it.
 * dlopen keeps giving the process the file it first loaded, so what an item
 * earns with it is not the new file's (result_cache.c keys the new one). 0
 * when never loaded or still the same file (device, inode, size, mtime); 1
 * for every path once the process could not remember one it loaded. */
int kc_hostlib_replaced_since_load(const char *path);
#endif
