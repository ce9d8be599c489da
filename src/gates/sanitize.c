/* sanitize.c — the sanitizer gate (sanitize.h): finding compute-sanitizer,
 * running this binary's --sanitize-target under each of its four tools
 * through the supervisor and judging what each reported (its report read by
 * sanitizer_report.c). The target's side is sanitize_target.c. */
#include "sanitize.h"

#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gates.h"
#include "harness.h"
#include "parallel.h"
#include "proctree.h"
#include "shell_words.h"
#include "strbuf.h"
#include "clock.h"
#include "sanitize_plan.h"
#include "sanitize_session.h"
#include "supervisor.h"

/* ---- finding it ---------------------------------------------------------- */

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

#define KC_SAN_DEFAULT "/usr/local/cuda/bin/compute-sanitizer"

int kc_sanitizer_find(char *path, size_t cap, char *why, size_t whycap)
{
    const char *env = getenv("KC_COMPUTE_SANITIZER");
    if (env && strcmp(env, "none") == 0) {     /* a machine without it, asked for, as KC_LIBCUDA=none */
        snprintf(why, whycap, "KC_COMPUTE_SANITIZER=none: no compute-sanitizer");
        return 1;
    }
    if (env && *env) {
        if (executable(env)) {
            snprintf(path, cap, "%s", env);
            return 0;
        }
        struct stat st;
        if (stat(env, &st) != 0)
            snprintf(why, whycap, "KC_COMPUTE_SANITIZER=%s: %s", env, strerror(errno));
        else
            snprintf(why, whycap, "KC_COMPUTE_SANITIZER=%s is not an executable file", env);
        return 1;
    }
    const char *pathenv = getenv("PATH");
    int ndirs = 0;              /* the directories searched, named by count: $PATH can be 400 characters */
    if (pathenv) {
        const char *p = pathenv;
        while (*p) {
            const char *c = strchr(p, ':'), *e = c ? c : p + strlen(p);
            char cand[4096];
            if (e > p) {
                ndirs++;
                snprintf(cand, sizeof cand, "%.*s/compute-sanitizer", (int)(e - p), p);
                if (executable(cand)) {
                    snprintf(path, cap, "%s", cand);
                    return 0;
                }
            }
            p = c ? c + 1 : e;
        }
    }
    if (executable(KC_SAN_DEFAULT)) {
        snprintf(path, cap, "%s", KC_SAN_DEFAULT);
        return 0;
    }
    char dirs[64];
    if (pathenv) snprintf(dirs, sizeof dirs, "$PATH (%d director%s)", ndirs, ndirs == 1 ? "y" : "ies");
    else snprintf(dirs, sizeof dirs, "$PATH, unset");
    snprintf(why, whycap, "compute-sanitizer not found (looked in $KC_COMPUTE_SANITIZER, unset; %s; " KC_SAN_DEFAULT
             "): install the CUDA toolkit's compute-sanitizer or set KC_COMPUTE_SANITIZER=/path/to/compute-sanitizer", dirs);
    return 1;
}

/* ---- the item -------------------------------------------------------------- */

/* The first few lines of out, for a report nobody could read. */
static void head_of(const char *out, char *dst, size_t cap)
{
    size_t n = 0;
    int lines = 0;
    dst[0] = 0;
    for (const char *p = out; p && *p && lines < 4 && n + 1 < cap; lines++) {
        const char *nl = strchr(p, '\n'), *e = nl ? nl : p + strlen(p);
        n += (size_t)snprintf(dst + n, cap - n, "%s%.*s", n ? " | " : "", (int)(e - p > 200 ? 200 : e - p), p);
        p = nl ? nl + 1 : NULL;
    }
}

double kc_san_tool_limit_s(const kc_item *it)
{
    double t = kc_san_timeout_env_s();
    if (t > 0) return t;
    return it->contract && it->contract->timeout_s > KC_SAN_TIMEOUT_S ? it->contract->timeout_s : KC_SAN_TIMEOUT_S;
}

/* The words every item's session shares (item: NULL): the sanitizer, this
 * binary, seed, device, exit code, racecheck's threads, the exclusions. */
static void plan_words(san_plan *p, const kc_opts *o, const char *san, const char *self)
{
    memset(p, 0, sizeof *p);
    p->san = san;
    p->self = self;
    p->o = o;
    p->env_get = o->env_get;
    p->smem = -2;
    snprintf(p->ecode, sizeof p->ecode, "%d", KC_SAN_ERROR_EXIT);
    /* racecheck's analysis is the one CPU-bound part of the gate, and the
     * rest of a run leaves most CPUs idle (H200, run 8: --jobs 8 kept 4 of
     * 16 cores busy while racecheck took 145 of the :sanitize items' 286
     * worker-seconds on a 2-thread share): every CPU this process may run
     * on, not its --jobs share. */
    snprintf(p->workers, sizeof p->workers, "%d", kc_parallel_cpus());
    /* The harness's own kernels (its input generator, its checks) are not
     * the kernel under test: memcheck, racecheck and synccheck leave them
     * uninstrumented (initcheck aside, kc_san_tool_argv). By name, so that one
     * session serves every contract. */
    for (int i = 0; i < KC_HARNESS_KERNELS; i++)
        snprintf(p->exclude[i], sizeof p->exclude[0], "kne=%s", kc_harness_kernel_names[i]);
}

void kc_san_plan_init(san_plan *p, const kc_item *it, const kc_opts *o, const char *san, const char *self)
{
    plan_words(p, o, san, self);
    p->it = it;
    p->c = it->contract;
    const kc_shape *shapes[64];
    p->nshapes = p->c ? kc_sanitize_shapes(p->c, shapes, 64) : 0;
    for (int i = 0; i < p->nshapes; i++) {
        p->nedge += shapes[i]->cls == KC_SHAPE_EDGE;
        if (shapes[i]->cls == KC_SHAPE_EDGE && shapes[i]->no_racecheck) {
            size_t n = strlen(p->race_left);
            snprintf(p->race_left + n, sizeof p->race_left - n, "%s%s", n ? " " : "", shapes[i]->name);
        }
    }
}

/* racecheck on the edge shapes only: shared memory belongs to one block, so a
 * race is in the path one block takes (tile counts, tails), which the edge
 * shapes are written to cover; the model shape adds blocks on the same
 * paths, and racecheck's cost grows with every shared-memory access of every
 * block (H200: 28 s and 190 CPU seconds for attn_prefill's model shape, under
 * 1 s for its six edge shapes; docs/sanitizer-gate.md). The target skips
 * the model shape when asked ("<item> edge"), and the edge shapes the
 * contract says racecheck need not run (kc_shape.no_racecheck): racecheck's
 * own --launch-count was no way to do it (on the H200 it hid
 * smem_reuse_race's hazards even where the count covered the launch that
 * has them). */
int kc_san_race_edges_only(const san_plan *p)
{
    return p->nedge > 0 && (p->nedge < p->nshapes || p->race_left[0]);
}

/* The command line of tool t's session, appended to words: the
 * sanitizer's own words, then the target's (kc_child_argv: this binary, run,
 * --sanitize-target, the seed and the device). With `item`, the command that
 * runs that item alone by hand (every shape; the one a failure line gives);
 * without, a session that reads its items from stdin. 0, or -1 (out of
 * memory). */
int kc_san_tool_argv(const san_plan *p, int t, const char *item, kc_strvec *words)
{
    int bad = 0;
#define W(x) (bad |= kc_strvec_push(words, (x)))
    W(p->san);
    W("--tool"), W(kc_sanitizer_tool(t));
    W("--error-exitcode"), W(p->ecode);
    W("--print-limit"), W("10");
    W("--launch-timeout"), W("60");
    W("--target-processes"), W("application-only");
    /* The harness's own CUDA calls that fail on purpose (probes) are not
     * the kernel's errors; a launch that fails is the target's FAIL line. */
    W("--report-api-errors"), W("no");
    /* initcheck must see the harness's generator write the inputs, or every
     * read of them is of memory no one wrote (H200, run 6: thousands of
     * false errors a launch, and runs of 120 s): it checks every kernel. */
    for (int i = 0; t != 2 && i < KC_HARNESS_KERNELS; i++) W("--kernel-name-exclude"), W(p->exclude[i]);
    /* No leak report (the target's session frees what it allocates; a leak
     * is the GPU-state watch's business); racecheck's analysis (one line per
     * race, both accesses), on every CPU this process may run on (plan_words). */
    if (t == 0) W("--leak-check"), W("no");
    /* The gate reads an error's kind, kernel, place and thread, never the
     * host backtrace saved at its launch, whose symbols took most of a
     * reporting run (H200, a memcheck control's 10 errors by hand: 1.23 s,
     * 0.84 s with device backtraces only; docs/receipts/2026-12-04-h200-jobs-sweep);
     * the command shown to run an item by hand keeps them, for a person. */
    if (!item) W("--show-backtrace"), W("device");
    if (t == 1) {
        W("--racecheck-report"), W("analysis");
        W("--racecheck-num-workers"), W(p->workers);
    }
#undef W
    kc_child_cmd target = { .kind = KC_ARGV_SANITIZE, .prog = p->self, .item = item, .device = p->o->device };
    return bad || kc_child_argv(words, p->o, &target) ? -1 : 0;
}

/* The target's "smem:" and "slowest:" lines after tool t's run. */
void kc_san_plan_learn(san_plan *p, int t, const char *out, double secs)
{
    char l[300];
    if (p->smem == -2 && kc_sanitizer_last_line(out, KC_SAN_TARGET_SMEM, l, sizeof l)) p->smem = atol(l);
    if (!p->watchdog[0] && kc_sanitizer_last_line(out, KC_SAN_TARGET_WATCHDOG, l, sizeof l))
        snprintf(p->watchdog, sizeof p->watchdog, "%s", l);
    char shape[160] = "";
    double s = 0;
    if (kc_sanitizer_last_line(out, KC_SAN_TARGET_SLOWEST, l, sizeof l) && sscanf(l, "%159s %lf", shape, &s) == 2 &&
        s >= p->slowest_s) {
        p->slowest_s = s;
        snprintf(p->slowest, sizeof p->slowest, "slowest launch %s %.1f s (%s)", shape, s, kc_sanitizer_tool(t));
    }
    l[0] = 0;
    const int together = kc_sanitizer_last_line(out, KC_SAN_TARGET_OK, l, sizeof l) && strstr(l, "launched together");
    size_t n = strlen(p->times);
    char edges[300];
    const char *batch = strstr(l, "(in a batch of ");
    int nbatch = 0;
    if (batch) sscanf(batch, "(in a batch of %d", &nbatch);
    char in_batch[48] = "";
    if (nbatch > 1) snprintf(in_batch, sizeof in_batch, ", a batch of %d items", nbatch);
    snprintf(edges, sizeof edges, " (edge shapes%s%s%s%s)", p->race_left[0] ? " but " : "", p->race_left, in_batch,
             together ? ", launched together" : "");
    snprintf(p->times + n, sizeof p->times - n, "%s%s %.1f s%s", n ? ", " : "", kc_sanitizer_tool(t), secs,
             t == 1 && kc_san_race_edges_only(p) ? edges : "");
}

/* Whether racecheck runs, after memcheck's run told the shared memory. */
int kc_san_race_runs(san_plan *p)
{
    const char *no_race = p->c ? p->c->no_racecheck : NULL;
    if (no_race) snprintf(p->race_note, sizeof p->race_note, "racecheck not run: %s", no_race);
    else if (p->smem == 0)
        snprintf(p->race_note, sizeof p->race_note, "racecheck not run: no launch uses shared memory");
    return !p->race_note[0];
}

/* One tool's verdict from its run: 1 when the item is decided (out set), 0
 * when the tool was clean and the next one runs. */
/* Appends "; sanitizer command: <cmd>" to the line, cut at its end. */
static void with_cmd(kc_item_result *out, const char *cmd)
{
    size_t n = strlen(out->msg);
    snprintf(out->msg + n, sizeof out->msg - n, "; sanitizer command: %s", cmd);
}

/* The first gate-5 known finding of the item's contract that the report e
 * of tool matches (kcontract.h, kc_known), its index; -1 none. */
static int known_report(const kc_contract *c, const char *tool, const kc_san_error *e)
{
    for (int i = 0; c && i < KC_MAX_KNOWN && c->known[i].reason; i++) {
        const kc_known *kn = &c->known[i];
        if (kn->gate == KC_GATE_SANITIZE && fnmatch(kn->tool, tool, 0) == 0 &&
            (!kn->kernel || fnmatch(kn->kernel, e->kernel, 0) == 0) && (!kn->error || fnmatch(kn->error, e->what, 0) == 0))
            return i;
    }
    return -1;
}

int kc_san_judge_tool(san_plan *p, int t, const kc_san_window *r, double limit, const char *cmd,
                      const char *gates_msg, const char *planted, kc_item_result *out, char *target_ok, size_t okcap)
{
    const int control = p->it->kind == KC_KIND_CONTROL;
    const char *tool = kc_sanitizer_tool(t);
    kc_san_error e;
    int found = kc_sanitizer_parse(r->out, &e);
    char status[128], line[1000];
    kc_sup_describe_status(r->wstatus, status, sizeof status);
    int ki = found && !control ? known_report(p->c, tool, &e) : -1;
    p->known_now = ki >= 0;
    if (ki >= 0) {      /* a registered finding: noted, and the next tool runs */
        kc_sanitizer_describe(tool, &e, line, sizeof line);
        if (!(p->known_hit & 1u << ki))     /* once, though a batch may run the item alone twice */
            kc_strcatf(p->known_note, sizeof p->known_note, "%s%s [%s]", p->known_note[0] ? "; " : "", line,
                       p->c->known[ki].reason);
        p->known_hit |= 1u << ki;
        if (!kc_sanitizer_last_line(r->out, KC_SAN_TARGET_OK, target_ok, okcap)) snprintf(target_ok, okcap, "its launches");
        return 0;
    }
    if (found) {
        kc_sanitizer_describe(tool, &e, line, sizeof line);
        out->state = control ? KC_RED : KC_FAIL;
        out->gate = KC_GATE_SANITIZE;
        if (control)
            snprintf(out->msg, sizeof out->msg, "caught by gate 5 (sanitizer; planted for gate 5; %s): %s",
                     gates_msg, line);
        else
            snprintf(out->msg, sizeof out->msg, "%s", line);
        with_cmd(out, cmd);
        return 1;
    }
    if (r->timed_out) {
        out->state = KC_TIMEOUT;
        snprintf(out->msg, sizeof out->msg, "%s: compute-sanitizer did not finish in %.0f s (its process group was "
                 "stopped: %s)%s", tool, limit, status, planted);
        with_cmd(out, cmd);
        return 1;
    }
    char tline[600] = "", head[600];
    if (WIFSIGNALED(r->wstatus)) {
        out->state = KC_CRASH;
        head_of(r->out, head, sizeof head);
        snprintf(out->msg, sizeof out->msg, "%s: compute-sanitizer %s, reporting no error (output: %s)%s",
                 tool, status, head[0] ? head : "none", planted);
        with_cmd(out, cmd);
        return 1;
    }
    int code = WIFEXITED(r->wstatus) ? WEXITSTATUS(r->wstatus) : -1;
    if (kc_sanitizer_last_line(r->out, KC_SAN_TARGET_FAIL, tline, sizeof tline) || code != 0 ||
        !kc_sanitizer_last_line(r->out, KC_SAN_TARGET_OK, tline, sizeof tline)) {
        /* No error parsed, yet not a clean run: never green, never a catch. */
        out->state = control ? KC_MISSED : KC_FAIL;
        head_of(r->out, head, sizeof head);
        if (tline[0])
            snprintf(out->msg, sizeof out->msg, "%s: the target failed under compute-sanitizer: %s", tool, tline);
        else
            snprintf(out->msg, sizeof out->msg, "%s: the target reported no launches under compute-sanitizer "
                     "(output: %s)", tool, head[0] ? head : "none");
        snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg), " [compute-sanitizer %s%s]%s",
                 status, code == KC_SAN_ERROR_EXIT ? ": it counted errors this parser did not find" : "", planted);
        with_cmd(out, cmd);
        return 1;
    }
    snprintf(target_ok, okcap, "%s", tline);
    if (r->leak[0]) {
        out->state = KC_PASS;       /* kc_result_left_behind words it */
        snprintf(out->msg, sizeof out->msg, "%s clean", tool);
        kc_result_left_behind(out, r->leak);
        return 1;
    }
    return 0;
}

/* The gate-5 known findings no tool reported (every tool ran): each stale,
 * and the item FAILs naming them. Returns how many. */
static int stale_reports(const san_plan *p, kc_item_result *out)
{
    const kc_contract *c = p->c;
    char names[1200] = "";
    for (int i = 0; c && i < KC_MAX_KNOWN && c->known[i].reason; i++) {
        const kc_known *kn = &c->known[i];
        if (kn->gate != KC_GATE_SANITIZE || (p->known_hit >> i & 1)) continue;
        out->stale++;
        kc_strcatf(names, sizeof names, "%s%s in kernel %s, error %s (%s)", names[0] ? "; " : "", kn->tool,
                   kn->kernel ? kn->kernel : "*", kn->error ? kn->error : "*", kn->reason);
    }
    if (!out->stale) return 0;
    out->state = KC_FAIL;
    out->gate = KC_GATE_SANITIZE;
    snprintf(out->msg, sizeof out->msg, "%d stale known finding%s of gate 5, no longer reported: %s: remove %s from "
             "the contract%s%s", out->stale, out->stale == 1 ? "" : "s", names, out->stale == 1 ? "it" : "them",
             p->known_note[0] ? "; known: " : "", p->known_note);
    return out->stale;
}

/* The verdict when every tool that ran was clean (or reported a known
 * finding only). */
void kc_san_all_clean(const san_plan *p, const char *gates_msg, const char *target_ok, kc_item_result *out)
{
    char tools_run[800];
    if (p->race_note[0])
        snprintf(tools_run, sizeof tools_run, "memcheck, initcheck and synccheck (%s)", p->race_note);
    else
        snprintf(tools_run, sizeof tools_run, "memcheck, racecheck, initcheck and synccheck");
    if (p->it->kind == KC_KIND_CONTROL) {
        out->state = KC_MISSED;
        snprintf(out->msg, sizeof out->msg, "%s, and %s found no error on %s: the suite is blind to this bug "
                 "(%s; planted for gate 5)", gates_msg, tools_run, target_ok, p->it->control->bug);
    } else if (!stale_reports(p, out) && p->known_hit) {
        out->state = KC_KNOWN;
        out->msg[0] = 0;
        kc_strcatf(out->msg, sizeof out->msg, "registered known finding%s: %s; the other tools of %s clean on %s "
                 "(buffers of exact size)", p->known_hit & (p->known_hit - 1) ? "s" : "", p->known_note, tools_run,
                 target_ok);
    } else if (!out->stale) {
        out->state = KC_PASS;
        snprintf(out->msg, sizeof out->msg, "%s clean on %s (buffers of exact size)", tools_run, target_ok);
    }
    /* what each tool cost, cut at the line's end; the kernel's own hang
     * watchdog where the target raised it (sanitize_target.h) */
    kc_strcatf(out->msg, sizeof out->msg, " [%s%s%s%s%s]", p->times, p->slowest[0] ? "; " : "", p->slowest,
               p->watchdog[0] ? "; watchdog " : "", p->watchdog);
}

/* Whether a session's window shows tool t clean for the item: its end line
 * came, the target ran every launch, and no report line fell between (all
 * of it read: past what is kept, only the item's own run, whose exit status
 * counts its errors, decides). */
int kc_san_window_clean(const kc_san_window *w)
{
    kc_san_error e;
    char l[600];
    return w->ended && !w->gone && !w->timed_out && !w->leak[0] && !w->dropped && !kc_sanitizer_parse(w->out, &e) &&
           !kc_sanitizer_last_line(w->out, KC_SAN_TARGET_FAIL, l, sizeof l) && kc_sanitizer_last_line(w->out, KC_SAN_TARGET_OK, l, sizeof l);
}

/* After a window that was not clean ended a session that had called
 * `earlier` items clean, and the item ran alone (w), whatever that run
 * decided (FAIL, KNOWN, clean): what the session printed for it (sess: the
 * window and all it printed until it ended; dropped: bytes of it not kept)
 * must be the item's own, or the pool's clean verdicts are not trusted
 * (kc_san_pool_free fails the run): a report the run alone does not
 * account for, a summary counting more errors than the run alone, lines
 * past what is kept with no summary to count them, or no summary at all
 * (the session died: what it counted is unknown). */
static void distrust_unless_own(const san_plan *p, kc_san_pool *pool, int t, const kc_san_window *w, const char *sess,
                                size_t dropped, int earlier, int failed)
{
    kc_san_error alone, all;
    kc_sanitizer_parse(w->out, &alone);
    kc_sanitizer_parse(sess ? sess : "", &all);
    long mine = alone.errors < 0 ? 0 : alone.errors;
    char line[600] = "", what[800];
    if (!sess) snprintf(what, sizeof what, "out of host memory to compare the runs");
    else if (failed && (kc_sanitizer_count(sess) > 0 || all.errors != 0 || dropped))
        /* the item fails anyway: a report the session printed for it may
         * still be an earlier item's (the same words as its own, or its own
         * lost when the session died), and no run alone can tell */
        snprintf(what, sizeof what, "%d report%s, %ld counted, %zu bytes past what is kept", kc_sanitizer_count(sess),
                 kc_sanitizer_count(sess) == 1 ? "" : "s", all.errors, dropped);
    else if (kc_sanitizer_unmatched(sess, w->out, line, sizeof line))
        snprintf(what, sizeof what, "a report the item alone does not give: %.500s", line);
    else if (all.errors > mine)
        snprintf(what, sizeof what, "it counted %ld error%s, the item alone %ld", all.errors, all.errors == 1 ? "" : "s", mine);
    else if (all.errors < 0)
        snprintf(what, sizeof what, "it ended without its summary%s", dropped ? ", after more output than is kept" : "");
    else return;
    char why[1300];
    snprintf(why, sizeof why, "the %s session's window for %s, after %d item%s it called clean, was not clean, and %s (%s): "
             "it may be theirs, out of order; the :sanitize items it called clean in this process are not trusted (rerun "
             "with KC_SANITIZE_SESSIONS=0)", kc_sanitizer_tool(t), p->it->name, earlier, earlier == 1 ? "" : "s",
             failed ? "the item fails alone too, so its reports cannot be told from theirs"
                    : "the item alone does not account for what the session printed", what);
    kc_san_pool_distrust(pool, why);
}

/* Tool t for the item, with its session's command line (words) and the
 * one shown for running the item alone (cmd): through the pool's session
 * when there is one and its window is clean; otherwise (no pool, or a window
 * that is not clean) the item alone decides. 1 when the item is decided (out
 * set). */
static int run_tool_as(san_plan *p, kc_san_pool *pool, int t, char *const *words, const char *cmd, double limit,
                       const char *gates_msg, const char *planted, kc_san_window *w, kc_item_result *out,
                       char *target_ok, size_t okcap)
{
    char request[400], why[512];
    snprintf(request, sizeof request, "%s %s", p->it->name, t == 1 && kc_san_race_edges_only(p) ? "edge" : "all");
    kc_san_error window_error = { .errors = -1 };
    int window_erred = 0, earlier = 0;
    char *sess = NULL;          /* what a session that was not clean printed for the item, after earlier ones */
    size_t sess_dropped = 0;
    double t0 = kc_now_s();
    if (pool && kc_san_ask(pool, t, words, request, limit, w, why, sizeof why) == 0) {
        if (kc_san_window_clean(w)) {
            kc_san_plan_learn(p, t, w->out, kc_now_s() - t0);
            snprintf(target_ok, okcap, "%s", "");
            return kc_san_judge_tool(p, t, w, limit, cmd, gates_msg, planted, out, target_ok, okcap);
        }
        if (w->timed_out) {
            kc_san_plan_learn(p, t, w->out, kc_now_s() - t0);
            kc_san_error e;
            if (w->earlier > 0 && (kc_sanitizer_parse(w->out, &e) || e.errors > 0 || w->dropped)) {
                /* A report in a window after earlier requests, stopped at
                 * its time limit: it may be an earlier item's, late (a
                 * window opens with what the last one left), and no run
                 * alone can tell, so the items this session called clean
                 * are not trusted (found by a review: the racy item read
                 * PASS, the hung one FAILed for its report) */
                char line[700], distrust[1200];
                if (e.what[0]) kc_sanitizer_describe(kc_sanitizer_tool(t), &e, line, sizeof line);
                else snprintf(line, sizeof line, "%s", w->dropped ? "more output than is kept" : "its summary counts errors");
                snprintf(distrust, sizeof distrust, "the %s session reported an error while %s ran, which it stopped at its "
                         "time limit after %d item%s it called clean, so the report may be theirs, out of order (%.300s); "
                         "the :sanitize items it called clean in this process are not trusted (rerun with "
                         "KC_SANITIZE_SESSIONS=0)", kc_sanitizer_tool(t), p->it->name, w->earlier,
                         w->earlier == 1 ? "" : "s", line);
                kc_san_pool_distrust(pool, distrust);
            }
            /* Stopped by this process at the item's limit: all it printed
             * until it was gone is the window's, judged here, so its end
             * (no summary: it was stopped) is settled, not later taken for a
             * session that died between items (found by a review: every
             * :sanitize verdict of the process was distrusted) */
            kc_san_end(pool, t, limit, NULL);
            return kc_san_judge_tool(p, t, w, limit, cmd, gates_msg, planted, out, target_ok, okcap);
        }
        window_erred = kc_sanitizer_parse(w->out, &window_error);
        earlier = w->earlier;
        if (window_erred && earlier == 0) {
            /* The session's first request: all it printed is this item's,
             * so its error is too. The session ends (its target may have
             * lost its context); what it prints meanwhile is this item's.
             * Sessions of the item's own, once it is decided, are killed
             * with the rest of its pool (kc_sanitize_item,
             * kc_san_pool_let_end), not waited for here. */
            kc_san_plan_learn(p, t, w->out, kc_now_s() - t0);
            int decided = kc_san_judge_tool(p, t, w, limit, cmd, gates_msg, planted, out, target_ok, okcap);
            if (!(decided && p->own_pool)) kc_san_end(pool, t, limit, NULL);
            return decided;
        }
        /* It may have lost its context; the item alone decides. Its summary
         * (its last lines) counts every error it saw. */
        kc_san_end(pool, t, limit, w);
        if (earlier > 0) {
            sess = strdup(w->out);
            sess_dropped = w->dropped;
        }
    }
    if (kc_san_once(words, request, limit, w, why, sizeof why) < 0) {
        out->state = KC_CRASH;
        snprintf(out->msg, sizeof out->msg, "%s: %s%s", kc_sanitizer_tool(t), why, planted);
        with_cmd(out, cmd);
        if (earlier > 0) {
            char distrust[700];
            snprintf(distrust, sizeof distrust, "the %s session's window for %s, after %d item%s it called clean, was not "
                     "clean, and the item could not run alone to account for it (%.200s): the :sanitize items it called "
                     "clean in this process are not trusted (rerun with KC_SANITIZE_SESSIONS=0)", kc_sanitizer_tool(t),
                     p->it->name, earlier, earlier == 1 ? "" : "s", why);
            kc_san_pool_distrust(pool, distrust);
        }
        free(sess);
        return 1;
    }
    kc_san_plan_learn(p, t, w->out, kc_now_s() - t0);
    int decided = kc_san_judge_tool(p, t, w, limit, cmd, gates_msg, planted, out, target_ok, okcap);
    if (!decided && window_erred && !p->known_now) {
        /* The session reported an error while this item ran, and the item
         * alone has none: the report was another item's, out of order. Never green. */
        char line[1000];
        kc_sanitizer_describe(kc_sanitizer_tool(t), &window_error, line, sizeof line);
        out->state = p->it->kind == KC_KIND_CONTROL ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "the %s session reported an error while this item ran that the item alone "
                 "does not reproduce (%s): its reports came out of order, so no item it served can be trusted; rerun "
                 "with KC_SANITIZE_SESSIONS=0", kc_sanitizer_tool(t), line);
        with_cmd(out, cmd);
        /* The report is one of the earlier items', late: their clean verdicts
         * fall with it (else the results cache kept one, and the next run read
         * green: found when a session died just after the next request). */
        char distrust[1300];
        snprintf(distrust, sizeof distrust, "the %s session reported an error while %s ran after %d item%s it called clean, "
                 "and that item alone does not reproduce it: the report was theirs, out of order (%.300s); the :sanitize "
                 "items it called clean in this process are not trusted (rerun with KC_SANITIZE_SESSIONS=0)",
                 kc_sanitizer_tool(t), p->it->name, earlier, earlier == 1 ? "" : "s", line);
        kc_san_pool_distrust(pool, distrust);
        decided = 1;
    }
    /* What the session printed for this item after earlier ones must be
     * this item's own, however its run alone ended (FAIL, KNOWN, clean):
     * else it may be theirs (a late report beside the item's own error or
     * known finding, one past what a window keeps, a session that died). */
    if (earlier > 0) distrust_unless_own(p, pool, t, w, sess, sess_dropped, earlier, decided && kc_result_fails(out));
    free(sess);
    return decided;
}

/* Tool t for the item (run_tool_as), its command lines built here. */
int kc_san_run_tool(san_plan *p, kc_san_pool *pool, int t, double limit, const char *gates_msg, const char *planted,
                    kc_san_window *w, kc_item_result *out, char *target_ok, size_t okcap)
{
    kc_strvec words = KC_STRVEC_INIT, by_hand = KC_STRVEC_INIT;
    int decided = 1;
    if (kc_san_tool_argv(p, t, NULL, &words) || kc_san_tool_argv(p, t, p->it->name, &by_hand)) {
        out->state = p->it->kind == KC_KIND_CONTROL ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "internal error: out of host memory%s", planted);
    } else {
        char cmd[1400];
        kc_rerun_line((const char *const *)by_hand.v, (int)by_hand.n, p->env_get, NULL, cmd, sizeof cmd);
        decided = run_tool_as(p, pool, t, words.v, cmd, limit, gates_msg, planted, w, out, target_ok, okcap);
    }
    kc_strvec_clear(&words);
    kc_strvec_clear(&by_hand);
    return decided;
}

/* Starts the session of every tool in `tools` (a bit per tool) that has
 * none in pool. Nothing without a pool, with KC_SANITIZE_SESSIONS=0, or
 * when a session cannot start (its item's request then says why). */
/* The tools (bit t: KC_SAN_TOOLS order) whose sessions a control planted
 * for the sanitizer starts before it runs the first: memcheck, and racecheck
 * (which runs only where memcheck's run found shared memory). The seven
 * bundled controls are caught by one of those two. */
#define KC_SAN_CONTROL_TOOLS 0x3u

void kc_san_warm_tools(const san_plan *p, kc_san_pool *pool, unsigned tools)
{
    if (!pool || !kc_san_sessions_on()) return;
    for (int t = 0; t < KC_SAN_TOOLS; t++) {
        kc_strvec words = KC_STRVEC_INIT;
        char why[512];
        if (!(tools & 1u << t)) continue;
        if (kc_san_tool_argv(p, t, NULL, &words) == 0) kc_san_warm(pool, t, words.v, why, sizeof why);
        kc_strvec_clear(&words);
    }
}

void kc_sanitize_ahead(const kc_opts *o, kc_san_pool *pool, int want)
{
    char san[4096], why[1536], self[4096];
    if (want > KC_SAN_SPARES_MAX) want = KC_SAN_SPARES_MAX;
    if (!pool || !kc_san_sessions_on() || kc_san_pool_spares(pool) >= want) return;
    if (kc_sanitizer_find(san, sizeof san, why, sizeof why) || kc_self_exe(self, sizeof self)) return; /* its control says why */
    san_plan *p = malloc(sizeof *p);
    if (!p) return;
    plan_words(p, o, san, self);
    while (kc_san_pool_spares(pool) < want) {
        kc_san_pool *spare = kc_san_pool_new();
        if (!spare) break;
        kc_san_warm_tools(p, spare, KC_SAN_CONTROL_TOOLS);
        kc_san_pool_keep_spare(pool, spare);
    }
    free(p);
}

void kc_sanitize_item(const kc_item *it, const kc_opts *o, kc_san_pool *pool, const char *gates_msg, kc_item_result *out)
{
    const int control = it->kind == KC_KIND_CONTROL;
    char san[4096], why[1536], self[4096];
    const char *planted = control ? " (the control planted for the sanitizer was not checked by it)" : "";
    if (kc_sanitizer_find(san, sizeof san, why, sizeof why)) {
        out->state = KC_SKIP;
        snprintf(out->msg, sizeof out->msg, "%s%s", why, planted);
        return;
    }
    if (kc_self_exe(self, sizeof self)) {   /* the sanitizer resolves /proc/self/exe to itself */
        out->state = control ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "internal error: cannot read /proc/self/exe: %s%s", strerror(errno), planted);
        return;
    }
    kc_san_window w = { .out = malloc(KC_SAN_OUT_MAX) };
    san_plan *p = malloc(sizeof *p);
    if (!w.out || !p) {
        free(w.out), free(p);
        out->state = control ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "internal error: out of host memory%s", planted);
        return;
    }
    kc_san_plan_init(p, it, o, san, self);
    if (!kc_san_sessions_on()) pool = NULL;
    /* A control is planted to make a tool report errors. In the process's
     * sessions its error would end the session, after earlier items it
     * would need a run alone to be its own (a second start of the tool), and
     * the next clean item would wait for a fresh session. So a control gets
     * sessions of its own, started together (their starts overlap): its
     * windows are each session's first, whose errors are its own. The
     * process's sessions stay warm for the clean items. */
    kc_san_pool *own = control && pool ? kc_san_pool_take_spare(pool) : NULL, *holder = pool;
    if (control && pool && !own) own = kc_san_pool_new();
    if (own) pool = own;
    p->own_pool = own != NULL;
    double limit = kc_san_tool_limit_s(it);
    char target_ok[600] = "";
    /* Every tool's session starts now (those not running yet): their
     * starts overlap each other and memcheck's run. racecheck's too, unless
     * the contract leaves it out: most kernels that reach it use shared
     * memory, and a session started for nothing serves the next item. A
     * control's initcheck and synccheck start only once memcheck and
     * racecheck found nothing (below): most controls are caught by one of
     * those two, and the sessions would end unasked. */
    unsigned race = p->c && p->c->no_racecheck ? 0u : 0x2u;
    kc_san_warm_tools(p, pool, (control ? KC_SAN_CONTROL_TOOLS : 0xfu) & (0xdu | race));
    /* memcheck first: its target says how much shared memory the kernel
     * uses, which decides racecheck; then initcheck and synccheck. */
    int decided = 0;
    for (int t = 0; t < KC_SAN_TOOLS && !decided; t++) {
        if (control && t == 2) kc_san_warm_tools(p, pool, 0xcu);
        if (t == 1 && !kc_san_race_runs(p)) continue;
        decided = kc_san_run_tool(p, pool, t, limit, gates_msg, planted, &w, out, target_ok, sizeof target_ok);
    }
    if (!decided) kc_san_all_clean(p, gates_msg, target_ok, out);
    if (own && out->state == KC_RED) {
        /* decided: their summaries cannot change it, so they are killed
         * and their end (each target's context torn down under its tool)
         * is not waited for */
        kc_san_pool_let_end(holder, own);
    } else if (own) {
        /* only this control ran in them: an error their summaries count but
         * no window held is its own, and never makes it RED after the fact
         * (a MISSED control stays MISSED, with the reason) */
        char why_pool[600];
        if (kc_san_pool_free(own, why_pool, sizeof why_pool) && out->state == KC_MISSED)
            kc_strcatf(out->msg, sizeof out->msg, "; %s", why_pool);
    }
    free(p);
    free(w.out);
}
