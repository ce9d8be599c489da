/* merge.c — owns a shard's outcome as the parent saw it (its TALLY lines, how
 * it ended) and the merge of the shards into the whole run's tally, with every
 * reason the merge refuses (another identity, device or run option than the
 * other shards'). Pure: no I/O, no processes. */
#include "merge.h"

#include "cuda_env.h"
#include "signame.h"
#include "strbuf.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* ---- one shard ---- */

void kc_shard_out_init(kc_shard_out *s, int k)
{
    memset(s, 0, sizeof *s);
    s->k = k;
    kc_tally_init(&s->tally);
}

static int is_tally_line(const char *line) { return strncmp(line, "TALLY", 5) == 0 && (line[5] == ' ' || line[5] == 0); }

void kc_shard_out_line(kc_shard_out *s, const char *line, int cut)
{
    if (!is_tally_line(line)) return;
    s->tallies++;
    if (cut) {
        if (!s->bad[0]) snprintf(s->bad, sizeof s->bad, "a TALLY line longer than the parent keeps (cut)");
        return;
    }
    kc_tally t;
    char why[sizeof s->bad];
    if (kc_tally_parse(line, &t, why, sizeof why) == 0) {
        if (!s->have) {
            s->tally = t;
            s->have = 1;
        }
    } else if (!s->bad[0]) {
        snprintf(s->bad, sizeof s->bad, "%s", why);
    }
}

void kc_shard_out_ended(kc_shard_out *s, int wstatus)
{
    s->ended = 1;
    if (WIFEXITED(wstatus)) {
        s->exited = 1;
        s->status = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
        s->signo = WTERMSIG(wstatus);
    }
}

int kc_shard_out_finished(const kc_shard_out *s)
{
    return s->ended && s->exited && s->tallies > 0 && (!s->need_seal || s->sealed);
}

void kc_shard_out_why(const kc_shard_out *s, char *buf, size_t cap)
{
    char sb[32];
    if (kc_shard_out_finished(s)) snprintf(buf, cap, "%s", "");
    else if (!s->ended) snprintf(buf, cap, "still running");
    else if (s->signo)
        snprintf(buf, cap, "killed by signal %d (%s)%s", s->signo, kc_signal_name(s->signo, sb, sizeof sb),
                 s->stopped ? " after kcontract stopped it" : "");
    else if (s->tallies > 0 && s->need_seal && !s->sealed)
        snprintf(buf, cap, "exited with status %d before its run's end (a TALLY but no end seal: an item's line?)",
                 s->status);
    else snprintf(buf, cap, "exited with status %d without a TALLY", s->status);
}

/* ---- the merge ---- */

/* The problems found so far, one line each (cut at the caller's buffer). */
typedef struct msgs { kc_strbuf sb; int count; } msgs;

/* Starts a shard's line the first time, else continues it with "; ". */
static void problem(msgs *m, int *started, const kc_shard_out *s, int n, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void problem(msgs *m, int *started, const kc_shard_out *s, int n, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!*started) {
        kc_sb_printf(&m->sb, "%sshard %d/%d: %s", m->count ? "\n" : "", s->k, n, text);
        m->count++;
        *started = 1;
    } else {
        kc_sb_printf(&m->sb, "; %s", text);
    }
}

static void check_identity(msgs *m, int *st, const kc_merge_want *w, const kc_shard_out *s)
{
    const kc_tally *t = &s->tally;
    if (t->shard_k != s->k || t->shard_n != w->n)
        problem(m, st, s, w->n, "its TALLY is for shard %d/%d", t->shard_k, t->shard_n);
    if (t->seed != w->seed)
        problem(m, st, s, w->n, "its TALLY is for seed %llu, the run's is %llu: give the merge the --seed the "
                "shards ran (--seed %llu)", (unsigned long long)t->seed, (unsigned long long)w->seed,
                (unsigned long long)t->seed);
    if (t->filter != w->filter)
        problem(m, st, s, w->n, "its TALLY is for filter %016llx (other patterns), the run's is %016llx%s%s%s: "
                "give the merge the PATTERNs and --exclude the shards ran",
                (unsigned long long)t->filter, (unsigned long long)w->filter, w->patterns ? " (the merge's: " : "",
                w->patterns ? w->patterns : "", w->patterns ? ")" : "");
    if (t->build != w->build)
        problem(m, st, s, w->n, "its TALLY is from build %016llx (other contract definitions, kernels or library kernels), the run's is "
                "%016llx (build_id.h)", (unsigned long long)t->build, (unsigned long long)w->build);
    if (t->costs != w->costs) {
        if (!t->costs)
            problem(m, st, s, w->n, "its slice is item i %% N, but the run's is cut by the cost table %s (%016llx): "
                    "every shard takes --costs, or none", w->costs_path ? w->costs_path : "", (unsigned long long)w->costs);
        else if (!w->costs)
            problem(m, st, s, w->n, "its slice was cut by a cost table (%016llx), but the merge has no --costs: give it "
                    "the table the shards were cut from", (unsigned long long)t->costs);
        else
            problem(m, st, s, w->n, "it was cut from cost table %016llx, but %s is %016llx now: the table changed after "
                    "this shard ran (a --jobs run, or a serial run, rewrites it); every shard and the merge "
                    "need the one table, unchanged", (unsigned long long)t->costs, w->costs_path ? w->costs_path : "--costs",
                    (unsigned long long)w->costs);
    }
}

/* Every reason one shard's outcome cannot be merged; returns nonzero if any.
 * Its TALLY's contents are checked only when it is the shard's one TALLY. */
static int check_shard(msgs *m, const kc_merge_want *w, const kc_shard_out *s)
{
    int st = 0;
    char why[256];
    if (!kc_shard_out_finished(s)) {
        kc_shard_out_why(s, why, sizeof why);
        problem(m, &st, s, w->n, s->tallies ? "did not finish: %s" : "no TALLY: %s", why);
    }
    if (s->bad[0]) problem(m, &st, s, w->n, "malformed TALLY: %s", s->bad);
    if (s->tallies > 1) problem(m, &st, s, w->n, "printed %d TALLY lines (one expected)", s->tallies);
    if (s->leak[0]) problem(m, &st, s, w->n, "left processes behind: %s", s->leak);
    if (st || !s->have) return st;
    check_identity(m, &st, w, s);
    int explained = kc_tally_exit_status(&s->tally);
    if (s->exited && s->status != explained)
        problem(m, &st, s, w->n, "exit status %d, but its counts explain %d", s->status, explained);
    if (w->slice_items && w->slice_digest && s->k >= 0 && s->k < w->n && s->tally.costs == w->costs &&
        (s->tally.items != w->slice_items[s->k] || s->tally.digest != w->slice_digest[s->k]))
        problem(m, &st, s, w->n, "ran %ld item%s (digest %016llx), its slice is %ld item%s (digest %016llx): the "
                "merge cuts the slices as the shards did, from the same PATTERNs, --records and --rerun-failed and "
                "a cost table unchanged since they read it (a merge --rerun-failed writes it back: merge once)",
                s->tally.items, s->tally.items == 1 ? "" : "s", (unsigned long long)s->tally.digest,
                w->slice_items[s->k], w->slice_items[s->k] == 1 ? "" : "s", (unsigned long long)w->slice_digest[s->k]);
    return st;
}

/* Each shard 0..n-1 exactly once. */
static void check_coverage(msgs *m, const kc_merge_want *w, const kc_shard_out *outs, int nout)
{
    for (int i = 0; i < nout; i++)
        if (outs[i].k < 0 || outs[i].k >= w->n) {
            kc_sb_printf(&m->sb, "%sa result for shard %d, but the run has shards 0..%d", m->count ? "\n" : "", outs[i].k, w->n - 1);
            m->count++;
        }
    for (int k = 0; k < w->n; k++) {
        int c = 0;
        for (int i = 0; i < nout; i++) c += outs[i].k == k;
        if (c == 1) continue;
        kc_sb_printf(&m->sb, "%sshard %d/%d: %s", m->count ? "\n" : "", k, w->n, c == 0 ? "missing (no result)" : "ran more than once");
        if (c > 1) kc_sb_printf(&m->sb, " (%d results)", c);
        m->count++;
    }
}

/* One run option of a TALLY (tally.h: the options that change verdicts),
 * for the refusal of shards that disagree on it. */
typedef struct run_option {
    const char *option, *key;      /* "--block-size", its TALLY key "block" */
    const char *decides;           /* what it changes, for the refusal's reason */
    int (*differ)(const kc_tally *a, const kc_tally *b);
    void (*say)(const kc_tally *t, char *buf, size_t cap);   /* "--block-size 128 (block=128)" */
} run_option;

static int block_differs(const kc_tally *a, const kc_tally *b) { return a->block_size != b->block_size; }
static int reference_differs(const kc_tally *a, const kc_tally *b) { return a->reference != b->reference; }
static int timeout_differs(const kc_tally *a, const kc_tally *b) { return a->timeout_s != b->timeout_s; }

static void say_block(const kc_tally *t, char *buf, size_t cap)
{
    if (t->block_size) snprintf(buf, cap, "--block-size %u (block=%u)", t->block_size, t->block_size);
    else snprintf(buf, cap, "no --block-size, every launch variant (block=0)");
}

static void say_reference(const kc_tally *t, char *buf, size_t cap)
{
    const char *r = kc_ref_mode_name(t->reference);
    snprintf(buf, cap, "--reference %s (reference=%s)", r, r);
}

static void say_timeout(const kc_tally *t, char *buf, size_t cap)
{
    if (t->timeout_s > 0) snprintf(buf, cap, "--timeout %g (timeout=%g)", t->timeout_s, t->timeout_s);
    else snprintf(buf, cap, "no --timeout, each item's own time limit (timeout=0)");
}

static const run_option RUN_OPTIONS[] = {
    { "--block-size", "block", "which launch variants are checked", block_differs, say_block },
    { "--reference", "reference", "which float64 reference gate 3 compares with", reference_differs, say_reference },
    { "--timeout", "timeout", "when an item is a TIMEOUT (a longer limit passes what a shorter one fails)",
      timeout_differs, say_timeout },
};
#define NRUN_OPTIONS (sizeof RUN_OPTIONS / sizeof RUN_OPTIONS[0])

/* Shards must have run with the same options that change verdicts (block=,
 * reference=, timeout=): a merge of a shard run with --block-size 128 and
 * one without would read green where the unsharded run fails. Each shard is
 * held to the first one with a TALLY; the merged tally takes its options. */
static void merge_options(msgs *m, const kc_merge_want *w, const kc_shard_out *outs, int nout, kc_tally *t)
{
    const kc_shard_out *first = NULL;
    for (int i = 0; i < nout && !first; i++)
        if (outs[i].have) first = &outs[i];
    if (!first) return;
    t->block_size = first->tally.block_size;
    t->reference = first->tally.reference;
    t->timeout_s = first->tally.timeout_s;
    for (int i = 0; i < nout; i++) {
        if (!outs[i].have || &outs[i] == first) continue;
        for (size_t o = 0; o < NRUN_OPTIONS; o++) {
            const run_option *r = &RUN_OPTIONS[o];
            if (!r->differ(&outs[i].tally, &first->tally)) continue;
            char mine[96], theirs[96];
            r->say(&outs[i].tally, mine, sizeof mine);
            r->say(&first->tally, theirs, sizeof theirs);
            kc_sb_printf(&m->sb, "%sshard %d/%d: ran with %s, shard %d/%d with %s: shards merge only when run with the "
                         "same %s (TALLY %s=), which decides %s; run them again with one %s",
                         m->count ? "\n" : "", outs[i].k, w->n, mine, first->k, w->n, theirs, r->option, r->key,
                         r->decides, r->option);
            m->count++;
        }
    }
}

/* Shards must have run the same host code and CUDA environment (TALLY
 * host=, env=: kc_tally_set_host_env): a shard whose float64 references were
 * built by another compiler or from another commit, or that ran under
 * NVIDIA_TF32_OVERRIDE or CUDA_FORCE_PTX_JIT, is another run, which the
 * build identity (build_id.h) does not see. host= is compared where two
 * shards say it (absent: not known); env= always (absent: none set, as a run
 * without one writes it). Each shard is held to the first; the merged
 * tally takes its values. */
static void merge_host_env(msgs *m, const kc_merge_want *w, const kc_shard_out *outs, int nout, kc_tally *t)
{
    const kc_shard_out *host = NULL, *env = NULL;
    char grep[400];
    for (int i = 0; i < nout; i++) {
        const kc_tally *s = &outs[i].tally;
        if (!outs[i].have) continue;
        if (!env) {
            env = &outs[i];
            t->env = s->env;
        } else if (s->env != env->tally.env) {
            kc_sb_printf(&m->sb, "%sshard %d/%d: ran under CUDA environment %016llx, shard %d/%d under %016llx "
                         "(TALLY env=, absent: none set; cuda_env.h: the CUDA_*, CUBLAS* and NVIDIA_TF32_OVERRIDE "
                         "variables, which change what kernels and cuBLAS compute): shards merge only when run under "
                         "the same ones; compare `%s` on the hosts",
                         m->count ? "\n" : "", outs[i].k, w->n, (unsigned long long)s->env, env->k, w->n,
                         (unsigned long long)env->tally.env, kc_cuda_env_grep(grep, sizeof grep));
            m->count++;
        }
        if (!s->host) continue;
        if (!host) {
            host = &outs[i];
            t->host = s->host;
        } else if (s->host != host->tally.host) {
            kc_sb_printf(&m->sb, "%sshard %d/%d: ran host code %016llx, shard %d/%d host code %016llx (TALLY host=, "
                         "host_code.h: the float64 references, input generators and launch functions that gate 3 "
                         "rests on): shards merge only when they ran one binary's host code; build once and run that "
                         "binary on every host, or build each from one commit with one compiler",
                         m->count ? "\n" : "", outs[i].k, w->n, (unsigned long long)s->host, host->k, w->n,
                         (unsigned long long)host->tally.host);
            m->count++;
        }
    }
}

static int same_device(const kc_tally *a, const kc_tally *b)
{
    return strcmp(a->device, b->device) == 0 && a->cc_major == b->cc_major && a->cc_minor == b->cc_minor &&
           a->sm_count == b->sm_count;
}

/* Shards that used a GPU must agree on it; the merged tally takes it. */
static void merge_device(msgs *m, const kc_merge_want *w, const kc_shard_out *outs, int nout, kc_tally *t)
{
    const kc_shard_out *first = NULL;
    for (int i = 0; i < nout; i++) {
        const kc_tally *s = &outs[i].tally;
        if (!outs[i].have || strcmp(s->device, "none") == 0) continue;
        if (!first) {
            first = &outs[i];
            snprintf(t->device, sizeof t->device, "%s", s->device);
            t->cc_major = s->cc_major;
            t->cc_minor = s->cc_minor;
            t->sm_count = s->sm_count;
        } else if (!same_device(&first->tally, s) && !w->allow_mixed_gpus) {
            kc_sb_printf(&m->sb, "%sshard %d/%d: ran on '%s' (cc %d.%d, %d SMs), shard %d/%d on '%s' (cc %d.%d, %d SMs)%s",
                m->count ? "\n" : "", outs[i].k, w->n, s->device, s->cc_major, s->cc_minor, s->sm_count, first->k,
                w->n, first->tally.device, first->tally.cc_major, first->tally.cc_minor, first->tally.sm_count,
                " (kcontract merge --allow-mixed-gpus merges them anyway)");
            m->count++;
        }
    }
}

int kc_merge(const kc_merge_want *w, const kc_shard_out *outs, int nout, kc_tally *out, char *err, size_t errcap)
{
    msgs m = { .count = 0 };
    kc_sb_init(&m.sb, err, errcap);
    if (err && errcap) err[0] = 0;
    kc_tally t;
    kc_tally_init(&t);
    check_coverage(&m, w, outs, nout);
    int all_good = 1;
    for (int i = 0; i < nout; i++) {
        all_good &= check_shard(&m, w, &outs[i]) == 0;
        if (outs[i].have && kc_tally_merge(&t, &outs[i].tally)) {
            kc_sb_printf(&m.sb, "%sshard %d/%d: its counts cannot be added to the other shards' (they pass %ld)", m.count ? "\n" : "",
                outs[i].k, w->n, LONG_MAX);
            m.count++;
            all_good = 0;
        }
    }
    merge_device(&m, w, outs, nout, &t);
    merge_options(&m, w, outs, nout, &t);
    merge_host_env(&m, w, outs, nout, &t);
    if (all_good && (t.items != w->items || t.digest != w->digest)) {
        kc_sb_printf(&m.sb, "%sthe shards' item sets do not add up to the filtered set: %ld items (digest %016llx), expected %ld (digest %016llx)",
            m.count ? "\n" : "", t.items, (unsigned long long)t.digest, w->items, (unsigned long long)w->digest);
        m.count++;
    }
    if (m.count) return m.count;
    t.seed = w->seed;
    t.filter = w->filter;
    t.build = w->build;
    t.shard_k = 0;
    t.shard_n = 1;
    *out = t;
    return 0;
}
