/* sanitize_batch.c — the sanitizer gate over several :sanitize items at once
 * (sanitize_batch.h): memcheck for each, racecheck for them in one batch
 * request and its verdict rule, then initcheck and synccheck for each. One
 * item's plan and tool runs are sanitize_plan.h's. */
#include "sanitize_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "gates.h"
#include "proctree.h"
#include "sanitize.h"
#include "sanitize_plan.h"
#include "sanitizer_report.h"
#include "strbuf.h"

/* ---- several items: racecheck in batches ---------------------------------- */

/* Item `name`'s block of a batch's window out (its begin line to its end
 * line) into dst (cap bytes). 0, or -1 when the window has no such block. */
static int batch_block(const char *out, const char *name, char *dst, size_t cap)
{
    char begin[512], end[512];
    snprintf(begin, sizeof begin, KC_SAN_TARGET_BEGIN "%s\n", name);
    snprintf(end, sizeof end, KC_SAN_TARGET_END "%s\n", name);
    const char *b = strstr(out, begin), *e = b ? strstr(b, end) : NULL;
    if (!e) return -1;
    snprintf(dst, cap, "%.*s", (int)(e + strlen(end) - b), b);
    return 0;
}

/* The reports racecheck's summary in text counts: its errors and warnings
 * ("RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"; the
 * hazards displayed may count its Info notes, which are no report, so N is
 * not used), from the last such line; -1 when text holds none. */
static long summary_reports(const char *text)
{
    const char *key = "RACECHECK SUMMARY:", *last = NULL;
    for (const char *p = text; (p = strstr(p, key)) != NULL; p++) last = p;
    const char *paren = last ? strchr(last, '(') : NULL, *nl = last ? strchr(last, '\n') : NULL;
    const char *comma = paren ? strchr(paren, ',') : NULL;
    long e, w;
    if (!comma || (nl && comma > nl) || sscanf(paren, "(%ld error", &e) != 1 || sscanf(comma, ", %ld warning", &w) != 1)
        return -1;
    return e + w;
}

/* Tool t for item i of a batch, alone in the pool's session (kc_san_run_tool), its
 * time added to secs[i]. 1 when the item is decided. */
static int timed_tool(san_plan *p, kc_san_pool *pool, int t, kc_san_window *w, kc_item_result *out, char *ok,
                      size_t okcap, double *secs)
{
    double t0 = kc_now_s();
    int decided = kc_san_run_tool(p, pool, t, kc_san_tool_limit_s(p->it), "", "", w, out, ok, okcap);
    *secs += kc_now_s() - t0;
    return decided;
}

/* Why the batch's reports (batch_out: its window and what its session
 * printed until it ended, its summary too; NULL: not kept) are not all
 * accounted for by its items' runs alone (alone; NULL: not kept), into why:
 * a report none of them gave (each of theirs accounts for one equal
 * report), a summary counting more reports than they gave together (the
 * session's earlier windows were clean: one with an error ends it), or
 * output past what is kept with no summary to count it. 0 when accounted. */
static int batch_unexplained(const char *batch_out, int dropped, const char *alone, char *why, size_t cap)
{
    char line[1000];
    if (!batch_out || !alone) return snprintf(why, cap, "out of host memory to compare the runs"), 1;
    if (kc_sanitizer_unmatched(batch_out, alone, line, sizeof line))
        return snprintf(why, cap, "racecheck: %s", line), 1;
    long counted = summary_reports(batch_out);
    int mine = kc_sanitizer_count(alone);
    if (counted > mine)
        return snprintf(why, cap, "its racecheck summary counts %ld report%s, its items' runs alone %d", counted,
                        counted == 1 ? "" : "s", mine), 1;
    if (counted < 0 && dropped)
        return snprintf(why, cap, "more output than is kept, and no summary to count its reports"), 1;
    return 0;
}

static void race_batch(san_plan **p, const int *x, int nb, kc_san_pool *pool, kc_san_window *w, kc_item_result *outs,
                       char (*ok)[600], int *decided, double *secs, int again);

/* The items of a racecheck batch whose window was not clean (p[x[0..nb)]),
 * each run alone (the pool's session, started afresh: run_tool_as), whose
 * run decides it when it fails. Then, with `again` and an item FAILed by a
 * report of its own run alone (not a time limit, a crash, or a report out of
 * order), those that passed alone run together once more without the
 * decided ones (race_batch, once: its items alone again, then the rule
 * below). A racy kernel's reports change from run to run (which pairs of
 * places, error or warning, how many: on an H100 one planted race gave
 * another pair in a batch than alone, and a batch summary counted 36 reports
 * where its items alone gave 30; docs/receipts/
 * 2026-12-06-planted-race-batches), so the batch's reports cannot be matched
 * with the runs alone; a batch of one would be its run alone again. Else the
 * batch's rule: reports of the batch that the runs alone do not account for
 * (batch_unexplained) are no item's known error, so every item of it not
 * already decided by its own run FAILs, as a report out of order fails an
 * item in a session (run_tool_as). One item's own race explains one report
 * of the batch, never another. secs: each item's seconds, raised by its run. */
static void batch_alone(san_plan **p, const int *x, int nb, kc_san_pool *pool, const char *batch_out, int dropped,
                        int earlier, kc_san_window *w, kc_item_result *outs, char (*ok)[600], int *decided, double *secs,
                        int again)
{
    size_t cap = (size_t)nb * KC_SAN_OUT_MAX + 1, len = 0;
    char *alone = malloc(cap);     /* the runs alone, one after another */
    if (alone) alone[0] = 0;
    int own = 0;       /* an item failed by a report of its own run alone */
    for (int k = 0; k < nb; k++) {
        int i = x[k];
        decided[i] = timed_tool(p[i], pool, 1, w, &outs[i], ok[i], sizeof ok[i], &secs[i]);
        /* w holds the run that decided. Its reports are the item's own when
         * it is a fresh session's first window (w->earlier 0: a session's
         * first request, or the run outside the session) that ended in time;
         * a window after earlier requests may open with another item's late
         * report (a report out of order FAILs an item whose run outside the
         * session is clean; a window stopped at its time limit is judged as
         * it stands) */
        own |= decided[i] && outs[i].state == KC_FAIL && w->earlier == 0 && !w->timed_out &&
               kc_sanitizer_count(w->out) > 0;
        if (alone && len + w->len + 1 < cap) {
            memcpy(alone + len, w->out, w->len);
            len += w->len;
            alone[len++] = '\n';
            alone[len] = 0;
        }
    }
    int rest[KC_SAN_BATCH_ITEMS], nr = 0;
    for (int k = 0; k < nb; k++)
        if (!decided[x[k]]) rest[nr++] = x[k];
    char why[1100], names[1200] = "";
    int unexplained = batch_unexplained(batch_out, dropped, alone, why, sizeof why);
    free(alone);
    for (int k = 0; k < nb; k++) kc_strcatf(names, sizeof names, "%s%s", k ? ", " : "", p[x[k]]->it->name);
    if (unexplained && earlier > 0) {
        /* The batch came after requests its session answered clean: what
         * its items' runs alone do not account for may be those items'
         * reports, late, so their clean verdicts fall too (as run_tool_as's) */
        char distrust[1600];
        snprintf(distrust, sizeof distrust, "the racecheck batch of %d items (%.600s), after %d request%s its session "
                 "answered clean, held reports that its items' runs alone leave unexplained (%.400s): they may be theirs, out "
                 "of order; the :sanitize items it called clean in this process are not trusted (rerun with "
                 KC_SAN_BATCH_ENV "=0)", nb, names, earlier, earlier == 1 ? "" : "s", why);
        kc_san_pool_distrust(pool, distrust);
    }
    if (again && own) {
        if (nr > 1) race_batch(p, rest, nr, pool, w, outs, ok, decided, secs, 0);
        return;
    }
    if (!unexplained) return;
    for (int k = 0; k < nb; k++) {
        int i = x[k];
        if (decided[i]) continue;       /* decided by its own run */
        decided[i] = 1;
        outs[i].state = KC_FAIL;
        outs[i].gate = KC_GATE_SANITIZE;
        snprintf(outs[i].msg, sizeof outs[i].msg, "the racecheck batch of %d items (%s) reported what its items' runs "
                 "alone do not account for (%s): it cannot be pinned on an item, so the batch's clean verdicts cannot "
                 "be trusted; the rerun command runs the item alone; rerun the selection with " KC_SAN_BATCH_ENV "=0",
                 nb, names, why);
    }
}

/* racecheck for the items p[x[0..nb)] (each undecided after memcheck, its
 * racecheck on its edge shapes) in one batch request (kc_run_batch_launches):
 * each item's clean verdict stands only when the whole window is clean
 * (kc_san_window_clean: no report, the target's ok line, the session alive, and
 * every item's block there); anything else ends the session and runs each
 * item alone (batch_alone; `again`: those that pass alone may run together
 * once more). The batch's time limit is its largest item's: past it, each
 * item alone gets its own. */
static void race_batch(san_plan **p, const int *x, int nb, kc_san_pool *pool, kc_san_window *w, kc_item_result *outs,
                       char (*ok)[600], int *decided, double *secs, int again)
{
    double limit = 0;
    size_t cap = (size_t)nb * 420, n = 0;
    char *request = malloc(cap), why[512];
    kc_strvec words = KC_STRVEC_INIT;
    for (int k = 0; k < nb; k++)
        if (kc_san_tool_limit_s(p[x[k]]->it) > limit) limit = kc_san_tool_limit_s(p[x[k]]->it);
    for (int k = 0; request && k < nb; k++)
        n += (size_t)snprintf(request + n, cap - n, "%s%s edge", k ? "\t" : "", p[x[k]]->it->name);
    double t0 = kc_now_s();
    int asked = request && kc_san_tool_argv(p[x[0]], 1, NULL, &words) == 0 &&
                kc_san_ask(pool, 1, words.v, request, limit, w, why, sizeof why) == 0;
    char *block = asked && kc_san_window_clean(w) ? malloc(KC_SAN_OUT_MAX) : NULL;
    int clean = block != NULL;
    for (int k = 0; clean && k < nb; k++) clean = batch_block(w->out, p[x[k]]->it->name, block, KC_SAN_OUT_MAX) == 0;
    for (int k = 0; clean && k < nb; k++) {
        int i = x[k];
        batch_block(w->out, p[i]->it->name, block, KC_SAN_OUT_MAX);
        kc_san_window mine = { .out = block, .len = strlen(block), .ended = 1, .earlier = w->earlier };
        kc_san_plan_learn(p[i], 1, block, kc_now_s() - t0);
        decided[i] = kc_san_judge_tool(p[i], 1, &mine, limit, "", "", "", &outs[i], ok[i], sizeof ok[i]);
    }
    free(block);
    free(request);
    kc_strvec_clear(&words);
    for (int k = 0; k < nb; k++) secs[x[k]] += (kc_now_s() - t0) / nb;     /* the request's wall, shared */
    if (clean) return;
    for (int k = 0; k < nb; k++) {     /* on each item's line, before the runs that decide it */
        char *t = p[x[k]]->times;
        size_t n = strlen(t);
        snprintf(t + n, sizeof p[x[k]]->times - n, "%sracecheck %.1f s (edge shapes, a batch of %d items: not clean)",
                 n ? ", " : "", kc_now_s() - t0, nb);
    }
    /* it may have lost its context: it ends, and what it prints until then
     * (a late report, its summary) is the batch's too */
    const int earlier = asked ? w->earlier : 0;
    if (asked) kc_san_end(pool, 1, limit, w);
    char *batch_out = asked ? strdup(w->out) : NULL;
    batch_alone(p, x, nb, pool, asked ? batch_out : "", asked && w->dropped, earlier, w, outs, ok, decided, secs, again);
    free(batch_out);
}

void kc_sanitize_batch(const kc_item *const *its, int n, const kc_opts *o, kc_san_pool *pool, kc_item_result *outs)
{
    char san[4096], why[1536], self[4096];
    int batch = n > 1 && n <= KC_SAN_BATCH_ITEMS && pool && kc_san_batches_on() &&
                kc_sanitizer_find(san, sizeof san, why, sizeof why) == 0 && kc_self_exe(self, sizeof self) == 0;
    for (int i = 0; i < n && batch; i++) batch = its[i]->kind == KC_KIND_SANITIZE;
    san_plan *p[KC_SAN_BATCH_ITEMS] = { 0 };
    kc_san_window w = { .out = batch ? malloc(KC_SAN_OUT_MAX) : NULL };
    for (int i = 0; i < n && batch; i++) batch = (p[i] = malloc(sizeof *p[i])) != NULL;
    if (!batch || !w.out) {     /* one at a time, as kc_sanitize_item says why where it cannot run */
        for (int i = 0; i < n; i++) {
            double t0 = kc_now_s();
            kc_sanitize_item(its[i], o, pool, "", &outs[i]);
            outs[i].seconds = kc_now_s() - t0;
        }
        for (int i = 0; i < n && i < KC_SAN_BATCH_ITEMS; i++) free(p[i]);
        free(w.out);
        return;
    }
    char ok[KC_SAN_BATCH_ITEMS][600] = { { 0 } };
    int decided[KC_SAN_BATCH_ITEMS] = { 0 }, x[KC_SAN_BATCH_ITEMS], nb = 0;
    double secs[KC_SAN_BATCH_ITEMS] = { 0 };
    unsigned tools = 0xdu;
    for (int i = 0; i < n; i++) {
        memset(&outs[i], 0, sizeof outs[i]);
        kc_san_plan_init(p[i], its[i], o, san, self);
        if (!(p[i]->c && p[i]->c->no_racecheck)) tools |= 0x2u;
    }
    kc_san_warm_tools(p[0], pool, tools);
    for (int i = 0; i < n; i++)         /* memcheck: it says whether racecheck runs */
        decided[i] = timed_tool(p[i], pool, 0, &w, &outs[i], ok[i], sizeof ok[i], &secs[i]);
    for (int i = 0; i < n; i++) {
        if (decided[i] || !kc_san_race_runs(p[i])) continue;
        if (kc_san_race_edges_only(p[i])) x[nb++] = i;
        else            /* racecheck on every shape: alone */
            decided[i] = timed_tool(p[i], pool, 1, &w, &outs[i], ok[i], sizeof ok[i], &secs[i]);
    }
    if (nb == 1)
        decided[x[0]] = timed_tool(p[x[0]], pool, 1, &w, &outs[x[0]], ok[x[0]], sizeof ok[x[0]], &secs[x[0]]);
    else if (nb > 1)
        race_batch(p, x, nb, pool, &w, outs, ok, decided, secs, 1);
    for (int i = 0; i < n; i++) {       /* initcheck, synccheck */
        for (int t = 2; t < KC_SAN_TOOLS && !decided[i]; t++)
            decided[i] = timed_tool(p[i], pool, t, &w, &outs[i], ok[i], sizeof ok[i], &secs[i]);
        if (!decided[i]) kc_san_all_clean(p[i], "", ok[i], &outs[i]);
        outs[i].seconds = secs[i];
        free(p[i]);
    }
    free(w.out);
}
