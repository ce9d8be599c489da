/* test_mutate_run.c — mutants through the work queue under the fake driver
 * (KC_MUTANTS, mutant_images.h), the run's lines read back
 * (kc_mutate_parse_line), the accepted-equivalents file (mutate_accept.h),
 * the report (mutate_report.h) and the command line of mutate. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mutate_accept.h"
#include "mutate_cmd.h"
#include "mutate_waves.h"
#include "mutate_report.h"
#include "json_line.h"
#include "support/mutant_seed.h"
#include "support/run_output.h"
#include "support/spawn.h"

/* Three fake images of module fake_axpy: the fake driver runs "wrong_value"
 * (a gate-3 bug), "-" (the clean kernel: no gate can fail) and "fault". */
static void manifest(const char *dir, char *path, size_t cap)
{
    const char *body[3] = { "KCFAKE fake_axpy wrong_value\n", "KCFAKE fake_axpy -\n", "KCFAKE fake_axpy fault\n" };
    const char *ids[3] = { "0000000000aa", "0000000000bb", "0000000000cc" };
    char list[2048] = "# test\n", img[600];
    for (int i = 0; i < 3; i++) {
        snprintf(img, sizeof img, "%s/m%d.fatbin", dir, i);
        kc_write_file(img, body[i]);
        snprintf(list + strlen(list), sizeof list - strlen(list), "mutant %s fake_axpy 4 %s relational x.cu:%d\n", ids[i],
                 img, i + 1);
    }
    snprintf(path, cap, "%s/mutants.list", dir);
    kc_write_file(path, list);
}

Test(mutate_run, mutants_run_as_controls_on_the_work_queue, .timeout = 60) {
    char dir[512], list[700], env[800], costs[700];
    kc_tmp_dir(dir, sizeof dir, "mutq");
    manifest(dir, list, sizeof list);
    snprintf(env, sizeof env, "KC_MUTANTS=%s", list);
    snprintf(costs, sizeof costs, "%s/costs.tsv", dir);
    kc_proc p = kc_run_fake((char *[]){ "run", "--jobs", "2", "--costs", costs, "fake.axpy.f32:mutant.*", NULL },
                            (char *[]){ env, NULL }, 30);
    char line[2048];
    cr_expect(kc_out_item_line(p.out, "RED", "fake.axpy.f32:mutant.0000000000aa", line, sizeof line),
              "the wrong_value mutant is not RED:\n%s%s", p.out, p.err);
    kc_state s;
    char contract[160], id[16];
    int gate;
    cr_assert(kc_mutate_parse_line(line, &s, contract, sizeof contract, id, sizeof id, &gate), "not read back: %s", line);
    cr_expect_eq(s, KC_RED);
    cr_expect_str_eq(contract, "fake.axpy.f32");
    cr_expect_str_eq(id, "0000000000aa");
    cr_expect_eq(gate, 3, "the wrong value is gate 3's: %s", line);
    cr_expect(strstr(line, "mutant 0000000000aa: relational at x.cu:1"), "the line names the mutant: %s", line);
    cr_expect(kc_out_item_line(p.out, "MISSED", "fake.axpy.f32:mutant.0000000000bb", line, sizeof line),
              "the clean image is not MISSED:\n%s", p.out);
    cr_expect(strstr(line, "no gate sees this mutant") && strstr(line, "KC_MUTANTS="),
              "a missed mutant's line says so and its rerun carries KC_MUTANTS: %s", line);
    cr_expect(kc_mutate_parse_line(line, &s, contract, sizeof contract, id, sizeof id, &gate) && s == KC_MISSED);
    cr_expect(kc_out_item_line(p.out, "RED", "fake.axpy.f32:mutant.0000000000cc", line, sizeof line),
              "the faulting mutant is not caught:\n%s", p.out);
    cr_expect_eq(p.status, 1, "a missed mutant fails the run: exit %d", p.status);
    kc_proc_free(&p);
    /* a malformed list is refused, naming its line */
    kc_write_file(list, "mutant 123 fake_axpy 4 x.fatbin relational x.cu:1\n");
    p = kc_run_fake((char *[]){ "list", NULL }, (char *[]){ env, NULL }, 30);
    cr_expect_eq(p.status, 2, "exit %d", p.status);
    cr_expect(strstr(p.err, "line 1") && strstr(p.err, "12 hex digits"), "stderr: %s", p.err);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

Test(mutate_run, parse_line_ignores_other_lines) {
    kc_state s;
    char c[160], id[16];
    int g;
    cr_expect_not(kc_mutate_parse_line("RED    softmax.f32:control.x  caught by gate 3", &s, c, sizeof c, id, sizeof id, &g));
    cr_expect_not(kc_mutate_parse_line("TALLY v=4 kernel.pass=0", &s, c, sizeof c, id, sizeof id, &g));
    cr_assert(kc_mutate_parse_line("[w4] TIMEOUT softmax.f32:mutant.48447322df0b  exceeded its time limit of 20 s", &s,
                                   c, sizeof c, id, sizeof id, &g));
    cr_expect_eq(s, KC_TIMEOUT);
    cr_expect_str_eq(id, "48447322df0b");
}

/* A small run's mutants: two of module m, one of module n (not in the run's modules). */
static void two_mutants(kc_mut_module *mod, kc_mutants *m)
{
    memset(mod, 0, sizeof *mod);
    snprintf(mod->name, sizeof mod->name, "m");
    snprintf(mod->path, sizeof mod->path, "m.cu");
    const char *t = "__global__ void k(int *o, int n) {\n    if (threadIdx.x < n) o[threadIdx.x] = 1;\n}\n";
    char err[256];
    cr_assert_eq(kc_src_scan(&mod->src, t, strlen(t), err, sizeof err), 0);
    memset(m, 0, sizeof *m);
    unsigned bound = 0;
    for (int k = 0; kc_mut_ops[k].name; k++)
        if (!strcmp(kc_mut_ops[k].name, "bound") || !strcmp(kc_mut_ops[k].name, "guard_delete")) bound |= 1u << k;
    cr_assert_eq(kc_mutate_source(&mod->src, "m", "m.cu", bound, m, err, sizeof err), 2);
}

Test(mutate_run, accepted_file) {
    kc_mut_module mod;
    kc_mutants m;
    two_mutants(&mod, &m);
    char dir[512], path[700], text[1024], err[1024];
    kc_tmp_dir(dir, sizeof dir, "mutacc");
    snprintf(path, sizeof path, "%s/accepted.txt", dir);
    snprintf(text, sizeof text, "# judged equivalent\n%s m the launch covers n exactly\n0123456789ab other never checked\n",
             m.v[1].id);
    kc_write_file(path, text);
    kc_mut_status st[2] = { 0 };
    int unchecked;
    cr_expect_eq(kc_mutate_accept(path, &mod, 1, &m, st, &unchecked, err, sizeof err), 1, "%s", err);
    cr_expect_eq(st[1].state, KC_MUT_ACCEPTED);
    cr_expect_str_eq(st[1].why, "the launch covers n exactly");
    cr_expect_eq(st[0].state, KC_MUT_PENDING);
    cr_expect_eq(unchecked, 1, "the entry of module 'other' is not checked: %d", unchecked);
    /* an entry whose mutant is no longer made from the source */
    memset(st, 0, sizeof st);
    kc_write_file(path, "0123456789ab m it was equivalent once\n");
    cr_expect_eq(kc_mutate_accept(path, &mod, 1, &m, st, &unchecked, err, sizeof err), -1);
    cr_expect(strstr(err, ":1:") && strstr(err, "no longer made"), "got: %s", err);
    /* an entry without its reason */
    snprintf(text, sizeof text, "%s m\n", m.v[0].id);
    kc_write_file(path, text);
    cr_expect_eq(kc_mutate_accept(path, &mod, 1, &m, st, &unchecked, err, sizeof err), -1);
    cr_expect(strstr(err, "<reason>"), "got: %s", err);
    kc_rm_rf(dir);
    kc_mutants_free(&m);
    kc_src_free(&mod.src);
}

Test(mutate_run, report_counts_score_and_json) {
    kc_mut_module mod;
    kc_mutants m;
    two_mutants(&mod, &m);
    kc_mut_status st[2] = { { .state = KC_MUT_CAUGHT, .gate = 3 }, { .state = KC_MUT_MISSED } };
    kc_mut_item its[2] = { { .mutant = 0, .contract = "c.f32", .state = KC_MUT_CAUGHT, .gate = 3 },
                           { .mutant = 1, .contract = "c.f32", .state = KC_MUT_MISSED } };
    kc_mut_run r = { &mod, 1, &m, st, its, 2, "KC_MUTANTS=/x/mutants.list ./build/kcontract", 12.4 };
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    kc_mutate_report_text(f, &r);
    fclose(f);
    cr_expect(strstr(buf, "MUTATION modules=1 generated=2 unviable=0 equivalent=0 viable=2 caught=1 missed=1 timeout=0 "
                          "score=0.50 wall_s=12\n"), "%s", buf);
    char want[200];
    snprintf(want, sizeof want, "MISSED mutant %s  %s  m.cu:2:", m.v[1].id, m.v[1].op->name);
    cr_expect(strstr(buf, want), "no missed line '%s' in:\n%s", want, buf);
    snprintf(want, sizeof want, "rerun: KC_MUTANTS=/x/mutants.list ./build/kcontract run '*:mutant.%s'", m.v[1].id);
    cr_expect(strstr(buf, want), "no rerun '%s' in:\n%s", want, buf);
    cr_expect(strstr(buf, "contract c.f32: caught 1 (gates 1-5: 0 0 1 0 0), missed 1"), "%s", buf);
    free(buf);
    char dir[512], path[700], err[256];
    kc_tmp_dir(dir, sizeof dir, "mutjson");
    snprintf(path, sizeof path, "%s/m.json", dir);
    cr_assert_eq(kc_mutate_report_json(path, &r, err, sizeof err), 0, "%s", err);
    const char *j = kc_out_file(path);
    cr_expect(strstr(j, "\"state\":\"caught\",\"gate\":3"), "%s", j);
    cr_expect(strstr(j, "\"state\":\"missed\"") && strstr(j, "\"diff\":\"--- a/m.cu"), "%s", j);
    cr_expect(strstr(j, "{\"type\":\"mutation\",\"modules\":1,\"generated\":2,") && strstr(j, "\"score\":0.50"), "%s", j);
    kc_rm_rf(dir);
    kc_mutants_free(&m);
    kc_src_free(&mod.src);
}

Test(mutate_run, command_line) {
    kc_proc p = kc_run_fixture((char *[]){ "run", "--budget", "5", NULL }, 10);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--budget applies to mutate only"), "stderr: %s", p.err);
    kc_proc_free(&p);
    p = kc_run_fixture((char *[]){ "mutate", "--budget", "0", NULL }, 10);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "--budget: expected a count from 1"), "stderr: %s", p.err);
    kc_proc_free(&p);
    p = kc_run_fixture((char *[]){ "mutate", "--operators", "relational,nosuch", "--build-only", NULL }, 10);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "no operator 'nosuch'") && strstr(p.err, "sync_drop"), "stderr: %s", p.err);
    kc_proc_free(&p);
    /* the fixture's fake modules have no source: named, with where it looked */
    p = kc_run_fixture((char *[]){ "mutate", "--build-only", "fake.axpy.f32", NULL }, 10);
    cr_expect_eq(p.status, 2);
    cr_expect(strstr(p.err, "module fake_axpy") && strstr(p.err, "no fake_axpy.cu under kernels:staging/kernels"),
              "stderr: %s", p.err);
    kc_proc_free(&p);
}

/* A copy of report j with its k-th (0-based) "state":"notrun" replaced by to, written to path. */
static void shard_report(const char *j, int k, const char *to, const char *path)
{
    char *c = strdup(j), *p = c;
    const char *from = "\"state\":\"notrun\"";
    for (int i = 0; p && i <= k; i++) p = strstr(i ? p + 1 : p, from);
    cr_assert(p, "no %d-th notrun mutant in:\n%s", k, j);
    size_t n = strlen(c) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(p - c), c, to, p + strlen(from));
    kc_write_file(path, out);
    free(out);
    free(c);
}

/* Two shards' reports made one by --merge-json (of the real report j of
 * two notrun mutants: shard a caught the first, shard b missed the
 * second); then the refusals: overlapping shards, a report of another
 * selection, a --budget that differs. */
static void merge_shard_reports(const char *dir, const char *j)
{
    char a[700], b[700], c[700];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(c, sizeof c, "%s/c.json", dir);
    shard_report(j, 0, "\"state\":\"caught\",\"gate\":3", a);
    shard_report(j, 1, "\"state\":\"missed\"", b);
    char *m1[] = { (char *)kc_test_bin(), "mutate", "--budget", "2", "--seed", "3", "--mutants-dir", (char *)dir,
                   "--merge-json", a, "--merge-json", b, "kv_cache.nhd.f16", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(m1, KC_NO_GPU_ENV, 60, &p), 0);
    cr_expect_eq(p.status, 1, "a missed mutant: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "the reports of 2 shards merged"), "%s", p.out);
    cr_expect(strstr(p.out, "MUTATION modules=1 generated=41 unviable=0 equivalent=0 viable=2 caught=1 missed=1 "
                            "timeout=0 score=0.50"), "%s%s", p.out, p.err);
    cr_expect(strstr(p.out, "rerun: KC_MUTANTS="), "a missed mutant's rerun names its manifest:\n%s", p.out);
    kc_proc_free(&p);
    /* shard a alone: its other mutant was skipped there (no GPU), none missed: 3, as in one run */
    char *m2[] = { (char *)kc_test_bin(), "mutate", "--budget", "2", "--seed", "3", "--mutants-dir", (char *)dir,
                   "--merge-json", a, "kv_cache.nhd.f16", NULL };
    cr_assert_eq(kc_spawn(m2, KC_NO_GPU_ENV, 60, &p), 0);
    cr_expect_eq(p.status, 3, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "caught 1 (gate 3: 1), missed 0, timeout 0, not run 1 (skipped: no GPU), score 1.00"), "%s",
              p.out);
    kc_proc_free(&p);
    /* both shards ran the first mutant */
    m1[11] = a;
    cr_assert_eq(kc_spawn(m1, KC_NO_GPU_ENV, 60, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--merge-json") || strstr(p.err, "given twice"), "%s", p.err);
    kc_proc_free(&p);
    shard_report(j, 0, "\"state\":\"timeout\"", c);
    m1[11] = c;
    cr_assert_eq(kc_spawn(m1, KC_NO_GPU_ENV, 60, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "was run by two shards (timeout there, caught in") && strstr(p.err, "the shards overlap"),
              "%s", p.err);
    kc_proc_free(&p);
    /* another --budget: a selection mark differs */
    m1[11] = b;
    m1[3] = "3";
    cr_assert_eq(kc_spawn(m1, KC_NO_GPU_ENV, 60, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "merge with the shards' --budget, --seed and --accepted"), "%s", p.err);
    kc_proc_free(&p);
    /* a report cut short */
    m1[3] = "2";
    kc_write_file(c, "{\"type\":\"mutant\",\"id\":\"0123456789ab\"}\n");
    m1[11] = c;
    cr_assert_eq(kc_spawn(m1, KC_NO_GPU_ENV, 60, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "c.json:1: a mutant line without its id, module or state"), "%s", p.err);
    kc_proc_free(&p);
}

/* --iterate over the real report j of two notrun mutants: one that an
 * earlier report caught keeps it (carried, not run: one mutant item line
 * left), a missed one runs again, a line whose place no longer matches the
 * source is stale (both run), and --iterate with --merge-json is refused. */
static void iterate_reports(const char *dir, const char *j)
{
    char a[700], b[700], json[700];
    snprintf(a, sizeof a, "%s/it-a.json", dir);
    snprintf(b, sizeof b, "%s/it-b.json", dir);
    snprintf(json, sizeof json, "%s/it.json", dir);
    shard_report(j, 0, "\"state\":\"caught\",\"gate\":3", a);
    shard_report(j, 1, "\"state\":\"missed\"", b);
    char *av[] = { (char *)kc_test_bin(), "mutate", "--budget", "2", "--seed", "3", "--build-jobs", "4",
                   "--mutants-dir", (char *)dir, "--json", json, "--iterate", a, "--iterate", b, "kv_cache.nhd.f16",
                   NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(av, KC_NO_GPU_ENV, 100, &p), 0);
    cr_expect_eq(p.status, 3, "the other mutant is not run (no GPU), none missed: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "--iterate: 1 mutant keep the outcome of 2 earlier reports (caught 1, timeout 0"),
              "%s%s", p.out, p.err);
    cr_expect(strstr(p.out, "1 to build"), "only the mutant no report caught is built:\n%s", p.out);
    cr_expect_eq(kc_out_count(p.out, ":mutant."), 1, "the caught one is not run again:\n%s", p.out);
    cr_expect(strstr(p.out, "caught=1 missed=0 timeout=0 carried=1 "), "%s", p.out);
    const char *r = kc_out_file(json);
    cr_expect_eq(kc_out_count(r, "\"carried\":true"), 1, "%s", r);
    cr_expect(strstr(r, "\"carried\":1,"), "%s", r);
    kc_proc_free(&p);
    /* the caught mutant's line moved: the code it judged is not this one */
    char *t = strdup(kc_out_file(a)), *c = strstr(t, "\"state\":\"caught\"");
    cr_assert(c);
    while (c > t && strncmp(c, "\"line\":", 7)) c--;
    cr_assert(c > t, "no line field before the caught state: %s", t);
    c[7] = c[7] == '9' ? '8' : '9';
    kc_write_file(a, t);
    free(t);
    cr_assert_eq(kc_spawn(av, KC_NO_GPU_ENV, 100, &p), 0);
    cr_expect(strstr(p.out, "--iterate: 1 report line names mutants the sources no longer make"), "%s%s", p.out, p.err);
    cr_expect_eq(kc_out_count(p.out, ":mutant."), 2, "both run:\n%s", p.out);
    kc_proc_free(&p);
    av[14] = "--merge-json";
    cr_assert_eq(kc_spawn(av, KC_NO_GPU_ENV, 100, &p), 0);
    cr_expect_eq(p.status, 2, "exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.err, "--iterate and --merge-json do not combine"), "%s", p.err);
    kc_proc_free(&p);
}

/* The seed "kv_cache_write" (mutant_seed.h): the two mutants of
 * kv_cache_write.cu that --budget 2 --seed 3 samples, built by make and nvcc
 * (their cubins, the original's, their fatbins) through the whole command. */
static void build_kv_mutants(const char *dir, void *ctx)
{
    (void)ctx;
    char *argv[] = { (char *)kc_test_bin(), "mutate", "--budget", "2", "--seed", "3", "--build-jobs", "4",
                     "--mutants-dir", (char *)dir, "kv_cache.nhd.f16", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, KC_NO_GPU_ENV, 100, &p), 0);
    cr_assert_eq(p.status, 3, "not run for lack of a GPU: exit %d\n%s%s", p.status, p.out, p.err);
    cr_assert(strstr(p.out, "mutate: 1 module, 41 mutants generated, 2 to build"), "%s", p.out);
    kc_proc_free(&p);
}

/* The whole command on a real module without a GPU: two sampled mutants of
 * kv_cache_write.cu built by make and nvcc (once per test run: the seed),
 * listed, run by the binary's own run (their items SKIP: not run, skipped),
 * the report and JSON written. Nothing could run for lack of a GPU: exit 3,
 * as `run` without a GPU (it was 1, as for a mutant missed), and the report
 * says why they were not run. */
Test(mutate_run, whole_command_without_gpu, .timeout = 120) {
    char dir[512], json[700];
    kc_tmp_dir(dir, sizeof dir, "mutcmd");
    kc_mutant_seed_copy("kv_cache_write", build_kv_mutants, NULL, dir);
    snprintf(json, sizeof json, "%s/report.json", dir);
    kc_proc p;
    char *argv[] = { (char *)kc_test_bin(), "mutate", "--budget", "2", "--seed", "3", "--build-jobs", "4",
                     "--mutants-dir", dir, "--json", json, "kv_cache.nhd.f16", NULL };
    cr_assert_eq(kc_spawn(argv, KC_NO_GPU_ENV, 100, &p), 0);
    cr_expect_eq(p.status, 3, "not run for lack of a GPU, as run: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(strstr(p.out, "mutate: 1 module, 41 mutants generated, 2 to build"), "%s", p.out);
    cr_expect(strstr(p.out, "images: fatbins)"), "no GPU to load cubins: %s", p.out);
    cr_expect(strstr(p.out, "\noverall: generated 41, left out by --budget 39, unviable 0, equivalent 0, duplicate 0, "
                            "viable 2: caught 0, missed 0, timeout 0, not run 2 (skipped: no GPU), score -\n"), "%s", p.out);
    cr_expect(strstr(p.err, "mutate: 2 mutants not run: no GPU (their items were SKIP); exit 3"), "%s", p.err);
    cr_expect_eq(kc_out_count(p.out, ":mutant."), 2, "two mutant item lines (one contract):\n%s", p.out);
    cr_expect(strstr(p.out, "MUTATION modules=1 generated=41 "), "%s", p.out);
    cr_expect(strstr(p.out, "left out by --budget 39"), "%s", p.out);
    const char *list = kc_out_file(strcat(strcpy((char[800]){ 0 }, dir), "/mutants.list"));
    cr_expect(strstr(list, "mutant ") && strstr(list, "kv_cache_write"), "%s", list);
    const char *j = kc_out_file(json);
    cr_expect_eq(kc_out_count(j, "\"state\":\"sampled_out\""), 39, "%s", j);
    cr_expect(strstr(j, "\"type\":\"mutation\",\"modules\":1,\"generated\":41"), "%s", j);
    cr_expect(strstr(j, ",\"notrun\":2,\"skipped\":2,"), "%s", j);
    cr_expect_eq(kc_out_count(j, "\"state\":\"notrun\",\"why\":\"no GPU\""), 2, "%s", j);
    kc_proc_free(&p);
    merge_shard_reports(dir, j);
    iterate_reports(dir, j);
    kc_rm_rf(dir);
}

/* Waves: by default only the first selected contract of a module runs its
 * mutants (a mutant it catches is done); --every-contract runs each
 * contract on each. Without a GPU every item is SKIP (not run), so no
 * mutant reaches the second wave; the two counts differ by the contracts. */
Test(mutate_run, first_contract_only_unless_every_contract, .timeout = 120) {
    char dir[512];
    kc_tmp_dir(dir, sizeof dir, "mutwave");
    kc_mutant_seed_copy("kv_cache_write", build_kv_mutants, NULL, dir);
    char *a1[] = { (char *)kc_test_bin(), "mutate", "--budget", "2", "--seed", "3", "--build-jobs", "4",
                   "--mutants-dir", dir, "kv_cache.nhd.*", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(a1, KC_NO_GPU_ENV, 100, &p), 0);
    cr_expect_eq(kc_out_count(p.out, ":mutant."), 2, "two mutants, the first contract only:\n%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kv_cache.nhd.bf16:mutant."), 2, "bf16 sorts first:\n%s", p.out);
    cr_expect(!strstr(p.out, "on to its other contracts"), "nothing was missed: no second wave\n%s", p.out);
    kc_proc_free(&p);
    char *a2[] = { (char *)kc_test_bin(), "mutate", "--budget", "2", "--seed", "3", "--build-jobs", "4",
                   "--mutants-dir", dir, "--every-contract", "kv_cache.nhd.*", NULL };
    cr_assert_eq(kc_spawn(a2, KC_NO_GPU_ENV, 100, &p), 0);
    cr_expect_eq(kc_out_count(p.out, ":mutant."), 4, "two mutants on both contracts:\n%s", p.out);
    cr_expect_eq(kc_out_count(p.out, "kv_cache.nhd.f16:mutant."), 2, "%s", p.out);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

Test(mutate_run, json_line_reads_this_programs_report_lines) {
    char s[64];
    long v;
    const char *l = "{\"type\":\"mutant\",\"id\":\"a\\\"b\\u00e9\\n\",\"line\":42,\"arr\":[1,2,\"x]\"],\"t\":true}";
    cr_expect_eq(kc_json_line_str(l, "id", s, sizeof s), 0);
    cr_expect_str_eq(s, "a\"b\xc3\xa9\n", "escapes decoded");
    cr_expect_eq(kc_json_line_int(l, "line", &v), 0);
    cr_expect_eq(v, 42);
    cr_expect_eq(kc_json_line_str(l, "t", s, sizeof s), -1, "a literal is not a string");
    cr_expect_eq(kc_json_line_str(l, "nope", s, sizeof s), 1, "absent");
    cr_expect_eq(kc_json_line_int(l, "id", &v), -1, "a string is not an integer");
    cr_expect_eq(kc_json_line_str(l, "id", s, 3), -1, "too long for out");
    cr_expect_eq(kc_json_line_str("{\"a\":{\"b\":1},\"id\":\"x\"}", "id", s, sizeof s), -1, "nested objects refused");
    cr_expect_eq(kc_json_line_str("{\"id\":\"x", "id", s, sizeof s), -1, "cut short");
    cr_expect_eq(kc_json_line_str("[1]", "id", s, sizeof s), -1, "not an object");
    /* an array of strings (a report's "contracts"), one after another with their NULs */
    int n = -1;
    char a[32];
    const char *c = "{\"type\":\"mutation\",\"contracts\":[\"a.b\", \"\",\"c\\u00e9\"],\"n\":[1]}";
    cr_expect_eq(kc_json_line_strs(c, "contracts", a, sizeof a, &n), 0);
    cr_expect_eq(n, 3);
    cr_expect(!memcmp(a, "a.b\0\0c\xc3\xa9", 9), "decoded one after another");
    cr_expect_eq(kc_json_line_strs("{\"contracts\":[]}", "contracts", a, sizeof a, &n), 0);
    cr_expect_eq(n, 0, "empty");
    cr_expect_eq(kc_json_line_strs(c, "nope", a, sizeof a, &n), 1, "absent");
    cr_expect_eq(kc_json_line_strs(c, "n", a, sizeof a, &n), -1, "not strings");
    cr_expect_eq(kc_json_line_strs(c, "type", a, sizeof a, &n), -1, "not an array");
    cr_expect_eq(kc_json_line_strs(c, "contracts", a, 5, &n), -1, "too long for out");
}

/* A manifest line's contracts= gives the mutant items of those contracts
 * only (a wave of kcontract mutate routes each mutant, mutate_route.h);
 * without it every contract of the module gets one; another last field
 * is refused, naming its line. */
Test(mutate_run, manifest_contracts_limit_the_items, .timeout = 60) {
    char dir[512], list[700], env[800], img[700], line[1600];
    kc_tmp_dir(dir, sizeof dir, "mutjudge");
    snprintf(img, sizeof img, "%s/m.fatbin", dir);
    kc_write_file(img, "KCFAKE fake_axpy wrong_value\n");
    snprintf(list, sizeof list, "%s/mutants.list", dir);
    snprintf(env, sizeof env, "KC_MUTANTS=%s", list);
    snprintf(line, sizeof line, "mutant 0000000000aa fake_axpy 4 %s relational x.cu:1\n", img);
    kc_write_file(list, line);
    kc_proc p = kc_run_fake((char *[]){ "list", NULL }, (char *[]){ env, NULL }, 30);
    int all = kc_out_count(p.out, ":mutant.0000000000aa");
    cr_expect_gt(all, 1, "every contract of fake_axpy gets the mutant without contracts=:\n%s%s", p.out, p.err);
    kc_proc_free(&p);
    snprintf(line, sizeof line, "mutant 0000000000aa fake_axpy 4 %s relational x.cu:1 contracts=fake.axpy.f32,nope\n", img);
    kc_write_file(list, line);
    p = kc_run_fake((char *[]){ "list", NULL }, (char *[]){ env, NULL }, 30);
    cr_expect_eq(kc_out_count(p.out, ":mutant.0000000000aa"), 1, "only fake.axpy.f32's:\n%s%s", p.out, p.err);
    cr_expect(strstr(p.out, "fake.axpy.f32:mutant.0000000000aa"), "%s", p.out);
    kc_proc_free(&p);
    snprintf(line, sizeof line, "mutant 0000000000aa fake_axpy 4 %s relational x.cu:1 judges=fake.axpy.f32\n", img);
    kc_write_file(list, line);
    p = kc_run_fake((char *[]){ "list", NULL }, (char *[]){ env, NULL }, 30);
    cr_expect_eq(p.status, 2, "exit %d", p.status);
    cr_expect(strstr(p.err, "line 1") && strstr(p.err, "contracts="), "stderr: %s", p.err);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* A sharded wave is sliced by name unless the user gave a cost table: the
 * mutants' own table changes between shards' runs (each baseline and wave 2
 * rewrites it), and slices cut from it overlap and leave gaps. */
Test(mutate_run, a_sharded_wave_slices_by_name_unless_costs_are_given) {
    kc_opts o = { .sharded = 1, .shard_k = 1, .shard_n = 2 };
    kc_strvec av = KC_STRVEC_INIT;
    cr_assert_eq(kc_mutate_wave_slice(&o, 1, "m/costs.tsv", &av), 0);
    cr_expect_eq(av.n, 2, "--shard 1/2 and no --costs: %zu words", (size_t)av.n);
    cr_expect(av.n >= 2 && !strcmp(av.v[0], "--shard") && !strcmp(av.v[1], "1/2"));
    kc_strvec_clear(&av);
    /* wave 2 runs whole on every shard: the mutants' table orders it */
    cr_assert_eq(kc_mutate_wave_slice(&o, 2, "m/costs.tsv", &av), 0);
    cr_expect(av.n == 2 && !strcmp(av.v[0], "--costs") && !strcmp(av.v[1], "m/costs.tsv"));
    kc_strvec_clear(&av);
    /* a table the user gave, one file for every host, partitions by cost */
    o.costs_given = 1;
    o.costs = "shared/costs.tsv";
    cr_assert_eq(kc_mutate_wave_slice(&o, 1, "m/costs.tsv", &av), 0);
    cr_expect(av.n == 4 && !strcmp(av.v[2], "--costs") && !strcmp(av.v[3], "shared/costs.tsv"));
    kc_strvec_clear(&av);
    /* not sharded: the mutants' table, for the longest-first order */
    kc_opts u = { 0 };
    cr_assert_eq(kc_mutate_wave_slice(&u, 1, "m/costs.tsv", &av), 0);
    cr_expect(av.n == 2 && !strcmp(av.v[0], "--costs") && !strcmp(av.v[1], "m/costs.tsv"));
    kc_strvec_clear(&av);
}
