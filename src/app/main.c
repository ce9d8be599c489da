/* main.c — kcontract's command line (kc_main, kcontract.h): parse it, build
 * the item list from the registry, and dispatch to run (serial, or --jobs),
 * list, merge or info. A --jobs child checks its parent before anything else
 * (jobs.h). main() itself is kcontract_main.c's, so a user's suite binary is
 * the same program over its own contracts. */
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>

#include "kcontract.h"
#include "cli.h"
#include "count_probe.h"
#include "cli_selection.h"
#include "jobs.h"
#include "merge_logs.h"
#include "mutate_cmd.h"
#include "plan.h"
#include "launch_records.h"
#include "parallel.h"
#include "exit_guard.h"
#include "filter.h"
#include "registry.h"
#include "report.h"
#include "runner.h"
#include "sanitize.h"
#include "sanitize_target.h"
#include "sanitize_session.h"
#include "shard_env.h"
#include "gpu.h"
#include "gates.h"
#include "gpu_open.h"
#include "worker.h"
#include "item_run.h"
#include "reporter.h"
#include "build_id.h"
#include "host_code.h"
#include "progname.h"

#define KC_STR_(x) #x
#define KC_STR(x) KC_STR_(x)
#ifndef KC_PACKAGE_VERSION      /* the Makefile's KC_VERSION: the ABI version, then .0.0 */
#define KC_PACKAGE_VERSION KC_STR(KC_ABI_VERSION) ".0.0"
#endif

/* --version, `version`: one line, the program's own name first, as nextest's
 * and ctest's do: kcontract's version and ABI, the build identity (the TALLY's
 * build=, so a log can be matched to the binary), what is registered and
 * the identity of the host code (host_code.h: the TALLY's host=; the results
 * cache's key where no shared object counts).
 * A user's suite binary names itself and the kcontract it is built on. */
static int print_version(void)
{
    const kc_contract *const *cs;
    const kc_suite *const *ss;
    size_t nc = kc_registry_contracts(&cs), ns = kc_registry_suites(&ss);
    const char *p = kc_prog();
    if (strcmp(p, "kcontract") == 0) printf("kcontract %s (ABI %d", KC_PACKAGE_VERSION, KC_ABI_VERSION);
    else printf("%s (kcontract %s, ABI %d", p, KC_PACKAGE_VERSION, KC_ABI_VERSION);
    printf(", build %016llx, %zu contract%s, %zu suite%s", (unsigned long long)kc_build_id(), nc, nc == 1 ? "" : "s",
           ns, ns == 1 ? "" : "s");
    uint64_t host;      /* the TALLY's host= (host_code.h) */
    char why[512];
    if (kc_host_code_identity(&host, why, sizeof why) == 0) printf(", host code %016llx", (unsigned long long)host);
    printf(")\n");
    return 0;
}

/* After "pattern 'P' matches no item": when P has no glob characters but
 * names start with it (a family, 'rmsnorm'), say that a pattern matches whole
 * names and what 'P*' would select; nothing otherwise. */
static int prefix_hint(const char *p, const kc_item *items, int n)
{
    char glob[sizeof items[0].name + 2];
    if (strpbrk(p, "*?[") || strlen(p) + 2 > sizeof glob) return 0;
    snprintf(glob, sizeof glob, "%s*", p);
    int hits = 0;
    for (int i = 0; i < n; i++) hits += fnmatch(glob, items[i].name, 0) == 0;
    if (hits)
        kc_say(stderr, "a pattern is a shell glob over whole item names: '%s' selects %d item%s\n",
                glob, hits, hits == 1 ? "" : "s");
    return hits;
}

/* After "pattern 'P' matches no item" and no prefix_hint: the patterns P
 * likely meant (kc_filter_suggest: a typo's edit distance), said as git
 * says a mistyped command's; nothing when none is close. */
static int near_hint(const char *p, const kc_item *items, int n)
{
    char near[3][256];
    int k = n > 0 ? kc_filter_suggest(p, items[0].name, sizeof items[0], n, near, 3) : 0;
    if (!k) return 0;
    char list[900];
    size_t len = 0;
    for (int i = 0; i < k && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'", i == 0 ? "" : i == k - 1 ? " or " : ", ",
                                near[i]);
    kc_say(stderr, "did you mean %s?\n", list);
    return k;
}

/* The libraries and the program the environment names, held before anything
 * runs: KC_LIBCUDA and KC_LIBNVML (kc_lib_setting_check: a path that is not
 * there or no ELF object; "none" and bare names pass) and KC_COMPUTE_SANITIZER
 * when set (an executable file, as kc_sanitizer_find takes it). A broken
 * setting is a broken setup (exit 2), not a machine without a GPU or without
 * compute-sanitizer (exit 3 and SKIP), which a CI may accept. 0, or -1 with
 * why. */
static int check_env_files(char *why, size_t cap)
{
    if (kc_lib_setting_check("KC_LIBCUDA", "the CUDA driver library", why, cap) ||
        kc_lib_setting_check("KC_LIBNVML", "the NVML library", why, cap))
        return -1;
    const char *san = getenv("KC_COMPUTE_SANITIZER");
    char path[4096];
    if (san && *san && strcmp(san, "none") != 0 && kc_sanitizer_find(path, sizeof path, why, cap)) {
        size_t n = strlen(why);
        snprintf(why + n, cap - n, " (expected the path of an executable compute-sanitizer; unset: found on $PATH)");
        return -1;
    }
    return 0;
}

/* The KC_* variables every run reads, each held to what it takes before
 * anything runs (a bad value is said, naming the variable, the value and
 * what it expects; exit 2), as a bad option value is, rather than read as its
 * default or as a prefix: KC_CUDA_SCHED, the sanitizer's
 * KC_SANITIZE_SESSIONS, KC_SANITIZE_BATCH and KC_SANITIZE_TIMEOUT_S, and
 * the files named by KC_LIBCUDA, KC_LIBNVML and KC_COMPUTE_SANITIZER
 * (check_env_files). Empty is unset for each. The others are held as strictly
 * where they are read: the memory plan's KC_SANITIZER_HOST_MIB and
 * KC_SANITIZER_GPU_MIB by a --jobs run that plans sanitizer sessions (plan.c:
 * a run that plans none reads no figure), KC_SHARDS with the shard variables
 * it pairs with (shard_env.c), KC_COSTS where the table is used (cli.c),
 * KC_LIBDIR where library kernels are loaded (hostlib.c), KC_CACHE_DIR in
 * result_cache.c. 0, or -1 with why. */
static int check_env(char *why, size_t cap)
{
    unsigned sched;
    return kc_gpu_sched_flags(&sched, why, cap) || kc_san_env_check(why, cap) || check_env_files(why, cap) ? -1 : 0;
}

/* Whether path starts as a report of kind which (0 --json, 1 --junit, 2
 * --timeline) does, or as its placeholder (report.c). */
static int holds_report(const char *path, int which)
{
    static const char *const head[4] = {
        "{\"type\":\"",                                                  /* --json: JSON Lines, report_json.c */
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ",      /* --junit: report_junit.c */
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" ",  /* --timeline */
        "<svg xmlns=\"http://www.w3.org/2000/svg\" ",                      /* its placeholder (report.c) */
    };
    char buf[128];
    FILE *f = fopen(path, "rb");
    const size_t got = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    for (int h = which; h <= (which == 2 ? 3 : which); h++)
        if (got >= strlen(head[h]) && memcmp(buf, head[h], strlen(head[h])) == 0) return 1;
    return 0;
}

/* A command line that did not parse (exit 2) may name report files that an
 * earlier run left green, which a CI step that publishes its JUnit report
 * whatever the exit status shows as this run's (a red-team's find: `run
 * --junit r.xml --seed x`). The parser stopped at the bad word, so the
 * report options are read from argv as the parse reads them
 * (kc_cli_report_args: an option's value, a PATTERN, a file after "--" or
 * of a command that writes no report is none: `run --exclude --json
 * notes.txt --bogus` turned notes.txt, a PATTERN, into a placeholder), and
 * each that names a regular file holding a report of its kind (its first
 * bytes: holds_report) is made to say the run did not finish
 * (kc_reports_begin); nothing is made where no file was, nor over a file of
 * another kind. */
static void reports_after_bad_usage(int argc, char **argv)
{
    const char *path[3];
    kc_cli_report_args(argc, argv, path);
    for (int k = 0; k < 3; k++) {
        struct stat st;
        if (!path[k] || !*path[k] || stat(path[k], &st) != 0 || !S_ISREG(st.st_mode)) path[k] = NULL;
        /* only a report (an earlier run's, which a CI step might publish as
         * this one's): the refusal may be of the very clash that names
         * another file there, a cost table or a log (`run --costs T --json
         * T` replaced the table with the placeholder: a red-team's find),
         * which stays as it is */
        else if (!holds_report(path[k], k)) path[k] = NULL;
    }
    if (path[0] || path[1] || path[2]) kc_reports_begin(path[0], path[1], path[2]);
}

static int main_body(int argc, char **argv)
{
    int rc = kc_jobs_child_guard(argc, argv);   /* a --jobs child: die with the parent; first */
    if (rc) return rc;
    kc_opts o;
    rc = kc_cli_parse(argc, argv, &o);
    if (rc) {
        if (rc == 2) reports_after_bad_usage(argc, argv);
        kc_opts_free(&o);
        return rc;
    }
    if (o.threads) kc_parallel_set_threads(o.threads);
    if (o.cmd == KC_CMD_HELP) {
        kc_item *all = NULL;
        char err[1024];
        /* the checks and the plan would call a count that aborts here */
        int probe = kc_count_probe(err, sizeof err);
        int n = probe < 0 ? -1 : kc_registry_items(&all, err, sizeof err);
        kc_cli_usage(stdout, argv[0]);   /* a user's suite binary is named its own way */
        if (probe < 0) kc_say(stderr, "%s\n", err);
        if (n >= 0) kc_plan_help(stdout, all, n);
        free(all);
        kc_opts_free(&o);
        return 0;
    }
    if (o.cmd == KC_CMD_INFO) {
        char why[1024];
        kc_opts_free(&o);
        if (check_env_files(why, sizeof why)) {   /* a broken setting is not "no driver" (3) */
            kc_say(stderr, "%s\n", why);
            return 2;
        }
        return kc_info();
    }
    if (o.cmd == KC_CMD_VERSION) {
        char why[1024];
        kc_opts_free(&o);
        /* the build identity calls every arithmetic's terms and depth: one
         * that aborts is named (count_probe.h), not a SIGABRT and status 134 */
        if (kc_count_probe(why, sizeof why) < 0) {
            kc_say(stderr, "1 problem in the registered contracts and suites:\n%s\n", why);
            return 2;
        }
        return print_version();
    }
    kc_env_test_begin(&o);      /* TEST_PREMATURE_EXIT_FILE made, XML_OUTPUT_FILE as --junit (shard_env.h) */
    /* From here the run may end anywhere (a refusal, a crash, SIGKILL): until it
     * writes its reports, they say so (report.h); so before the refusals of
     * the environment and of options that do not combine, which left an
     * earlier run's green reports in place. A re-exec'd serial run
     * (--resume-tally) continues one that already did this. */
    if ((o.cmd == KC_CMD_RUN || o.cmd == KC_CMD_MERGE) && !o.worker && !o.parent && !o.resume_tally && !o.sanitize_target && !o.cases_given &&
        (rc = kc_reports_begin(o.json, o.junit, o.timeline))) {
        kc_opts_free(&o);
        return rc;
    }
    if ((rc = kc_env_shard_apply(&o))) {      /* --shard auto, or Bazel's/GoogleTest's variables: first */
        kc_opts_free(&o);
        return rc;
    }
    /* A --shard K/N run's log is read by kcontract merge, which holds its
     * TALLY to its item lines: they must all be there. (A static schedule's
     * shards are merged by their TALLY lines alone.) */
    if (o.status_level != KC_LEVEL_ALL && o.sharded && !o.parent && o.cmd == KC_CMD_RUN) {
        kc_say(stderr, "--status-level %s does not combine with --shard %d/%d: %s merge reads every item line of a "
               "shard's log (the TALLY is held to them); leave it out\n",
               o.status_level == KC_LEVEL_FAIL ? "fail" : "pass", o.shard_k, o.shard_n, kc_prog());
        kc_opts_free(&o);
        return 2;
    }
    kc_item_print_level(o.status_level);      /* which item lines this process prints (a worker's too) */
    kc_colour_set(o.colour);    /* a worker writes to a pipe and is given no --color: it never colours */
    if (o.cmd == KC_CMD_RUN || o.cmd == KC_CMD_MUTATE) {
        char why[512];
        if ((o.gpu_wait && kc_gpu_set_wait(o.gpu_wait, why, sizeof why)) || check_env(why, sizeof why)) {
            kc_say(stderr, "%s\n", why);      /* refused before anything runs */
            kc_opts_free(&o);
            return 2;
        }
    }
    kc_item *items;
    static char err[16384];
    /* A count that ends its process (a negative dim) would end this one in
     * the contracts' checks or the first memory plan, with no SUMMARY: tried
     * once, in a child, by the process the user started (count_probe.h). */
    if (!o.worker && !o.parent && !o.resume_tally && !o.sanitize_target && !o.cases_given &&
        kc_count_probe(err, sizeof err) < 0) {
        kc_say(stderr, "1 problem in the registered contracts and suites:\n%s\n", err);
        kc_opts_free(&o);
        return 2;
    }
    int n = kc_registry_items(&items, err, sizeof err);
    if (n < 0) {    /* a mistake in a contract: every one named, a usage error */
        kc_say(stderr, "%d problem%s in the registered contracts and suites:\n%s\n", -n, n == -1 ? "" : "s",
                err);
        kc_opts_free(&o);
        return 2;
    }
    struct stat rst;
    for (int r = 0; r < o.nrecords; r++)
        if (o.jobs && stat(o.records[r], &rst) == 0 && !S_ISREG(rst.st_mode)) {
            kc_say(stderr, "--records %s is not a regular file: with --jobs every worker reads it again "
                            "(save it to a file first)\n", o.records[r]);
            free(items);
            kc_opts_free(&o);
            return 2;
        }
    /* --records: items point into recs; no selecting pattern (exclusions do
     * not select) = the records only (the first file drops the registered
     * items, the others add to its records). */
    int selecting = 0;
    for (int p = 0; p < o.npatterns; p++) selecting |= o.patterns[p][0] != '!';
    kc_launch_records *recs[KC_MAX_RECORD_FILES] = { 0 };
    for (int r = 0; r < o.nrecords; r++)
        if ((rc = kc_launch_records_apply(o.records[r], r == 0 && !selecting && !o.worker, &items, &n, &recs[r]))) {
            for (int q = 0; q < r; q++) kc_launch_records_free(recs[q]);
            free(items);
            kc_opts_free(&o);
            return rc;
        }
    /* A selecting pattern that matches nothing is refused (a typo must not
     * pass); an --exclude that matches nothing leaves nothing out, which is
     * what it asked for: a note, once, from the process the user started
     * (one exclusion list can serve suites with and without :sanitize items). */
    int bad = -1, top = !o.worker && !o.parent && !o.resume_tally && !o.sanitize_target && !o.cases_given;
    for (int p = 0; p < o.npatterns; p++) {
        int unmatched = n <= 0 || kc_filter_first_unmatched(items[0].name, sizeof items[0], n, o.patterns + p, 1) == 0;
        if (!unmatched) continue;
        if (o.patterns[p][0] != '!') {
            bad = p;
            break;
        }
        if (top) {
            kc_say(stderr, "note: --exclude '%s' matches no item, so it leaves nothing out (%s list shows the %d "
                   "items)\n", o.patterns[p] + 1, kc_prog(), n);
            if (!prefix_hint(o.patterns[p] + 1, items, n)) near_hint(o.patterns[p] + 1, items, n);
        }
    }
    if (bad >= 0) {
        const char *p = o.patterns[bad];
        kc_say(stderr, "pattern '%s' matches no item (%s list shows the %d items)\n", p, kc_prog(), n);
        /* the first word, no family's prefix: a mistyped command ('lst', 'help'); or a command after a PATTERN */
        int first = !o.cmd_word;
        for (int q = 0; first && q < bad; q++) first = o.patterns[q][0] == '!';
        int hinted = prefix_hint(p, items, n) || near_hint(p, items, n);
        if (!hinted && first && !strpbrk(p, "*?[.:"))
            kc_say(stderr, "nor is '%s' a command: %s run, list, merge, info, version or mutate (%s --help)\n", p, kc_prog(),
                   kc_prog());
        else if (!first && (!strcmp(p, "run") || !strcmp(p, "list") || !strcmp(p, "merge") || !strcmp(p, "info") ||
                            !strcmp(p, "version") || !strcmp(p, "mutate")))
            kc_say(stderr, "'%s' is a command: it comes before every PATTERN (%s %s [options] [PATTERN...])\n", p,
                   kc_prog(), p);
        free(items);
        kc_opts_free(&o);
        return 2;
    }
    /* Every pattern matched, yet the exclusions took every item it selected:
     * a run of nothing would pass green, so it is refused like a typo. */
    int left = 0;
    for (int i = 0; i < n && !left && o.npatterns && !o.worker && !o.sanitize_target; i++)
        left = kc_filter_match(items[i].name, o.patterns, o.npatterns);
    if (o.npatterns && !o.worker && !o.sanitize_target && !left && o.cmd != KC_CMD_INFO) {
        kc_say(stderr, "the exclusions (--exclude G, or a PATTERN '!G') leave no item of those selected (%s list "
               "shows the %d items)\n",
               kc_prog(), n);
        free(items);
        kc_opts_free(&o);
        return 2;
    }
    /* --block-size B against the selection, before anything runs (cli_selection.h) */
    if (o.cmd == KC_CMD_RUN && top && (rc = kc_cli_check_block_size(&o, items, n))) {
        free(items);
        for (int r = 0; r < o.nrecords; r++) kc_launch_records_free(recs[r]);
        kc_opts_free(&o);
        return rc;
    }
    rc = o.cmd == KC_CMD_LIST ? kc_list(&o, items, n)
       : o.cmd == KC_CMD_MUTATE ? kc_mutate_main(&o, items, n)
       : o.cmd == KC_CMD_MERGE ? kc_merge_logs(&o, items, n)
       : o.sanitize_target    ? kc_sanitize_target(&o, items, n)
       : o.cases_given        ? kc_cases_target(&o, items, n)
       : o.worker             ? kc_worker_run(&o, items, n)
       : o.jobs               ? (o.schedule_static ? kc_jobs_run(&o, items, n) : kc_queue_run(&o, items, n))
       : o.parent || o.resume_tally || o.resume_records_fd >= 0
                              ? kc_run(&o, items, n)    /* a static schedule's shard (its parent supervises it), re-exec'd */
                              : kc_serial_run(&o, items, n);
    free(items);
    for (int r = 0; r < o.nrecords; r++) kc_launch_records_free(recs[r]);
    kc_opts_free(&o);
    if (fflush(stdout) != 0 || ferror(stdout)) {    /* lines nobody saw are not a result */
        kc_say(stderr, "writing standard output failed: %s\n", strerror(errno));
        if (rc != 1) rc = 4;
    }
    kc_env_test_end(&o);        /* the run reached its end: TEST_PREMATURE_EXIT_FILE removed */
    return rc;
}

/* Every run's status is kcontract's own: an exit() under it (a library's
 * constructor, a contract's code in this process) is said and never reads
 * as a status this function returned (exit_guard.h). */
int kc_main(int argc, char **argv)
{
    kc_prog_set(argc > 0 ? argv[0] : NULL);     /* the program's own name in what it says (progname.h) */
    kc_exit_guard_arm("starting (the command line, the contracts, the CUDA driver)", 4);
    int rc = main_body(argc, argv);
    kc_exit_guard_disarm();
    return rc;
}
