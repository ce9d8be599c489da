/* known_fault.c — a known finding's faulting case, and the cases after it,
 * run in fresh processes (known_fault.h). */
#include "known_fault.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child_run.h"
#include "proctree.h"
#include "strbuf.h"
#include "strvec.h"
#include "supervisor.h"

void kc_cases_print(const kc_case_sums *s, const char *detail)
{
    printf(KC_CASES_LINE "cases=%d failed=%d known=%d unknown=%d gate=%d reproduced=%x lost=%d block=%u\n",
           s->cases, s->failed, s->known, s->unknown, s->gate, s->reproduced, s->lost, s->block);
    if (s->first[0]) printf(KC_CASES_FIRST "%s\n", s->first);
    for (const char *p = detail; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        /* gates.c's lines are indented by four; the reader adds them back */
        const char *t = p;
        while (t < p + len && *t == ' ') t++;
        if (t < p + len) printf(KC_CASES_DETAIL "%.*s\n", (int)(p + len - t), t);
        p = nl ? nl + 1 : p + len;
    }
    fflush(stdout);
}

typedef struct reader {
    kc_case_sums *out;
    kc_lines *detail;
    int got;                  /* the sums line came */
    char last[400];           /* the last other line, for a child that printed no sums */
} reader;

static void on_line(void *ctx, int err, const char *line, size_t len)
{
    reader *r = ctx;
    char l[2048];
    snprintf(l, sizeof l, "%.*s", (int)(len < sizeof l ? len : sizeof l - 1), line);
    size_t nl = strlen(KC_CASES_LINE), nf = strlen(KC_CASES_FIRST), nd = strlen(KC_CASES_DETAIL);
    kc_case_sums *s = r->out;
    if (!err && strncmp(l, KC_CASES_LINE, nl) == 0) {
        r->got = sscanf(l + nl, "cases=%d failed=%d known=%d unknown=%d gate=%d reproduced=%x lost=%d block=%u",
                        &s->cases, &s->failed, &s->known, &s->unknown, &s->gate, &s->reproduced, &s->lost,
                        &s->block) == 8;
    } else if (!err && strncmp(l, KC_CASES_FIRST, nf) == 0) {
        s->first[0] = 0;
        kc_strcatf(s->first, sizeof s->first, "%s", l + nf);
    } else if (!err && strncmp(l, KC_CASES_DETAIL, nd) == 0) {
        if (r->detail) kc_lines_add(r->detail, "    %s", l + nd);
    } else if (len) {
        r->last[0] = 0;
        kc_strcatf(r->last, sizeof r->last, "%s", l);
    }
}

int kc_cases_elsewhere(const kc_opts *o, const kc_item *it, int lo, int hi, kc_case_sums *out, kc_lines *detail,
                       char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    char self[4096], range[48];
    if (kc_self_exe(self, sizeof self)) {
        snprintf(why, cap, "internal error: this binary's path cannot be read, so the case cannot run alone");
        return -1;
    }
    snprintf(range, sizeof range, "%d:%d", lo, hi);
    kc_strvec words = KC_STRVEC_INIT;
    kc_child_cmd cmd = { .kind = KC_ARGV_RERUN, .prog = self, .item = it->name, .device = o->device };
    if (kc_child_argv(&words, o, &cmd) || kc_strvec_push(&words, "--cases") || kc_strvec_push(&words, range)) {
        kc_strvec_clear(&words);
        snprintf(why, cap, "internal error: out of host memory");
        return -1;
    }
    reader r = { .out = out, .detail = detail };
    char err[512] = "";
    int interrupted = 0;
    int st = kc_child_run(self, words.v, on_line, &r, &interrupted, err, sizeof err);
    kc_strvec_clear(&words);
    if (interrupted > 1) {      /* SIGINT or SIGTERM meant for this process: it ends as the signal asks */
        signal(interrupted, SIG_DFL);
        raise(interrupted);
    }
    if (st < 0) {
        snprintf(why, cap, "cases %s in a fresh process: %s", range, err);
        return -1;
    }
    if (interrupted || !r.got) {
        char how[160];
        kc_sup_describe_status(st, how, sizeof how);
        snprintf(why, cap, "cases %s in a fresh process printed no result (%s%s%s%s)", range,
                 interrupted ? "interrupted; " : "", how, r.last[0] ? "; its last line: " : "", r.last);
        return -1;
    }
    return 0;
}
