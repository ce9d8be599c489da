/* ref_gemm.c — kc_ref_gemm (ref_gemm.h), the float64 reference of a GEMM
 * with B as [N, K] ("NT") or [K, N] ("NN"), inputs of any dtype and an
 * optional bias, and kc_ref_gemm_nt, its positional NT form shared by
 * kernels/gemm and kernels/cublas_gemm; run over tiles of C on the harness's
 * threads (kc_parallel_for). */
#include "ref_gemm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dtype.h"
#include "progname.h"

/* ---- float64 reference ----------------------------------------------------
 * C[m][n] = sum_k A[m][k] * B[n][k], summed in k order in double; every
 * product of two inputs of f32 or a narrower dtype is exact in double. 16-bit
 * float inputs are decoded through a 65536-entry table (the values kc_ref_in
 * gives), others by kc_load. A bias is added to each finished sum. C is
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
    kc_in B, bias;
    const double *tab;   /* B's 16-bit values decoded; NULL: B read by kc_load */
    const double *Ad;
    double *C;
    int64_t M, N, K;
    int b_kn, has_bias;
    int64_t col_tiles;   /* tiles across N; tile t is row tile t / col_tiles, column tile t % col_tiles */
} gemm_ref_job;

/* B(k, n) as a double. */
static double b_at(const gemm_ref_job *j, int64_t n, int64_t k)
{
    const size_t i = (size_t)(j->b_kn ? k * j->N + n : n * j->K + k);
    return j->tab ? j->tab[((const uint16_t *)j->B.data)[i]] : kc_load(j->B.dtype, j->B.data, i);
}

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
            if (j->has_bias) {
                s0 += kc_in_at(&j->bias, (size_t)(n0 + i));
                if (i + 1 < nb) s1 += kc_in_at(&j->bias, (size_t)(n0 + i + 1));
                if (i + 2 < nb) s2 += kc_in_at(&j->bias, (size_t)(n0 + i + 2));
                if (i + 3 < nb) s3 += kc_in_at(&j->bias, (size_t)(n0 + i + 3));
            }
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
    double *bt = malloc((size_t)(GEMM_REF_NB * K) * sizeof *bt + 1);
    if (!bt) abort();
    for (size_t t = begin; t < end; t++) {
        const int64_t m0 = (int64_t)t / j->col_tiles * GEMM_REF_MB, m1 = min64(m0 + GEMM_REF_MB, j->M);
        const int64_t c0 = (int64_t)t % j->col_tiles * GEMM_REF_NT, c1 = min64(c0 + GEMM_REF_NT, j->N);
        for (int64_t n0 = c0; n0 < c1; n0 += GEMM_REF_NB) {
            const int64_t nb = min64(GEMM_REF_NB, c1 - n0);
            for (int64_t i = 0; i < GEMM_REF_NB; i++)
                for (int64_t k = 0; k < K; k++) bt[i * K + k] = i < nb ? b_at(j, n0 + i, k) : 0.0;
            gemm_ref_block(j, bt, n0, nb, m0, m1);
        }
    }
    free(bt);
}

static void refuse(const kc_ref *r, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void refuse(const kc_ref *r, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kc_say(stderr, "kc_ref_gemm: %s (shape %s)\n", msg, r->shape && r->shape->name ? r->shape->name : "?");
    abort();
}

/* Argument a's input, with at least want elements. */
static kc_in gemm_input(const kc_ref *r, int a, const char *what, size_t want)
{
    const char *name = r->name[a] ? r->name[a] : "(unnamed)";
    if (!r->host[a]) refuse(r, "%s (argument %d, %s) has no input (only IN and INOUT buffers have one)", what, a, name);
    if (r->count[a] < want)
        refuse(r, "%s %s has %zu elements, expected at least %zu", what, name, r->count[a], want);
    return (kc_in){ .data = r->host[a], .dtype = r->dtype[a], .count = r->count[a], .name = name };
}

/* The GEMM over arguments c, a, b and bias (-1: none), by index. */
static void gemm(const kc_ref *r, int ci, int ai, int bi, int biasi, int64_t M, int64_t N, int64_t K, int b_kn)
{
    if (M < 0 || N < 0 || K < 0)
        refuse(r, "M = %" PRId64 ", N = %" PRId64 ", K = %" PRId64 " (expected dims >= 0)", M, N, K);
    if ((M && (uint64_t)K > SIZE_MAX / sizeof(double) / (uint64_t)M) ||
        (N && (uint64_t)K > SIZE_MAX / (uint64_t)N) || (M && (uint64_t)N > SIZE_MAX / (uint64_t)M))
        refuse(r, "M = %" PRId64 ", N = %" PRId64 ", K = %" PRId64 ": a product of two overflows size_t", M, N, K);
    const kc_in A = gemm_input(r, ai, "A", (size_t)(M * K));
    gemm_ref_job j = { .B = gemm_input(r, bi, "B", (size_t)(N * K)), .M = M, .N = N, .K = K, .b_kn = b_kn,
                       .col_tiles = (N + GEMM_REF_NT - 1) / GEMM_REF_NT };
    if (biasi >= 0) {
        j.bias = gemm_input(r, biasi, "bias", (size_t)N);
        j.has_bias = 1;
    }
    if (!r->out[ci]) refuse(r, "C (argument %d, %s) is no output", ci, r->name[ci] ? r->name[ci] : "(unnamed)");
    if (r->count[ci] != (size_t)(M * N))
        refuse(r, "the output C (%s) has %zu elements, expected M x N = %" PRId64, r->name[ci] ? r->name[ci] : "(unnamed)",
               r->count[ci], M * N);
    j.C = r->out[ci];
    if (M == 0 || N == 0) return;
    double *tab = NULL;
    const int table = A.dtype == KC_F16 || A.dtype == KC_BF16 || j.B.dtype == KC_F16 || j.B.dtype == KC_BF16;
    if (table && !(tab = malloc(65536 * sizeof *tab))) abort();
    double *Ad = malloc((size_t)(M * K) * sizeof *Ad + 1);
    if (!Ad) abort();
    if (j.B.dtype == KC_F16 || j.B.dtype == KC_BF16) j.tab = tab;
    /* one table for each 16-bit dtype in use, A's and B's (filled per use) */
    if (A.dtype == KC_F16 || A.dtype == KC_BF16) {
        for (uint32_t h = 0; h < 65536; h++)
            tab[h] = A.dtype == KC_F16 ? kc_f16_to_double((uint16_t)h) : kc_bf16_to_double((uint16_t)h);
        const uint16_t *a16 = A.data;
        for (int64_t i = 0; i < M * K; i++) Ad[i] = tab[a16[i]];
    } else {
        for (int64_t i = 0; i < M * K; i++) Ad[i] = kc_load(A.dtype, A.data, (size_t)i);
    }
    if (j.tab)
        for (uint32_t h = 0; h < 65536; h++)
            tab[h] = j.B.dtype == KC_F16 ? kc_f16_to_double((uint16_t)h) : kc_bf16_to_double((uint16_t)h);
    j.Ad = Ad;
    const int64_t row_tiles = (M + GEMM_REF_MB - 1) / GEMM_REF_MB;
    /* a chunk of at least ~2^20 multiply-adds (~1 ms), so small shapes stay on one thread */
    const double tile_work = (double)min64(M, GEMM_REF_MB) * (double)min64(N, GEMM_REF_NT) * (double)K;
    const size_t grain = tile_work >= 1048576.0 ? 1 : (size_t)(1048576.0 / (tile_work + 1.0)) + 1;
    kc_parallel_for((size_t)(row_tiles * j.col_tiles), grain, gemm_ref_tiles, &j);
    free(tab);
    free(Ad);
}

void kc_ref_gemm_nt(const kc_ref *r)
{
    gemm(r, 0, 1, 2, -1, r->shape->d[0], r->shape->d[1], r->shape->d[2], 0);
}

void kc_ref_gemm(const kc_ref *r, const kc_gemm_spec *g)
{
    if (!g || !g->c || !g->a || !g->b) refuse(r, "the GEMM needs the names of c, a and b (one is NULL)");
    gemm(r, kc_ref_arg(r, g->c), kc_ref_arg(r, g->a), kc_ref_arg(r, g->b), g->bias ? kc_ref_arg(r, g->bias) : -1,
         g->m, g->n, g->k, g->b_kn != 0);
}
