/* nvml.c — NVML through dlopen (types declared here: nvml.h may not be
 * installed), per-process GPU memory by PCI bus id, and the peak sampler. */
#include "nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_driver.h"
#include "progname.h"

/* The subset of nvml.h used here (NVML 11.x and later; stable ABI). */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
/* nvmlProcessInfo_t as the _v3 (and _v2) process queries fill it. */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;   /* bytes, or NVML_VALUE_NOT_AVAILABLE */
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} kc_nvml_process_info;

static struct {
    pthread_once_t once;
    int ok;
    char why[512];
    void *lib;
    nvmlReturn_t (*Init)(void);
    const char *(*ErrorString)(nvmlReturn_t);
    nvmlReturn_t (*GetHandleByPciBusId)(const char *, nvmlDevice_t *);
    nvmlReturn_t (*GetComputeRunningProcesses)(nvmlDevice_t, unsigned int *, kc_nvml_process_info *);
} nv = { PTHREAD_ONCE_INIT, 0, "", NULL, NULL, NULL, NULL, NULL };

static const char *nvml_err(nvmlReturn_t r)
{
    static __thread char buf[48];
    const char *s = nv.ErrorString ? nv.ErrorString(r) : NULL;
    if (s) return s;
    snprintf(buf, sizeof buf, "nvmlReturn_t %d", r);
    return buf;
}

static void load_once(void)
{
    const char *path = getenv("KC_LIBNVML");
    if (!path || !*path) path = "libnvidia-ml.so.1";
    if (strcmp(path, "none") == 0) {    /* no NVML, asked for (cuda_driver.h: kc_lib_setting_check) */
        snprintf(nv.why, sizeof nv.why, "KC_LIBNVML=none");
        return;
    }
    nv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib) {
        kc_dlopen_why(path, "the NVML library", dlerror(), nv.why, sizeof nv.why);
        return;
    }
    nv.Init = (nvmlReturn_t (*)(void))dlsym(nv.lib, "nvmlInit_v2");
    nv.ErrorString = (const char *(*)(nvmlReturn_t))dlsym(nv.lib, "nvmlErrorString");
    nv.GetHandleByPciBusId = (nvmlReturn_t (*)(const char *, nvmlDevice_t *))dlsym(nv.lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nv.GetComputeRunningProcesses = (nvmlReturn_t (*)(nvmlDevice_t, unsigned int *, kc_nvml_process_info *))dlsym(
        nv.lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!nv.GetComputeRunningProcesses)   /* drivers before 510: the same layout under _v2 */
        nv.GetComputeRunningProcesses = (nvmlReturn_t (*)(nvmlDevice_t, unsigned int *, kc_nvml_process_info *))dlsym(
            nv.lib, "nvmlDeviceGetComputeRunningProcesses_v2");
    const char *missing = !nv.Init ? "nvmlInit_v2"
                        : !nv.GetHandleByPciBusId ? "nvmlDeviceGetHandleByPciBusId_v2"
                        : !nv.GetComputeRunningProcesses ? "nvmlDeviceGetComputeRunningProcesses_v3"
                        : NULL;
    if (missing) {
        snprintf(nv.why, sizeof nv.why, "%s lacks %s", path, missing);
        return;
    }
    nvmlReturn_t r = nv.Init();
    if (r != NVML_SUCCESS) {
        snprintf(nv.why, sizeof nv.why, "nvmlInit failed: %s", nvml_err(r));
        return;
    }
    nv.ok = 1;   /* never shut down or unloaded: the sampler may still be running at exit */
}

static void set_why(char *why, size_t cap, const char *s)
{
    if (why && cap) snprintf(why, cap, "%s", s);
}

int kc_nvml_init(char *why, size_t whycap)
{
    pthread_once(&nv.once, load_once);
    if (!nv.ok) set_why(why, whycap, nv.why);
    return nv.ok ? 0 : -1;
}

/* One device's process list: MiB of pid, 0 when absent, -1 on error. `seen`
 * (may be NULL) says whether pid was listed. */
static long pid_mib(const char *bus_id, long pid, int *seen, char *why, size_t whycap)
{
    if (seen) *seen = 0;
    if (kc_nvml_init(why, whycap)) return -1;
    nvmlDevice_t dev;
    nvmlReturn_t r = nv.GetHandleByPciBusId(bus_id, &dev);
    if (r != NVML_SUCCESS) {
        if (why) snprintf(why, whycap, "NVML has no device at PCI bus id %s: %s", bus_id, nvml_err(r));
        return -1;
    }
    kc_nvml_process_info stack_buf[64], *info = stack_buf;
    unsigned int cap = 64, count = cap;
    for (int tries = 0;; tries++) {
        count = cap;
        r = nv.GetComputeRunningProcesses(dev, &count, info);
        if (r != NVML_ERROR_INSUFFICIENT_SIZE || tries == 3) break;
        if (info != stack_buf) free(info);
        cap = count + 16;
        info = malloc(cap * sizeof *info);
        if (!info) {
            set_why(why, whycap, "out of memory");
            return -1;
        }
    }
    long mib = 0;
    if (r != NVML_SUCCESS) {
        if (why) snprintf(why, whycap, "nvmlDeviceGetComputeRunningProcesses (%s): %s", bus_id, nvml_err(r));
        mib = -1;
    } else {
        for (unsigned int i = 0; i < count && i < cap; i++) {
            if ((long)info[i].pid != pid) continue;
            if (seen) *seen = 1;
            if (info[i].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE) {
                set_why(why, whycap, "NVML does not report per-process memory here");
                mib = -1;
            } else {
                mib = (long)((info[i].usedGpuMemory + (1ull << 20) - 1) >> 20);
            }
            break;
        }
    }
    if (info != stack_buf) free(info);
    return mib;
}

long kc_nvml_pid_mib(const char *bus_id, long pid, char *why, size_t whycap)
{
    return pid_mib(bus_id, pid, NULL, why, whycap);
}

long kc_nvml_pid_mib_listed(const char *bus_id, long pid, int *listed, char *why, size_t whycap)
{
    return pid_mib(bus_id, pid, listed, why, whycap);
}

int kc_cuda_ordinal_bus_id(int ordinal, char *buf, size_t cap)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static kc_cuda cu;
    static int state;   /* 0 not tried, 1 loaded, -1 failed */
    static char err[512];
    pthread_mutex_lock(&mu);
    if (state == 0) state = kc_cuda_load(&cu, NULL, err, sizeof err) ? -1 : 1;
    int rc = -1;
    if (state < 0) {
        snprintf(buf, cap, "%s", err);
    } else {
        CUdevice d;
        CUresult r = cu.DeviceGet(&d, ordinal);
        if (r == CUDA_SUCCESS) r = cu.DeviceGetPCIBusId(buf, (int)cap, d);
        if (r == CUDA_SUCCESS) rc = 0;
        else snprintf(buf, cap, "CUDA device %d: %s", ordinal, kc_cuda_error_name(&cu, r));
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

/* ---- the sampler ---- */

typedef struct watched {
    long pid;
    char bus_id[32];
    long peak;          /* MiB since the last take, -1 unknown */
    int seen;           /* listed by NVML at least once since the watch */
} watched;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int running, stopping, period_ms, said;
    watched *w;
    int n, cap;
} S = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

static void say_once(void)
{
    if (S.said) return;
    S.said = 1;
    kc_say(stderr, "no GPU memory figures: %s\n", nv.why[0] ? nv.why : "NVML unavailable");
    fflush(stderr);
}

static watched *find(long pid)
{
    for (int i = 0; i < S.n; i++)
        if (S.w[i].pid == pid) return &S.w[i];
    return NULL;
}

/* Samples every watched pid (one process-list query per pid; few pids). S.mu held. */
static void sample_locked(watched *only)
{
    for (int i = 0; i < S.n; i++) {
        watched *e = &S.w[i];
        if (only && e != only) continue;
        int seen;
        long mib = pid_mib(e->bus_id, e->pid, &seen, NULL, 0);
        if (seen) e->seen = 1;
        if (mib >= 0 && (seen || e->seen) && mib > e->peak) e->peak = mib;
    }
}

static void *sampler_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&S.mu);
    while (!S.stopping) {
        sample_locked(NULL);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += (long)S.period_ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        while (!S.stopping && pthread_cond_timedwait(&S.cv, &S.mu, &ts) != ETIMEDOUT) {}
    }
    pthread_mutex_unlock(&S.mu);
    return NULL;
}

void kc_gpu_sampler_said(void)
{
    pthread_mutex_lock(&S.mu);
    S.said = 1;
    pthread_mutex_unlock(&S.mu);
}

int kc_gpu_sampler_start(int period_ms)
{
    if (kc_nvml_init(NULL, 0)) {
        pthread_mutex_lock(&S.mu);
        say_once();
        pthread_mutex_unlock(&S.mu);
        return -1;
    }
    pthread_mutex_lock(&S.mu);
    if (S.running) {
        pthread_mutex_unlock(&S.mu);
        return 0;
    }
    S.period_ms = period_ms <= 0 ? KC_GPU_SAMPLE_MS : period_ms < 100 ? 100 : period_ms > 250 ? 250 : period_ms;
    S.stopping = 0;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_destroy(&S.cv);
    pthread_cond_init(&S.cv, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&S.thread, NULL, sampler_main, NULL);
    S.running = rc == 0;
    pthread_mutex_unlock(&S.mu);
    if (rc) kc_say(stderr, "no GPU memory figures: cannot start the sampler thread: %s\n", strerror(rc));
    return rc ? -1 : 0;
}

void kc_gpu_sampler_stop(void)
{
    pthread_mutex_lock(&S.mu);
    int was = S.running;
    S.stopping = 1;
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
    if (was) pthread_join(S.thread, NULL);
    pthread_mutex_lock(&S.mu);
    S.running = 0;
    free(S.w);
    S.w = NULL;
    S.n = S.cap = 0;
    pthread_mutex_unlock(&S.mu);
}

int kc_gpu_sampler_watch_bus(long pid, const char *bus_id)
{
    if (kc_nvml_init(NULL, 0) || !bus_id) return -1;
    pthread_mutex_lock(&S.mu);
    watched *e = find(pid);
    if (!e) {
        if (S.n == S.cap) {
            int nc = S.cap ? S.cap * 2 : 16;
            watched *nw = realloc(S.w, (size_t)nc * sizeof *nw);
            if (!nw) {
                pthread_mutex_unlock(&S.mu);
                return -1;
            }
            S.w = nw;
            S.cap = nc;
        }
        e = &S.w[S.n++];
    }
    e->pid = pid;
    snprintf(e->bus_id, sizeof e->bus_id, "%s", bus_id);
    e->peak = -1;
    e->seen = 0;
    pthread_mutex_unlock(&S.mu);
    return 0;
}

int kc_gpu_sampler_watch(long pid, int device)
{
    if (kc_nvml_init(NULL, 0)) return -1;
    char bus[128];
    if (kc_cuda_ordinal_bus_id(device, bus, sizeof bus)) return -1;
    return kc_gpu_sampler_watch_bus(pid, bus);
}

void kc_gpu_sampler_unwatch(long pid)
{
    pthread_mutex_lock(&S.mu);
    watched *e = find(pid);
    if (e) *e = S.w[--S.n];
    pthread_mutex_unlock(&S.mu);
}

long kc_gpu_sampler_take_peak(long pid)
{
    if (kc_nvml_init(NULL, 0)) return -1;
    pthread_mutex_lock(&S.mu);
    watched *e = find(pid);
    long peak = -1;
    if (e) {
        sample_locked(e);
        peak = e->seen ? e->peak : -1;
        e->peak = -1;
    }
    pthread_mutex_unlock(&S.mu);
    return peak;
}
