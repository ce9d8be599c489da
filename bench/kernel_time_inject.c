/* kernel_time_inject.c — a CUDA injection library (libkc_kernel_time.so) that
 * records every kernel, memset and copy each process runs on the GPU, with
 * its start and end on the GPU, for bench/kernel_time.py (issue 23: where the
 * GPU's own time goes in a run, per role and per family).
 *
 * Use (GPU machine; bench/kernel_time.sh sets it up):
 *     KC_KERNEL_TIME_DIR=DIR CUDA_INJECTION64_PATH=build/libkc_kernel_time.so \
 *     LD_PRELOAD=build/libkc_kernel_time.so kcontract run ...
 * The driver calls InitializeInjection() at cuInit in every process that
 * inherits the variables (kcontract's workers). Each such process writes
 * DIR/ktime.<pid>.tsv, one line per activity:
 *     kind  start_ns  end_ns  context  stream  grid  block  name
 * kind K (kernel), S (memset), C (copy); start and end in CUPTI's timestamps
 * (CLOCK_REALTIME, ns, the GPU's timer interpolated: cupti_activity.h); grid
 * and block "XxYxZ" for kernels, the byte count for memsets and copies.
 *
 * Records reach the file when CUPTI hands a buffer back: a thread of this
 * library asks for every completed record every 50 ms (cuptiActivityFlushAll;
 * CUPTI's own periodic flush returns only full buffers), and at exit() and at
 * _exit(), which this library interposes through LD_PRELOAD because
 * kcontract's workers end with _exit. A record CUPTI completes after its
 * context faulted has start and end 0: a process whose context faulted (a
 * control planted for gate 1) loses the timestamps of about its last 50 ms,
 * which kernel_time.py counts and names.
 *
 * compute-sanitizer targets set their own injection library, so this one is
 * never initialized there: sanitizer sessions are not traced.
 *
 * Errors: a CUPTI call that fails is named on stderr with its result, and the
 * process runs on untraced. */
#define _GNU_SOURCE
#include <cupti.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE (1u << 20)
#define FLUSH_MS 50
#define BUF_ALIGN 8

static int trace_fd = -1;          /* DIR/ktime.<pid>.tsv, once initialized */
static pid_t trace_pid;            /* the process that initialized CUPTI */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

static int cupti_ok(CUptiResult r, const char *what)
{
    if (r == CUPTI_SUCCESS) return 1;
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    fprintf(stderr, "kc_kernel_time: %s failed: %s (%d); this process runs untraced\n", what, s ? s : "?", (int)r);
    return 0;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(BUF_ALIGN, BUF_SIZE);
    *size = *buffer ? BUF_SIZE : 0;
    *max_records = 0;
}

/* One activity as a line of the trace (a short line: the name is cut at 400). */
static int format_record(const CUpti_Activity *rec, char *line, size_t cap)
{
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        return snprintf(line, cap, "K\t%llu\t%llu\t%u\t%u\t%dx%dx%d\t%dx%dx%d\t%.400s\n", (unsigned long long)k->start,
                        (unsigned long long)k->end, k->contextId, k->streamId, k->gridX, k->gridY, k->gridZ, k->blockX,
                        k->blockY, k->blockZ, k->name ? k->name : "?");
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        return snprintf(line, cap, "S\t%llu\t%llu\t%u\t%u\t%llu\t-\tmemset\n", (unsigned long long)m->start,
                        (unsigned long long)m->end, m->contextId, m->streamId, (unsigned long long)m->bytes);
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *c = (const CUpti_ActivityMemcpy6 *)rec;
        return snprintf(line, cap, "C\t%llu\t%llu\t%u\t%u\t%llu\t-\tcopy.%u\n", (unsigned long long)c->start,
                        (unsigned long long)c->end, c->contextId, c->streamId, (unsigned long long)c->bytes,
                        (unsigned)c->copyKind);
    }
    default:
        return 0;
    }
}

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(trace_fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    static char out[1 << 16];
    size_t used = 0;
    CUpti_Activity *rec = NULL;
    pthread_mutex_lock(&write_lock);
    while (trace_fd >= 0 && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (used + 600 > sizeof out) {
            write_all(out, used);
            used = 0;
        }
        int n = format_record(rec, out + used, sizeof out - used);
        if (n > 0) used += (size_t)n < sizeof out - used ? (size_t)n : sizeof out - used - 1;
    }
    if (used) write_all(out, used);
    pthread_mutex_unlock(&write_lock);
    (void)size;
    free(buffer);
}

static void flush_all(void)
{
    if (trace_fd >= 0 && getpid() == trace_pid) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/* Every FLUSH_MS, the completed records (flag 0: a buffer with a record still
 * in flight stays with CUPTI). Detached; ends with the process. */
static void *flush_loop(void *arg)
{
    (void)arg;
    const struct timespec ts = { 0, FLUSH_MS * 1000000L };
    for (;;) {
        nanosleep(&ts, NULL);
        cuptiActivityFlushAll(0);
    }
    return NULL;
}

/* Called by the driver at cuInit (CUDA_INJECTION64_PATH). Returns 1. */
int InitializeInjection(void)
{
    const char *dir = getenv("KC_KERNEL_TIME_DIR");
    if (!dir || !*dir) {
        fprintf(stderr, "kc_kernel_time: KC_KERNEL_TIME_DIR is not set; this process runs untraced\n");
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/ktime.%d.tsv", dir, (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "kc_kernel_time: cannot open %s: %s; this process runs untraced\n", path, strerror(errno));
        return 1;
    }
    trace_fd = fd;
    trace_pid = getpid();
    if (!cupti_ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks") ||
        !cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enabling kernel records") ||
        !cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "enabling memset records") ||
        !cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "enabling copy records")) {
        close(fd);
        trace_fd = -1;
        return 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, flush_loop, NULL) == 0) pthread_detach(t);
    else fprintf(stderr, "kc_kernel_time: no flush thread; records reach the file when a buffer fills and at exit\n");
    atexit(flush_all);
    return 1;
}

/* kcontract's workers end with _exit: flush first (LD_PRELOAD only). */
void _exit(int status)
{
    flush_all();
    syscall(SYS_exit_group, status);
    for (;;) {}
}
