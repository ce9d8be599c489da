/* mutate_build.c — the mutants' builds and trivial compiler equivalence
 * (mutate_build.h). */
#include "mutate_build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "child_run.h"
#include "seed.h"
#include "strvec.h"

static const char *const state_names[KC_MUT_STATE_COUNT] = {
    "pending", "accepted", "sampled_out", "unviable", "equivalent", "duplicate", "viable", "caught", "missed",
    "timeout", "notrun"
};

const char *kc_mut_state_name(kc_mut_state s)
{
    return s >= 0 && s < KC_MUT_STATE_COUNT ? state_names[s] : "?";
}

int kc_mutant_cubin_loads(int cc_major, int cc_minor)
{
    return cc_major == 9 && cc_minor == 0;
}

const char *kc_mutant_image_ext(const kc_mut_build_opts *o)
{
    return o->fatbins && o->cubin_images ? ".cubin" : ".fatbin";
}

void kc_mutant_path(char *buf, size_t cap, const char *dir, const char *module, const char *id, const char *ext)
{
    snprintf(buf, cap, "%s/%s@%s%s", dir, module, id, ext);
}

/* Reads a whole file; NULL when it cannot (errno). */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0, r;
    char *b = malloc(cap + 1);
    while (b && (r = fread(b + len, 1, cap - len, f)) > 0)
        if ((len += r) == cap) {
            char *nb = realloc(b, (cap *= 2) + 1);
            if (!nb) { free(b); b = NULL; }
            else b = nb;
        }
    fclose(f);
    if (b) b[len] = 0;
    *n = len;
    return b;
}

/* Writes text to path unless it already holds exactly that (make keeps its build). */
static int write_if_changed(const char *path, const char *text, size_t n, char *err, size_t cap)
{
    size_t old_n;
    char *old = slurp(path, &old_n);
    int same = old && old_n == n && memcmp(old, text, n) == 0;
    free(old);
    if (same) return 0;
    FILE *f = fopen(path, "wb");
    if (!f) return kc_errf(err, cap, "cannot write %s: %s", path, strerror(errno));
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    return bad ? kc_errf(err, cap, "cannot write %s", path) : 0;
}

static int mkdirs(const char *dir, char *err, size_t cap)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; ; s++) {
        char c = *s;
        if (c == '/' || c == 0) {
            *s = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) return kc_errf(err, cap, "cannot make folder %s: %s", p, strerror(errno));
            *s = c;
        }
        if (!c) break;
    }
    return 0;
}

/* The program's path: prog itself when it has a '/', else found in PATH. */
static int find_program(const char *prog, char *out, size_t cap)
{
    if (strchr(prog, '/')) {
        snprintf(out, cap, "%s", prog);
        return access(out, X_OK);
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(out, cap, "%.*s/%s", (int)n, path, prog);
        if (n && access(out, X_OK) == 0) return 0;
        path += n + (path[n] == ':');
    }
    return -1;
}

typedef struct make_log {
    FILE *f;
    int verbose;
} make_log;

static void on_make_line(void *ctx, int e, const char *line, size_t len)
{
    make_log *l = ctx;
    if (l->f) fprintf(l->f, "%.*s\n", (int)len, line);
    if (l->verbose) fprintf(e ? stderr : stdout, "%.*s\n", (int)len, line);
}

/* make -k -jN KC_MUTANT_DIR=dir KC_MUTANT_INC_<m>=folder... targets; its status. */
static int run_make(const kc_mut_build_opts *o, const kc_mut_module *mods, int nmods, kc_strvec *targets, char *err,
                    size_t cap)
{
    char prog[1024];
    if (find_program(o->make, prog, sizeof prog))
        return kc_errf(err, cap, "make program '%s' not found (on PATH or as a path); the mutants are built by the "
                       "project's make rules (share/kcontract.mk)", o->make);
    kc_strvec av = KC_STRVEC_INIT;
    int oom = 0;
    char buf[1200];
    oom |= kc_strvec_push(&av, o->make);
    oom |= kc_strvec_push(&av, "-k");
    snprintf(buf, sizeof buf, "-j%d", o->jobs > 0 ? o->jobs : 1);
    oom |= kc_strvec_push(&av, buf);
    snprintf(buf, sizeof buf, "KC_MUTANT_DIR=%s", o->dir);
    oom |= kc_strvec_push(&av, buf);
    for (int i = 0; i < nmods; i++) {
        char folder[512];
        snprintf(folder, sizeof folder, "%s", mods[i].path);
        char *slash = strrchr(folder, '/');
        if (slash) *slash = 0;
        else snprintf(folder, sizeof folder, ".");
        snprintf(buf, sizeof buf, "KC_MUTANT_INC_%s=%s", mods[i].name, folder);
        oom |= kc_strvec_push(&av, buf);
    }
    for (size_t i = 0; i < targets->n; i++) oom |= kc_strvec_push(&av, targets->v[i]);
    if (oom) {
        kc_strvec_clear(&av);
        return kc_errf(err, cap, "out of memory");
    }
    char logp[1100];
    snprintf(logp, sizeof logp, "%s/make.log", o->dir);
    make_log l = { fopen(logp, "a"), o->verbose };
    int intr = 0;
    /* The mutants are built by the modules' own rules, not by whatever make
     * this run was started from: a parent make passes its command-line
     * variables down through MAKEFLAGS (CI's sanitizer build sets NVCC=false
     * there, which failed every mutant's build), so the child gets none of
     * them; -j is given above. This process's environment is put back after. */
    static const char *const inherited[] = { "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES" };
    char *saved[4] = { NULL, NULL, NULL, NULL };
    for (int i = 0; i < 4; i++) {
        const char *v = getenv(inherited[i]);
        if (v && !(saved[i] = strdup(v))) oom = 1;
    }
    if (oom) {
        for (int i = 0; i < 4; i++) free(saved[i]);
        if (l.f) fclose(l.f);
        kc_strvec_clear(&av);
        return kc_errf(err, cap, "out of memory");
    }
    for (int i = 0; i < 4; i++) unsetenv(inherited[i]);
    int st = kc_child_run(prog, av.v, on_make_line, &l, &intr, err, cap);
    for (int i = 0; i < 4; i++) {
        if (saved[i]) setenv(inherited[i], saved[i], 1);
        free(saved[i]);
    }
    if (l.f) fclose(l.f);
    kc_strvec_clear(&av);
    if (intr) return kc_errf(err, cap, "interrupted while building the mutants");
    return st;
}

static int exists(const char *p)
{
    struct stat s;
    return stat(p, &s) == 0 && S_ISREG(s.st_mode) && s.st_size > 0;
}

/* nvcc's first error line of a log ("... error ..."), or its first line. */
static void first_error(const char *log, char *why, size_t cap)
{
    size_t n;
    char *t = slurp(log, &n);
    if (!t || !n) {
        snprintf(why, cap, "did not compile (no message: %s)", log);
        free(t);
        return;
    }
    char *line = t, *pick = NULL;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        if (!pick && strstr(line, "error")) pick = line;
        line = nl ? nl + 1 : NULL;
    }
    snprintf(why, cap, "%s", pick ? pick : t);
    free(t);
}

int kc_mutate_build(const kc_mut_module *mods, int nmods, const kc_mutants *m, kc_mut_status *st,
                    const kc_mut_build_opts *o, char *err, size_t cap)
{
    if (mkdirs(o->dir, err, cap)) return -1;
    char path[1200];
    int *used = calloc((size_t)nmods + 1, sizeof *used);
    if (!used) return kc_errf(err, cap, "out of memory");
    kc_strvec targets = KC_STRVEC_INIT;
    int rc = -1, oom = 0;
    /* the sources: each pending mutant, and the original of each module used */
    for (int i = 0; i < m->n; i++) {
        if (st[i].state != KC_MUT_PENDING) continue;
        int k = 0;
        while (k < nmods && strcmp(mods[k].name, m->v[i].module) != 0) k++;
        if (k == nmods) {
            kc_errf(err, cap, "mutant %s names module %s, which is not among the modules given", m->v[i].id, m->v[i].module);
            goto out;
        }
        used[k] = 1;
        char *text = kc_mutant_text(&mods[k].src, &m->v[i]);
        if (!text) { kc_errf(err, cap, "out of memory"); goto out; }
        kc_mutant_path(path, sizeof path, o->dir, m->v[i].module, m->v[i].id, ".cu");
        int w = write_if_changed(path, text, strlen(text), err, cap);
        free(text);
        if (w) goto out;
        kc_mutant_path(path, sizeof path, o->dir, m->v[i].module, m->v[i].id, ".cubin");
        oom |= kc_strvec_push(&targets, path);
    }
    for (int k = 0; k < nmods; k++) {
        if (!used[k]) continue;
        kc_mutant_path(path, sizeof path, o->dir, mods[k].name, "orig", ".cu");
        if (write_if_changed(path, mods[k].src.text, mods[k].src.len, err, cap)) goto out;
        kc_mutant_path(path, sizeof path, o->dir, mods[k].name, "orig", ".cubin");
        oom |= kc_strvec_push(&targets, path);
    }
    if (oom) { kc_errf(err, cap, "out of memory"); goto out; }
    if (targets.n && run_make(o, mods, nmods, &targets, err, cap) < 0) goto out;
    /* the originals must have built: else nothing can be judged */
    char *orig[256] = { 0 };
    size_t orig_n[256] = { 0 };
    if (nmods > 256) { kc_errf(err, cap, "%d modules: at most 256 in one mutation run", nmods); goto out; }
    for (int k = 0; k < nmods; k++) {
        if (!used[k]) continue;
        kc_mutant_path(path, sizeof path, o->dir, mods[k].name, "orig", ".cubin");
        if (!exists(path) || !(orig[k] = slurp(path, &orig_n[k]))) {
            char why[512], log[1200];
            kc_mutant_path(log, sizeof log, o->dir, mods[k].name, "orig", ".log");
            first_error(log, why, sizeof why);
            kc_errf(err, cap, "the unmutated module %s (%s) does not build with the mutants' rule: %s (see %s)",
                    mods[k].name, mods[k].path, why, log);
            for (int j = 0; j < k; j++) free(orig[j]);
            goto out;
        }
    }
    /* each mutant: unviable, equivalent, duplicate or viable */
    uint64_t *hash = calloc((size_t)m->n + 1, sizeof *hash);
    if (!hash) { kc_errf(err, cap, "out of memory"); goto free_orig; }
    int viable = 0;
    for (int i = 0; i < m->n; i++) {
        if (st[i].state != KC_MUT_PENDING) continue;
        int k = 0;
        while (strcmp(mods[k].name, m->v[i].module) != 0) k++;
        kc_mutant_path(path, sizeof path, o->dir, m->v[i].module, m->v[i].id, ".cubin");
        size_t n;
        char *bin = exists(path) ? slurp(path, &n) : NULL;
        if (!bin) {
            char log[1200];
            kc_mutant_path(log, sizeof log, o->dir, m->v[i].module, m->v[i].id, ".log");
            st[i].state = KC_MUT_UNVIABLE;
            first_error(log, st[i].why, sizeof st[i].why);
            continue;
        }
        hash[i] = kc_fnv1a64(bin, n, kc_hash_str(m->v[i].module));
        if (n == orig_n[k] && memcmp(bin, orig[k], n) == 0) {
            st[i].state = KC_MUT_EQUIVALENT;
            snprintf(st[i].why, sizeof st[i].why, "machine code identical to the original's");
            free(bin);
            continue;
        }
        for (int j = 0; j < i && st[i].state == KC_MUT_PENDING; j++) {
            if (st[j].state != KC_MUT_VIABLE || hash[j] != hash[i]) continue;
            char pj[1200];
            kc_mutant_path(pj, sizeof pj, o->dir, m->v[j].module, m->v[j].id, ".cubin");
            size_t nj;
            char *bj = slurp(pj, &nj);
            if (bj && nj == n && memcmp(bj, bin, n) == 0) {
                st[i].state = KC_MUT_DUPLICATE;
                snprintf(st[i].dup_of, sizeof st[i].dup_of, "%s", m->v[j].id);
                snprintf(st[i].why, sizeof st[i].why, "machine code identical to mutant %s's", m->v[j].id);
            }
            free(bj);
        }
        free(bin);
        if (st[i].state == KC_MUT_PENDING) {
            st[i].state = KC_MUT_VIABLE;
            viable++;
        }
    }
    free(hash);
    rc = 0;
    if (o->fatbins && !o->cubin_images && viable) {
        kc_strvec_clear(&targets);
        for (int i = 0; i < m->n; i++)
            if (st[i].state == KC_MUT_VIABLE) {
                kc_mutant_path(path, sizeof path, o->dir, m->v[i].module, m->v[i].id, ".fatbin");
                oom |= kc_strvec_push(&targets, path);
            }
        if (oom || run_make(o, mods, nmods, &targets, err, cap) < 0) { rc = -1; goto free_orig; }
        for (int i = 0; i < m->n; i++) {
            if (st[i].state != KC_MUT_VIABLE) continue;
            kc_mutant_path(path, sizeof path, o->dir, m->v[i].module, m->v[i].id, ".fatbin");
            if (exists(path)) continue;
            char log[1200];
            kc_mutant_path(log, sizeof log, o->dir, m->v[i].module, m->v[i].id, ".fatbin.log");
            st[i].state = KC_MUT_UNVIABLE;
            first_error(log, st[i].why, sizeof st[i].why);
        }
    }
free_orig:
    for (int k = 0; k < nmods; k++) free(orig[k]);
out:
    kc_strvec_clear(&targets);
    free(used);
    return rc;
}
