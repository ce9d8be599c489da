/* ref_gemm.c — kc_ref_gemm_nt (ref_gemm.h), the float64 reference of an NT
 * GEMM shared by kernels/gemm and kernels/cublas_gemm, run over tiles of C on
 * the harness's threads (kc_parallel_for). */
#include "ref_gemm.h"

#include <stdint.h>
#include <stdlib.h>

#include "dtype.h"

/* ---- float64 reference ----------------------------------------------------
 * C[m][n] = sum_k A[m][k] * B[n][k], summed in k order in double; every
 * product of two f16 (or two bf16) values is exact in double. The 16-bit inputs
 * are decoded through a 65536-entry table (the values kc_ref_in gives). C is
 * cut into independent tiles of up to GEMM_REF_MB rows by GEMM_REF_NT columns,
 * spread over threads by kc_parallel_for (column tiles too, so the one-token
 * shapes, M = 1, still use every thread). Within a tile, blocks of 16 columns
 * n have their 16 rows of B decoded once and are swept over the tile's rows of
 * A, four columns at a time. Every element's sum is the same k-order loop
 * whatever the tiling or thread count, so the result is bitwise fixed. */
#define GEMM_REF_NB 16    /* columns per decoded block of B */
#define GEMM_REF_MB 32    /* rows of C per tile */
#define GEMM_REF_NT 256   /* columns of C per tile: a multiple of GEMM_REF_NB */

typedef struct gemm_ref_job {
    const uint16_t *B;
    const double *tab, *Ad;
    double *C;
    int64_t M, N, K;
    int64_t col_tiles;   /* tiles across N; tile t is row tile t / col_tiles, column tile t % col_tiles */
} gemm_ref_job;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* C[m][n0 .. n0 + nb) for m in [m0, m1), from bt: the nb decoded rows of B
 * from n0 (zero rows after them up to GEMM_REF_NB). */
static void gemm_ref_block(const gemm_ref_job *j, const double *bt, int64_t n0, int64_t nb, int64_t m0, int64_t m1)
{
    const int64_t N = j->N, K = j->K;
    for (int64_t m = m0; m < m1; m++) {
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

/* kc_parallel_for body: tiles [begin, end) of C. */
static void gemm_ref_tiles(void *p, size_t begin, size_t end)
{
    const gemm_ref_job *j = p;
    const int64_t K = j->K;
    double *bt = malloc((size_t)(GEMM_REF_NB * K) * sizeof *bt);
    if (!bt) abort();
    for (size_t t = begin; t < end; t++) {
        const int64_t m0 = (int64_t)t / j->col_tiles * GEMM_REF_MB, m1 = min64(m0 + GEMM_REF_MB, j->M);
        const int64_t c0 = (int64_t)t % j->col_tiles * GEMM_REF_NT, c1 = min64(c0 + GEMM_REF_NT, j->N);
        for (int64_t n0 = c0; n0 < c1; n0 += GEMM_REF_NB) {
            const int64_t nb = min64(GEMM_REF_NB, c1 - n0);
            for (int64_t i = 0; i < GEMM_REF_NB; i++)
                for (int64_t k = 0; k < K; k++) bt[i * K + k] = i < nb ? j->tab[j->B[(n0 + i) * K + k]] : 0.0;
            gemm_ref_block(j, bt, n0, nb, m0, m1);
        }
    }
    free(bt);
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

    gemm_ref_job j = { .B = r->host[2], .tab = tab, .Ad = Ad, .C = r->out[0], .M = M, .N = N, .K = K,
                       .col_tiles = (N + GEMM_REF_NT - 1) / GEMM_REF_NT };
    const int64_t row_tiles = (M + GEMM_REF_MB - 1) / GEMM_REF_MB;
    /* a chunk of at least ~2^20 multiply-adds (~1 ms), so small shapes stay on one thread */
    const double tile_work = (double)min64(M, GEMM_REF_MB) * (double)min64(N, GEMM_REF_NT) * (double)K;
    const size_t grain = tile_work >= 1048576.0 ? 1 : (size_t)(1048576.0 / (tile_work + 1.0)) + 1;
    kc_parallel_for((size_t)(row_tiles * j.col_tiles), grain, gemm_ref_tiles, &j);
    free(tab);
    free(Ad);
}
