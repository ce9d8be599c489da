/* test_tally.c — the TALLY line: exact round trips of random tallies, every
 * refusal with an error that names the key and value, arithmetic (add,
 * merge, digest), the exit status and the SUMMARY wording. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "seed.h"
#include "tally.h"

/* A small deterministic stream for random tallies. */
static uint64_t rnd(uint64_t *s) { *s += 0x9e3779b97f4a7c15ULL; return kc_mix64(*s); }

static const struct { kc_kind k; kc_state s; } PAIRS[] = {
    { KC_KIND_KERNEL, KC_PASS }, { KC_KIND_KERNEL, KC_FAIL }, { KC_KIND_KERNEL, KC_KNOWN },
    { KC_KIND_KERNEL, KC_LEAK }, { KC_KIND_LIMIT, KC_LEAK }, { KC_KIND_SUITE, KC_LEAK },
    { KC_KIND_KERNEL, KC_SKIP }, { KC_KIND_KERNEL, KC_CRASH }, { KC_KIND_KERNEL, KC_TIMEOUT },
    { KC_KIND_KERNEL, KC_NOTRUN }, { KC_KIND_CONTROL, KC_RED }, { KC_KIND_CONTROL, KC_MISSED },
    { KC_KIND_CONTROL, KC_SKIP }, { KC_KIND_CONTROL, KC_CRASH }, { KC_KIND_CONTROL, KC_TIMEOUT },
    { KC_KIND_CONTROL, KC_NOTRUN }, { KC_KIND_LIMIT, KC_PASS }, { KC_KIND_LIMIT, KC_LIMIT },
    { KC_KIND_LIMIT, KC_SKIP }, { KC_KIND_LIMIT, KC_CRASH }, { KC_KIND_LIMIT, KC_TIMEOUT },
    { KC_KIND_LIMIT, KC_NOTRUN }, { KC_KIND_SUITE, KC_PASS }, { KC_KIND_SUITE, KC_FAIL },
    { KC_KIND_SUITE, KC_SKIP }, { KC_KIND_SUITE, KC_CRASH }, { KC_KIND_SUITE, KC_TIMEOUT },
    { KC_KIND_SUITE, KC_NOTRUN }, { KC_KIND_SANITIZE, KC_PASS }, { KC_KIND_SANITIZE, KC_FAIL },
    { KC_KIND_SANITIZE, KC_LEAK }, { KC_KIND_SANITIZE, KC_SKIP }, { KC_KIND_SANITIZE, KC_CRASH },
    { KC_KIND_SANITIZE, KC_TIMEOUT }, { KC_KIND_SANITIZE, KC_NOTRUN },
};
#define NPAIRS (sizeof PAIRS / sizeof PAIRS[0])

static void random_tally(kc_tally *t, uint64_t *s) {
    kc_tally_init(t);
    for (size_t i = 0; i < NPAIRS; i++) {
        uint64_t r = rnd(s);
        t->n[PAIRS[i].k][PAIRS[i].s] = (r & 1) ? (long)(r >> 1) % 1000 : (long)(r >> 2);
    }
    t->limit_problems = (long)(rnd(s) % 100);
    t->stale = (long)(rnd(s) % 3);
    t->items = (long)(rnd(s) >> 1);
    t->seed = rnd(s);
    snprintf(t->device, sizeof t->device, "NVIDIA H200 %%=x\t\x7f\xc3\xa9 #%u", (unsigned)(rnd(s) % 100));
    t->cc_major = (int)(rnd(s) % 13);
    t->cc_minor = (int)(rnd(s) % 10);
    t->sm_count = (int)(rnd(s) % 200);
    t->digest = rnd(s);
    t->shard_n = 1 + (int)(rnd(s) % 64);
    t->shard_k = (int)(rnd(s) % (uint64_t)t->shard_n);
    t->filter = rnd(s);
    t->build = rnd(s);
    t->costs = rnd(s);
    t->block_size = (unsigned)(rnd(s) % (KC_TALLY_MAX_BLOCK + 1));
    t->reference = (kc_ref_mode)(rnd(s) % 3);
    static const double timeouts[] = { 0, 0.5, 0.1, 30, 1e-5, 1e-20, 1e7, 2.25, 1.0 / 3 };
    t->timeout_s = timeouts[rnd(s) % (sizeof timeouts / sizeof timeouts[0])];
    t->untrusted = rnd(s) % 4 == 0 ? (long)(rnd(s) % 3) : 0;
    t->host = rnd(s) % 2 ? rnd(s) : 0;
    t->env = rnd(s) % 2 ? rnd(s) : 0;
}

/* A valid line to corrupt in the refusal tests. */
static void good_line(char *buf, size_t cap) {
    kc_tally t;
    kc_tally_init(&t);
    t.n[KC_KIND_KERNEL][KC_PASS] = 41;
    t.n[KC_KIND_KERNEL][KC_KNOWN] = 1;
    t.items = 42;
    t.seed = 7;
    strcpy(t.device, "NVIDIA H200");
    t.cc_major = 9;
    t.sm_count = 132;
    t.digest = 0x0123456789abcdefULL;
    cr_assert_gt(kc_tally_format(&t, buf, cap), 0);
}

/* Replaces the first occurrence of `from` in line with `to`. */
static void subst(char *line, const char *from, const char *to) {
    char tmp[4096];
    char *p = strstr(line, from);
    cr_assert_not_null(p, "'%s' not in the line", from);
    snprintf(tmp, sizeof tmp, "%.*s%s%s", (int)(p - line), line, to, p + strlen(from));
    strcpy(line, tmp);
}

/* Parsing must fail with an error containing every given fragment. */
static void refused(const char *line, const char *frag1, const char *frag2) {
    kc_tally t;
    char err[256] = "";
    cr_assert_eq(kc_tally_parse(line, &t, err, sizeof err), -1, "accepted: %s", line);
    cr_assert_not_null(strstr(err, frag1), "error '%s' does not name '%s'", err, frag1);
    if (frag2) cr_assert_not_null(strstr(err, frag2), "error '%s' does not name '%s'", err, frag2);
}

Test(tally, format_exact_text) {
    char line[4096];
    good_line(line, sizeof line);
    cr_assert_str_eq(line,
        "TALLY v=4 kernel.pass=41 kernel.fail=0 kernel.known=1 kernel.leak=0 kernel.skip=0 kernel.crash=0 "
        "kernel.timeout=0 kernel.notrun=0 control.red=0 control.missed=0 control.skip=0 "
        "control.crash=0 control.timeout=0 control.notrun=0 limit.pass=0 limit.fail=0 limit.leak=0 "
        "limit.skip=0 limit.crash=0 limit.timeout=0 limit.notrun=0 limit.problems=0 "
        "suite.pass=0 suite.fail=0 suite.leak=0 suite.skip=0 suite.crash=0 suite.timeout=0 suite.notrun=0 "
        "sanitize.pass=0 sanitize.fail=0 sanitize.leak=0 sanitize.skip=0 sanitize.crash=0 sanitize.timeout=0 "
        "sanitize.notrun=0 "
        "stale=0 items=42 seed=7 device=NVIDIA%20H200 cc=9.0 sms=132 digest=0123456789abcdef "
        "shard=0/1 filter=0000000000000000 build=0000000000000000 costs=0000000000000000 "
        "block=0 reference=device timeout=0 cached=0");
}

Test(tally, round_trip_random) {
    uint64_t s = 1;
    for (int i = 0; i < 500; i++) {
        kc_tally a, b;
        char line[4096], again[4096], err[256];
        random_tally(&a, &s);
        int n = kc_tally_format(&a, line, sizeof line);
        cr_assert_gt(n, 0);
        cr_assert_eq((size_t)n, strlen(line));
        cr_assert_eq(kc_tally_parse(line, &b, err, sizeof err), 0, "%s: %s", err, line);
        cr_assert_eq(memcmp(a.n, b.n, sizeof a.n), 0);
        cr_assert(kc_tally_counts_equal(&a, &b));
        cr_assert_str_eq(a.device, b.device);
        cr_assert_eq(a.shard_k, b.shard_k);
        cr_assert_eq(a.shard_n, b.shard_n);
        cr_assert_eq(kc_tally_format(&b, again, sizeof again), n);
        cr_assert_str_eq(line, again);
        /* No spaces inside values: exactly one field per key. */
        size_t spaces = 0;
        for (char *p = line; *p; p++) spaces += *p == ' ';
        /* TALLY, v=4 and 51 keys: one space before each; sanitize.known, untrusted, host and env only when nonzero */
        cr_assert_eq(spaces, 52 + (a.n[KC_KIND_SANITIZE][KC_KNOWN] != 0) + (a.untrusted != 0) + (a.host != 0) +
                                 (a.env != 0));
        cr_assert_eq(b.host, a.host);
        cr_assert_eq(b.env, a.env);
        cr_assert_eq(b.untrusted, a.untrusted);
        cr_assert_eq(b.block_size, a.block_size);
        cr_assert_eq(b.reference, a.reference);
        cr_assert_eq(b.timeout_s, a.timeout_s, "timeout %.17g read back as %.17g: %s", a.timeout_s, b.timeout_s, line);
    }
}

Test(tally, device_encoding) {
    kc_tally t, u;
    char line[4096], err[256];
    kc_tally_init(&t);
    strcpy(t.device, "A 100%=ok\x01");
    cr_assert_gt(kc_tally_format(&t, line, sizeof line), 0);
    cr_assert_not_null(strstr(line, " device=A%20100%25%3Dok%01 "));
    cr_assert_eq(kc_tally_parse(line, &u, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(u.device, "A 100%=ok\x01");
    kc_tally_init(&t);
    cr_assert_gt(kc_tally_format(&t, line, sizeof line), 0);
    cr_assert_not_null(strstr(line, " device=none "));
}

Test(tally, parse_accepts_trailing_newline_and_any_order) {
    char line[4096], err[256];
    kc_tally t;
    good_line(line, sizeof line);
    strcat(line, "\n");
    cr_assert_eq(kc_tally_parse(line, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n[KC_KIND_KERNEL][KC_PASS], 41);
    cr_assert_eq(t.cc_major, 9);
    cr_assert_str_eq(t.device, "NVIDIA H200");
    good_line(line, sizeof line);
    subst(line, "kernel.pass=41 ", "");
    strcat(line, " kernel.pass=41");
    cr_assert_eq(kc_tally_parse(line, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n[KC_KIND_KERNEL][KC_PASS], 41);
}

Test(tally, refuses_missing_key) {
    char line[4096];
    good_line(line, sizeof line);
    subst(line, " sms=132", "");
    refused(line, "missing key sms", NULL);
}

Test(tally, refuses_duplicate_key) {
    char line[4096];
    good_line(line, sizeof line);
    strcat(line, " seed=7");
    refused(line, "duplicate key seed", NULL);
}

Test(tally, refuses_unknown_key) {
    char line[4096];
    good_line(line, sizeof line);
    subst(line, "kernel.known=1", "kernel.red=1");
    refused(line, "unknown key kernel.red", NULL);
}

Test(tally, refuses_bad_numbers) {
    char line[4096];
    const char *bad[] = { "12x", "-1", "+1", "", " 1", "007", "99999999999999999999999" };
    const char *want[] = { "'12x'", "'-1'", "'+1'", "''", "''", "'007'", "'99999999999999999999999'" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char to[64];
        good_line(line, sizeof line);
        snprintf(to, sizeof to, "items=%s", bad[i]);
        subst(line, "items=42", to);
        refused(line, "bad number", want[i]);
        refused(line, "for items", NULL);
    }
    good_line(line, sizeof line);
    subst(line, "seed=7", "seed=18446744073709551616");              /* 2^64 */
    refused(line, "bad number '18446744073709551616' for seed", NULL);
    good_line(line, sizeof line);
    subst(line, "seed=7", "seed=18446744073709551615");              /* 2^64 - 1 is fine */
    kc_tally t;
    char err[256];
    cr_assert_eq(kc_tally_parse(line, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.seed, UINT64_MAX);
    good_line(line, sizeof line);
    subst(line, "kernel.pass=41", "kernel.pass=");
    refused(line, "bad number '' for kernel.pass", NULL);
}

Test(tally, refuses_bad_hex) {
    char line[4096];
    good_line(line, sizeof line);
    subst(line, "digest=0123456789abcdef", "digest=0123456789abcdeg");
    refused(line, "bad hex '0123456789abcdeg' for digest", NULL);
    good_line(line, sizeof line);
    subst(line, "build=0000000000000000", "build=000000000000000");
    refused(line, "build", "'000000000000000'");
    good_line(line, sizeof line);
    subst(line, "filter=0000000000000000", "filter=00000000000000000");
    refused(line, "filter", "'00000000000000000'");
}

Test(tally, refuses_bad_shard_and_cc) {
    char line[4096];
    const char *bad[] = { "3/3", "1/0", "0/0", "4/3", "1", "1/", "/2", "1/2/3", "-1/2" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char to[64], frag[64];
        good_line(line, sizeof line);
        snprintf(to, sizeof to, "shard=%s", bad[i]);
        snprintf(frag, sizeof frag, "'%s' for shard", bad[i]);
        subst(line, "shard=0/1", to);
        refused(line, "bad shard", frag);
    }
    const char *badcc[] = { "9", "9.", ".0", "9.0.1", "x.0", "9,0" };
    for (size_t i = 0; i < sizeof badcc / sizeof badcc[0]; i++) {
        char to[64], frag[64];
        good_line(line, sizeof line);
        snprintf(to, sizeof to, "cc=%s", badcc[i]);
        snprintf(frag, sizeof frag, "'%s' for cc", badcc[i]);
        subst(line, "cc=9.0", to);
        refused(line, "bad cc", frag);
    }
}

Test(tally, refuses_bad_device) {
    char line[4096];
    good_line(line, sizeof line);
    subst(line, "NVIDIA%20H200", "NVIDIA%2");
    refused(line, "bad device", "for device");
    good_line(line, sizeof line);
    subst(line, "NVIDIA%20H200", "NVIDIA%00H200");
    refused(line, "bad device", NULL);
    good_line(line, sizeof line);
    subst(line, "NVIDIA%20H200", "a=b");
    refused(line, "bad device 'a=b'", NULL);
}

Test(tally, refuses_version_prefix_truncation_and_junk) {
    char line[4096];
    good_line(line, sizeof line);
    subst(line, "v=4", "v=1");      /* before the .leak keys: refused, not read with them as zeros */
    refused(line, "version 1 not supported", NULL);
    good_line(line, sizeof line);
    subst(line, "v=4", "v=2");      /* binary= instead of build=, no costs= */
    refused(line, "version 2 not supported (want 4)", NULL);
    /* before block=, reference= and timeout=: never read as a run with the
     * default options (a shard run with --block-size would pass for one
     * without), refused as an older kcontract's */
    good_line(line, sizeof line);
    subst(line, "v=4", "v=3");
    subst(line, " block=0 reference=device timeout=0", "");
    refused(line, "version 3 not supported (want 4): written by an older kcontract", "block=, reference=, timeout=");
    good_line(line, sizeof line);
    subst(line, "v=4", "v=5");
    refused(line, "version 5 not supported (want 4): written by a newer kcontract", NULL);
    good_line(line, sizeof line);
    subst(line, "v=4 ", "");
    refused(line, "missing version", NULL);
    good_line(line, sizeof line);
    subst(line, "TALLY ", "TALY ");
    refused(line, "TALLY", NULL);
    good_line(line, sizeof line);
    refused(line + 1, "TALLY", NULL);
    /* Truncated in the middle of a value, and after a whole field. */
    good_line(line, sizeof line);
    *strstr(line, " block=") = 0;       /* the line ends with costs= then */
    line[strlen(line) - 3] = 0;
    refused(line, "bad hex", "for costs");
    good_line(line, sizeof line);
    *strstr(line, " sms=") = 0;
    refused(line, "missing key sms", NULL);
    /* Junk after the last field. */
    good_line(line, sizeof line);
    strcat(line, " junk");
    refused(line, "junk", NULL);
    good_line(line, sizeof line);
    strcat(line, " ");
    refused(line, "empty field", NULL);
    good_line(line, sizeof line);
    strcat(line, "\n\n");
    refused(line, "for cached", NULL);
    refused("", "TALLY", NULL);
    refused("TALLY ", "missing version", NULL);
}

Test(tally, parse_error_leaves_tally_untouched) {
    char line[4096], err[64];
    kc_tally t;
    kc_tally_init(&t);
    t.items = 99;
    good_line(line, sizeof line);
    subst(line, "sms=132", "sms=x");
    cr_assert_eq(kc_tally_parse(line, &t, err, sizeof err), -1);
    cr_assert_eq(t.items, 99);
    cr_assert_eq(kc_tally_parse(line, &t, NULL, 0), -1);   /* no error buffer: still refused */
}

Test(tally, format_refuses_unwritable_tallies) {
    char line[4096];
    kc_tally t;
    kc_tally_init(&t);
    t.n[KC_KIND_KERNEL][KC_RED] = 1;                      /* no key for it */
    cr_assert_eq(kc_tally_format(&t, line, sizeof line), -1);
    kc_tally_init(&t);
    t.n[KC_KIND_KERNEL][KC_PASS] = -1;
    cr_assert_eq(kc_tally_format(&t, line, sizeof line), -1);
    kc_tally_init(&t);
    t.shard_k = 2;
    t.shard_n = 2;
    cr_assert_eq(kc_tally_format(&t, line, sizeof line), -1);
    kc_tally_init(&t);
    cr_assert_eq(kc_tally_format(&t, line, 100), -1);      /* does not fit */
    int n = kc_tally_format(&t, line, sizeof line);
    cr_assert_eq(kc_tally_format(&t, line, (size_t)n + 1), n);
    cr_assert_eq(kc_tally_format(&t, line, (size_t)n), -1);
}

Test(tally, add_merge_digest) {
    kc_tally a, b;
    kc_tally_init(&a);
    kc_tally_init(&b);
    kc_tally_add(&a, KC_KIND_KERNEL, KC_PASS);
    kc_tally_add(&a, KC_KIND_LIMIT, KC_FAIL);              /* a limit FAIL is counted as LIMIT */
    cr_assert_eq(a.n[KC_KIND_LIMIT][KC_LIMIT], 1);
    cr_assert_eq(a.n[KC_KIND_LIMIT][KC_FAIL], 0);
    cr_assert_eq(a.digest, 0);
    a.digest = kc_item_digest("x.f16");
    a.items = 2;
    b.digest = UINT64_MAX;
    b.items = 1;
    b.stale = 1;
    b.limit_problems = 3;
    kc_tally_add(&b, KC_KIND_KERNEL, KC_PASS);
    cr_assert_eq(kc_tally_merge(&a, &b), 0);
    cr_assert_eq(a.n[KC_KIND_KERNEL][KC_PASS], 2);
    cr_assert_eq(a.items, 3);
    cr_assert_eq(a.stale, 1);
    cr_assert_eq(a.limit_problems, 3);
    cr_assert_eq(a.digest, kc_item_digest("x.f16") - 1);   /* wraps mod 2^64 */
    cr_assert_eq(kc_item_digest("x.f16"), kc_mix64(kc_hash_str("x.f16")));
    /* The digest of a set does not depend on order; shards sum to the whole. */
    uint64_t d1 = kc_item_digest("a") + kc_item_digest("b"), d2 = kc_item_digest("b") + kc_item_digest("a");
    cr_assert_eq(d1, d2);
    /* Found by fuzz_mergelog: counts that pass LONG_MAX together (forged
     * TALLY lines) were added with signed overflow; now refused, a unchanged. */
    kc_tally big = a, before = a;
    big.n[KC_KIND_KERNEL][KC_PASS] = LONG_MAX;      /* a holds 2 */
    cr_assert_eq(kc_tally_merge(&a, &big), -1);
    cr_assert(kc_tally_counts_equal(&a, &before));
    big = a;
    big.items = LONG_MAX;
    cr_assert_eq(kc_tally_merge(&a, &big), -1);
}

Test(tally, counts_equal_ignores_only_shard) {
    kc_tally a, b;
    uint64_t s = 77;
    random_tally(&a, &s);
    b = a;
    b.shard_k = 0;
    b.shard_n = 1;
    cr_assert(kc_tally_counts_equal(&a, &b));
    b = a; b.digest ^= 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.filter ^= 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.build ^= 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.seed ^= 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.cc_minor ^= 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.sm_count ^= 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.device[0] ^= 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.limit_problems++; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.stale++; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.items++; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.n[KC_KIND_SUITE][KC_NOTRUN]++; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.block_size ^= 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.reference = (kc_ref_mode)((a.reference + 1) % 3); cr_assert_not(kc_tally_counts_equal(&a, &b));
    b = a; b.timeout_s += 1; cr_assert_not(kc_tally_counts_equal(&a, &b));
}

/* The run options: each value written one way, every other spelling refused
 * naming the key. */
Test(tally, run_options_round_trip_and_refusals) {
    char line[4096], err[256];
    kc_tally t, u;
    kc_tally_init(&t);
    t.block_size = 128;
    t.reference = KC_REF_HOST;
    t.timeout_s = 0.5;
    cr_assert_gt(kc_tally_format(&t, line, sizeof line), 0);
    cr_assert(strstr(line, " block=128 reference=host timeout=0.5 "), "%s", line);
    cr_assert_eq(kc_tally_parse(line, &u, err, sizeof err), 0, "%s", err);
    cr_assert_eq(u.block_size, 128);
    cr_assert_eq(u.reference, KC_REF_HOST);
    cr_assert_eq(u.timeout_s, 0.5);
    const struct { const char *from, *to, *why; } bad[] = {
        { "block=128", "block=1025", "bad block size (0 to 1024) '1025' for block" },
        { "block=128", "block=0128", "'0128' for block" },
        { "block=128", "block=all", "'all' for block" },
        { "reference=host", "reference=gpu", "bad reference (device, host or both) 'gpu' for reference" },
        { "reference=host", "reference=", "'' for reference" },
        { "timeout=0.5", "timeout=-1", "bad seconds '-1' for timeout" },
        { "timeout=0.5", "timeout=0.50", "bad seconds '0.50' for timeout" },
        { "timeout=0.5", "timeout=5e-1", "bad seconds '5e-1' for timeout" },
        { "timeout=0.5", "timeout=nan", "bad seconds 'nan' for timeout" },
        { "timeout=0.5", "timeout=-0", "bad seconds '-0' for timeout" },
        { "timeout=0.5", "timeout=10000001", "bad seconds '10000001' for timeout" },   /* above --timeout's 1e7 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char b[4096];
        snprintf(b, sizeof b, "%s", line);
        subst(b, bad[i].from, bad[i].to);
        refused(b, bad[i].why, NULL);
    }
    t.block_size = KC_TALLY_MAX_BLOCK + 1;                  /* not a block size: not written */
    cr_assert_eq(kc_tally_format(&t, line, sizeof line), -1);
    t.block_size = 0;
    t.timeout_s = -1;
    cr_assert_eq(kc_tally_format(&t, line, sizeof line), -1);
    t.timeout_s = 2e7;
    cr_assert_eq(kc_tally_format(&t, line, sizeof line), -1);
}

Test(tally, exit_status) {
    kc_tally t;
    kc_tally_init(&t);
    cr_assert_eq(kc_tally_exit_status(&t), 0);
    t.n[KC_KIND_KERNEL][KC_PASS] = 5;
    t.n[KC_KIND_KERNEL][KC_KNOWN] = 2;
    t.n[KC_KIND_CONTROL][KC_RED] = 3;
    t.n[KC_KIND_LIMIT][KC_PASS] = 5;
    t.n[KC_KIND_SUITE][KC_PASS] = 1;
    cr_assert_eq(kc_tally_exit_status(&t), 0);               /* known findings are not failures */
    t.n[KC_KIND_SUITE][KC_SKIP] = 1;
    cr_assert_eq(kc_tally_exit_status(&t), 3);
    const struct { kc_kind k; kc_state s; } fails[] = {
        { KC_KIND_KERNEL, KC_FAIL }, { KC_KIND_CONTROL, KC_MISSED }, { KC_KIND_LIMIT, KC_LIMIT },
        { KC_KIND_SUITE, KC_FAIL }, { KC_KIND_KERNEL, KC_CRASH }, { KC_KIND_CONTROL, KC_TIMEOUT },
        { KC_KIND_LIMIT, KC_NOTRUN }, { KC_KIND_KERNEL, KC_LEAK }, { KC_KIND_LIMIT, KC_LEAK },
        { KC_KIND_SUITE, KC_LEAK },
    };
    for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++) {
        kc_tally u = t;
        u.n[fails[i].k][fails[i].s] = 1;
        cr_assert_eq(kc_tally_exit_status(&u), 1, "%s %s", kc_kind_name(fails[i].k), kc_state_name(fails[i].s));
    }
    kc_tally u = t;
    u.stale = 1;
    cr_assert_eq(kc_tally_exit_status(&u), 1);
}

Test(tally, summary_wording) {
    kc_tally t;
    char buf[512];
    kc_tally_init(&t);
    t.n[KC_KIND_KERNEL][KC_PASS] = 41;
    t.n[KC_KIND_KERNEL][KC_KNOWN] = 1;
    t.n[KC_KIND_CONTROL][KC_RED] = 30;
    t.n[KC_KIND_LIMIT][KC_PASS] = 40;
    t.n[KC_KIND_LIMIT][KC_LIMIT] = 2;
    t.limit_problems = 4;   /* one check can have several problems */
    t.n[KC_KIND_SUITE][KC_PASS] = 3;
    int n = kc_summary_format(&t, buf, sizeof buf);
    cr_assert_eq((size_t)n, strlen(buf));
    cr_assert_str_eq(buf, "SUMMARY 42 kernels: 41 pass gates 1-4, 0 fail, 1 known finding; "
                          "30 controls: 30 red as planted, 0 missed; 42 limit checks: 40 pass, 2 with problems (4 problems); "
                          "0 sanitizer checks: 0 clean, 0 with errors; 3 suites: 3 pass, 0 fail");
    t.n[KC_KIND_KERNEL][KC_KNOWN] = 2;
    t.n[KC_KIND_KERNEL][KC_SKIP] = 3;
    t.n[KC_KIND_CONTROL][KC_SKIP] = 2;
    t.n[KC_KIND_KERNEL][KC_CRASH] = 1;
    t.n[KC_KIND_SUITE][KC_TIMEOUT] = 1;
    t.n[KC_KIND_LIMIT][KC_NOTRUN] = 3;
    t.n[KC_KIND_SUITE][KC_FAIL] = 1;
    t.n[KC_KIND_KERNEL][KC_LEAK] = 1;
    t.n[KC_KIND_SUITE][KC_LEAK] = 1;
    t.stale = 1;
    kc_summary_format(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "SUMMARY 48 kernels: 41 pass gates 1-4, 0 fail, 2 known findings; "
                          "32 controls: 30 red as planted, 0 missed; 45 limit checks: 40 pass, 2 with problems (4 problems); "
                          "0 sanitizer checks: 0 clean, 0 with errors; 6 suites: 3 pass, 1 fail; 2 left processes or GPU state behind; 5 skipped; "
                          "1 crashed; 1 timed out; 3 not run; 1 stale known finding");
    kc_tally_init(&t);
    t.n[KC_KIND_KERNEL][KC_PASS] = 1;
    t.n[KC_KIND_CONTROL][KC_MISSED] = 1;
    t.n[KC_KIND_LIMIT][KC_LIMIT] = 1;
    t.limit_problems = 1;
    t.n[KC_KIND_SUITE][KC_PASS] = 1;
    t.n[KC_KIND_SUITE][KC_FAIL] = 2;
    t.stale = 2;
    kc_summary_format(&t, buf, sizeof buf);
    cr_assert_str_eq(buf, "SUMMARY 1 kernel: 1 pass gates 1-4, 0 fail, 0 known findings; "
                          "1 control: 0 red as planted, 1 missed; 1 limit check: 0 pass, 1 with problems (1 problem); "
                          "0 sanitizer checks: 0 clean, 0 with errors; 3 suites: 1 pass, 2 fail; 2 stale known findings");
    cr_assert_eq(kc_summary_format(&t, buf, 20), -1);
    kc_tally_init(&t);
    t.n[KC_KIND_LIMIT][KC_PASS] = 3;
    kc_summary_format(&t, buf, sizeof buf);
    cr_assert(strstr(buf, "; 3 limit checks: 3 pass, 0 with problems; "), "no problems, none counted: %s", buf);
}

/* untrusted= (a run whose sanitizer sessions could not vouch): written
 * only when nonzero, absent reading 0, summed by a merge, never green, and
 * said by the SUMMARY; so a merge of shards is not green where one shard
 * was not, whatever their counts. */
Test(tally, untrusted_runs_are_never_green_and_merge) {
    kc_tally a, b, m;
    char line[4096], err[256];
    kc_tally_init(&a);
    a.n[KC_KIND_SANITIZE][KC_PASS] = 3;
    cr_assert_gt(kc_tally_format(&a, line, sizeof line), 0);
    cr_assert_null(strstr(line, "untrusted="), "written when zero: %s", line);
    cr_assert_eq(kc_tally_parse(line, &b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(b.untrusted, 0);
    b.untrusted = 1;
    cr_assert_eq(kc_tally_exit_status(&a), 0);
    cr_assert_eq(kc_tally_exit_status(&b), 1, "every item clean, but the sessions could not vouch");
    cr_assert_not(kc_tally_counts_equal(&a, &b));
    cr_assert_gt(kc_tally_format(&b, line, sizeof line), 0);
    cr_assert_not_null(strstr(line, " untrusted=1"), "%s", line);
    cr_assert_eq(kc_tally_parse(line, &m, err, sizeof err), 0, "%s", err);
    cr_assert_eq(m.untrusted, 1);
    m = a;
    cr_assert_eq(kc_tally_merge(&m, &b), 0);
    cr_assert_eq(kc_tally_merge(&m, &b), 0);
    cr_assert_eq(m.untrusted, 2);
    cr_assert_eq(kc_tally_exit_status(&m), 1);
    char sum[512];
    kc_summary_format(&b, sum, sizeof sum);
    cr_assert_not_null(strstr(sum, "; not trusted (a line above says why)"), "%s", sum);
    kc_summary_format(&m, sum, sizeof sum);
    cr_assert_not_null(strstr(sum, "; not trusted in 2 shards (their lines say why)"), "%s", sum);
    refused("TALLY v=4 untrusted=x", "untrusted", NULL);
}

Test(tally, names) {
    cr_assert_str_eq(kc_kind_name(KC_KIND_KERNEL), "kernel");
    cr_assert_str_eq(kc_kind_name(KC_KIND_CONTROL), "control");
    cr_assert_str_eq(kc_kind_name(KC_KIND_LIMIT), "limit");
    cr_assert_str_eq(kc_kind_name(KC_KIND_SUITE), "suite");
    cr_assert_str_eq(kc_state_name(KC_PASS), "PASS");
    cr_assert_str_eq(kc_state_name(KC_MISSED), "MISSED");
    cr_assert_str_eq(kc_state_name(KC_NOTRUN), "NOTRUN");
    cr_assert_str_eq(kc_state_name(KC_LEAK), "LEAK");
    cr_assert(kc_state_failed(KC_LEAK), "LEAK fails a run");
    cr_assert_not(kc_state_failed(KC_KNOWN));
    cr_assert_str_eq(kc_state_name(KC_STATE_COUNT), "?");
    for (int s = 0; s < KC_STATE_COUNT; s++)
        cr_expect_eq(kc_state_parse(kc_state_name((kc_state)s)), s, "%s does not parse back", kc_state_name((kc_state)s));
    cr_expect_eq(kc_state_parse("pass"), -1);
}

/* One answer per state (state.h): the exit status a lone item of that state
 * gives agrees with the table's fails/skips, a failing state is a JUnit
 * failure or error and a passing one never is, and one legend has one colour.
 * NOTRUN (where four places disagreed) fails, is an <error>, is not measured
 * and is not drawn in SKIP's grey. */
Test(tally, state_table_one_answer_per_state) {
    for (int s = 0; s < KC_STATE_COUNT; s++) {
        const kc_state_info *si = kc_state_info_of((kc_state)s);
        kc_tally t;
        kc_tally_init(&t);
        t.n[KC_KIND_SUITE][s] = 1;
        int want = si->fails ? 1 : si->skips ? 3 : 0;
        cr_expect_eq(kc_tally_exit_status(&t), want, "%s: exit %d, the table says %d", si->name,
                     kc_tally_exit_status(&t), want);
        int bad = si->junit == KC_JUNIT_FAILURE || si->junit == KC_JUNIT_ERROR;
        cr_expect_eq(bad, si->fails, "%s: JUnit %d disagrees with fails=%d", si->name, (int)si->junit, si->fails);
        char sum[512];
        cr_assert_gt(kc_summary_format(&t, sum, sizeof sum), 0);
        if (si->summary) cr_expect(strstr(sum, si->summary), "%s: SUMMARY lacks '%s': %s", si->name, si->summary, sum);
        for (int e = 0; e < s; e++) {
            const kc_state_info *ei = kc_state_info_of((kc_state)e);
            if (strcmp(ei->legend, si->legend) == 0)
                cr_expect_str_eq(ei->colour, si->colour, "%s and %s share a legend, not a colour", ei->name, si->name);
        }
    }
    const kc_state_info *nr = kc_state_info_of(KC_NOTRUN);
    cr_expect(nr->fails && !nr->measured && nr->junit == KC_JUNIT_ERROR);
    cr_expect_str_neq(nr->colour, kc_state_info_of(KC_SKIP)->colour, "NOTRUN drawn as a SKIP");
    cr_expect(kc_state_info_of((kc_state)99)->fails, "an unknown state must not read green");
}
