/* launch.h — the launch path of an item's kernel (launch.c): loading its
 * function and gate 1 for one launch of a case. */
#ifndef KC_LAUNCH_H
#define KC_LAUNCH_H
#include <stddef.h>
#include "case.h"

/* Loads the contract's kernel (control: its build): module and function, or
 * a library's entry into *entry. 0; or 1 with a gate 1 line in why. */
int kc_load_function(kc_gpu *gpu, const kc_contract *c, const char *control, CUmodule *mod, CUfunction *fn,
                     kc_host_entry *entry, char *why, size_t cap);
/* Gate 1 for one launch of case k on buffer set `set`: checks, launches on
 * stream and, with sync, synchronizes. 0, or the gate (failure in k->why). */
int kc_case_launch_on(kc_gpu *gpu, CUfunction f, kc_case *k, int set, int gate, CUstream stream, int sync);
/* kc_case_launch_on the default stream, synchronized. */
int kc_case_launch(kc_gpu *gpu, CUfunction f, kc_case *k, int set, int gate);
#endif
