/* seed.h — stable hashing and seed derivation. An item's inputs depend only on
 * its contract name, the shape name, the distribution and --seed, so they are
 * identical in every process and on every machine. Hash: 64-bit FNV-1a, mixed
 * through the splitmix64 finalizer (Steele et al., "Fast splittable PRNGs"). */
#ifndef KC_SEED_H
#define KC_SEED_H
#include <stddef.h>
#include <stdint.h>
#include "kcontract.h"

uint64_t kc_fnv1a64(const void *data, size_t n, uint64_t h);  /* h: start with KC_FNV_OFFSET */
#define KC_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t kc_hash_str(const char *s);       /* FNV-1a of the bytes of s */
uint64_t kc_mix64(uint64_t x);             /* splitmix64 finalizer */
/* A hash of n bytes at data, 8 at a time (several GB/s; for megabytes such as
 * kernel images and a binary's code, where FNV-1a's byte loop is slow),
 * continuing from h. Stable across processes and hosts of one byte order;
 * not a cryptographic hash. */
uint64_t kc_hash_block(const void *data, size_t n, uint64_t h);

/* The seed of one case: contract name, shape name, distribution, run seed. */
uint64_t kc_case_seed(uint64_t run_seed, const char *contract, const char *shape, kc_dist dist);
/* Seeds a generator's xoshiro256** state from a 64-bit seed (splitmix64
 * stream) and sets its built-in stream's key to the seed itself. */
void kc_gen_seed(kc_gen *g, uint64_t seed);
/* Name of a distribution ("uniform", "normal", ...); NULL for out-of-range. */
const char *kc_dist_name(kc_dist d);
#endif
