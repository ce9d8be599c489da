/* shard_env.c — owns the engines' shard protocols (shard_env.h): reading K/N
 * from Bazel's, GoogleTest's, Slurm's and Kubernetes' variables, the checks
 * each engine's rules call for, and the status file; and the rest of a test
 * runner's protocol: the premature-exit file and the XML output file. */
#include "shard_env.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "progname.h"
#include "shard.h"
#include "strict_num.h"

const char *const kc_env_shard_vars[] = {
    "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", "TEST_SHARD_STATUS_FILE",
    "GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", "GTEST_SHARD_STATUS_FILE",
    "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX", "KC_SHARDS", NULL,
};

/* A canonical decimal (kc_parse_canonical) of a variable's value, up to max. */
static int dec(const char *s, long max, long *v)
{
    uint64_t x;
    if (!s || kc_parse_canonical(s, strlen(s), (uint64_t)max, &x)) return -1;
    *v = (long)x;
    return 0;
}

/* One engine's reading, before the engines are compared. */
typedef struct reading {
    int found, k, n;
    char vars[256];
    const char *status;
} reading;

/* An index/total pair: both or neither; canonical decimals; 1 <= N <= the
 * most --shard takes; K < N. Returns 0 (r->found says whether present) or -1. */
static int read_pair(kc_env_get get, void *ctx, const char *ivar, const char *nvar, reading *r, char *err, size_t cap)
{
    const char *iv = get(ivar, ctx), *nv = get(nvar, ctx);
    long k, n;
    r->found = 0;
    if (!iv && !nv) return 0;
    if (!iv || !nv)
        return kc_errf(err, cap, "%s=%s is set but %s is not: both or neither (%s)", iv ? ivar : nvar, iv ? iv : nv,
                       iv ? nvar : ivar, "the index and the number of shards");
    if (dec(nv, KC_MAX_SHARDS, &n) || n < 1)
        return kc_errf(err, cap, "%s='%s': expected a number of shards from 1 to %d", nvar, nv, KC_MAX_SHARDS);
    if (dec(iv, 999999999, &k)) return kc_errf(err, cap, "%s='%s': expected a shard index (0, 1, ...)", ivar, iv);
    if (k >= n)
        return kc_errf(err, cap, "%s=%ld is out of range: %s=%ld gives shards 0..%ld", ivar, k, nvar, n, n - 1);
    r->found = 1;
    r->k = (int)k;
    r->n = (int)n;
    snprintf(r->vars, sizeof r->vars, "%s=%ld %s=%ld", ivar, k, nvar, n);
    return 0;
}

/* Slurm: a job array numbered 0..N-1, step 1 (checked first: an id out of
 * range is then the array's numbering, which the message names). */
static int read_slurm(kc_env_get get, void *ctx, reading *r, char *err, size_t cap)
{
    static const struct { const char *var; int is_max; long want; } rule[] = {
        { "SLURM_ARRAY_TASK_MIN", 0, 0 }, { "SLURM_ARRAY_TASK_STEP", 0, 1 }, { "SLURM_ARRAY_TASK_MAX", 1, 0 },
    };
    long n;
    const char *cv = get("SLURM_ARRAY_TASK_COUNT", ctx);
    if (get("SLURM_ARRAY_TASK_ID", ctx) && cv && dec(cv, KC_MAX_SHARDS, &n) == 0 && n >= 1)
        for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++) {
            const char *v = get(rule[i].var, ctx);
            long want = rule[i].is_max ? n - 1 : rule[i].want, x;
            if (!v) continue;   /* older Slurm: nothing to hold it to */
            if (dec(v, 999999999, &x) || x != want)
                return kc_errf(err, cap, "%s=%s: a shard array's task ids must be 0..%ld in steps of 1 "
                               "(SLURM_ARRAY_TASK_COUNT=%ld), e.g. sbatch --array=0-%ld; --array=0-6:2 gives ids 0,2,4,6 "
                               "with a count of 4", rule[i].var, v, n - 1, n, n - 1);
        }
    return read_pair(get, ctx, "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", r, err, cap);
}

/* Kubernetes: JOB_COMPLETION_INDEX with KC_SHARDS from the manifest. */
static int read_k8s(kc_env_get get, void *ctx, reading *r, char *err, size_t cap)
{
    const char *iv = get("JOB_COMPLETION_INDEX", ctx), *nv = get("KC_SHARDS", ctx);
    if (iv && !nv)
        return kc_errf(err, cap, "JOB_COMPLETION_INDEX=%s is set but KC_SHARDS is not: Kubernetes does not pass the number "
                       "of completions; set KC_SHARDS to the Job's .spec.completions in the manifest (docs/multi-host.md)", iv);
    return read_pair(get, ctx, "JOB_COMPLETION_INDEX", "KC_SHARDS", r, err, cap);
}

int kc_env_shard_read(kc_env_get get, void *ctx, int implicit_only, kc_env_shard *out, char *err, size_t cap)
{
    static const char *const name[4] = { "Bazel", "GoogleTest", "Slurm", "Kubernetes" };
    reading r[4];
    memset(out, 0, sizeof *out);
    memset(r, 0, sizeof r);
    if (read_pair(get, ctx, "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", &r[0], err, cap) ||
        read_pair(get, ctx, "GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", &r[1], err, cap))
        return -1;
    r[0].status = get("TEST_SHARD_STATUS_FILE", ctx);
    r[1].status = get("GTEST_SHARD_STATUS_FILE", ctx);
    if (!implicit_only && (read_slurm(get, ctx, &r[2], err, cap) || read_k8s(get, ctx, &r[3], err, cap))) return -1;
    int first = -1;
    for (int e = 0; e < 4; e++) {
        if (!r[e].found) continue;
        if (first < 0) {
            first = e;
            continue;
        }
        if (r[e].k != r[first].k || r[e].n != r[first].n)
            return kc_errf(err, cap, "the variables of %s and %s disagree: %s (shard %d/%d), but %s (shard %d/%d)", name[first],
                           name[e], r[first].vars, r[first].k, r[first].n, r[e].vars, r[e].k, r[e].n);
    }
    if (first < 0) return 0;
    out->found = 1;
    out->k = r[first].k;
    out->n = r[first].n;
    for (int e = first; e < 4; e++) {
        if (!r[e].found) continue;
        size_t ne = strlen(out->engine), nv = strlen(out->vars);   /* both fit: 4 engines at most */
        snprintf(out->engine + ne, sizeof out->engine - ne, "%s%s", ne ? " and " : "", name[e]);
        snprintf(out->vars + nv, sizeof out->vars - nv, "%s%s", nv ? " " : "", r[e].vars);
        if (!out->status_file[0] && r[e].status && *r[e].status)
            snprintf(out->status_file, sizeof out->status_file, "%s", r[e].status);
    }
    return 0;
}

int kc_env_shard_touch(const kc_env_shard *s, char *err, size_t cap)
{
    if (!s->status_file[0]) return 0;
    int fd = open(s->status_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return kc_errf(err, cap, "cannot create the shard status file %s: %s", s->status_file, strerror(errno));
    close(fd);
    return 0;
}

static const char *real_getenv(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

/* Removes every protocol variable: a --jobs parent's workers must not shard. */
static void strip_env(void)
{
    for (int i = 0; kc_env_shard_vars[i]; i++) unsetenv(kc_env_shard_vars[i]);
}

int kc_env_shard_apply(kc_opts *o)
{
    char err[1024];
    kc_env_shard s;
    int implicit = !o->sharded;
    if ((o->cmd != KC_CMD_RUN && o->cmd != KC_CMD_LIST) || o->worker || o->parent) return 0;
    if ((implicit && o->cmd != KC_CMD_RUN) || (!implicit && !o->shard_auto)) {
        if (o->jobs) strip_env();
        return 0;
    }
    if (kc_env_shard_read(real_getenv, NULL, implicit, &s, err, sizeof err)) {
        kc_say(stderr, "%s%s\n", o->shard_auto ? "--shard auto: " : "", err);
        return 2;
    }
    if (!s.found) {
        if (o->jobs) strip_env();
        if (!o->shard_auto) return 0;
        kc_say(stderr, "--shard auto: no engine's shard variables are set; expected TEST_SHARD_INDEX and "
                        "TEST_TOTAL_SHARDS (Bazel), GTEST_SHARD_INDEX and GTEST_TOTAL_SHARDS (GoogleTest), "
                        "SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm job array), or JOB_COMPLETION_INDEX and "
                        "KC_SHARDS (a Kubernetes Indexed Job); docs/multi-host.md\n");
        return 2;
    }
    if (o->jobs && o->schedule_static) {
        kc_say(stderr, "%s asks for shard %d/%d (%s), and --schedule static runs every shard itself: "
                        "drop --schedule static (the work queue runs the slice)\n", s.engine, s.k, s.n, s.vars);
        return 2;
    }
    if (kc_env_shard_touch(&s, err, sizeof err)) {
        kc_say(stderr, "%s: %s\n", s.engine, err);
        return 2;
    }
    o->shard_k = s.k;
    o->shard_n = s.n;
    o->sharded = 1;
    if (!o->resume_tally)
        kc_say(stdout, "shard %d/%d from the variables of %s (%s)%s\n", s.k, s.n, s.engine, s.vars,
               implicit ? "; no --shard was given: honoured as a gtest binary honours them" : ", --shard auto");
    fflush(stdout);
    if (o->jobs) strip_env();
    return 0;
}

/* ---- the test runner's other files (Bazel's test encyclopedia, which a
 * GoogleTest binary follows too) ---- */

/* The process that begins and ends a run (not a --jobs worker, a static
 * shard child or compute-sanitizer's target). */
static int test_env_applies(const kc_opts *o)
{
    return o->cmd == KC_CMD_RUN && !o->worker && !o->parent && !o->sanitize_target && !o->cases_given;
}

void kc_env_test_begin(kc_opts *o)
{
    if (!test_env_applies(o)) return;
    const char *xml = getenv("XML_OUTPUT_FILE");
    if (xml && *xml && !o->junit && !(o->jobs && o->schedule_static)) {
        static char abs[PATH_MAX + 1];
        char cwd[PATH_MAX];
        if (xml[0] != '/' && getcwd(cwd, sizeof cwd) && (size_t)snprintf(abs, sizeof abs, "%s/%s", cwd, xml) < sizeof abs)
            xml = abs;      /* fixed now: an item may chdir() (as --junit, app/cli.c) */
        o->junit = xml;     /* the JUnit report, where the runner reads it */
    }
    const char *pre = getenv("TEST_PREMATURE_EXIT_FILE");
    if (!pre || !*pre || o->resume_tally) return;   /* a re-exec'd serial run continues the one that made it */
    int fd = open(pre, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        kc_say(stderr, "TEST_PREMATURE_EXIT_FILE=%s: cannot create it: %s (the test runner cannot tell an "
                "exit in the middle of the run from its end)\n", pre, strerror(errno));
    else
        close(fd);
}

void kc_env_test_end(const kc_opts *o)
{
    const char *pre = getenv("TEST_PREMATURE_EXIT_FILE");
    if (test_env_applies(o) && pre && *pre && unlink(pre) != 0 && errno != ENOENT)
        kc_say(stderr, "TEST_PREMATURE_EXIT_FILE=%s: cannot remove it: %s (the test runner will call "
                "this run's exit premature)\n", pre, strerror(errno));
}
