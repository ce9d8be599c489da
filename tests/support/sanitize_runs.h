/* sanitize_runs.h — test support: whole runs of the fixture binary under the
 * fake driver and the fake compute-sanitizer (tests/fake/compute-sanitizer),
 * shared by the sanitizer gate's test files (test_sanitize*.c). */
#ifndef KC_TEST_SANITIZE_RUNS_H
#define KC_TEST_SANITIZE_RUNS_H
#include "spawn.h"

/* The fixture's clean :sanitize item that most of those tests run. */
#define KC_SAN_TEST_ITEM "fakesan.copy.f16:sanitize"

/* "KC_COMPUTE_SANITIZER=<the fake>" (static storage; asserts the fake is
 * there). */
char *kc_san_test_env(void);
/* Runs the fixture binary with args under the fake driver, the fake
 * compute-sanitizer unless no_tool (then PATH holds none either), and up to
 * two extra "K=V" entries (NULL for none); 120 s at most. */
kc_proc kc_san_test_run(char **args, int no_tool, const char *extra1, const char *extra2);
#endif
