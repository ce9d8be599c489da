/* run_output.h — test support: reading a kcontract run's captured stdout the
 * way docs/output-format.md says a consumer must: the result is the TALLY line
 * immediately before the SUMMARY line (items may print TALLY-like lines). */
#ifndef KC_TEST_RUN_OUTPUT_H
#define KC_TEST_RUN_OUTPUT_H
#include <stddef.h>
#include "spawn.h"
#include "tally.h"

/* The first unprefixed line starting with key, copied into buf; 0, or -1. */
int kc_out_line(const char *out, const char *key, char *buf, size_t cap);
/* Parses the run's result TALLY (see above) into *t; a Criterion assertion
 * fails when there is none or it does not parse. */
void kc_out_tally(const char *out, kc_tally *t);
/* The SUMMARY line without its trailing "  (N.N s)"; asserts there is one. */
void kc_out_summary(const char *out, char *buf, size_t cap);
/* The state lines of item `name` in a run's output ("STATE  NAME  ..." or,
 * from a --jobs worker, "[wK] STATE  NAME  ..."): how many there are, and the
 * last one's state ("PASS", "LEAK", ...) in st. */
int kc_out_state_lines(const char *out, const char *name, char *st, size_t cap);
/* Reads a run's stdout as a line-oriented reader does (grep '^PASS', a CI
 * log parser; docs/output-format.md, "One item, one line") and returns how
 * many lines break it, the first described in why[0..cap):
 *   - every line starts with a known prefix: a state word and a space,
 *     the program's name ("kcontract: ", "kcontract-fixture: "), "TALLY ",
 *     "SUMMARY ", an indented line ("    "), or,
 *     after the SUMMARY, a figure line ("peak RSS ", "workers: ",
 *     "  worker ", "time in items: ", "input buffers: ", "slowest items: ");
 *     in a --jobs run a worker's line is "[wK] " and a state line, an
 *     indented line or the program's "NAME: ";
 *   - a state line is STATE  NAME  MESSAGE  (SECONDS s)[  rerun: COMMAND];
 *   - no line holds a control byte or invalid UTF-8, and the output ends
 *     with a newline.
 * For runs of items that print nothing of their own. */
int kc_out_bad_lines(const char *out, char *why, size_t cap);
/* Whether text[0..n) holds a control byte other than '\n' or invalid
 * UTF-8: the offset of the first, or -1 when clean. */
long kc_out_unclean(const char *text, size_t n);
/* Occurrences of needle in hay. */
int kc_out_count(const char *hay, const char *needle);
/* Lines of text that start with prefix. */
int kc_out_count_lines(const char *text, const char *prefix);
/* The whole of a file a run wrote (a report, a table), NUL-terminated, at most
 * 1 MiB; a Criterion assertion fails when it cannot be read. The buffer is
 * static: the next call overwrites it. */
const char *kc_out_file(const char *path);
/* The number field `key` ("start_s", "pid", ...) of item `name`'s record in
 * a --json report's text (docs/output-format.md: one object a line, "name"
 * the item's after "type"); -1 when there is no such record or field. */
double kc_out_json_number(const char *report, const char *name, const char *key);
/* "$TMPDIR/kc-<what>-<pid>-<tag>.tsv" (kc_test_tmpdir) into buf, any file there removed: a
 * fresh path per test process and use (cost tables, record files). */
void kc_tmp_path(char *buf, size_t cap, const char *what, const char *tag);
/* A new, empty directory "$TMPDIR/kc-<tag>-<pid>-XXXXXX" into buf; a
 * Criterion assertion fails when it cannot be made. */
void kc_tmp_dir(char *buf, size_t cap, const char *tag);
/* Removes path and everything under it (symbolic links, not their targets). */
void kc_rm_rf(const char *path);
/* The entries of dir (not . and ..): how many, their names space-separated
 * in names (cut at cap); -1 when dir cannot be read. */
int kc_dir_entries(const char *dir, char *names, size_t cap);
/* Writes text to path (created or truncated); a Criterion assertion fails
 * when it cannot. */
void kc_write_file(const char *path, const char *text);
/* The no-GPU environment of process tests: KC_LIBCUDA names a library that
 * does not exist, so GPU items SKIP on any machine. */
extern char *const KC_NO_GPU_ENV[];
/* Runs the fixture binary with args (NULL-ended) and KC_NO_GPU_ENV to its end
 * (killed after timeout_s); a Criterion assertion fails if it cannot start. */
kc_proc kc_run_fixture(char **args, double timeout_s);
/* kc_run_fixture with the "K=V" entries of env_extra (NULL-ended, may be
 * NULL) after KC_NO_GPU_ENV: an engine's shard variables, say. */
kc_proc kc_run_fixture_env(char **args, char *const *env_extra, double timeout_s);
/* Runs the fixture binary with args (NULL-ended) under the fake CUDA driver
 * ($KC_FAKE_CUDA, else build/libfake_cuda.so) and the "K=V" entries of
 * env_extra (NULL-ended, may be NULL), killed after timeout_s; a Criterion
 * assertion fails if it cannot start. */
kc_proc kc_run_fake(char **args, char *const *env_extra, double timeout_s);
/* Runs python3 (through /usr/bin/env) with args (NULL-ended, at most 15)
 * to its end, killed after timeout_s; the calling test is skipped
 * (cr_skip_test) where there is no python3, and a Criterion assertion fails
 * if it cannot start. For scripts that read a report or run bench/'s Python. */
kc_proc kc_run_python3(char *const args[], double timeout_s);
/* The state line of item `name` in `state` ("STATE  NAME  ...", after an
 * optional "[wK] " tag) copied into buf, or NULL when there is none. */
const char *kc_out_item_line(const char *out, const char *state, const char *name, char *buf, size_t cap);
#endif
