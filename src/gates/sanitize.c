/* sanitize.c — the sanitizer gate (sanitize.h): finding compute-sanitizer,
 * running this binary's --sanitize-target under each of its four tools
 * through the supervisor, reading the first error of its report, and the
 * target's side (the exact-size launches, gates.c). */
#include "sanitize.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gates.h"
#include "gpu.h"
#include "supervisor.h"

static const char *const TOOLS[KC_SAN_TOOLS] = { "memcheck", "racecheck", "initcheck", "synccheck" };

const char *kc_sanitizer_tool(int tool) { return tool >= 0 && tool < KC_SAN_TOOLS ? TOOLS[tool] : "?"; }

/* ---- the report ---------------------------------------------------------- */

#define PREFIX "========="

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Copies line [s, e) into dst, trimmed at both ends. */
static void copy_trim(char *dst, size_t cap, const char *s, const char *e)
{
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    size_t n = (size_t)(e - s);
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

static void append_to(char *dst, size_t cap, const char *sep, const char *text)
{
    size_t n = strlen(dst);
    const char *parts[2] = { n ? sep : "", text };
    for (int i = 0; i < 2; i++)
        for (const char *p = parts[i]; *p && n + 1 < cap; p++) dst[n++] = *p;
    dst[n] = 0;
}

/* The kernel of "at <kernel>(args)+0x70 in f.cu:12" (current versions) or
 * "at 0x70 in f.cu:12:<kernel>(args)" (older ones). */
static void kernel_of(const char *where, char *dst, size_t cap)
{
    const char *s = where + (starts(where, "at ") ? 3 : 0), *plus = strstr(s, "+0x");
    dst[0] = 0;
    if (plus && !starts(s, "0x")) {
        const char *paren = memchr(s, '(', (size_t)(plus - s));
        const char *e = paren ? paren : plus;
        if (starts(s, "void ")) s += 5;
        snprintf(dst, cap, "%.*s", (int)(e - s), s);
        return;
    }
    const char *in = strstr(s, " in ");
    if (!in) return;
    const char *c = strchr(in + 4, ':');                /* file:line:kernel */
    while (c && c[1] >= '0' && c[1] <= '9') c++;
    if (c && (c = strchr(c + 1, ':')) != NULL) {
        const char *k = c + 1, *paren = strchr(k, '(');
        if (starts(k, "void ")) k += 5;
        snprintf(dst, cap, "%.*s", (int)(paren ? paren - k : (long)strlen(k)), k);
    }
}

/* An unindented report line that is not an error. */
static int not_an_error(const char *l)
{
    static const char *const notes[] = {
        "COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY", "Target application",
        "Error: process didn't terminate", "Error: Target application", "No CUDA", "This application",
        "Error: No attachable process",
        "Info:", "INFO:",       /* racecheck's identical-value writes: benign by its own analysis */
    };
    if (!*l) return 1;
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (starts(l, notes[i])) return 1;
    return 0;
}

int kc_sanitizer_parse(const char *text, kc_san_error *e)
{
    memset(e, 0, sizeof *e);
    e->errors = -1;
    int in_error = 0, found = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
        const char *q = strstr(p, PREFIX);
        if (q && q < end) {
            const char *body = q + strlen(PREFIX);
            int indent = 0;
            while (body < end && *body == ' ') body++, indent++;
            char l[1024];
            copy_trim(l, sizeof l, body, end);
            long n;
            if (sscanf(l, "ERROR SUMMARY: %ld error", &n) == 1) e->errors = n;
            else if (sscanf(l, "RACECHECK SUMMARY: %ld hazard", &n) == 1 && e->errors < 0) e->errors = n;
            if (indent <= 1) {
                in_error = 0;
                if (!found && !not_an_error(l)) {
                    found = in_error = 1;
                    snprintf(e->what, sizeof e->what, "%.255s", l);
                    const char *at = strstr(l, " access at ");     /* racecheck names its first site on this line */
                    if (at) {
                        snprintf(e->where, sizeof e->where, "%.383s", at + 8);
                        kernel_of(e->where, e->kernel, sizeof e->kernel);
                    }
                }
            } else if (in_error) {
                int tx, ty, tz, bx, by, bz;
                if (starts(l, "at ") && !strstr(e->where, " in ")) {
                    snprintf(e->where, sizeof e->where, "%.383s", l);
                    kernel_of(l, e->kernel, sizeof e->kernel);
                } else if (starts(l, "and ") && strstr(l, " access at ")) {
                    append_to(e->where, sizeof e->where, "; ", l);       /* racecheck's second access */
                } else if (sscanf(l, "by thread (%d,%d,%d) in block (%d,%d,%d)", &tx, &ty, &tz, &bx, &by, &bz) == 6) {
                    snprintf(e->thread, sizeof e->thread, "(%d,%d,%d)", tx, ty, tz);
                    snprintf(e->block, sizeof e->block, "(%d,%d,%d)", bx, by, bz);
                } else if (starts(l, "Address ") || (starts(l, "and is ") && e->address[0])) {
                    append_to(e->address, sizeof e->address, " ", l);
                } else if (starts(l, "Saved host backtrace") || starts(l, "Host Frame") || starts(l, "Device Frame")) {
                    in_error = 2;       /* backtraces end what this line needs */
                }
            }
        }
        p = nl ? nl + 1 : NULL;
    }
    return found;
}

void kc_sanitizer_describe(const char *tool, const kc_san_error *e, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s: %s", tool, e->what);
#define ADD(...) do { if (n >= 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, __VA_ARGS__); } while (0)
    if (e->kernel[0]) ADD(" in kernel %s", e->kernel);
    if (e->where[0] && !strstr(e->what, e->where)) ADD(" %s", e->where);
    if (e->thread[0]) ADD(", thread %s block %s", e->thread, e->block);
    if (e->address[0]) ADD(", %s", e->address);
    if (e->errors > 1) ADD(" (%ld errors in all)", e->errors);
#undef ADD
}

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
    if (env && *env) {
        if (executable(env)) {
            snprintf(path, cap, "%s", env);
            return 0;
        }
        snprintf(why, whycap, "KC_COMPUTE_SANITIZER=%s is not an executable file", env);
        return 1;
    }
    const char *pathenv = getenv("PATH");
    char dirs[1024] = "";
    if (pathenv) {
        const char *p = pathenv;
        while (*p) {
            const char *c = strchr(p, ':'), *e = c ? c : p + strlen(p);
            char cand[4096];
            if (e > p) {
                snprintf(cand, sizeof cand, "%.*s/compute-sanitizer", (int)(e - p), p);
                if (executable(cand)) {
                    snprintf(path, cap, "%s", cand);
                    return 0;
                }
            }
            p = c ? c + 1 : e;
        }
        snprintf(dirs, sizeof dirs, "$PATH (%.900s), ", pathenv);
    }
    if (executable(KC_SAN_DEFAULT)) {
        snprintf(path, cap, "%s", KC_SAN_DEFAULT);
        return 0;
    }
    snprintf(why, whycap, "compute-sanitizer not found (looked in $KC_COMPUTE_SANITIZER, unset; %s" KC_SAN_DEFAULT
             "): install the CUDA toolkit's compute-sanitizer or set KC_COMPUTE_SANITIZER", dirs);
    return 1;
}

/* ---- one tool's run ------------------------------------------------------- */

#define KC_SAN_OUT_MAX (256 * 1024)     /* output kept per run; the first error comes early */

typedef struct san_run {
    char *out;                  /* stdout and stderr, in arrival order */
    size_t len;
    size_t dropped;
    int done, wstatus, killed, stop_signal;
    char leak[512];
} san_run;

static void on_line(void *ctx, kc_sup *s, kc_child *c, int stream, const char *line, size_t len, size_t cut)
{
    (void)s, (void)c, (void)stream, (void)cut;
    san_run *r = ctx;
    if (r->len + len + 2 > KC_SAN_OUT_MAX) {
        r->dropped += len + 1;
        return;
    }
    memcpy(r->out + r->len, line, len);
    r->len += len;
    r->out[r->len++] = '\n';
    r->out[r->len] = 0;
}

static void on_gone(void *ctx, kc_sup *s, kc_child *c)
{
    (void)s;
    san_run *r = ctx;
    r->done = 1;
    r->wstatus = c->wstatus;
    r->killed = c->killed;
    r->stop_signal = c->stop_signal;
    snprintf(r->leak, sizeof r->leak, "%s", c->leak);
}

static const kc_sup_ops SAN_OPS = { on_line, on_gone, NULL };

/* Runs argv[0] with argv under the supervisor for at most limit_s seconds.
 * 0, with r filled; -1 it could not start (why); a SIGINT or SIGTERM that
 * came meanwhile is raised again once the child is gone. */
static int run_child(char *const argv[], double limit_s, san_run *r, int *timed_out, char *why, size_t cap)
{
    kc_sup sup;
    *timed_out = 0;
    if (kc_sup_init(&sup, 1, &SAN_OPS, r, 0) < 0) {
        snprintf(why, cap, "cannot set up the supervisor: %s", strerror(errno));
        return -1;
    }
    if (kc_sup_start(&sup, 0, argv[0], argv, 0) < 0) {
        snprintf(why, cap, "cannot start %s: %s", argv[0], strerror(errno));
        kc_sup_free(&sup);
        return -1;
    }
    kc_sup_mark(&sup.c[0], KC_CHILD_RUNNING);
    double deadline = kc_sup_now() + limit_s;
    while (kc_sup_live(&sup)) {
        if (kc_sup_wait(&sup, *timed_out ? 0 : deadline) < 0 && errno != EINTR) break;
        if (!*timed_out && !r->done && kc_sup_now() >= deadline) {
            *timed_out = 1;
            kc_sup_stop(&sup, &sup.c[0], SIGTERM, KC_SUP_GRACE_MS);
        }
    }
    int sig = sup.interrupted;
    kc_sup_free(&sup);
    if (sig) raise(sig);
    return 0;
}

/* ---- the item -------------------------------------------------------------- */

/* The absolute path of this binary (the sanitizer resolves /proc/self/exe to
 * itself). */
static int self_path(char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0) return -1;
    buf[n] = 0;
    return 0;
}

/* The last line of the target's own output that starts with prefix, into dst. */
static int target_line(const char *out, const char *prefix, char *dst, size_t cap)
{
    int found = 0;
    for (const char *p = out; p && *p;) {
        const char *nl = strchr(p, '\n');
        if (starts(p, prefix)) {
            copy_trim(dst, cap, p + strlen(prefix), nl ? nl : p + strlen(p));
            found = 1;
        }
        p = nl ? nl + 1 : NULL;
    }
    return found;
}

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

static double tool_limit_s(const kc_item *it)
{
    const char *env = getenv("KC_SANITIZE_TIMEOUT_S");
    double t = env && *env ? atof(env) : 0;
    if (t > 0) return t;
    return it->contract && it->contract->timeout_s > KC_SAN_TIMEOUT_S ? it->contract->timeout_s : KC_SAN_TIMEOUT_S;
}

void kc_sanitize_item(const kc_item *it, const kc_opts *o, const char *gates_msg, kc_item_result *out)
{
    const int control = it->kind == KC_KIND_CONTROL;
    char san[4096], why[1536], self[4096];
    const char *planted = control ? " (the control planted for the sanitizer was not checked by it)" : "";
    if (kc_sanitizer_find(san, sizeof san, why, sizeof why)) {
        out->state = KC_SKIP;
        snprintf(out->msg, sizeof out->msg, "%s%s", why, planted);
        return;
    }
    if (self_path(self, sizeof self)) {
        out->state = control ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "internal error: cannot read /proc/self/exe: %s%s", strerror(errno), planted);
        return;
    }
    char seed[32], dev[16], ecode[16];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    snprintf(dev, sizeof dev, "%d", o->device);
    snprintf(ecode, sizeof ecode, "%d", KC_SAN_ERROR_EXIT);
    double limit = tool_limit_s(it);
    char target_ok[600] = "";
    char *buf = malloc(KC_SAN_OUT_MAX);
    if (!buf) {
        out->state = control ? KC_MISSED : KC_FAIL;
        snprintf(out->msg, sizeof out->msg, "internal error: out of host memory%s", planted);
        return;
    }
    const char *no_race = it->contract ? it->contract->no_racecheck : NULL;
    char tools_run[600];
    if (no_race) snprintf(tools_run, sizeof tools_run, "memcheck, initcheck and synccheck (racecheck not run: %s)", no_race);
    else snprintf(tools_run, sizeof tools_run, "memcheck, racecheck, initcheck and synccheck");
    for (int t = 0; t < KC_SAN_TOOLS; t++) {
        const char *tool = TOOLS[t];
        if (t == 1 && no_race) continue;
        /* Tool-specific flags: no leak report (the target's session frees what
         * it allocates; a leak is the gates' GPU-state watch's business), and
         * racecheck's analysis (one line per race, both accesses). */
        const char *extra[2] = { NULL, NULL };
        if (t == 0) extra[0] = "--leak-check", extra[1] = "no";
        if (t == 1) extra[0] = "--racecheck-report", extra[1] = "analysis";
        const char *words[32];
        int w = 0;
        words[w++] = san;
        words[w++] = "--tool", words[w++] = tool;
        words[w++] = "--error-exitcode", words[w++] = ecode;
        words[w++] = "--print-limit", words[w++] = "10";
        words[w++] = "--launch-timeout", words[w++] = "60";
        words[w++] = "--target-processes", words[w++] = "application-only";
        /* The harness's own CUDA calls that fail on purpose (probes) are not
         * the kernel's errors; a launch that fails is the target's FAIL line. */
        words[w++] = "--report-api-errors", words[w++] = "no";
        if (extra[0]) words[w++] = extra[0], words[w++] = extra[1];
        words[w++] = self;
        words[w++] = "run", words[w++] = it->name, words[w++] = "--sanitize-target";
        words[w++] = "--seed", words[w++] = seed, words[w++] = "--device", words[w++] = dev;
        words[w] = NULL;
        char cmd[900];
        kc_shell_join(words, w, cmd, sizeof cmd);
        san_run r = { .out = buf };
        buf[0] = 0;
        int timed_out = 0;
        char swhy[512];
        if (run_child((char *const *)words, limit, &r, &timed_out, swhy, sizeof swhy) < 0) {
            out->state = KC_CRASH;
            snprintf(out->msg, sizeof out->msg, "%s: %s%s; sanitizer command: %s", tool, swhy, planted, cmd);
            break;
        }
        kc_san_error e;
        int found = kc_sanitizer_parse(buf, &e);
        char status[128], line[1000];
        kc_sup_describe_status(r.wstatus, status, sizeof status);
        if (found) {
            kc_sanitizer_describe(tool, &e, line, sizeof line);
            if (control) {
                out->state = KC_RED;
                out->gate = KC_GATE_SANITIZE;
                snprintf(out->msg, sizeof out->msg, "caught by gate 5 (sanitizer; planted for gate 5; %s): %s; "
                         "sanitizer command: %s", gates_msg, line, cmd);
            } else {
                out->state = KC_FAIL;
                out->gate = KC_GATE_SANITIZE;
                snprintf(out->msg, sizeof out->msg, "%s; sanitizer command: %s", line, cmd);
            }
            break;
        }
        if (timed_out) {
            out->state = KC_TIMEOUT;
            snprintf(out->msg, sizeof out->msg, "%s: compute-sanitizer did not finish in %.0f s (its process group was "
                     "stopped: %s)%s; sanitizer command: %s", tool, limit, status, planted, cmd);
            break;
        }
        char tline[600] = "", head[600];
        if (WIFSIGNALED(r.wstatus)) {
            out->state = KC_CRASH;
            head_of(buf, head, sizeof head);
            snprintf(out->msg, sizeof out->msg, "%s: compute-sanitizer %s, reporting no error (output: %s)%s; "
                     "sanitizer command: %s", tool, status, head[0] ? head : "none", planted, cmd);
            break;
        }
        int code = WIFEXITED(r.wstatus) ? WEXITSTATUS(r.wstatus) : -1;
        if (target_line(buf, KC_SAN_TARGET_FAIL, tline, sizeof tline) || code != 0 ||
            !target_line(buf, KC_SAN_TARGET_OK, tline, sizeof tline)) {
            /* No error parsed, yet not a clean run: never green, never a catch. */
            out->state = control ? KC_MISSED : KC_FAIL;
            head_of(buf, head, sizeof head);
            if (tline[0])
                snprintf(out->msg, sizeof out->msg, "%s: the target failed under compute-sanitizer: %s", tool, tline);
            else
                snprintf(out->msg, sizeof out->msg, "%s: the target reported no launches under compute-sanitizer "
                         "(output: %s)", tool, head[0] ? head : "none");
            snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg), " [compute-sanitizer %s%s]%s; "
                     "sanitizer command: %s", status, code == KC_SAN_ERROR_EXIT ?
                     ": it counted errors this parser did not find" : "", planted, cmd);
            break;
        }
        snprintf(target_ok, sizeof target_ok, "%s", tline);
        if (r.leak[0]) {
            out->state = KC_PASS;       /* kc_result_left_behind words it */
            snprintf(out->msg, sizeof out->msg, "%s clean", tool);
            kc_result_left_behind(out, r.leak);
            break;
        }
        if (t == KC_SAN_TOOLS - 1) {
            out->state = control ? KC_MISSED : KC_PASS;
            if (control)
                snprintf(out->msg, sizeof out->msg, "%s, and %s found no error on %s: the suite is blind to this bug "
                         "(%s; planted for gate 5)", gates_msg, tools_run, target_ok, it->control->bug);
            else
                snprintf(out->msg, sizeof out->msg, "%s clean on %s (buffers of exact size)", tools_run, target_ok);
        }
    }
    free(buf);
}

/* ---- the target ------------------------------------------------------------ */

int kc_sanitize_target(const kc_opts *o, const kc_item *items, int n)
{
    const kc_item *it = NULL;
    for (int i = 0; o->npatterns == 1 && i < n && !it; i++)
        if (strcmp(items[i].name, o->patterns[0]) == 0) it = &items[i];
    if (!it || (it->kind != KC_KIND_SANITIZE && it->kind != KC_KIND_CONTROL)) {
        printf(KC_SAN_TARGET_FAIL "--sanitize-target needs one item name, a <contract>:sanitize item or a control "
               "(got %d pattern%s, first '%s')\n", o->npatterns, o->npatterns == 1 ? "" : "s",
               o->npatterns ? o->patterns[0] : "");
        return 2;
    }
    kc_gpu gpu;
    int rc = kc_gpu_open(&gpu, o->device);
    if (rc) {
        printf(KC_SAN_TARGET_FAIL "no GPU: %s\n", gpu.why);
        kc_gpu_close(&gpu);
        return rc < 0 ? 2 : 3;
    }
    char msg[2048];
    rc = kc_run_exact_launches(&gpu, it->contract, it->kind == KC_KIND_CONTROL ? it->control->name : NULL, o->seed,
                               msg, sizeof msg);
    printf("%s%s\n", rc ? KC_SAN_TARGET_FAIL : KC_SAN_TARGET_OK, msg);
    fflush(stdout);
    kc_gpu_close(&gpu);
    return rc ? 1 : 0;
}
