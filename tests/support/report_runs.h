/* report_runs.h — test support shared by the report tests
 * (test_report*.c): temporary report paths, runs of the fixture binary
 * without a GPU, and Python's XML parser over a JUnit report. */
#ifndef KC_TEST_REPORT_RUNS_H
#define KC_TEST_REPORT_RUNS_H
#include <stddef.h>
#include "spawn.h"

/* A temporary file name under $TMPDIR into buf (the file exists, empty). */
void kc_report_tmpname(char *buf, size_t cap, const char *tag);
/* Runs the fixture binary with args (NULL-terminated, at most 22) under env,
 * or without a GPU (KC_LIBCUDA=none) when env is NULL; 20 s at most. */
kc_proc kc_report_fixture(char **args, char *const *env);
/* Runs a Python script on file; the test is skipped without python3. */
kc_proc kc_report_python(const char *script, const char *file);
/* A Python script that parses a JUnit report (xml.etree) and prints its
 * counts ("suites ...", "suite T F E S") and one "case ..." line a test case. */
extern const char *const KC_REPORT_PY_JUNIT;
#endif
