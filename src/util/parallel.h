/* parallel.h — the harness's host threads: how many a process may use, and
 * chunked loops over them (kc_parallel_for, declared in kcontract.h for
 * references; kc_parallel_chunks here for the harness's own reductions). */
#ifndef KC_PARALLEL_H
#define KC_PARALLEL_H
#include <stddef.h>
#include "kcontract.h"

#define KC_MAX_THREADS 64

/* Sets the number of threads kc_parallel_for may use in this process (1 to
 * KC_MAX_THREADS; larger values are capped). Called once at start-up, before
 * any item runs, from --threads (a --jobs parent gives each worker its share,
 * kc_parallel_share). */
void kc_parallel_set_threads(int n);
/* The CPUs this process may run on: its affinity mask (taskset, cpusets, a
 * Slurm or Kubernetes allocation), else the online count; at least 1. A CPU
 * quota without a cpuset (cgroup cpu.max) is not seen. */
int kc_parallel_cpus(void);
/* The thread count in force: set by kc_parallel_set_threads, else
 * kc_parallel_cpus (capped at KC_MAX_THREADS). */
int kc_parallel_threads(void);
/* Threads for each of `procs` processes sharing this host:
 * kc_parallel_cpus / procs, at least 1. */
int kc_parallel_share(int procs);

/* Like kc_parallel_for, but fn also gets the chunk's index in [0, chunks),
 * so a caller can keep one partial result per chunk and combine them in
 * chunk order: the same result as a sequential loop, on any thread count.
 * Returns the number of chunks, (n + grain - 1) / grain (0 when n == 0). */
size_t kc_parallel_chunks(size_t n, size_t grain, void (*fn)(void *ctx, size_t chunk, size_t begin, size_t end),
                          void *ctx);
#endif
