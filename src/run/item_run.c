/* item_run.c — one item, run in this process: the outcome, what it left
 * behind (processes; LEAK), the printed line (state, name, message, seconds,
 * and the rerun command when it failed), and the item's peak RSS. */
#include "item_run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "rerun_env.h"
#include "proctree.h"
#include "progress.h"
#include "sanitize.h"
#include "suite.h"

#define KC_DETAIL_CAP 8192       /* the gates' further lines of one item */

int kc_item_needs_gpu(const kc_item *it)
{
    return it->kind != KC_KIND_SUITE || it->suite->needs_gpu;
}

int kc_item_runs_sanitizer(const kc_item *it)
{
    return it->kind == KC_KIND_SANITIZE ||
           (it->kind == KC_KIND_CONTROL && it->control && it->control->gate == KC_GATE_SANITIZE);
}

/* Resets the peak RSS (VmHWM) by writing "5" to /proc/self/clear_refs.
 * Returns 0, or -1 when not possible (the item's peak is then unknown). */
static int rss_reset(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int ok = write(fd, "5", 1) == 1;
    close(fd);
    return ok ? 0 : -1;
}

/* VmHWM in KiB, -1 unknown. */
static long rss_peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    fclose(f);
    return kib;
}

void kc_rerun_command(const kc_opts *o, const char *name, int device, char *buf, size_t cap)
{
    char num[2][32];
    snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)o->seed);
    snprintf(num[1], sizeof num[1], "%d", device);
    const char *words[9 + 2 * KC_MAX_RECORD_FILES];
    int n = 0;
    words[n++] = o->argv0;
    words[n++] = "run";
    words[n++] = name;
    words[n++] = "--seed";
    words[n++] = num[0];
    words[n++] = "--device";
    words[n++] = num[1];
    for (int r = 0; r < o->nrecords && r < KC_MAX_RECORD_FILES; r++) {
        words[n++] = "--records";
        words[n++] = o->records[r];
    }
    if (o->reference != KC_REF_DEVICE) {      /* a disagreement of references reruns as it failed */
        words[n++] = "--reference";
        words[n++] = kc_ref_mode_name(o->reference);
    }
    kc_rerun_line(words, n, o->env_get, NULL, buf, cap);
}

/* Processes the item left running: given KC_LEAK_TIMEOUT_MS to end, then
 * killed and named (this process adopts orphans: kc_proc_adopt_orphans). */
static void end_leftovers(kc_san_pool *san, kc_item_result *out)
{
    char who[400], what[512];
    pid_t keep[KC_SAN_POOL_TOOLS];
    int nkeep = kc_san_pool_pids(san, keep);
    int n = kc_proc_end_leftovers(KC_LEAK_TIMEOUT_MS, keep, nkeep, who, sizeof who);
    if (n <= 0) return;
    snprintf(what, sizeof what, "%d process%s running after it: %s, still there %d ms after it ended; killed (SIGKILL)",
             n, n == 1 ? "" : "es", who, KC_LEAK_TIMEOUT_MS);
    kc_result_left_behind(out, what);
}

void kc_note_predating(FILE *out)
{
    pid_t p[KC_PROC_MAX];
    int n = kc_proc_predating(p, KC_PROC_MAX);
    if (n <= 0) return;
    char who[400];
    kc_proc_describe(p, n < KC_PROC_MAX ? n : KC_PROC_MAX, who, sizeof who);
    kc_progress_clear();
    fprintf(out, "kcontract: %s, running in this process since before its first item (started before its items: by a "
                 "library's constructor, e.g. through LD_PRELOAD, or by such a process), %s no item's doing; no item was "
                 "blamed for %s\n", who, n == 1 ? "is" : "are", n == 1 ? "it" : "them");
    fflush(out);
}

/* What the GPU item left in the context (gpu_state.h), on its outcome. */
static void check_gpu_state(kc_gpu *gpu, kc_gpu_watch *gw, kc_item_result *out)
{
    char what[512], note[600];
    if (out->context_lost) return;          /* replaced anyway */
    switch (kc_gpu_watch_after(gw, gpu, what, sizeof what)) {
    case KC_GPU_LEFT_ERROR:
        kc_result_left_behind(out, what);
        out->context_lost = KC_LOST_CONTEXT;
        break;
    case KC_GPU_LEFT_MEMORY:                /* the verdict stands; the process does not carry it on */
        snprintf(note, sizeof note, "; it left %s: this process is replaced", what);
        snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg), "%s", note);
        out->context_lost = KC_LOST_GPU_STATE;
        break;
    }
}

void kc_item_run(kc_gpu *gpu, int have_gpu, const kc_item *it, const kc_opts *o, kc_gpu_watch *gw, kc_san_pool *san,
                 kc_item_result *out)
{
    memset(out, 0, sizeof *out);
    kc_proc_item_begin();       /* what runs before the item is not its doing (proctree.h) */
    int rss_ok = rss_reset() == 0;
    int watch = gw && have_gpu && kc_item_needs_gpu(it);
    if (watch) kc_gpu_watch_before(gw, gpu);
    double t0 = kc_now_s();
    char *detail = NULL;        /* the gates' further lines */
    if (kc_item_needs_gpu(it) && !have_gpu) {
        out->state = KC_SKIP;
        snprintf(out->msg, sizeof out->msg, "no GPU");
    } else if (it->kind == KC_KIND_SUITE) {
        int rc = kc_suite_run(it->suite, have_gpu ? gpu : NULL, out->msg, sizeof out->msg);
        out->state = rc ? KC_FAIL : KC_PASS;
        if (!rc) snprintf(out->msg, sizeof out->msg, "suite passed");
    } else if (it->kind == KC_KIND_SANITIZE) {
        kc_sanitize_item(it, o, san, "", out);
    } else if (!(detail = malloc(KC_DETAIL_CAP))) {
        out->state = it->kind == KC_KIND_CONTROL ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "internal error: out of host memory");
    } else {
        kc_run_gpu_item(gpu, it, o->seed, o->reference, out, detail, KC_DETAIL_CAP);
        /* A control planted for the sanitizer that gates 1-4 passed cleanly
         * (every case run, none failing, the context intact) goes on to it. */
        if (it->kind == KC_KIND_CONTROL && kc_item_runs_sanitizer(it) && out->state == KC_MISSED &&
            out->cases > 0 && out->cases_failed == 0 && !out->context_lost) {
            char gates[64];
            snprintf(gates, sizeof gates, "gates 1-4 passed all %d cases", out->cases);
            kc_sanitize_item(it, o, san, gates, out);
        }
    }
    out->seconds = kc_now_s() - t0;
    out->peak_rss_kib = rss_ok ? rss_peak_kib() : -1;
    end_leftovers(san, out);
    if (watch) check_gpu_state(gpu, gw, out);
    if (kc_result_fails(out))     /* CRASH and TIMEOUT here: a sanitizer run's */
        kc_rerun_command(o, it->name, o->device, out->rerun, sizeof out->rerun);
    kc_progress_clear();
    printf("%-6s %s  %s  (%.2f s)", kc_state_name(out->state), it->name, out->msg, out->seconds);
    if (out->rerun[0]) printf("  rerun: %s", out->rerun);
    putchar('\n');
    if (detail && detail[0]) fputs(detail, stdout);
    fflush(stdout);
    free(detail);
    const char *inject = getenv("KC_FAULT_LOSE_CONTEXT_AFTER");
    if (inject && strcmp(inject, it->name) == 0) out->context_lost = KC_LOST_CONTEXT;
}
