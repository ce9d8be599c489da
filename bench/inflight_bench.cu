// inflight_bench.cu — the premise of issue 23 part 1, measured without the
// harness: N synthetic "items" (host work, a copy in, L small launches each
// followed by a sync of the item's stream, a copy out, host work) run by P
// processes (each its own CUDA context, as the work queue's workers are
// today) of T host threads each (one context per process, each thread on its
// per-thread default stream: built with --default-stream per-thread).
// Prints one line: P T N wall_s item_s_sum gpu_busy_guess.
// With FAULT=1, item N/2 writes out of bounds: the line then also counts
// the items of the same process that saw an error (a sticky error is the
// context's, so every item in flight beside it is lost: the design's rerun).
//
//   nvcc -O2 -arch=sm_90 --default-stream per-thread -o inflight_bench bench/inflight_bench.cu -lpthread
//   ./inflight_bench P T N [L blocks host_us launch_us]
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__global__ void spin(float *x, long long cycles, int bad)
{
    long long t0 = clock64();
    float v = x[threadIdx.x];
    while (clock64() - t0 < cycles) v = v * 0.999f + 1.0f;
    x[threadIdx.x + (bad ? (1 << 30) : 0)] = v;
}

typedef struct shared_t {
    int next;           // the next item to take (all processes)
    int errors;         // items that saw a CUDA error
    double item_s;      // summed item seconds
} shared_t;

static shared_t *sh;
static int N, L, BLOCKS, HOST_US, FAULT;
static long long CYCLES;
static const size_t BYTES = 4 << 20;

static void host_work(float *h, int us)
{
    double t0 = now();
    unsigned s = 1;
    size_t i = 0;
    while ((now() - t0) * 1e6 < us) {
        for (int k = 0; k < 4096; k++, i = (i + 1) % (BYTES / 4)) h[i] = (float)(s = s * 1103515245u + 12345u);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    float *h = (float *)malloc(BYTES), *d = NULL;
    cudaMalloc(&d, BYTES);
    for (;;) {
        int i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_SEQ_CST);
        if (i >= N) break;
        double t0 = now();
        host_work(h, HOST_US);
        cudaError_t e = cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
        for (int l = 0; l < L && e == cudaSuccess; l++) {
            spin<<<BLOCKS, 128>>>(d, CYCLES, FAULT && i == N / 2 && l == L / 2);
            e = cudaStreamSynchronize(cudaStreamPerThread);
        }
        if (e == cudaSuccess) e = cudaMemcpy(h, d, BYTES, cudaMemcpyDeviceToHost);
        host_work(h, HOST_US);
        if (e != cudaSuccess) __atomic_fetch_add(&sh->errors, 1, __ATOMIC_SEQ_CST);
        double dt = now() - t0;
        double old = sh->item_s;    // approximate sum (races lose a little; reported as a guide)
        sh->item_s = old + dt;
    }
    cudaFree(d);
    free(h);
    return NULL;
}

static void process(int T)
{
    cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);   // as the harness's contexts (CU_CTX_SCHED_BLOCKING_SYNC)
    cudaFree(0);
    pthread_t th[64];
    for (int t = 0; t < T; t++) pthread_create(&th[t], NULL, worker, NULL);
    for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s P T N [L blocks host_us launch_us]\n", argv[0]);
        return 2;
    }
    int P = atoi(argv[1]), T = atoi(argv[2]);
    N = atoi(argv[3]);
    L = argc > 4 ? atoi(argv[4]) : 20;
    BLOCKS = argc > 5 ? atoi(argv[5]) : 4;
    HOST_US = argc > 6 ? atoi(argv[6]) : 4000;
    int launch_us = argc > 7 ? atoi(argv[7]) : 200;
    FAULT = getenv("FAULT") && atoi(getenv("FAULT"));
    CYCLES = (long long)launch_us * 1755;   // H200: ~1.755 GHz SM clock
    sh = (shared_t *)mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(sh, 0, sizeof *sh);
    double t0 = now();
    for (int p = 0; p < P; p++)
        if (fork() == 0) {
            process(T);
            _exit(0);
        }
    for (int p = 0; p < P; p++) wait(NULL);
    double wall = now() - t0;
    printf("P=%d T=%d N=%d L=%d blocks=%d host_us=%d launch_us=%d wall_s=%.3f item_s=%.2f errors=%d\n", P, T, N, L,
           BLOCKS, HOST_US, launch_us, wall, sh->item_s, sh->errors);
    return 0;
}
