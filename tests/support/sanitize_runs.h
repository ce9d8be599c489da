/* sanitize_runs.h — test support: whole runs of the fixture binary under the
 * fake driver and the fake compute-sanitizer (tests/fake/compute-sanitizer),
 * and the log of the sessions the fake started, shared by the sanitizer
 * gate's test files (test_sanitize*.c). */
#ifndef KC_TEST_SANITIZE_RUNS_H
#define KC_TEST_SANITIZE_RUNS_H
#include "spawn.h"

/* The fixture's clean :sanitize item that most of those tests run. */
#define KC_SAN_TEST_ITEM "fakesan.copy.f16:sanitize"
/* Three clean :sanitize items, for a list of arguments: racecheck runs for
 * the first only (fakenosmem uses no shared memory, fakenorace opts out). */
#define KC_SAN_TEST_THREE_ITEMS "fakesan.copy.f16:sanitize", "fakenosmem.copy.f16:sanitize", "fakenorace.copy.f16:sanitize"

/* "KC_COMPUTE_SANITIZER=<the fake>" (static storage; asserts the fake is
 * there). */
char *kc_san_test_env(void);
/* Runs the fixture binary with args under the fake driver, the fake
 * compute-sanitizer unless no_tool (then PATH holds none either), and up to
 * two extra "K=V" entries (NULL for none); 120 s at most. */
kc_proc kc_san_test_run(char **args, int no_tool, const char *extra1, const char *extra2);
/* The fake sanitizer's session log of one test, log[256] (a file in the
 * test's TMPDIR named for tag and this process), and the variable that
 * gives it to the fake, env_log[300] (KC_FAKE_SANITIZER_LOG=<log>). */
void kc_san_test_log(char log[256], char env_log[300], const char *tag);
/* How many sessions of `tool` ("memcheck", ...) the fake logged in log (one
 * line a session, starting with the tool's name); 0 when there is no log. */
int kc_san_test_sessions_started(const char *log, const char *tool);
#endif
