/* test_seed.c — hashing and seed derivation: published test vectors for
 * FNV-1a 64, splitmix64 and xoshiro256**, pinned case seeds (a change of the
 * derivation changes every generated input and must be noticed), and the
 * same seed computed in a separate process. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "seed.h"

Test(seed, fnv1a64_vectors) {
    cr_assert_eq(kc_hash_str(""), 0xcbf29ce484222325ULL);
    cr_assert_eq(kc_hash_str("a"), 0xaf63dc4c8601ec8cULL);
    cr_assert_eq(kc_hash_str("foobar"), 0x85944171f73967e8ULL);
    /* Chaining equals hashing the concatenation. */
    uint64_t h = kc_fnv1a64("foo", 3, KC_FNV_OFFSET);
    cr_assert_eq(kc_fnv1a64("bar", 3, h), kc_hash_str("foobar"));
}

Test(seed, splitmix64_stream) {
    kc_gen g;
    memset(&g, 0, sizeof g);
    kc_gen_seed(&g, 0);
    /* splitmix64 seeded with 0: the reference implementation's first outputs. */
    cr_assert_eq(g.rng[0], 0xe220a8397b1dcdafULL);
    cr_assert_eq(g.rng[1], 0x6e789e6aa1b965f4ULL);
    cr_assert_eq(g.rng[2], 0x06c45d188009454fULL);
    cr_assert_eq(g.rng[3], 0xf88bb8a8724c81ecULL);
    cr_assert_eq(kc_mix64(0), 0);
    cr_assert_eq(kc_mix64(1), 0x5692161d100b05e5ULL);
}

Test(seed, xoshiro256starstar_vector) {
    kc_gen g;
    memset(&g, 0, sizeof g);
    g.rng[0] = 1; g.rng[1] = 2; g.rng[2] = 3; g.rng[3] = 4;
    cr_assert_eq(kc_rand_u64(&g), 11520ULL);
    cr_assert_eq(kc_rand_u64(&g), 0ULL);
    cr_assert_eq(kc_rand_u64(&g), 1509978240ULL);
}

Test(seed, case_seed_pinned) {
    cr_assert_eq(kc_case_seed(0, "rmsnorm.f16", "llama3-8b.hidden", KC_NORMAL), 0xbd8b529103fd3a2eULL);
    cr_assert_eq(kc_case_seed(42, "rmsnorm.f16", "llama3-8b.hidden", KC_NORMAL), 0x9f2ea00d3d4a3691ULL);
    cr_assert_eq(kc_case_seed(42, "softmax.f32", "edge.33", KC_MASKED), 0x7023e1bef7667b1fULL);
}

Test(seed, case_seed_depends_on_every_input) {
    uint64_t base = kc_case_seed(7, "a.b", "edge.1", KC_UNIFORM);
    cr_assert_neq(base, kc_case_seed(8, "a.b", "edge.1", KC_UNIFORM));
    cr_assert_neq(base, kc_case_seed(7, "a.c", "edge.1", KC_UNIFORM));
    cr_assert_neq(base, kc_case_seed(7, "a.b", "edge.2", KC_UNIFORM));
    cr_assert_neq(base, kc_case_seed(7, "a.b", "edge.1", KC_NORMAL));
    /* Field boundaries matter: ("ab","c") is not ("a","bc"). */
    cr_assert_neq(kc_case_seed(7, "ab", "c", KC_UNIFORM), kc_case_seed(7, "a", "bc", KC_UNIFORM));
    cr_assert_eq(base, kc_case_seed(7, "a.b", "edge.1", KC_UNIFORM));
}

Test(seed, case_seed_same_in_another_process) {
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        uint64_t v = kc_case_seed(123456789, "gemm.bf16", "llama3-70b.mlp", KC_SPECIALS);
        ssize_t w = write(fd[1], &v, sizeof v);
        _exit(w == (ssize_t)sizeof v ? 0 : 1);
    }
    close(fd[1]);
    uint64_t got = 0;
    cr_assert_eq(read(fd[0], &got, sizeof got), (ssize_t)sizeof got);
    close(fd[0]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    cr_assert_eq(got, kc_case_seed(123456789, "gemm.bf16", "llama3-70b.mlp", KC_SPECIALS));
}

Test(seed, dist_names) {
    cr_assert_str_eq(kc_dist_name(KC_UNIFORM), "uniform");
    cr_assert_str_eq(kc_dist_name(KC_NORMAL), "normal");
    cr_assert_str_eq(kc_dist_name(KC_LARGE), "large");
    cr_assert_str_eq(kc_dist_name(KC_ZEROS_MIXED), "zeros_mixed");
    cr_assert_str_eq(kc_dist_name(KC_SPECIALS), "specials");
    cr_assert_str_eq(kc_dist_name(KC_MASKED), "masked");
    cr_assert_null(kc_dist_name(KC_DIST_END));
    cr_assert_null(kc_dist_name(KC_DIST_COUNT));
}

Test(seed, gen_seed_never_zero_state) {
    for (uint64_t s = 0; s < 1000; s++) {
        kc_gen g;
        kc_gen_seed(&g, s);
        cr_assert(g.rng[0] | g.rng[1] | g.rng[2] | g.rng[3]);
    }
}
