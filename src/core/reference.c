/* reference.c — owns the small helpers contracts call from kcontract.h:
 * the common element counts (products of shape dims), kc_ref_in, the exact
 * read of a generated input for the host reference, the lookup of an
 * argument by name (kc_ref_arg), an input resolved once (kc_ref_input,
 * kc_in_at) and the row-parallel loop of a reference (kc_parallel_rows). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "kcontract.h"
#include "progname.h"

/* Checked as every count of dims is (kc_count_dims): a negative dim or a
 * product past SIZE_MAX is refused naming the value, never wrapped. */
size_t kc_count_d0(const kc_shape *s) { return kc_count_dims(s, (const int[]){ 0 }, 1, "kc_count_d0"); }
size_t kc_count_d1(const kc_shape *s) { return kc_count_dims(s, (const int[]){ 1 }, 1, "kc_count_d1"); }
size_t kc_count_d0d1(const kc_shape *s) { return kc_count_dims(s, (const int[]){ 0, 1 }, 2, "kc_count_d0d1"); }
size_t kc_count_d0d1d2(const kc_shape *s) { return kc_count_dims(s, (const int[]){ 0, 1, 2 }, 3, "kc_count_d0d1d2"); }

double kc_ref_in(const kc_ref *r, int a, size_t i) {
    return kc_load(r->dtype[a], r->host[a], i);
}

int kc_ref_arg(const kc_ref *r, const char *name) {
    for (int a = 0; a < r->nargs; a++)
        if (r->name[a] && name && strcmp(r->name[a], name) == 0) return a;
    char have[1024] = "";
    size_t len = 0;
    for (int a = 0; a < r->nargs && len < sizeof have; a++) {
        int w = snprintf(have + len, sizeof have - len, "%s%s", a ? ", " : "", r->name[a] ? r->name[a] : "(unnamed)");
        if (w > 0) len += (size_t)w;
    }
    kc_say(stderr, "the reference asks for argument \"%s\", which the contract does not have "
                    "(its arguments: %s; shape %s)\n", name ? name : "(null)", have,
            r->shape && r->shape->name ? r->shape->name : "?");
    abort();
}

double kc_ref_in_named(const kc_ref *r, const char *name, size_t i) {
    return kc_ref_in(r, kc_ref_arg(r, name), i);
}

double *kc_ref_out_named(const kc_ref *r, const char *name) {
    return r->out[kc_ref_arg(r, name)];
}

kc_in kc_ref_input(const kc_ref *r, const char *name)
{
    const int a = kc_ref_arg(r, name);
    if (!r->host[a]) {
        kc_say(stderr, "the reference asks for the input of argument \"%s\", which has none (%s, %zu elements; only "
                       "IN and INOUT buffers have inputs; shape %s)\n", name, kc_dtype_name(r->dtype[a]), r->count[a],
               r->shape && r->shape->name ? r->shape->name : "?");
        abort();
    }
    return (kc_in){ .data = r->host[a], .dtype = r->dtype[a], .count = r->count[a], .name = r->name[a] };
}

void kc_in_out_of_range(const kc_in *v, size_t i)
{
    kc_say(stderr, "the reference reads element %zu of input %s, which has %zu elements\n", i,
           v->name ? v->name : "(unnamed)", v->count);
    abort();
}

typedef struct rows_job {
    void (*row)(void *ctx, size_t i);
    void *ctx;
} rows_job;

static void rows_chunk(void *p, size_t begin, size_t end)
{
    const rows_job *j = p;
    for (size_t i = begin; i < end; i++) j->row(j->ctx, i);
}

void kc_parallel_rows(size_t rows, size_t cols, void (*row)(void *ctx, size_t i), void *ctx)
{
    rows_job j = { row, ctx };
    kc_parallel_for(rows, (size_t)65536 / (cols ? cols : 1) + 1, rows_chunk, &j);
}
