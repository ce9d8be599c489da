/* test_child_argv.c — the command lines a run builds (kc_child_argv,
 * core/run_options.h), from a command line through the parser (app/cli.c):
 * for each kind — worker, static shard, re-exec, sanitizer target, rerun
 * command — exactly the words the option table's column gives it, and each
 * reads back, through the parser, as the settings it was meant to carry;
 * and, in real processes under the fake driver, that a worker, a static shard
 * and a re-exec'd shard act on an option they inherited. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "parallel.h"
#include "strvec.h"
#include "support/run_output.h"

/* Parses the NULL-terminated words into o; the test fails on a refusal. */
static void parse(kc_opts *o, char **words)
{
    int argc = 0;
    while (words[argc]) argc++;
    int rc = kc_cli_parse_args(argc, words, o);
    cr_assert_eq(rc, 0, "the command line was refused (%d)", rc);
}

/* c's command line from o, as "[w][w]...". */
static const char *built(const kc_opts *o, kc_child_cmd c, kc_strvec *sv)
{
    static char out[8192];
    kc_strvec_clear(sv);
    cr_assert_eq(kc_child_argv(sv, o, &c), 0);
    cr_assert_null(sv->v[sv->n], "NULL-terminated");
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < sv->n; i++) n += (size_t)snprintf(out + n, sizeof out - n, "[%s]", sv->v[i]);
    return out;
}

/* A --jobs N work queue's command line, with every kind of option. */
static char *queue_cmd[] = { "./kc", "run", "fake.*", "--exclude", "*:control.*", "--seed=7", "--reference=host",
                             "--records", "r 1.txt", "--threads", "3", "--timeout", "5", "--fail-fast", "--jobs", "4",
                             "--costs", "c.tsv", "--json", "out.json", "--", "-odd", NULL };

Test(child_argv, worker_gets_records_reference_threads_and_nothing_of_scheduling)
{
    kc_opts o;
    kc_strvec sv = KC_STRVEC_INIT;
    parse(&o, queue_cmd);
    cr_expect_str_eq(built(&o, (kc_child_cmd){ .kind = KC_ARGV_WORKER, .device = 2, .parent = 99, .share = 4 }, &sv),
                     "[./kc][run][--worker][--parent][99][--seed][7][--device][2]"
                     "[--reference][host][--records][r 1.txt][--threads][3]");
    kc_strvec_clear(&sv);
    kc_opts_free(&o);
}

/* ... and the --timeout it ran under: a TIMEOUT's rerun meets the same
 * limit (a new user's paste of one waited the default 600 s). */
Test(child_argv, rerun_gets_its_item_seed_device_records_reference_and_timeout)
{
    kc_opts o;
    kc_strvec sv = KC_STRVEC_INIT;
    parse(&o, queue_cmd);
    cr_expect_str_eq(built(&o, (kc_child_cmd){ .kind = KC_ARGV_RERUN, .item = "axpy.f32@x", .device = 2 }, &sv),
                     "[./kc][run][axpy.f32@x][--seed][7][--device][2][--reference][host][--records][r 1.txt]"
                     "[--timeout][5]");
    kc_strvec_clear(&sv);
    kc_opts_free(&o);
}

Test(child_argv, sanitizer_target_gets_seed_and_device_only)
{
    kc_opts o;
    kc_strvec sv = KC_STRVEC_INIT;
    parse(&o, queue_cmd);
    cr_expect_str_eq(built(&o, (kc_child_cmd){ .kind = KC_ARGV_SANITIZE, .prog = "/abs/kc", .device = 1 }, &sv),
                     "[/abs/kc][run][--sanitize-target][--seed][7][--device][1]");
    cr_expect_str_eq(built(&o, (kc_child_cmd){ .kind = KC_ARGV_SANITIZE, .prog = "/abs/kc", .item = "a:sanitize" }, &sv),
                     "[/abs/kc][run][a:sanitize][--sanitize-target][--seed][7][--device][0]");
    /* after the sanitizer's own words */
    kc_strvec_clear(&sv);
    cr_assert_eq(kc_strvec_push(&sv, "compute-sanitizer"), 0);
    kc_child_cmd c = { .kind = KC_ARGV_SANITIZE, .prog = "/abs/kc" };
    cr_assert_eq(kc_child_argv(&sv, &o, &c), 0);
    cr_expect_eq(sv.n, 8);
    cr_expect_str_eq(sv.v[0], "compute-sanitizer");
    cr_expect_str_eq(sv.v[1], "/abs/kc");
    kc_strvec_clear(&sv);
    kc_opts_free(&o);
}

/* Every option it was given, "--name value" whichever way it was spelled,
 * but --seed and --device (written from the settings) and --exclude (a '!G'
 * pattern), after its own --resume-*; the patterns after "--". */
Test(child_argv, reexec_gets_everything_it_was_given)
{
    kc_opts o;
    kc_strvec sv = KC_STRVEC_INIT;
    parse(&o, queue_cmd);
    const char *want = "[./kc][run][--resume-at][3][--resume-tally][TALLY x=1][--resume-elapsed][1.500]"
                       "[--resume-records][5][--resume-untrusted][--seed][7][--device][0]"
                       "[--reference][host][--records][r 1.txt][--threads][3][--timeout][5][--fail-fast][--jobs][4]"
                       "[--costs][c.tsv][--json][out.json][--][fake.*][!*:control.*][-odd]";
    cr_expect_str_eq(built(&o, (kc_child_cmd){ .kind = KC_ARGV_REEXEC, .resume_at = 3, .resume_tally = "TALLY x=1",
                                              .resume_elapsed = 1.5, .resume_records_fd = 5, .resume_untrusted = 1 },
                           &sv),
                     want);
    /* and reads back as the same run */
    kc_opts r;
    parse(&r, sv.v);
    cr_expect_eq(r.seed, 7);
    cr_expect_eq(r.reference, KC_REF_HOST);
    cr_expect_eq(r.threads, 3);
    cr_expect_eq(r.jobs, 4);
    cr_expect_eq(r.fail_fast, 1);
    cr_expect_eq(r.resume_at, 3);
    cr_expect_eq(r.resume_records_fd, 5);
    cr_expect_eq(r.npatterns, 3);
    cr_expect_str_eq(r.patterns[1], "!*:control.*");
    cr_expect_str_eq(r.patterns[2], "-odd");
    cr_expect_eq(r.nrecords, 1);
    cr_expect_str_eq(r.records[0], "r 1.txt");
    kc_opts_free(&r);    /* before sv, which it points into, changes */
    /* without records to keep, and trusted */
    cr_expect(strstr(built(&o, (kc_child_cmd){ .kind = KC_ARGV_REEXEC, .resume_tally = "T", .resume_records_fd = -1 },
                           &sv),
                     "[--resume-elapsed][0.000][--seed]"));
    kc_strvec_clear(&sv);
    kc_opts_free(&o);
}

/* A static shard: the worker's options and the patterns; what it builds in
 * turn (its re-exec, its rerun commands) keeps them. */
Test(child_argv, static_shard_and_what_it_passes_on)
{
    char *cmd[] = { "./kc", "a*", "b", "--seed", "3", "--jobs", "2", "--schedule", "static", "--records", "r",
                    "--reference", "both", "--exclude", "z*", NULL };
    kc_opts o, s;
    kc_strvec sv = KC_STRVEC_INIT;
    char want[1024];
    parse(&o, cmd);
    snprintf(want, sizeof want, "[./kc][run][--shard][1/2][--parent][42][--seed][3][--device][1][--threads][%d]"
             "[--records][r][--reference][both][--][a*][b][!z*]", kc_parallel_share(2));
    cr_expect_str_eq(built(&o, (kc_child_cmd){ .kind = KC_ARGV_SHARD, .shard_k = 1, .shard_n = 2, .device = 1,
                                              .parent = 42, .share = 2 }, &sv),
                     want);
    kc_strvec shard = KC_STRVEC_INIT;  /* its words, which s points into */
    cr_assert_eq(kc_strvec_pushn(&shard, (const char *const *)sv.v, sv.n), 0);
    parse(&s, shard.v);    /* the shard's own parse */
    cr_expect(s.sharded && s.shard_k == 1 && s.shard_n == 2 && s.parent == 42 && s.device == 1 && s.seed == 3);
    cr_expect_eq(s.reference, KC_REF_BOTH);
    snprintf(want, sizeof want, "[./kc][run][--resume-at][0][--resume-tally][T][--resume-elapsed][0.000]"
             "[--seed][3][--device][1][--shard][1/2][--parent][42][--threads][%d][--records][r][--reference][both]"
             "[--][a*][b][!z*]", kc_parallel_share(2));
    cr_expect_str_eq(built(&s, (kc_child_cmd){ .kind = KC_ARGV_REEXEC, .device = s.device, .resume_tally = "T",
                                              .resume_records_fd = -1 }, &sv),
                     want);
    cr_expect_str_eq(built(&s, (kc_child_cmd){ .kind = KC_ARGV_RERUN, .item = "b", .device = 1 }, &sv),
                     "[./kc][run][b][--seed][3][--device][1][--records][r][--reference][both]");
    kc_opts_free(&s);
    kc_strvec_clear(&shard);
    kc_strvec_clear(&sv);
    kc_opts_free(&o);
}

/* The defaults: the seed is stated, a worker gets its share of the CPUs,
 * nothing is inherited; a worker's command line reads back as a worker. */
Test(child_argv, defaults_and_a_worker_read_back)
{
    char *cmd[] = { "kcontract", "x", NULL };
    kc_opts o, w;
    kc_strvec sv = KC_STRVEC_INIT;
    char want[512];
    parse(&o, cmd);
    snprintf(want, sizeof want, "[kcontract][run][--worker][--parent][7][--seed][1][--device][3][--threads][%d]",
             kc_parallel_share(2));
    cr_expect_str_eq(built(&o, (kc_child_cmd){ .kind = KC_ARGV_WORKER, .device = 3, .parent = 7, .share = 2 }, &sv),
                     want);
    parse(&w, sv.v);
    cr_expect(w.worker && w.parent == 7 && w.device == 3 && w.seed == 1 && w.threads == kc_parallel_share(2));
    cr_expect_eq(w.npatterns, 0, "a worker is handed its items");
    kc_opts_free(&w);    /* before sv, which it points into, changes */
    cr_expect_str_eq(built(&o, (kc_child_cmd){ .kind = KC_ARGV_RERUN, .item = "x" }, &sv),
                     "[kcontract][run][x][--seed][1][--device][0]");
    kc_strvec_clear(&sv);
    kc_opts_free(&o);
    /* a kc_opts a test sets by hand: nothing inherited */
    kc_opts t = { .argv0 = "./kc", .seed = 5, .threads = 2 };
    cr_expect_str_eq(built(&t, (kc_child_cmd){ .kind = KC_ARGV_SHARD, .shard_n = 1, .share = 4 }, &sv),
                     "[./kc][run][--shard][0/1][--parent][0][--seed][5][--device][0][--]");
    kc_strvec_clear(&sv);
}

/* An internal word only a worker gets: the worker command c (its own
 * fields set) builds `line`, which parsed back is a worker for which
 * reads_back holds;
 * no other kind of command line carries `word`, given the same fields; a
 * run given it (`given`, n words) is refused. */
static void expect_worker_only(kc_child_cmd c, const char *line, const char *word, char **given, int n,
                               int (*reads_back)(const kc_opts *w))
{
    char *cmd[] = { "kcontract", "x", NULL };
    kc_opts o, w;
    kc_strvec sv = KC_STRVEC_INIT;
    parse(&o, cmd);
    cr_expect_str_eq(built(&o, c, &sv), line);
    parse(&w, sv.v);
    cr_expect(w.worker && reads_back(&w), "the worker does not read %s back: %s", word, line);
    kc_opts_free(&w);
    for (int k = 0; k < KC_ARGV_KINDS; k++) {
        if (k == KC_ARGV_WORKER) continue;
        kc_child_cmd other = c;
        other.kind = (kc_argv_kind)k;
        other.item = k == KC_ARGV_RERUN ? "x" : NULL;
        other.shard_n = 1;
        other.resume_records_fd = -1;
        cr_expect_null(strstr(built(&o, other, &sv), word), "kind %d: %s", k, built(&o, other, &sv));
    }
    kc_strvec_clear(&sv);
    kc_opts_free(&o);
    kc_opts g;
    cr_expect_eq(kc_cli_parse_args(n, given, &g), 2, "%s without --worker is refused", word);
    kc_opts_free(&g);
}

/* A worker's wait, when its parent chose one, is among its own words and
 * reads back; no other kind is given it, and a run refuses it without
 * --worker (its workers would wait as their parent chose, the value taken
 * for nothing). */
static int waits_yielding(const kc_opts *w) { return w->gpu_wait && strcmp(w->gpu_wait, "yield") == 0; }
Test(child_argv, a_workers_gpu_wait_reads_back_and_no_other_kind_gets_it)
{
    char *given[] = { "kcontract", "run", "x", "--gpu-wait", "spin", NULL };
    expect_worker_only((kc_child_cmd){ .kind = KC_ARGV_WORKER, .device = 0, .parent = 7, .gpu_wait = "yield" },
                       "[kcontract][run][--worker][--parent][7][--gpu-wait][yield][--seed][1][--device][0]", "--gpu-wait",
                       given, 5, waits_yielding);
}

/* --gpu-shared (a worker whose GPU other workers share, queue_holds.c)
 * reads back on a worker, reaches no other kind of command line, and is
 * refused given to a run. */
static int shares_its_gpu(const kc_opts *w) { return w->gpu_shared; }
Test(child_argv, a_workers_gpu_shared_reads_back_and_no_other_kind_gets_it)
{
    char *given[] = { "kcontract", "run", "x", "--gpu-shared", NULL };
    expect_worker_only((kc_child_cmd){ .kind = KC_ARGV_WORKER, .device = 0, .parent = 7, .gpu_shared = 1 },
                       "[kcontract][run][--worker][--parent][7][--gpu-shared][--seed][1][--device][0]", "--gpu-shared",
                       given, 4, shares_its_gpu);
}

/* The item's line in out has `state`, and its rerun command ends with
 * `rerun_tail` (NULL: not checked). */
static void expect_line(const char *out, const char *state, const char *name, const char *rerun_tail)
{
    char line[8192];
    cr_assert(kc_out_item_line(out, state, name, line, sizeof line), "no %s line for %s:\n%s", state, name, out);
    if (rerun_tail) {
        const char *r = strstr(line, "  rerun: ");
        size_t n = strlen(rerun_tail);
        cr_expect(r && strlen(r) >= n && strcmp(r + strlen(r) - n, rerun_tail) == 0, "rerun ending '%s' wanted:\n%s",
                  rerun_tail, line);
    }
}

/* fakeref.fault.f32's device reference faults (FAIL with the default
 * --reference); with --reference host it passes — in a process that was
 * given it. fake.wrong.f32 fails in every mode, and its line's rerun command,
 * which the process that ran it writes, says the mode that process had. */
Test(child_argv, workers_shards_and_reexecs_act_on_an_inherited_option, .timeout = 90)
{
    char costs[256];
    kc_tmp_path(costs, sizeof costs, "child-argv", "queue");
    kc_proc p = kc_run_fake((char *[]){ "run", "fakeref.fault.f32", "fake.wrong.f32", NULL }, NULL, 30);
    expect_line(p.out, "FAIL", "fakeref.fault.f32", NULL);     /* the effect to look for */
    expect_line(p.out, "FAIL", "fake.wrong.f32", "run fake.wrong.f32 --seed 1 --device 0");
    kc_proc_free(&p);
    /* a serial run's one worker, and two */
    p = kc_run_fake((char *[]){ "run", "fakeref.fault.f32", "fake.wrong.f32", "--reference", "host", NULL }, NULL, 30);
    expect_line(p.out, "PASS", "fakeref.fault.f32", NULL);
    expect_line(p.out, "FAIL", "fake.wrong.f32", "run fake.wrong.f32 --seed 1 --device 0 --reference host");
    kc_proc_free(&p);
    p = kc_run_fake((char *[]){ "run", "fakeref.fault.f32", "fake.wrong.f32", "--reference=host", "--jobs", "2",
                                "--costs", costs, NULL }, NULL, 30);
    /* which worker takes which item depends on when each is ready: the
     * queue had two, and the lines came from workers */
    cr_expect(strstr(p.out, "a work queue of 2 workers") && (strstr(p.out, "[w0] ") || strstr(p.out, "[w1] ")),
              "two workers:\n%s", p.out);
    expect_line(p.out, "PASS", "fakeref.fault.f32", NULL);
    expect_line(p.out, "FAIL", "fake.wrong.f32", "run fake.wrong.f32 --seed 1 --device 0 --reference host");
    kc_proc_free(&p);
    unlink(costs);
    /* two static shards */
    p = kc_run_fake((char *[]){ "run", "fakeref.fault.f32", "fake.wrong.f32", "--reference=host", "--seed", "5",
                                "--jobs", "2", "--schedule", "static", NULL }, NULL, 30);
    cr_expect(strstr(p.out, "[0/2] ") && strstr(p.out, "[1/2] "), "two shards:\n%s", p.out);
    expect_line(p.out, "PASS", "fakeref.fault.f32", NULL);
    expect_line(p.out, "FAIL", "fake.wrong.f32", "run fake.wrong.f32 --seed 5 --device 0 --reference host");
    kc_proc_free(&p);
    /* one shard that re-executes itself after the planted fault: the fresh
     * process still has --reference host */
    p = kc_run_fake((char *[]){ "run", "fake.axpy.f32:control.fault", "fakeref.fault.f32", "fake.wrong.f32",
                                "--reference", "host", "--jobs", "1", "--schedule", "static", NULL }, NULL, 30);
    const char *fresh = strstr(p.out, "] kcontract-fixture: the CUDA context is unusable after that item; continuing in a fresh "
                                      "process\n");
    cr_assert(fresh, "the shard re-executes itself:\n%s", p.out);
    expect_line(fresh, "PASS", "fakeref.fault.f32", NULL);
    expect_line(fresh, "FAIL", "fake.wrong.f32", "run fake.wrong.f32 --seed 1 --device 0 --reference host");
    kc_proc_free(&p);
}
