/* test_shard.c — the partition and the shard switches: every index in
 * exactly one shard for many (count, N) pairs, N > count included; --shard
 * and --devices parsing refuses junk naming the value; and through the
 * fixture binary, filter then shard keeps each item once: the union of
 * `run --shard k/N` over k is the serial run's items, none twice, and the
 * shards' TALLY items and digests add up to the serial TALLY's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_options.h"
#include "shard.h"
#include "support/run_output.h"
#include "support/spawn.h"
#include "tally.h"

Test(shard, partition_covers_each_index_once)
{
    for (int count = 0; count <= 70; count++)
        for (int n = 1; n <= 80; n++) {
            int seen[80] = { 0 }, hits[71] = { 0 };
            for (int i = 0; i < count; i++) {
                int k = kc_shard_of(i, n);
                cr_assert(k >= 0 && k < n, "count %d n %d: item %d in shard %d", count, n, i, k);
                seen[k]++;
                hits[i]++;
            }
            int total = 0, lo = count, hi = 0;
            for (int k = 0; k < n; k++) {
                cr_assert_eq(seen[k], kc_shard_size(count, k, n), "count %d n %d shard %d", count, n, k);
                total += seen[k];
                lo = seen[k] < lo ? seen[k] : lo;
                hi = seen[k] > hi ? seen[k] : hi;
            }
            cr_assert_eq(total, count);
            for (int i = 0; i < count; i++) cr_assert_eq(hits[i], 1);
            cr_assert_leq(hi - lo, 1, "count %d n %d: slices %d..%d", count, n, lo, hi);
        }
}

Test(shard, partition_depends_only_on_position)
{
    /* Item i of the filtered, sorted list goes to shard i % N. */
    cr_expect_eq(kc_shard_of(0, 4), 0);
    cr_expect_eq(kc_shard_of(5, 4), 1);
    cr_expect_eq(kc_shard_of(11, 4), 3);
    cr_expect_eq(kc_shard_of(3, 1), 0);
    cr_expect_eq(kc_shard_size(3, 5, 8), 0, "a shard beyond the items is empty");
}

Test(shard, parse_accepts_k_below_n)
{
    int k = -1, n = -1;
    char err[256];
    cr_expect_eq(kc_shard_parse("0/1", &k, &n, err, sizeof err), 0);
    cr_expect(k == 0 && n == 1);
    cr_expect_eq(kc_shard_parse("3/4", &k, &n, err, sizeof err), 0);
    cr_expect(k == 3 && n == 4);
    cr_expect_eq(kc_shard_parse("4095/4096", &k, &n, err, sizeof err), 0);
}

Test(shard, parse_refuses_naming_the_value)
{
    static const struct { const char *s, *why; } bad[] = {
        { "1/4x", "got '1/4x'" }, { "a/4", "got 'a/4'" }, { "1/", "got '1/'" }, { "/4", "got '/4'" },
        { "-1/4", "got '-1/4'" }, { "4/4", "K must be below N (shards are 0..3), got '4/4'" },
        { "7/3", "K must be below N (shards are 0..2), got '7/3'" }, { "0/0", "N must be at least 1, got '0/0'" },
        { "01/4", "got '01/4'" }, { " 1/4", "got ' 1/4'" }, { "1/4 ", "got '1/4 '" }, { "1//4", "got '1//4'" },
        { "", "got ''" }, { "1", "got '1'" }, { "1/+4", "got '1/+4'" }, { "0/4097", "N must be at most 4096" },
        { "99999999999999999999/3", "got '99999999999999999999/3'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int k = 77, n = 77;
        char err[256] = "";
        cr_expect_eq(kc_shard_parse(bad[i].s, &k, &n, err, sizeof err), -1, "'%s' accepted", bad[i].s);
        cr_expect(strstr(err, bad[i].why), "'%s': want '%s' in '%s'", bad[i].s, bad[i].why, err);
        cr_expect(k == 77 && n == 77, "'%s': outputs written on refusal", bad[i].s);
    }
}

Test(shard, devices_parse)
{
    int d[KC_MAX_DEVLIST];
    char err[256];
    cr_expect_eq(kc_devices_parse("0,2,3", d, KC_MAX_DEVLIST, err, sizeof err), 3);
    cr_expect(d[0] == 0 && d[1] == 2 && d[2] == 3);
    cr_expect_eq(kc_devices_parse("7", d, KC_MAX_DEVLIST, err, sizeof err), 1);
    static const struct { const char *s, *why; } bad[] = {
        { "", "got ''" }, { "0,", "got '0,'" }, { ",1", "got ',1'" }, { "0,,1", "got '0,,1'" },
        { "a", "got 'a'" }, { "0,0", "device 0 is listed twice in '0,0'" }, { "1024", "got '1024'" },
        { "-1", "got '-1'" }, { "1 ,2", "got '1 ,2'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_eq(kc_devices_parse(bad[i].s, d, KC_MAX_DEVLIST, err, sizeof err), -1, "'%s' accepted", bad[i].s);
        cr_expect(strstr(err, bad[i].why), "'%s': want '%s' in '%s'", bad[i].s, bad[i].why, err);
    }
    cr_expect_eq(kc_devices_parse("0,1,2", d, 2, err, sizeof err), -1);
    cr_expect(strstr(err, "at most 2 devices"), "%s", err);
}

Test(shard, device_slots_round_robin)
{
    cr_expect_eq(kc_shard_device_slot(0, 3), 0);
    cr_expect_eq(kc_shard_device_slot(4, 3), 1);
    cr_expect_eq(kc_shard_device_slot(5, 0), 0, "no GPU: device 0");
}

/* ---- through the fixture binary ---- */

static kc_proc fixture(char **args)
{
    char *argv[16] = { (char *)kc_test_fixture_bin() };
    int a = 1;
    for (; args[a - 1]; a++) argv[a] = args[a - 1];
    argv[a] = NULL;
    char *env[] = { "KC_LIBCUDA=none", NULL };
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env, 30, &p), 0, "cannot start %s", argv[0]);
    return p;
}

/* Item names from "PASS   name  ..." / "FAIL   name ..." lines, appended to names. */
static int item_names(const char *out, char names[][64], int max, int have)
{
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        char state[16], name[64];
        if (sscanf(p, "%15s %63s", state, name) != 2) continue;
        if (strcmp(state, "PASS") && strcmp(state, "FAIL")) continue;
        cr_assert_lt(have, max);
        snprintf(names[have++], 64, "%s", name);
    }
    return have;
}


Test(shard, filter_then_shard_keeps_each_item_once, .timeout = 60)
{
    char *serial_args[] = { "run", "fixture.pass.*", "fixture.fail", NULL };
    kc_proc s = fixture(serial_args);
    cr_assert_eq(s.status, 1, "serial: exit %d\n%s%s", s.status, s.out, s.err);
    static char serial[32][64], got[32][64];
    int ns = item_names(s.out, serial, 32, 0);
    cr_assert_eq(ns, 13, "serial items:\n%s", s.out);
    kc_tally st;
    kc_out_tally(s.out, &st);
    static const int NS[] = { 1, 2, 3, 5, 13, 20 };
    for (size_t ni = 0; ni < sizeof NS / sizeof NS[0]; ni++) {
        int n = NS[ni], ng = 0;
        long items = 0;
        uint64_t digest = 0;
        for (int k = 0; k < n; k++) {
            char spec[32];
            snprintf(spec, sizeof spec, "%d/%d", k, n);
            char *args[] = { "run", "fixture.pass.*", "fixture.fail", "--shard", spec, NULL };
            kc_proc p = fixture(args);
            int before = ng;
            ng = item_names(p.out, got, 32, ng);
            kc_tally t;
            kc_out_tally(p.out, &t);
            cr_expect_eq(t.shard_k, k);
            cr_expect_eq(t.shard_n, n);
            cr_expect_eq(t.items, ng - before, "shard %s: TALLY items %ld, lines %d", spec, t.items, ng - before);
            cr_expect_eq(t.items, kc_shard_size(13, k, n));
            cr_expect_eq(p.status, kc_tally_exit_status(&t), "shard %s exit %d", spec, p.status);
            if (t.items == 0)
                cr_expect(strstr(p.out, "is empty"), "an empty shard must say so:\n%s", p.out);
            items += t.items;
            digest += t.digest;
            kc_proc_free(&p);
        }
        cr_expect_eq(ng, ns, "N=%d: %d items over the shards, %d serial", n, ng, ns);
        for (int i = 0; i < ns; i++) {
            int c = 0;
            for (int j = 0; j < ng; j++) c += strcmp(serial[i], got[j]) == 0;
            cr_expect_eq(c, 1, "N=%d: %s ran %d times", n, serial[i], c);
        }
        cr_expect_eq(items, st.items);
        cr_expect_eq(digest, st.digest, "N=%d: digests do not add up", n);
    }
    kc_proc_free(&s);
}

Test(shard, list_shard_shows_the_slice)
{
    char *args[] = { "list", "fixture.pass.*", "--shard", "1/5", NULL };
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 0);
    cr_expect(strstr(p.out, "fixture.pass.01\n") && strstr(p.out, "fixture.pass.06\n") &&
              strstr(p.out, "fixture.pass.11\n"), "%s", p.out);
    cr_expect(!strstr(p.out, "fixture.pass.00\n"), "%s", p.out);
    cr_expect(strstr(p.out, "3 items"), "%s", p.out);
    kc_proc_free(&p);
}

/* Each refusal exits 2 and names the value. */
static void refused(char **args, const char *expect)
{
    kc_proc p = fixture(args);
    cr_expect_eq(p.status, 2, "%s: exit %d\n%s", args[1], p.status, p.out);
    cr_expect(strstr(p.err, expect), "want '%s' in stderr:\n%s", expect, p.err);
    cr_expect(!strstr(p.out, "TALLY"), "a refusal runs nothing:\n%s", p.out);
    kc_proc_free(&p);
}

Test(shard, argument_refusals_name_the_value)
{
    char *a1[] = { "run", "--shard", "1/4x", NULL };
    refused(a1, "--shard: expected K/N with 0 <= K < N <= 4096 (e.g. 0/4), got '1/4x'");
    char *a2[] = { "run", "--shard", "4/4", NULL };
    refused(a2, "got '4/4'");
    char *a3[] = { "run", "--shard", "0/0", NULL };
    refused(a3, "N must be at least 1, got '0/0'");
    char *a4[] = { "run", "--jobs", "0", NULL };
    refused(a4, "--jobs: expected a number of processes from 1 to 4096, got '0'");
    char *a5[] = { "run", "--jobs", "two", NULL };
    refused(a5, "got 'two'");
    char *a6[] = { "run", "--jobs", "3", "--shard", "1/4", "--schedule", "static", NULL };
    refused(a6, "--schedule static and --shard 1/4 do not combine");
    char *a7[] = { "run", "--devices", "0,2", NULL };
    refused(a7, "--devices 0,2 needs --jobs");
    char *a8[] = { "run", "--jobs", "2", "--devices", "0,x", NULL };
    refused(a8, "--devices: expected distinct device ordinals from 0 to 1023 separated by commas (e.g. 0,2,3), got '0,x'");
    char *a9[] = { "list", "--jobs", "2", NULL };
    refused(a9, "--jobs applies to run and mutate only");
    char *a10[] = { "run", "--shard", NULL };
    refused(a10, "--shard needs a value");
}
