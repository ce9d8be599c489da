/* cli.h — the command line: kcontract [run|list|info] [options] [PATTERN...].
 * Parsing is strict: a bad value is refused with the option, the value and
 * what was expected, and exit status 2. What it fills, kc_opts, is the run's
 * settings (run_options.h), which the layers below read. */
#ifndef KC_CLI_H
#define KC_CLI_H
#include <stdint.h>
#include <stdio.h>
#include "run_options.h"
#include "strict_num.h"

/* Parses argv into o (kc_cli_parse_args), then checks that every file the
 * run will write (reports, the cost table) can be written, the way it will
 * be: by creating and removing a new FILE.tmp.PID.XXXXXXXX beside it. Returns
 * 0; or 2 after printing "kcontract: <problem>" and a hint to stderr. o holds
 * memory (free with kc_opts_free, also after an error). */
int kc_cli_parse(int argc, char **argv, kc_opts *o);
/* The parse alone: every option, value and combination, with no file
 * created (it only stat()s --log files to tell two spellings of one apart).
 * What the command-line fuzz target runs. Returns 0 or 2, as above. */
int kc_cli_parse_args(int argc, char **argv, kc_opts *o);
void kc_opts_free(kc_opts *o);
/* The report files (--json, --junit, --timeline: path[0..2], NULL where
 * not given) that argv gives a run or a merge as the parse reads them: an
 * option's value is the argument after it whatever it looks like, and a
 * PATTERN is never one (`--exclude --json F`: F is a PATTERN), "--" ends
 * the options, and a command that writes no such report (list, info,
 * version, mutate) or an option it does not take names none, nor does a
 * report option that names a file the run reads (a --log, a --records
 * file, a *.log under a --log directory). For a line
 * that did not parse (main.c: its report files say incomplete), read to
 * its end: the parse stopped at the bad word. */
void kc_cli_report_args(int argc, char **argv, const char *path[3]);

/* Prints the usage text to out, naming the program prog's last path
 * component (a user's suite binary is a whole kcontract under its own name). */
void kc_cli_usage(FILE *out, const char *prog);
#endif
