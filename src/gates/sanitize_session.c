/* sanitize_session.c — compute-sanitizer sessions (sanitize_session.h): a
 * pool of one session per tool, the requests and their windows, one-item
 * sessions, and the check of a session's summary at its end. */
#include "sanitize_session.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sanitizer_report.h"
#include "strict_num.h"
#include "supervisor.h"

/* A session slot's request in flight. */
typedef struct san_slot {
    kc_san_window *w;           /* where its lines go; NULL: into carry */
    char end[400];              /* the target's end line for the request */
    char *carry;                /* lines after the last window's end line: the next window opens with them */
    size_t carry_len, carry_dropped;   /* carry_dropped: bytes past what it keeps; the next window counts them */
    int served;                 /* requests its session answered so far */
    int settled;                /* its end was read (kc_san_end) or judged (settle_ended): nothing left to check */
    int gone_status;            /* how a session that ended outside a window ended (wait status) */
} san_slot;

struct kc_san_pool {
    kc_sup sup;                 /* KC_SAN_POOL_TOOLS slots; installed only while waiting */
    int ready;                  /* sup initialised */
    san_slot slot[KC_SAN_POOL_TOOLS];
    char distrust[KC_SAN_WHY_MAX];   /* kc_san_pool_distrust's first why; "" none */
    kc_san_pool *spare;         /* sessions started ahead for an item of their own, the next in line its own spare
                                 * (kc_san_pool_keep_spare): a list, first taken first */
    kc_san_pool *ending;        /* a decided control's sessions, killed, reaped later (kc_san_pool_let_end):
                                 * a list, oldest first, each the next one's holder */
};

/* The lines a verdict reads (the target's own, the sanitizer's summary)
 * have the last KC_SAN_OUT_RESERVE bytes of a window to themselves: a window
 * of more output than is kept still says how the item ended. */
#define KC_SAN_OUT_RESERVE (16 * 1024)

static int verdict_line(const char *line, size_t len)
{
    static const char *const keep[] = { "kcontract-sanitize-target: ", "========= ERROR SUMMARY",
                                        "========= RACECHECK SUMMARY" };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (len >= strlen(keep[i]) && memcmp(line, keep[i], strlen(keep[i])) == 0) return 1;
    return 0;
}

static void window_add(kc_san_window *w, const char *line, size_t len)
{
    size_t room = KC_SAN_OUT_MAX - (verdict_line(line, len) ? 0 : KC_SAN_OUT_RESERVE);
    if (w->len + len + 2 > room) {
        w->dropped += len + 1;
        return;
    }
    memcpy(w->out + w->len, line, len);
    w->len += len;
    w->out[w->len++] = '\n';
    w->out[w->len] = 0;
}

/* A line after the window's end line: kept for the next window. */
static void carry_add(san_slot *sl, const char *line, size_t len)
{
    char *c = sl->carry_len + len + 2 > KC_SAN_OUT_MAX ? NULL : realloc(sl->carry, sl->carry_len + len + 2);
    if (!c) {
        sl->carry_dropped += len + 1;
        return;
    }
    sl->carry = c;
    memcpy(c + sl->carry_len, line, len);
    sl->carry_len += len;
    c[sl->carry_len++] = '\n';
    c[sl->carry_len] = 0;
}

static void on_line(void *ctx, kc_sup *s, kc_child *c, int stream, const char *line, size_t len, size_t cut)
{
    (void)s, (void)stream, (void)cut;
    san_slot *sl = &((san_slot *)ctx)[c->slot];
    if (!sl->w || sl->w->ended) {
        carry_add(sl, line, len);
        return;
    }
    window_add(sl->w, line, len);
    if (sl->end[0] && len == strlen(sl->end) && memcmp(line, sl->end, len) == 0) sl->w->ended = 1;
}

static void on_gone(void *ctx, kc_sup *s, kc_child *c)
{
    (void)s;
    san_slot *sl = &((san_slot *)ctx)[c->slot];
    sl->gone_status = c->wstatus;
    if (!sl->w) return;
    sl->w->gone = 1;
    sl->w->wstatus = c->wstatus;
    sl->w->killed = c->killed;
    snprintf(sl->w->leak, sizeof sl->w->leak, "%s", c->leak);
}

static const kc_sup_ops POOL_OPS = { on_line, on_gone, NULL };

static void window_reset(kc_san_window *w)
{
    char *out = w->out;
    memset(w, 0, sizeof *w);
    w->out = out;
    w->out[0] = 0;
}

/* Waits on sup until *done, the child gone, or the deadline (then stops
 * it, once, and waits for it to go). A signal ends the wait. */
static void wait_for(kc_sup *sup, kc_child *c, kc_san_window *w, const int *done, double limit_s)
{
    double deadline = kc_sup_now() + limit_s;
    while (!*done && !w->gone && !sup->interrupted) {
        if (kc_sup_wait(sup, w->timed_out ? 0 : deadline) < 0 && errno != EINTR) break;
        if (!w->timed_out && !*done && !w->gone && kc_sup_now() >= deadline) {
            w->timed_out = 1;
            kc_sup_stop(sup, c, SIGTERM, KC_SUP_GRACE_MS);
        }
    }
}

/* After a wait: a signal ends every session and is raised again (the
 * caller's process ends as it would have); else the handlers go. */
static void after_wait(kc_san_pool *p)
{
    int sig = p->sup.interrupted;
    if (sig) {
        kc_sup_free(&p->sup);
        p->ready = 0;
        raise(sig);
        return;
    }
    kc_sup_pause(&p->sup);
}

/* A switch (KC_SANITIZE_SESSIONS, KC_SANITIZE_BATCH): unset or empty, or
 * "1": on; "0": off; anything else -1 with why. */
static int switch_env(const char *name, const char *off, const char *on, int *value, char *why, size_t cap)
{
    const char *v = getenv(name);
    *value = 1;
    if (!v || !*v || strcmp(v, "1") == 0) return 0;
    if (strcmp(v, "0") == 0) {
        *value = 0;
        return 0;
    }
    snprintf(why, cap, "%s='%.64s': expected 0 (%s) or 1 (the default: %s); empty is unset", name, v, off, on);
    return -1;
}

int kc_san_env_check(char *why, size_t cap)
{
    int on;
    double t;
    const char *v = getenv("KC_SANITIZE_TIMEOUT_S");
    if (switch_env("KC_SANITIZE_SESSIONS", "every :sanitize item runs alone under each tool",
                   "one compute-sanitizer session per tool serves a process's items", &on, why, cap) ||
        switch_env(KC_SAN_BATCH_ENV, "racecheck runs each :sanitize item in a request of its own",
                   "with --inflight K > 1, a worker's up to K items in one batch", &on, why, cap))
        return -1;
    if (v && *v && kc_parse_seconds(v, KC_SAN_TIMEOUT_MAX_S, &t)) {
        snprintf(why, cap, "KC_SANITIZE_TIMEOUT_S='%.64s': expected the seconds of each sanitizer tool run, above 0 and "
                 "at most %.0f (e.g. 120 or 0.5); empty is unset (default %.0f, or the contract's timeout_s when larger)",
                 v, KC_SAN_TIMEOUT_MAX_S, KC_SAN_TIMEOUT_S);
        return -1;
    }
    return 0;
}

int kc_san_sessions_on(void)
{
    const char *env = getenv("KC_SANITIZE_SESSIONS");
    return !(env && strcmp(env, "0") == 0);
}

int kc_san_batches_on(void)
{
    const char *env = getenv(KC_SAN_BATCH_ENV);
    return kc_san_sessions_on() && !(env && strcmp(env, "0") == 0);
}

double kc_san_timeout_env_s(void)
{
    const char *env = getenv("KC_SANITIZE_TIMEOUT_S");
    double t;
    return env && *env && kc_parse_seconds(env, KC_SAN_TIMEOUT_MAX_S, &t) == 0 ? t : 0;
}

kc_san_pool *kc_san_pool_new(void)
{
    return calloc(1, sizeof(kc_san_pool));
}

/* The item of a request whose end line closes its window: its first word,
 * or a batch's last item (the word after its last tab). */
static void end_line(san_slot *sl, const char *request)
{
    const char *tab = strrchr(request, '\t'), *item = tab ? tab + 1 : request;
    size_t n = strcspn(item, " \n");
    snprintf(sl->end, sizeof sl->end, KC_SAN_TARGET_END "%.*s", (int)n, item);
}

/* The supervisor set up (the first time) or its handlers installed again. 0,
 * or -1 (why). */
static int pool_enter(kc_san_pool *p, char *why, size_t cap)
{
    if (!p->ready) {
        if (kc_sup_init(&p->sup, KC_SAN_POOL_TOOLS, &POOL_OPS, p->slot, 1) < 0) {
            snprintf(why, cap, "cannot set up the supervisor: %s", strerror(errno));
            return -1;
        }
        p->ready = 1;
    } else if (kc_sup_resume(&p->sup, 1) < 0) {
        snprintf(why, cap, "cannot install the supervisor's signal handlers: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The slot's carry (what its session printed after the last window) appended
 * to w, and emptied. */
static void carry_into(san_slot *sl, kc_san_window *w)
{
    if (sl->carry_len) window_add(w, sl->carry, sl->carry_len - 1);     /* one block, its last newline re-added */
    w->dropped += sl->carry_dropped;
    free(sl->carry);
    sl->carry = NULL;
    sl->carry_len = 0;
    sl->carry_dropped = 0;
}

/* Waits for tool's session, which is ending, to be gone (at most limit_s,
 * then SIGKILL); what it prints meanwhile goes to its carry. */
static void wait_gone(kc_san_pool *p, int tool, double limit_s)
{
    kc_child *c = &p->sup.c[tool];
    double deadline = kc_sup_now() + limit_s;
    int killed = 0;
    while (c->state != KC_CHILD_GONE && !p->sup.interrupted) {
        if (kc_sup_wait(&p->sup, killed ? 0 : deadline) < 0 && errno != EINTR) break;
        if (!killed && c->state != KC_CHILD_GONE && kc_sup_now() >= deadline) {
            killed = 1;
            kc_sup_stop(&p->sup, c, SIGKILL, 0);
        }
    }
}

/* What a session that ended between requests printed after its last
 * window closed (its carry) is its own, never the next session's first
 * window's: a report there came too late for the item it belongs to, so the
 * items it called clean are not trusted (kc_san_pool_distrust). Dropped
 * afterwards. Nothing while the session runs: its carry opens its next window. */
static void settle_ended(kc_san_pool *p, int tool)
{
    san_slot *sl = &p->slot[tool];
    if (p->sup.c[tool].state != KC_CHILD_GONE || sl->settled) return;
    sl->settled = 1;
    if (!sl->served && !sl->carry_len && !sl->carry_dropped) return;   /* it ran no item */
    kc_san_error e;
    int found = kc_sanitizer_parse(sl->carry ? sl->carry : "", &e);
    if (found || e.errors > 0 || sl->carry_dropped || (sl->served && e.errors < 0)) {
        char why[KC_SAN_WHY_MAX], how[128];
        kc_sup_describe_status(sl->gone_status, how, sizeof how);
        snprintf(why, sizeof why, "the %s session ended between items with %s%s%s: the :sanitize items it called clean "
                 "in this process are not trusted (rerun with KC_SANITIZE_SESSIONS=0)", kc_sanitizer_tool(tool),
                 found || e.errors > 0 || sl->carry_dropped ? "an error report that no item's window held (" :
                 "no summary to count what it saw (", found ? e.what : sl->carry_dropped ? "more output than is kept" :
                 e.errors > 0 ? "its summary counts errors" : how, ")");
        kc_san_pool_distrust(p, why);
    }
    free(sl->carry);
    sl->carry = NULL;
    sl->carry_len = sl->carry_dropped = 0;
}

/* Starts tool's session as argv in a slot whose session is gone. 0, or -1
 * (why). */
static int session_start(kc_san_pool *p, int tool, char *const argv[], char *why, size_t cap)
{
    kc_child *c = &p->sup.c[tool];
    if (kc_sup_start(&p->sup, tool, argv[0], argv, KC_SUP_STDIN) < 0) {
        snprintf(why, cap, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    kc_sup_mark(c, KC_CHILD_RUNNING);
    p->slot[tool].served = 0;
    p->slot[tool].settled = 0;
    return 0;
}

int kc_san_warm(kc_san_pool *p, int tool, char *const argv[], char *why, size_t cap)
{
    if (pool_enter(p, why, cap) < 0) return -1;
    kc_sup_wait(&p->sup, kc_sup_now());            /* reaps a session that ended meanwhile */
    settle_ended(p, tool);
    int rc = p->sup.c[tool].state == KC_CHILD_GONE ? session_start(p, tool, argv, why, cap) : 0;
    after_wait(p);
    return rc;
}

int kc_san_ask(kc_san_pool *p, int tool, char *const argv[], const char *request, double limit_s, kc_san_window *w,
               char *why, size_t cap)
{
    window_reset(w);
    if (pool_enter(p, why, cap) < 0) return -1;
    san_slot *sl = &p->slot[tool];
    kc_child *c = &p->sup.c[tool];
    kc_sup_wait(&p->sup, kc_sup_now());            /* what it printed meanwhile; reaps it if it ended */
    if (c->state != KC_CHILD_GONE && c->state != KC_CHILD_RUNNING) wait_gone(p, tool, 5.0);
    settle_ended(p, tool);
    /* What the running session printed since the last window closed (a
     * report that came after its item's end line) opens this one: never
     * lost, and never taken for clean. */
    sl->w = w;
    sl->end[0] = 0;
    carry_into(sl, w);
    if (c->state == KC_CHILD_GONE && session_start(p, tool, argv, why, cap) < 0) {
        sl->w = NULL;
        after_wait(p);
        return -1;
    }
    w->earlier = sl->served++;
    end_line(sl, request);
    size_t n = strlen(request);
    char *line = malloc(n + 2);
    if (line) {
        memcpy(line, request, n);
        line[n] = '\n';
        kc_sup_write(c, line, n + 1);      /* a session that is dying: its end settles the window */
        free(line);
    } else {
        kc_sup_close_stdin(c);              /* no request: the session ends, and its end settles the window */
    }
    wait_for(&p->sup, c, w, &w->ended, limit_s);
    sl->w = NULL;
    after_wait(p);
    return 0;
}

void kc_san_end(kc_san_pool *p, int tool, double limit_s, kc_san_window *w)
{
    if (!p || !p->ready) return;
    char scratch_out[1];
    kc_san_window scratch = { .out = scratch_out };
    kc_san_window *into = w ? w : &scratch;
    if (!w) into->len = KC_SAN_OUT_MAX;        /* keep nothing */
    p->slot[tool].settled = 1;                 /* what it printed until its end is the caller's to judge */
    if (p->sup.c[tool].state == KC_CHILD_GONE) {
        carry_into(&p->slot[tool], into);      /* it ended already: what it printed last is still w's */
        return;
    }
    into->gone = 0;
    if (kc_sup_resume(&p->sup, 1) < 0) {
        kc_sup_stop(&p->sup, &p->sup.c[tool], SIGKILL, 0);
        return;
    }
    san_slot *sl = &p->slot[tool];
    kc_child *c = &p->sup.c[tool];
    int ended = into->ended;
    into->ended = 0;                /* everything until its exit goes into w */
    sl->w = into;
    sl->end[0] = 0;
    carry_into(sl, into);
    kc_sup_close_stdin(c);
    int never = 0;
    wait_for(&p->sup, c, into, &never, limit_s);
    into->ended = ended;
    sl->w = NULL;
    after_wait(p);
}

int kc_san_once(char *const argv[], const char *request, double limit_s, kc_san_window *w, char *why, size_t cap)
{
    kc_san_pool *p = kc_san_pool_new();
    if (!p) {
        snprintf(why, cap, "out of host memory");
        return -1;
    }
    int rc = kc_san_ask(p, 0, argv, request, limit_s, w, why, cap);
    if (rc == 0 && !w->gone) {
        int timed_out = w->timed_out;
        kc_san_end(p, 0, limit_s, w);
        w->timed_out |= timed_out;
    }
    if (p->ready) kc_sup_free(&p->sup);
    free(p->slot[0].carry);
    free(p);
    return rc;
}

/* p's running sessions' pids into out, none of its spares'. */
static int own_pids(const kc_san_pool *p, pid_t *out)
{
    int n = 0;
    for (int t = 0; p && p->ready && t < KC_SAN_POOL_TOOLS; t++)
        if (p->sup.c[t].state != KC_CHILD_GONE) out[n++] = p->sup.c[t].pid;
    return n;
}

int kc_san_pool_pids(const kc_san_pool *p, pid_t *out)
{
    int n = own_pids(p, out);
    for (const kc_san_pool *s = p ? p->spare : NULL; s; s = s->spare) n += own_pids(s, out + n);
    for (const kc_san_pool *e = p ? p->ending : NULL; e; e = e->ending) n += own_pids(e, out + n);
    return n;
}

static int ending_count(const kc_san_pool *p)
{
    int n = 0;
    for (const kc_san_pool *e = p ? p->ending : NULL; e; e = e->ending) n++;
    return n;
}

/* p's oldest ending pool freed (waited for); its summaries decide nothing. */
static void free_oldest_ending(kc_san_pool *p)
{
    kc_san_pool *e = p->ending;
    char why[700];
    p->ending = e->ending;
    e->ending = NULL;
    kc_san_pool_free(e, why, sizeof why);
}

void kc_san_pool_let_end(kc_san_pool *p, kc_san_pool *done)
{
    char why[700];
    if (!done) return;
    if (!p || done->spare || done->ending) {     /* nowhere to keep it, or it keeps others: ended now */
        kc_san_pool_free(done, why, sizeof why);
        return;
    }
    /* Killed, not told to end: a session told to end prints its summary
     * while its target tears its context down under the tool, and nothing
     * reads its pipes while this pool is paused, so a tool blocked writing
     * there would hold that teardown; with them told to end, one --jobs 4
     * run in three on the H200 had the next control wait out its 60 s limit
     * (docs/receipts/2026-12-04-h200-jobs-sweep, call 3). Each is a process
     * group of its own (tool and target): its zombie waits, unreaped. */
    for (int t = 0; done->ready && t < KC_SAN_POOL_TOOLS; t++) {
        kc_child *c = &done->sup.c[t];
        if (c->state != KC_CHILD_GONE) kc_sup_stop(&done->sup, c, SIGKILL, 0);
    }
    while (ending_count(p) >= KC_SAN_ENDING_MAX) free_oldest_ending(p);
    kc_san_pool **end = &p->ending;
    while (*end) end = &(*end)->ending;
    *end = done;
}

void kc_san_pool_keep_spare(kc_san_pool *p, kc_san_pool *spare)
{
    char why[700];
    if (p && spare && !spare->spare && kc_san_pool_spares(p) < KC_SAN_SPARES_MAX) {
        kc_san_pool **end = &p->spare;
        while (*end) end = &(*end)->spare;
        *end = spare;       /* the last in line: the first is taken first */
        return;
    }
    kc_san_pool_free(spare, why, sizeof why);   /* served nothing: nothing to trust or not */
}

kc_san_pool *kc_san_pool_take_spare(kc_san_pool *p)
{
    kc_san_pool *s = p ? p->spare : NULL;
    if (s) {
        p->spare = s->spare;
        s->spare = NULL;
    }
    return s;
}

int kc_san_pool_spares(const kc_san_pool *p)
{
    int n = 0;
    for (const kc_san_pool *s = p ? p->spare : NULL; s; s = s->spare) n++;
    return n;
}

void kc_san_pool_distrust(kc_san_pool *p, const char *why)
{
    if (p && !p->distrust[0]) snprintf(p->distrust, sizeof p->distrust, "%s", why);
}

/* A running session that served no request (started ahead of one,
 * kc_san_warm) ran no item's kernel, so nothing it prints decides a
 * verdict: it is stopped, not waited for. Waiting cost a control planted
 * for memcheck the rest of the racecheck session's start and the end of
 * its target's CUDA context, most of the control's 1.4 s on the H200
 * (docs/receipts/2026-12-03-h200-racecheck: a racecheck session's start
 * alone is 1.5 s, memcheck's 0.6 s). */
static void stop_unused(kc_san_pool *p, int t)
{
    char why[256];
    kc_sup_stop(&p->sup, &p->sup.c[t], SIGKILL, 0);
    if (pool_enter(p, why, sizeof why) < 0) return;     /* not reaped here: the leftover check's */
    wait_gone(p, t, 5.0);
    after_wait(p);
}

int kc_san_pool_free(kc_san_pool *p, char *why, size_t cap)
{
    if (!p) return 0;
    /* Every session's input closed first, the spares' too: they end at
     * once, not one after another (each ends its target and its CUDA
     * context: about a second), within one time limit for all. A spare
     * served no item, so its summaries decide no verdict; still checked. */
    for (kc_san_pool *s = p; s; s = s->spare)
        for (int t = 0; s->ready && t < KC_SAN_POOL_TOOLS; t++) kc_sup_close_stdin(&s->sup.c[t]);
    while (p->ending) free_oldest_ending(p);        /* killed already: reaped */
    int rc = 0;
    for (kc_san_pool *s; (s = kc_san_pool_take_spare(p));) {
        char why_spare[700];
        if (kc_san_pool_free(s, why_spare, sizeof why_spare) && rc == 0) {
            snprintf(why, cap, "%s", why_spare);
            rc = -1;
        }
    }
    if (rc == 0 && p->distrust[0]) {
        snprintf(why, cap, "%s", p->distrust);
        rc = -1;
    }
    char *buf = malloc(KC_SAN_OUT_MAX);
    if (!buf && p->ready && rc == 0) {      /* unchecked summaries are not clean ones */
        snprintf(why, cap, "out of host memory: the sanitizer sessions' summaries could not be read, so the "
                 ":sanitize items they called clean in this process are not trusted");
        rc = -1;
    }
    double deadline = kc_sup_now() + (kc_san_timeout_env_s() > 0 ? kc_san_timeout_env_s() : KC_SAN_TIMEOUT_S);
    for (int t = 0; p->ready && t < KC_SAN_POOL_TOOLS; t++) {
        /* A session that ended already (between items, or while this
         * waited for another) left what it printed last, its summary too,
         * in its slot's carry: checked as well. */
        int gone = p->sup.c[t].state == KC_CHILD_GONE;
        if (gone && (p->slot[t].settled || (!p->slot[t].carry_len && !p->slot[t].served))) continue;
        if (!gone && !p->slot[t].served) {
            stop_unused(p, t);
            continue;
        }
        kc_san_window w = { .out = buf };
        double left = deadline - kc_sup_now();
        if (left < 0.1) left = 0.1;         /* what has ended by now still says so */
        if (buf) {
            buf[0] = 0;
            if (gone) snprintf(buf, KC_SAN_OUT_MAX, "%s", p->slot[t].carry ? p->slot[t].carry : "");
            else kc_san_end(p, t, left, &w);
        } else if (!gone) {
            kc_san_end(p, t, left, NULL);
        }
        kc_san_error e;
        /* a session that served items must end with its summary, counting
         * no error: one that died or hung before it (its time limit) said
         * nothing about what it saw */
        const int served = p->slot[t].served > 0;
        if (buf && !kc_sanitizer_parse(buf, &e) && (e.errors == 0 || (e.errors < 0 && !served)) && !w.timed_out) continue;
        if (buf && rc == 0) {
            kc_sanitizer_parse(buf, &e);
            if (e.errors < 0 || (w.timed_out && !e.what[0] && e.errors <= 0))
                snprintf(why, cap, "the %s session ended without its summary (%s): what it saw is not known, so the "
                         ":sanitize items it called clean in this process are not trusted", kc_sanitizer_tool(t),
                         w.timed_out ? "stopped at its time limit" : gone ? "it died between items" : "no summary line");
            else
                snprintf(why, cap, "the %s session counted %ld error%s that no item's window held (%s): the :sanitize "
                         "items it called clean in this process are not trusted", kc_sanitizer_tool(t), e.errors,
                         e.errors == 1 ? "" : "s", e.what[0] ? e.what : "no report line");
            rc = -1;
        }
    }
    free(buf);
    if (p->ready) kc_sup_free(&p->sup);
    for (int t = 0; t < KC_SAN_POOL_TOOLS; t++) free(p->slot[t].carry);
    free(p);
    return rc;
}
