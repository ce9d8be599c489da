/* test_finish.c — one way of finishing an item (finish.h, result.h): a
 * serial run and a --jobs queue run of the same items under the fake driver
 * keep the same record for every item — kind, state, gate, message and rerun
 * command in the --json report — where they used to be built by two copies
 * of the finishing logic from two look-alike result structs; a message with
 * a newline and an ESC sequence (fixture.ctrl.msg) is the same escaped text
 * in both, where the worker's result line used to flatten it to spaces. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/run_output.h"
#include "support/spawn.h"

/* For each "item" line of a JSON Lines report: "NAME|<kind..gate>|<message..>"
 * (the fields a record's result gives; timing, worker, pid and input reuse
 * differ between runs by design), one per line, sorted by name. */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *item_results(const char *path)
{
    const char *txt = kc_out_file(path);
    size_t cap = strlen(txt) + 1, n = 0;
    char **lines = calloc(4096, sizeof *lines), *out = calloc(cap + 4096, 1);
    cr_assert(lines && out);
    for (const char *p = txt; *p && n < 4096;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (strncmp(p, "{\"type\":\"item\",\"name\":\"", 23) == 0) {
            char *l = strndup(p, len);
            const char *name_end = strchr(l + 23, '"'), *kind = strstr(l, ",\"kind\""), *worker = strstr(l, ",\"worker\"");
            const char *msg = strstr(l, ",\"message\"");
            cr_assert(name_end && kind && worker && msg && kind < worker, "unexpected item line: %s", l);
            char *k = calloc(len + 8, 1);
            snprintf(k, len + 8, "%.*s|%.*s|%s", (int)(name_end - l - 23), l + 23, (int)(worker - kind), kind, msg);
            lines[n++] = k;
            free(l);
        }
        p += len + (e != NULL);
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
        free(lines[i]);
    }
    free(lines);
    return out;
}

Test(finish, serial_and_queue_keep_the_same_records, .timeout = 120)
{
    char js[128], jq[128], costs[128];
    snprintf(costs, sizeof costs, "%s/kc-finish-%ld-costs.tsv", kc_test_tmpdir(), (long)getpid());
    snprintf(js, sizeof js, "%s/kc-finish-%ld-serial.json", kc_test_tmpdir(), (long)getpid());
    snprintf(jq, sizeof jq, "%s/kc-finish-%ld-queue.json", kc_test_tmpdir(), (long)getpid());
    char *serial[] = { "run", "--json", js, "fake.axpy.f32*", "fake.wrong.f32", "fake.known.f32", "fake.stale.f32",
                       "fixture.fail", "fixture.ctrl.msg", "fixture.pass.00", NULL };
    char *queue[] = { "run", "--jobs", "2", "--costs", costs, "--json", jq, "fake.axpy.f32*", "fake.wrong.f32",
                      "fake.known.f32", "fake.stale.f32", "fixture.fail", "fixture.ctrl.msg", "fixture.pass.00", NULL };
    kc_proc s = kc_run_fake(serial, NULL, 60);
    cr_assert_eq(s.status, 1, "serial: exit %d\n%s%s", s.status, s.out, s.err);
    kc_proc q = kc_run_fake(queue, NULL, 60);
    cr_assert_eq(q.status, 1, "queue: exit %d\n%s%s", q.status, q.out, q.err);
    char *a = item_results(js), *b = item_results(jq);
    cr_expect_gt(kc_out_count_lines(a, "fake.axpy.f32:control."), 2, "%s", a);
    cr_expect(strstr(a, "fake.wrong.f32|,\"kind\":\"kernel\",\"state\":\"FAIL\""), "%s", a);
    cr_expect(strstr(a, "\"rerun\":\"") && strstr(a, "fixture.fail --seed 1 --device 0"), "%s", a);
    cr_expect_str_eq(a, b, "serial records:\n%s\nqueue records:\n%s", a, b);
    free(a);
    free(b);
    kc_proc_free(&s);
    kc_proc_free(&q);
    unlink(js);
    unlink(jq);
    unlink(costs);
}

/* The line that begins with want names both of fakebroken's controls. */
static int named_both(const char *out, const char *want)
{
    const char *l = strstr(out, want), *end = l ? strchr(l, '\n') : NULL;
    if (!l || !end) return 0;
    const char *a = strstr(l, "fakebroken.axpy.f32:control.nondeterministic");
    const char *b = strstr(l, "fakebroken.axpy.f32:control.wrong_value");
    return a && b && a < end && b < end;
}

/* A control RED while the kernel it is planted in FAILs in the same run (the
 * reference of fakebroken.axpy.f32 adds 1: the clean kernel and its gate-3
 * controls all fail gate 3) read "2 red as planted" with nothing more, as if
 * the contract had shown it catches those bugs. A line under the SUMMARY now
 * names them, serially, under --jobs and in a merge of shards. */
Test(finish, controls_red_beside_their_failing_kernel_are_named, .timeout = 90)
{
    char log[2][256];
    const char *modes[][4] = { { "run", "fakebroken.*", NULL }, { "run", "fakebroken.*", "--jobs=2", NULL } };
    char *env[] = { "KC_CACHE_DIR=off", "KC_FIXTURE_BROKEN_KERNEL=1", NULL };
    const char *want = "2 controls RED beside their kernel's failure in this run (";
    for (int m = 0; m < 2; m++) {
        kc_proc p = kc_run_fake((char **)modes[m], env, 60);
        cr_expect_eq(p.status, 1, "mode %d: the kernel FAILs: exit %d\n%s%s", m, p.status, p.out, p.err);
        cr_expect(named_both(p.out, want), "mode %d: no line names the controls:\n%s", m, p.out);
        kc_proc_free(&p);
    }
    for (int k = 0; k < 2; k++) {
        char tag[16], shard[8];
        snprintf(tag, sizeof tag, "broken%d", k);
        snprintf(shard, sizeof shard, "%d/2", k);
        kc_tmp_path(log[k], sizeof log[k], "finish", tag);
        kc_proc p = kc_run_fake((char *[]){ "run", "fakebroken.*", "--shard", shard, NULL }, env, 60);
        kc_write_file(log[k], p.out);
        kc_proc_free(&p);
    }
    kc_proc p = kc_run_fake((char *[]){ "merge", "fakebroken.*", "--log", log[0], "--log", log[1], NULL }, env, 60);
    cr_expect_eq(p.status, 1, "merge: exit %d\n%s%s", p.status, p.out, p.err);
    cr_expect(named_both(p.out, want), "merge: no line names the controls:\n%s%s", p.out, p.err);
    kc_proc_free(&p);
    /* a kernel that passes: no such line */
    p = kc_run_fake((char *[]){ "run", "fake.axpy.f32*", NULL }, (char *[]){ "KC_CACHE_DIR=off", NULL }, 60);
    cr_expect(!strstr(p.out, "RED beside"), "%s", p.out);
    kc_proc_free(&p);
    unlink(log[0]);
    unlink(log[1]);
}
