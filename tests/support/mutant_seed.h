/* mutant_seed.h — test support: mutants built by nvcc once per test run and
 * shared by the tests that need them built. Each such test copies the seed
 * (a folder of built mutants, file times kept) into its own folder and runs
 * there: make finds every mutant newer than its source and builds nothing,
 * and the test still checks what its own run says. The seeds live under
 * $KC_TEST_MUTANTS (`make test` sets $(B)/test-mutants); kept between runs,
 * each run's first user brings them up to date (make keeps unchanged
 * mutants), so a changed kernel is built again. Safe under Criterion's
 * parallel workers: the first user builds under a lock (flock), the others
 * wait for it. Without $KC_TEST_MUTANTS each test builds in its own folder. */
#ifndef KC_TEST_MUTANT_SEED_H
#define KC_TEST_MUTANT_SEED_H

/* Builds the seed in folder dir (made, maybe holding an earlier run's
 * build); a Criterion assertion fails when the build does not do what the
 * tests expect of it. */
typedef void (*kc_seed_build_fn)(const char *dir, void *ctx);

/* Fills dir (made if absent) with a copy of seed `name`, file times kept:
 * built by build(seed folder, ctx) by this run's first caller; called with
 * dir itself when $KC_TEST_MUTANTS is unset. */
void kc_mutant_seed_copy(const char *name, kc_seed_build_fn build, void *ctx, const char *dir);
#endif
