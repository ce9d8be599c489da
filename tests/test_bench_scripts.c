/* test_bench_scripts.c — bench/gpu_schedule.sh end to end on the fixture
 * binary (no GPU): every mode (serial, queue, static, one process per item)
 * runs and has the serial run's counts; and a second process of the same
 * binary running beside the benchmark is reported (SHARED HOST, exit 1), as
 * it disturbed a real H200 benchmark (docs/receipts/2026-11-30-h200-schedule.md).
 * bench/gpu_suite.sh's cache modes print items= and cached= (issue 23).
 * bench/kernel_time.py sums a CUPTI trace (issue 23) by role and family,
 * counts untimed records apart and names a bad line; bench/run_timeline.py
 * gives a run's spans per worker by kind and its GPU's ramp.
 * The binary is copied under a name of its own per test, so that the other
 * tests' processes, which run in parallel, are not taken for intruders. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/spawn.h"

/* Copies the fixture binary to DIR/NAME (mode 755); NAME is what ps -C sees. */
static void copy_fixture(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    int in = open(kc_test_fixture_bin(), O_RDONLY);
    cr_assert_geq(in, 0, "cannot open %s", kc_test_fixture_bin());
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    cr_assert_geq(out, 0, "cannot create %s", path);
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) cr_assert_eq(write(out, buf, (size_t)n), n);
    close(in);
    close(out);
}

/* A fresh directory holding the fixture binary as `<prefix><pid>`; bin, name
 * and log (the benchmark's LOGDIR) are set. */
typedef struct bench_dir {
    char dir[256], name[32], bin[384], log[300];
} bench_dir;

static void bench_dir_make(bench_dir *b, const char *prefix)
{
    snprintf(b->dir, sizeof b->dir, "%s/kc-bench-XXXXXX", kc_test_tmpdir());
    cr_assert_not_null(mkdtemp(b->dir));
    snprintf(b->name, sizeof b->name, "%s%ld", prefix, (long)getpid());
    copy_fixture(b->dir, b->name, b->bin, sizeof b->bin);
    snprintf(b->log, sizeof b->log, "%s/log", b->dir);
}

/* Removes the directory (a failed test keeps its logs for inspection). */
static void bench_dir_remove(bench_dir *b)
{
    char *argv[] = { "/bin/rm", "-rf", b->dir, NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, NULL, 30, &p), 0);
    cr_assert_eq(p.status, 0, "rm -rf %s: %s", b->dir, p.err);
    kc_proc_free(&p);
}

static const char *bench_table(const bench_dir *b)
{
    char path[320];
    snprintf(path, sizeof path, "%s/table.txt", b->log);
    return kc_out_file(path);
}

/* The table row of `mode` (a line starting "mode ") ends with `want`. */
static void assert_row(const char *table, const char *mode, const char *want)
{
    char key[64];
    snprintf(key, sizeof key, "\n%s ", mode);
    const char *p = strstr(table, key);
    cr_assert_not_null(p, "no %s row in:\n%s", mode, table);
    const char *e = strchr(p + 1, '\n');
    cr_assert_not_null(e);
    size_t wl = strlen(want);
    cr_assert((size_t)(e - p) > wl && strncmp(e - wl, want, wl) == 0, "%s row does not end in '%s':\n%.*s", mode,
              want, (int)(e - p), p + 1);
}

/* sample_s: the memory sampler's interval (MEM_SAMPLE_S), NULL for the script's default. */
static void run_bench(const char *bin, const char *log, const char *modes, const char *scale, const char *sample_s,
                      kc_proc *p)
{
    char ebin[512], emodes[128], escale[64], esample[64];
    snprintf(ebin, sizeof ebin, "BIN=%s", bin);
    snprintf(emodes, sizeof emodes, "MODES=%s", modes);
    snprintf(escale, sizeof escale, "KC_FIXTURE_COST_SCALE=%s", scale);
    snprintf(esample, sizeof esample, "MEM_SAMPLE_S=%s", sample_s ? sample_s : "1");
    char *env[] = { ebin, emodes, escale, esample, "NS=2", "KC_LIBCUDA=none", NULL };
    char *argv[] = { "/bin/sh", "bench/gpu_schedule.sh", (char *)log, "fixture.cost.0*", NULL };
    cr_assert_eq(kc_spawn(argv, env, 120, p), 0);
}

Test(bench_scripts, gpu_schedule_every_mode_has_the_serial_counts, .timeout = 150)
{
    bench_dir b;
    bench_dir_make(&b, "kcb");
    kc_proc p;
    run_bench(b.bin, b.log, "queue static per-item", "0.5", NULL, &p);
    const char *table = bench_table(&b);
    cr_assert_eq(p.status, 0, "gpu_schedule.sh exit %d\n%s\n%s", p.status, p.out, p.err);
    assert_row(table, "queue", "yes");
    assert_row(table, "static", "yes");
    assert_row(table, "per-item", "yes");
    cr_assert_not_null(strstr(table, "counts: identical in every mode"), "%s", table);
    cr_assert_null(strstr(table, "SHARED HOST"), "%s", table);
    kc_proc_free(&p);
    bench_dir_remove(&b);
}

Test(bench_scripts, gpu_schedule_reports_a_second_process_sharing_the_host, .timeout = 150)
{
    bench_dir b;
    bench_dir_make(&b, "kcs");
    /* The intruder: the same binary, on an item that hangs until killed. */
    pid_t intruder = fork();
    cr_assert_geq(intruder, 0);
    if (intruder == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        setenv("KC_LIBCUDA", "none", 1);
        execl(b.bin, b.name, "run", "fixture.hang.0", (char *)NULL);
        _exit(127);
    }
    char comm[64], want[40];
    snprintf(comm, sizeof comm, "/proc/%ld/comm", (long)intruder);
    snprintf(want, sizeof want, "%s\n", b.name);
    int seen = 0;
    for (int i = 0; i < 500 && !seen; i++) {   /* until it has exec'd, at most 5 s */
        FILE *f = fopen(comm, "r");
        char got[40] = "";
        if (f) {
            if (!fgets(got, sizeof got, f)) got[0] = 0;
            fclose(f);
        }
        seen = strcmp(got, want) == 0;
        if (!seen) usleep(10000);
    }
    cr_assert(seen, "the intruder %s did not start", b.name);
    kc_proc p;
    /* serial and queue-2 of about 3 and 1.5 s, sampled every 0.2 s: the
     * intruder is seen in several samples of each (3 make SHARED HOST) */
    run_bench(b.bin, b.log, "queue", "4", "0.2", &p);
    kill(intruder, SIGKILL);
    waitpid(intruder, NULL, 0);
    const char *table = bench_table(&b);
    cr_assert_eq(p.status, 1, "gpu_schedule.sh exit %d, expected 1\n%s\n%s", p.status, p.out, p.err);
    cr_assert_not_null(strstr(table, "SHARED HOST"), "%s", table);
    cr_assert_not_null(strstr(table, "host: shared with another"), "%s", table);
    cr_assert_not_null(strstr(p.err, "WARNING"), "no warning as the runs started:\n%s", p.err);
    kc_proc_free(&p);
    bench_dir_remove(&b);
}

/* bench/gpu_suite.sh's cache modes on the fixture binary, with a stand-in
 * nvidia-smi on PATH (it samples nothing): every BENCH line says items= and
 * cached=; cached-none (the second run, nothing changed) reuses the passes
 * of cached-fill with the same counts; without a TOUCH file there is no
 * cached-one run, and the script says so. */
Test(bench_scripts, gpu_suite_cache_modes_say_items_and_cached, .timeout = 60)
{
    bench_dir b;
    bench_dir_make(&b, "kcg");
    char smi[300], path[400], ebin[512];
    snprintf(smi, sizeof smi, "%s/nvidia-smi", b.dir);
    kc_write_file(smi, "#!/bin/sh\nexit 0\n");
    cr_assert_eq(chmod(smi, 0755), 0);
    snprintf(path, sizeof path, "PATH=%s:/usr/local/bin:/usr/bin:/bin", b.dir);
    snprintf(ebin, sizeof ebin, "BIN=%s", b.bin);
    char *env[] = { ebin, path, "NS=2", "ONLY_CACHED=1", "TOUCH=/nonexistent/k.cu", "KC_CACHE_DIR=",
                    "KC_LIBCUDA=none", NULL };
    char *argv[] = { "/bin/sh", "bench/gpu_suite.sh", b.log, "fixture.pass.0*", "fixture.fail", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 60, &p), 0);
    char out[400];
    snprintf(out, sizeof out, "%s/bench.out", b.log);
    const char *bench = kc_out_file(out);
    cr_expect(strstr(bench, "BENCH mode=cached-fill n=2 items=11 cached=0 "), "%s\n%s", bench, p.err);
    cr_expect(strstr(bench, "BENCH mode=cached-none n=2 items=11 cached=10 "), "%s\n%s", bench, p.err);
    cr_expect_eq(kc_out_count(bench, "summary=same"), 2, "%s", bench);
    cr_expect(!strstr(bench, "cached-one"), "%s", bench);
    cr_expect(strstr(p.err, "no cached-one run"), "%s", p.err);
    kc_proc_free(&p);
    bench_dir_remove(&b);
}

/* A trace folder with two processes' files: kernels of the harness (an
 * input, a check), a device reference and a kernel under test (by the
 * build's fatbins), a memset, and one kernel without timestamps. */
static void kernel_trace(const char *dir)
{
    char path[400];
    snprintf(path, sizeof path, "%s/ktime.100.tsv", dir);
    kc_write_file(path, "K\t1000000000\t1500000000\t1\t7\t1x1x1\t256x1x1\tkc_gen_fill\n"
                        "K\t1200000000\t1300000000\t1\t8\t528x1x1\t256x1x1\tgemm_nt_ref\n"
                        "S\t2000000000\t2100000000\t1\t7\t4096\t-\tmemset\n"
                        "K\t0\t0\t1\t7\t1x1x1\t256x1x1\tkc_check_close\n");
    snprintf(path, sizeof path, "%s/ktime.200.tsv", dir);
    kc_write_file(path, "K\t1400000000\t1600000000\t2\t7\t2x1x1\t128x1x1\treduce_max_f32\n"
                        "K\t1700000000\t19");      /* its process ended mid-line: counted as cut */
}

/* Runs bench/kernel_time.py on dir; skipped without python3. */
static kc_proc kernel_time_py(const char *dir)
{
    return kc_run_python3((char *[]){ "bench/kernel_time.py", (char *)dir, "--fatbins", "build/fatbin", "--name", "t", NULL },
                          30);
}

/* The union of [1.0, 1.6] s and [2.0, 2.1] s is 0.7 s of 0.9 s summed; the
 * reference is gemm's, the kernel reduction's; the untimed check is counted
 * and its process named, and a last line cut short counted, neither summed;
 * every activity kind's count and seconds go into DIR/kernels.tsv; a line of
 * 7 fields is refused with its file and line. */
Test(bench_scripts, kernel_time_sums_a_trace_by_role_and_family, .timeout = 60)
{
    char dir[256];
    kc_tmp_dir(dir, sizeof dir, "ktime");
    kernel_trace(dir);
    kc_proc p = kernel_time_py(dir);
    cr_expect_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_expect(strstr(p.out, "BENCH kernel_time name=t procs=2 activities=4 untimed=1 cut=1 span_s=1.100 "
                            "union_s=0.700 sum_s=0.900 inputs=0.500 kernel=0.200 reference=0.100 memset=0.100\n"),
              "%s", p.out);
    cr_expect(strstr(p.out, "1 lines cut short or blank"), "%s", p.out);
    cr_expect(strstr(p.out, "1 activities without timestamps (kernels 1, memsets 0, copies 0"), "%s", p.out);
    cr_expect(strstr(p.out, "in 1 processes: ktime.100.tsv"), "%s", p.out);
    cr_expect(strstr(p.out, "  gemm                     kernel   0.000  reference   0.100"), "%s", p.out);
    cr_expect(strstr(p.out, "  reduction                kernel   0.200  reference   0.000"), "%s", p.out);
    kc_proc_free(&p);
    char table[400];
    snprintf(table, sizeof table, "%s/kernels.tsv", dir);
    const char *t = kc_out_file(table);
    cr_expect(strstr(t, "kind\tname\trole\tfamily\tcount\tseconds\n"
                        "K\tkc_gen_fill\tinputs\t-\t1\t0.500000\n"
                        "K\treduce_max_f32\tkernel\treduction\t1\t0.200000\n"), "%s", t);
    cr_expect(strstr(t, "S\tmemset\tmemset\t-\t1\t0.100000\n"), "%s", t);
    cr_expect(strstr(t, "K\tgemm_nt_ref\treference\tgemm\t1\t0.100000\n"), "%s", t);
    char path[400];
    snprintf(path, sizeof path, "%s/ktime.200.tsv", dir);
    kc_write_file(path, "K\t1\t2\t2\t7\t2x1x1\treduce_max_f32\n");
    p = kernel_time_py(dir);
    cr_expect_eq(p.status, 2, "%s%s", p.out, p.err);
    cr_expect(strstr(p.err, "ktime.200.tsv:1: expected 8 tab-separated fields starting with K, S or C"), "%s", p.err);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}

/* A line of a --json report: item name, kind, gate, worker, start and end. */
static void report_item(FILE *f, const char *name, const char *kind, int gate, int w, double a, double b)
{
    fprintf(f, "{\"type\":\"item\",\"name\":\"%s\",\"kind\":\"%s\",\"state\":\"PASS\",\"gate\":%d,"
               "\"worker\":%d,\"start_s\":%.1f,\"end_s\":%.1f,\"seconds\":%.1f,\"cached\":false}\n",
            name, kind, gate, w, a, b, b - a);
}

/* Worker 0: a control planted for the sanitizer, then a :sanitize item;
 * worker 1: a control planted for gate 1, two items that overlap (in
 * flight), one alone. The GPU 10% busy for 3 s, then 90% for 7 s, sampled
 * every 0.5 s: the ramp at 3 s, 2.7 idle seconds before it, 6.6 GPU-s. A
 * report with no item is refused, named. */
Test(bench_scripts, run_timeline_gives_spans_by_kind_and_the_ramp, .timeout = 60)
{
    char dir[256], rep[400], smi[400];
    kc_tmp_dir(dir, sizeof dir, "timeline");
    snprintf(rep, sizeof rep, "%s/r.json", dir);
    snprintf(smi, sizeof smi, "%s/r.smi", dir);
    FILE *f = fopen(rep, "w");
    cr_assert(f, "cannot write %s", rep);
    fprintf(f, "{\"type\":\"header\"}\n");
    report_item(f, "a:control.race", "control", 5, 0, 0.0, 2.0);
    report_item(f, "a:sanitize", "sanitizer", 0, 0, 2.5, 3.0);
    report_item(f, "b:control.oob", "control", 1, 1, 0.0, 1.0);
    report_item(f, "c", "kernel", 0, 1, 1.2, 2.0);
    report_item(f, "d", "kernel", 0, 1, 1.3, 2.1);
    report_item(f, "e", "kernel", 0, 1, 2.7, 9.9);
    fclose(f);
    f = fopen(smi, "w");
    cr_assert(f, "cannot write %s", smi);
    for (int i = 0; i < 20; i++)
        fprintf(f, "2026/12/07 08:00:%02d.%03d, %d, 100\n", i / 2, i % 2 * 500, i < 6 ? 10 : 90);
    fclose(f);
    kc_proc p = kc_run_python3((char *[]){ "bench/run_timeline.py", rep, smi, "--name", "t", NULL }, 30);
    cr_expect_eq(p.status, 0, "%s%s", p.out, p.err);
    cr_expect(strstr(p.out, "  w0: san-ctl x1 0.0-2.0, san x1 2.5-3.0\n"), "%s", p.out);
    cr_expect(strstr(p.out, "  w1: gate1-ctl x1 0.0-1.0, inflight x2 1.2-2.1, alone x1 2.7-9.9\n"), "%s", p.out);
    cr_expect(strstr(p.out, "GPU busy % per second: 0:10 1:10 2:10 3:90 4:90"), "%s", p.out);
    cr_expect(strstr(p.out, "TIMELINE name=t wall_s=9.9 items=6 gpu_s=6.6 busy=0.67 ramp_s=3 idle_before_ramp_s=2.7\n"),
              "%s", p.out);
    kc_proc_free(&p);
    f = fopen(rep, "w");
    cr_assert(f, "cannot write %s", rep);
    fclose(f);
    p = kc_run_python3((char *[]){ "bench/run_timeline.py", rep, NULL }, 30);
    cr_expect_eq(p.status, 2, "%s%s", p.out, p.err);
    cr_expect(strstr(p.err, "r.json holds no item that ran"), "%s", p.err);
    kc_proc_free(&p);
    kc_rm_rf(dir);
}
