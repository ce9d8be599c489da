/* hostlib.h — the shared libraries of library kernels (kc_contract.library):
 * where they are and how one is loaded. lib/lib<library>.so next to the
 * binary (build/lib/ for build/kcontract*), or in $KC_LIBDIR when set; a
 * control's is lib<library>@<control>.so. */
#ifndef KC_HOSTLIB_H
#define KC_HOSTLIB_H
#include <stddef.h>
#include "kcontract.h"

/* The path of library's shared object (clean when control is NULL). */
void kc_hostlib_path(const char *library, const char *control, char *buf, size_t cap);
/* Loads it (once per process: dlopen returns the same handle for the same
 * path; never unloaded, since the CUDA runtime and the libraries above it keep
 * per-process state and exit hooks) and finds entry. Returns 0, or -1 with a
 * message naming the path in why. */
int kc_hostlib_load(const char *library, const char *control, const char *entry, kc_host_entry *fn, char *why,
                    size_t cap);
#endif
