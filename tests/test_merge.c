/* test_merge.c — the merge of shard outcomes, without processes: shards built
 * from item names through the real TALLY writer and parser merge into the
 * serial tally; every refusal (missing, repeated or double-run shard, no
 * TALLY, two, malformed, another shard/N/seed/filter/binary, an exit status
 * the counts do not explain, item sets that do not add up, shards on
 * different devices or run with other options that change verdicts) fails
 * the merge and names the shard. Also the line
 * splitter's 64 KiB cut. */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "linebuf.h"
#include "merge.h"
#include "shard.h"
#include "tally.h"

#define NITEMS 10
#define SEED 7
#define FILTER 0x1111222233334444ULL
#define BINARY 0x5555666677778888ULL

static const char *const NAMES[NITEMS] = {
    "a.f16", "a.f16:control.x", "a.f16:limits", "b.f32", "b.f32:control.y",
    "b.f32:limits", "host.lint", "host.x", "z.bf16", "z.bf16:limits",
};

/* What item i does in these tests: kernels pass, controls go red, limits
 * pass, suites pass except host.x which fails. */
static void add_item(kc_tally *t, int i)
{
    const char *n = NAMES[i];
    if (strstr(n, ":control.")) kc_tally_add(t, KC_KIND_CONTROL, KC_RED);
    else if (strstr(n, ":limits")) kc_tally_add(t, KC_KIND_LIMIT, KC_PASS);
    else if (strncmp(n, "host.", 5) == 0) kc_tally_add(t, KC_KIND_SUITE, strcmp(n, "host.x") ? KC_PASS : KC_FAIL);
    else kc_tally_add(t, KC_KIND_KERNEL, KC_PASS);
    t->items++;
    t->digest += kc_item_digest(n);
}

static void identity(kc_tally *t, int k, int n)
{
    t->seed = SEED;
    t->filter = FILTER;
    t->build = BINARY;
    t->shard_k = k;
    t->shard_n = n;
}

/* The tally shard k of n would print. */
static void shard_tally(kc_tally *t, int k, int n)
{
    kc_tally_init(t);
    identity(t, k, n);
    for (int i = 0; i < NITEMS; i++)
        if (kc_shard_of(i, n) == k) add_item(t, i);
}

/* Feeds t to s as its stdout would carry it: formatted, then parsed. */
static void feed_tally(kc_shard_out *s, const kc_tally *t)
{
    char line[4096];
    cr_assert_gt(kc_tally_format(t, line, sizeof line), 0);
    kc_shard_out_line(s, "PASS   a.f16  gates 1-4 passed  (0.10 s)", 0);
    kc_shard_out_line(s, line, 0);
    kc_shard_out_line(s, "SUMMARY ...", 0);
}

/* Shard k of n that ran its slice, printed its TALLY and exited as its counts explain. */
static void good_out(kc_shard_out *s, int k, int n)
{
    kc_tally t;
    shard_tally(&t, k, n);
    kc_shard_out_init(s, k);
    feed_tally(s, &t);
    kc_shard_out_ended(s, W_EXITCODE(kc_tally_exit_status(&t), 0));
}

typedef struct want_buf {
    kc_merge_want w;
    long items[64];
    uint64_t digest[64];
} want_buf;

static void want_for(want_buf *b, int n)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < NITEMS; i++) {
        uint64_t d = kc_item_digest(NAMES[i]);
        b->items[kc_shard_of(i, n)]++;
        b->digest[kc_shard_of(i, n)] += d;
        b->w.digest += d;
    }
    b->w.n = n;
    b->w.seed = SEED;
    b->w.filter = FILTER;
    b->w.build = BINARY;
    b->w.items = NITEMS;
    b->w.slice_items = b->items;
    b->w.slice_digest = b->digest;
}

static char err[16384];

/* Merges n good shards after `spoil` changes them; returns the problem count. */
static int merge(kc_shard_out *outs, int nout, int n, kc_tally *out)
{
    want_buf b;
    want_for(&b, n);
    return kc_merge(&b.w, outs, nout, out, err, sizeof err);
}

Test(merge, shards_merge_to_the_serial_tally)
{
    for (int n = 1; n <= 13; n++) {
        kc_shard_out outs[13];
        for (int k = 0; k < n; k++) good_out(&outs[k], k, n);
        kc_tally merged, serial;
        int rc = merge(outs, n, n, &merged);
        cr_assert_eq(rc, 0, "n=%d: %s", n, err);
        shard_tally(&serial, 0, 1);
        cr_expect(kc_tally_counts_equal(&merged, &serial), "n=%d: merged tally differs from the serial one", n);
        cr_expect_eq(merged.shard_k, 0);
        cr_expect_eq(merged.shard_n, 1);
        cr_expect_eq(kc_tally_exit_status(&merged), 1, "host.x fails");
    }
}

Test(merge, order_of_results_does_not_matter)
{
    kc_shard_out outs[3];
    good_out(&outs[0], 2, 3);
    good_out(&outs[1], 0, 3);
    good_out(&outs[2], 1, 3);
    kc_tally merged;
    cr_expect_eq(merge(outs, 3, 3, &merged), 0, "%s", err);
}

Test(merge, missing_shard_refused)
{
    kc_shard_out outs[2];
    good_out(&outs[0], 0, 3);
    good_out(&outs[1], 2, 3);
    kc_tally merged;
    kc_tally_init(&merged);
    merged.items = 12345;
    cr_expect_gt(merge(outs, 2, 3, &merged), 0);
    cr_expect(strstr(err, "shard 1/3: missing"), "%s", err);
    cr_expect_eq(merged.items, 12345, "a refused merge must not write the result");
}

Test(merge, shard_run_twice_refused)
{
    kc_shard_out outs[4];
    for (int k = 0; k < 3; k++) good_out(&outs[k], k, 3);
    good_out(&outs[3], 1, 3);
    kc_tally merged;
    cr_expect_gt(merge(outs, 4, 3, &merged), 0);
    cr_expect(strstr(err, "shard 1/3: ran more than once (2 results)"), "%s", err);
}

Test(merge, result_for_a_shard_beyond_n_refused)
{
    kc_shard_out outs[3];
    for (int k = 0; k < 2; k++) good_out(&outs[k], k, 2);
    good_out(&outs[2], 2, 3);
    kc_tally merged;
    cr_expect_gt(merge(outs, 3, 2, &merged), 0);
    cr_expect(strstr(err, "a result for shard 2, but the run has shards 0..1"), "%s", err);
}

Test(merge, two_tally_lines_refused)
{
    kc_shard_out outs[3];
    for (int k = 0; k < 3; k++) good_out(&outs[k], k, 3);
    kc_tally t;
    shard_tally(&t, 1, 3);
    feed_tally(&outs[1], &t);           /* the same, well-formed TALLY again */
    kc_tally merged;
    cr_expect_gt(merge(outs, 3, 3, &merged), 0);
    cr_expect(strstr(err, "shard 1/3: printed 2 TALLY lines"), "%s", err);
}

Test(merge, double_run_item_refused)
{
    /* Shard 1 also ran item 0 (shard 0's): its set and the sums are off. */
    kc_shard_out outs[3];
    good_out(&outs[0], 0, 3);
    good_out(&outs[2], 2, 3);
    kc_tally t;
    shard_tally(&t, 1, 3);
    add_item(&t, 0);
    kc_shard_out_init(&outs[1], 1);
    feed_tally(&outs[1], &t);
    kc_shard_out_ended(&outs[1], W_EXITCODE(kc_tally_exit_status(&t), 0));
    kc_tally merged;
    cr_expect_gt(merge(outs, 3, 3, &merged), 0);
    cr_expect(strstr(err, "shard 1/3: ran 4 items"), "%s", err);
    cr_expect(strstr(err, "its slice is 3 items"), "%s", err);

    /* Without per-slice expectations the sums still catch it. */
    want_buf b;
    want_for(&b, 3);
    b.w.slice_items = NULL;
    b.w.slice_digest = NULL;
    cr_expect_gt(kc_merge(&b.w, outs, 3, &merged, err, sizeof err), 0);
    cr_expect(strstr(err, "item sets do not add up to the filtered set: 11 items"), "%s", err);
}

Test(merge, swapped_items_caught_by_digest)
{
    /* Same item counts, other items: only the digest can tell. */
    kc_shard_out outs[2];
    good_out(&outs[0], 0, 2);
    kc_tally t;
    kc_tally_init(&t);
    identity(&t, 1, 2);
    for (int i = 0; i < NITEMS; i += 2) add_item(&t, i);   /* shard 0's items, not its own */
    kc_shard_out_init(&outs[1], 1);
    feed_tally(&outs[1], &t);
    kc_shard_out_ended(&outs[1], W_EXITCODE(kc_tally_exit_status(&t), 0));
    want_buf b;
    want_for(&b, 2);
    b.w.slice_items = NULL;
    b.w.slice_digest = NULL;
    kc_tally merged;
    cr_expect_gt(kc_merge(&b.w, outs, 2, &merged, err, sizeof err), 0);
    cr_expect(strstr(err, "do not add up"), "%s", err);
}

/* Shard 1 of 3 prints a TALLY with one identity field changed. */
static void check_identity_refused(void (*spoil)(kc_tally *), const char *expect)
{
    kc_shard_out outs[3];
    good_out(&outs[0], 0, 3);
    good_out(&outs[2], 2, 3);
    kc_tally t;
    shard_tally(&t, 1, 3);
    spoil(&t);
    kc_shard_out_init(&outs[1], 1);
    feed_tally(&outs[1], &t);
    kc_shard_out_ended(&outs[1], W_EXITCODE(kc_tally_exit_status(&t), 0));
    kc_tally merged;
    cr_expect_gt(merge(outs, 3, 3, &merged), 0, "spoiled TALLY merged (expected '%s')", expect);
    cr_expect(strstr(err, "shard 1/3: ") && strstr(err, expect), "want '%s' in:\n%s", expect, err);
}

static void other_shard(kc_tally *t) { t->shard_k = 2; }
static void other_n(kc_tally *t) { t->shard_n = 4; }
static void other_seed(kc_tally *t) { t->seed = 8; }
static void other_filter(kc_tally *t) { t->filter ^= 1; }
static void other_binary(kc_tally *t) { t->build ^= 1; }

Test(merge, tally_for_another_shard_n_seed_filter_binary_refused)
{
    check_identity_refused(other_shard, "its TALLY is for shard 2/3");
    check_identity_refused(other_n, "its TALLY is for shard 1/4");
    check_identity_refused(other_seed, "its TALLY is for seed 8, the run's is 7: give the merge the --seed the shards ran (--seed 8)");
    check_identity_refused(other_filter, "its TALLY is for filter 1111222233334445");
    check_identity_refused(other_binary, "its TALLY is from build 5555666677778889");
}

/* The host code and the CUDA environment a shard ran (TALLY host=, env=):
 * another is refused, naming both values and both shards; a shard that does
 * not say its host code (host=0: not known) is not held to it, but env=0
 * says none was set, which another shard's CUDA_FORCE_PTX_JIT differs from. */
static void other_host(kc_tally *t) { t->host = 0x1111222233334444ull; }
static void other_env(kc_tally *t) { t->env = 0x5555666677778888ull; }
static void host_everywhere(kc_tally *t) { t->host = 0xaaaabbbbccccddddull; }

Test(merge, shards_that_ran_other_host_code_or_cuda_environment_refused)
{
    check_identity_refused(other_env, "shard 1/3: ran under CUDA environment 5555666677778888, shard 0/3 under "
                           "0000000000000000 (TALLY env=");
    kc_shard_out outs[3];
    for (int k = 0; k < 3; k++) {
        kc_tally t;
        shard_tally(&t, k, 3);
        if (k != 1) host_everywhere(&t);
        else other_host(&t);
        kc_shard_out_init(&outs[k], k);
        feed_tally(&outs[k], &t);
        kc_shard_out_ended(&outs[k], W_EXITCODE(kc_tally_exit_status(&t), 0));
    }
    kc_tally merged;
    cr_expect_gt(merge(outs, 3, 3, &merged), 0, "shards of other host code merged");
    cr_expect(strstr(err, "shard 1/3: ran host code 1111222233334444, shard 0/3 host code aaaabbbbccccdddd (TALLY "
                     "host="), "%s", err);
    for (int k = 0; k < 3; k++) {       /* shard 1 does not say it: not known, not held to it */
        kc_tally t;
        shard_tally(&t, k, 3);
        if (k != 1) host_everywhere(&t);
        other_env(&t);
        kc_shard_out_init(&outs[k], k);
        feed_tally(&outs[k], &t);
        kc_shard_out_ended(&outs[k], W_EXITCODE(kc_tally_exit_status(&t), 0));
    }
    cr_assert_eq(merge(outs, 3, 3, &merged), 0, "%s", err);
    cr_expect_eq(merged.host, 0xaaaabbbbccccddddull);
    cr_expect_eq(merged.env, 0x5555666677778888ull);
    char line[4096];
    cr_assert_gt(kc_tally_format(&merged, line, sizeof line), 0);
    cr_expect(strstr(line, " host=aaaabbbbccccdddd env=5555666677778888"), "%s", line);
}

/* The run options that change verdicts (TALLY block=, reference=,
 * timeout=): a shard run with other ones than the rest is refused, naming
 * the option, both values and both shards. */
static void block_128(kc_tally *t) { t->block_size = 128; }
static void reference_host(kc_tally *t) { t->reference = KC_REF_HOST; }
static void timeout_100(kc_tally *t) { t->timeout_s = 100; }

Test(merge, shards_run_with_other_options_that_change_verdicts_refused)
{
    check_identity_refused(block_128, "shard 1/3: ran with --block-size 128 (block=128), shard 0/3 with no --block-size, "
                           "every launch variant (block=0): shards merge only when run with the same --block-size");
    check_identity_refused(reference_host, "shard 1/3: ran with --reference host (reference=host), shard 0/3 with "
                           "--reference device (reference=device): shards merge only when run with the same --reference");
    check_identity_refused(timeout_100, "shard 1/3: ran with --timeout 100 (timeout=100), shard 0/3 with no --timeout, "
                           "each item's own time limit (timeout=0): shards merge only when run with the same --timeout");
}

/* Shards that agree on them merge, and the merged TALLY says them. */
Test(merge, shards_run_with_the_same_options_merge_with_them)
{
    kc_shard_out outs[3];
    for (int k = 0; k < 3; k++) {
        kc_tally t;
        shard_tally(&t, k, 3);
        block_128(&t);
        reference_host(&t);
        timeout_100(&t);
        kc_shard_out_init(&outs[k], k);
        feed_tally(&outs[k], &t);
        kc_shard_out_ended(&outs[k], W_EXITCODE(kc_tally_exit_status(&t), 0));
    }
    kc_tally merged;
    cr_assert_eq(merge(outs, 3, 3, &merged), 0, "%s", err);
    cr_expect_eq(merged.block_size, 128);
    cr_expect_eq(merged.reference, KC_REF_HOST);
    cr_expect_eq(merged.timeout_s, 100);
    char line[4096];
    cr_assert_gt(kc_tally_format(&merged, line, sizeof line), 0);
    cr_expect(strstr(line, " block=128 reference=host timeout=100 "), "%s", line);
}

Test(merge, exit_status_not_explained_refused)
{
    kc_shard_out outs[2];
    good_out(&outs[0], 0, 2);
    good_out(&outs[1], 1, 2);
    /* Shard 1 holds host.x (index 7, odd), which fails: its counts explain 1. */
    kc_shard_out_ended(&outs[1], W_EXITCODE(0, 0));
    kc_tally merged;
    cr_expect_gt(merge(outs, 2, 2, &merged), 0);
    cr_expect(strstr(err, "shard 1/2: exit status 0, but its counts explain 1"), "%s", err);
    kc_shard_out_ended(&outs[1], W_EXITCODE(4, 0));
    cr_expect_gt(merge(outs, 2, 2, &merged), 0);
    cr_expect(strstr(err, "shard 1/2: exit status 4, but its counts explain 1"), "%s", err);
}

Test(merge, malformed_tally_refused_with_reason_never_zero)
{
    static const struct { const char *line, *why; } bad[] = {
        { "TALLY v=4 kernel.pass=zero", "malformed TALLY: bad number 'zero' for kernel.pass" },
        { "TALLY v=5 kernel.pass=0", "malformed TALLY: version 5 not supported (want 4): written by a newer kcontract" },
        { "TALLY v=3 kernel.pass=0", "malformed TALLY: version 3 not supported (want 4): written by an older kcontract" },
        { "TALLY v=2 kernel.pass=0", "malformed TALLY: version 2 not supported (want 4)" },
        { "TALLY v=1 kernel.pass=0", "malformed TALLY: version 1 not supported" },
        { "TALLY", "malformed TALLY: not a TALLY line" },
        { "TALLY v=4", "malformed TALLY: missing key kernel.pass" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kc_shard_out outs[2];
        good_out(&outs[0], 0, 2);
        kc_shard_out_init(&outs[1], 1);
        kc_shard_out_line(&outs[1], bad[i].line, 0);
        kc_shard_out_ended(&outs[1], W_EXITCODE(0, 0));
        kc_tally merged;
        cr_expect_gt(merge(outs, 2, 2, &merged), 0, "'%s' merged", bad[i].line);
        cr_expect(strstr(err, "shard 1/2: ") && strstr(err, bad[i].why), "'%s': want '%s' in\n%s", bad[i].line,
                  bad[i].why, err);
    }
}

Test(merge, cut_tally_line_refused)
{
    kc_shard_out outs[1];
    kc_shard_out_init(&outs[0], 0);
    kc_shard_out_line(&outs[0], "TALLY v=4 kernel.pass=1", 1);
    kc_shard_out_ended(&outs[0], W_EXITCODE(0, 0));
    kc_tally merged;
    cr_expect_gt(merge(outs, 1, 1, &merged), 0);
    cr_expect(strstr(err, "shard 0/1: malformed TALLY: a TALLY line longer than the parent keeps (cut)"), "%s", err);
}

Test(merge, crashed_shard_refused)
{
    kc_shard_out outs[3];
    for (int k = 0; k < 3; k++) good_out(&outs[k], k, 3);
    kc_shard_out_init(&outs[2], 2);
    kc_shard_out_line(&outs[2], "PASS   a.f16  gates 1-4 passed  (0.10 s)", 0);
    kc_shard_out_ended(&outs[2], W_EXITCODE(0, SIGSEGV));
    kc_tally merged;
    cr_expect_gt(merge(outs, 3, 3, &merged), 0);
    cr_expect(strstr(err, "shard 2/3: no TALLY: killed by signal 11 (SIGSEGV)"), "%s", err);
    cr_expect(!kc_shard_out_finished(&outs[2]));
}

Test(merge, killed_after_its_tally_did_not_finish)
{
    kc_shard_out outs[1];
    kc_tally t;
    shard_tally(&t, 0, 1);
    kc_shard_out_init(&outs[0], 0);
    feed_tally(&outs[0], &t);
    outs[0].stopped = 1;
    kc_shard_out_ended(&outs[0], W_EXITCODE(0, SIGTERM));
    kc_tally merged;
    cr_expect_gt(merge(outs, 1, 1, &merged), 0);
    cr_expect(strstr(err, "shard 0/1: did not finish: killed by signal 15 (SIGTERM) after kcontract stopped it"), "%s", err);
}

Test(merge, silent_shard_refused)
{
    kc_shard_out outs[2];
    good_out(&outs[0], 0, 2);
    kc_shard_out_init(&outs[1], 1);
    kc_shard_out_ended(&outs[1], W_EXITCODE(0, 0));
    kc_tally merged;
    cr_expect_gt(merge(outs, 2, 2, &merged), 0);
    cr_expect(strstr(err, "shard 1/2: no TALLY: exited with status 0 without a TALLY"), "%s", err);
}

Test(merge, failing_gates_are_a_finished_shard)
{
    kc_shard_out s;
    good_out(&s, 1, 2);             /* host.x fails: exit 1, explained */
    cr_expect(kc_shard_out_finished(&s));
    cr_expect_eq(s.status, 1);
}

Test(merge, shards_on_different_devices_refused)
{
    kc_shard_out outs[2];
    for (int k = 0; k < 2; k++) {
        kc_tally t;
        shard_tally(&t, k, 2);
        snprintf(t.device, sizeof t.device, "%s", k ? "NVIDIA H100" : "NVIDIA H200");
        t.cc_major = 9;
        t.sm_count = k ? 114 : 132;
        kc_shard_out_init(&outs[k], k);
        feed_tally(&outs[k], &t);
        kc_shard_out_ended(&outs[k], W_EXITCODE(kc_tally_exit_status(&t), 0));
    }
    kc_tally merged;
    cr_expect_gt(merge(outs, 2, 2, &merged), 0);
    cr_expect(strstr(err, "shard 1/2: ran on 'NVIDIA H100' (cc 9.0, 114 SMs), shard 0/2 on 'NVIDIA H200'"), "%s", err);
}

Test(merge, device_taken_from_the_shards_that_used_one)
{
    /* Shard 0 ran GPU items on an H200; shard 1 only host suites ("none"). */
    kc_shard_out outs[2];
    for (int k = 0; k < 2; k++) {
        kc_tally t;
        shard_tally(&t, k, 2);
        if (k == 0) {
            snprintf(t.device, sizeof t.device, "NVIDIA H200");
            t.cc_major = 9;
            t.sm_count = 132;
        }
        kc_shard_out_init(&outs[k], k);
        feed_tally(&outs[k], &t);
        kc_shard_out_ended(&outs[k], W_EXITCODE(kc_tally_exit_status(&t), 0));
    }
    kc_tally merged;
    cr_assert_eq(merge(outs, 2, 2, &merged), 0, "%s", err);
    cr_expect_str_eq(merged.device, "NVIDIA H200");
    cr_expect_eq(merged.sm_count, 132);
}

Test(merge, merged_tally_round_trips)
{
    kc_shard_out outs[4];
    for (int k = 0; k < 4; k++) good_out(&outs[k], k, 4);
    kc_tally merged, back;
    cr_assert_eq(merge(outs, 4, 4, &merged), 0, "%s", err);
    char line[4096], why[256];
    cr_assert_gt(kc_tally_format(&merged, line, sizeof line), 0);
    cr_assert_eq(kc_tally_parse(line, &back, why, sizeof why), 0, "%s", why);
    cr_expect(kc_tally_counts_equal(&merged, &back));
    cr_expect(strstr(line, " shard=0/1 "), "%s", line);
}

/* ---- linebuf: the 64 KiB cut ---- */

typedef struct seen {
    int lines;
    size_t len[8], cut[8];
    char first[8][16];
} seen;

static void collect(void *ctx, const char *line, size_t len, size_t cut)
{
    seen *s = ctx;
    if (s->lines < 8) {
        s->len[s->lines] = len;
        s->cut[s->lines] = cut;
        snprintf(s->first[s->lines], sizeof s->first[0], "%s", line);
        cr_expect_eq(strlen(line), len, "the kept part is NUL-terminated at len");
    }
    s->lines++;
}

Test(linebuf, long_line_cut_and_stream_goes_on)
{
    kc_linebuf lb;
    cr_assert_eq(kc_linebuf_init(&lb), 0);
    seen s = { 0 };
    size_t big = 3u << 20;
    char *data = malloc(big);
    cr_assert(data);
    memset(data, 'x', big);
    memcpy(data, "TALLY-ish", 9);
    /* The long line arrives in uneven pieces, then a whole line, then one without '\n'. */
    size_t off = 0, step = 1000;
    while (off < big) {
        size_t n = big - off < step ? big - off : step;
        kc_linebuf_feed(&lb, data + off, n, collect, &s);
        off += n;
        step = step * 3 + 7;
    }
    kc_linebuf_feed(&lb, "\nnext line\nlast", 15, collect, &s);
    cr_expect_eq(s.lines, 2);
    kc_linebuf_flush(&lb, collect, &s);
    cr_assert_eq(s.lines, 3);
    cr_expect_eq(s.len[0], KC_LINE_MAX);
    cr_expect_eq(s.cut[0], big - KC_LINE_MAX);
    cr_expect_str_eq(s.first[0], "TALLY-ishxxxxxx");
    cr_expect_eq(s.len[1], 9);
    cr_expect_eq(s.cut[1], 0, "the line after a cut one is whole");
    cr_expect_str_eq(s.first[1], "next line");
    cr_expect_str_eq(s.first[2], "last");
    free(data);
    kc_linebuf_free(&lb);
}

Test(linebuf, exactly_64k_is_whole_one_more_is_cut)
{
    kc_linebuf lb;
    cr_assert_eq(kc_linebuf_init(&lb), 0);
    seen s = { 0 };
    char *data = malloc(KC_LINE_MAX + 2);
    cr_assert(data);
    memset(data, 'y', KC_LINE_MAX + 1);
    data[KC_LINE_MAX] = '\n';
    kc_linebuf_feed(&lb, data, KC_LINE_MAX + 1, collect, &s);
    data[KC_LINE_MAX] = 'y';
    data[KC_LINE_MAX + 1] = '\n';
    kc_linebuf_feed(&lb, data, KC_LINE_MAX + 2, collect, &s);
    kc_linebuf_flush(&lb, collect, &s);
    cr_assert_eq(s.lines, 2);
    cr_expect_eq(s.len[0], KC_LINE_MAX);
    cr_expect_eq(s.cut[0], 0);
    cr_expect_eq(s.len[1], KC_LINE_MAX);
    cr_expect_eq(s.cut[1], 1);
    free(data);
    kc_linebuf_free(&lb);
}

/* Found by fuzz_mergelog: two shards whose TALLY counts pass LONG_MAX
 * together (forged lines) were summed with signed overflow; the merge now
 * refuses, naming the shard. */
Test(merge, counts_that_overflow_together_are_refused)
{
    kc_shard_out outs[2];
    for (int k = 0; k < 2; k++) {
        kc_tally t;
        shard_tally(&t, k, 2);
        t.n[KC_KIND_KERNEL][KC_PASS] = LONG_MAX - 1;
        kc_shard_out_init(&outs[k], k);
        feed_tally(&outs[k], &t);
        kc_shard_out_ended(&outs[k], W_EXITCODE(kc_tally_exit_status(&t), 0));
    }
    kc_tally merged;
    cr_expect_gt(merge(outs, 2, 2, &merged), 0);
    cr_expect(strstr(err, "shard 1/2: its counts cannot be added to the other shards' (they pass 9223372036854775807)"),
              "%s", err);
}
