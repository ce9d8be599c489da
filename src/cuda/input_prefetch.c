/* input_prefetch.c — owns making an item's host-generated inputs ahead of
 * their cases (input_prefetch.h): the queue of inputs in case order, the
 * threads that run the contracts' generators, the byte budget of made and
 * untaken buffers, and handing a made buffer to the input cache. */
#include "input_prefetch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "fill.h"
#include "seed.h"

typedef enum { JOB_QUEUED, JOB_MAKING, JOB_READY, JOB_FAILED, JOB_DONE } job_state;

typedef struct job {
    const kc_contract *c;
    const kc_shape *s;
    kc_dist dist;
    uint64_t seed, dims;
    int arg;
    size_t count, bytes;
    int used_stream;            /* its generator called kc_gen_default */
    job_state state;
    void *host;
    char why[200];
} job;

struct kc_prefetch {
    pthread_mutex_t lock;
    pthread_cond_t changed;     /* a job's state or the bytes held changed, or stop */
    job *v;
    int n, cap, next;           /* next: the first job no thread has looked at */
    size_t budget, held;        /* held: bytes of MAKING and READY jobs */
    int go, stop, nthreads;
    kc_stream_gens *stream_gens;    /* the session's; read and written under lock */
    pthread_t threads[64];
};

static uint64_t dims_of(const kc_shape *s) { return kc_fnv1a64(s->d, sizeof s->d, KC_FNV_OFFSET); }

int kc_stream_gens_has(const kc_stream_gens *m, void (*gen)(kc_gen *g))
{
    for (int i = 0; m && i < m->n; i++)
        if (m->gen[i] == gen) return 1;
    return 0;
}

void kc_stream_gens_add(kc_prefetch *p, kc_stream_gens *m, void (*gen)(kc_gen *g))
{
    if (!m) return;
    if (p) pthread_mutex_lock(&p->lock);
    if (!kc_stream_gens_has(m, gen) && m->n < KC_STREAM_GENS_MAX) m->gen[m->n++] = gen;
    if (p) pthread_mutex_unlock(&p->lock);
}

/* kc_gen_default's source in a prefetch thread: notes that the generator
 * draws on the stream, and declines (the host computes it). */
static int note_stream(kc_gen_source *src)
{
    *(int *)src->ctx = 1;
    return -1;
}

/* Runs job j's generator into a fresh zeroed buffer, as inputs.c's make()
 * would, with kc_gen_default on the host (no GPU source). */
static void make(job *j)
{
    const kc_arg *ar = &j->c->args[j->arg];
    j->host = calloc(j->bytes ? j->bytes : 1, 1);
    if (!j->host) {
        snprintf(j->why, sizeof j->why, "out of host memory for the generated input (%zu bytes)", j->bytes);
        j->state = JOB_FAILED;
        return;
    }
    uint64_t key = kc_buffer_key(j->seed, j->arg);
    kc_gen_source src = { j->host, j->count, ar->dtype, j->dist, key, note_stream, &j->used_stream };
    kc_gen g = { .shape = j->s, .dist = j->dist, .dtype = ar->dtype, .data = j->host, .count = j->count,
                 .harness = &src, .user = j->c->user };
    kc_fill(&g, key, ar->gen);
    if (ar->table && !kc_gen_drew_nothing(&g, key)) {
        free(j->host);
        j->host = NULL;
        snprintf(j->why, sizeof j->why,
                 "the contract's table generator (KC_BUFFER_TABLE) drew from kc_rand_*: a table depends on the shape alone");
        j->state = JOB_FAILED;
        return;
    }
    j->state = JOB_READY;
}

/* After kc_prefetch_go, the next queued job that fits the budget (or any,
 * when nothing is held), marked MAKING; -1 when stopping or when no job is
 * left. Called with the lock held; waits on p->changed. */
static int next_job(kc_prefetch *p)
{
    for (;;) {
        if (p->stop) return -1;
        if (p->go) {
            while (p->next < p->n && p->v[p->next].state != JOB_QUEUED) p->next++;
            if (p->next >= p->n) return -1;       /* every input queued is made or left to its case */
            job *j = &p->v[p->next];
            if (kc_stream_gens_has(p->stream_gens, j->c->args[j->arg].gen)) {
                j->state = JOB_DONE;            /* the GPU makes it faster in its case */
                continue;
            }
            if (p->held == 0 || p->held + j->bytes <= p->budget) {
                j->state = JOB_MAKING;
                p->held += j->bytes;
                return p->next++;
            }
        }
        pthread_cond_wait(&p->changed, &p->lock);
    }
}

/* Job i, made into `local` without the lock, back into p: its buffer,
 * state and reason, and its generator noted when it drew on the stream.
 * Called with the lock held. */
static void made(kc_prefetch *p, int i, const job *local)
{
    job *j = &p->v[i];
    j->host = local->host;
    j->state = local->state;
    memcpy(j->why, local->why, sizeof j->why);
    void (*gen)(kc_gen *) = j->c->args[j->arg].gen;
    if (local->used_stream && p->stream_gens && !kc_stream_gens_has(p->stream_gens, gen) &&
        p->stream_gens->n < KC_STREAM_GENS_MAX)
        p->stream_gens->gen[p->stream_gens->n++] = gen;
}

static void *thread_main(void *arg)
{
    kc_prefetch *p = arg;
    pthread_mutex_lock(&p->lock);
    for (int i; (i = next_job(p)) >= 0;) {
        job local = p->v[i];                /* p->v may not move: it is filled before go */
        pthread_mutex_unlock(&p->lock);
        make(&local);
        pthread_mutex_lock(&p->lock);
        made(p, i, &local);
        if (local.state == JOB_FAILED) p->held -= local.bytes;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

kc_prefetch *kc_prefetch_new(int threads, size_t budget, kc_stream_gens *stream_gens)
{
    kc_prefetch *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->stream_gens = stream_gens;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    p->budget = budget;
    if (threads < 1) threads = 1;
    if (threads > (int)(sizeof p->threads / sizeof p->threads[0])) threads = (int)(sizeof p->threads / sizeof p->threads[0]);
    for (int t = 0; t < threads; t++)
        if (pthread_create(&p->threads[p->nthreads], NULL, thread_main, p) == 0) p->nthreads++;
    if (!p->nthreads) {
        kc_prefetch_free(p);
        return NULL;
    }
    return p;
}

static job *find(kc_prefetch *p, const kc_contract *c, uint64_t seed, uint64_t dims, int a, size_t count)
{
    const kc_arg *ar = &c->args[a];
    for (int i = 0; i < p->n; i++) {
        job *j = &p->v[i];
        const kc_arg *jr = &j->c->args[j->arg];
        if (j->seed == seed && j->dims == dims && j->arg == a && j->count == count && jr->gen == ar->gen &&
            jr->dtype == ar->dtype)
            return j;
    }
    return NULL;
}

int kc_prefetch_add(kc_prefetch *p, const kc_contract *c, const kc_shape *s, kc_dist dist, uint64_t seed, int a,
                    size_t count)
{
    pthread_mutex_lock(&p->lock);
    int rc = 0;
    uint64_t dims = dims_of(s);
    if (p->go || find(p, c, seed, dims, a, count)) goto out;
    if (p->n == p->cap) {
        int cap2 = p->cap ? 2 * p->cap : 64;
        job *v = realloc(p->v, (size_t)cap2 * sizeof *v);
        if (!v) {
            rc = -1;
            goto out;
        }
        p->v = v;
        p->cap = cap2;
    }
    size_t es = kc_dtype_size(c->args[a].dtype);
    p->v[p->n++] = (job){ .c = c, .s = s, .dist = dist, .seed = seed, .dims = dims, .arg = a, .count = count,
                          .bytes = es && count > SIZE_MAX / es ? SIZE_MAX : count * es, .state = JOB_QUEUED };
out:
    pthread_mutex_unlock(&p->lock);
    return rc;
}

void kc_prefetch_go(kc_prefetch *p)
{
    pthread_mutex_lock(&p->lock);
    p->go = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

int kc_prefetch_take(kc_prefetch *p, const kc_contract *c, const kc_shape *s, uint64_t seed, int a, size_t count,
                     void **host, char *why, size_t cap)
{
    if (!p) return 0;
    pthread_mutex_lock(&p->lock);
    int rc = 0;
    job *j = find(p, c, seed, dims_of(s), a, count);
    if (!j || j->state == JOB_DONE) goto out;
    if (j->state == JOB_QUEUED && kc_stream_gens_has(p->stream_gens, c->args[a].gen)) {
        j->state = JOB_DONE;            /* the GPU makes it faster in its case */
        goto out;
    }
    if (j->state == JOB_QUEUED) {       /* no thread got to it yet: made here, on the case's thread */
        job local = *j;
        j->state = JOB_MAKING;          /* no thread takes it now; held is not charged: it is handed over at once */
        pthread_mutex_unlock(&p->lock);
        make(&local);
        pthread_mutex_lock(&p->lock);
        made(p, (int)(j - p->v), &local);
        if (local.state == JOB_READY) p->held += j->bytes;      /* given back below */
    }
    while (j->state == JOB_MAKING) pthread_cond_wait(&p->changed, &p->lock);
    if (j->state == JOB_READY) {
        *host = j->host;
        j->host = NULL;
        p->held -= j->bytes;
        rc = 1;
    } else {
        snprintf(why, cap, "%s", j->why);
        rc = -1;
    }
    j->state = JOB_DONE;
    pthread_cond_broadcast(&p->changed);
out:
    pthread_mutex_unlock(&p->lock);
    return rc;
}

void kc_prefetch_free(kc_prefetch *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (int t = 0; t < p->nthreads; t++) pthread_join(p->threads[t], NULL);
    for (int i = 0; i < p->n; i++) free(p->v[i].host);
    free(p->v);
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
