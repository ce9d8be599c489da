/* result_line.c — owns the work queue's result line: its format and its
 * parser (result_line.h). */
#include "result_line.h"
#include "line_text.h"
#include <errno.h>
#include <sys/random.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kc_result_format(const char *name, const kc_item_result *r, char *buf, size_t cap)
{
    return kc_result_format_detail(name, r, NULL, buf, cap);
}

static int format_with(const char *name, const kc_item_result *r, const char *detail, char *buf, size_t cap);

int kc_result_format_detail(const char *name, const kc_item_result *r, const char *detail, char *buf, size_t cap)
{
    int n = format_with(name, r, detail, buf, cap);
    if (n < 0 && detail && *detail)     /* lines past the line's room: the verdict still goes, saying so */
        n = format_with(name, r, "    (its further lines did not fit on the result line)", buf, cap);
    return n;
}

static int format_with(const char *name, const kc_item_result *r, const char *detail, char *buf, size_t cap)
{
    char msg[sizeof r->msg];
    snprintf(msg, sizeof msg, "%s", r->msg);
    for (char *p = msg; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
    int n = snprintf(buf, cap, "R\t%s\t%s\t%d\t%.3f\t%ld\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%u\t%s\n",
                     name, kc_state_name(r->state), r->gate, r->seconds, r->peak_rss_kib, r->limit_problems, r->stale,
                     r->context_lost, r->time.inputs_s, r->time.gpu_s, r->time.reference_s, r->time.checks_s,
                     r->time.inputs_made_gpu, r->time.inputs_made_host, r->time.inputs_reused, r->block_size, msg);
    if (n < 0 || (size_t)n >= cap) return -1;
    if (!detail || !*detail) return n;
    size_t len = (size_t)n - 1;         /* over the '\n' */
    buf[len++] = '\t';
    for (const char *p = detail; *p;) {
        size_t l = strcspn(p, "\n"), e = kc_escaped_len(p, l);
        if (len + e + 3 > cap) return -1;
        if (p != detail) buf[len++] = KC_RESULT_DETAIL_SEP;
        kc_escape_line(buf + len, cap - len, p, l);
        len += e;
        p += l + (p[l] == '\n');
    }
    if (len + 2 > cap) return -1;
    buf[len++] = '\n';
    buf[len] = 0;
    return (int)len;
}

void kc_result_detail(const char *line, char *buf, size_t cap)
{
    if (!cap) return;
    buf[0] = 0;
    const char *p = line;
    for (int tabs = 0; p && tabs < 18; tabs++) {
        p = strchr(p, '\t');
        if (p) p++;
    }
    if (!p) return;
    size_t n = 0;
    for (; *p && *p != '\n' && n + 1 < cap; p++) buf[n++] = *p == KC_RESULT_DETAIL_SEP ? '\n' : *p;
    buf[n] = 0;
}

int kc_result_parse(const char *line, char *name, size_t name_cap, kc_item_result *r, char *err, size_t cap)
{
    enum { NF = 18 };
    static __thread char buf[KC_RESULT_LINE_CAP];
    char *f[NF];
    int nf = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *p = buf; nf < NF;) {
        f[nf++] = p;
        if (nf == NF) break;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    memset(r, 0, sizeof *r);
    if (name_cap) name[0] = 0;
    if (nf != NF || strcmp(f[0], "R") != 0) {
        snprintf(err, cap, "not a result line (%d fields): '%.120s'", nf, line);
        return -1;
    }
    int st = kc_state_parse(f[2]);
    char *e1, *e2, *e3, *e4, *e5, *e6, *e7;
    snprintf(name, name_cap, "%s", f[1]);
    r->gate = (int)strtol(f[3], &e1, 10);
    r->seconds = strtod(f[4], &e2);
    r->peak_rss_kib = strtol(f[5], &e3, 10);
    r->limit_problems = (int)strtol(f[6], &e4, 10);
    r->stale = (int)strtol(f[7], &e5, 10);
    r->context_lost = (int)strtol(f[8], &e6, 10);
    e7 = f[8];
    double *split[4] = { &r->time.inputs_s, &r->time.gpu_s, &r->time.reference_s, &r->time.checks_s };
    int bad_split = 0;
    for (int i = 0; i < 4; i++) {
        char *e;
        *split[i] = strtod(f[9 + i], &e);
        bad_split |= *e != 0 || e == f[9 + i];
    }
    int *made[3] = { &r->time.inputs_made_gpu, &r->time.inputs_made_host, &r->time.inputs_reused };
    for (int i = 0; i < 3; i++) {
        char *e;
        long v = strtol(f[13 + i], &e, 10);
        bad_split |= *e != 0 || e == f[13 + i] || v < 0 || v > 1000000000;
        *made[i] = (int)v;
    }
    char *eb;
    unsigned long bs = strtoul(f[16], &eb, 10);
    bad_split |= *eb != 0 || eb == f[16] || f[16][0] == '-' || bs > 1024;     /* a block size of CUDA's (0: none) */
    r->block_size = (unsigned)bs;
    if (st < 0 || *e1 || *e2 || *e3 || *e4 || *e5 || *e6 || !*e7 || bad_split) {
        snprintf(err, cap, "malformed result line: '%.120s'", line);
        return -1;
    }
    r->state = (kc_state)st;
    f[17][strcspn(f[17], "\t")] = 0;  /* the detail field after it (kc_result_detail) */
    snprintf(r->msg, sizeof r->msg, "%s", f[17]);
    return 0;
}

int kc_result_nonce(char *out)
{
    unsigned char b[KC_NONCE_LEN / 2];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof b; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[KC_NONCE_LEN] = 0;
    return 0;
}

const char *kc_result_unseal(const char *line, const char *nonce)
{
    if (!nonce || strlen(nonce) != KC_NONCE_LEN || strncmp(line, nonce, KC_NONCE_LEN) != 0 || line[KC_NONCE_LEN] != '\t')
        return NULL;
    return line + KC_NONCE_LEN + 1;
}

void kc_result_shown(const char *line, char *buf, size_t cap)
{
    if (!cap) return;
    if (kc_escape_line(buf, cap, line, strlen(line)) && cap > 4) memcpy(buf + cap - 4, "...", 4);
}
