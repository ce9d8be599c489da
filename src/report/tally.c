/* tally.c — owns the TALLY line (writer and strict parser), tally arithmetic,
 * the exit status the counts explain and the SUMMARY line (what each state
 * counts as: state.h).
 *
 * TALLY v=4 then, in this fixed order:
 *   kernel.pass kernel.fail kernel.known kernel.leak kernel.skip kernel.crash
 *   kernel.timeout kernel.notrun
 *   control.red control.missed control.skip control.crash control.timeout
 *   control.notrun
 *   limit.pass limit.fail limit.leak limit.skip limit.crash limit.timeout
 *   limit.notrun limit.problems
 *   suite.pass suite.fail suite.leak suite.skip suite.crash suite.timeout
 *   suite.notrun
 *   sanitize.pass sanitize.fail sanitize.leak sanitize.skip sanitize.crash
 *   sanitize.timeout sanitize.notrun
 *   stale items seed device cc sms digest shard filter build costs
 *   block reference timeout cached
 * (v=2 added the three .leak keys, issue 13; v=3 the sanitize.* keys of the
 * :sanitize items, issue 12, and replaced binary= (a hash of the binary's
 * bytes) with build= (build_id.h) and added costs=, issue 14; v=4 block=,
 * reference= and timeout=, the run options that change verdicts, so that a
 * merge refuses shards run with different ones; lines of other versions are
 * refused, naming their version: a v=3 line read with the v=4 keys as their
 * defaults would let a shard run with --block-size pass for one without.)
 * cached= (issue 23: items reused from the results cache) is written always
 * and optional on read, absent reading 0 (it was added within v=3); so is
 * sanitize.known after it (issue 25: a :sanitize item whose report is a
 * registered gate-5 finding), written only when nonzero, and untrusted=
 * after it (the runs whose compute-sanitizer sessions could not vouch for
 * their clean verdicts: a merge of shards must not read green where a shard
 * did not), written only when nonzero; then host= and env= (the host code
 * and the CUDA environment the run ran under: kc_tally_set_host_env), each
 * written only when nonzero and optional on read (host= absent: not known,
 * which a merge does not compare; env= absent: none set).
 * Counts, stale, items, seed and sms are canonical decimals (digits only, no
 * sign, no leading zeros); device is percent-encoded (bytes <= ' ', >= 0x7f,
 * '%' and '=' as %XX); cc is "major.minor"; shard is "K/N" with K < N;
 * digest, filter, build and costs are 16 hex digits; block is a canonical
 * decimal up to 1024 (0: no --block-size); reference is device, host or
 * both; timeout is the --timeout seconds in the shortest decimal that reads
 * back as the same double (0: no --timeout).
 *
 * Kind/state pairs: a limit item in state KC_LIMIT is limit.fail (and
 * kc_tally_add maps limit FAIL to KC_LIMIT). Any other pair not in the list
 * (e.g. a kernel RED) cannot be written: kc_tally_format returns -1. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "seed.h"
#include "cuda_env.h"
#include "errmsg.h"
#include "host_code.h"
#include "run_options.h"
#include "strbuf.h"
#include "strict_num.h"
#include "tally.h"

/* ---- the key table ---- */

typedef enum ktype { K_COUNT, K_LONG, K_U64, K_DEVICE, K_CC, K_INT, K_HEX, K_SHARD, K_BLOCK, K_REF, K_SECONDS } ktype;

typedef struct key {
    const char *name;
    ktype type;
    int kind, state;          /* K_COUNT */
    size_t off;               /* the field, for the others */
} key;

#define CNT(n, k, s) { n, K_COUNT, k, s, 0 }
#define FLD(n, t, f) { n, t, 0, 0, offsetof(kc_tally, f) }

static const key KEYS[] = {
    CNT("kernel.pass", KC_KIND_KERNEL, KC_PASS), CNT("kernel.fail", KC_KIND_KERNEL, KC_FAIL),
    CNT("kernel.known", KC_KIND_KERNEL, KC_KNOWN), CNT("kernel.leak", KC_KIND_KERNEL, KC_LEAK),
    CNT("kernel.skip", KC_KIND_KERNEL, KC_SKIP),
    CNT("kernel.crash", KC_KIND_KERNEL, KC_CRASH), CNT("kernel.timeout", KC_KIND_KERNEL, KC_TIMEOUT),
    CNT("kernel.notrun", KC_KIND_KERNEL, KC_NOTRUN),
    CNT("control.red", KC_KIND_CONTROL, KC_RED), CNT("control.missed", KC_KIND_CONTROL, KC_MISSED),
    CNT("control.skip", KC_KIND_CONTROL, KC_SKIP), CNT("control.crash", KC_KIND_CONTROL, KC_CRASH),
    CNT("control.timeout", KC_KIND_CONTROL, KC_TIMEOUT), CNT("control.notrun", KC_KIND_CONTROL, KC_NOTRUN),
    CNT("limit.pass", KC_KIND_LIMIT, KC_PASS), CNT("limit.fail", KC_KIND_LIMIT, KC_LIMIT),
    CNT("limit.leak", KC_KIND_LIMIT, KC_LEAK),
    CNT("limit.skip", KC_KIND_LIMIT, KC_SKIP), CNT("limit.crash", KC_KIND_LIMIT, KC_CRASH),
    CNT("limit.timeout", KC_KIND_LIMIT, KC_TIMEOUT), CNT("limit.notrun", KC_KIND_LIMIT, KC_NOTRUN),
    FLD("limit.problems", K_LONG, limit_problems),
    CNT("suite.pass", KC_KIND_SUITE, KC_PASS), CNT("suite.fail", KC_KIND_SUITE, KC_FAIL),
    CNT("suite.leak", KC_KIND_SUITE, KC_LEAK),
    CNT("suite.skip", KC_KIND_SUITE, KC_SKIP), CNT("suite.crash", KC_KIND_SUITE, KC_CRASH),
    CNT("suite.timeout", KC_KIND_SUITE, KC_TIMEOUT), CNT("suite.notrun", KC_KIND_SUITE, KC_NOTRUN),
    CNT("sanitize.pass", KC_KIND_SANITIZE, KC_PASS), CNT("sanitize.fail", KC_KIND_SANITIZE, KC_FAIL),
    CNT("sanitize.leak", KC_KIND_SANITIZE, KC_LEAK),
    CNT("sanitize.skip", KC_KIND_SANITIZE, KC_SKIP), CNT("sanitize.crash", KC_KIND_SANITIZE, KC_CRASH),
    CNT("sanitize.timeout", KC_KIND_SANITIZE, KC_TIMEOUT), CNT("sanitize.notrun", KC_KIND_SANITIZE, KC_NOTRUN),
    FLD("stale", K_LONG, stale), FLD("items", K_LONG, items), FLD("seed", K_U64, seed),
    FLD("device", K_DEVICE, device), FLD("cc", K_CC, cc_major), FLD("sms", K_INT, sm_count),
    FLD("digest", K_HEX, digest), FLD("shard", K_SHARD, shard_k),
    FLD("filter", K_HEX, filter), FLD("build", K_HEX, build), FLD("costs", K_HEX, costs),
    FLD("block", K_BLOCK, block_size), FLD("reference", K_REF, reference), FLD("timeout", K_SECONDS, timeout_s),
    FLD("cached", K_LONG, cached),
    CNT("sanitize.known", KC_KIND_SANITIZE, KC_KNOWN),
    FLD("untrusted", K_LONG, untrusted),
    FLD("host", K_HEX, host), FLD("env", K_HEX, env),
};
/* Keys a line may leave out (absent: 0): added within v=3 (cached=,
 * sanitize.known=, untrusted=) or v=4 (host=, env=); block=, reference= and
 * timeout= are not: they made v=4. */
static int key_optional(const key *k)
{
    return strcmp(k->name, "cached") == 0 || strcmp(k->name, "sanitize.known") == 0 ||
           strcmp(k->name, "untrusted") == 0 || strcmp(k->name, "host") == 0 || strcmp(k->name, "env") == 0;
}
#define NKEYS (sizeof KEYS / sizeof KEYS[0])

/* Nonzero when (k, s) has a key of its own. */
static int pair_listed(int k, int s) {
    for (size_t i = 0; i < NKEYS; i++)
        if (KEYS[i].type == K_COUNT && KEYS[i].kind == k && KEYS[i].state == s) return 1;
    return 0;
}

/* ---- arithmetic ---- */

void kc_tally_init(kc_tally *t) {
    memset(t, 0, sizeof *t);
    strcpy(t->device, "none");
    t->shard_n = 1;
}

void kc_tally_set_options(kc_tally *t, const kc_opts *o) {
    t->block_size = o->block_size;
    t->reference = o->reference;
    t->timeout_s = o->timeout_s;
}

void kc_tally_set_host_env(kc_tally *t) {
    char why[256];
    if (kc_host_code_identity(&t->host, why, sizeof why)) t->host = 0;
    t->env = kc_cuda_env_hash();
}

void kc_tally_add(kc_tally *t, kc_kind k, kc_state s) {
    if (k < 0 || k >= KC_KIND_COUNT || s < 0 || s >= KC_STATE_COUNT) return;
    if (k == KC_KIND_LIMIT && s == KC_FAIL) s = KC_LIMIT;
    t->n[k][s]++;
}

int kc_tally_merge(kc_tally *a, const kc_tally *b) {
    kc_tally r = *a;
    int over = 0;
    for (int k = 0; k < KC_KIND_COUNT; k++)
        for (int s = 0; s < KC_STATE_COUNT; s++) over |= __builtin_add_overflow(r.n[k][s], b->n[k][s], &r.n[k][s]);
    over |= __builtin_add_overflow(r.limit_problems, b->limit_problems, &r.limit_problems);
    over |= __builtin_add_overflow(r.stale, b->stale, &r.stale);
    over |= __builtin_add_overflow(r.items, b->items, &r.items);
    over |= __builtin_add_overflow(r.cached, b->cached, &r.cached);
    over |= __builtin_add_overflow(r.untrusted, b->untrusted, &r.untrusted);
    if (over) return -1;
    r.digest += b->digest;           /* mod 2^64 */
    *a = r;
    return 0;
}

uint64_t kc_item_digest(const char *name) { return kc_mix64(kc_hash_str(name)); }

uint64_t kc_item_set_digest(const kc_item *it)
{
    uint64_t d = kc_item_digest(it->name);
    if (!it->record || !it->contract || !it->contract->shapes) return d;
    const kc_shape *s = &it->contract->shapes[0];
    return kc_mix64(d ^ kc_fnv1a64(s->d, sizeof s->d, KC_FNV_OFFSET));
}

int kc_tally_counts_equal(const kc_tally *a, const kc_tally *b) {
    return memcmp(a->n, b->n, sizeof a->n) == 0 && a->limit_problems == b->limit_problems &&
           a->stale == b->stale && a->items == b->items && a->seed == b->seed &&
           strcmp(a->device, b->device) == 0 && a->cc_major == b->cc_major &&
           a->cc_minor == b->cc_minor && a->sm_count == b->sm_count && a->digest == b->digest &&
           a->filter == b->filter && a->build == b->build && a->block_size == b->block_size &&
           a->reference == b->reference && a->timeout_s == b->timeout_s && !a->untrusted == !b->untrusted &&
           a->host == b->host && a->env == b->env;
}

/* Sum over kinds of state s. */
static long state_total(const kc_tally *t, kc_state s) {
    long n = 0;
    for (int k = 0; k < KC_KIND_COUNT; k++) n += t->n[k][s];
    return n;
}

static long kind_total(const kc_tally *t, kc_kind k) {
    long n = 0;
    for (int s = 0; s < KC_STATE_COUNT; s++) n += t->n[k][s];
    return n;
}

/* Whether any kind has an item in state s (no sum: counts near LONG_MAX stay defined). */
static int state_any(const kc_tally *t, kc_state s) {
    for (int k = 0; k < KC_KIND_COUNT; k++)
        if (t->n[k][s]) return 1;
    return 0;
}

int kc_tally_exit_status(const kc_tally *t) {
    int skipped = 0;
    if (t->stale || t->limit_problems || t->untrusted) return 1;
    for (int s = 0; s < KC_STATE_COUNT; s++) {
        if (!state_any(t, (kc_state)s)) continue;
        if (kc_state_failed((kc_state)s)) return 1;
        skipped |= kc_state_info_of((kc_state)s)->skips;
    }
    return skipped ? 3 : 0;
}

/* ---- writing ---- */

static int needs_escape(unsigned char c) { return c <= ' ' || c >= 0x7f || c == '%' || c == '='; }

static void put_device(kc_strbuf *o, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (needs_escape(*p)) kc_sb_printf(o, "%%%02X", *p);
        else kc_sb_printf(o, "%c", *p);
    }
}

/* The shortest "%.Nf" (N decimals, 0..17) of s that strtod reads back as s,
 * else "%.17g" (a value so small it needs an exponent): one spelling per
 * double, so a line round-trips and the parser can hold it to it. */
static void seconds_text(double s, char *buf, size_t cap)
{
    if (s == 0) {               /* -0 too: one spelling */
        snprintf(buf, cap, "0");
        return;
    }
    for (int d = 0; d <= 17; d++) {
        snprintf(buf, cap, "%.*f", d, s);
        if (strtod(buf, NULL) == s) return;
    }
    snprintf(buf, cap, "%.17g", s);
}

/* A valid timeout= value: 0 (no --timeout) or what --timeout takes. */
static int seconds_ok(double s) { return s == 0 || (s > 0 && s <= KC_TALLY_MAX_TIMEOUT_S); }

/* Writes one key's value; returns -1 when the struct holds an unwritable value. */
static int put_value(kc_strbuf *o, const kc_tally *t, const key *k) {
    const char *base = (const char *)t + k->off;
    long l;
    int i;
    uint64_t u;
    switch (k->type) {
    case K_COUNT:
        if ((l = t->n[k->kind][k->state]) < 0) return -1;
        kc_sb_printf(o, "%ld", l);
        break;
    case K_LONG:
        memcpy(&l, base, sizeof l);
        if (l < 0) return -1;
        kc_sb_printf(o, "%ld", l);
        break;
    case K_U64:
        memcpy(&u, base, sizeof u);
        kc_sb_printf(o, "%llu", (unsigned long long)u);
        break;
    case K_HEX:
        memcpy(&u, base, sizeof u);
        kc_sb_printf(o, "%016llx", (unsigned long long)u);
        break;
    case K_INT:
        memcpy(&i, base, sizeof i);
        if (i < 0) return -1;
        kc_sb_printf(o, "%d", i);
        break;
    case K_DEVICE:
        if (memchr(t->device, 0, sizeof t->device) == NULL) return -1;
        put_device(o, t->device);
        break;
    case K_CC:
        if (t->cc_major < 0 || t->cc_minor < 0) return -1;
        kc_sb_printf(o, "%d.%d", t->cc_major, t->cc_minor);
        break;
    case K_SHARD:
        if (t->shard_n < 1 || t->shard_k < 0 || t->shard_k >= t->shard_n) return -1;
        kc_sb_printf(o, "%d/%d", t->shard_k, t->shard_n);
        break;
    case K_BLOCK:
        if (t->block_size > KC_TALLY_MAX_BLOCK) return -1;
        kc_sb_printf(o, "%u", t->block_size);
        break;
    case K_REF:
        if (t->reference != KC_REF_DEVICE && t->reference != KC_REF_HOST && t->reference != KC_REF_BOTH) return -1;
        kc_sb_printf(o, "%s", kc_ref_mode_name(t->reference));
        break;
    case K_SECONDS: {
        char s[64];
        if (!seconds_ok(t->timeout_s)) return -1;
        seconds_text(t->timeout_s, s, sizeof s);
        kc_sb_printf(o, "%s", s);
        break;
    }
    }
    return 0;
}

int kc_tally_format(const kc_tally *t, char *buf, size_t cap) {
    for (int k = 0; k < KC_KIND_COUNT; k++)
        for (int s = 0; s < KC_STATE_COUNT; s++)
            if (t->n[k][s] != 0 && !pair_listed(k, s)) return -1;
    kc_strbuf o;
    kc_sb_init(&o, buf, cap);
    kc_sb_printf(&o, "TALLY v=%d", KC_TALLY_VERSION);
    for (size_t i = 0; i < NKEYS; i++) {
        /* sanitize.known, added within v=3, only when nonzero: the lines
         * of runs without it read as before */
        if (KEYS[i].type == K_COUNT && KEYS[i].state == KC_KNOWN && KEYS[i].kind == KC_KIND_SANITIZE &&
            !t->n[KC_KIND_SANITIZE][KC_KNOWN])
            continue;
        if (KEYS[i].type == K_LONG && KEYS[i].off == offsetof(kc_tally, untrusted) && !t->untrusted) continue;
        if (KEYS[i].off == offsetof(kc_tally, host) && !t->host) continue;
        if (KEYS[i].off == offsetof(kc_tally, env) && !t->env) continue;
        kc_sb_printf(&o, " %s=", KEYS[i].name);
        if (put_value(&o, t, &KEYS[i]) < 0) return -1;
    }
    if (o.over || o.len > (size_t)0x7fffffff) return -1;
    return (int)o.len;
}

/* ---- parsing ---- */


static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int parse_hex16(const char *s, size_t n, uint64_t *v) {
    uint64_t x = 0;
    if (n != 16) return -1;
    for (size_t i = 0; i < n; i++) {
        int h = hexval(s[i]);
        if (h < 0) return -1;
        x = (x << 4) | (uint64_t)h;
    }
    *v = x;
    return 0;
}

/* Decodes a percent-encoded device name into dst (cap bytes with the NUL). */
static int parse_device(const char *s, size_t n, char *dst, size_t cap) {
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            int hi, lo;
            if (i + 2 >= n) return -1;
            if ((hi = hexval(s[i + 1])) < 0 || (lo = hexval(s[i + 2])) < 0) return -1;
            c = (unsigned char)(hi * 16 + lo);
            if (c == 0) return -1;
            i += 2;
        } else if (needs_escape(c)) {
            return -1;
        }
        if (j + 1 >= cap) return -1;
        dst[j++] = (char)c;
    }
    dst[j] = 0;
    return 0;
}

/* "A<sep>B" with two canonical decimals fitting an int. */
static int parse_pair(const char *s, size_t n, char sep, int *a, int *b) {
    const char *m = memchr(s, sep, n);
    uint64_t x, y;
    if (!m) return -1;
    if (kc_parse_canonical(s, (size_t)(m - s), 0x7fffffff, &x) < 0) return -1;
    if (kc_parse_canonical(m + 1, n - (size_t)(m - s) - 1, 0x7fffffff, &y) < 0) return -1;
    *a = (int)x;
    *b = (int)y;
    return 0;
}

/* "device", "host" or "both" (n bytes at s) into *m. */
static int parse_ref(const char *s, size_t n, kc_ref_mode *m)
{
    const kc_ref_mode all[] = { KC_REF_DEVICE, KC_REF_HOST, KC_REF_BOTH };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *name = kc_ref_mode_name(all[i]);
        if (strlen(name) == n && memcmp(name, s, n) == 0) return *m = all[i], 0;
    }
    return -1;
}

/* Seconds as seconds_text spells them (n bytes at s), nothing else. */
static int parse_seconds(const char *s, size_t n, double *v)
{
    char text[64], again[64], *end;
    if (n == 0 || n >= sizeof text || strspn(s, "0123456789.e+-") < n) return -1;
    memcpy(text, s, n);
    text[n] = 0;
    double d = strtod(text, &end);
    if (*end || !seconds_ok(d)) return -1;
    seconds_text(d, again, sizeof again);
    if (strcmp(text, again) != 0) return -1;
    *v = d;
    return 0;
}

/* Stores one value; returns -1 when it is malformed (the caller words it). */
static int parse_value(kc_tally *t, const key *k, const char *v, size_t n) {
    char *base = (char *)t + k->off;
    uint64_t u;
    long l;
    int i;
    switch (k->type) {
    case K_COUNT:
        if (kc_parse_canonical(v, n, LONG_MAX, &u) < 0) return -1;
        t->n[k->kind][k->state] = (long)u;
        return 0;
    case K_LONG:
        if (kc_parse_canonical(v, n, LONG_MAX, &u) < 0) return -1;
        l = (long)u;
        memcpy(base, &l, sizeof l);
        return 0;
    case K_U64:
        if (kc_parse_canonical(v, n, UINT64_MAX, &u) < 0) return -1;
        memcpy(base, &u, sizeof u);
        return 0;
    case K_INT:
        if (kc_parse_canonical(v, n, 0x7fffffff, &u) < 0) return -1;
        i = (int)u;
        memcpy(base, &i, sizeof i);
        return 0;
    case K_HEX:
        if (parse_hex16(v, n, &u) < 0) return -1;
        memcpy(base, &u, sizeof u);
        return 0;
    case K_DEVICE:
        return parse_device(v, n, t->device, sizeof t->device);
    case K_CC:
        return parse_pair(v, n, '.', &t->cc_major, &t->cc_minor);
    case K_SHARD:
        if (parse_pair(v, n, '/', &t->shard_k, &t->shard_n) < 0) return -1;
        return t->shard_n >= 1 && t->shard_k < t->shard_n ? 0 : -1;
    case K_BLOCK:
        if (kc_parse_canonical(v, n, KC_TALLY_MAX_BLOCK, &u) < 0) return -1;
        t->block_size = (unsigned)u;
        return 0;
    case K_REF:
        return parse_ref(v, n, &t->reference);
    case K_SECONDS:
        return parse_seconds(v, n, &t->timeout_s);
    }
    return -1;
}

static const char *what(ktype t) {
    switch (t) {
    case K_HEX: return "bad hex";
    case K_DEVICE: return "bad device";
    case K_CC: return "bad cc";
    case K_SHARD: return "bad shard";
    case K_BLOCK: return "bad block size (0 to 1024)";
    case K_REF: return "bad reference (device, host or both)";
    case K_SECONDS: return "bad seconds";
    default: return "bad number";
    }
}

static int find_key(const char *s, size_t n) {
    for (size_t i = 0; i < NKEYS; i++)
        if (strlen(KEYS[i].name) == n && memcmp(KEYS[i].name, s, n) == 0) return (int)i;
    return -1;
}

/* The first token must be v=KC_TALLY_VERSION. */
static int parse_version(const char **p, char *err, size_t cap) {
    const char *s = *p, *e = strchr(s, ' ');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    uint64_t v;
    if (n < 2 || memcmp(s, "v=", 2) != 0)
        return kc_errf(err, cap, "missing version (v=%d) at '%.*s'", KC_TALLY_VERSION, (int)n, s);
    if (kc_parse_canonical(s + 2, n - 2, 0x7fffffff, &v) < 0)
        return kc_errf(err, cap, "bad number '%.*s' for v", (int)(n - 2), s + 2);
    if (v < KC_TALLY_VERSION)
        return kc_errf(err, cap, "version %llu not supported (want %d): written by an older kcontract, whose TALLY "
                       "does not say the run options that change verdicts (block=, reference=, timeout=)",
                       (unsigned long long)v, KC_TALLY_VERSION);
    if (v != KC_TALLY_VERSION)
        return kc_errf(err, cap, "version %llu not supported (want %d): written by a newer kcontract",
                       (unsigned long long)v, KC_TALLY_VERSION);
    *p = s + n;
    return 0;
}

int kc_tally_parse(const char *line, kc_tally *t, char *err, size_t errcap) {
    kc_tally r;
    char seen[NKEYS] = { 0 };
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\n') len--;           /* one trailing newline is fine */
    if (strncmp(line, "TALLY ", 6) != 0) return kc_errf(err, errcap, "not a TALLY line (no 'TALLY ' prefix)");
    kc_tally_init(&r);
    memset(r.device, 0, sizeof r.device);
    const char *p = line + 6, *end = line + len;
    if (parse_version(&p, err, errcap) < 0) return -1;
    while (p < end) {
        if (*p != ' ') return kc_errf(err, errcap, "junk '%.*s' after a value", (int)(end - p), p);
        p++;
        const char *tok = p, *sp = memchr(p, ' ', (size_t)(end - p));
        const char *te = sp ? sp : end;
        const char *eq = memchr(tok, '=', (size_t)(te - tok));
        if (te == tok) return kc_errf(err, errcap, "empty field (two spaces or a trailing space)");
        if (!eq) return kc_errf(err, errcap, "junk '%.*s' (not key=value)", (int)(te - tok), tok);
        int ki = find_key(tok, (size_t)(eq - tok));
        if (ki < 0) return kc_errf(err, errcap, "unknown key %.*s", (int)(eq - tok), tok);
        if (seen[ki]) return kc_errf(err, errcap, "duplicate key %s", KEYS[ki].name);
        seen[ki] = 1;
        if (parse_value(&r, &KEYS[ki], eq + 1, (size_t)(te - eq - 1)) < 0)
            return kc_errf(err, errcap, "%s '%.*s' for %s", what(KEYS[ki].type),
                        (int)(te - eq - 1), eq + 1, KEYS[ki].name);
        p = te;
    }
    for (size_t i = 0; i < NKEYS; i++)
        if (!seen[i] && !key_optional(&KEYS[i])) return kc_errf(err, errcap, "missing key %s", KEYS[i].name);
    *t = r;
    return 0;
}

/* ---- SUMMARY ---- */

static const char *pl(long n, const char *one, const char *many) { return n == 1 ? one : many; }

int kc_summary_format(const kc_tally *t, char *buf, size_t cap) {
    kc_strbuf o;
    kc_sb_init(&o, buf, cap);
    long kernels = kind_total(t, KC_KIND_KERNEL), controls = kind_total(t, KC_KIND_CONTROL);
    long limits = kind_total(t, KC_KIND_LIMIT);
    long known = t->n[KC_KIND_KERNEL][KC_KNOWN], spass = t->n[KC_KIND_SUITE][KC_PASS];
    long sfail = t->n[KC_KIND_SUITE][KC_FAIL];
    kc_sb_printf(&o, "SUMMARY %ld %s: %ld pass gates 1-4, %ld fail, %ld %s", kernels,
        pl(kernels, "kernel", "kernels"), t->n[KC_KIND_KERNEL][KC_PASS],
        t->n[KC_KIND_KERNEL][KC_FAIL], known, pl(known, "known finding", "known findings"));
    kc_sb_printf(&o, "; %ld %s: %ld red as planted, %ld missed", controls, pl(controls, "control", "controls"),
        t->n[KC_KIND_CONTROL][KC_RED], t->n[KC_KIND_CONTROL][KC_MISSED]);
    /* the checks that had problems, then the problems: one check can have several */
    kc_sb_printf(&o, "; %ld %s: %ld pass, %ld with problems", limits, pl(limits, "limit check", "limit checks"),
        t->n[KC_KIND_LIMIT][KC_PASS], t->n[KC_KIND_LIMIT][KC_LIMIT]);
    if (t->limit_problems)
        kc_sb_printf(&o, " (%ld %s)", t->limit_problems, pl(t->limit_problems, "problem", "problems"));
    long sans = kind_total(t, KC_KIND_SANITIZE);   /* printed at 0 too, as every other kind */
    kc_sb_printf(&o, "; %ld %s: %ld clean, %ld %s", sans, pl(sans, "sanitizer check", "sanitizer checks"),
        t->n[KC_KIND_SANITIZE][KC_PASS], t->n[KC_KIND_SANITIZE][KC_FAIL],
        pl(t->n[KC_KIND_SANITIZE][KC_FAIL], "with an error", "with errors"));
    if (t->n[KC_KIND_SANITIZE][KC_KNOWN])
        kc_sb_printf(&o, ", %ld %s", t->n[KC_KIND_SANITIZE][KC_KNOWN],
                     pl(t->n[KC_KIND_SANITIZE][KC_KNOWN], "known finding", "known findings"));
    long suites = kind_total(t, KC_KIND_SUITE);
    kc_sb_printf(&o, "; %ld %s: %ld pass, %ld fail", suites, pl(suites, "suite", "suites"), spass, sfail);
    for (int s = 0; s < KC_STATE_COUNT; s++) {    /* LEAK, SKIP, CRASH, TIMEOUT, NOTRUN: state.h */
        const char *what = kc_state_info_of((kc_state)s)->summary;
        long k = state_total(t, (kc_state)s);
        if (what && k) kc_sb_printf(&o, "; %ld %s", k, what);
    }
    if (t->stale) kc_sb_printf(&o, "; %ld %s", t->stale, pl(t->stale, "stale known finding", "stale known findings"));
    if (t->untrusted == 1) kc_sb_printf(&o, "; not trusted (a line above says why)");
    if (t->untrusted > 1) kc_sb_printf(&o, "; not trusted in %ld shards (their lines say why)", t->untrusted);
    if (t->cached) kc_sb_printf(&o, "; %ld cached", t->cached);
    if (o.over || o.len > (size_t)0x7fffffff) return -1;
    return (int)o.len;
}
