/* test_parallel.c — the harness's host threads (src/util/parallel.c) and the scans
 * built on them: every index visited exactly once on any thread count, and
 * gate 2-4 scans over buffers of many chunks giving exactly the sequential
 * answer (count, first index, worst element with its tie rules) whether one
 * thread or many run them. Each test process sets its own thread count. */
#include <criterion/criterion.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "parallel.h"
#include "tolerance.h"

#define CHUNK ((size_t)1 << 20)   /* the scans' grain (guard.c, tolerance.c) */

typedef struct visits {
    atomic_uchar *seen;
    atomic_size_t calls;
    size_t grain, n;
    int bad_bounds;
} visits;

static void visit(void *ctx, size_t begin, size_t end)
{
    visits *v = ctx;
    atomic_fetch_add(&v->calls, 1);
    /* chunks start on a grain boundary and are grain long, but the last */
    if (begin % v->grain || (end - begin != v->grain && end != v->n) || end <= begin || end > v->n)
        v->bad_bounds = 1;
    for (size_t i = begin; i < end; i++) atomic_fetch_add(&v->seen[i], 1);
}

Test(parallel, every_index_once_in_grain_chunks_on_any_thread_count)
{
    const size_t grain = 1000, sizes[] = { 0, 1, 999, 1000, 1001, 10 * 1000 + 7, 64 * 1000 };
    const int threads[] = { 1, 3, 8, 64 };
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        kc_parallel_set_threads(threads[t]);
        cr_assert_eq(kc_parallel_threads(), threads[t]);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t n = sizes[s];
            visits v = { .seen = calloc(n + 1, 1), .grain = grain, .n = n };
            atomic_init(&v.calls, 0);
            kc_parallel_for(n, grain, visit, &v);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(v.seen[i], 1, "n %zu, %d threads: index %zu visited %d times", n, threads[t], i, v.seen[i]);
            cr_expect_eq(atomic_load(&v.calls), n ? (n - 1) / grain + 1 : 0, "n %zu: chunks", n);
            cr_expect_not(v.bad_bounds, "n %zu, %d threads: a chunk off the grain boundaries", n, threads[t]);
            free(v.seen);
        }
    }
}

Test(parallel, thread_count_is_capped_and_shared)
{
    kc_parallel_set_threads(100000);
    cr_expect_eq(kc_parallel_threads(), KC_MAX_THREADS);
    kc_parallel_set_threads(0);
    cr_expect_eq(kc_parallel_threads(), 1, "0 threads means 1");
    cr_expect_geq(kc_parallel_share(1), 1);
    cr_expect_eq(kc_parallel_share(1 << 20), 1, "more processes than CPUs still get one thread each");
    cr_expect_leq(kc_parallel_share(2), kc_parallel_share(1));
}

/* The CPUs a process may run on are its affinity mask, not the host's: a
 * child pinned to one CPU gets one thread and one thread per share, as under
 * taskset or a Slurm allocation. */
Test(parallel, the_cpu_count_is_the_affinity_mask)
{
    cpu_set_t all;
    cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
    cr_expect_eq(kc_parallel_cpus(), CPU_COUNT(&all));
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &all)) {
                CPU_SET(c, &one);
                break;
            }
        if (sched_setaffinity(0, sizeof one, &one)) _exit(10);
        _exit(kc_parallel_cpus() == 1 && kc_parallel_share(1) == 1 ? 0 : 11);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a child pinned to one CPU: status %d (10: setaffinity failed, "
              "11: it counted more than one CPU)", st);
}

/* A float32 output of n elements equal to its reference, then damaged. */
static float *outputs(size_t n, double **ref)
{
    float *o = malloc(n * sizeof *o);
    *ref = malloc(n * sizeof **ref);
    for (size_t i = 0; i < n; i++) {
        o[i] = (float)(i % 977) * 0.25f;
        (*ref)[i] = o[i];
    }
    return o;
}

static kc_compare compare_with(int threads, const float *o, const double *ref, size_t n)
{
    kc_parallel_set_threads(threads);
    kc_compare c;
    kc_compare_output(KC_F32, o, ref, n, (kc_tol){ 0, 1e-3, "test" }, &c);
    return c;
}

Test(parallel, compare_across_chunks_matches_one_thread)
{
    size_t n = 5 * CHUNK + 123;
    double *ref;
    float *o = outputs(n, &ref);
    /* Equal worst ratios in chunk 0 and chunk 3: the first wins (ties). */
    o[100] += 1.0f;
    o[3 * CHUNK + 5] += 1.0f;
    o[2 * CHUNK + 9] += 0.5f;
    kc_compare one = compare_with(1, o, ref, n), many = compare_with(7, o, ref, n);
    cr_expect_eq(one.bad, 3);
    cr_expect_eq(one.worst, 100, "first of two equal worst errors: %zu", one.worst);
    cr_expect_eq(many.bad, one.bad);
    cr_expect_eq(many.worst, one.worst, "7 threads %zu vs 1 thread %zu", many.worst, one.worst);
    cr_expect_eq(many.err, one.err);
    /* A strictly larger error in a later chunk takes over. */
    o[4 * CHUNK + 1] += 2.0f;
    many = compare_with(7, o, ref, n);
    cr_expect_eq(many.worst, 4 * CHUNK + 1);
    cr_expect_eq(many.bad, 4);
    /* A NaN mismatch in chunk 2 beats every finite error; the first of two NaNs wins. */
    o[2 * CHUNK + 77] = NAN;
    o[5 * CHUNK + 1] = NAN;
    one = compare_with(1, o, ref, n);
    many = compare_with(16, o, ref, n);
    cr_expect_eq(one.worst, 2 * CHUNK + 77);
    cr_expect_eq(many.worst, one.worst, "16 threads %zu vs 1 thread %zu", many.worst, one.worst);
    cr_expect_eq(many.bad, 6);
    cr_expect_eq(one.bad, 6);
    free(o);
    free(ref);
}

Test(parallel, guard_scans_across_chunks_match_one_thread)
{
    size_t n = 3 * CHUNK + 11, first1, firstN;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
    for (size_t i = 0; i < n; i++) a[i] = b[i] = (uint16_t)i;
    b[2 * CHUNK + 3] ^= 1;
    b[CHUNK + 1] ^= 1;
    b[n - 1] ^= 1;
    kc_parallel_set_threads(1);
    size_t d1 = kc_bitwise_diff(a, b, n, 2, &first1);
    kc_parallel_set_threads(9);
    size_t dN = kc_bitwise_diff(a, b, n, 2, &firstN);
    cr_expect_eq(d1, 3);
    cr_expect_eq(dN, 3);
    cr_expect_eq(first1, CHUNK + 1);
    cr_expect_eq(firstN, CHUNK + 1);
    /* poison: elements of all-0xFF bytes, the first in chunk 1 */
    memset(a, 0, n * 2);
    memset(a + CHUNK + 2, 0xFF, 2 * 5);
    memset(a + 3 * CHUNK, 0xFF, 2);
    size_t p = kc_poison_count(a, n, 2, 0xFF, &firstN);
    cr_expect_eq(p, 6);
    cr_expect_eq(firstN, CHUNK + 2);
    /* unwritten in both launches: 0xFF in a and 0x7F in b */
    memset(b, 0x7F, n * 2);
    b[CHUNK + 2] = 0;   /* written in the relaunch: not unwritten */
    p = kc_poison_count2(a, b, n, 2, 0xFF, 0x7F, &firstN);
    cr_expect_eq(p, 5);
    cr_expect_eq(firstN, CHUNK + 3);
    /* nothing wrong: count 0, first = count */
    memset(b, 0, n * 2);
    memset(a, 0, n * 2);
    cr_expect_eq(kc_bitwise_diff(a, b, n, 2, &firstN), 0);
    cr_expect_eq(firstN, n);
    free(a);
    free(b);
}
