/* ref_gemm.c — kc_ref_gemm_nt (ref_gemm.h), moved here unchanged from
 * kernels/gemm/gemm_contract.c so the cuBLAS contracts share it. */
#include "ref_gemm.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "dtype.h"

/* ---- float64 reference ----------------------------------------------------
 * C[m][n] = sum_k A[m][k] * B[n][k], summed in k order in double; every
 * product of two f16 (or two bf16) values is exact in double. The 16-bit inputs
 * are decoded through a 65536-entry table (the values kc_ref_in gives). For the
 * model shapes (up to 1.7e10 multiply-adds) the work is split over threads by
 * disjoint blocks of 16 output columns n (each thread decodes its 16 rows of B
 * once and sweeps every row of A, four columns at a time); the summation order
 * of every element is the same whatever the thread count. */
typedef struct gemm_ref_job {
    const uint16_t *B;
    const double *tab, *Ad;
    double *C;
    int64_t M, N, K;
    int t, T;
} gemm_ref_job;

#define GEMM_REF_NB 16

static void *gemm_ref_worker(void *p)
{
    const gemm_ref_job *j = p;
    const int64_t M = j->M, N = j->N, K = j->K;
    double *bt = malloc((size_t)(GEMM_REF_NB * K) * sizeof *bt);
    if (!bt) abort();
    for (int64_t n0 = (int64_t)j->t * GEMM_REF_NB; n0 < N; n0 += (int64_t)j->T * GEMM_REF_NB) {
        const int64_t nb = N - n0 < GEMM_REF_NB ? N - n0 : GEMM_REF_NB;
        for (int64_t i = 0; i < GEMM_REF_NB; i++)
            for (int64_t k = 0; k < K; k++) bt[i * K + k] = i < nb ? j->tab[j->B[(n0 + i) * K + k]] : 0.0;
        for (int64_t m = 0; m < M; m++) {
            const double *a = j->Ad + m * K;
            for (int64_t i = 0; i < nb; i += 4) {
                const double *b0 = bt + i * K, *b1 = b0 + K, *b2 = b1 + K, *b3 = b2 + K;
                double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                for (int64_t k = 0; k < K; k++) {
                    const double av = a[k];
                    s0 += av * b0[k]; s1 += av * b1[k]; s2 += av * b2[k]; s3 += av * b3[k];
                }
                double *c = j->C + m * N + n0 + i;
                c[0] = s0;
                if (i + 1 < nb) c[1] = s1;
                if (i + 2 < nb) c[2] = s2;
                if (i + 3 < nb) c[3] = s3;
            }
        }
    }
    free(bt);
    return NULL;
}

void kc_ref_gemm_nt(const kc_ref *r)
{
    const int64_t M = r->shape->d[0], N = r->shape->d[1], K = r->shape->d[2];
    const kc_dtype dt = r->dtype[1];
    double *tab = malloc(65536 * sizeof *tab);
    double *Ad = malloc((size_t)(M * K) * sizeof *Ad);
    if (!tab || !Ad) abort();
    for (uint32_t h = 0; h < 65536; h++)
        tab[h] = dt == KC_F16 ? kc_f16_to_double((uint16_t)h) : kc_bf16_to_double((uint16_t)h);
    const uint16_t *A = r->host[1];
    for (int64_t i = 0; i < M * K; i++) Ad[i] = tab[A[i]];

    const double work = (double)M * (double)N * (double)K;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int T = work < 4e6 ? 1 : (int)(ncpu < 1 ? 1 : ncpu > 32 ? 32 : ncpu);
    const int64_t nblocks = (N + GEMM_REF_NB - 1) / GEMM_REF_NB;
    if (T > nblocks) T = (int)nblocks;
    gemm_ref_job jobs[32];
    pthread_t th[32];
    int started[32] = { 0 };
    for (int t = 0; t < T; t++) {
        jobs[t] = (gemm_ref_job){ .B = r->host[2], .tab = tab, .Ad = Ad, .C = r->out[0],
                                  .M = M, .N = N, .K = K, .t = t, .T = T };
        started[t] = t > 0 && pthread_create(&th[t], NULL, gemm_ref_worker, &jobs[t]) == 0;
    }
    gemm_ref_worker(&jobs[0]);
    for (int t = 1; t < T; t++) {
        if (started[t]) pthread_join(th[t], NULL);
        else gemm_ref_worker(&jobs[t]);   /* no thread: do its share here */
    }
    free(tab); free(Ad);
}

