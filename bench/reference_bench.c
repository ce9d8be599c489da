/* reference_bench.c — host-only benchmark: for every registered contract (or
 * those matching the globs given), every shape with its first distribution,
 * times generating the inputs (src/fill.c, all cores) and the float64
 * reference (one thread, as gate 3 runs it), then prints the slowest cases and
 * the total per contract. What it measures is the host share of a GPU run,
 * which the receipts showed dominates the large shapes.
 * Usage: build/kc_ref_bench [--top N] [GLOB...]   (make bench) */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dtype.h"
#include "fill.h"
#include "registry.h"
#include "seed.h"

typedef struct row {
    const char *contract, *shape;
    double gen_s, ref_s;
    double gib;          /* host bytes of inputs + reference */
} row;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int by_total(const void *a, const void *b)
{
    const row *x = a, *y = b;
    double tx = x->gen_s + x->ref_s, ty = y->gen_s + y->ref_s;
    return tx < ty ? 1 : tx > ty ? -1 : 0;
}

/* Generates the inputs of one case and runs its reference; 0, or -1 when out of memory. */
static int time_case(const kc_contract *c, const kc_shape *s, row *r)
{
    kc_ref ref = { .shape = s, .dist = c->dists[0] ? c->dists[0] : KC_UNIFORM };
    void *in[KC_MAX_ARGS] = { 0 };
    double bytes = 0;
    int n = 0, rc = 0;
    while (n < KC_MAX_ARGS && c->args[n].kind != KC_ARG_END) n++;
    ref.nargs = n;
    double t0 = now_s();
    for (int a = 0; a < n && !rc; a++) {
        const kc_arg *ar = &c->args[a];
        ref.dtype[a] = ar->dtype;
        if (ar->kind == KC_ARG_SCALAR) {
            ref.scalar[a] = ar->value(s);
            continue;
        }
        ref.count[a] = ar->count(s);
        size_t b = ref.count[a] * kc_dtype_size(ar->dtype);
        if (ar->role != KC_OUT) {
            if (!(in[a] = malloc(b ? b : 1))) rc = -1;
            else {
                kc_gen g = { .shape = s, .dist = ref.dist, .dtype = ar->dtype, .data = in[a], .count = ref.count[a] };
                kc_fill(&g, kc_case_seed(1, c->name, s->name, ref.dist) + (uint64_t)a, ar->gen, 0);
                ref.host[a] = in[a];
                bytes += (double)b;
            }
        }
        if (!rc && ar->role != KC_IN) {
            if (!(ref.out[a] = malloc(ref.count[a] ? ref.count[a] * sizeof(double) : 1))) rc = -1;
            bytes += (double)ref.count[a] * sizeof(double);
        }
    }
    double t1 = now_s();
    if (!rc) c->reference(&ref);
    double t2 = now_s();
    for (int a = 0; a < n; a++) {
        free(in[a]);
        free(ref.out[a]);
    }
    *r = (row){ c->name, s->name, t1 - t0, t2 - t1, bytes / 1073741824.0 };
    return rc;
}

int main(int argc, char **argv)
{
    int top = 25, np = 0;
    char **pats = calloc((size_t)argc, sizeof *pats);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--top") == 0 && i + 1 < argc) top = atoi(argv[++i]);
        else pats[np++] = argv[i];
    }
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    row *rows = NULL;
    size_t nr = 0, cap = 0;
    double t0 = now_s();
    for (size_t i = 0; i < nc; i++) {
        int hit = np == 0;
        for (int p = 0; p < np && !hit; p++) hit = fnmatch(pats[p], cs[i]->name, 0) == 0;
        if (!hit) continue;
        for (const kc_shape *s = cs[i]->shapes; s->name; s++) {
            if (nr == cap && !(rows = realloc(rows, (cap = cap ? 2 * cap : 256) * sizeof *rows))) return 4;
            if (time_case(cs[i], s, &rows[nr]))
                fprintf(stderr, "kc_ref_bench: %s shape %s: out of host memory, skipped\n", cs[i]->name, s->name);
            else nr++;
        }
    }
    qsort(rows, nr, sizeof *rows, by_total);
    double gen = 0, ref = 0;
    for (size_t i = 0; i < nr; i++) {
        gen += rows[i].gen_s;
        ref += rows[i].ref_s;
    }
    printf("%zu cases (first distribution of every shape), %.1f s: inputs %.1f s, references %.1f s\n", nr,
           now_s() - t0, gen, ref);
    printf("%-34s %-34s %9s %9s %8s\n", "contract", "shape", "inputs s", "ref s", "GiB");
    for (size_t i = 0; i < nr && (int)i < top; i++)
        printf("%-34s %-34s %9.3f %9.3f %8.2f\n", rows[i].contract, rows[i].shape, rows[i].gen_s, rows[i].ref_s,
               rows[i].gib);
    free(rows);
    free(pats);
    return 0;
}
