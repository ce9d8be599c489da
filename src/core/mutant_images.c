/* mutant_images.c — the mutants named by $KC_MUTANTS, registered as
 * controls' images (mutant_images.h). */
#include "mutant_images.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "fatbin.h"

static struct {
    int done, rc;
    char err[600];
    kc_mutant_image *v;
    int n;
} mi;

static int fail(int line, const char *path, const char *what)
{
    snprintf(mi.err, sizeof mi.err, "%s=%.200s, line %d: %.350s", KC_MUTANTS_ENV, path, line, what);
    return -1;
}

/* The image's bytes, kept for the process's life (the driver reads them at load). */
static unsigned char *read_image(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0, r;
    unsigned char *b = malloc(cap + 1);
    while (b && (r = fread(b + len, 1, cap - len, f)) > 0)
        if ((len += r) == cap) {
            unsigned char *nb = realloc(b, (cap *= 2) + 1);
            if (!nb) { free(b); b = NULL; }
            else b = nb;
        }
    fclose(f);
    if (b) b[len] = 0;
    *n = len;
    return b;
}

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(mi.err, sizeof mi.err, "%s=%s: cannot read it: %s", KC_MUTANTS_ENV, path, strerror(errno));
        return -1;
    }
    static char line[16384], judges[16384];
    int ln = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char id[64], module[64], image[1024], op[64], where[1024];
        int gate;
        judges[0] = 0;
        int got = sscanf(line, "mutant %63s %63s %d %1023s %63s %1023s %16383s", id, module, &gate, image, op, where,
                         judges);
        if (got < 6 || strlen(id) != 12 || strspn(id, "0123456789abcdef") != 12 || (gate != 4 && gate != 5) ||
            (got == 7 && strncmp(judges, "contracts=", 10) != 0) || (!strchr(line, '\n') && !feof(f))) {
            fclose(f);
            return fail(ln, path, "expected 'mutant <12 hex digits id> <module> <gate 4 or 5> <image> <operator> "
                                  "<file>:<line> [contracts=<contract>,...]' (one line, under 16 KiB)");
        }
        if (mi.n == cap) {
            cap = cap ? cap * 2 : 64;
            kc_mutant_image *v = realloc(mi.v, (size_t)cap * sizeof *v);
            if (!v) { fclose(f); return fail(ln, path, "out of memory"); }
            mi.v = v;
        }
        size_t n;
        unsigned char *img = read_image(image, &n);
        if (!img || !n) {
            char why[1200];
            snprintf(why, sizeof why, "cannot read the image %s of mutant %s: %s", image, id, img ? "empty" : strerror(errno));
            free(img);
            fclose(f);
            return fail(ln, path, why);
        }
        kc_mutant_image *m = &mi.v[mi.n++];
        memset(m, 0, sizeof *m);
        if (got == 7) {     /* ",a,b," so that a name is found whole */
            size_t jl = strlen(judges + 10);
            if (!(m->contracts = malloc(jl + 3))) { free(img); fclose(f); return fail(ln, path, "out of memory"); }
            snprintf(m->contracts, jl + 3, ",%s,", judges + 10);
        }
        snprintf(m->id, sizeof m->id, "%s", id);
        snprintf(m->module, sizeof m->module, "%s", module);
        snprintf(m->control, sizeof m->control, "mut_%s", id);
        snprintf(m->bug, sizeof m->bug, "mutant %s: %.63s at %.300s", id, op, where);
        m->ctl.gate = gate;
        /* the image registers under a source digest of its own: the mutant's id */
        char *src = malloc(17);
        if (!src) { fclose(f); return fail(ln, path, "out of memory"); }
        snprintf(src, 17, "%016llx", (unsigned long long)strtoull(id, NULL, 16));
        kc_register_module(strdup(module), strdup(m->control), img, img + n, src, KC_ABI_VERSION);
    }
    fclose(f);
    /* the controls point into the array, which no longer moves */
    for (int i = 0; i < mi.n; i++) {
        mi.v[i].ctl.name = mi.v[i].control;
        mi.v[i].ctl.bug = mi.v[i].bug;
        mi.v[i].ctl_gates = mi.v[i].ctl;
        mi.v[i].ctl_gates.gate = 4;
    }
    return 0;
}

int kc_mutant_images_load(char *err, size_t cap)
{
    if (!mi.done) {
        mi.done = 1;
        const char *p = getenv(KC_MUTANTS_ENV);
        mi.rc = p && *p ? load(p) : 0;
    }
    if (mi.rc) kc_errf(err, cap, "%s", mi.err);
    return mi.rc;
}

int kc_mutant_image_count(void)
{
    return mi.n;
}

const kc_mutant_image *kc_mutant_image_at(int i)
{
    return i >= 0 && i < mi.n ? &mi.v[i] : NULL;
}

int kc_mutant_image_judged_by(const kc_mutant_image *m, const char *contract)
{
    if (!m->contracts) return 1;
    size_t n = strlen(contract);
    for (const char *p = strstr(m->contracts, contract); p; p = strstr(p + 1, contract))
        if (p[-1] == ',' && p[n] == ',') return 1;
    return 0;
}

int kc_control_is_mutant(const kc_control *ct)
{
    for (int i = 0; i < mi.n; i++)
        if (ct == &mi.v[i].ctl || ct == &mi.v[i].ctl_gates) return 1;
    return 0;
}
