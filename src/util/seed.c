/* seed.c — owns stable hashing and seed derivation: FNV-1a 64, the splitmix64
 * finalizer, the per-case seed, and the xoshiro256** state and built-in
 * stream key a generator starts from. Everything here is a pure function of
 * its arguments, so a case's inputs are identical in every process and on
 * every machine.
 *
 * kc_case_seed(run_seed, contract, shape, dist) is defined as
 *     h = FNV-1a 64 over  contract '\0' shape '\0' dist-name '\0'
 *     seed = mix64(h ^ mix64(run_seed))
 * with NULL strings read as "". The distribution enters by its name, not its
 * enum value, so reordering kc_dist does not change any seed. Changing this
 * definition changes every generated input: tests/test_seed.c pins values. */
#include <string.h>
#include "seed.h"

#define FNV_PRIME 0x100000001b3ULL

uint64_t kc_fnv1a64(const void *data, size_t n, uint64_t h) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t kc_hash_str(const char *s) {
    if (s == NULL) s = "";
    return kc_fnv1a64(s, strlen(s), KC_FNV_OFFSET);
}

uint64_t kc_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Hashes s and its terminating NUL, so ("ab","c") and ("a","bc") differ. */
static uint64_t hash_field(uint64_t h, const char *s) {
    if (s == NULL) s = "";
    return kc_fnv1a64(s, strlen(s) + 1, h);
}

uint64_t kc_case_seed(uint64_t run_seed, const char *contract, const char *shape, kc_dist dist) {
    const char *dn = kc_dist_name(dist);
    uint64_t h = KC_FNV_OFFSET;
    h = hash_field(h, contract);
    h = hash_field(h, shape);
    h = hash_field(h, dn ? dn : "?");
    return kc_mix64(h ^ kc_mix64(run_seed));
}

void kc_gen_seed(kc_gen *g, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < 4; i++) {
        s += 0x9e3779b97f4a7c15ULL;            /* the splitmix64 stream */
        g->rng[i] = kc_mix64(s);
    }
    /* Four outputs of a bijection on distinct inputs: at most one is zero, so
     * the state is never all zero (xoshiro's one forbidden state). */
    g->key = seed;                             /* the built-in stream's key */
}

const char *kc_dist_name(kc_dist d) {
    switch (d) {
    case KC_UNIFORM: return "uniform";
    case KC_NORMAL: return "normal";
    case KC_LARGE: return "large";
    case KC_ZEROS_MIXED: return "zeros_mixed";
    case KC_SPECIALS: return "specials";
    case KC_MASKED: return "masked";
    case KC_ZEROS: return "zeros";
    case KC_CONSTANT: return "constant";
    case KC_DENORMAL: return "denormal";
    case KC_NEG_INF: return "neg_inf";
    case KC_NAN: return "nan";
    case KC_INT_EXTREMES: return "int_extremes";
    default: return NULL;
    }
}

uint64_t kc_hash_block(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    uint64_t a = h ^ (n * 0x9e3779b97f4a7c15ULL), b = kc_mix64(h + 1);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {     /* two lanes: the multiplies overlap */
        uint64_t x, y;
        memcpy(&x, p + i, 8);
        memcpy(&y, p + i + 8, 8);
        a = (a ^ x) * 0xff51afd7ed558ccdULL;
        a ^= a >> 32;
        b = (b ^ y) * 0xc4ceb9fe1a85ec53ULL;
        b ^= b >> 29;
    }
    for (; i < n; i++) a = (a ^ p[i]) * 0x100000001b3ULL;
    return kc_mix64(a ^ kc_mix64(b));
}
