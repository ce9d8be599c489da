/* shard_env.h — the shard protocols of the engines that run test shards:
 * which environment variables hold K and N, how each is checked, and the
 * status file that says this binary shards. `--shard auto` takes K/N from
 * whichever engine's variables are present; Bazel's and GoogleTest's are
 * honoured without any flag too, as a gtest binary does.
 *
 *   Bazel       TEST_SHARD_INDEX, TEST_TOTAL_SHARDS; touches TEST_SHARD_STATUS_FILE
 *               (newer Bazel fails a sharded test that does not: the binary
 *               would run everything in every shard)
 *   GoogleTest  GTEST_SHARD_INDEX, GTEST_TOTAL_SHARDS; touches GTEST_SHARD_STATUS_FILE
 *               (Bazel's test runner sets these too, equal to its own)
 *   Slurm       SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, for a job array
 *               whose ids are 0..N-1 (SLURM_ARRAY_TASK_MIN 0, _STEP 1, _MAX
 *               N-1): `--array=0-6:2` gives ids 0,2,4,6 with a count of 4
 *   Kubernetes  JOB_COMPLETION_INDEX of an Indexed Job, and KC_SHARDS, which
 *               the manifest sets to .spec.completions (Kubernetes does not
 *               pass the number of completions)
 *
 * Refused, naming the variables and values: one of a pair missing, a value
 * that is not a canonical decimal, an index out of range (as gtest refuses
 * it), a Slurm array not numbered 0..N-1, two engines that disagree, and
 * (for `--shard auto`) no engine's variables at all. Reading is pure (the
 * environment comes through a lookup function), so tests feed it tables. */
#ifndef KC_SHARD_ENV_H
#define KC_SHARD_ENV_H
#include <stddef.h>

/* Looks up one environment variable: its value, or NULL when unset. */
typedef const char *(*kc_env_get)(const char *name, void *ctx);

typedef struct kc_env_shard {
    int found;                 /* an engine's variables were present */
    int k, n;                  /* the shard, 0 <= k < n <= KC_MAX_SHARDS */
    char engine[64];           /* "Bazel", "GoogleTest", "Bazel and GoogleTest", "Slurm", "Kubernetes" */
    char vars[512];            /* the variables it came from: "TEST_SHARD_INDEX=1 TEST_TOTAL_SHARDS=4" */
    char status_file[4096];    /* a file to touch (Bazel, GoogleTest), "" none */
} kc_env_shard;

/* Reads the shard from the variables get() returns. implicit_only: only
 * Bazel's and GoogleTest's (what a run honours without --shard). Returns 0
 * with out->found 0 or 1, or -1 with the refusal in err (naming the
 * variables and values: "GTEST_SHARD_INDEX=4 is out of range: GTEST_TOTAL_SHARDS=4
 * gives shards 0..3"). */
int kc_env_shard_read(kc_env_get get, void *ctx, int implicit_only, kc_env_shard *out, char *err, size_t cap);

/* Every variable of every protocol (NULL-terminated): what a --jobs parent
 * removes from its environment before it starts workers, so that no worker
 * shards again. */
extern const char *const kc_env_shard_vars[];

/* Creates (or updates the time of) the status file; 0, or -1 with the reason. */
int kc_env_shard_touch(const kc_env_shard *s, char *err, size_t cap);

#include "run_options.h"
/* Applies the protocols to a run or list about to start (main calls it once
 * the command line is parsed): `--shard auto` takes K/N from the engines'
 * variables (refused with none); a run without --shard takes Bazel's or
 * GoogleTest's when present and says so on its first line; either touches
 * the status file. A --jobs parent then removes every protocol variable from
 * its environment (kc_env_shard_vars), so no worker shards again. Returns 0,
 * or 2 after printing the refusal ("kcontract: --shard auto: ..."). */
int kc_env_shard_apply(kc_opts *o);

/* The rest of a test runner's protocol (Bazel's test encyclopedia; a
 * GoogleTest binary follows it too), for the process that begins and ends a
 * run (`run`; not a --jobs worker or static shard child):
 *   TEST_PREMATURE_EXIT_FILE  created by kc_env_test_begin, removed by
 *       kc_env_test_end: a run that ends anywhere else (an item that calls
 *       exit(), a crash, SIGKILL, a refusal after it started) leaves it, and
 *       the runner fails the test whatever the exit status said;
 *   XML_OUTPUT_FILE  where the runner reads a test's JUnit XML: the --junit
 *       report goes there when no --junit is given (made absolute, as
 *       --junit is). Not with --schedule static, which writes no reports.
 * Begin is called once the command line is parsed, before the reports
 * begin (main.c); a re-exec'd serial run (--resume-tally) takes the XML
 * path again but does not create the file anew. Neither refuses anything:
 * a premature-exit file that cannot be made or removed is said on stderr. */
void kc_env_test_begin(kc_opts *o);
/* Called where the run has reached its end, whatever its exit status. */
void kc_env_test_end(const kc_opts *o);
#endif
