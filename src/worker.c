/* worker.c — owns a work-queue worker: reads item names on stdin, runs each
 * in this process (the CUDA context opened once, at the first GPU item),
 * prints its line as a serial run does, and reports one result line per item
 * on fd 3 (worker.h); also the result line's format and parser. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gates.h"
#include "item_run.h"
#include "proctree.h"

int kc_state_parse(const char *s)
{
    for (int i = 0; i < KC_STATE_COUNT; i++)
        if (strcmp(s, kc_state_name((kc_state)i)) == 0) return i;
    return -1;
}

int kc_result_format(const kc_result_line *r, char *buf, size_t cap)
{
    char msg[sizeof r->msg];
    snprintf(msg, sizeof msg, "%s", r->msg);
    for (char *p = msg; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
    int n = snprintf(buf, cap, "R\t%s\t%s\t%d\t%.3f\t%ld\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", r->name,
                     kc_state_name(r->state), r->gate, r->seconds, r->peak_rss_kib, r->limit_problems, r->stale, r->lost,
                     r->time.inputs_s, r->time.gpu_s, r->time.reference_s, r->time.checks_s, msg);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

int kc_result_parse(const char *line, kc_result_line *r, char *err, size_t cap)
{
    enum { NF = 14 };
    char buf[4096], *f[NF];
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
    if (nf != NF || strcmp(f[0], "R") != 0) {
        snprintf(err, cap, "not a result line (%d fields): '%.120s'", nf, line);
        return -1;
    }
    int st = kc_state_parse(f[2]);
    char *e1, *e2, *e3, *e4, *e5, *e6, *e7;
    snprintf(r->name, sizeof r->name, "%s", f[1]);
    r->gate = (int)strtol(f[3], &e1, 10);
    r->seconds = strtod(f[4], &e2);
    r->peak_rss_kib = strtol(f[5], &e3, 10);
    r->limit_problems = (int)strtol(f[6], &e4, 10);
    r->stale = (int)strtol(f[7], &e5, 10);
    r->lost = (int)strtol(f[8], &e6, 10);
    e7 = f[8];
    double *split[4] = { &r->time.inputs_s, &r->time.gpu_s, &r->time.reference_s, &r->time.checks_s };
    int bad_split = 0;
    for (int i = 0; i < 4; i++) {
        char *e;
        *split[i] = strtod(f[9 + i], &e);
        bad_split |= *e != 0 || e == f[9 + i];
    }
    if (st < 0 || *e1 || *e2 || *e3 || *e4 || *e5 || *e6 || !*e7 || bad_split) {
        snprintf(err, cap, "malformed result line: '%.120s'", line);
        return -1;
    }
    r->state = (kc_state)st;
    snprintf(r->msg, sizeof r->msg, "%s", f[13]);
    return 0;
}

/* ---- the worker ---- */

/* Runs one item as the serial runner does (item_run.c) into *r; the CUDA
 * context is opened at the first GPU item. */
static void run_one(kc_gpu *gpu, int *gpu_state, kc_gpu_watch *gw, const kc_item *it, const kc_opts *o,
                    kc_result_line *r)
{
    if (kc_item_needs_gpu(it) && *gpu_state == 0) {          /* the first GPU item opens the context */
        int rc = kc_gpu_open(gpu, o->device);
        *gpu_state = rc == 0 ? 1 : -1;
    }
    kc_outcome oc;
    kc_item_run(gpu, *gpu_state == 1, it, o, gw, &oc);
    snprintf(r->name, sizeof r->name, "%s", it->name);
    r->state = oc.state;
    r->gate = oc.gate;
    r->limit_problems = oc.limit_problems;
    r->stale = oc.stale;
    r->lost = oc.context_lost;
    r->seconds = oc.seconds;
    r->peak_rss_kib = oc.peak_rss_kib;
    r->time = oc.time;
    snprintf(r->msg, sizeof r->msg, "%s", oc.msg);
}

static const kc_item *find_item(const kc_item *items, int n, const char *name)
{
    int lo = 0, hi = n;
    while (lo < hi) {                       /* items are sorted by name */
        int mid = (lo + hi) / 2, d = strcmp(items[mid].name, name);
        if (d == 0) return &items[mid];
        if (d < 0) lo = mid + 1;
        else hi = mid;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(items[i].name, name) == 0) return &items[i];
    return NULL;
}

int kc_worker_run(const kc_opts *o, const kc_item *items, int n)
{
    if (fcntl(KC_RESULT_FD, F_GETFD) < 0) {
        fprintf(stderr, "kcontract: --worker: no result pipe on fd %d (internal option of a --jobs parent)\n", KC_RESULT_FD);
        return 2;
    }
    kc_proc_adopt_orphans();    /* what an item leaves running becomes ours, to end (item_run.h) */
    static const char ready[] = KC_RESULT_READY "\n";
    if (write(KC_RESULT_FD, ready, sizeof ready - 1) != (ssize_t)sizeof ready - 1) return 4;   /* the parent is gone */
    kc_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    int gpu_state = 0;          /* 0 not opened, 1 ready, -1 no GPU */
    kc_gpu_watch gw;            /* what items leave in the context (gpu_state.h) */
    kc_gpu_watch_init(&gw);
    char name[512], out[4096];
    while (fgets(name, sizeof name, stdin)) {
        name[strcspn(name, "\r\n")] = 0;
        if (!name[0]) continue;
        const kc_item *it = find_item(items, n, name);
        if (!it) {
            fprintf(stderr, "kcontract: --worker: no item named '%s'\n", name);
            return 4;
        }
        kc_result_line r;
        memset(&r, 0, sizeof r);
        run_one(&gpu, &gpu_state, &gw, it, o, &r);
        int len = kc_result_format(&r, out, sizeof out);
        if (len < 0) return 4;
        for (int off = 0; off < len;) {
            ssize_t w = write(KC_RESULT_FD, out + off, (size_t)(len - off));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return 4;           /* the parent is gone */
            off += (int)w;
        }
        if (r.lost) return 0;               /* a fresh worker takes over */
    }
    if (gpu_state == 1) kc_gpu_close(&gpu);
    return 0;
}
