/* cli_values.h — the option table's row (opt_row) and the setters
 * (cli_values.c) its rows name, one per kind of value: what the table in
 * cli.c needs, with KC_STR, which the table's help text and the setters'
 * refusals both use. Private to src/app/cli*.c: not an interface (cli.h is
 * the command line's). */
#ifndef KC_CLI_VALUES_H
#define KC_CLI_VALUES_H
#include <stddef.h>
#include "run_options.h"

#define KC_STR_(x) #x
#define KC_STR(x) KC_STR_(x)   /* a macro's value as a string literal */

/* --timeout's largest value, seconds (116 days: a typo's guard, not a
 * limit a run meets), and the same as the usage text writes it. */
#define KC_MAX_TIMEOUT_S 1e7
#define KC_MAX_TIMEOUT_S_TEXT 10000000

typedef struct opt_row opt_row;
/* Parses value v (NULL: none given, for a row without `missing`; a flag's
 * is always NULL) into the row's field of o. 0, or 2 after kc_cli_usage_error. */
typedef int (*opt_set)(kc_opts *o, const opt_row *r, const char *v);

/* One option: everything the parser, the usage text and the checks know of
 * it. A value is given as "--name VALUE" or "--name=VALUE". */
struct opt_row {
    const char *name;      /* "--seed" */
    const char *alias;     /* another spelling ("-h"), or NULL */
    const char *arg;       /* the value's name in the usage text ("S"); NULL: a flag, which takes no value */
    unsigned cmds;         /* C_*: the commands it applies to; given to another, it is refused */
    unsigned heirs;        /* TO_*: the command lines that inherit it (cli.c) */
    unsigned flags;        /* OPT_* */
    size_t field;          /* offsetof(kc_opts, ...): the field kc_cli_set_flag and kc_cli_set_file set */
    opt_set set;
    const char *missing;   /* the refusal when no value follows; NULL: set judges "" */
    const char *help;      /* the usage text after the name's column; '\n' starts a continued line */
};

/* The setters (opt_set), each named by the rows of one kind of value: each
 * parses v into o and returns 0, or 2 after printing the refusal (the option,
 * the value and what it expected, by kc_cli_usage_error). */
/* A flag (no value): its int field (the row's field) becomes 1. */
int kc_cli_set_flag(kc_opts *o, const opt_row *r, const char *v);
/* A report's file name (--json, --junit, --timeline) into the row's field:
 * not empty, not '-' (standard output carries the run's lines). A path with
 * '*', '?' or '[' given as the next argument is refused by the parse
 * instead (kc_opts.report_glob): it looks like an item pattern. */
int kc_cli_set_file(kc_opts *o, const opt_row *r, const char *v);
/* --seed S: below 2^64. */
int kc_cli_set_seed(kc_opts *o, const opt_row *r, const char *v);
/* --device D: a device ordinal, 0 to KC_MAX_DEVICE. */
int kc_cli_set_device(kc_opts *o, const opt_row *r, const char *v);
/* --shard K/N, or 'auto'. */
int kc_cli_set_shard(kc_opts *o, const opt_row *r, const char *v);
/* --jobs N: 1 to KC_MAX_SHARDS processes. */
int kc_cli_set_jobs(kc_opts *o, const opt_row *r, const char *v);
/* --devices L: a list of device ordinals. */
int kc_cli_set_devices(kc_opts *o, const opt_row *r, const char *v);
/* --parent PID (internal): a process id. */
int kc_cli_set_parent(kc_opts *o, const opt_row *r, const char *v);
/* --threads T: 1 to KC_MAX_THREADS host threads. */
int kc_cli_set_threads(kc_opts *o, const opt_row *r, const char *v);
/* --inflight K: 1 to KC_INFLIGHT_MAX items in flight per worker. */
int kc_cli_set_inflight(kc_opts *o, const opt_row *r, const char *v);
/* --reference R: 'device', 'host' or 'both'. */
int kc_cli_set_reference(kc_opts *o, const opt_row *r, const char *v);
/* --records F: repeatable, each file once, at most KC_MAX_RECORD_FILES. */
int kc_cli_set_records(kc_opts *o, const opt_row *r, const char *v);
/* --schedule S: 'queue' or 'static'. */
int kc_cli_set_schedule(kc_opts *o, const opt_row *r, const char *v);
/* --costs FILE: not empty. */
int kc_cli_set_costs(kc_opts *o, const opt_row *r, const char *v);
/* --restarts M: 0 to 1000000. */
int kc_cli_set_restarts(kc_opts *o, const opt_row *r, const char *v);
/* --timeout S: seconds above 0, at most KC_MAX_TIMEOUT_S (kc_parse_seconds). */
int kc_cli_set_timeout(kc_opts *o, const opt_row *r, const char *v);
/* --log and --merge-json: repeatable, each file once, into o->logs. */
int kc_cli_set_log(kc_opts *o, const opt_row *r, const char *v);
/* mutate's --merge-json and --iterate: not both (each reads reports into
 * o->logs, to its own end), then as kc_cli_set_log. */
int kc_cli_set_report(kc_opts *o, const opt_row *r, const char *v);
/* --exclude G: not empty, not for info or version; the pattern '!G'
 * (kc_cli_exclusion). */
int kc_cli_set_exclude(kc_opts *o, const opt_row *r, const char *v);
/* --resume-records FD (internal). */
int kc_cli_set_resume_records(kc_opts *o, const opt_row *r, const char *v);
/* --resume-at I (internal). */
int kc_cli_set_resume_at(kc_opts *o, const opt_row *r, const char *v);
/* --block-size B: 1 to 1024. */
int kc_cli_set_block_size(kc_opts *o, const opt_row *r, const char *v);
/* --cases I:J (internal): 0 <= I < J. */
int kc_cli_set_cases(kc_opts *o, const opt_row *r, const char *v);
/* --resume-tally TALLY (internal): kept as given. */
int kc_cli_set_resume_tally(kc_opts *o, const opt_row *r, const char *v);
/* --resume-elapsed S (internal): seconds, as atof reads them. */
int kc_cli_set_resume_elapsed(kc_opts *o, const opt_row *r, const char *v);
/* --format F: 'human' or 'json'. */
int kc_cli_set_format(kc_opts *o, const opt_row *r, const char *v);
/* --status-level L: 'fail', 'pass', 'skip' or 'all'. */
int kc_cli_set_status_level(kc_opts *o, const opt_row *r, const char *v);
/* --color WHEN: 'auto', 'always' or 'never'. */
int kc_cli_set_colour(kc_opts *o, const opt_row *r, const char *v);
/* --help: the command becomes KC_CMD_HELP. */
int kc_cli_set_help(kc_opts *o, const opt_row *r, const char *v);
/* --version: the command becomes KC_CMD_VERSION. */
int kc_cli_set_version(kc_opts *o, const opt_row *r, const char *v);
/* mutate's --budget N and --build-jobs N into the row's field: 1 to 1000000. */
int kc_cli_set_count(kc_opts *o, const opt_row *r, const char *v);
/* mutate's file and folder names into the row's field: not empty. */
int kc_cli_set_text(kc_opts *o, const opt_row *r, const char *v);
/* Adds the pattern '!G' for glob (filter.h), a copy o owns (kc_opts_free):
 * --exclude G and a PATTERN '!G'. 0, or 2 out of memory after kc_cli_usage_error. */
int kc_cli_exclusion(kc_opts *o, const char *glob);
#endif
