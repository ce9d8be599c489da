/* cli.c — the command line: one option table (OPTIONS below, git's
 * parse-options model) from which the parser, the usage text's option list,
 * the given-twice check and the "applies to" check all come; the help text.
 * The checks of combinations and of the files a run will write, and the
 * words of every refusal (kc_cli_usage_error), are cli_checks.c's; the
 * table's row (opt_row, cli_values.h) and the setters its rows name, which
 * parse one option's value each (kc_cli_set_*), are cli_values.c's. */
#include "cli.h"
#include "cli_checks.h"
#include "cli_values.h"
#include "costs.h"
#include "filter.h"
#include "strbuf.h"
#include "parallel.h"
#include "progname.h"
#include "shard.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "inflight.h"

/* ---- the option table ------------------------------------------------------ */

/* The commands an option applies to (opt_row.cmds), bits of kc_cmd. */
#define C_RUN (1u << KC_CMD_RUN)
#define C_LIST (1u << KC_CMD_LIST)
#define C_INFO (1u << KC_CMD_INFO)
#define C_MERGE (1u << KC_CMD_MERGE)
#define C_MUTATE (1u << KC_CMD_MUTATE)
#define C_ALL (C_RUN | C_LIST | C_INFO | C_MERGE | C_MUTATE)

/* The command lines that inherit an option (opt_row.heirs), bits of
 * kc_argv_kind (run_options.h: what each kind is, and the words every kind
 * gets from its builder, kc_child_argv, rather than from here: argv0, "run",
 * its own internal options, "--seed S" (the run's seed, stated even when it
 * is the default) and "--device D" (the device it runs on, which its parent
 * picks)). The parser keeps an inherited option's words, as given, in
 * o->inherit[kind]. Per kind:
 *
 *   TO_WORKER    --records (it must know the record items it is handed),
 *                --reference, --threads (not given: the builder writes each
 *                worker's share, CPUs / N), --status-level (the worker
 *                prints its items' lines, which the parent passes on). Not --jobs, --devices, --schedule,
 *                --timeout, --fail-fast, --restarts, --costs, --rerun-failed,
 *                --shard, the patterns and --exclude (the parent selects the
 *                items, hands them out one by one by name, enforces the time
 *                limits and the restart cap, and keeps the cost table), nor
 *                the reports (the parent writes them).
 *   TO_SHARD     the worker's four, for the same reasons (the same record
 *                items, so the slices agree), and the patterns after "--",
 *                with '!G' for --exclude G (the builder writes them). Not the
 *                reports: --schedule static writes none; --costs, --timeout,
 *                --fail-fast, --restarts and --rerun-failed are refused with
 *                it (kc_cli_check_parallel); --shard is the builder's own K/N.
 *   TO_REEXEC    every option of run it was given (a static shard, in
 *                practice: its --shard, --parent, --threads, --reference,
 *                --records), so the fresh process reads its command line as
 *                the first did; not the --resume-* it writes anew, and
 *                --exclude only as its '!G' pattern.
 *   TO_SANITIZE  none: the target runs one item's launches and compares
 *                nothing (no --reference), runs registered items only (a
 *                record item has no :sanitize item or control: no --records),
 *                and may use every CPU, as racecheck does (sanitize.c).
 *   TO_RERUN     --records (a record item exists only with its file),
 *                --reference (a disagreement of references reruns as it
 *                failed), --block-size and --timeout (a TIMEOUT reruns
 *                under the limit it met); not --threads (one item has the machine, and the
 *                count changes no result) nor anything of scheduling or
 *                reports (it runs one item).
 *
 * Before this column each of the five builders chose its own subset. They
 * agreed but for one choice without a reason: workers and shards were always
 * told the --reference mode, the rerun command only a mode other than
 * 'device'. Now every heir gets --reference exactly as given (one not given
 * it takes the same default). */
#define TO_NONE 0u
#define TO_WORKER (1u << KC_ARGV_WORKER)
#define TO_SHARD (1u << KC_ARGV_SHARD)
#define TO_REEXEC (1u << KC_ARGV_REEXEC)
#define TO_SANITIZE (1u << KC_ARGV_SANITIZE)
#define TO_RERUN (1u << KC_ARGV_RERUN)

/* opt_row.flags */
#define OPT_ONCE 1u       /* one value: a second would silently replace the first, so it is refused */
#define OPT_INTERNAL 2u   /* a parent's or a re-exec's option: not in the usage text */
#define OPT_PATTERN 8u    /* listed in the usage text's PATTERN paragraph, not under options */

#define F(f) offsetof(kc_opts, f)

/* Every option, in the usage text's order. The columns: name, alias, arg,
 * cmds (C_*), heirs (TO_*: which children inherit it, see above), flags,
 * field, set, missing, help. */
static const opt_row OPTIONS[] = {
    { "--exclude", NULL, "G", C_ALL, TO_NONE, OPT_PATTERN, 0, kc_cli_set_exclude,
      "--exclude needs a glob (the items to leave out)",
      "leave out the items glob G matches (repeatable; '!G' as a PATTERN is the same)" },
    { "--seed", NULL, "S", C_RUN | C_LIST | C_MERGE | C_MUTATE, TO_NONE, OPT_ONCE, 0, kc_cli_set_seed,
      "--seed needs a value (a non-negative integer)",
      "run seed (default 1); every input derives from it and the item's name" },
    { "--device", NULL, "D", C_RUN | C_LIST | C_INFO | C_MUTATE, TO_NONE, OPT_ONCE, 0, kc_cli_set_device,
      "--device needs a value (a device ordinal from 0 to " KC_STR(KC_MAX_DEVICE) ", see kcontract info)",
      "CUDA device ordinal (default 0)" },
    { "--shard", NULL, "K/N", C_RUN | C_LIST | C_MUTATE, TO_REEXEC, OPT_ONCE, 0, kc_cli_set_shard,
      "--shard needs a value (K/N with 0 <= K < N <= " KC_STR(KC_MAX_SHARDS) ", e.g. 0/4, or auto)",
      "run slice K of N (K = 0..N-1): item i of the filtered, name-sorted list\n"
      "belongs to shard i % N; the TALLY records K/N, the slice's items and digest;\n"
      "with --jobs M, slice K runs on M workers. 'auto': K/N from Bazel's, GoogleTest's,\n"
      "Slurm's (job array) or Kubernetes' (Indexed Job, KC_SHARDS) variables; a run\n"
      "honours Bazel's and GoogleTest's without --shard too (docs/multi-host.md)" },
    { "--jobs", "-j", "N", C_RUN | C_MUTATE, TO_REEXEC, OPT_ONCE, 0, kc_cli_set_jobs,
      "--jobs needs a value (a number of worker processes from 1 to " KC_STR(KC_MAX_SHARDS) ")",
      "run the selected items in N worker processes (a work queue, see\n"
      "--schedule); each worker line is printed as it comes, prefixed [wK] ([K/N]\n"
      "with --schedule static), then one TALLY and SUMMARY equal to the serial\n"
      "run's; workers go round robin over the visible GPUs (CUDA_VISIBLE_DEVICES\n"
      "applies) or over --devices" },
    { "--devices", NULL, "L", C_RUN, TO_REEXEC, OPT_ONCE, 0, kc_cli_set_devices,
      "--devices needs a value (device ordinals from 0 to " KC_STR(KC_MAX_DEVICE) ", e.g. 0,2,3)",
      "with --jobs: device ordinals to spread the children over, e.g. 0,2,3" },
    { "--log", NULL, "F", C_MERGE, TO_NONE, 0, 0, kc_cli_set_log, "--log needs a file (the saved output of a --shard K/N run)",
      "merge: the saved output of one --shard K/N run, or a directory: every *.log\n"
      "under it (Bazel's bazel-testlogs; one that holds nothing of a kcontract run\n"
      "is left out, with a note); repeat it; merge also takes the shards'\n"
      "patterns, --records, --seed and --costs, and --json, --junit" },
    { "--allow-mixed-gpus", NULL, NULL, C_MERGE, TO_NONE, 0, F(allow_mixed_gpus), kc_cli_set_flag, NULL,
      "merge: shards that ran on different GPU models, compute\n"
      "capabilities or SM counts merge (refused by default)" },
    { "--records", NULL, "F", C_RUN | C_LIST | C_MERGE, TO_WORKER | TO_SHARD | TO_REEXEC | TO_RERUN, 0, 0,
      kc_cli_set_records,
      "--records needs a value (a file of launch records, docs/launch-records.md)",
      "check the launches recorded in file F (docs/launch-records.md): one kernel\n"
      "item <contract>@<label> per line, gates 1-4 on exactly that shape; with no\n"
      "PATTERN only the record items are selected (add '*' for every item too);\n"
      "repeat it for several files (labels must differ across them)" },
    { "--schedule", NULL, "S", C_RUN, TO_REEXEC, OPT_ONCE, 0, kc_cli_set_schedule,
      "--schedule needs a value (queue or static)",
      "with --jobs: 'queue' (default): N long-lived workers take one item at\n"
      "a time, items that failed last time first, then longest first by the\n"
      "cost table; a crash or hang costs one item (CRASH, TIMEOUT), a fresh worker\n"
      "takes over; 'static': N shards, item i in shard i % N, as --shard does" },
    { "--costs", NULL, "FILE", C_ALL, TO_REEXEC, OPT_ONCE, 0, kc_cli_set_costs,
      "--costs needs a value (a cost table file)",
      "the cost table (default $KC_COSTS when set, else BINARY.costs.tsv beside\n"
      "this binary, one per binary; ./.kcontract-costs.tsv for one installed in a\n"
      "bin folder): read by a --jobs run to order the queue and written after\n"
      "it (a serial run makes it only when given --costs or --rerun-failed,\n"
      "and records its verdicts in one that is there);\n"
      "with --shard K/N the partition is by cost (longest first onto the\n"
      "least-loaded shard) instead of i % N" },
    { "--timeout", NULL, "S", C_RUN | C_MUTATE, TO_REEXEC | TO_RERUN, OPT_ONCE, 0, kc_cli_set_timeout,
      "--timeout needs a value (seconds above 0 and at most " KC_STR(KC_MAX_TIMEOUT_S_TEXT) ", e.g. 30 or 0.5)",
      "every item's time limit in seconds, above 0 and at most " KC_STR(KC_MAX_TIMEOUT_S_TEXT) ", in\n"
      "every mode but --schedule static (default: the contract's timeout_s,\n"
      "else max(60, 5 x recorded seconds), 600 with no record)" },
    { "--fail-fast", NULL, NULL, C_RUN, TO_REEXEC, 0, F(fail_fast), kc_cli_set_flag, NULL,
      "stop handing out items after the first failure; the rest\n"
      "are NOTRUN" },
    { "--no-cache", NULL, NULL, C_RUN, TO_SHARD | TO_REEXEC, 0, F(no_cache), kc_cli_set_flag, NULL,
      "run every item: reuse no verdict from the results cache; what runs\n"
      "still refreshes it (a pass is kept, a failure removes the pass kept\n"
      "for the same inputs; KC_CACHE_DIR=off leaves it alone). Default: an\n"
      "item whose inputs have not changed since it last passed is not run\n"
      "again, its line says 'cached' (docs/results-cache.md)" },
    { "--rerun-failed", NULL, NULL, C_RUN | C_LIST | C_MERGE, TO_REEXEC, 0, F(rerun_failed), kc_cli_set_flag, NULL,
      "run (or list) only the items the cost table (--costs) records as failed\n"
      "last time, among those the PATTERNs select; none recorded: every one runs\n"
      "(pytest's --last-failed; passes the results cache holds are reused);\n"
      "no table: exit 2. The run writes the table back (docs/parallel-runs.md).\n"
      "With --shard K/N each shard reruns the failures of its own slice and\n"
      "leaves the table; merge, given --rerun-failed and the same table, checks\n"
      "their slices and writes it back (a --shard run or merge without it\n"
      "records its verdicts there, seconds kept)" },
    { "--restarts", NULL, "M", C_RUN, TO_REEXEC, OPT_ONCE, 0, kc_cli_set_restarts,
      "--restarts needs a value (a number of worker restarts from 0 to 1000000)",
      "replace at most M workers that crashed, timed out or did not start\n"
      "(default 2 x N + 8); then the items not handed out yet are NOTRUN" },
    { "--status-level", NULL, "L", C_RUN, TO_WORKER | TO_SHARD | TO_REEXEC, OPT_ONCE, 0, kc_cli_set_status_level,
      "--status-level needs a value (fail, pass, skip or all)",
      "which item lines are printed: 'fail' the failing ones only, 'pass' all\n"
      "but SKIP, 'skip' or 'all' (default) every one; a failing line, the TALLY\n"
      "and the SUMMARY always are (refused with --shard K/N: merge reads every\n"
      "line)" },
    { "--color", NULL, "WHEN", C_RUN | C_MERGE, TO_NONE, OPT_ONCE, 0, kc_cli_set_colour,
      "--color needs a value (auto, always or never)",
      "colour the state word of item lines: 'auto' (default) when stdout is a\n"
      "terminal and NO_COLOR is unset or empty, 'always' (NO_COLOR too), 'never'" },
    { "--json", NULL, "FILE", C_RUN | C_MERGE | C_MUTATE, TO_REEXEC, OPT_ONCE, F(json), kc_cli_set_file, "--json needs a file name",
      "write a JSON Lines report: one object per item (state, worker, times,\n"
      "peak RSS and GPU memory, message), one per worker, one summary" },
    { "--junit", NULL, "FILE", C_RUN | C_MERGE, TO_REEXEC, OPT_ONCE, F(junit), kc_cli_set_file, "--junit needs a file name",
      "write a JUnit XML report (one testcase per item) for CI" },
    { "--timeline", NULL, "FILE.svg", C_RUN, TO_REEXEC, OPT_ONCE, F(timeline), kc_cli_set_file, "--timeline needs a file name",
      "write an SVG timeline: one row per worker, one bar per item\n"
      "(docs/reports.md describes the three reports)" },
    { "--threads", NULL, "T", C_RUN | C_LIST | C_INFO, TO_WORKER | TO_SHARD | TO_REEXEC, OPT_ONCE, 0,
      kc_cli_set_threads, NULL,
      "host threads per process for custom input generators and host\n"
      "references, 1 to " KC_STR(KC_MAX_THREADS) " (default: every CPU up to that; with --jobs N,\n"
      "CPUs / N per worker)" },
    { "--inflight", NULL, "K", C_RUN | C_MUTATE, TO_WORKER | TO_SHARD | TO_REEXEC, OPT_ONCE, 0, kc_cli_set_inflight, NULL,
      "items in flight in each worker, 1 to " KC_STR(KC_INFLIGHT_MAX) " (default 1): kernel items and gate 2-4\n"
      "controls side by side on one CUDA context, each on its own thread; a\n"
      "verdict other than PASS (RED for a control) is decided by a run alone,\n"
      "and so is one beside such a verdict; where the device has virtual\n"
      "memory management, buffers have 32 GiB unmapped around them, so a write\n"
      "that far out of bounds faults as it does serially (docs/parallel-runs.md,\n"
      "\"Writes outside an item's buffers\"); :sanitize items: up to K at once,\n"
      "their racecheck in one batch (docs/sanitizer-gate.md);\n"
      "mutate: passed on to the mutants' runs" },
    { "--reference", NULL, "R", C_RUN | C_LIST | C_INFO, TO_WORKER | TO_SHARD | TO_REEXEC | TO_RERUN, OPT_ONCE, 0,
      kc_cli_set_reference, NULL,
      "which float64 reference gate 3 compares with: 'device' (default): the\n"
      "contract's CUDA reference where it has one, else its host reference;\n"
      "'host': always the host reference (the oracle); 'both': both on every\n"
      "case, failing the case where they differ beyond the contract's bound" },
    { "--format", NULL, "F", C_LIST, TO_NONE, OPT_ONCE, 0, kc_cli_set_format, "--format needs a value (human or json)",
      "list: 'human' (default): one 'KIND  NAME' line per item and a count;\n"
      "'json': one JSON object per line per item (name, kind, contract, family,\n"
      "shapes, controls, needs_gpu; a launch record's label), nothing else on stdout" },
    { "--budget", NULL, "N", C_MUTATE, TO_NONE, OPT_ONCE, F(mut_budget), kc_cli_set_count, "--budget needs a count (1 to 1000000)",
      "mutate: build and run at most N mutants, drawn with --seed (the same N\n"
      "for one seed and source): a CI run's sample" },
    { "--accepted", NULL, "FILE", C_MUTATE, TO_NONE, OPT_ONCE, F(mut_accepted), kc_cli_set_text,
      "--accepted needs a file name",
      "mutate: the accepted equivalents, one '<id> <module> <reason>' a line: not\n"
      "built, run or reported; an entry that no longer matches the source is refused" },
    { "--operators", NULL, "LIST", C_MUTATE, TO_NONE, OPT_ONCE, F(mut_operators), kc_cli_set_text,
      "--operators needs a list (docs/mutation.md names them)",
      "mutate: only these operators, ','-separated (default all; docs/mutation.md)" },
    { "--source-dir", NULL, "DIRS", C_MUTATE, TO_NONE, OPT_ONCE, F(mut_sources), kc_cli_set_text,
      "--source-dir needs folders", "mutate: where a module's <module>.cu is, ':'-separated (DIR/ or\n"
      "DIR/<family>/; default kernels:staging/kernels)" },
    { "--mutants-dir", NULL, "DIR", C_MUTATE, TO_NONE, OPT_ONCE, F(mut_dir), kc_cli_set_text, "--mutants-dir needs a folder",
      "mutate: the mutants' sources, images, logs and list (default build/mutants;\n"
      "an unchanged mutant is not built again)" },
    { "--build-jobs", NULL, "N", C_MUTATE, TO_NONE, OPT_ONCE, F(mut_build_jobs), kc_cli_set_count,
      "--build-jobs needs a count (1 to 1000000)",
      "mutate: make -jN for the mutants' builds (default every CPU)" },
    { "--build-only", NULL, NULL, C_MUTATE, TO_NONE, 0, F(mut_build_only), kc_cli_set_flag, NULL,
      "mutate: generate, build and filter the mutants; run none" },
    { "--sanitizer", NULL, NULL, C_MUTATE, TO_NONE, 0, F(mut_sanitizer), kc_cli_set_flag, NULL,
      "mutate: a mutant that passes gates 1-4 goes on to compute-sanitizer (gate 5)" },
    { "--merge-json", NULL, "F", C_MUTATE, TO_NONE, 0, 0, kc_cli_set_report,
      "--merge-json needs a file (a shard's kcontract mutate --json report)",
      "mutate: one report from the --json reports of a run's --shard K/N\n"
      "mutate runs (repeat it; give the shards' patterns, --budget, --seed,\n"
      "--operators, --accepted): nothing is built or run" },
    { "--iterate", NULL, "F", C_MUTATE, TO_NONE, 0, 0, kc_cli_set_report,
      "--iterate needs a file (an earlier kcontract mutate --json report)",
      "mutate: earlier runs' --json reports (repeat it; shards too): a mutant\n"
      "they caught, timed out or built as unviable or equivalent keeps that\n"
      "outcome (\"carried\"); the missed and not-run ones are built and run\n"
      "(cargo-mutants' --iterate: the loop of strengthening contracts)" },
    { "--every-contract", NULL, NULL, C_MUTATE, TO_NONE, 0, F(mut_every_contract), kc_cli_set_flag, NULL,
      "mutate: every contract of a module runs every mutant (per-contract scores;\n"
      "default: the first contract, then the others only on what it missed)" },
    { "--help", "-h", NULL, C_ALL, TO_NONE, 0, 0, kc_cli_set_help, NULL, "this text" },
    { "--version", NULL, NULL, C_ALL, TO_NONE, 0, 0, kc_cli_set_version, NULL,
      "the program's name, kcontract's version and ABI, the build identity\n"
      "(TALLY build=) and the registered contracts and suites (also: version)" },
    /* Internal: how a --jobs parent starts its children and a run re-executes itself. */
    { "--parent", NULL, "PID", C_RUN, TO_REEXEC, OPT_ONCE | OPT_INTERNAL, 0, kc_cli_set_parent,
      "--parent needs a value (a process id)", NULL },
    { "--worker", NULL, NULL, C_RUN, TO_REEXEC, OPT_INTERNAL, F(worker), kc_cli_set_flag, NULL, NULL },
    { "--sanitize-target", NULL, NULL, C_RUN, TO_REEXEC, OPT_INTERNAL, F(sanitize_target), kc_cli_set_flag, NULL, NULL },
    { "--gpu-shared", NULL, NULL, C_RUN, TO_REEXEC, OPT_INTERNAL, F(gpu_shared), kc_cli_set_flag, NULL, NULL },
    { "--gpu-wait", NULL, "W", C_RUN, TO_REEXEC, OPT_ONCE | OPT_INTERNAL, F(gpu_wait), kc_cli_set_text,
      "--gpu-wait needs a value (block, spin, yield or auto)", NULL },
    { "--block-size", NULL, "B", C_RUN, TO_WORKER | TO_SHARD | TO_REEXEC | TO_RERUN, OPT_ONCE, 0, kc_cli_set_block_size,
      "--block-size needs a value (threads per block, 1 to 1024)",
      "run only the launch variant B of the selected contracts' kernels and\n"
      "controls (kc_contract.block_sizes; :limits and :sanitize use the first\n"
      "listed; suites run as without it). Every contract a selected item belongs\n"
      "to must list B: else nothing runs, exit 2, naming those that do not and\n"
      "what they list (docs/writing-a-contract.md); a failure's rerun gives it" },
    { "--cases", NULL, "I:J", C_RUN, TO_NONE, OPT_ONCE | OPT_INTERNAL, 0, kc_cli_set_cases, "--cases needs I:J", NULL },
    { "--resume-records", NULL, "FD", C_RUN, TO_NONE, OPT_INTERNAL, 0, kc_cli_set_resume_records, NULL, NULL },
    { "--resume-at", NULL, "I", C_RUN, TO_NONE, OPT_INTERNAL, 0, kc_cli_set_resume_at, NULL, NULL },
    { "--resume-tally", NULL, "TALLY", C_RUN, TO_NONE, OPT_INTERNAL, 0, kc_cli_set_resume_tally,
      "--resume-tally: internal option needs a TALLY line", NULL },
    { "--resume-elapsed", NULL, "S", C_RUN, TO_NONE, OPT_INTERNAL, 0, kc_cli_set_resume_elapsed,
      "--resume-elapsed: internal option needs seconds", NULL },
    { "--resume-untrusted", NULL, NULL, C_RUN, TO_NONE, OPT_INTERNAL, F(resume_untrusted), kc_cli_set_flag, NULL, NULL },
};
#undef F
#define NOPTIONS ((int)(sizeof OPTIONS / sizeof OPTIONS[0]))

/* The row spelled name (its first len characters), or NULL. */
static const opt_row *find_option(const char *name, size_t len)
{
    for (int k = 0; k < NOPTIONS; k++) {
        const opt_row *r = &OPTIONS[k];
        if ((strlen(r->name) == len && strncmp(r->name, name, len) == 0) ||
            (r->alias && strlen(r->alias) == len && strncmp(r->alias, name, len) == 0))
            return r;
    }
    return NULL;
}

/* The row of a short alias given with its value joined ("-j4", as make
 * takes it), or NULL. */
static const opt_row *short_joined(const char *a)
{
    if (a[0] != '-' || a[1] == '-' || !a[1] || !a[2]) return NULL;
    for (int k = 0; k < NOPTIONS; k++) {
        const opt_row *r = &OPTIONS[k];
        if (r->alias && r->arg && strlen(r->alias) == 2 && strncmp(r->alias, a, 2) == 0) return r;
    }
    return NULL;
}

/* The usage text's lines of the rows with (OPT_PATTERN) or without it. */
static void usage_rows(FILE *out, unsigned pattern)
{
    for (int k = 0; k < NOPTIONS; k++) {
        const opt_row *r = &OPTIONS[k];
        if ((r->flags & OPT_INTERNAL) || (r->flags & OPT_PATTERN) != pattern) continue;
        int n = fprintf(out, "  %s%s%s%s%s", r->alias ? r->alias : "", r->alias ? ", " : "", r->name, r->arg ? " " : "",
                        r->arg ? r->arg : "");
        fprintf(out, "%*s", n < 16 ? 16 - n : 2, "");
        for (const char *s = r->help; *s; s++) {
            fputc(*s, out);
            if (*s == '\n') fprintf(out, "%16s", "");
        }
        fputc('\n', out);
    }
}

void kc_cli_usage(FILE *out, const char *prog)
{
    const char *slash = prog ? strrchr(prog, '/') : NULL;
    const char *p = slash ? slash + 1 : prog && *prog ? prog : "kcontract";
    fprintf(out, "usage: %s [run] [options] [PATTERN...]   check items (default: all)\n"
                 "       %s list [--format human|json] [PATTERN...]  list items and their kinds\n"
                 "       %s merge [PATTERN...] --log F [--log F...]\n"
                 "                                     one TALLY and SUMMARY from the saved outputs of the --shard\n"
                 "                                     K/N runs of a multi-host run (give it the PATTERNs they ran)\n"
                 "       %s info                         driver and devices\n"
                 "       %s version                      name, version, build identity (also --version)\n"
                 "       %s mutate [options] [PATTERN...]  mutation analysis of the selected contracts' modules:\n"
                 "                                     which mutants of their source no gate catches (docs/mutation.md)\n"
                 "Options may come before the command too (%s -j 8 run 'rmsnorm.*').\n", p, p, p, p, p, p, p);
    fputs("\n"
          "PATTERN is a shell glob over item names, e.g. 'rmsnorm.*' or '*:control.*'.\n", out);
    usage_rows(out, OPT_PATTERN);
    fputs("Items: <contract> (gates 1-4), <contract>:limits, <contract>:control.<name>,\n"
          "<contract>:sanitize (compute-sanitizer: docs/sanitizer-gate.md), suites.\n"
          "An option's value follows it or is joined to it by '=' (--seed 7, --seed=7); every\n"
          "argument after '--' is a PATTERN, even one that starts with '-'. A report's FILE (--json,\n"
          "--junit, --timeline) is not '-' (standard output carries the run's lines), and one with\n"
          "'*', '?' or '[' must be joined to its option (--json='r[1].json'): after it, it reads as\n"
          "a PATTERN whose report file was left out, and is refused.\n"
          "\n"
          "options:\n", out);
    usage_rows(out, 0);
    fputs(
          "\n"
          "Each item prints one line: PASS, FAIL, KNOWN, RED, MISSED, LIMIT, LEAK (it left processes\n"
          "or GPU state behind), SKIP, CRASH, TIMEOUT or NOTRUN (any mode), ending with its\n"
          "time; then a machine-readable TALLY line and a SUMMARY line (docs/output-format.md).\n"
          "exit status: 0 everything ran and passed; 1 a failure, missed control, limit problem,\n"
          "stale known finding, LEAK, CRASH, TIMEOUT or NOTRUN, or a run not trusted (sanitizer\n"
          "sessions that could not vouch for their clean verdicts, a worker that broke the result\n"
          "protocol or ended on its own unexplained: a kcontract: line says why); 2 bad usage (also a\n"
          "malformed cost table, or mistakes in the registered contracts: all of them are named); 3\n"
          "nothing failed but items were skipped (e.g. no GPU); 4 internal error.\n"
          "mutate: 1 a mutant missed or not run (NOTRUN); 3 none missed, and those not run were skipped\n"
          "(their items SKIP: no GPU), as run's 3 (docs/mutation.md).\n"
          "--schedule static and merge: 1 also when a shard is missing or did not finish, or the\n"
          "shards' logs disagree (the reasons name the shard); merge: 2 when a --log cannot be read.\n"
          "A run interrupted by SIGINT or SIGTERM exits 128+signal (130, 143) in every mode (serial,\n"
          "--shard K/N, --jobs); the items it did not finish are NOTRUN. info: 0 with a device, 3 with\n"
          "none (no driver or no device).\n"
          "docs/parallel-runs.md describes --shard, --jobs (the work queue, the cost table, faults),\n"
          "--schedule static, the merge and the memory plan.\n"
          "\n"
          "environment (a failure line's rerun command carries those set, NO_COLOR aside):\n"
          "  KC_LIBCUDA    the CUDA driver library to load (default libcuda.so.1; the tests' fake driver);\n"
          "                none: run as on a machine without a driver (GPU items SKIP, exit 3); a\n"
          "                library that is not found or does not load is refused (exit 2)\n"
          "  KC_LIBNVML    the NVML library for the GPU-state watch (default libnvidia-ml.so.1; none:\n"
          "                no watch; a path that is not there is refused, exit 2)\n"
          "  KC_LIBDIR     ':'-separated directories of library kernels' lib<name>.so (default: lib/\n"
          "                next to the binary, then ../lib/kcontract/ from it)\n"
          "  KC_CUDA_SCHED how a waiting host thread waits for the GPU: block, spin, yield, or auto (the\n"
          "                driver's: spin while fewer contexts than cores); default yield in a run of one\n"
          "                worker with one item in flight, block otherwise (compute-sanitizer's targets too)\n"
          "  KC_COMPUTE_SANITIZER  the compute-sanitizer of the :sanitize items (default: PATH, then\n"
          "                /usr/local/cuda/bin; docs/sanitizer-gate.md); set, it must name an executable\n"
          "                file (else exit 2), or none: run as without it (:sanitize items SKIP)\n"
          "  KC_SANITIZE_TIMEOUT_S  seconds per sanitizer tool run of a :sanitize item, above 0 and at most\n"
          "                10000000, e.g. 120 or 0.5 (default 120, or the contract's timeout_s when larger); a\n"
          "                worker whose input closed waits that long for its sessions to end, and is stopped\n"
          "                past it + 20 s\n"
          "  KC_SANITIZE_SESSIONS  0 or 1. 0: every :sanitize item runs alone under each tool; 1 (default):\n"
          "                one compute-sanitizer session per tool serves a process's items\n"
          "  KC_SANITIZE_BATCH  0 or 1. 0: racecheck runs each :sanitize item in a request of its own;\n"
          "                1 (default): with --inflight K > 1 a worker's up to K items in one batch\n"
          "  KC_SANITIZER_HOST_MIB  the host memory a --jobs run plans one worker's compute-sanitizer\n"
          "                sessions at, in MiB, 0 to 16777216 (default: measured, with a term for racecheck's\n"
          "                batches: the memory plan below; 0: not counted)\n"
          "  KC_SANITIZER_GPU_MIB  the same for their GPU memory, 0 to 16777216 (default: measured, the\n"
          "                plan below)\n"
          "  CUDA_VISIBLE_DEVICES  the devices the driver shows, as for any CUDA program\n"
          "  NO_COLOR      set and not empty: no colour under --color auto, even on a terminal\n"
          "  KC_CACHE_DIR  the results cache's directory (default: <binary>.cache beside the binary);\n"
          "                'off': no cache at all (--no-cache reuses nothing but still refreshes\n"
          "                it; docs/results-cache.md); empty is unset\n"
          "  KC_COSTS      the cost table when --costs is not given (default: <binary>.costs.tsv\n"
          "                beside the binary); a serial run makes it only with --costs or\n"
          "                --rerun-failed, and records its verdicts in one that is there; empty is unset\n"
          "KC_CUDA_SCHED and KC_SANITIZE_* set to a value they do not take are refused by run and\n"
          "mutate before anything runs, naming the variable, the value and what it takes (exit 2);\n"
          "KC_SANITIZER_*_MIB the same by a --jobs run that plans sanitizer sessions; the paths are\n"
          "checked where they are used. Set but empty, each is unset.\n",
          out);
}

/* Each option given (given[k] for OPTIONS[k]) applies to the command: the
 * first that does not is refused, in the words of the command. */
static int check_commands(const kc_opts *o, const unsigned char *given)
{
    static const char *const names[] = { [KC_CMD_RUN] = "run", [KC_CMD_LIST] = "list", [KC_CMD_INFO] = "info",
                                         [KC_CMD_MERGE] = "merge", [KC_CMD_VERSION] = "version",
                                         [KC_CMD_MUTATE] = "mutate" };
    static const kc_cmd order[] = { KC_CMD_RUN, KC_CMD_LIST, KC_CMD_MERGE, KC_CMD_INFO, KC_CMD_MUTATE };
    const int norder = (int)(sizeof order / sizeof order[0]);
    for (int k = 0; k < NOPTIONS; k++) {
        const opt_row *r = &OPTIONS[k];
        if (!given[k] || (r->cmds & (1u << o->cmd))) continue;
        if (o->cmd == KC_CMD_MERGE)
            return kc_cli_usage_error("%s does not apply to merge (it runs nothing: it merges the --log outputs)%s", r->name, "");
        char to[64] = "";
        int n = 0, m = 0;
        for (int c = 0; c < norder; c++) m += (r->cmds >> order[c]) & 1;
        for (int c = 0; c < norder; c++) {
            if (!((r->cmds >> order[c]) & 1)) continue;
            size_t len = strlen(to);
            snprintf(to + len, sizeof to - len, "%s%s", n == 0 ? "" : n == m - 1 ? " and " : ", ", names[order[c]]);
            n++;
        }
        return kc_cli_usage_error("%s applies to %s only", r->name, to);
    }
    return 0;
}

int kc_cli_parse(int argc, char **argv, kc_opts *o)
{
    int rc = kc_cli_parse_args(argc, argv, o);
    if (rc || o->cmd == KC_CMD_HELP) return rc;
    if ((rc = kc_cli_check_reports(o))) return rc;
    return kc_cli_resolve_paths(o);
}

/* A PATTERN: a glob, or '!G' (an exclusion, how --exclude reaches static shards). */
static int pattern(kc_opts *o, char *a)
{
    if (o->cmd == KC_CMD_INFO) return kc_cli_usage_error("info takes no patterns, got '%s'%s", a, "");
    if (o->cmd == KC_CMD_VERSION) return kc_cli_usage_error("version takes no patterns, got '%s'%s", a, "");
    if (a[0] == '!') {
        if (!a[1]) return kc_cli_usage_error("'!' needs a glob after it%s%s", "", "");
        return kc_cli_exclusion(o, a + 1);
    }
    o->patterns[o->npatterns++] = a;
    return 0;
}

/* The option r, given with value v (NULL: a flag), for the command lines
 * its row's heirs name: "--name" and the value as two words, whichever way
 * it was given ("--seed=7", "-h"), so a child reads it back the same. */
static int inherit(kc_opts *o, const opt_row *r, const char *v)
{
    for (int k = 0; k < KC_ARGV_KINDS; k++) {
        if (!(r->heirs & 1u << k)) continue;
        if (kc_strvec_push(&o->inherit[k], r->name) || (r->arg && kc_strvec_push(&o->inherit[k], v ? v : "")))
            return kc_cli_usage_error("out of memory%s%s", "", "");
    }
    return 0;
}

/* An unknown option a: "unknown option 'A'", and "; did you mean '--jobs'?"
 * when an option's name is within a typo's edit distance of it
 * (kc_filter_suggest, as a mistyped pattern gets; git's "did you mean" is
 * the model), over the name before any "=". Exit status 2. */
static int is_command(const char *word);

static int unknown_option(const char *a)
{
    enum { W = 32 };
    static char names[NOPTIONS][W];
    for (int k = 0; k < NOPTIONS; k++) snprintf(names[k], W, "%s", OPTIONS[k].name);
    char word[256], near[3][256], also[600] = "";
    snprintf(word, sizeof word, "%.*s", (int)strcspn(a, "="), a);
    int n = strlen(word) < W ? kc_filter_suggest(word, names[0], W, NOPTIONS, near, 3) : 0;
    for (int i = 0; i < n; i++)
        kc_strcatf(also, sizeof also, "%s'%s'", i == 0 ? "; did you mean " : i == n - 1 ? " or " : ", ", near[i]);
    if (n) kc_strcatf(also, sizeof also, "?");
    /* what the options of other test runners are here: cargo-nextest's and
     * ctest's listing is a command (`list`), GoogleTest's filter a pattern */
    const char *bare = word + strspn(word, "-");
    if (!n && is_command(bare))
        kc_strcatf(also, sizeof also, "; '%s' is a command, not an option: %s %s [PATTERN...]", bare, kc_prog(), bare);
    else if (!n && (strcmp(bare, "gtest_list_tests") == 0 || strcmp(bare, "show-only") == 0))
        kc_strcatf(also, sizeof also, "; the command 'list' lists the items: %s list [PATTERN...]", kc_prog());
    else if (!n && strcmp(bare, "gtest_filter") == 0)
        kc_strcatf(also, sizeof also, "; patterns are arguments, not an option: %s run 'PATTERN' --exclude 'GLOB'",
                   kc_prog());
    return kc_cli_usage_error("unknown option '%s'%s", a, also);
}

/* argv[*i], an option: found in OPTIONS, its value taken ("--name=V" or the
 * next argument, then *i moves past it), checked for a second time, set, and
 * kept for the command lines that inherit it (o->inherit). */
static int option(kc_opts *o, int argc, char **argv, int *i, unsigned char *given)
{
    const char *a = argv[*i];
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
    const opt_row *r = find_option(a, eq ? (size_t)(eq - a) : strlen(a));
    const opt_row *joined = r ? NULL : short_joined(a);
    if (!r && !(r = joined)) return unknown_option(a);
    int k = (int)(r - OPTIONS);
    const char *v = NULL;
    int used = 0;   /* arguments the value took after a */
    if (joined) {
        v = a + 2;                          /* "-j4" */
    } else if (!r->arg) {
        if (eq) return kc_cli_usage_error("%s takes no value, got '%s'", r->name, a);
    } else if (eq) {
        v = eq + 1;
    } else if (*i + 1 < argc) {
        v = argv[*i + 1];
        used = 1;
    } else if (r->missing) {
        return kc_cli_usage_error("%s%s", r->missing, "");
    }
    if ((r->flags & OPT_ONCE) && given[k])
        return kc_cli_usage_error("%s given twice (the second value would silently replace the first)%s", r->name, "");
    given[k] = 1;
    if (r->set(o, r, v)) return 2;
    /* a report's path in the next argument that looks like a PATTERN
     * (`--json 'rmsnorm.*'`: the file forgotten): judged once the parse
     * knows whether this is the process the user started (below) */
    if (used && r->set == kc_cli_set_file && strpbrk(v, "*?[") && !o->report_glob) {
        o->report_glob = r->name;
        o->report_glob_path = v;
    }
    *i += used;
    return inherit(o, r, v);
}

/* The commands, by their word. */
static const struct { const char *word; kc_cmd cmd; } COMMANDS[] = {
    { "run", KC_CMD_RUN }, { "list", KC_CMD_LIST }, { "info", KC_CMD_INFO }, { "merge", KC_CMD_MERGE },
    { "version", KC_CMD_VERSION }, { "mutate", KC_CMD_MUTATE },
};

static kc_cmd command_of(const char *word)
{
    for (size_t c = 0; c < sizeof COMMANDS / sizeof COMMANDS[0]; c++)
        if (strcmp(word, COMMANDS[c].word) == 0) return COMMANDS[c].cmd;
    return KC_CMD_RUN;
}

static int is_command(const char *word)
{
    for (size_t c = 0; c < sizeof COMMANDS / sizeof COMMANDS[0]; c++)
        if (strcmp(word, COMMANDS[c].word) == 0) return 1;
    return 0;
}

/* Where the command word is: the first argument that is neither an option
 * nor an option's value, when it names a command (`kcontract --seed 3 run
 * 'x*'`, `kcontract -j 4 run`: options before the command apply as after
 * it, as git's, cargo's and ctest's global options do); 0 when there is
 * none (the first such argument is a PATTERN, or there is none: run). The
 * scan stops at "--" and at an option the table does not know (the parse
 * refuses it, naming it). */
static int command_word(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) return 0;
        if (a[0] != '-' || !a[1]) return is_command(a) ? i : 0;
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        const opt_row *r = find_option(a, eq ? (size_t)(eq - a) : strlen(a));
        if (!r) {
            if (!(r = short_joined(a))) return 0;
            continue;                       /* "-j4": its value is in it */
        }
        if (r->arg && !eq) i++;             /* its value, whatever it looks like */
    }
    return 0;
}

void kc_cli_report_args(int argc, char **argv, const char *path[3])
{
    static const size_t field[3] = { offsetof(kc_opts, json), offsetof(kc_opts, junit), offsetof(kc_opts, timeline) };
    path[0] = path[1] = path[2] = NULL;
    const int at = command_word(argc, argv);
    const kc_cmd cmd = at > 0 ? command_of(argv[at]) : KC_CMD_RUN;
    if (cmd != KC_CMD_RUN && cmd != KC_CMD_MERGE) return;  /* the commands that write these reports (report.h) */
    const char *in[64];         /* what the line gives the run to read: --log, --records */
    int nin = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i == at || a[0] != '-' || !a[1]) continue;      /* the command word, a PATTERN */
        if (strcmp(a, "--") == 0) return;                   /* PATTERNs only after it */
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        const opt_row *r = find_option(a, eq ? (size_t)(eq - a) : strlen(a));
        if (!r) continue;       /* unknown (the parse refused it) or "-j4": no value after it */
        const char *v = !r->arg ? NULL : eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
        for (int k = 0; k < 3; k++)
            if (r->set == kc_cli_set_file && r->field == field[k] && (r->cmds & (1u << cmd))) path[k] = v;
        if (v && (r->set == kc_cli_set_log || r->set == kc_cli_set_records) && nin < 64) in[nin++] = v;
        if (r->arg && !eq) i++;     /* its value, whatever it looks like, as the parse takes it */
    }
    for (int k = 0; k < 3; k++)     /* a file the run reads is never a report (kc_cli_check_reports) */
        for (int j = 0; path[k] && j < nin; j++)
            if (kc_cli_input_holds(in[j], path[k])) path[k] = NULL;
}

int kc_cli_parse_args(int argc, char **argv, kc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->shard_n = 1;
    o->resume_records_fd = -1;
    char costs_err[400] = "";
    const char *costs_env = getenv(KC_COSTS_ENV);
    int costs_bad = kc_costs_default_path(costs_env, o->costs_default, sizeof o->costs_default, costs_err,
                                          sizeof costs_err);   /* refused below where the table is used */
    o->costs = o->costs_default;
    o->costs_env = costs_env && costs_env[0];
    o->max_restarts = -1;
    o->argv0 = argc > 0 ? argv[0] : "kcontract";
    o->env_get = kc_env_getenv;     /* what rerun commands carry (rerun_env.h) */
    o->patterns = calloc((size_t)argc + 1, sizeof *o->patterns);
    o->logs = calloc((size_t)argc + 1, sizeof *o->logs);
    if (!o->patterns || !o->logs) return kc_cli_usage_error("out of memory%s%s", "", "");
    int at = command_word(argc, argv);     /* global options may come before it (issue 25) */
    if (at > 0) o->cmd = command_of(argv[at]);
    o->cmd_word = at;
    unsigned char given[NOPTIONS] = { 0 };
    int dashdash = 0;   /* after "--": every argument is a PATTERN */
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (i == at) continue;
        if (!dashdash && strcmp(a, "--") == 0) {
            dashdash = 1;
            continue;
        }
        if (!dashdash && a[0] == '-' && a[1]) {
            if (option(o, argc, argv, &i, given)) return 2;
            if (o->cmd == KC_CMD_HELP || (o->cmd == KC_CMD_VERSION && strcmp(a, "--version") == 0)) return 0;
            continue;
        }
        if (pattern(o, a)) return 2;
    }
    if (o->cmd == KC_CMD_MERGE && !o->nlogs)
        return kc_cli_usage_error("merge needs the shards' outputs: --log FILE for each%s%s", "", "");
    /* The rule for a report path with glob characters, in the user's command
     * line only (a re-exec or a shard is given the path as its own word): it
     * must be joined to its option, --json=PATH; as the next argument it is
     * refused, since an item pattern after a report option whose file was
     * left out reads exactly so. No other guess is made at what a path is. */
    if (o->report_glob && !o->parent && !o->worker && !o->resume_tally && o->resume_records_fd < 0) {
        char why[1024];
        snprintf(why, sizeof why, "%s '%.200s': that looks like an item pattern, not a report's file name ('*', '?' and "
                 "'[' are glob characters): a report path must follow %s (%s FILE [PATTERN...]); to name a file with such "
                 "characters, join it to the option: %s='%.200s'", o->report_glob, o->report_glob_path, o->report_glob,
                 o->report_glob, o->report_glob, o->report_glob_path);
        return kc_cli_usage_error("%s%s", why, "");
    }
    if (check_commands(o, given)) return 2;
    /* a KC_COSTS that cannot name a file matters only where no --costs wins
     * over it and the run reads or writes the table (not info, version, a
     * worker, a serial run without --rerun-failed) */
    if (costs_bad && !o->costs_given && (o->rerun_failed || kc_cli_writes_costs(o)))
        return kc_cli_usage_error("%s%s", costs_err, "");
    return o->cmd == KC_CMD_MERGE ? 0 : kc_cli_check_parallel(o);
}

void kc_opts_free(kc_opts *o)
{
    for (int k = 0; k < 4; k++) {
        free(o->resolved[k]);
        o->resolved[k] = NULL;
    }
    for (int i = 0; o->patterns && i < o->npatterns; i++)
        if (o->patterns[i][0] == '!') free(o->patterns[i]);   /* exclusions are copies */
    free(o->patterns);
    free(o->logs);
    for (int k = 0; k < KC_ARGV_KINDS; k++) kc_strvec_clear(&o->inherit[k]);
    o->patterns = NULL;
    o->logs = NULL;
}
