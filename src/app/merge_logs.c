/* merge_logs.c — `kcontract merge`: one SUMMARY from the saved outputs of the
 * `--shard K/N` runs of a multi-host run (merge_logs.h). Reads each log as a
 * --schedule static parent reads a shard's stdout (kc_shard_out: its one
 * TALLY, which a SUMMARY must follow, or the log did not finish), holds that
 * TALLY to the item lines above it (an edited TALLY, or an item line lost or
 * added, is refused), recomputes every slice from this binary's items with
 * the same patterns, records and cost table, and hands the lot to kc_merge
 * (merge.c), which refuses, naming the shard, all it refuses for --schedule
 * static: another seed, filter, binary or N, a slice that is not its own,
 * items that do not add up, shards on different GPUs or run with different
 * options that change verdicts (--block-size, --reference, --timeout). A
 * log of an older kcontract, whose TALLY is of another version, is refused
 * as such (it cannot say those options). */
#include "merge_logs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#include "build_id.h"
#include "costs.h"
#include "filter.h"
#include "item_run.h"
#include "reporter.h"
#include "line_text.h"
#include "merge.h"
#include "progname.h"
#include "record.h"
#include "report.h"
#include "run_end.h"
#include "runner.h"
#include "shard.h"
#include "tally.h"

#define LOG_LINE_KEEP 65536   /* as a --jobs parent keeps a child's line (longer: cut) */

/* The item an item line names: "STATE  name  message  (S s)", the state one
 * of kc_state_name's, the name one of this selection's items; else NULL (a
 * line an item printed, a header, the TALLY). */
/* The worker of a "[wK] " tag at the start of line (a --shard K/N --jobs M
 * run's worker line) and the line after it; -1 and line itself untagged. */
static int worker_tag(const char *line, const char **after)
{
    *after = line;
    if (line[0] != '[' || line[1] != 'w') return -1;
    size_t d = strspn(line + 2, "0123456789");
    if (!d || d > 6 || line[2 + d] != ']' || line[3 + d] != ' ') return -1;
    *after = line + 4 + d;
    return atoi(line + 2);
}

static const kc_item *item_of_line(const char *line, const kc_item *items, int n, kc_state *st, const char **rest)
{
    worker_tag(line, &line);
    size_t w = strcspn(line, " ");
    int s = 0;
    while (s < KC_STATE_COUNT && !(strlen(kc_state_name((kc_state)s)) == w && strncmp(line, kc_state_name((kc_state)s), w) == 0))
        s++;
    if (s == KC_STATE_COUNT || line[w] != ' ') return NULL;
    const char *nm = line + w;
    while (*nm == ' ') nm++;
    size_t nl = strcspn(nm, " ");
    for (int i = 0; nl && i < n; i++)
        if (strlen(items[i].name) == nl && strncmp(items[i].name, nm, nl) == 0) {
            *st = (kc_state)s;
            *rest = nm + nl;
            return &items[i];
        }
    return NULL;
}

/* A record of an item line's rest, "  message  (S s)  rerun: CMD". */
/* A reused verdict's label in the first len bytes of an item line's rest
 * ("  [cached: earned 2026-12-07T19:24:37Z by build cf974b1b16d93bf3]",
 * result_cache.c): res is marked cached, with when and by which build, so
 * the merge's cost table keeps the seconds its run measured (the line's
 * "(0.00 s)" is no measurement) and its reports say it was reused. */
static void cached_label(const char *rest, size_t len, kc_item_result *res)
{
    const char *cl = strstr(rest, "  [cached: earned ");
    if (!cl || (size_t)(cl - rest) >= len) return;
    res->cached = 1;
    char when[32];
    unsigned long long build;
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (sscanf(cl, "  [cached: earned %31s by build %llx]", when, &build) != 2) return;
    if (strptime(when, "%Y-%m-%dT%H:%M:%SZ", &tm)) res->cached_at = (long long)timegm(&tm);
    res->cached_build = build;
}

static void line_record(const kc_item *it, kc_state st, const char *rest, kc_record *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", it->name);
    r->kind = it->kind;
    r->res.state = st;
    r->device = -1;
    r->res.peak_rss_kib = r->peak_gpu_mib = -1;
    while (*rest == ' ') rest++;
    size_t len = strlen(rest);
    const char *rr = strstr(rest, "  rerun: ");
    if (rr) {
        snprintf(r->res.rerun, sizeof r->res.rerun, "%s", rr + 9);
        len = (size_t)(rr - rest);
    }
    const char *t = NULL;   /* the last "  (S s)" before the rerun command */
    for (const char *p = rest; (p = strstr(p, "  (")) && (size_t)(p - rest) < len; p++) t = p;
    double sec;
    char close[4];
    if (t && sscanf(t, "  (%lf s%3[)]", &sec, close) == 2 && sec >= 0 && sec < 1e9) {
        r->end_s = sec;
        len = (size_t)(t - rest);
    }
    snprintf(r->res.msg, sizeof r->res.msg, "%.*s", (int)len, rest);
    cached_label(rest, len, &r->res);
}

/* At most this many workers' detail lines are kept apart (tags past it
 * keep none: their items' lines stand alone). */
#define DETAIL_WORKERS 1024

/* A line "    ..." (after an optional "[wK] " tag) belongs to the last item
 * line of the same worker: appended to that record's detail. */
static void detail_line(kc_records *recs, const int *last, const char *line)
{
    const char *after;
    int wk = worker_tag(line, &after) + 1;
    if (wk < 0 || wk > DETAIL_WORKERS || last[wk] < 0 || strncmp(after, "    ", 4) != 0) return;
    kc_record *r = &recs->v[last[wk]];
    kc_lines l = { r->detail, sizeof r->detail, strnlen(r->detail, sizeof r->detail - 1), r->detail_cut_lines,
                   r->detail_cut_bytes };
    kc_lines_add(&l, "%s", after);      /* whole, or counted for the marker print_failing adds */
    r->detail_cut_lines = l.cut_lines;
    r->detail_cut_bytes = l.cut_bytes;
}

int kc_merge_log_read(FILE *f, const kc_item *items, int n, kc_shard_out *s, kc_tally *body, double *wall,
                      kc_records *recs)
{
    *wall = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    int summary = 0;
    /* The run's result is the TALLY line immediately before the SUMMARY line
     * (docs/output-format.md): an item may print TALLY-like lines of its own
     * above it. prev holds the line before this one when it was a TALLY line,
     * result the last TALLY that a SUMMARY followed. */
    char *prev = malloc(LOG_LINE_KEEP + 1), *result = malloc(LOG_LINE_KEEP + 1);
    int have_prev = 0, prev_cut = 0, have_result = 0, result_cut = 0;
    if (!prev || !result) {
        free(prev);
        free(result);
        return -1;
    }
    int last[DETAIL_WORKERS + 1];   /* the record of each worker's (slot 0: untagged) last item line, -1 none */
    for (int i = 0; i <= DETAIL_WORKERS; i++) last[i] = -1;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        if (len > 0 && line[len - 1] == '\n') line[--len] = 0;
        if (len > 0 && line[len - 1] == '\r') line[--len] = 0;   /* a log saved with CRLF line ends */
        int cut = len > LOG_LINE_KEEP;
        if (cut) line[LOG_LINE_KEEP] = 0;
        kc_state st;
        const char *rest;
        const kc_item *it = item_of_line(line, items, n, &st, &rest);
        if (it) {   /* the log's own count of what ran, to hold its TALLY to */
            kc_tally_add(body, it->kind, st);
            body->items++;
            body->digest += kc_item_set_digest(it);
            if (strstr(rest, "  [cached: earned ")) body->cached++;   /* result_cache.c labels a reused line so */
            if (recs) {
                kc_record r;
                line_record(it, st, rest, &r);
                if (kc_records_add(recs, &r)) {
                    free(line);
                    free(prev);
                    free(result);
                    return -1;
                }
                const char *after;
                int wk = worker_tag(line, &after) + 1;
                if (wk >= 0 && wk <= DETAIL_WORKERS) last[wk] = recs->n - 1;
            }
        } else if (recs && strncmp(line, KC_RAN_AGAIN_LINE, strlen(KC_RAN_AGAIN_LINE)) == 0) {
            recs->ran_again = atoi(line + strlen(KC_RAN_AGAIN_LINE));   /* the line under its SUMMARY */
        } else if (recs) {
            detail_line(recs, last, line);
        }
        if (strncmp(line, "SUMMARY ", 8) == 0) {
            summary = have_prev;
            if (have_prev) {
                memcpy(result, prev, strlen(prev) + 1);
                result_cut = prev_cut;
                have_result = 1;
            }
            const char *w = strrchr(line, '(');   /* "...  (12.3 s)" */
            if (!w || sscanf(w, "(%lf s)", wall) != 1) *wall = 0;
        }
        have_prev = strncmp(line, "TALLY ", 6) == 0;
        if (have_prev) {
            memcpy(prev, line, strlen(line) + 1);
            prev_cut = cut;
        }
    }
    free(line);
    free(prev);
    if (ferror(f)) {
        free(result);
        return -1;
    }
    if (have_result) kc_shard_out_line(s, result, result_cut);   /* the one TALLY a finished log has */
    free(result);
    s->ended = 1;
    s->exited = s->have && summary;   /* finished: its result TALLY, then SUMMARY */
    if (s->have) s->k = s->tally.shard_k;
    if (s->exited) s->status = kc_tally_exit_status(&s->tally);   /* a log keeps no exit status */
    return 0;
}

/* Reads the log at path (kc_merge_log_read); 0, or -1 with the reason in why. */
static int read_log(const char *path, const kc_item *items, int n, kc_shard_out *s, kc_tally *body, double *wall,
                    kc_records *recs, char *why, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, cap, "%s: cannot read: %m", path);
        return -1;
    }
    int rc = kc_merge_log_read(f, items, n, s, body, wall, recs);
    fclose(f);
    if (rc) snprintf(why, cap, "%s: read error (or out of memory)", path);
    return rc;
}

/* The logs to read: each --log file, and every *.log file under each --log
 * directory (recursively, by path), e.g. Bazel's shard_K_of_N/test.log;
 * found[i]: log i was found in a directory (not named by a --log). */
typedef struct loglist { char **v; int *found; int n, cap; } loglist;

static int loglist_add(loglist *l, const char *path, int found)
{
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 16;
        char **nv = realloc(l->v, (size_t)nc * sizeof *nv);
        if (!nv) return -1;
        l->v = nv;
        int *nf = realloc(l->found, (size_t)nc * sizeof *nf);
        if (!nf) return -1;
        l->found = nf;
        l->cap = nc;
    }
    l->found[l->n] = found;
    return (l->v[l->n] = strdup(path)) ? (l->n++, 0) : -1;
}

static void loglist_free(loglist *l)
{
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    free(l->found);
}

static int cmp_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Adds the *.log files under dir (depth at most 32); 0, or -1 with why. */
static int walk_dir(loglist *l, const char *dir, int depth, char *why, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d) return snprintf(why, cap, "%s: cannot read the directory: %m", dir), -1;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || stat(path, &st)) continue;
        size_t len = strlen(e->d_name);
        if (S_ISDIR(st.st_mode) && depth < 32) rc = walk_dir(l, path, depth + 1, why, cap);
        else if (S_ISREG(st.st_mode) && len > 4 && strcmp(e->d_name + len - 4, ".log") == 0 && loglist_add(l, path, 1)) {
            snprintf(why, cap, "out of memory");
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

static int collect_logs(const kc_opts *o, loglist *l, char *why, size_t cap)
{
    for (int i = 0; i < o->nlogs; i++) {
        struct stat st;
        if (stat(o->logs[i], &st) || !S_ISDIR(st.st_mode)) {
            if (loglist_add(l, o->logs[i], 0)) return snprintf(why, cap, "out of memory"), -1;
            continue;
        }
        int before = l->n;
        if (walk_dir(l, o->logs[i], 0, why, cap)) return -1;
        if (l->n == before)
            return snprintf(why, cap, "%s: a directory with no *.log file under it (expected the saved outputs of "
                            "--shard K/N runs, e.g. Bazel's bazel-testlogs)", o->logs[i]), -1;
        qsort(l->v + before, (size_t)(l->n - before), sizeof *l->v, cmp_path);
    }
    return 0;
}

/* Whether the log at path has a line only a kcontract run (of any program
 * name) writes: a TALLY or SUMMARY line, or a run's header ("<prog>: 12 items
 * selected, seed 1", "<prog>: shard 1/3: 4 of 12 selected items, seed 1").
 * Item lines of this selection were counted by the read (body). */
static int has_run_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 1;               /* unreadable: not ours to ignore; the read said why */
    char *line = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getline(&line, &cap, f) >= 0) {
        const char *l = line;
        if (l[0] == '[') l += strcspn(l, "]") + (strchr(l, ']') ? 2 : 0);   /* "[wK] ", "[K/N] " */
        found = strncmp(l, "TALLY ", 6) == 0 || strncmp(l, "SUMMARY ", 8) == 0 || strstr(l, " selected, seed ") ||
                (strstr(l, " selected item") && strstr(l, ", seed "));
    }
    free(line);
    fclose(f);
    return found;
}

/* "" when the TALLY's counts, items and cached items are those of the log's item lines;
 * else the first that differs ("suite.pass: TALLY 13, item lines 12"):
 * a TALLY edited, or an item line lost or added, after the run. */
static void body_mismatch(const kc_tally *t, const kc_tally *body, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int k = 0; k < KC_KIND_COUNT && !buf[0]; k++)
        for (int s = 0; s < KC_STATE_COUNT && !buf[0]; s++)
            if (t->n[k][s] != body->n[k][s]) {
                char st[16];
                snprintf(st, sizeof st, "%s", kc_state_name((kc_state)s));
                for (char *c = st; *c; c++) *c = (char)(*c - 'A' + 'a');
                snprintf(buf, cap, "%s.%s: TALLY %ld, item lines %ld", kc_kind_name((kc_kind)k), st, t->n[k][s],
                         body->n[k][s]);
            }
    if (!buf[0] && t->items != body->items)
        snprintf(buf, cap, "items: TALLY %ld, item lines %ld", t->items, body->items);
    if (!buf[0] && t->cached != body->cached)
        snprintf(buf, cap, "cached: TALLY %ld, item lines labelled cached %ld", t->cached, body->cached);
    /* The digest is left to kc_merge's slice check: a record's dims enter it,
     * and those come from the merge's own --records, which it names better. */
}

/* Each shard's slice of this binary's items, as `--shard k/n` computes it. */
static int slices(const kc_opts *o, const kc_item *items, int n, int nshards, long *slice_items,
                  uint64_t *slice_digest, long *total, uint64_t *digest, char *err, size_t cap)
{
    int *sel = malloc(((size_t)n + 1) * sizeof *sel);
    if (!sel) return snprintf(err, cap, "out of memory"), -1;
    kc_opts so = *o;
    so.sharded = 1;
    so.shard_n = nshards;
    *total = 0;
    *digest = 0;
    for (int k = 0; k < nshards; k++) {
        so.shard_k = k;
        int nf = 0, ns = kc_select(&so, items, n, sel, &nf, NULL, err, cap);
        if (ns < 0) {
            free(sel);
            return -1;
        }
        slice_items[k] = ns;
        slice_digest[k] = 0;
        for (int i = 0; i < ns; i++) slice_digest[k] += kc_item_set_digest(&items[sel[i]]);
        *total += ns;
        *digest += slice_digest[k];
    }
    free(sel);
    return 0;
}

static void print_problems(int problems, const char *err)
{
    kc_say(stdout, "the merge failed (%d problem%s); no merged TALLY or SUMMARY:\n", problems, problems == 1 ? "" : "s");
    for (const char *p = err, *e; *p; p = e + (*e != 0)) {
        e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        kc_say(stdout, "  %.*s\n", (int)(e - p), p);
    }
}

/* The files found under a --log directory that are no kcontract run's log
 * (a build log, a tool's own .log beside the shards' in Bazel's testlogs):
 * no TALLY, no SUMMARY, no run header and no item line of this selection.
 * They are left out of the merge, named in one note. A log named by --log
 * FILE, and one that has any of those lines but no finished TALLY (a shard
 * cut short, an edited log), is read and refused as before. 0, or -1 out of
 * memory. */
static int drop_unrelated(loglist *l, kc_shard_out *read, kc_tally *body, double *wall, kc_records *recs)
{
    int kept = 0, dropped = 0;
    char names[2048] = "";
    size_t nl = 0;
    for (int i = 0; i < l->n; i++) {
        int ours = !l->found[i] || read[i].have || read[i].bad[0] || body[i].items > 0 || has_run_lines(l->v[i]);
        if (!ours) {
            if (nl < sizeof names)
                nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", dropped ? ", " : "", l->v[i]);
            dropped++;
            kc_records_free(&recs[i]);
            free(l->v[i]);
            continue;
        }
        l->v[kept] = l->v[i];
        l->found[kept] = l->found[i];
        read[kept] = read[i];
        body[kept] = body[i];
        wall[kept] = wall[i];
        recs[kept] = recs[i];
        kept++;
    }
    for (int i = kept; i < l->n; i++) memset(&recs[i], 0, sizeof recs[i]);
    l->n = kept;
    if (dropped) {
        if (nl >= sizeof names) snprintf(names + sizeof names - 5, 5, "...");
        kc_say(stdout, "merge: note: left out %d file%s found under --log directories that %s no kcontract run's "
               "log (no TALLY, SUMMARY, run header or item line of these patterns): %s\n", dropped,
               dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are", names);
    }
    return 0;
}

/* Places each finished log at its shard in outs (from: its file; taken[i]:
 * log i is the one its shard merges) and prints every problem with the logs;
 * returns their number. A second log of one shard with the same result (an
 * engine ran the index twice) is set aside; one with another is refused. */
static int place_logs(const loglist *l, const kc_shard_out *read, const kc_tally *body, int nshards, kc_shard_out *outs,
                      const char **from, int *taken)
{
    char why[256];
    int bad = 0;
    for (int i = 0; i < l->n; i++) {
        const kc_shard_out *s = &read[i];
        const char *path = l->v[i];
        if (!s->have || !s->exited) {
            if (strncmp(s->bad, "version ", 8) == 0)   /* kc_tally_parse: "version 3 not supported (want 4): ..." */
                kc_say(stdout, "merge: %s: TALLY %s; run that shard again with this binary\n", path, s->bad);
            else if (s->bad[0]) kc_say(stdout, "merge: %s: malformed TALLY: %s\n", path, s->bad);
            else kc_say(stdout, "merge: %s: no TALLY followed by a SUMMARY: not the output of a finished --shard run\n",
                        path);
            bad++;
        } else if (s->k < 0 || s->k >= nshards) {
            kc_say(stdout, "merge: %s: its TALLY is for shard %d/%d\n", path, s->tally.shard_k, s->tally.shard_n);
            bad++;
        } else if (s->tally.items > 0 && body[i].items == 0) {
            kc_say(stdout, "merge: %s: no item lines: not the output of a --shard K/N run (a --schedule static "
                   "run's item lines start with [K/N]: it is a whole run, not a shard)\n", path);
            bad++;
        } else if (body_mismatch(&s->tally, &body[i], why, sizeof why), why[0]) {
            kc_say(stdout, "merge: %s: its TALLY does not add up to its item lines (%s): edited or cut after the run\n",
                   path, why);
            bad++;
            if (!from[s->k]) from[s->k] = path;   /* held, but refused: not also "no log" */
        } else if (from[s->k] && outs[s->k].have && kc_tally_counts_equal(&outs[s->k].tally, &s->tally)) {
            kc_say(stdout, "merge: shard %d/%d: %s is a second run of it with the same TALLY (an engine ran the "
                   "index twice); %s is taken\n", s->k, nshards, path, from[s->k]);
        } else if (from[s->k]) {
            kc_say(stdout, "merge: shard %d/%d given twice with different results: %s and %s (TALLY lines differ)\n",
                   s->k, nshards, from[s->k], path);
            bad++;
        } else {
            outs[s->k] = *s;
            from[s->k] = path;
            taken[i] = 1;
        }
    }
    int missing = 0;
    for (int k = 0; k < nshards; k++)
        if (!from[k] && ++missing <= 10) kc_say(stdout, "merge: shard %d/%d: no finished --log holds it\n", k, nshards);
    if (missing > 10) kc_say(stdout, "merge: ... and %d more shards with no log\n", missing - 10);
    return bad + missing;
}

/* The shard count of the logs' TALLY lines, or 0 (and a refusal printed) when
 * none has one, they disagree, or it is above KC_MAX_SHARDS as --shard is. */
static int shard_count(const loglist *l, const kc_shard_out *read)
{
    int nshards = 0, disagree = 0;
    for (int i = 0; i < l->n; i++)
        if (read[i].have && !nshards) nshards = read[i].tally.shard_n;
    for (int i = 0; i < l->n; i++)
        disagree |= read[i].have && (read[i].tally.shard_n != nshards || read[i].tally.shard_n > KC_MAX_SHARDS);
    if (disagree) {
        kc_say(stdout, "the merge failed: the logs' TALLY lines are for different shard counts, or above %d:\n",
               KC_MAX_SHARDS);
        for (int i = 0; i < l->n; i++)
            if (read[i].have) kc_say(stdout, "  %s: shard %d/%d\n", l->v[i], read[i].tally.shard_k, read[i].tally.shard_n);
        return 0;
    }
    if (!nshards)
        kc_say(stdout, "the merge failed: no log holds a TALLY followed by a SUMMARY (a finished --shard run's output)\n");
    return nshards;
}

/* The taken logs' records, in shard order, as one run's: worker = shard. */
static int merged_records(const loglist *l, const kc_shard_out *read, const int *taken, kc_records *recs, int nshards,
                          kc_records *out)
{
    out->workers = nshards;
    for (int k = 0; k < nshards; k++)
        for (int i = 0; i < l->n; i++) {
            if (!taken[i] || read[i].k != k) continue;
            out->ran_again += recs[i].ran_again;
            for (int j = 0; j < recs[i].n; j++) {
                kc_record r = recs[i].v[j];
                r.worker = k;
                if (kc_records_add(out, &r)) return -1;
            }
        }
    return 0;
}

/* Every failing item's line with its rerun command, as a serial run prints
 * it (through its one printer, kc_item_print), with its further lines and a
 * marker for those that did not fit. */
static void print_failing(const kc_records *rs)
{
    int nfail = 0;
    for (int i = 0; i < rs->n; i++) nfail += kc_result_fails(&rs->v[i].res);
    if (!nfail) return;
    kc_say(stdout, "%d failing item%s (each as its shard printed it):\n", nfail, nfail == 1 ? "" : "s");
    for (int i = 0; i < rs->n; i++) {
        const kc_record *r = &rs->v[i];
        if (!kc_result_fails(&r->res)) continue;
        char detail[sizeof r->detail];
        memcpy(detail, r->detail, sizeof detail);
        kc_lines l = { detail, sizeof detail, strnlen(detail, sizeof detail - 1), r->detail_cut_lines,
                       r->detail_cut_bytes };
        detail[l.len] = 0;
        kc_lines_end(&l, "    ");
        kc_item_print(r->name, &r->res, r->end_s, detail, NULL);
    }
}

int kc_merge_logs(const kc_opts *o, const kc_item *items, int n)
{
    int rc = 4, nshards, *taken = NULL;
    loglist l = { 0 };
    kc_shard_out *read = NULL, *outs = NULL;
    kc_tally *body = NULL;
    kc_records *recs = NULL, all = { 0 };
    double *wall = NULL, longest = 0;
    const char **from = NULL;
    long *slice_items = NULL;
    uint64_t *slice_digest = NULL;
    char why[PATH_MAX + 256], *err = NULL;
    if (collect_logs(o, &l, why, sizeof why)) {
        kc_say(stderr, "merge: %s\n", why);
        rc = 2;
        goto out;
    }
    read = calloc((size_t)l.n, sizeof *read);
    body = calloc((size_t)l.n, sizeof *body);
    wall = calloc((size_t)l.n, sizeof *wall);
    recs = calloc((size_t)l.n, sizeof *recs);
    taken = calloc((size_t)l.n, sizeof *taken);
    if (!read || !wall || !body || !recs || !taken) goto out;
    for (int i = 0; i < l.n; i++) {
        kc_shard_out_init(&read[i], -1);
        kc_tally_init(&body[i]);
        if (read_log(l.v[i], items, n, &read[i], &body[i], &wall[i], &recs[i], why, sizeof why)) {
            kc_say(stderr, "merge: %s\n", why);
            rc = 2;
            goto out;
        }
    }
    if (drop_unrelated(&l, read, body, wall, recs)) goto out;
    if (!(nshards = shard_count(&l, read))) {
        rc = 1;
        goto out;
    }
    outs = calloc((size_t)nshards, sizeof *outs);
    from = calloc((size_t)nshards, sizeof *from);
    slice_items = calloc((size_t)nshards, sizeof *slice_items);
    slice_digest = calloc((size_t)nshards, sizeof *slice_digest);
    err = malloc(65536);
    if (!outs || !from || !slice_items || !slice_digest || !err) goto out;
    int bad = place_logs(&l, read, body, nshards, outs, from, taken);
    if (bad) {
        kc_say(stdout, "the merge failed (%d problem%s with the logs); no merged TALLY or SUMMARY\n", bad,
               bad == 1 ? "" : "s");
        rc = 1;
        goto out;
    }
    for (int i = 0; i < l.n; i++)
        if (taken[i] && wall[i] > longest) longest = wall[i];
    long total;
    uint64_t digest;
    if (slices(o, items, n, nshards, slice_items, slice_digest, &total, &digest, why, sizeof why)) {
        kc_say(stderr, "%s %s\n", kc_costs_origin(o), why);
        rc = 2;
        goto out;
    }
    kc_opts co = *o;   /* the digest of the table as a --shard K/N --costs run takes it */
    co.sharded = 1;
    char pats[1024];
    kc_filter_words(o->patterns, o->npatterns, pats, sizeof pats);
    kc_merge_want w = { nshards, o->seed, kc_filter_hash(o->patterns, o->npatterns), kc_build_id(),
                        total, digest, slice_items, slice_digest, 0, o->costs_given ? o->costs : NULL, o->allow_mixed_gpus,
                        pats };
    if (kc_select_costs_digest(&co, items, n, &w.costs, why, sizeof why)) {
        kc_say(stderr, "%s %s\n", kc_costs_origin(o), why);
        rc = 2;
        goto out;
    }
    kc_tally t;
    int problems = kc_merge(&w, outs, nshards, &t, err, 65536);
    for (int k = 0; k < nshards; k++)
        if (from[k]) kc_say(stdout, "shard %d/%d: %s (%ld items)\n", k, nshards, from[k], outs[k].tally.items);
    if (problems) {
        print_problems(problems, err);
        rc = 1;
        goto out;
    }
    if (merged_records(&l, read, taken, recs, nshards, &all)) goto out;
    all.wall_s = longest;
    print_failing(&all);
    kc_run_end e = { .o = o, .tally = &t, .records = &all, .items = (int)t.items,
                     .wall_s = longest,    /* the slowest shard's wall time */
                     .write_reports = 1, .merged = 1,
                     /* the shards of a --rerun-failed run each read the table and left it (so that all
                      * of them select the same items); their merge writes it back, as a run on one
                      * host does, so that what passes now drops out of the next --rerun-failed */
                     .write_costs = o->rerun_failed,
                     /* any other merge records its verdicts in the table its shards were given (or one that
                      * is there), seconds kept, so that the next --rerun-failed round reruns what failed here */
                     .record_verdicts = !o->rerun_failed && (o->costs_given || kc_costs_there(o->costs)) };
    rc = kc_run_end_write(&e);
out:
    for (int i = 0; recs && i < l.n; i++) kc_records_free(&recs[i]);
    kc_records_free(&all);
    loglist_free(&l);
    free(recs);
    free(taken);
    free(read);
    free(wall);
    free(body);
    free(outs);
    free(from);
    free(slice_items);
    free(slice_digest);
    free(err);
    return rc;
}
