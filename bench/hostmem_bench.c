/* hostmem_bench.c — host-only benchmark of src/cuda/hostmem.c: the buffers of one
 * item's cases (inputs, a float64 reference, two read-backs) allocated,
 * written and freed once per case, with the kept buffers reused across the
 * cases (as the gates do) or unmapped after every case (fresh mappings, as
 * malloc gave before). Prints wall seconds and minor page faults of each.
 * Usage: build/kc_hostmem_bench [MiB per buffer (default 512)] [cases (default 3)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hostmem.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* One case: inputs (n), reference (2n, as doubles of a 4-byte dtype), the
 * read-back (n) and gate 4's read-back (n), each written in full. */
static int one_case(size_t n, const char *device)
{
    char *in = kc_hostmem_alloc(n, 0), *ref = kc_hostmem_alloc(2 * n, 0), *back = kc_hostmem_alloc(n, 0),
         *again = kc_hostmem_alloc(n, 0);
    if (!in || !ref || !back || !again) return -1;
    memset(in, 1, n);
    memset(ref, 2, 2 * n);
    memcpy(back, device, n);
    memcpy(again, device, n);
    kc_hostmem_free(in);
    kc_hostmem_free(ref);
    kc_hostmem_free(back);
    kc_hostmem_free(again);
    return 0;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 512;
    int cases = argc > 2 ? atoi(argv[2]) : 3;
    if (mib < 16 || cases < 1) {
        fprintf(stderr, "usage: kc_hostmem_bench [MiB per buffer, at least 16] [cases, at least 1]\n");
        return 2;
    }
    size_t n = mib << 20;
    char *device = malloc(n);   /* stands for device memory being read back */
    if (!device) return 4;
    memset(device, 3, n);
    for (int reuse = 0; reuse < 2; reuse++) {
        long f0 = minflt();
        double t0 = now_s();
        for (int c = 0; c < cases; c++) {
            if (one_case(n, device)) {
                fprintf(stderr, "kc_hostmem_bench: out of memory\n");
                return 4;
            }
            if (!reuse) kc_hostmem_release();   /* fresh mappings every case */
        }
        kc_hostmem_release();
        printf("%-28s %d cases of 5 x %zu MiB: %.3f s, %ld minor page faults\n",
               reuse ? "reused across cases:" : "fresh mappings every case:", cases, mib, now_s() - t0,
               minflt() - f0);
    }
    free(device);
    return 0;
}
