/* cli_checks.h — the command line's refusals and checks (cli_checks.c)
 * that its parser, cli.c, calls. Private to src/app/cli*.c: not an
 * interface (cli.h is the command line's). */
#ifndef KC_CLI_CHECKS_H
#define KC_CLI_CHECKS_H
#include "run_options.h"

/* Prints "PROG: " and fmt (given a and b) to stderr, then the hint that
 * --help lists the options; returns 2, the exit status of bad usage. */
int kc_cli_usage_error(const char *fmt, const char *a, const char *b);
/* Nonzero when a and b are one file: the same inode, or the same path once
 * resolved (a file neither has created yet). */
int kc_cli_same_file(const char *a, const char *b);
/* Nonzero when the run reads path through input (a --log or --records
 * value): the same file, or, input a directory (a merge's --log DIR), a
 * *.log file under it. */
int kc_cli_input_holds(const char *input, const char *path);
/* The combinations --shard, --jobs, --devices, --schedule and the internal
 * options refuse: 0, or 2 after kc_cli_usage_error. */
int kc_cli_check_parallel(const kc_opts *o);
/* Every file the run writes (--json, --junit, --timeline, the cost table
 * when it writes one) is its own, no report is a file the run reads (a
 * --log, a --records file) and each can be written, tried before anything
 * runs: 0, or 2 after kc_cli_usage_error. */
int kc_cli_check_reports(const kc_opts *o);
/* A relative --json, --junit, --timeline or --costs made absolute against
 * the working directory, in o and in its children's inherited words, and a
 * relative KC_CACHE_DIR in the environment they inherit: 0, or 4 out of
 * memory. */
int kc_cli_resolve_paths(kc_opts *o);
#endif
