/* parallel.c — owns the harness's host threads: the per-process thread count
 * and chunked parallel loops (pthreads started per call, chunks taken from an
 * atomic counter). Used for input generation, gate 2-4 scans over gigabyte
 * buffers and the references that opt in. Measured motive (H200 host, 16
 * CPUs, staged suite under --jobs 8): single-threaded checks and references
 * were 914 of 2368 item-seconds, the KV-cache write's 1e9-element caches
 * alone ~47 s of checks an item. */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static int threads_set;   /* 0: not set; the process's one configuration value */

int kc_parallel_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void kc_parallel_set_threads(int n)
{
    threads_set = n < 1 ? 1 : n > KC_MAX_THREADS ? KC_MAX_THREADS : n;
}

int kc_parallel_threads(void)
{
    if (threads_set) return threads_set;
    int n = kc_parallel_cpus();
    return n > KC_MAX_THREADS ? KC_MAX_THREADS : n;
}

int kc_parallel_share(int procs)
{
    int n = kc_parallel_cpus() / (procs > 0 ? procs : 1);
    return n < 1 ? 1 : n > KC_MAX_THREADS ? KC_MAX_THREADS : (int)n;
}

typedef struct job {
    size_t n, grain, chunks;
    void (*fn)(void *, size_t, size_t, size_t);
    void *ctx;
    atomic_size_t next;
} job;

static void *run_chunks(void *arg)
{
    job *j = arg;
    for (size_t c; (c = atomic_fetch_add(&j->next, 1)) < j->chunks;) {
        size_t b = c * j->grain, e = b + j->grain < j->n ? b + j->grain : j->n;
        j->fn(j->ctx, c, b, e);
    }
    return NULL;
}

size_t kc_parallel_chunks(size_t n, size_t grain, void (*fn)(void *ctx, size_t chunk, size_t begin, size_t end),
                          void *ctx)
{
    if (!n) return 0;
    if (!grain) grain = 1;
    job j = { .n = n, .grain = grain, .chunks = (n - 1) / grain + 1, .fn = fn, .ctx = ctx };
    atomic_init(&j.next, 0);
    size_t threads = (size_t)kc_parallel_threads();
    if (threads > j.chunks) threads = j.chunks;
    pthread_t tid[KC_MAX_THREADS];
    size_t started = 0;
    for (size_t t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, run_chunks, &j) == 0) started++;
    run_chunks(&j);   /* the caller works too; with no thread started it does every chunk */
    for (size_t t = 0; t < started; t++) pthread_join(tid[t], NULL);
    return j.chunks;
}

typedef struct plain {
    void (*fn)(void *, size_t, size_t);
    void *ctx;
} plain;

static void plain_chunk(void *ctx, size_t chunk, size_t b, size_t e)
{
    (void)chunk;
    plain *p = ctx;
    p->fn(p->ctx, b, e);
}

void kc_parallel_for(size_t n, size_t grain, void (*fn)(void *ctx, size_t begin, size_t end), void *ctx)
{
    plain p = { fn, ctx };
    kc_parallel_chunks(n, grain, plain_chunk, &p);
}
