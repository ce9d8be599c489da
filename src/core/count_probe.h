/* count_probe.h — every registered contract's buffer counts, its
 * arithmetic's terms and depth (kc_arith), and its scalars' values (a
 * struct's scalar fields too), tried over its shapes once, at start, in a
 * forked child (forked_call.h). One that ends its process (kc_count_dims
 * refusing a negative dim or a product past SIZE_MAX, a function reading
 * past a shape's dims) is then refused as a mistake in a contract, naming
 * the contract, the shape and the argument (exit 2), where before the first
 * memory plan or build identity called it in the run's own process and the
 * run ended with SIGABRT, status 134 and no SUMMARY. So is one whose result
 * depends on a dim the contract does not name (d[i] past .dims, a count of
 * d0d1d2 in a contract of two dims), which is 0 on every shape that leaves
 * it out and on every launch record: each function is called again with
 * each such dim changed (1, 7, 4096 past its value), and one whose result
 * changes is named with the dims the contract has, where before it read 0
 * and the contract ran on an empty buffer as if fine. A read whose result
 * does not depend on it (a count that copies its shape) is no mistake. A
 * contract that names no dims is not checked for that (nothing says which
 * dims its shapes have). */
#ifndef KC_COUNT_PROBE_H
#define KC_COUNT_PROBE_H
#include <stddef.h>

/* Calls count(shape) of every buffer and pointer table of every registered
 * contract, the terms and depth of its and its arguments' kc_arith, and
 * the value or ivalue of its scalars and scalar struct fields, for each of
 * its shapes, in a forked child (the caller holds no thread and no CUDA
 * context yet). Returns 0 when every call returned; -1 with why ("contract
 * C: shape S: the element count of buffer B ended the process (SIGABRT;
 * ...)", or "... reads d[2], a dim the contract does not name (its dims:
 * d[0] rows, d[1] cols): ...") when one ended the child, whose own message
 * (printed to the inherited stderr) says why, or depends on an unnamed dim;
 * 1 when no child could be made and the calls ran in this process (they
 * all returned, none depends on an unnamed dim). */
int kc_count_probe(char *why, size_t cap);
#endif
