/* fuzz_costs.c — libFuzzer target: the cost table (kc_costs_parse), a file
 * every --jobs run reads and rewrites, that people edit and that hosts share.
 * No crash, no undefined behaviour; a table that parses is written back
 * (kc_costs_format, as kc_costs_save writes it) and that text parses again,
 * with the same rows. (kc_costs_load refuses a NUL byte before parsing: so
 * does this.) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size)) return 0;
    char *text = malloc(size + 1), err[512];
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    kc_costs c = { 0 }, d = { 0 };
    if (kc_costs_parse(text, &c, err, sizeof err) == 0) {
        char *out = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&out, &len);
        if (!f || kc_costs_format(&c, f) || fclose(f)) abort();
        if (kc_costs_parse(out, &d, err, sizeof err) != 0) {
            fprintf(stderr, "fuzz_costs: the table written back does not parse: %s\n", err);
            abort();
        }
        if (d.n != c.n) abort();
        for (int i = 0; i < c.n; i++) {
            const kc_cost *a = &c.v[i], *b = &d.v[i];
            if (strcmp(a->name, b->name) || a->failed != b->failed || a->peak_rss_kib != b->peak_rss_kib ||
                a->peak_gpu_mib != b->peak_gpu_mib || fabs(a->seconds - b->seconds) > 0.0005 * (1 + a->seconds))
                abort();
        }
        for (int i = 0; i < c.n; i++)
            if (kc_costs_find(&c, c.v[i].name) != &c.v[i]) abort();   /* sorted, names unique */
        free(out);
    } else if (!err[0]) {
        abort();
    }
    kc_costs_free(&c);
    kc_costs_free(&d);
    free(text);
    return 0;
}
