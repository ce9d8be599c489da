/* spawn.h — test support: run a program (the real kcontract binaries) as a
 * child process and capture its exit status, stdout and stderr. */
#ifndef KC_TEST_SPAWN_H
#define KC_TEST_SPAWN_H
#include <stddef.h>

typedef struct kc_proc {
    int status;        /* exit status, or 128+signal when killed */
    int signaled;      /* killed by a signal */
    char *out, *err;   /* NUL-terminated captures (malloc'd) */
    size_t out_len, err_len;
} kc_proc;

/* Runs argv (argv[0] a path) with extra environment entries "K=V" (NULL-ended
 * list, may be NULL; a bare "K" unsets K, glibc's putenv), killing it after
 * timeout_s seconds. The child gets KC_COSTS=kc_test_costs_path() unless the
 * environment or env_extra says otherwise. Returns 0, or -1 if it could not
 * be started. Free with kc_proc_free. */
int kc_spawn(char *const argv[], char *const env_extra[], double timeout_s, kc_proc *p);
void kc_proc_free(kc_proc *p);
/* $KC_BIN / $KC_FIXTURE_BIN, defaulting to build/kcontract / build/kcontract-fixture. */
const char *kc_test_bin(void);
const char *kc_test_fixture_bin(void);
/* Where tests put their files: $TMPDIR (`make test` sets it to a directory of
 * its own, which must be empty when the tests end), else /tmp. */
const char *kc_test_tmpdir(void);
/* The cost table (KC_COSTS, src/run/costs.h) every kcontract a test starts
 * uses unless the test names one, into buf:
 * $TMPDIR/kc-costs.<runner pid>.<suite>.<test>.tsv, one per test of this run
 * of the test binary (Criterion runs each test in a child of its runner:
 * getppid(); the names stay apart when pids wrap), so that no test's queue
 * order or memory plan depends on which tests ran before it, and no test
 * writes the table beside the binary (build/kcontract.costs.tsv, a real
 * run's). Call it in the test's process; the runner removes its run's
 * tables after the last test (spawn.c's POST_ALL hook). */
void kc_test_costs_path(char *buf, size_t cap);
/* In a child about to exec: KC_COSTS=path (kc_test_costs_path, computed
 * before the fork) unless KC_COSTS is set and not empty. */
void kc_test_costs_env(const char *path);
#endif
