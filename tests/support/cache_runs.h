/* cache_runs.h — test support: runs of the fixture binary under the fake
 * driver with a results cache of their own (run/result_cache.h), shared by
 * the results cache's test files (test_result_cache*.c). */
#ifndef KC_TEST_CACHE_RUNS_H
#define KC_TEST_CACHE_RUNS_H
#include "spawn.h"
#include "tally.h"

/* A fresh cache folder under the test's TMPDIR and the variable that names
 * it (KC_CACHE_DIR=<dir>), for a run's environment. */
typedef struct kc_cache_dir {
    char dir[512];
    char env[600];
} kc_cache_dir;

/* A fresh cache folder named for tag. */
void kc_cache_new(kc_cache_dir *c, const char *tag);
/* A run of the fixture under env whose output must hold item's line in
 * state (the expectation checked here); the run for more checks. */
kc_proc kc_cache_run_line(char **args, char **env, const char *state, const char *item);
/* A run of args under env after an earlier one: it must exit 0 and reuse
 * `want` verdicts from the cache (`what` names them in the failure). */
void kc_cache_expect_reused(char **args, char **env, long want, const char *what);
/* A run of the fixture under env, its TALLY into *t. */
kc_proc kc_cache_run_tallied(char **args, char **env, kc_tally *t);
#endif
