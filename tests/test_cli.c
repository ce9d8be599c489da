/* test_cli.c — the real kcontract binary as a user meets it without a GPU:
 * usage errors name the bad value and exit 2; a run says there is no GPU,
 * skips GPU items, still runs host suites, and exits 3; list and info work. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/item_lines.h"
#include "support/live.h"
#include "support/run_output.h"
#include "support/spawn.h"

static kc_proc run(const char *a1, const char *a2, const char *a3, const char *a4)
{
    char *argv[6] = { (char *)kc_test_bin(), (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL };
    char *env[] = { "KC_LIBCUDA=none", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 60, &p), 0, "cannot start %s", argv[0]);
    return p;
}

Test(cli, bad_seed_names_value)
{
    kc_proc p = run("run", "--seed", "12x", NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--seed") && strstr(p.err, "'12x'"), "stderr: %s", p.err);
    kc_proc_free(&p);
}

Test(cli, negative_seed_refused)
{
    kc_proc p = run("--seed", "-1", NULL, NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "'-1'"), "stderr: %s", p.err);
    kc_proc_free(&p);
}

Test(cli, missing_value)
{
    kc_proc p = run("run", "--device", NULL, NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--device needs a value"), "stderr: %s", p.err);
    kc_proc_free(&p);
    /* each option's refusal says what was expected, as a bad value's does */
    p = run("run", "--jobs", NULL, NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--jobs needs a value (a number of worker processes from 1 to 4096)"), "stderr: %s", p.err);
    kc_proc_free(&p);
}

Test(cli, bad_device)
{
    kc_proc p = run("run", "--device", "zero", NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "'zero'"), "stderr: %s", p.err);
    kc_proc_free(&p);
}

/* A second value of a one-value option would silently win: refused, for each. */
Test(cli, one_value_options_given_twice_are_refused)
{
    const char *cases[][4] = {
        { "--seed", "1", "--seed", "2" },       { "--device", "0", "--device", "1" },
        { "--shard", "0/2", "--shard", "1/2" }, { "--jobs", "2", "--jobs", "3" },
        { "--threads", "1", "--threads", "2" }, { "--json", "/tmp/a.json", "--json", "/tmp/b.json" },
        { "--junit", "/tmp/a.xml", "--junit", "/tmp/b.xml" }, { "--costs", "/tmp/a.tsv", "--costs", "/tmp/b.tsv" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[] = { (char *)kc_test_bin(), "run", (char *)cases[i][0], (char *)cases[i][1], (char *)cases[i][2],
                         (char *)cases[i][3], NULL };
        char *env[] = { "KC_LIBCUDA=none", NULL };
        kc_proc p;
        cr_assert_eq(kc_spawn(argv, env, 60, &p), 0);
        char want[96];
        snprintf(want, sizeof want, "%s given twice", cases[i][0]);
        cr_expect_eq(p.status, 2, "%s twice: exit %d", cases[i][0], p.status);
        cr_expect(strstr(p.err, want), "want '%s' in: %s", want, p.err);
        kc_proc_free(&p);
    }
}

Test(cli, unknown_option)
{
    kc_proc p = run("run", "--frobnicate", NULL, NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "unknown option '--frobnicate'"), "stderr: %s", p.err);
    kc_proc_free(&p);
}

Test(cli, help_lists_options_and_exit_statuses)
{
    kc_proc p = run("--help", NULL, NULL, NULL);
    cr_expect_eq(p.status, 0);
    cr_expect(strstr(p.out, "--seed") && strstr(p.out, "--device") && strstr(p.out, "exit status"), "%s", p.out);
    kc_proc_free(&p);
}

/* A suite binary of another name (the fixture binary here, a user's suite
 * elsewhere) names itself in its usage, not "kcontract". */
Test(cli, help_names_the_binary)
{
    char *argv[] = { (char *)kc_test_fixture_bin(), "--help", NULL };
    char *env[] = { "KC_LIBCUDA=none", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 60, &p), 0);
    const char *slash = strrchr(argv[0], '/');
    char want[512];
    snprintf(want, sizeof want, "usage: %s [run] [options]", slash ? slash + 1 : argv[0]);
    cr_expect_eq(p.status, 0);
    cr_expect(strncmp(p.out, want, strlen(want)) == 0, "want '%s', got:\n%.200s", want, p.out);
    kc_proc_free(&p);
}

Test(cli, run_without_gpu_skips_and_exits_3)
{
    kc_proc p = run("run", NULL, NULL, NULL);
    cr_expect_eq(p.status, 3, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "kcontract: no GPU: KC_LIBCUDA=none: no CUDA driver loaded"), "%s", p.out);
    cr_expect(strstr(p.out, "\nSKIP   "), "no SKIP line:\n%s", p.out);
    cr_expect(strstr(p.out, "\nPASS   host.contracts.lint"), "host suite did not run:\n%s", p.out);
    cr_expect(strstr(p.out, "\nTALLY v=4 "), "no TALLY:\n%s", p.out);
    cr_expect(strstr(p.out, "\nSUMMARY "), "no SUMMARY:\n%s", p.out);
    cr_expect(!strstr(p.out, "\nFAIL"), "%s", p.out);
    /* The end says why too: every GPU item, counted, and the reason. */
    cr_expect(strstr(p.out, " items skipped: no GPU (KC_LIBCUDA=none: no CUDA driver loaded"), "no closing no-GPU line:\n%s",
              p.out + (p.out_len > 2000 ? p.out_len - 2000 : 0));
    kc_proc_free(&p);
    /* --jobs words the header's no-GPU line as a serial run does: the count, and that host suites still run */
    p = run("run", "--jobs", "2", "rmsnorm.f32*");
    cr_expect_eq(p.status, 3, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "kcontract: no GPU: KC_LIBCUDA=none: no CUDA driver loaded") &&
              strstr(p.out, "; the 7 GPU items will be SKIP\n"), "%s", p.out);
    kc_proc_free(&p);
    p = run("run", "--jobs=2", "rmsnorm.f32", "host.contracts.lint");
    cr_expect_eq(p.status, 3, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.out, "; the 1 GPU item will be SKIP and host-only suites still run\n"), "%s", p.out);
    kc_proc_free(&p);
}

Test(cli, filter_selects_host_suites_only)
{
    kc_proc p = run("run", "host.*", NULL, NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s", p.status, p.out);
    cr_expect(!strstr(p.out, "no GPU"), "a host-only selection needs no GPU:\n%s", p.out);
    cr_expect(!strstr(p.out, "SKIP"), "%s", p.out);
    kc_proc_free(&p);
}

Test(cli, list_shows_kinds)
{
    kc_proc p = run("list", NULL, NULL, NULL);
    cr_expect_eq(p.status, 0);
    cr_expect(strstr(p.out, "kernel   ") && strstr(p.out, "control  ") && strstr(p.out, "limit    ") &&
              strstr(p.out, "suite    "), "%s", p.out);
    kc_proc_free(&p);
}

Test(cli, info_without_driver)
{
    kc_proc p = run("info", NULL, NULL, NULL);
    cr_expect_eq(p.status, 3, "no driver, no device: exit 3 as a run with no GPU, got %d", p.status);
    cr_expect(strstr(p.out, "driver: none (KC_LIBCUDA=none: no CUDA driver loaded"), "%s", p.out);
    kc_proc_free(&p);
}

Test(cli, info_takes_no_patterns)
{
    kc_proc p = run("info", "x*", NULL, NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "'x*'"), "%s", p.err);
    kc_proc_free(&p);
}

/* After a kernel poisons the CUDA context the serial runner re-executes itself
 * and goes on with the next item, carrying the counts (KC_FAULT_LOSE_CONTEXT_AFTER
 * injects the loss on a machine without a GPU). Every item is reported once. */
Test(cli, lost_context_reexecs_and_reports_each_item_once)
{
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.*", NULL };
    char *env[] = { "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.03", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 60, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    const char *fresh = strstr(p.out, "continuing in a fresh process");
    cr_expect(fresh, "no re-exec:\n%s", p.out);
    cr_expect(fresh && strstr(p.out, "fixture.pass.03") < fresh && strstr(fresh, "fixture.pass.04"),
              "the re-exec must come right after the item that lost the context:\n%s", p.out);
    for (int i = 0; i < 12; i++) {
        char name[64];
        snprintf(name, sizeof name, "PASS   fixture.pass.%02d ", i);
        const char *first = strstr(p.out, name);
        cr_expect(first && !strstr(first + 1, name), "%s must appear exactly once:\n%s", name, p.out);
    }
    cr_expect(strstr(p.out, " suite.pass=12 ") && strstr(p.out, " items=12 "), "%s", p.out);
    kc_proc_free(&p);
}

Test(cli, pattern_matching_nothing_is_refused)
{
    kc_proc p = run("run", "host.*", "nomatch*", NULL);
    cr_expect_eq(p.status, 2, "exit %d\n%s", p.status, p.out);
    cr_expect(strstr(p.err, "pattern 'nomatch*' matches no item"), "%s", p.err);
    cr_expect(!strstr(p.out, "TALLY"), "nothing may run:\n%s", p.out);
    kc_proc_free(&p);
    p = run("frobnicate", NULL, NULL, NULL);   /* a mistyped subcommand is a pattern: refused too */
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "'frobnicate'"), "%s", p.err);
    cr_expect(strstr(p.err, "nor is 'frobnicate' a command: kcontract run, list, merge, info, version or mutate (kcontract --help)"),
              "%s", p.err);
    kc_proc_free(&p);
    p = run("run", "frobnicate", NULL, NULL);  /* after the command it is only a pattern */
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "'frobnicate' matches no item") && !strstr(p.err, "a command"), "%s", p.err);
    kc_proc_free(&p);
}

/* A family name without a glob ('fake.copy' for 'fake.copy*') is refused like
 * any pattern that matches nothing, and the refusal says what the glob would
 * select; a pattern no name starts with gets no such hint. */
Test(cli, bare_family_name_gets_a_glob_hint)
{
    kc_proc p = kc_run_fixture((char *[]){ "run", "fake.copy", NULL }, 30);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "pattern 'fake.copy' matches no item"), "%s", p.err);
    cr_expect(strstr(p.err, "a pattern is a shell glob over whole item names: 'fake.copy*' selects 6 items"),
              "%s", p.err);
    cr_expect(!strstr(p.out, "TALLY"), "nothing may run:\n%s", p.out);
    kc_proc_free(&p);
    p = kc_run_fixture((char *[]){ "list", "--exclude", "fake.cop", "fake.*", NULL }, 30);
    cr_expect_eq(p.status, 0, "an exclusion that matches nothing is a note: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--exclude 'fake.cop' matches no item"), "%s", p.err);
    cr_expect(strstr(p.err, "'fake.cop*' selects 6 items"), "%s", p.err);
    kc_proc_free(&p);
    p = kc_run_fixture((char *[]){ "run", "nosuchfamily", NULL }, 30);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "pattern 'nosuchfamily' matches no item") && !strstr(p.err, "shell glob") &&
                  !strstr(p.err, "did you mean"), "%s", p.err);
    kc_proc_free(&p);
}

/* A mistyped pattern is refused with what it likely meant (a swap in its
 * head, the glob kept), as git says of a mistyped command; an exclusion's
 * note too. */
Test(cli, a_mistyped_pattern_gets_what_it_likely_meant)
{
    kc_proc p = kc_run_fixture((char *[]){ "run", "fake.cpoy.*", NULL }, 30);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "pattern 'fake.cpoy.*' matches no item") && strstr(p.err, "did you mean 'fake.copy.*'?"),
              "%s", p.err);
    kc_proc_free(&p);
    p = kc_run_fixture((char *[]){ "list", "--exclude", "fake.axyp.f32", "fake.*", NULL }, 30);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "did you mean 'fake.axpy.f32'?"), "%s", p.err);
    kc_proc_free(&p);
}

/* The fixture binary without a GPU (tests/support: kc_run_fixture), up to
 * eight arguments, NULL after the last. */
static kc_proc fixture_run(char *a1, char *a2, char *a3, char *a4, char *a5, char *a6, char *a7, char *a8)
{
    return kc_run_fixture((char *[]){ a1, a2, a3, a4, a5, a6, a7, a8, NULL }, 30);
}

/* Static shards write no reports: asking for one is refused, so an old green
 * report can never stand for a failing run. Two outputs may not share a file. */
Test(cli, reports_refused_where_they_would_not_be_written)
{
    kc_proc p = fixture_run("run", "fixture.pass.00", "--jobs", "2", "--schedule", "static", "--junit", NULL);
    cr_expect_eq(p.status, 2, "%s", p.err);
    kc_proc_free(&p);
    p = fixture_run("run", "fixture.pass.00", "--jobs", "2", "--schedule", "static", NULL, NULL);
    cr_expect_eq(p.status, 0, "%s%s", p.out, p.err);
    kc_proc_free(&p);
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.00", "--jobs", "2", "--schedule", "static",
                     "--junit", "/tmp/kc_cli_static.xml", NULL };
    cr_assert_eq(kc_spawn(argv, NULL, 30, &p), 0);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--junit needs a serial run or the --jobs work queue"), "%s", p.err);
    kc_proc_free(&p);
    p = fixture_run("run", "fixture.pass.00", "--json", "/tmp/kc_cli_same", "--junit", "/tmp/kc_cli_same", NULL, NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--json and --junit name the same file ('/tmp/kc_cli_same' and '/tmp/kc_cli_same')"), "%s", p.err);
    kc_proc_free(&p);
    p = fixture_run("run", "fixture.pass.00", "--json", "/tmp/kc_cli_same2", "--junit", "/tmp/./kc_cli_same2", NULL, NULL);
    cr_expect_eq(p.status, 2, "two spellings of one new file: exit %d", p.status);
    cr_expect(strstr(p.err, "--json and --junit name the same file"), "%s", p.err);
    kc_proc_free(&p);
    p = fixture_run("run", "fixture.pass.00", "--jobs", "2", "--costs", "/nonexistent/dir/c.tsv", NULL, NULL);
    cr_expect_eq(p.status, 2, "an unwritable cost table: exit %d\n%s", p.status, p.out);
    /* the cost table, not "the report", is what goes there (a new user's find) */
    cr_expect(strstr(p.err, "--costs /nonexistent/dir/c.tsv: cannot create a file in /nonexistent/dir (the cost table "
                            "is written there and renamed into place)"), "%s", p.err);
    cr_expect(!strstr(p.out, "PASS"), "it ran anyway:\n%s", p.out);
    kc_proc_free(&p);
    p = fixture_run("run", "fixture.pass.00", "--jobs", "2", "--json", "/tmp/kc_cli_c.tsv", "--costs", "/tmp/kc_cli_c.tsv");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--json and --costs name the same file"), "%s", p.err);
    kc_proc_free(&p);
}

/* ---- the option table: --opt=value, "--", one check for both spellings ---- */

/* --opt=value is --opt value: the seed reaches the TALLY, the selection runs. */
Test(cli, option_value_joined_by_equals)
{
    kc_proc p = run("run", "--seed=42", "--threads=1", "host.*");
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, " seed=42 "), "the TALLY must carry seed=42:\n%s", p.out);
    cr_expect(strstr(p.out, "\nPASS   host.contracts.lint"), "%s", p.out);
    kc_proc_free(&p);
}

/* A bad value after '=' is refused as after a space: the option, the value, exit 2. */
Test(cli, bad_value_via_equals_names_value)
{
    const char *cases[][2] = {
        { "--seed=12x", "--seed: expected a non-negative integer below 2^64, got '12x'" },
        { "--device=zero", "--device: expected a device ordinal from 0 to 1023 (kcontract info lists the devices), got 'zero'" },
        { "--jobs=0", "--jobs: expected a number of processes from 1 to" },
        { "--reference=gpu", "--reference: expected 'device', 'host' or 'both', got 'gpu'" },
        { "--json=", "--json needs a file name" },
        { "--seed=", "--seed: expected a non-negative integer below 2^64, got ''" },
        { "--fail-fast=1", "--fail-fast takes no value, got '--fail-fast=1'" },
        { "--frobnicate=3", "unknown option '--frobnicate=3'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kc_proc p = run("run", cases[i][0], NULL, NULL);
        cr_expect_eq(p.status, 2, "%s: exit %d", cases[i][0], p.status);
        cr_expect(strstr(p.err, cases[i][1]), "%s: want '%s' in: %s", cases[i][0], cases[i][1], p.err);
        kc_proc_free(&p);
    }
}

/* One value given twice is refused whichever spelling each time. */
Test(cli, given_twice_across_spellings)
{
    const char *cases[][2] = {
        { "--seed=1", "--seed=2" }, { "--seed=1", "--seed" }, { "--jobs", "--jobs=3" }, { "--json=/tmp/a.json", "--json" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *second_value = strchr(cases[i][1], '=') ? NULL : "2";
        const char *first = cases[i][0];
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(first, "="), first);
        kc_proc p = strchr(first, '=') ? run("run", first, cases[i][1], second_value)
                                       : run("run", first, "2", cases[i][1]);
        char want[96];
        snprintf(want, sizeof want, "%s given twice", name);
        cr_expect_eq(p.status, 2, "%s %s: exit %d", first, cases[i][1], p.status);
        cr_expect(strstr(p.err, want), "want '%s' in: %s", want, p.err);
        kc_proc_free(&p);
    }
}

/* After "--" every argument is a PATTERN: '-x' is a glob that matches
 * nothing, not an unknown option; '--seed' is a glob, not the option. */
Test(cli, double_dash_ends_options)
{
    kc_proc p = run("list", "--", "-x", NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "pattern '-x' matches no item"), "%s", p.err);
    kc_proc_free(&p);
    p = run("list", "--", "--seed", "host.*");
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "pattern '--seed' matches no item"), "%s", p.err);
    kc_proc_free(&p);
    p = run("list", "--", "host.*", NULL);
    cr_expect_eq(p.status, 0, "%s", p.err);
    cr_expect(strstr(p.out, "host.contracts.lint"), "%s", p.out);
    kc_proc_free(&p);
    p = run("info", "--", "x", NULL);   /* still no patterns for info */
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "info takes no patterns, got 'x'"), "%s", p.err);
    kc_proc_free(&p);
}

/* An option applies to the commands its row names; the refusal says which. */
Test(cli, option_for_another_command_is_refused_naming_the_commands)
{
    kc_proc p = run("list", "--jobs=2", NULL, NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--jobs applies to run and mutate only"), "%s", p.err);
    kc_proc_free(&p);
    p = run("info", "--shard", "0/2", NULL);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--shard applies to run, list and mutate only"), "%s", p.err);
    kc_proc_free(&p);
    p = run("info", "--seed", "3", NULL);      /* info prints no inputs: a seed there is a mistake */
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--seed applies to run, list, merge and mutate only"), "%s", p.err);
    kc_proc_free(&p);
}

/* The processes a run starts read its patterns after "--" too: the static
 * shards (their own command lines) and the serial re-exec after a lost
 * context (which adds its --resume-* options). */
Test(cli, double_dash_reaches_static_shards_and_the_reexec)
{
    kc_proc p = fixture_run("run", "--jobs", "2", "--schedule=static", "--", "fixture.pass.0*", NULL, NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, " suite.pass=10 "), "%s", p.out);
    kc_proc_free(&p);
    char *argv[] = { (char *)kc_test_fixture_bin(), "run", "--", "fixture.pass.*", NULL };
    char *env[] = { "KC_FAULT_LOSE_CONTEXT_AFTER=fixture.pass.03", NULL };
    cr_assert_eq(kc_spawn(argv, env, 60, &p), 0);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "continuing in a fresh process"), "no re-exec:\n%s", p.out);
    cr_expect(strstr(p.out, " suite.pass=12 ") && strstr(p.out, " items=12 "), "%s", p.out);
    kc_proc_free(&p);
}

/* The usage text's option list comes from the table: every row but the
 * internal ones, and the '=' and '--' forms are explained. */
Test(cli, usage_lists_every_public_option)
{
    kc_proc p = run("--help", NULL, NULL, NULL);
    const char *opts[] = { "--exclude G", "--seed S", "--device D", "--shard K/N", "--jobs N", "--devices L", "--log F",
                           "--allow-mixed-gpus", "--records F", "--schedule S", "--costs FILE", "--timeout S",
                           "--fail-fast", "--restarts M", "--json FILE", "--junit FILE", "--timeline FILE.svg",
                           "--threads T", "--reference R", "--help", "(--seed 7, --seed=7)", "after '--' is a PATTERN" };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) cr_expect(strstr(p.out, opts[i]), "no '%s' in:\n%s", opts[i], p.out);
    cr_expect(!strstr(p.out, "--resume") && !strstr(p.out, "--parent") && !strstr(p.out, "--worker"), "%s", p.out);
    kc_proc_free(&p);
}

/* --block-size B that a selected contract does not list is bad usage,
 * refused before anything runs (it used to FAIL each kernel and MISS each
 * control of such a contract, or SKIP them without a GPU): the refusal names
 * the value, the contracts that do not list it with what they list (a few,
 * then a count), and those that do, with patterns that select them alone.
 * A :limits item's contract counts as its kernel's; so does a --jobs run. */
Test(cli, block_size_a_selected_contract_does_not_list_is_refused_before_running, .timeout = 60)
{
    kc_proc p = kc_run_fake((char *[]){ "run", "--block-size", "128", "fakeblock.*", "--no-cache", NULL }, NULL, 30);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--block-size 128: 1 of the 3 selected contracts does not list that block size: "
                            "fakeblock.ignored.f32 (lists 64). --block-size runs that launch variant of every selected "
                            "contract, so each must list it (kc_contract.block_sizes); 2 do: fakeblock.axpy.f32 (128, 256, "
                            "512), fakeblock.short.f32 (128, 256): select only their items, e.g. 'fakeblock.axpy.f32*' "
                            "'fakeblock.short.f32*'"), "%s", p.err);
    cr_expect(!strstr(p.out, "TALLY") && !strstr(p.out, "FAIL") && !strstr(p.out, "PASS"), "nothing may run:\n%s", p.out);
    kc_proc_free(&p);
    /* many: three named, then a count */
    p = kc_run_fake((char *[]){ "run", "--jobs", "2", "--block-size", "128", "fake*", "--no-cache", NULL }, NULL, 30);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, " selected contracts do not list that block size: fake.axpy.f32 (lists none), fake.copy.f16 "
                            "(lists none), fake.known.f32 (lists none) and ") &&
                  strstr(p.err, " more. --block-size runs"), "%s", p.err);
    cr_expect(!strstr(p.out, "MISSED") && !strstr(p.out, "TALLY"), "nothing may run:\n%s", p.out);
    kc_proc_free(&p);
    /* a :limits item alone: its contract must list it too */
    p = kc_run_fake((char *[]){ "run", "--block-size", "64", "fakeblock.short.f32:limits", NULL }, NULL, 30);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--block-size 64: the selected contract does not list that block size: fakeblock.short.f32 "
                            "(lists 128, 256)"), "%s", p.err);
    kc_proc_free(&p);
    /* without a GPU it is refused the same, not SKIP */
    p = run("run", "--block-size", "128", "rmsnorm.f32*");
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--block-size 128: the selected contract does not list that block size: rmsnorm.f32 (lists "
                            "none)"), "%s", p.err);
    cr_expect(!strstr(p.out, "SKIP"), "%s", p.out);
    kc_proc_free(&p);
    /* a selection of contracts that list it, and a suite, runs */
    p = kc_run_fake((char *[]){ "run", "--block-size", "256", "fakeblock.short.f32", "fixture.pass.00", "--no-cache", NULL },
                    NULL, 30);
    cr_expect_eq(p.status, 1, "block 256 of fakeblock.short.f32 fails gate 3: exit %d\n%s%s", p.status, p.out, p.err);
    kc_expect_item(p.out, "FAIL", "fakeblock.short.f32", KC_TEXTS("dist uniform, block 256: "));
    kc_expect_item(p.out, "PASS", "fixture.pass.00", KC_TEXTS("suite passed"));
    kc_proc_free(&p);
}

/* The KC_* variables a run reads are held to their values as KC_CUDA_SCHED
 * is: the sanitizer's switches took anything but exactly "0" for on, and its
 * time limit was read with atof ('10s' was 10; 'abc', '0' and '-5' the
 * default). Each bad value is now refused before anything runs, naming the
 * variable, the value and what it takes; set but empty, each is unset. (The
 * memory plan's KC_SANITIZER_*_MIB were strict already, where read:
 * tests/test_plan.c.) */
Test(cli, kc_variables_with_bad_values_are_refused_before_running, .timeout = 60)
{
    const char *cases[][2] = {
        { "KC_SANITIZE_SESSIONS=off", "KC_SANITIZE_SESSIONS='off': expected 0 (every :sanitize item runs alone under each "
                                      "tool) or 1 (the default: " },
        { "KC_SANITIZE_SESSIONS=false", "KC_SANITIZE_SESSIONS='false': expected 0 " },
        { "KC_SANITIZE_BATCH=no", "KC_SANITIZE_BATCH='no': expected 0 (racecheck runs each :sanitize item in a request of "
                                  "its own) or 1 (the default: " },
        { "KC_SANITIZE_TIMEOUT_S=10s", "KC_SANITIZE_TIMEOUT_S='10s': expected the seconds of each sanitizer tool run, "
                                       "above 0 and at most 10000000 (e.g. 120 or 0.5); empty is unset" },
        { "KC_SANITIZE_TIMEOUT_S=abc", "KC_SANITIZE_TIMEOUT_S='abc': expected the seconds" },
        { "KC_SANITIZE_TIMEOUT_S=0", "KC_SANITIZE_TIMEOUT_S='0': expected the seconds" },
        { "KC_SANITIZE_TIMEOUT_S=-5", "KC_SANITIZE_TIMEOUT_S='-5': expected the seconds" },
        { "KC_SANITIZE_TIMEOUT_S=1e8", "KC_SANITIZE_TIMEOUT_S='1e8': expected the seconds" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.00", NULL };
        char *env[] = { "KC_LIBCUDA=none", (char *)cases[i][0], NULL };
        kc_proc p;
        cr_assert_eq(kc_spawn(argv, env, 30, &p), 0);
        cr_expect_eq(p.status, 2, "%s, a serial run: exit %d\n%s%s", cases[i][0], p.status, p.out, p.err);
        cr_expect(strstr(p.err, cases[i][1]), "%s: want '%s' in: %s", cases[i][0], cases[i][1], p.err);
        cr_expect(!strstr(p.out, "PASS"), "%s: nothing may run:\n%s", cases[i][0], p.out);
        kc_proc_free(&p);
    }
    /* mutate too, before it reads a module or builds anything */
    char *mut[] = { (char *)kc_test_bin(), "mutate", "--operators", "nosuchop", "rmsnorm.f32", NULL };
    char *envm[] = { "KC_LIBCUDA=none", "KC_SANITIZE_BATCH=off", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(mut, envm, 30, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "KC_SANITIZE_BATCH='off': expected 0"), "the variable first: %s", p.err);
    kc_proc_free(&p);
    /* the values they take run; set but empty is unset */
    const char *good[] = { "KC_SANITIZE_SESSIONS=0", "KC_SANITIZE_SESSIONS=1", "KC_SANITIZE_BATCH=", "KC_SANITIZE_TIMEOUT_S=0.5",
                           "KC_SANITIZE_TIMEOUT_S=" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *argv[] = { (char *)kc_test_fixture_bin(), "run", "fixture.pass.00", NULL };
        char *env[] = { "KC_LIBCUDA=none", (char *)good[i], NULL };
        cr_assert_eq(kc_spawn(argv, env, 30, &p), 0);
        cr_expect_eq(p.status, 0, "%s: exit %d\n%s%s", good[i], p.status, p.out, p.err);
        kc_proc_free(&p);
    }
}

/* A setting that names a file that is not there, or no library, is a broken
 * setup, not a machine without a GPU: KC_LIBCUDA=/missing said "no GPU: ...
 * not found" and exited 3, which a CI that accepts 3 ("no GPU") took. Each of
 * KC_LIBCUDA, KC_LIBNVML and KC_COMPUTE_SANITIZER is now refused before
 * anything runs (exit 2), naming the variable, the value and what it takes,
 * for run and info alike; KC_LIBCUDA=none is the machine without a driver
 * (3), and a bare name the loader does not find is one too, as the default
 * libcuda.so.1 not found is. */
Test(cli, a_broken_library_or_sanitizer_setting_is_refused_not_read_as_no_gpu, .timeout = 60)
{
    char notlib[512], envcuda[600], envnvml[600], envsan[600];
    kc_tmp_path(notlib, sizeof notlib, "notlib", "so");
    kc_write_file(notlib, "not a shared library\n");
    struct { const char *env, *want; } bad[] = {
        { "KC_LIBCUDA=/nonexistent/libcuda.so.1",
          "KC_LIBCUDA=/nonexistent/libcuda.so.1: No such file or directory (expected the path of the CUDA driver "
          "library, a library name the loader searches for, or none for no library; unset: the default)" },
        { envcuda, ": not an ELF shared library (expected the path of the CUDA driver library" },
        { "KC_LIBCUDA=/tmp", "KC_LIBCUDA=/tmp: not a regular file (expected" },
        { "KC_LIBNVML=/nonexistent/libnvidia-ml.so.1",
          "KC_LIBNVML=/nonexistent/libnvidia-ml.so.1: No such file or directory (expected the path of the NVML library" },
        { envnvml, ": not an ELF shared library (expected the path of the NVML library" },
        { "KC_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer",
          "KC_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer: No such file or directory (expected the path of an "
          "executable compute-sanitizer; unset: found on $PATH)" },
        { envsan, " is not an executable file (expected the path of an executable compute-sanitizer" },
    };
    snprintf(envcuda, sizeof envcuda, "KC_LIBCUDA=%s", notlib);
    snprintf(envnvml, sizeof envnvml, "KC_LIBNVML=%s", notlib);
    snprintf(envsan, sizeof envsan, "KC_COMPUTE_SANITIZER=%s", notlib);
    const char *cmds[][3] = { { "run", "rmsnorm.f32", NULL }, { "info", NULL, NULL } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (size_t c = 0; c < 2; c++) {
            char *argv[] = { (char *)kc_test_bin(), (char *)cmds[c][0], (char *)cmds[c][1], NULL };
            char *env[] = { (char *)bad[i].env, NULL };
            kc_proc p;
            cr_assert_eq(kc_spawn(argv, env, 30, &p), 0);
            cr_expect_eq(p.status, 2, "%s %s: exit %d\n%s%s", bad[i].env, cmds[c][0], p.status, p.out, p.err);
            cr_expect(strstr(p.err, bad[i].want), "%s %s: want '%s' in:\n%s", bad[i].env, cmds[c][0], bad[i].want,
                      p.err);
            cr_expect(!strstr(p.out, "SKIP") && !strstr(p.out, "SUMMARY") && !strstr(p.out, "driver:"),
                      "%s %s: something ran:\n%s", bad[i].env, cmds[c][0], p.out);
            kc_proc_free(&p);
        }
    /* none: a machine without a driver (3); a bare name the loader does not
     * find was one too, so a typo in KC_LIBCUDA (or KC_LIBCUDA=README.md) read
     * as "no GPU" on a GPU machine (a fresh reader's find): a library named
     * and not found is refused (2), as a path that is not there is */
    {
        char *argv[] = { (char *)kc_test_bin(), "run", "rmsnorm.f32", NULL };
        char *env[] = { "KC_LIBCUDA=none", NULL };
        kc_proc p;
        cr_assert_eq(kc_spawn(argv, env, 30, &p), 0);
        cr_expect_eq(p.status, 3, "none: exit %d\n%s%s", p.status, p.out, p.err);
        cr_expect(strstr(p.out, "no GPU: KC_LIBCUDA=none: no CUDA driver loaded"), "%s", p.out);
        kc_proc_free(&p);
        char *typo[] = { "KC_LIBCUDA=libkc-no-such-driver.so.1", NULL };
        cr_assert_eq(kc_spawn(argv, typo, 30, &p), 0);
        cr_expect_eq(p.status, 2, "a bare name not found: exit %d\n%s%s", p.status, p.out, p.err);
        cr_expect(strstr(p.err, "the CUDA driver does not work: libkc-no-such-driver.so.1 not found (dlopen: "), "%s",
                  p.err);
        kc_proc_free(&p);
    }
    /* an ELF library that loads but is not the driver (here the fake NVML) is
     * named by its own path: the line said "libcuda.so.1 lacks cuInit" whatever
     * KC_LIBCUDA named, sending the reader to the system's driver; and it is a
     * driver that does not work, refused (2), not a machine without one */
    const char *other = getenv("KC_FAKE_NVML");
    cr_assert(other && *other, "KC_FAKE_NVML is not set (make test sets it)");
    char envother[600], wantother[700];
    snprintf(envother, sizeof envother, "KC_LIBCUDA=%s", other);
    snprintf(wantother, sizeof wantother, "the CUDA driver does not work: %s lacks cuInit (not the CUDA driver library",
             other);
    {
        char *argv[] = { (char *)kc_test_bin(), "run", "rmsnorm.f32", NULL };
        char *env[] = { envother, NULL };
        kc_proc q;
        cr_assert_eq(kc_spawn(argv, env, 30, &q), 0);
        cr_expect_eq(q.status, 2, "%s: exit %d\n%s%s", envother, q.status, q.out, q.err);
        cr_expect(strstr(q.err, wantother) && !strstr(q.err, "libcuda.so.1 lacks"), "%s: want '%s' in:\n%s", envother,
                  wantother, q.err);
        kc_proc_free(&q);
    }
    /* KC_COMPUTE_SANITIZER=none: as KC_LIBCUDA=none, the machine without it (its items SKIP, exit 3) */
    {
        kc_proc q = kc_run_fake((char *[]){ "run", "fakesan.copy.f16:sanitize", "--no-cache", NULL },
                                (char *[]){ "KC_COMPUTE_SANITIZER=none", NULL }, 30);
        cr_expect_eq(q.status, 3, "exit %d\n%s%s", q.status, q.out, q.err);
        kc_expect_item(q.out, "SKIP", "fakesan.copy.f16:sanitize", KC_TEXTS("KC_COMPUTE_SANITIZER=none: no compute-sanitizer"));
        kc_proc_free(&q);
    }
    /* KC_LIBNVML=none: no watch, and the run goes on under the fake driver */
    kc_proc p = kc_run_fake((char *[]){ "run", "fake.axpy.f32", "--no-cache", NULL }, (char *[]){ "KC_LIBNVML=none", NULL },
                            30);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "no GPU memory figures: KC_LIBNVML=none"), "%s", p.err);
    kc_proc_free(&p);
    unlink(notlib);
}

static int started_hang(const kc_live *l) { return strstr(l->out, " pid ") != NULL; }
static int never(const kc_live *l) { (void)l; return 0; }

/* --help said "--jobs: 128+signal when interrupted (130 for SIGINT)", as if
 * only --jobs runs did; a serial run exits 130 on SIGINT too
 * (docs/output-format.md: any mode). The text says so, and the serial run does. */
Test(cli, help_says_every_mode_exits_128_plus_signal_when_interrupted, .timeout = 30)
{
    kc_proc p = run("--help", NULL, NULL, NULL);
    cr_expect(strstr(p.out, "A run interrupted by SIGINT or SIGTERM exits 128+signal (130, 143) in every mode (serial,\n"
                            "--shard K/N, --jobs); the items it did not finish are NOTRUN."), "%s", p.out);
    cr_expect(!strstr(p.out, "--jobs: 128+signal"), "%s", p.out);
    kc_proc_free(&p);
    char *args[] = { "run", "fixture.hang.0", "fixture.pass.00", NULL };
    kc_live l;
    kc_live_start(&l, kc_test_fixture_bin(), args);
    cr_assert_eq(kc_live_read_until(&l, started_hang, 10), 0, "the hang did not start:\n%s", l.out);
    cr_assert_eq(kill(l.pid, SIGINT), 0);
    kc_live_read_until(&l, never, 10);
    cr_expect_eq(kc_wait_status(l.pid), 130, "a serial run interrupted by SIGINT:\n%s", l.out);
    cr_expect(strstr(l.out, " suite.notrun=2 "), "%s", l.out);
    close(l.fd);
}

/* A numeric option's refusal states the range it takes: --timeout 31536000
 * said "expected seconds above 0 (e.g. 30 or 0.5)" though the limit is 1e7 s;
 * --device 1024 and --devices 0,1024 named no upper bound either, nor did
 * --shard's N, or the missing-value refusals of --budget, --build-jobs and
 * --block-size. */
Test(cli, numeric_refusals_state_the_range_they_take)
{
    const char *cases[][3] = {
        { "run", "--timeout=31536000", "--timeout: expected seconds above 0 and at most 10000000 (e.g. 30 or 0.5), got '31536000'" },
        { "run", "--timeout=0", "--timeout: expected seconds above 0 and at most 10000000 (e.g. 30 or 0.5), got '0'" },
        { "run", "--timeout", "--timeout needs a value (seconds above 0 and at most 10000000, e.g. 30 or 0.5)" },
        { "run", "--device=1024", "--device: expected a device ordinal from 0 to 1023 (kcontract info lists the devices), got '1024'" },
        { "run", "--device", "--device needs a value (a device ordinal from 0 to 1023, see kcontract info)" },
        { "run", "--devices=0,1024", "--devices: expected distinct device ordinals from 0 to 1023 separated by commas (e.g. 0,2,3), "
                                     "got '0,1024'" },
        { "run", "--shard=1/4x", "--shard: expected K/N with 0 <= K < N <= 4096 (e.g. 0/4), got '1/4x'" },
        { "run", "--block-size", "--block-size needs a value (threads per block, 1 to 1024)" },
        { "mutate", "--budget", "--budget needs a count (1 to 1000000)" },
        { "mutate", "--build-jobs", "--build-jobs needs a count (1 to 1000000)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kc_proc p = run(cases[i][0], cases[i][1], NULL, NULL);
        cr_expect_eq(p.status, 2, "%s: exit %d", cases[i][1], p.status);
        cr_expect(strstr(p.err, cases[i][2]), "%s: want '%s' in: %s", cases[i][1], cases[i][2], p.err);
        kc_proc_free(&p);
    }
    /* the bound itself is taken */
    kc_proc p = run("run", "--timeout=10000000", "host.*", NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    kc_proc_free(&p);
}

/* A report option's value is a file name; two kinds of word are refused as
 * one: '-' (standard output carries the run's lines: it used to write a file
 * named '-'), and, given as the next argument, a path with the glob
 * characters '*', '?' or '[' (`run --json 'host.contracts*'` ran every item
 * and wrote a file of that name: the report's file was left out and the
 * pattern taken for it). Joined to the option (--json=PATH) such a path is
 * a file name like any other. For --json, --junit and --timeline, in run,
 * merge and mutate. */
Test(cli, a_report_path_that_is_not_a_file_name_is_refused, .timeout = 60)
{
    char dir[512], glob[700], joined[800], file[700];
    kc_tmp_dir(dir, sizeof dir, "reportpath");
    snprintf(glob, sizeof glob, "%s/host.contracts*", dir);
    kc_proc p = run("run", "--json", glob, "host.contracts.lint");
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    char want[2048];
    snprintf(want, sizeof want, "--json '%s': that looks like an item pattern, not a report's file name ('*', '?' and '[' "
             "are glob characters): a report path must follow --json (--json FILE [PATTERN...]); to name a file with such "
             "characters, join it to the option: --json='%s'", glob, glob);
    cr_expect(strstr(p.err, want), "want '%s' in: %s", want, p.err);
    cr_expect(!strstr(p.out, "TALLY"), "nothing may run:\n%s", p.out);
    kc_proc_free(&p);
    char names[256];
    cr_expect_eq(kc_dir_entries(dir, names, sizeof names), 0, "no report may be written: %s", names);
    const char *others[][2] = { { "--junit", "x?.xml" }, { "--timeline", "t[1].svg" } };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        snprintf(file, sizeof file, "%s/%s", dir, others[i][1]);
        p = run("run", others[i][0], file, "host.contracts.lint");
        cr_expect_eq(p.status, 2, "%s %s: exit %d", others[i][0], file, p.status);
        cr_expect(strstr(p.err, "that looks like an item pattern"), "%s %s: %s", others[i][0], file, p.err);
        kc_proc_free(&p);
    }
    cr_expect_eq(kc_dir_entries(dir, names, sizeof names), 0, "no report may be written: %s", names);
    /* joined, it is a file name */
    snprintf(joined, sizeof joined, "--json=%s/r[1].json", dir);
    p = run("run", joined, "host.contracts.lint", NULL);
    cr_expect_eq(p.status, 0, "exit %d\n%s%s", p.status, p.out, p.err);
    snprintf(file, sizeof file, "%s/r[1].json", dir);
    cr_expect(strstr(kc_out_file(file), "\"name\":\"host.contracts.lint\""), "no report in %s", file);
    kc_proc_free(&p);
    /* '-', either spelling, each report */
    const char *dash[][2] = { { "--json", "-" }, { "--json=-", NULL }, { "--junit", "-" }, { "--timeline", "-" } };
    for (size_t i = 0; i < sizeof dash / sizeof dash[0]; i++) {
        p = run("run", dash[i][0], dash[i][1], dash[i][1] ? "host.contracts.lint" : NULL);
        cr_expect_eq(p.status, 2, "%s: exit %d\n%s", dash[i][0], p.status, p.out);
        cr_expect(strstr(p.err, " -: a report needs a file name, not '-': standard output carries the run's own lines"),
                  "%s: %s", dash[i][0], p.err);
        cr_expect(!strstr(p.out, "TALLY"), "nothing may run:\n%s", p.out);
        kc_proc_free(&p);
    }
    cr_expect(access("-", F_OK) != 0, "a file named '-' was written");
    /* merge and mutate take the same reports */
    snprintf(file, sizeof file, "%s/shard*", dir);
    char *merge[] = { (char *)kc_test_bin(), "merge", "--log", "/nonexistent.log", "--junit", file, NULL };
    cr_assert_eq(kc_spawn(merge, (char *[]){ "KC_LIBCUDA=none", NULL }, 30, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d", p.status);
    cr_expect(strstr(p.err, "shard*': that looks like an item pattern"), "%s", p.err);
    kc_proc_free(&p);
    char *mut[] = { (char *)kc_test_bin(), "mutate", "--json", "-", "--operators", "nosuchop", NULL };
    cr_assert_eq(kc_spawn(mut, (char *[]){ "KC_LIBCUDA=none", NULL }, 30, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d", p.status);
    cr_expect(strstr(p.err, "--json -: a report needs a file name, not '-'"), "%s", p.err);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* A driver that is there and does not work is not a machine without a GPU:
 * a cuInit that failed with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803) said "no
 * GPU: cuInit failed: ..." and exited 3, as a CPU-only machine does, so a CI
 * that accepts 3 took a broken GPU runner for one (a new user's find). Now
 * run (serial, --jobs, a shard) and info refuse it, exit 2, naming the
 * error; cuInit's CUDA_ERROR_NO_DEVICE (100) and the toolkit's stub library's
 * CUDA_ERROR_STUB_LIBRARY (34) stay "no GPU" (3). */
Test(cli, a_driver_that_does_not_work_is_refused_not_read_as_no_gpu, .timeout = 60)
{
    const char *modes[][4] = { { "run", "fake.axpy.f32", NULL }, { "run", "fake.axpy.f32", "--jobs=2", NULL },
                               { "run", "fake.axpy.f32", "--shard=0/2", NULL }, { "info", NULL } };
    for (int m = 0; m < 4; m++) {
        kc_proc p = kc_run_fake((char **)modes[m], (char *[]){ "KC_FAKE_CUINIT_ERROR=803", NULL }, 30);
        cr_expect_eq(p.status, 2, "%s %s: exit %d\n%s%s", modes[m][0], modes[m][2] ? modes[m][2] : "", p.status, p.out,
                     p.err);
        /* (the fake driver names no CUresult 803; libcuda says CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) */
        const char *want = m == 3 ? "driver: does not work (cuInit failed: error 803"
                                  : "the CUDA driver does not work: cuInit failed: error 803";
        cr_expect(strstr(m == 3 ? p.out : p.err, want), "mode %d: want '%s' in:\n%s%s", m, want, p.out, p.err);
        cr_expect(!strstr(p.out, "SKIP") && !strstr(p.out, "\nSUMMARY"), "mode %d: items ran:\n%s", m, p.out);
        kc_proc_free(&p);
    }
    const char *absent[] = { "KC_FAKE_CUINIT_ERROR=100", "KC_FAKE_CUINIT_ERROR=34" };
    for (int i = 0; i < 2; i++) {
        kc_proc p = kc_run_fake((char *[]){ "run", "fake.axpy.f32", NULL }, (char *[]){ (char *)absent[i], NULL }, 30);
        cr_expect_eq(p.status, 3, "%s: exit %d\n%s%s", absent[i], p.status, p.out, p.err);
        cr_expect(strstr(p.out, "no GPU: cuInit failed: "), "%s:\n%s", absent[i], p.out);
        /* the stub names none of its errors: the line says what it is, with no "(?)" (a new user's find) */
        if (i == 1)
            cr_expect(strstr(p.out, "CUDA_ERROR_STUB_LIBRARY (34): ") && strstr(p.out, "the CUDA toolkit's stub library")
                      && !strstr(p.out, "(?)"), "%s:\n%s", absent[i], p.out);
        kc_proc_free(&p);
    }
}

/* A mistyped option gets git's "did you mean", as a mistyped pattern does
 * (a new user's find: '--jbos' and '--versoin' said only "unknown
 * option"); a word near no option gets none. */
Test(cli, a_mistyped_option_is_offered_the_option_it_is_near)
{
    const char *cases[][2] = { { "--jbos", "unknown option '--jbos'; did you mean '--jobs'?" },
                               { "--versoin", "unknown option '--versoin'; did you mean '--version'?" },
                               { "--seeed=3", "unknown option '--seeed=3'; did you mean '--seed'?" },
                               { "--frobnicate", "unknown option '--frobnicate'\n" },
                               /* other runners' options: nextest's and ctest's listing is a command
                                * here, GoogleTest's filter the patterns */
                               { "--list", "unknown option '--list'; 'list' is a command, not an option: kcontract "
                                           "list [PATTERN...]" },
                               { "--gtest_list_tests", "unknown option '--gtest_list_tests'; the command 'list' "
                                                       "lists the items: kcontract list [PATTERN...]" },
                               { "--gtest_filter=fake.*", "unknown option '--gtest_filter=fake.*'; patterns are "
                                                          "arguments, not an option: kcontract run 'PATTERN'" } };
    for (int i = 0; i < 7; i++) {
        kc_proc p = run("run", cases[i][0], NULL, NULL);
        cr_expect_eq(p.status, 2, "%s: exit %d", cases[i][0], p.status);
        cr_expect(strstr(p.err, cases[i][1]), "%s: want '%s' in:\n%s", cases[i][0], cases[i][1], p.err);
        kc_proc_free(&p);
    }
}

/* The same driver met first by a worker, after the parent's probe found the
 * device (a GPU that fell off the bus, a driver unloaded or upgraded under a
 * run): the worker's GPU items read SKIP "no GPU" and the run exited 3, the
 * status a CI takes for a machine without a GPU. They are failures now, each
 * on one line saying why, in every mode that runs items in a worker. */
Test(cli, a_driver_that_stops_working_under_a_worker_fails_its_items_not_skip, .timeout = 90)
{
    const char *modes[][6] = { { "run", "fake.axpy.f32", "fake.axpy.f32:limits", NULL },
                               { "run", "fake.axpy.f32", "fake.axpy.f32:limits", "--jobs=2", NULL },
                               { "run", "fake.axpy.f32", "fake.axpy.f32:limits", "--jobs=2", "--inflight=2", NULL } };
    for (int m = 0; m < 3; m++) {
        kc_proc p = kc_run_fake((char **)modes[m], (char *[]){ "KC_FAKE_CUINIT_ERROR_WORKER=999", "KC_CACHE_DIR=off",
                                                               NULL }, 30);
        cr_expect_eq(p.status, 1, "mode %d: exit %d\n%s%s", m, p.status, p.out, p.err);
        for (int k = 1; k < 3; k++) {
            char st[16] = "";
            int n = kc_out_state_lines(p.out, modes[m][k], st, sizeof st);
            cr_expect(n == 1 && strcmp(st, "SKIP") != 0, "mode %d: %s on %d lines, the last %s:\n%s", m, modes[m][k], n,
                      st, p.out);
        }
        cr_expect(strstr(p.out, "cuInit failed: error 999"), "mode %d: the reason is not said:\n%s", m, p.out);
        kc_proc_free(&p);
    }
}

/* A driver whose load never returns (cuInit hangs in the device probe's
 * forked child, the fake driver's KC_FAKE_CUINIT_HANG), then a SIGTERM to the
 * run: the run ended and its probe child hung on, adopted by init, for ever
 * (a red team's find). The child now dies with the run, serial and --jobs. */
Test(cli, a_driver_load_that_hangs_dies_with_the_run, .timeout = 60)
{
    char pidfile[256], env_hang[300], env_cuda[300];
    const char *lib = getenv("KC_FAKE_CUDA");
    snprintf(env_cuda, sizeof env_cuda, "KC_LIBCUDA=%s", lib && *lib ? lib : "build/libfake_cuda.so");
    kc_tmp_path(pidfile, sizeof pidfile, "cli", "hang-pid");
    snprintf(env_hang, sizeof env_hang, "KC_FAKE_CUINIT_HANG=%s", pidfile);
    char *modes[][4] = { { "run", "fake.axpy.f32", NULL }, { "run", "fake.axpy.f32", "--jobs=2", NULL } };
    for (int m = 0; m < 2; m++) {
        unlink(pidfile);
        kc_live l;
        kc_live_start_env(&l, kc_test_fixture_bin(), modes[m], (char *[]){ env_cuda, env_hang, "KC_CACHE_DIR=off", NULL });
        pid_t child = 0;
        for (int i = 0; i < 200 && child <= 0; i++) {     /* the probe's child is in cuInit */
            FILE *f = fopen(pidfile, "r");
            if (f && fscanf(f, "%d", &child) != 1) child = 0;
            if (f) fclose(f);
            if (child <= 0) usleep(50 * 1000);
        }
        cr_assert(child > 0, "mode %d: the probe never reached cuInit", m);
        kill(l.pid, SIGTERM);
        int st = kc_wait_status(l.pid);
        int gone = 0;
        for (int i = 0; i < 100 && !gone; i++) {
            gone = !kc_alive(child);
            if (!gone) usleep(20 * 1000);
        }
        cr_expect(gone, "mode %d: the run ended (status %d) and its probe child %d hangs on", m, st, (int)child);
        if (!gone) kill(child, SIGKILL);
        close(l.fd);
    }
    unlink(pidfile);
}
