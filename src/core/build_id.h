/* build_id.h — the identity of a build for merging shards: a hash of what
 * decides an item's result, the same for every host that builds one commit
 * from source (wherever it checks it out) and different when a contract or a
 * kernel changes. It replaces the hash of the binary's bytes (TALLY binary=,
 * v2), which differed with the build directory: nvcc -lineinfo writes the
 * absolute source path into every fatbin.
 *
 * It covers: every registered contract's definition (its names, dims, shapes,
 * arguments with their dtypes, roles, tolerances and error models,
 * distributions, boundary skips, budget, controls, known findings, time
 * limit, device reference, and which of its hooks are set); every registered
 * suite's name and GPU need; every embedded fatbin's module, control and
 * source digest (fatbin.h: its source and headers, share/kcontract_digest.sh);
 * and for every contract of a library kernel, what its shared objects were
 * built from, the clean one's and each control's (lib<name>[@<control>].so
 * along the library search path, KC_LIBDIR included: kc_hostlib_source in
 * hostlib_path.h): the source digest the build rules write beside each
 * (.so.source, with the sha256 of the .so's bytes as built), read without
 * loading the library, when the .so's bytes still hash to it; else the
 * .so's bytes (a library built by rules of one's own, without a digest, or
 * replaced since its digest was written: two checkouts of one commit then
 * differ, never two sources agree), else its absence.
 * It does not cover the code of host references, generators and launch
 * functions: two hosts that build one commit have the same; a change there
 * alone is not seen (the TALLY's host= is). */
#ifndef KC_BUILD_ID_H
#define KC_BUILD_ID_H
#include <stdint.h>
#include "kcontract.h"

/* The hash of one contract's definition: everything listed above for a
 * contract (names, dims, shapes, arguments, tolerances, controls, known
 * findings, steps, ...; which hooks are set, not their code). The same for
 * the same definition in every process and build; a sum of these (with the
 * suites and images) is kc_build_id. c must not be NULL. */
uint64_t kc_contract_hash(const kc_contract *c);

/* The build identity of this binary and the library kernels it would load
 * (computed once, then cached). Never 0. */
uint64_t kc_build_id(void);
#endif
