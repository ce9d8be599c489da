/* reference_bench.c — host-only benchmark: for every registered contract (or
 * those matching the globs given), every shape with its first distribution,
 * times generating the inputs (src/core/fill.c, all cores) and the float64
 * reference (as gate 3 runs it: outputs NaN-filled first, kc_parallel_for on
 * the harness's threads), then prints the slowest cases and the total per
 * contract. What it measures is the host share of a GPU run, which the
 * receipts showed dominates the large shapes. Every case also gets a 64-bit
 * FNV-1a hash of its reference outputs' bytes, so a change that must leave
 * the references bit-identical (a parallel split) can be checked by diffing
 * the --hashes listing before and after.
 * Usage: build/kc_ref_bench [--top N] [--max-gib G] [--threads T] [--hashes] [--all-dists] [GLOB...]
 *   --max-gib G  skip cases whose inputs + reference exceed G GiB of host memory
 *   --threads T  threads kc_parallel_for may use (default: all CPUs)
 *   --hashes     list every case in registry order: contract, shape, dist, ref_hash, ref s
 *   --all-dists  every distribution of every shape, not only the first
 * (make bench) */
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "dtype.h"
#include "fill.h"
#include "parallel.h"
#include "registry.h"
#include "seed.h"

typedef struct row {
    const char *contract, *shape;
    kc_dist dist;
    double gen_s, ref_s;
    double gib;          /* host bytes of inputs + reference */
    uint64_t hash;       /* FNV-1a of every reference output's bytes, in argument order */
} row;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 64-bit FNV-1a over n bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

/* Marks reference elements not yet computed, as gate 3 does (so a hash never
 * depends on what malloc happened to return). */
static void fill_nan(void *ctx, size_t begin, size_t end)
{
    double *r = ctx;
    for (size_t i = begin; i < end; i++) r[i] = NAN;
}

/* Host GiB of a case: its inputs plus the float64 reference of its outputs. */
static double case_gib(const kc_contract *c, const kc_shape *s)
{
    double bytes = 0;
    for (int a = 0; a < KC_MAX_ARGS && c->args[a].kind != KC_ARG_END; a++) {
        const kc_arg *ar = &c->args[a];
        if (ar->kind != KC_ARG_BUFFER || ar->of) continue;     /* no buffer of its own (time_case) */
        double n = (double)ar->count(s);
        if (ar->role != KC_OUT) bytes += n * (double)kc_dtype_size(ar->dtype);
        if (ar->role != KC_IN) bytes += n * sizeof(double);
    }
    return bytes / 1073741824.0;
}

/* The distributions a case runs with, as gate 3 runs them (an empty list means
 * uniform then normal); only the first unless all. Returns how many. */
static int case_dists(const kc_contract *c, int all, kc_dist *out)
{
    int n = 0;
    while (n < KC_MAX_DISTS && c->dists[n]) {
        out[n] = c->dists[n];
        n++;
    }
    if (!n) {
        out[n++] = KC_UNIFORM;
        out[n++] = KC_NORMAL;
    }
    return all ? n : 1;
}

static int by_total(const void *a, const void *b)
{
    const row *x = a, *y = b;
    double tx = x->gen_s + x->ref_s, ty = y->gen_s + y->ref_s;
    return tx < ty ? 1 : tx > ty ? -1 : 0;
}

/* Generates the inputs of one case and runs its reference; 0, or -1 when out of memory. */
static int time_case(const kc_contract *c, const kc_shape *s, kc_dist dist, row *r)
{
    kc_ref ref = { .shape = s, .dist = dist, .user = c->user };
    void *in[KC_MAX_ARGS] = { 0 };
    double bytes = 0;
    int n = 0, rc = 0;
    while (n < KC_MAX_ARGS && c->args[n].kind != KC_ARG_END) n++;
    ref.nargs = n;
    double t0 = now_s();
    for (int a = 0; a < n && !rc; a++) {
        const kc_arg *ar = &c->args[a];
        ref.dtype[a] = ar->dtype;
        ref.name[a] = ar->name;     /* kc_ref_arg finds arguments by these */
        if (ar->kind == KC_ARG_SCALAR) {
            ref.scalar[a] = ar->ivalue ? (double)ar->ivalue(s) : ar->value(s);    /* as case.c: KC_SCALAR_INT */
            ref.iscalar[a] = ar->ivalue ? ar->ivalue(s) : (int64_t)ref.scalar[a];   /* as gate3.c */
            continue;
        }
        if (ar->kind != KC_ARG_BUFFER || ar->of) continue;     /* tensor maps, pointer arrays, structs, aliases: no buffer of their own */
        ref.count[a] = ar->count(s);
        size_t b = ref.count[a] * kc_dtype_size(ar->dtype);
        if (ar->role != KC_OUT) {
            if (!(in[a] = malloc(b ? b : 1))) rc = -1;
            else {
                kc_gen g = { .shape = s, .dist = ref.dist, .dtype = ar->dtype, .data = in[a], .count = ref.count[a] };
                kc_fill_arg(&g, kc_buffer_key(kc_case_seed(1, c->name, s->name, ref.dist), a), ar);
                ref.host[a] = in[a];
                bytes += (double)b;
            }
        }
        if (!rc && ar->role != KC_IN) {
            if (!(ref.out[a] = malloc(ref.count[a] ? ref.count[a] * sizeof(double) : 1))) rc = -1;
            else kc_parallel_for(ref.count[a], (size_t)1 << 20, fill_nan, ref.out[a]);
            bytes += (double)ref.count[a] * sizeof(double);
        }
    }
    double t1 = now_s();
    if (!rc) c->reference(&ref);
    double t2 = now_s();
    uint64_t h = FNV_OFFSET;
    for (int a = 0; a < n && !rc; a++)
        if (ref.out[a]) h = fnv1a(h, ref.out[a], ref.count[a] * sizeof(double));
    for (int a = 0; a < n; a++) {
        free(in[a]);
        free(ref.out[a]);
    }
    *r = (row){ c->name, s->name, dist, t1 - t0, t2 - t1, bytes / 1073741824.0, h };
    return rc;
}

/* Prints the reference and input seconds summed per contract, in registry order. */
static void print_totals(const row *rows, size_t nr)
{
    printf("\n%-34s %6s %9s %9s\n", "contract (total)", "cases", "inputs s", "ref s");
    for (size_t i = 0; i < nr; i++) {
        if (i && rows[i].contract == rows[i - 1].contract) continue;
        double gen = 0, ref = 0;
        size_t n = 0;
        for (size_t j = i; j < nr && rows[j].contract == rows[i].contract; j++, n++) {
            gen += rows[j].gen_s;
            ref += rows[j].ref_s;
        }
        printf("%-34s %6zu %9.3f %9.3f\n", rows[i].contract, n, gen, ref);
    }
}

static const char usage[] =
    "usage: kc_ref_bench [--top N] [--max-gib G] [--threads T] [--hashes] [--all-dists] [GLOB...]\n"
    "  times input generation and the float64 reference of every contract's shapes (first\n"
    "  distribution; --all-dists: every one), host only\n"
    "  --top N      list the N slowest cases, 1 to 1000000 (default 25)\n"
    "  --max-gib G  skip cases whose inputs + reference exceed G GiB of host memory\n"
    "  --threads T  host threads, 1 to 64 (default: every CPU, up to 64)\n"
    "  --hashes     one line per case with the FNV-1a hash of its reference outputs\n"
    "  GLOB         contract names (shell globs); each must match a contract\n";

/* A positive number for option opt, or exit 2 naming the value. */
static double number_arg(const char *opt, const char *v)
{
    char *end;
    double x = v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || !(x > 0)) {
        fprintf(stderr, "kc_ref_bench: %s: expected a positive number, got '%s'\n%s", opt, v ? v : "", usage);
        exit(2);
    }
    return x;
}

/* A whole number from 1 to max (strict decimal: no sign, fraction or junk). */
static int count_arg(const char *opt, const char *v, uint64_t max)
{
    uint64_t x;
    if (!v || kc_parse_u64(v, max, &x) || x == 0) {
        fprintf(stderr, "kc_ref_bench: %s: expected a whole number from 1 to %llu, got '%s'\n%s", opt,
                (unsigned long long)max, v ? v : "", usage);
        exit(2);
    }
    return (int)x;
}

int main(int argc, char **argv)
{
    int top = 25, np = 0, hashes = 0, all_dists = 0;
    double max_gib = INFINITY;
    char **pats = calloc((size_t)argc, sizeof *pats);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--top") == 0) top = count_arg(a, v, 1000000), i++;
        else if (strcmp(a, "--max-gib") == 0) max_gib = number_arg(a, v), i++;
        else if (strcmp(a, "--threads") == 0) kc_parallel_set_threads(count_arg(a, v, KC_MAX_THREADS)), i++;
        else if (strcmp(a, "--hashes") == 0) hashes = 1;
        else if (strcmp(a, "--all-dists") == 0) all_dists = 1;
        else if (a[0] == '-') {
            fprintf(stderr, "kc_ref_bench: unknown option '%s'\n%s", a, usage);
            return 2;
        } else pats[np++] = argv[i];
    }
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    for (int p = 0; p < np; p++) {   /* a typo must not pass as an empty table */
        int hit = 0;
        for (size_t i = 0; i < nc && !hit; i++) hit = fnmatch(pats[p], cs[i]->name, 0) == 0;
        if (!hit) {
            fprintf(stderr, "kc_ref_bench: '%s' matches no contract (kcontract list shows them)\n", pats[p]);
            return 2;
        }
    }
    row *rows = NULL;
    size_t nr = 0, cap = 0, skipped = 0;
    double t0 = now_s();
    for (size_t i = 0; i < nc; i++) {
        int hit = np == 0;
        for (int p = 0; p < np && !hit; p++) hit = fnmatch(pats[p], cs[i]->name, 0) == 0;
        if (!hit) continue;
        for (const kc_shape *s = cs[i]->shapes; s->name; s++) {
            if (case_gib(cs[i], s) > max_gib) {
                skipped++;
                continue;
            }
            kc_dist dists[KC_MAX_DISTS + 2];
            for (int d = 0, nd = case_dists(cs[i], all_dists, dists); d < nd; d++) {
                if (nr == cap && !(rows = realloc(rows, (cap = cap ? 2 * cap : 256) * sizeof *rows))) return 4;
                if (time_case(cs[i], s, dists[d], &rows[nr]))
                    fprintf(stderr, "kc_ref_bench: %s shape %s: out of host memory, skipped\n", cs[i]->name, s->name);
                else nr++;
            }
        }
    }
    if (hashes) {
        for (size_t i = 0; i < nr; i++)
            printf("%-34s %-34s %-12s ref_hash=%016llx %9.3f\n", rows[i].contract, rows[i].shape,
                   kc_dist_name(rows[i].dist), (unsigned long long)rows[i].hash, rows[i].ref_s);
        printf("\n");
    }
    print_totals(rows, nr);
    double gen = 0, ref = 0;
    for (size_t i = 0; i < nr; i++) {
        gen += rows[i].gen_s;
        ref += rows[i].ref_s;
    }
    qsort(rows, nr, sizeof *rows, by_total);
    printf("\n%zu cases (%s distribution of every shape; %zu shapes over --max-gib skipped), %.1f s: inputs %.1f s, "
           "references %.1f s, %d threads\n",
           nr, all_dists ? "every" : "first", skipped, now_s() - t0, gen, ref, kc_parallel_threads());
    printf("%-34s %-34s %-12s %9s %9s %8s %s\n", "contract", "shape", "dist", "inputs s", "ref s", "GiB", "ref_hash");
    for (size_t i = 0; i < nr && (int)i < top; i++)
        printf("%-34s %-34s %-12s %9.3f %9.3f %8.2f %016llx\n", rows[i].contract, rows[i].shape,
               kc_dist_name(rows[i].dist), rows[i].gen_s, rows[i].ref_s, rows[i].gib, (unsigned long long)rows[i].hash);
    free(rows);
    free(pats);
    return 0;
}
