/* driver_trace.h — bench-only: wall time spent inside each driver entry
 * point that a case calls, summed over every thread, so that a pass on K
 * lanes can be compared with the serial pass call by call (which call makes
 * lanes wait on each other). Not part of kcontract: the gates never trace. */
#ifndef KC_BENCH_DRIVER_TRACE_H
#define KC_BENCH_DRIVER_TRACE_H
#include "cuda_driver.h"

/* Replaces the traced entry points of *cu by timing wrappers around the
 * ones it holds now, and zeroes the counters. Tables copied from *cu after
 * this call (lanes) are traced too. One table at a time: a second call
 * rewraps another table and the first one must no longer be used. */
void kc_trace_wrap(kc_cuda *cu);
/* Prints one line per traced entry point that was called since the wrap:
 * "  driver <pass>: <name> calls=N s=S mean_us=U". */
void kc_trace_print(const char *pass);
#endif
