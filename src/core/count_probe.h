/* count_probe.h — every registered contract's buffer counts, and its
 * arithmetic's terms and depth (kc_arith), tried over its shapes once, at
 * start, in a forked child (forked_call.h). One that ends its process
 * (kc_count_dims refusing a negative dim or a product past SIZE_MAX, a
 * function reading past a shape's dims) is then refused as a mistake in a
 * contract, naming the contract, the shape and the argument (exit 2), where
 * before the first memory plan or build identity called it in the run's own
 * process and the run ended with SIGABRT, status 134 and no SUMMARY. */
#ifndef KC_COUNT_PROBE_H
#define KC_COUNT_PROBE_H
#include <stddef.h>

/* Calls count(shape) of every buffer and pointer table of every registered
 * contract, and the terms and depth of its and its arguments' kc_arith,
 * for each of its shapes, in a forked child (the caller holds no
 * thread and no CUDA context yet). Returns 0 when every count returned;
 * -1 with why ("contract C: shape S: the element count of buffer B
 * ended the process (SIGABRT; ...)") when one ended the child, whose own message
 * (printed to the inherited stderr) says why; 1 when no child could be made
 * and the counts ran in this process (they all returned). */
int kc_count_probe(char *why, size_t cap);
#endif
