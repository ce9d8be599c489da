/* fault_spans.h — the times at which items of a parallel run lost their
 * CUDA context, or their worker, on each GPU, and whether two of them met
 * (fault_spans.c). Pure: no processes, no clock; the queue (queue_holds.c)
 * records and asks.
 *
 * Why: on an H200 (driver 580) two controls planted for gate 1 trapped in
 * two workers' contexts while a third worker's context ran a passing
 * kernel's device reference, which then failed with
 * CUDA_ERROR_LAUNCH_FAILED (docs/receipts/2026-12-04-h200-final-tree, call
 * 1): a fault can end another process's context on the same GPU, and the
 * error names no culprit. So when two items on one GPU lose their contexts
 * with run spans that overlap, neither verdict is known to be its own. */
#ifndef KC_FAULT_SPANS_H
#define KC_FAULT_SPANS_H

/* One item's run that ended with its CUDA context lost (or its worker
 * dead): the item's index, the GPU (a device slot) and when it ran, in
 * seconds of one clock; or, with `teardown`, the time after such a loss
 * until its worker process ended, while the driver tore the lost context
 * down. Why the teardown counts: on an H100 (driver 580) a control planted
 * for gate 1 faulted and reported it; 20 ms later another worker's next
 * control lost its context making an input (CUDA_ERROR_LAUNCH_FAILED), and
 * every other item on the GPU stalled 5 s (docs/receipts/2026-12-06-halves,
 * the `work` run: MISSED where every other run had RED). */
typedef struct kc_fault_span {
    int item;
    int dev;
    double start, end;
    int teardown;
} kc_fault_span;

typedef struct kc_fault_spans {
    kc_fault_span *v;
    int n, cap;
} kc_fault_spans;

#define KC_FAULT_SPANS_INIT { 0 }

/* Records one: 0; -1 out of memory (nothing recorded). */
int kc_fault_spans_add(kc_fault_spans *s, int item, int dev, double start, double end);
/* Records the teardown of the context item lost, from when it said so
 * (start) until its worker ended (end): as kc_fault_spans_add. */
int kc_fault_spans_add_teardown(kc_fault_spans *s, int item, int dev, double start, double end);
/* The first recorded span of another item (not `item`) on `dev` that
 * overlaps [start, end] (touching ends count: one clock reads both); its
 * index into s->v, or -1 when none. */
int kc_fault_spans_beside(const kc_fault_spans *s, int item, int dev, double start, double end);
void kc_fault_spans_free(kc_fault_spans *s);
#endif
