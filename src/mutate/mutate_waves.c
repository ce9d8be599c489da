/* mutate_waves.c — the waves of a mutation run (mutate_waves.h): the
 * manifests of the mutants a wave runs, this binary's own `run` over them
 * with the options a mutation run passes on (its shard slice, its time
 * limits, its restart cap), and that run's lines read back into each mutant
 * item's outcome and each mutant's; wave 1 and 2 routed (mutate_route.h),
 * wave 0 every contract of each mutant's module. */
#include "mutate_waves.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child_run.h"
#include "mutant_images.h"
#include "progname.h"
#include "shell_words.h"
#include "signame.h"
#include "tally.h"

int kc_mutate_parse_line(const char *line, kc_state *state, char *contract, size_t ccap, char *id, size_t icap,
                         int *gate)
{
    const char *p = line;
    if (*p == '[') {                                 /* "[w3] " */
        const char *e = strchr(p, ']');
        if (!e || e[1] != ' ') return 0;
        p = e + 2;
    }
    char word[16];
    size_t n = strcspn(p, " ");
    if (!n || n >= sizeof word) return 0;
    memcpy(word, p, n);
    word[n] = 0;
    int s = kc_state_parse(word);
    if (s < 0) return 0;
    p += n;
    p += strspn(p, " ");
    size_t nl = strcspn(p, " ");
    const char *mark = memmem(p, nl, ":mutant.", 8);
    if (!mark) return 0;
    size_t cl = (size_t)(mark - p), il = nl - cl - 8;
    if (cl + 1 > ccap || il + 1 > icap || il != 12) return 0;
    memcpy(contract, p, cl);
    contract[cl] = 0;
    memcpy(id, mark + 8, il);
    id[il] = 0;
    *state = (kc_state)s;
    *gate = 0;
    const char *g = strstr(p + nl, "caught by gate ");
    if (g && g[15] >= '1' && g[15] <= '5') *gate = g[15] - '0';
    return 1;
}

static int find_mutant(const kc_mutants *m, const char *id)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->v[i].id, id)) return i;
    return -1;
}

/* A SKIP item line's message ("no GPU"): between the item's name and its
 * "  (0.00 s)", into buf. */
static void skip_message(const char *line, size_t len, char *buf, size_t cap)
{
    const char *p = line, *end = line + len;
    if (*p == '[') p = memchr(p, ' ', (size_t)(end - p));           /* "[w0] " */
    for (int field = 0; p && field < 2 && p < end; field++) {        /* the state word, the name */
        p += strspn(p, " ");
        p = memchr(p, ' ', (size_t)(end - p));
    }
    if (!p) {
        snprintf(buf, cap, "skipped");
        return;
    }
    p += strspn(p, " ");
    const char *q = end;
    for (const char *r = p; (r = memmem(r, (size_t)(end - r), "  (", 3)) != NULL; r++) q = r;   /* the last: its time */
    snprintf(buf, cap, "%.*s", (int)(q > p ? q - p : 0), p);
}

int kc_mut_end_line(kc_mut_run_end *end, const char *line, size_t len)
{
    if (len < 6 || strncmp(line, "TALLY ", 6) != 0) return 0;
    char buf[8192], err[256];
    kc_tally t;
    snprintf(buf, sizeof buf, "%.*s", (int)len, line);
    end->tally = len < sizeof buf && kc_tally_parse(buf, &t, err, sizeof err) == 0;
    end->untrusted = end->tally ? t.untrusted : 0;
    for (int s = 0; s < KC_STATE_COUNT; s++) end->control[s] = end->tally ? t.n[KC_KIND_CONTROL][s] : 0;
    return 1;
}

int kc_mut_run_end_check(const kc_mut_run_end *end, int ws, char *why, size_t cap)
{
    char sb[32];
    if (!end->tally) {
        if (WIFSIGNALED(ws))
            snprintf(why, cap, "was killed by signal %d (%s) before its TALLY line", WTERMSIG(ws),
                     kc_signal_name(WTERMSIG(ws), sb, sizeof sb));
        else
            snprintf(why, cap, "exited %d without its TALLY line", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        return 2;
    }
    if (end->untrusted) {
        snprintf(why, cap, "is not trusted: its TALLY says untrusted=%ld (a line above says why)", end->untrusted);
        return 1;
    }
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 4) {
        snprintf(why, cap, "exited 4 after its TALLY line: a report of its could not be written (a line above says "
                 "why)");
        return 3;
    }
    return 0;
}

/* "N[ mutant item[s]] (RED a, MISSED b)": the count of n[0..KC_STATE_COUNT),
 * with the noun when noun, and its nonzero states, into buf. */
static void state_counts(const long *n, int noun, char *buf, size_t cap)
{
    long total = 0;
    for (int s = 0; s < KC_STATE_COUNT; s++) total += n[s];
    int len = snprintf(buf, cap, "%ld%s%s", total, noun ? " mutant item" : "", noun && total != 1 ? "s" : "");
    const char *sep = " (";
    for (int s = 0; s < KC_STATE_COUNT && len >= 0 && (size_t)len < cap; s++) {
        if (!n[s]) continue;
        len += snprintf(buf + len, cap - (size_t)len, "%s%s %ld", sep, kc_state_name((kc_state)s), n[s]);
        sep = ", ";
    }
    if (total && len >= 0 && (size_t)len < cap) snprintf(buf + len, cap - (size_t)len, ")");
}

int kc_mut_wave_lines_check(const kc_mut_run_ctx *rx, int from, const kc_mut_pair *handed, int nhanded, int whole,
                            char *why, size_t cap, char *item, size_t icap)
{
    char first[400] = "";
    item[0] = 0;
    int *seen = calloc((size_t)nhanded + 1, sizeof *seen);
    if (!seen) {
        snprintf(why, cap, "could not be checked against its TALLY: out of memory");
        return 1;
    }
    /* each line of an item handed, at most one per item */
    for (int k = from; k < rx->nitems && !first[0]; k++) {
        const kc_mut_item *it = &rx->items[k];
        const char *id = rx->m->v[it->mutant].id;
        int p = 0;
        while (p < nhanded && !(handed[p].mutant == it->mutant && !strcmp(handed[p].contract, it->contract))) p++;
        snprintf(item, icap, "%s:mutant.%s", it->contract, id);
        if (p == nhanded)
            snprintf(first, sizeof first, "a line of item %s:mutant.%s, which it was not handed", it->contract, id);
        else if (++seen[p] == 2)
            snprintf(first, sizeof first, "item %s:mutant.%s has 2 lines, 1 expected", it->contract, id);
    }
    if (!first[0] && rx->stray) {
        snprintf(item, icap, "%s", rx->stray_item);
        snprintf(first, sizeof first, "a line of item %s, a mutant it was not handed", rx->stray_item);
    }
    for (int p = 0; whole && !first[0] && p < nhanded; p++)
        if (!seen[p]) {
            snprintf(item, icap, "%s:mutant.%s", handed[p].contract, rx->m->v[handed[p].mutant].id);
            snprintf(first, sizeof first, "item %s has no line, 1 expected", item);
        }
    free(seen);
    int counts = 0;
    for (int s = 0; s < KC_STATE_COUNT; s++) counts |= rx->lines[s] != rx->end.control[s];
    if (!first[0] && !counts) return 0;
    if (!first[0]) item[0] = 0;
    char tally[200], lines[200];
    state_counts(rx->end.control, 1, tally, sizeof tally);
    state_counts(rx->lines, 0, lines, sizeof lines);
    snprintf(why, cap, "printed lines that do not add up to its TALLY: %s%sthe TALLY counts %s, its lines %s", first,
             first[0] ? "; " : "", tally, lines);
    return 1;
}

/* The rank of a mutant's outcome, of its items' the highest: caught by any
 * contract; else a timeout; else not run for another reason than a skip (a
 * run cut short, restarts used up: a contract that might catch it did not
 * run, so it is undecided, never missed); else missed (a contract ran it and
 * it survived: a contract that skips it, with no GPU or no compute-sanitizer
 * here, does not hide that, as cargo-mutants and Mull count a mutant that a
 * test ran against and survived missed); else not run because every item of
 * it was SKIP (nothing could run it here: exit 3). */
static int outcome_rank(kc_mut_state s, int skipped)
{
    return s == KC_MUT_CAUGHT ? 5 : s == KC_MUT_TIMEOUT ? 4 : s == KC_MUT_NOTRUN ? (skipped ? 1 : 3)
         : s == KC_MUT_MISSED ? 2 : 0;
}

/* The run's lines: printed as they come, and each mutant item's state kept. */
static void on_run_line(void *ctx, int err, const char *line, size_t len)
{
    kc_mut_run_ctx *r = ctx;
    fprintf(err ? stderr : stdout, "%.*s\n", (int)len, line);
    if (err) return;
    fflush(stdout);
    if (kc_mut_end_line(&r->end, line, len)) return;
    kc_state s;
    char contract[160], id[16];
    int gate;
    if (!kc_mutate_parse_line(line, &s, contract, sizeof contract, id, sizeof id, &gate)) return;
    r->lines[s]++;          /* every mutant item line, for kc_mut_wave_lines_check */
    int i = find_mutant(r->m, id);
    if (i < 0 && !r->stray++) snprintf(r->stray_item, sizeof r->stray_item, "%s:mutant.%s", contract, id);
    if (i < 0) return;
    if (r->nitems == r->cap) {
        int cap = r->cap ? r->cap * 2 : 256;
        kc_mut_item *v = realloc(r->items, (size_t)cap * sizeof *v);
        if (!v) { r->oom = 1; return; }
        r->items = v;
        r->cap = cap;
    }
    kc_mut_item *it = &r->items[r->nitems++];
    memset(it, 0, sizeof *it);
    it->mutant = i;
    snprintf(it->contract, sizeof it->contract, "%s", contract);
    it->state = s == KC_RED ? KC_MUT_CAUGHT : s == KC_MISSED ? KC_MUT_MISSED
              : s == KC_TIMEOUT || s == KC_CRASH ? KC_MUT_TIMEOUT : KC_MUT_NOTRUN;
    it->gate = gate;
    kc_mut_status *st = &r->st[i];
    const int skipped = s == KC_SKIP;
    if (it->state == KC_MUT_MISSED) st->missed = 1;
    /* wave 2: its first contract missed it in wave 1 (st VIABLE again,
     * undecided until wave 2 runs it); a contract that skips it cannot undo
     * that miss, so it stands until a verdict above it comes */
    if (skipped && st->state == KC_MUT_VIABLE && st->missed) st->state = KC_MUT_MISSED;
    int rank_new = outcome_rank(it->state, skipped), rank_old = outcome_rank(st->state, st->skipped);
    if (rank_new > rank_old) {
        st->state = it->state;
        st->gate = gate;
        snprintf(st->item, sizeof st->item, "%s:mutant.%s", contract, id);
        st->skipped = skipped;
        if (skipped) skip_message(line, len, st->why, sizeof st->why);
    }
}

int kc_mut_write_manifest(const char *path, const char *dir, const char *ext, const kc_mutants *m,
                          const unsigned char *in, int gate, const kc_mut_routes *routes, const kc_item *items,
                          int wave, char *err, size_t cap)
{
    FILE *f = fopen(path, "w");
    if (!f) return snprintf(err, cap, "cannot write %s: %s", path, strerror(errno)), -1;
    fprintf(f, "# kcontract mutate: the viable mutants (KC_MUTANTS; docs/mutation.md)\n");
    static char judges[8192];
    for (int i = 0; i < m->n; i++) {
        if (!in[i]) continue;
        judges[0] = 0;
        if (routes && wave) {
            int k = kc_mut_route_names(routes, items, i, wave, judges, sizeof judges);
            if (k < 0) {
                fclose(f);
                return snprintf(err, cap, "the contracts that judge mutant %s do not fit in a line of %s", m->v[i].id,
                                path), -1;
            }
            if (k == 0) continue;
        }
        char img[1200];
        kc_mutant_path(img, sizeof img, dir, m->v[i].module, m->v[i].id, ext);
        fprintf(f, "mutant %s %s %d %s %s %s:%d%s%s\n", m->v[i].id, m->v[i].module, gate, img, m->v[i].op->name,
                m->v[i].file, m->v[i].line, judges[0] ? " contracts=" : "", judges);
    }
    return fclose(f) ? (snprintf(err, cap, "writing %s failed", path), -1) : 0;
}

/* Whether mutant i runs in wave 2: another contract than its first reaches it. */
static int second_wave(const kc_mut_routes *r, int i)
{
    for (int j = 0; j < r->nj; j++)
        if (kc_mut_route_in_wave(r, i, j, 2)) return 1;
    return 0;
}

/* Pushes "<contract>:mutant.*" for the contracts a wave runs: wave 0 every
 * selected contract of a module with a mutant i in the wave (in[i]), wave 1
 * and 2 each contract that judges such a mutant in it (mutate_route.h; the
 * manifest gives it only those items: a pattern that matches nothing is
 * refused by run). Returns how many, -1 out of memory. */
static int push_wave(kc_strvec *av, const unsigned char *judge, const kc_item *items, int n, const kc_mutants *m,
                     const unsigned char *in, const kc_mut_routes *r, int wave)
{
    int pushed = 0;
    for (int k = 0, j = -1; k < n; k++) {
        if (!judge[k]) continue;
        j++;
        const kc_item *it = &items[k];
        int has = 0;
        for (int i = 0; i < m->n && !has; i++)
            has = in[i] && (r && wave ? kc_mut_route_in_wave(r, i, j, wave)
                                      : !strcmp(m->v[i].module, it->contract->module));
        if (!has) continue;
        char buf[256];
        snprintf(buf, sizeof buf, "%s:mutant.*", it->contract->name);
        if (kc_strvec_push(av, buf)) return -1;
        pushed++;
    }
    return pushed;
}

/* How many items a wave runs: (mutant, judging contract) pairs. */
static long wave_items(const unsigned char *judge, const kc_item *items, int n, const kc_mutants *m,
                       const unsigned char *in, const kc_mut_routes *r, int wave)
{
    long k = 0;
    for (int i = 0; i < m->n; i++) {
        if (!in[i]) continue;
        for (int c = 0, j = -1; c < n; c++) {
            if (!judge[c]) continue;
            j++;
            k += r && wave ? kc_mut_route_in_wave(r, i, j, wave) : !strcmp(items[c].contract->module, m->v[i].module);
        }
    }
    return k;
}

/* The items a wave runs, (mutant, judging contract) as wave_items counts
 * them, into *out (malloc'd; the caller frees it). Their count, -1 out of
 * memory. */
static long handed_pairs(const unsigned char *judge, const kc_item *items, int n, const kc_mutants *m,
                         const unsigned char *in, const kc_mut_routes *r, int wave, kc_mut_pair **out)
{
    long k = wave_items(judge, items, n, m, in, r, wave);
    *out = malloc(((size_t)k + 1) * sizeof **out);
    if (!*out) return -1;
    k = 0;
    for (int i = 0; i < m->n; i++) {
        if (!in[i]) continue;
        for (int c = 0, j = -1; c < n; c++) {
            if (!judge[c]) continue;
            j++;
            if (r && wave ? kc_mut_route_in_wave(r, i, j, wave) : !strcmp(items[c].contract->module, m->v[i].module))
                (*out)[k++] = (kc_mut_pair){ i, items[c].contract->name };
        }
    }
    return k;
}

/* None of a wave's verdicts count (why: its run's, "is not trusted: ..."):
 * each of its mutants (in[i]) is not run, its items from `from` on dropped,
 * and stderr says so, with the command that reruns `item` when one is named
 * (manifest: the wave's). */
static void refuse_wave(const kc_opts *o, const kc_mutants *m, const unsigned char *in, int wave, int from,
                        const char *why, int status, const char *manifest, const char *item, kc_mut_run_ctx *rx)
{
    int k = 0;
    for (int i = 0; i < m->n; i++) {
        if (!in[i]) continue;
        kc_mut_status *st = &rx->st[i];
        st->state = KC_MUT_NOTRUN;
        st->gate = st->skipped = 0;
        st->item[0] = 0;
        snprintf(st->why, sizeof st->why, "its run (wave %d) %s", wave, why);
        k++;
    }
    rx->nitems = from;
    kc_say(stderr, "mutate: the mutants' run (wave %d) %s: none of its verdicts count; its %d mutant%s %s "
           "not run (--iterate runs %s again), and mutate exits %d\n", wave, why, k, k == 1 ? "" : "s",
           k == 1 ? "is" : "are", k == 1 ? "it" : "them", status);
    if (item && *item) {
        char cmd[2048];
        int len = 0;
        cmd[0] = 0;
        kc_shell_append_assign(cmd, sizeof cmd, &len, KC_MUTANTS_ENV, manifest);
        kc_say(stderr, "mutate: to rerun that item: %s %s run '%s'\n", cmd + (cmd[0] == ' '), o->argv0, item);
    }
}

int kc_mut_push_run(kc_strvec *av, const kc_opts *o)
{
    char buf[64];
    int oom = kc_strvec_push(av, o->argv0) | kc_strvec_push(av, "run");
    snprintf(buf, sizeof buf, "%d", o->jobs > 0 ? o->jobs : 1);
    oom |= kc_strvec_push(av, "--jobs") | kc_strvec_push(av, buf);
    if (o->timeout_s > 0) {
        snprintf(buf, sizeof buf, "%g", o->timeout_s);
        oom |= kc_strvec_push(av, "--timeout") | kc_strvec_push(av, buf);
    }
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->seed);
    oom |= kc_strvec_push(av, "--seed") | kc_strvec_push(av, buf);
    if (o->device_given) {
        snprintf(buf, sizeof buf, "%d", o->device);
        oom |= kc_strvec_push(av, "--device") | kc_strvec_push(av, buf);
    }
    if (o->inflight > 1) {
        snprintf(buf, sizeof buf, "%d", o->inflight);
        oom |= kc_strvec_push(av, "--inflight") | kc_strvec_push(av, buf);
    }
    return oom;
}

int kc_mutate_wave_slice(const kc_opts *o, int wave, const char *mutant_costs, kc_strvec *av)
{
    char buf[64];
    int oom = 0;
    if (o->sharded && wave != 2) {
        snprintf(buf, sizeof buf, "%d/%d", o->shard_k, o->shard_n);
        oom |= kc_strvec_push(av, "--shard") | kc_strvec_push(av, buf);
    }
    /* A sharded wave partitions by cost only with a table the user gave (one
     * file every host reads): the mutants' own table is rewritten by each run's
     * baseline and wave 2, so two shards that read it cut different slices (on
     * the H200, shards 0/2 and 1/2 run one after the other both ran 328 mutants
     * and neither ran 327). Without it the slices are by name (shard.c). */
    if (o->costs_given)
        oom |= kc_strvec_push(av, "--costs") | kc_strvec_push(av, o->costs);
    else if (!(o->sharded && wave != 2))
        oom |= kc_strvec_push(av, "--costs") | kc_strvec_push(av, mutant_costs);
    return oom;
}

int kc_mut_run_wave(const kc_opts *o, const unsigned char *judge, const kc_item *items, int n, const kc_mutants *m,
                    const unsigned char *in, const kc_mut_routes *routes, const char *manifest, int wave,
                    kc_mut_run_ctx *rx)
{
    char err[2048], buf[256], costs[1300];
    setenv(KC_MUTANTS_ENV, manifest, 1);
    kc_strvec av = KC_STRVEC_INIT;
    int oom = kc_mut_push_run(&av, o);
    /* the wave's own report (every item's times and worker): nothing the run measured is lost */
    char wjson[1300];
    snprintf(wjson, sizeof wjson, "%s/run-wave%d.json", o->mut_dir ? o->mut_dir : KC_MUT_DEFAULT_DIR, wave);
    oom |= kc_strvec_push(&av, "--json") | kc_strvec_push(&av, wjson);
    /* a mutant that crashes or hangs costs its worker, which is its verdict, not a
     * failed start: the run's restart cap (2 x N + 8) would end a library run
     * early (on the H200 397 of 1507 mutants were NOTRUN by it). Each item may
     * cost two workers (its run, and its run alone after a neighbour's fault). */
    long cap = 2 * wave_items(judge, items, n, m, in, routes, wave) + 2L * (o->jobs > 0 ? o->jobs : 1) + 8;
    snprintf(buf, sizeof buf, "%ld", cap < 1000000 ? cap : 1000000);
    oom |= kc_strvec_push(&av, "--restarts") | kc_strvec_push(&av, buf);
    snprintf(costs, sizeof costs, "%s/costs.tsv", o->mut_dir ? o->mut_dir : KC_MUT_DEFAULT_DIR);
    oom |= kc_mutate_wave_slice(o, wave, costs, &av);
    oom |= kc_strvec_push(&av, "--");
    int pushed = oom ? -1 : push_wave(&av, judge, items, n, m, in, routes, wave);
    if (pushed < 0 || rx->oom) {
        kc_strvec_clear(&av);
        kc_say(stderr, "mutate: out of memory\n");
        return 4;
    }
    if (!pushed) {
        kc_strvec_clear(&av);
        return 0;
    }
    if (wave == 2) {
        int k = 0;
        for (int i = 0; i < m->n; i++) k += in[i] != 0;
        printf("mutate: %d mutant%s that their first contract missed: on to the module's other contracts that reach "
               "them\n", k, k == 1 ? "" : "s");
        fflush(stdout);
    }
    int intr = 0, rc = 0, from = rx->nitems;
    memset(&rx->end, 0, sizeof rx->end);
    memset(rx->lines, 0, sizeof rx->lines);
    rx->stray = 0;
    rx->stray_item[0] = 0;
    int ws = kc_child_run("/proc/self/exe", av.v, on_run_line, rx, &intr, err, sizeof err);
    kc_strvec_clear(&av);
    if (ws < 0 || intr) {
        kc_say(stderr, "mutate: the mutants' run %s\n", intr ? "was interrupted" : err);
        rc = ws < 0 ? 4 : 130;
    } else if (WIFEXITED(ws) && WEXITSTATUS(ws) == 2) {
        kc_say(stderr, "mutate: the mutants' run refused its command line (exit 2; above)\n");
        rc = 4;
    } else {
        /* Its item lines count only when the run vouches for them: a run
         * that did not reach its TALLY printed only some of what it ran,
         * and an untrusted one's RED lines would make a score, and an exit
         * 0, of a run that `run` itself calls not green. A trusted one's
         * lines count only when they add up to what it was handed and to
         * its TALLY: a line its items printed themselves (a host function's
         * or a kernel's printf) reads as a verdict too. */
        char why[400], item[200] = "";
        int bad = kc_mut_run_end_check(&rx->end, ws, why, sizeof why);
        if (bad == 1 || bad == 2) {
            refuse_wave(o, m, in, wave, from, why, bad == 2 ? 4 : 1, manifest, NULL, rx);
            if (bad == 2) rc = 4;
        } else {
            kc_mut_pair *handed = NULL;
            long nh = handed_pairs(judge, items, n, m, in, routes, wave, &handed);
            int odd = nh < 0 ? (snprintf(why, sizeof why, "could not be checked against its TALLY: out of memory"), 1)
                             : kc_mut_wave_lines_check(rx, from, handed, (int)nh, !(o->sharded && wave != 2), why,
                                                       sizeof why, item, sizeof item);
            free(handed);
            if (odd) {
                refuse_wave(o, m, in, wave, from, why, 1, manifest, item, rx);
            } else if (bad == 3) {
                /* mutate reads the wave's lines, which its TALLY vouches for
                 * and which add up, never its report (run-wave<K>.json) */
                rx->reports_failed = 1;
                kc_say(stderr, "mutate: the mutants' run (wave %d) %s: its verdicts count (mutate reads its lines, "
                       "which its TALLY vouches for and which add up, not that report), and mutate exits 4 unless a "
                       "mutant fails it (1)\n", wave, why);
            }
        }
    }
    return rc;
}

/* Writes the manifest DIR/<name> of the mutants in[i] for wave `wave` and
 * runs it (kc_mut_run_wave). */
static int routed_wave(const kc_mut_waves *w, const kc_mut_routes *r, const char *name, int wave, kc_mut_run_ctx *rx)
{
    char err[1024], man[PATH_MAX + 64];
    snprintf(man, sizeof man, "%s/%s", w->absdir, name);
    if (kc_mut_write_manifest(man, w->absdir, w->ext, w->m, w->in, w->gate, r, w->items, wave, err, sizeof err)) {
        kc_say(stderr, "mutate: %s\n", err);
        return 4;
    }
    return kc_mut_run_wave(w->o, w->judge, w->items, w->n, w->m, w->in, r, man, wave, rx);
}

int kc_mut_run_waves(const kc_mut_waves *w, kc_mut_run_ctx *rx)
{
    char err[1024];
    kc_mut_routes r;
    if (kc_mut_route(w->mods, w->nmods, w->m, w->items, w->n, w->judge, &r, err, sizeof err)) {
        kc_say(stderr, "mutate: %s\n", err);
        return 4;
    }
    int rc = routed_wave(w, &r, "mutants-wave1.list", 1, rx);
    int second = 0;
    for (int i = 0; i < w->m->n; i++) {
        w->in[i] = w->st[i].state == KC_MUT_MISSED && second_wave(&r, i);
        if (w->in[i]) {
            w->st[i].state = KC_MUT_VIABLE;
            second++;
        }
    }
    if (!rc && second) rc = routed_wave(w, &r, "mutants-missed.list", 2, rx);
    kc_mut_routes_free(&r);
    return rc;
}
