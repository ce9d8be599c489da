/* mutate_baseline.c — a mutation run's baseline: its report read, the
 * waves' cost table written (mutate_baseline.h). */
#include "mutate_baseline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"
#include "json_line.h"

int kc_mut_baseline_init(kc_mut_baseline *b, int n)
{
    b->n = n;
    b->seconds = malloc(((size_t)n + 1) * sizeof *b->seconds);
    b->state = calloc((size_t)n + 1, sizeof *b->state);
    if (!b->seconds || !b->state) {
        kc_mut_baseline_free(b);
        return -1;
    }
    for (int i = 0; i < n; i++) b->seconds[i] = -1;
    return 0;
}

void kc_mut_baseline_free(kc_mut_baseline *b)
{
    free(b->seconds);
    free(b->state);
    b->seconds = NULL;
    b->state = NULL;
    b->n = 0;
}

/* The number after "key": on a report line (report_json.c writes plain
 * decimals); 0, or -1 when absent or not a number. */
static int json_number(const char *line, const char *key, double *v)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    if (!p) return -1;
    char *end;
    errno = 0;
    *v = strtod(p + strlen(pat), &end);
    return end == p + strlen(pat) || errno ? -1 : 0;
}

int kc_mut_baseline_read(const char *path, const kc_item *items, int n, kc_mut_baseline *b, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, cap, "the baseline's report %s cannot be read: %s", path, strerror(errno)), -1;
    char *line = NULL;
    size_t lcap = 0;
    int ln = 0, rc = 0;
    while (getline(&line, &lcap, f) > 0) {
        ln++;
        if (!strstr(line, "\"type\":\"item\"")) continue;
        char name[192], state[16];
        double s;
        if (kc_json_line_str(line, "name", name, sizeof name) || kc_json_line_str(line, "state", state, sizeof state) ||
            json_number(line, "seconds", &s)) {
            snprintf(err, cap, "%s:%d: an item line without its name, state or seconds", path, ln);
            rc = -1;
            break;
        }
        for (int i = 0; i < n; i++)
            if (!strcmp(items[i].name, name)) {
                snprintf(b->state[i], sizeof b->state[i], "%s", state);
                b->seconds[i] = s;
            }
    }
    free(line);
    fclose(f);
    return rc;
}

int kc_mut_baseline_passed(const kc_mut_baseline *b, int i)
{
    return i >= 0 && i < b->n && !strcmp(b->state[i], "PASS");
}

int kc_mut_baseline_costs(const char *path, const kc_item *items, int n, const unsigned char *judges,
                          const kc_mutants *m, const unsigned char *in, const kc_mut_baseline *b, char *err,
                          size_t cap)
{
    kc_costs c = { 0 };
    int rows = 0;
    for (int j = 0; j < m->n; j++) {
        if (!in[j]) continue;
        for (int i = 0; i < n; i++) {
            if (!judges[i] || !items[i].contract || strcmp(items[i].contract->module, m->v[j].module) ||
                b->seconds[i] < 0)
                continue;
            kc_cost e = { .seconds = b->seconds[i], .peak_rss_kib = -1, .peak_gpu_mib = -1 };
            snprintf(e.name, sizeof e.name, "%s:mutant.%s", items[i].contract->name, m->v[j].id);
            if (kc_costs_set(&c, &e)) {
                kc_costs_free(&c);
                return snprintf(err, cap, "out of memory"), -1;
            }
            rows++;
        }
    }
    int r = kc_costs_save(path, &c, err, cap);
    kc_costs_free(&c);
    return r ? -1 : rows;
}
