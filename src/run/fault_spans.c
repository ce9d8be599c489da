/* fault_spans.c — the context losses of a parallel run and whether two met
 * (fault_spans.h). */
#include "fault_spans.h"

#include <stdlib.h>

static int add(kc_fault_spans *s, int item, int dev, double start, double end, int teardown)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        kc_fault_span *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (kc_fault_span){ item, dev, start, end, teardown };
    return 0;
}

int kc_fault_spans_add(kc_fault_spans *s, int item, int dev, double start, double end)
{
    return add(s, item, dev, start, end, 0);
}

int kc_fault_spans_add_teardown(kc_fault_spans *s, int item, int dev, double start, double end)
{
    return add(s, item, dev, start, end, 1);
}

int kc_fault_spans_beside(const kc_fault_spans *s, int item, int dev, double start, double end)
{
    for (int i = 0; i < s->n; i++) {
        const kc_fault_span *f = &s->v[i];
        if (f->item != item && f->dev == dev && f->start <= end && start <= f->end) return i;
    }
    return -1;
}

void kc_fault_spans_free(kc_fault_spans *s)
{
    free(s->v);
    *s = (kc_fault_spans)KC_FAULT_SPANS_INIT;
}
