/* costs.c — owns the cost table (parse, load, save), the queue's order, the
 * LPT partition of --shard --costs, time limits, the per-item memory plan and
 * the memory admission check (see costs.h). */
#include "costs.h"
#include "errmsg.h"
#include "item_run.h"
#include "size_sat.h"

#include <errno.h>
#include <sys/file.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter.h"
#include "gates.h"
#include "proctree.h"
#include "progname.h"
#include "record.h"
#include "safe_file.h"
#include "seed.h"

/* ---- the table ---- */

static int find_at(const kc_costs *c, const char *name, int *pos)
{
    int lo = 0, hi = c->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2, d = strcmp(c->v[mid].name, name);
        if (d == 0) {
            *pos = mid;
            return 1;
        }
        if (d < 0) lo = mid + 1;
        else hi = mid;
    }
    *pos = lo;
    return 0;
}

const kc_cost *kc_costs_find(const kc_costs *c, const char *name)
{
    int pos;
    return c && find_at(c, name, &pos) ? &c->v[pos] : NULL;
}

int kc_costs_set(kc_costs *c, const kc_cost *e)
{
    int pos;
    if (find_at(c, e->name, &pos)) {
        c->v[pos] = *e;
        return 0;
    }
    if (c->n == c->cap) {
        int nc = c->cap ? c->cap * 2 : 64;
        kc_cost *nv = realloc(c->v, (size_t)nc * sizeof *nv);
        if (!nv) return -1;
        c->v = nv;
        c->cap = nc;
    }
    memmove(&c->v[pos + 1], &c->v[pos], (size_t)(c->n - pos) * sizeof *c->v);
    c->v[pos] = *e;
    c->n++;
    return 0;
}

/* Removes name's row from c, if it has one. */
static void costs_remove(kc_costs *c, const char *name)
{
    int pos;
    if (!find_at(c, name, &pos)) return;
    memmove(&c->v[pos], &c->v[pos + 1], (size_t)(c->n - pos - 1) * sizeof *c->v);
    c->n--;
}

void kc_costs_free(kc_costs *c)
{
    free(c->v);
    memset(c, 0, sizeof *c);
}

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    if (!*s) return -1;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < -1) return -1;
    *out = v;
    return 0;
}

/* One data line (NUL-terminated, no newline). */
static int parse_row(char *line, int lineno, kc_cost *e, char *err, size_t cap)
{
    char *f[6];
    int nf = 0;
    for (char *p = line;;) {
        if (nf == 6) break;
        f[nf++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    if (nf != 5)
        return kc_errf(err, cap, "line %d: expected 5 tab-separated fields (item, seconds, peak_rss_kib, peak_gpu_mib, failed), got %s%d",
                    lineno, nf > 5 ? "more than " : "", nf > 5 ? 5 : nf);
    memset(e, 0, sizeof *e);
    if (!*f[0] || strpbrk(f[0], " \r") || strlen(f[0]) >= sizeof e->name)
        return kc_errf(err, cap, "line %d: bad item name '%.200s'", lineno, f[0]);
    snprintf(e->name, sizeof e->name, "%s", f[0]);
    char *end;
    errno = 0;
    if (strcmp(f[1], KC_COST_NEVER_MEASURED) == 0) {
        e->seconds = -1;
    } else {
        e->seconds = strtod(f[1], &end);
        if (!*f[1] || *end || errno || !isfinite(e->seconds) || e->seconds < 0 || strpbrk(f[1], "xXnNiI"))
            return kc_errf(err, cap, "line %d: bad seconds '%.64s' for %s (a decimal >= 0, or '-': never measured)",
                           lineno, f[1], e->name);
    }
    if (parse_long(f[2], &e->peak_rss_kib))
        return kc_errf(err, cap, "line %d: bad peak_rss_kib '%.64s' for %s (an integer >= -1)", lineno, f[2], e->name);
    if (parse_long(f[3], &e->peak_gpu_mib))
        return kc_errf(err, cap, "line %d: bad peak_gpu_mib '%.64s' for %s (an integer >= -1)", lineno, f[3], e->name);
    if (strcmp(f[4], "0") && strcmp(f[4], "1"))
        return kc_errf(err, cap, "line %d: bad failed '%.64s' for %s (0 or 1)", lineno, f[4], e->name);
    e->failed = f[4][0] == '1';
    if (e->seconds < 0 && !e->failed)
        return kc_errf(err, cap, "line %d: '-' seconds (never measured) for %s, which is not failed (a row never "
                       "measured is written only for an item not run, recorded failed)", lineno, e->name);
    return 0;
}

int kc_costs_parse(const char *text, kc_costs *c, char *err, size_t cap)
{
    kc_costs t = { 0 };
    int lineno = 0;
    size_t hl = strlen(KC_COSTS_HEADER);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t raw = nl ? (size_t)(nl - p) : strlen(p), len = raw;
        if (len && p[len - 1] == '\r') len--;      /* a table edited on Windows: CRLF lines */
        lineno++;
        if (lineno == 1 && (len != hl || strncmp(p, KC_COSTS_HEADER, hl) != 0)) {
            kc_costs_free(&t);
            return kc_errf(err, cap, "line 1: expected the header '%s', got '%.*s'", KC_COSTS_HEADER, (int)(len > 80 ? 80 : len), p);
        }
        if (lineno > 1 && len > 0 && p[0] != '#') {
            char buf[1024];
            kc_cost e;
            if (len >= sizeof buf) {
                kc_costs_free(&t);
                return kc_errf(err, cap, "line %d: longer than %zu bytes", lineno, sizeof buf - 1);
            }
            memcpy(buf, p, len);
            buf[len] = 0;
            if (parse_row(buf, lineno, &e, err, cap)) {
                kc_costs_free(&t);
                return -1;
            }
            if (kc_costs_find(&t, e.name)) {
                kc_costs_free(&t);
                return kc_errf(err, cap, "line %d: item %s appears twice", lineno, e.name);
            }
            if (kc_costs_set(&t, &e)) {
                kc_costs_free(&t);
                return kc_errf(err, cap, "out of memory");
            }
        }
        p = nl ? nl + 1 : p + raw;                  /* past a last line's '\r' too (found by fuzzing: it looped) */
    }
    if (lineno == 0) return kc_errf(err, cap, "line 1: empty file (expected the header '%s')", KC_COSTS_HEADER);
    kc_costs_free(c);
    *c = t;
    return 0;
}

int kc_costs_load(const char *path, kc_costs *c, int *found, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    *found = 0;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return kc_errf(err, cap, "%s: is a directory, expected a cost table file", path);
    FILE *f = fopen(path, "re");
    if (!f) {
        if (errno == ENOENT) return 0;
        return kc_errf(err, cap, "%s: %s", path, strerror(errno));
    }
    size_t n = 0, sz = 1 << 16;
    char *text = malloc(sz);
    for (size_t got; text && (got = fread(text + n, 1, sz - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == sz) {
            char *nt = realloc(text, sz * 2);
            if (!nt) {
                free(text);
                text = NULL;
                break;
            }
            text = nt;
            sz *= 2;
        }
    }
    fclose(f);
    if (!text) return kc_errf(err, cap, "%s: out of memory", path);
    text[n] = 0;
    if (memchr(text, 0, n)) {
        free(text);
        return kc_errf(err, cap, "%s: a NUL byte in the file (not a cost table)", path);
    }
    char why[512];
    int rc = kc_costs_parse(text, c, why, sizeof why);
    free(text);
    if (rc) return kc_errf(err, cap, "%s: %s", path, why);
    *found = 1;
    return 0;
}

int kc_costs_there(const char *path)
{
    kc_costs c;
    int found = 0;
    char err[512];
    if (!path || !*path || kc_costs_load(path, &c, &found, err, sizeof err)) return 0;
    kc_costs_free(&c);
    return found;
}

int kc_costs_format(const kc_costs *c, FILE *out)
{
    fprintf(out, "%s\n# item\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tfailed\n", KC_COSTS_HEADER);
    for (int i = 0; i < c->n; i++) {
        const kc_cost *e = &c->v[i];
        if (e->seconds < 0)
            fprintf(out, "%s\t%s\t%ld\t%ld\t%d\n", e->name, KC_COST_NEVER_MEASURED, e->peak_rss_kib, e->peak_gpu_mib,
                    e->failed);
        else
            fprintf(out, "%s\t%.3f\t%ld\t%ld\t%d\n", e->name, e->seconds, e->peak_rss_kib, e->peak_gpu_mib, e->failed);
    }
    return ferror(out) ? -1 : 0;
}

/* The lock file is removed by its holder before it lets go, so a table's
 * directory keeps no "<path>.lock" between runs. A run that opened the file
 * and then waited for it may hold a file already removed (and a third run
 * may have made a new one): after flock it checks that the path still names
 * the file it holds, else tries again. The lock file is never followed
 * through a symbolic link (safe_file.h). */
int kc_costs_lock(const char *path, char *err, size_t cap)
{
    char lock[4096];
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock)
        return kc_errf(err, cap, "%s.lock: %s", path, strerror(ENAMETOOLONG));
    for (;;) {
        int fd = kc_lock_file_open(lock, 1, err, cap);
        if (fd < 0) return -1;
        while (flock(fd, LOCK_EX) != 0)
            if (errno != EINTR) {
                int e = errno;
                close(fd);
                return kc_errf(err, cap, "cannot lock %s: %s", lock, strerror(e));
            }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && lstat(lock, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino)
            return fd;
        close(fd);          /* removed by the run before us: take the current one */
    }
}

void kc_costs_unlock(const char *path, int fd)
{
    if (fd < 0) return;
    char lock[4096];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(lock);           /* while held: see kc_costs_lock */
    close(fd);              /* closing releases the flock */
}

int kc_costs_save(const char *path, const kc_costs *c, char *err, size_t cap)
{
    char tmp[4096];
    int fd = kc_temp_beside(path, tmp, sizeof tmp);     /* a new file: a planted symlink is never followed */
    if (fd < 0) return kc_errf(err, cap, "cannot create a temporary file beside %s: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return kc_errf(err, cap, "%s: %s", tmp, strerror(e));
    }
    int bad = kc_costs_format(c, f);
    if (fclose(f) || bad) {
        int e = errno;
        unlink(tmp);
        return kc_errf(err, cap, "%s: %s", tmp, strerror(e));
    }
    if (rename(tmp, path)) {
        int e = errno;
        unlink(tmp);
        return kc_errf(err, cap, "%s: %s", path, strerror(e));
    }
    return 0;
}

/* Whether r's verdict goes into the table as failed: a failing state, a
 * stale known finding; a suspect (record.h); any verdict of a run that
 * cannot vouch for it. */
static int record_fails(const kc_record *r, int untrusted)
{
    return kc_result_fails(&r->res) || r->suspect || untrusted;
}

/* Marks a NOTRUN item (never checked) failed in c, its last measurement
 * kept, or a row never measured. 1 when set, 0 out of memory. */
static int mark_not_run(kc_costs *c, const char *name)
{
    const kc_cost *old = kc_costs_find(c, name);
    kc_cost e = { .seconds = -1, .peak_rss_kib = -1, .peak_gpu_mib = -1 };
    if (old) e = *old;
    else snprintf(e.name, sizeof e.name, "%s", name);
    e.failed = 1;
    return kc_costs_set(c, &e) == 0;
}

/* Sets r's row in c from its measurement (measure 1) or only its verdict
 * (measure 0: seconds and peaks kept; no row and passed adds none; no row
 * and failed adds one never measured). 1 when a row was set (measure 1) or
 * its failed column changed (measure 0). */
static int record_item(kc_costs *c, const kc_record *r, int untrusted, int measure)
{
    const kc_cost *was = kc_costs_find(c, r->name);
    kc_cost e;
    memset(&e, 0, sizeof e);
    if (!measure) {
        int failed = record_fails(r, untrusted);
        if (was ? was->failed == failed : !failed) return 0;   /* nothing to change */
        if (was && was->seconds < 0 && !failed) {
            /* a row never measured is only ever failed (the format): a pass
             * leaves no row, which costs what it did, the estimate */
            costs_remove(c, r->name);
            return 1;
        }
        if (was) e = *was;
        else {
            snprintf(e.name, sizeof e.name, "%s", r->name);
            e.seconds = -1;
            e.peak_rss_kib = e.peak_gpu_mib = -1;
        }
        e.failed = failed;
        return kc_costs_set(c, &e) == 0;
    }
    snprintf(e.name, sizeof e.name, "%s", r->name);
    e.seconds = r->end_s - r->start_s;
    e.peak_rss_kib = r->res.peak_rss_kib;
    e.peak_gpu_mib = r->peak_gpu_mib;
    /* a figure unknown now (a merge's) keeps the last one */
    if (was && e.peak_rss_kib < 0) e.peak_rss_kib = was->peak_rss_kib;
    if (was && e.peak_gpu_mib < 0) e.peak_gpu_mib = was->peak_gpu_mib;
    e.failed = record_fails(r, untrusted);
    return kc_costs_set(c, &e) == 0;
}

/* kc_costs_save_run (measure 1) and kc_costs_save_verdicts (measure 0). */
static int save_records(const char *path, const kc_records *rs, int untrusted, int measure, FILE *out)
{
    int measured = 0, notrun = 0, skips = 0;
    for (int i = 0; i < rs->n; i++) {
        measured += kc_state_measured(rs->v[i].res.state);
        notrun += rs->v[i].res.state == KC_NOTRUN;
        skips += rs->v[i].res.state == KC_SKIP;
    }
    /* nothing to merge: the table and its directory stay as they are; but
     * SKIP items go into a table that is there (a merge's, which no start
     * marked: below) */
    if (!measured && !notrun && !(skips && kc_costs_there(path))) return 0;
    kc_costs c;
    int found;
    char err[1024];
    int lock = kc_costs_lock(path, err, sizeof err);     /* other runs in this directory merge one at a time */
    if (lock < 0) {
        kc_say(stderr, "cannot write the cost table %s: %s\n", path, err);
        return -1;
    }
    if (kc_costs_load(path, &c, &found, err, sizeof err)) {     /* changed meanwhile: start afresh */
        kc_say(stderr, "cost table %s; writing a new table\n", err);
        memset(&c, 0, sizeof c);
    }
    int n = 0, v = 0, marked = 0, rc = 0;    /* rows measured, verdicts alone changed, NOTRUN marked */
    int skipped = 0, skip_set = 0;           /* SKIP items left recorded failed; of them, rows this end set */
    for (int i = 0; i < rs->n; i++) {
        const kc_record *r = &rs->v[i];
        const kc_cost *row = kc_costs_find(&c, r->name);
        if (r->res.state == KC_SKIP) {
            /* never checked: recorded failed, as the run's start marks it
             * in a table that is there. One the start could not mark (a
             * table this end makes, a merge's, which no start marks) got
             * no row, and a retry `--rerun-failed` that runs what failed
             * skipped it: exit 0 after a try whose GPU items were SKIP */
            if (!row || !row->failed) skip_set += mark_not_run(&c, r->name);
            skipped++;
            continue;
        }
        if (r->res.state == KC_NOTRUN) marked += mark_not_run(&c, r->name);
        else if (!kc_state_measured(r->res.state)) continue;
        else if (measure && !r->res.cached) n += record_item(&c, r, untrusted, 1);
        /* a reused verdict took no time: no measurement, but a verdict (a cached pass clears failed) */
        else v += record_item(&c, r, untrusted, 0);
    }
    if ((n || v || marked || skip_set) && kc_costs_save(path, &c, err, sizeof err)) {
        kc_say(stderr, "cannot write the cost table: %s\n", err);
        rc = -1;
    } else if (n || v || marked || skip_set) {
        if (measure) {
            kc_say(out, "cost table %s: %d item%s measured, %d recorded in all", path, n, n == 1 ? "" : "s", c.n);
            if (v) fprintf(out, "; %d reused verdict%s recorded", v, v == 1 ? "" : "s");
        } else
            kc_say(out, "cost table %s: %d verdict%s recorded, seconds kept (a --shard K/N --costs run cuts its slice "
                   "by them), %d recorded in all", path, v, v == 1 ? "" : "s", c.n);
        if (marked) fprintf(out, "; %d not run, recorded failed", marked);
        if (skipped) fprintf(out, "; %d not checked (SKIP), left recorded failed", skipped);
        fprintf(out, "\n");
    }
    kc_costs_unlock(path, lock);
    kc_costs_free(&c);
    return rc ? rc : n + v;
}

int kc_costs_mark_failed(const char *path, const char *const *names, int n)
{
    kc_costs c;
    int found, changed = 0, rc = 0;
    char err[1024];
    int lock = kc_costs_lock(path, err, sizeof err);
    if (lock < 0) {
        kc_say(stderr, "cannot write the cost table %s: %s\n", path, err);
        return -1;
    }
    if (kc_costs_load(path, &c, &found, err, sizeof err) == 0 && found) {     /* never makes a table */
        for (int i = 0; i < n; i++) {
            const kc_cost *e = kc_costs_find(&c, names[i]);
            if (!e || !e->failed) changed += mark_not_run(&c, names[i]);
        }
        if (changed && kc_costs_save(path, &c, err, sizeof err)) {
            kc_say(stderr, "cannot write the cost table: %s\n", err);
            rc = -1;
        }
    }   /* malformed or gone meanwhile: the end's recording says so */
    kc_costs_free(&c);
    kc_costs_unlock(path, lock);
    return rc;
}

int kc_costs_save_run(const char *path, const kc_records *rs, int untrusted, FILE *out)
{
    return save_records(path, rs, untrusted, 1, out);
}

int kc_costs_save_verdicts(const char *path, const kc_records *rs, int untrusted, FILE *out)
{
    return save_records(path, rs, untrusted, 0, out);
}

/* ---- costs, limits, order ---- */

double kc_cost_estimate(const kc_item *it)
{
    double bytes = 0;
    if (it->kind == KC_KIND_SANITIZE) return KC_COST_EST_BASE_S + KC_COST_EST_SANITIZE_S;
    if (kc_item_runs_sanitizer(it))
        bytes += KC_COST_EST_SANITIZE_S * KC_COST_EST_BYTES_PER_S;
    if (it->contract && it->kind != KC_KIND_LIMIT)   /* a limits item runs no case */
        for (const kc_shape *s = it->contract->shapes; s && s->name; s++) {
            size_t h = 0, g = 0;
            kc_case_memory(it->contract, s, KC_REF_DEVICE, &h, &g);
            bytes += (double)h + (double)g;
        }
    return KC_COST_EST_BASE_S + bytes / KC_COST_EST_BYTES_PER_S;
}

const kc_cost *kc_costs_measured(const kc_costs *c, const char *name)
{
    const kc_cost *e = kc_costs_find(c, name);
    return e && e->seconds >= 0 ? e : NULL;
}

double kc_item_cost(const kc_costs *c, const kc_item *it, int *recorded)
{
    const kc_cost *e = kc_costs_measured(c, it->name);
    if (recorded) *recorded = e != NULL;
    return e ? e->seconds : kc_cost_estimate(it);
}

static int is_mutant_item(const kc_item *it)
{
    return it->kind == KC_KIND_CONTROL && strstr(it->name, ":mutant.") != NULL;
}

double kc_item_time_limit_alone(const kc_item *it, const kc_costs *c, double override_s)
{
    const kc_cost *e = override_s > 0 ? NULL : kc_costs_measured(c, it->name);
    if (!e || !is_mutant_item(it)) return kc_item_time_limit(it, c, override_s);
    double m = KC_MUTANT_ALONE_MULTIPLE * e->seconds;
    return m > KC_MUTANT_ALONE_FLOOR_S ? m : KC_MUTANT_ALONE_FLOOR_S;
}

double kc_item_time_limit(const kc_item *it, const kc_costs *c, double override_s)
{
    if (override_s > 0) return override_s;
    const kc_cost *e = kc_costs_measured(c, it->name);
    if (e && is_mutant_item(it)) {
        double m = KC_TIMEOUT_MULTIPLE * e->seconds;
        return m > KC_MUTANT_TIMEOUT_FLOOR_S ? m : KC_MUTANT_TIMEOUT_FLOOR_S;
    }
    if (it->contract && it->contract->timeout_s > 0) return it->contract->timeout_s;
    if (!e) return KC_TIMEOUT_NO_COST_S;
    double m = KC_TIMEOUT_MULTIPLE * e->seconds;
    return m > KC_TIMEOUT_FLOOR_S ? m : KC_TIMEOUT_FLOOR_S;
}

typedef struct okey {
    int idx, failed;
    double cost;
    const char *name;
} okey;

static int okey_cmp(const void *a, const void *b)
{
    const okey *x = a, *y = b;
    if (x->failed != y->failed) return y->failed - x->failed;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return strcmp(x->name, y->name);
}

void kc_queue_order(const kc_costs *c, const kc_item *items, int *sel, int ns)
{
    okey *k = malloc((size_t)(ns ? ns : 1) * sizeof *k);
    if (!k) return;     /* name order stays: still correct, only slower */
    for (int i = 0; i < ns; i++) {
        const kc_cost *e = kc_costs_find(c, items[sel[i]].name);
        k[i] = (okey){ sel[i], e && e->failed, kc_item_cost(c, &items[sel[i]], NULL), items[sel[i]].name };
    }
    qsort(k, (size_t)ns, sizeof *k, okey_cmp);
    for (int i = 0; i < ns; i++) sel[i] = k[i].idx;
    free(k);
}

int kc_lpt_partition(const double *cost, const char *const *names, int n, int nshards, int *shard_of)
{
    okey *k = malloc((size_t)(n ? n : 1) * sizeof *k);
    double *load = calloc((size_t)(nshards > 0 ? nshards : 1), sizeof *load);
    int *count = calloc((size_t)(nshards > 0 ? nshards : 1), sizeof *count);
    if (!k || !load || !count) {
        free(k);
        free(load);
        free(count);
        return -1;
    }
    for (int i = 0; i < n; i++) k[i] = (okey){ i, 0, cost[i], names[i] };
    qsort(k, (size_t)n, sizeof *k, okey_cmp);
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int s = 1; s < nshards; s++)
            if (load[s] < load[best] || (load[s] == load[best] && count[s] < count[best])) best = s;
        shard_of[k[i].idx] = best;
        load[best] += k[i].cost;
        count[best]++;
    }
    free(k);
    free(load);
    free(count);
    return 0;
}

/* --rerun-failed: of the ns items in sel (a slice of the nf filtered ones,
 * which fall[0..nf) holds; fall may be sel itself when the slice is all of
 * them), keeps those the table o->costs records as failed; when it records
 * none failed among all nf, the slice stays whole (*all 1; costs.h,
 * kc_select). Returns how many, or -1 with the reason in err (no table, a
 * malformed one). */
static int keep_failed(const kc_opts *o, const kc_item *items, const int *fall, int nf, int *sel, int ns, int *all,
                       char *err, size_t cap)
{
    kc_costs c;
    int found, nk = 0, any = 0;
    /* A lock file that is a link (planted beside a shared table) stops
     * every run from writing the table (kc_costs_lock), the try this retries
     * too: its failures are not in it, and rerunning an older run's alone
     * read green after a try that failed (a red team's find). A run or merge
     * is refused; a list, which writes nothing, shows what the table says. */
    char lock[4096];
    struct stat lst;
    if (o->cmd != KC_CMD_LIST && snprintf(lock, sizeof lock, "%s.lock", o->costs) < (int)sizeof lock &&
        lstat(lock, &lst) == 0 && S_ISLNK(lst.st_mode))
        return kc_errf(err, cap, "%s: %s is a symbolic link, so no run could write this table (none follows it): "
                       "the failures it records may be an older run's, not those of the run this one retries; "
                       "remove it (a lock file is kcontract's own, a plain file) and run again", o->costs, lock);
    if (kc_costs_load(o->costs, &c, &found, err, cap)) return -1;
    if (!found)
        return kc_errf(err, cap, "%s: no such file: --rerun-failed reruns what this cost table records as failed "
                       "last time (a --jobs run writes it, and a serial run given --costs FILE, once it measured an "
                       "item: a run whose every item was SKIP, as without a GPU, or reused from the results cache makes none)",
                       o->costs);
    for (int i = 0; i < nf && !any; i++) {
        const kc_cost *e = kc_costs_find(&c, items[fall[i]].name);
        any = e && e->failed;
    }
    for (int i = 0; any && i < ns; i++) {
        const kc_cost *e = kc_costs_find(&c, items[sel[i]].name);
        if (e && e->failed) sel[nk++] = sel[i];
    }
    kc_costs_free(&c);
    *all = !any && nf > 0;
    return any ? nk : ns;
}

/* The slice of shard o->shard_k of the nf filtered items in sel (kept in
 * order, in place): by cost over the table when --costs was given with
 * --shard, else item i in shard i % N. Returns its count, or -1 with err. */
static int cut_slice(const kc_opts *o, const kc_item *items, int *sel, int nf, char *err, size_t cap)
{
    if (!(o->sharded && o->costs_given)) {
        int ns = 0;
        for (int i = 0; i < nf; i++)
            if (kc_shard_of(i, o->shard_n) == o->shard_k) sel[ns++] = sel[i];   /* filter, then shard */
        return ns;
    }
    kc_costs c;
    int found;
    if (kc_costs_load(o->costs, &c, &found, err, cap)) return -1;
    double *cost = calloc((size_t)(nf ? nf : 1), sizeof *cost);
    const char **names = calloc((size_t)(nf ? nf : 1), sizeof *names);
    int *sh = malloc((size_t)(nf ? nf : 1) * sizeof *sh);
    int rc = -1;
    if (cost && names && sh) {
        for (int i = 0; i < nf; i++) {
            cost[i] = kc_item_cost(&c, &items[sel[i]], NULL);
            names[i] = items[sel[i]].name;
        }
        if (kc_lpt_partition(cost, names, nf, o->shard_n, sh) == 0) {
            rc = 0;
            for (int i = 0; i < nf; i++)
                if (sh[i] == o->shard_k) sel[rc++] = sel[i];
        }
    }
    if (rc < 0) kc_errf(err, cap, "out of memory");
    free(cost);
    free(names);
    free(sh);
    kc_costs_free(&c);
    return rc;
}

int kc_select(const kc_opts *o, const kc_item *items, int n, int *sel, int *nfiltered, int *rerun_all, char *err,
              size_t cap)
{
    int nf = 0, all = 0;
    for (int i = 0; i < n; i++)
        if (kc_filter_match(items[i].name, o->patterns, o->npatterns)) sel[nf++] = i;
    *nfiltered = nf;
    int *fall = NULL;
    if (o->rerun_failed && o->sharded) {    /* the whole filter: whether the table records any failure in it */
        fall = malloc((size_t)(nf ? nf : 1) * sizeof *fall);
        if (!fall) return kc_errf(err, cap, "out of memory");
        memcpy(fall, sel, (size_t)nf * sizeof *fall);
    }
    /* the slice the same run without --rerun-failed takes, then its failures:
     * each shard reruns what failed in its own slice, so that `run --shard
     * K/N || run --shard K/N --rerun-failed` retries the try's failures (cut
     * among the failures alone, one could land in another shard's retry,
     * and the shard that failed read green having run nothing) */
    int ns = cut_slice(o, items, sel, nf, err, cap);
    if (ns >= 0 && o->rerun_failed) ns = keep_failed(o, items, fall ? fall : sel, fall ? nf : ns, sel, ns, &all, err, cap);
    free(fall);
    if (rerun_all) *rerun_all = all;
    return ns;
}

int kc_rerun_failed_note(const kc_opts *o, int rerun_all, int ns, int nf, int listing, FILE *out)
{
    if (!o->rerun_failed) return 0;
    if (rerun_all) {
        kc_say(out, "--rerun-failed: the cost table %s records no failed item among those selected, so %s, as "
                    "pytest's --last-failed does (a run refused before it started records no failure, and "
                    "running nothing would read green); passes the results cache holds are reused\n",
               o->costs, listing ? "every one is listed: a run would run every one"
                         : o->sharded ? "every one of this shard's slice runs" : "every one runs");
        return 1;
    }
    char slice[64] = "";
    if (o->sharded) snprintf(slice, sizeof slice, " in shard %d/%d's slice", o->shard_k, o->shard_n);
    kc_say(out, "--rerun-failed: %s the %d item%s the cost table %s records failed%s, of the %d the filter selects\n",
           listing ? "listed are" : "runs", ns, ns == 1 ? "" : "s", o->costs, slice, nf);
    return 0;
}

int kc_select_costs_digest(const kc_opts *o, const kc_item *items, int n, uint64_t *digest, char *err, size_t cap)
{
    *digest = 0;
    if (!(o->sharded && o->costs_given)) return 0;
    kc_costs c;
    int found;
    if (kc_costs_load(o->costs, &c, &found, err, cap)) return -1;
    uint64_t h = KC_FNV_OFFSET;
    for (int i = 0; i < n; i++) {
        if (!kc_filter_match(items[i].name, o->patterns, o->npatterns)) continue;
        double cost = kc_item_cost(&c, &items[i], NULL);
        h = kc_fnv1a64(items[i].name, strlen(items[i].name) + 1, h);
        h = kc_fnv1a64(&cost, sizeof cost, h);
    }
    kc_costs_free(&c);
    *digest = kc_mix64(h) | 1;
    return 0;
}

/* ---- memory ---- */

void kc_item_memory(const kc_item *it, int with_gpu, kc_ref_mode mode, size_t *host, size_t *gpu)
{
    *host = *gpu = 0;
    if (!with_gpu || !it->contract || it->kind == KC_KIND_LIMIT) return;   /* a limits item runs no case */
    if (it->kind == KC_KIND_SANITIZE) {     /* its target's cases, in a process of their own; counted as this one's */
        const kc_shape *sh[64];
        int n = kc_sanitize_shapes(it->contract, sh, 64);
        for (int i = 0; i < n; i++) {
            size_t h = 0, g = 0;
            kc_case_memory(it->contract, sh[i], KC_REF_DEVICE, &h, &g);
            if (h > *host) *host = h;
            if (g > *gpu) *gpu = g;
        }
        return;
    }
    for (const kc_shape *s = it->contract->shapes; s && s->name; s++) {
        size_t h = 0, g = 0;
        kc_case_memory(it->contract, s, mode, &h, &g);
        if (h > *host) *host = h;
        if (g > *gpu) *gpu = g;
    }
}

/* The item does not fit its budgets even with nothing else running but
 * the sessions held. */
static int never_fits(const kc_admit *a, int slot, size_t host, size_t gpu)
{
    int dev = slot >= 0 && slot < a->ndevs;
    size_t h = kc_add_sat(dev && a->integrated[slot] ? kc_add_sat(host, gpu) : host, a->sessions_held);
    size_t g = dev ? kc_add_sat(gpu, a->gpu_sessions_held[slot]) : gpu;
    return !(a->host_budget == SIZE_MAX || h <= a->host_budget) ||
           !(!dev || a->gpu_budget[slot] == SIZE_MAX || g <= a->gpu_budget[slot]);
}

int kc_admit_check(const kc_admit *a, int slot, size_t host, size_t gpu, int *alone)
{
    *alone = 0;
    size_t h = host;
    int dev = slot >= 0 && slot < a->ndevs;
    if (dev && a->integrated[slot]) h = kc_add_sat(h, gpu);
    if (a->alone_running) return 0;         /* nothing beside an item that runs alone */
    if (never_fits(a, slot, host, gpu)) {   /* alone, once nothing else runs */
        *alone = 1;
        return a->running == 0;
    }
    if (a->host_budget != SIZE_MAX && kc_add_sat(a->host_used, h) > a->host_budget) return 0;
    if (dev && a->gpu_budget[slot] != SIZE_MAX && kc_add_sat(a->gpu_used[slot], gpu) > a->gpu_budget[slot]) return 0;
    return 1;
}

void kc_admit_take(kc_admit *a, int slot, size_t host, size_t gpu)
{
    int dev = slot >= 0 && slot < a->ndevs;
    if (never_fits(a, slot, host, gpu)) a->alone_running = 1;
    a->running++;
    a->host_used = kc_add_sat(a->host_used, dev && a->integrated[slot] ? kc_add_sat(host, gpu) : host);
    if (dev) a->gpu_used[slot] = kc_add_sat(a->gpu_used[slot], gpu);
}

void kc_admit_release(kc_admit *a, int slot, size_t host, size_t gpu)
{
    int dev = slot >= 0 && slot < a->ndevs;
    size_t h = dev && a->integrated[slot] ? kc_add_sat(host, gpu) : host;
    a->running--;
    if (a->running <= 0) a->alone_running = 0;
    a->host_used = a->host_used > h ? a->host_used - h : 0;
    if (dev) a->gpu_used[slot] = a->gpu_used[slot] > gpu ? a->gpu_used[slot] - gpu : 0;
}

/* *held and *used less up to b bytes (no lower than zero). */
static void give_back(size_t *held, size_t *used, size_t b)
{
    b = *held < b ? *held : b;
    *held -= b;
    *used = *used > b ? *used - b : 0;
}

void kc_admit_sessions(kc_admit *a, int slot, int open)
{
    int dev = slot >= 0 && slot < a->ndevs;
    size_t g = dev ? a->sessions_gpu[slot] : 0;
    size_t h = dev && a->integrated[slot] ? kc_add_sat(a->sessions_host, g) : a->sessions_host;
    if (open) {
        a->sessions_held = kc_add_sat(a->sessions_held, h);
        a->host_used = kc_add_sat(a->host_used, h);
        if (dev) {
            a->gpu_sessions_held[slot] = kc_add_sat(a->gpu_sessions_held[slot], g);
            a->gpu_used[slot] = kc_add_sat(a->gpu_used[slot], g);
        }
        return;
    }
    give_back(&a->sessions_held, &a->host_used, h);
    if (dev) give_back(&a->gpu_sessions_held[slot], &a->gpu_used[slot], g);
}

const char *kc_costs_origin(const kc_opts *o)
{
    return o->costs_given ? "--costs" : o->costs_env ? KC_COSTS_ENV : "cost table";
}

int kc_costs_default_path(const char *env, char *buf, size_t cap, char *err, size_t errcap)
{
    char exe[4096], dir[4096];
    if (env && env[0]) {
        if (strlen(env) >= cap) {
            snprintf(err, errcap, "%s='%.200s...': expected the path of a cost table file, at most %zu bytes",
                     KC_COSTS_ENV, env, cap - 1);
            return -1;
        }
        snprintf(buf, cap, "%s", env);
        return 0;
    }
    snprintf(buf, cap, "%s", KC_COSTS_FALLBACK);
    if (kc_self_exe(exe, sizeof exe)) return 0;
    snprintf(dir, sizeof dir, "%s", exe);
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    *slash = 0;
    /* an installed binary ($prefix/bin/kcontract) keeps no table in its bin
     * folder, even for root, who may write there */
    const char *last = strrchr(dir, '/');
    if (strcmp(last ? last + 1 : dir, "bin") == 0) return 0;
    if (access(dir[0] ? dir : "/", W_OK) != 0) return 0;
    if ((size_t)snprintf(buf, cap, "%s.costs.tsv", exe) >= cap) snprintf(buf, cap, "%s", KC_COSTS_FALLBACK);
    return 0;
}
