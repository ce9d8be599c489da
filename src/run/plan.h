/* plan.h — the per-process memory plan of a run and the refusals a --jobs run
 * checks before any child starts (mixed GPUs, host memory, GPU memory,
 * integrated GPUs). The checks are pure: they take device descriptions,
 * MemAvailable and free GPU memory as arguments, so tests feed them directly;
 * jobs.c gathers the real values (/proc/meminfo, the driver). */
#ifndef KC_PLAN_H
#define KC_PLAN_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "guarded_alloc.h"
#include "inputs.h"
#include "item.h"
#include "sanitize_target.h"

/* What one kcontract process needs besides its largest case: the CUDA
 * context, the loaded modules, the binary and libc/libcuda mappings, stdio.
 * Measured on an H200 (driver 580.159.04, docs/receipts/2026-11-30-h200/):
 * host — `kcontract run gpu.device.arch` (context, no buffers) peaked at
 * 105 MiB RSS, and the processes that ran the largest planned case
 * (reduce_sum.f16 large, 8202 MiB) peaked at 8315-8369 MiB, i.e. 113-167 MiB
 * over it; GPU — their peak of 8724 MiB (nvidia-smi, per process) exceeded the
 * case's 8202 MiB of buffers by 522 MiB. Both rounded up with some margin. */
#define KC_PLAN_HOST_OVERHEAD ((size_t)192 << 20)   /* 192 MiB, measured up to 167 MiB */
#define KC_PLAN_GPU_OVERHEAD ((size_t)576 << 20)    /* 576 MiB, measured 522 MiB */
/* A process's GPU memory besides its largest case: the context's overhead
 * and the generated inputs it keeps for later items (inputs.h). */
#define KC_PLAN_GPU_PER_PROCESS (KC_PLAN_GPU_OVERHEAD + KC_INPUT_CACHE_BYTES)
/* A work queue worker's GPU memory besides its items' cases: the above, and
 * with items in flight (inflight > 1) the freed guarded buffers it keeps
 * mapped for the next items (guarded_alloc.h, KC_GUARD_KEEP; counted also
 * where the device has no virtual memory management and the pool stands in:
 * a plan over-counts, never under). */
static inline size_t kc_plan_gpu_per_worker(int inflight)
{
    return KC_PLAN_GPU_PER_PROCESS + (inflight > 1 ? KC_GUARD_KEEP : 0);
}

/* The host memory of one worker's compute-sanitizer sessions: a session per
 * tool (memcheck, racecheck, initcheck, synccheck), each the tool's process
 * and its target, a kcontract process under instrumentation, serving item
 * after item until the worker ends (sanitize_session.h), and the sessions
 * a control planted for the sanitizer starts of its own. Measured on an
 * H100 (docs/receipts/2026-12-06-ref-edges, call 2: memsample.py summed
 * every process below each worker every 0.2 s): the 106 :sanitize items on
 * two workers peaked at 3.91 and 4.00 GiB a worker without batches, 6.89
 * and 9.23 GiB with batches of up to 8 (--inflight 8: racecheck's target
 * alone 8.01 GiB); every item under --jobs 4 --inflight 4 at 3.97 and 6.53
 * GiB (racecheck's target 6.01 GiB). Racecheck's target grows with its
 * batch (up to K :sanitize items at once under --inflight K), about 0.7 GiB
 * an item; planned with a fifth or more to spare: 5 GiB, and 1 GiB more
 * for each item of a batch past the first (K = 4: 8 GiB; K = 8: 12 GiB). */
#define KC_PLAN_SANITIZER_HOST_BASE ((size_t)5 << 30)
#define KC_PLAN_SANITIZER_HOST_PER_BATCH_ITEM ((size_t)1 << 30)
/* The host bytes one worker's sessions are planned at under --inflight K
 * with racecheck batches on (pass 1 where they are off, KC_SANITIZE_BATCH=0:
 * no batch term; 0 or 1: one item at a time; a batch holds at most
 * KC_SAN_BATCH_ITEMS, sanitize_target.h). */
static inline size_t kc_plan_sanitizer_host(int inflight)
{
    int k = inflight < 1 ? 1 : inflight > KC_SAN_BATCH_ITEMS ? KC_SAN_BATCH_ITEMS : inflight;
    return KC_PLAN_SANITIZER_HOST_BASE + (size_t)(k - 1) * KC_PLAN_SANITIZER_HOST_PER_BATCH_ITEM;
}
/* The GPU memory of one worker's sessions, on its device: each target is a
 * CUDA context under its tool. Measured on an H100 (the same receipt, call
 * 6: nvidia-smi's per-process figures summed below each worker once a
 * second): every item under --jobs 4 --inflight 4, 5492 and 4616 MiB a
 * worker; the 106 :sanitize items with batches of up to 8, 6752 and 3430
 * MiB. Sampled, so planned with a fifth to spare: 8 GiB. Without it, on an
 * 80 GB GPU two holders' sessions took 9-13 GiB of a budget the admission
 * gave to items (two of the largest, 28.25 GiB each, could be let in at
 * once). */
#define KC_PLAN_SANITIZER_GPU ((size_t)8 << 30)
/* The largest KC_SANITIZER_HOST_MIB or KC_SANITIZER_GPU_MIB taken: 16 TiB. */
#define KC_PLAN_SANITIZER_HOST_MIB_MAX 16777216ull
/* The figure a run plans one worker's sessions at: KC_SANITIZER_HOST_MIB
 * when set (env: its value; NULL or "" when unset), in whole MiB from 0 to
 * KC_PLAN_SANITIZER_HOST_MIB_MAX, 0 meaning they are not counted (a host
 * whose compute-sanitizer needs another figure than this one measured);
 * else kc_plan_sanitizer_host(inflight). Returns 0 with *bytes, or -1 with
 * "KC_SANITIZER_HOST_MIB = 'x': expected ..." in err. */
int kc_plan_sanitizer_host_env(const char *env, int inflight, size_t *bytes, char *err, size_t errcap);
/* The same for the sessions' GPU memory: KC_SANITIZER_GPU_MIB when set (env),
 * else KC_PLAN_SANITIZER_GPU. */
int kc_plan_sanitizer_gpu_env(const char *env, size_t *bytes, char *err, size_t errcap);

typedef struct kc_plan {
    size_t host, gpu;               /* bytes per process: overhead + largest case (+ sanitizer, below) */
    size_t sanitizer_host;          /* of host, the compute-sanitizer sessions' (kc_plan_sanitizer_host) when a
                                     * selected item runs the sanitizer on a GPU; else 0 */
    int sanitizer;                  /* a selected item runs the sanitizer on a GPU (sanitizer_host may be 0) */
    size_t gpu_over;                /* the GPU overhead in gpu (kc_plan_gpu_per_worker), 0 without a GPU */
    size_t host_case, gpu_case;     /* the largest case's bytes (0: no GPU item) */
    char host_what[256];            /* "rmsnorm.f16 shape large.x" or "" */
    char gpu_what[256];
} kc_plan;

/* The plan of a process running items[sel[0..ns)] under --reference mode
 * with `inflight` items in flight (--inflight; 0 or 1: one at a time): the
 * largest case (over every shape of each selected item's contract,
 * kc_case_memory) for host and GPU separately, plus the overheads (on the
 * GPU, the context's, the input cache's budget, inputs.h, and with lanes the
 * guarded buffers kept: kc_plan_gpu_per_worker; on the host, when a selected
 * item runs compute-sanitizer, its sessions': kc_plan_sanitizer_host).
 * with_gpu 0: no GPU will be used, GPU items are SKIP and allocate nothing,
 * so only the host overhead counts. */
void kc_plan_compute(const kc_item *items, const int *sel, int ns, int with_gpu, kc_ref_mode mode, int inflight,
                     kc_plan *p);
/* Plans p's compute-sanitizer sessions at `host` bytes instead of the
 * default (kc_plan_sanitizer_host_env), where p counts them at all
 * (p->sanitizer); p->host follows. Their GPU share is the work queue's
 * alone (kc_admit.sessions_gpu): a per-process plan holds no GPU share. */
void kc_plan_set_sanitizer(kc_plan *p, size_t host);

/* Everything the refusals look at. */
typedef struct kc_plan_env {
    int jobs;                       /* children */
    const kc_plan *plan;            /* per child */
    size_t mem_available;           /* host MemAvailable bytes; SIZE_MAX: unknown */
    const kc_device *devs;          /* the devices children are placed on, round robin */
    const size_t *free_mem;         /* free bytes of each (cuMemGetInfo); SIZE_MAX: unknown */
    int ndevs;                      /* 0: no GPU */
} kc_plan_env;

/* Children placed on devs[slot] by round robin over min(jobs, ndevs) devices. */
int kc_plan_children_on(int jobs, int ndevs, int slot);

/* Returns 0 when the run may start, or -1 with the first refusal in err,
 * naming the values: "mixed GPUs: devices 0 and 2 differ in compute
 * capability: 9.0 on device 0, 8.9 on device 2 ...", "host memory: --jobs 8
 * needs 8 x 1.25 GiB (1342177280 bytes) = ..., but MemAvailable is ...",
 * "GPU memory: device 1 (NVIDIA H200) gets 3 children needing ...",
 * "integrated GPU: device 0 (NVIDIA GB10) shares host memory: ...". */
int kc_plan_check(const kc_plan_env *e, char *err, size_t errcap);

/* A work queue of `workers` workers, each planned at per_worker host bytes,
 * whose selection runs the sanitizer: at least one worker's sessions
 * (sessions bytes) must fit beside them. Returns 0 (also when mem_available
 * is SIZE_MAX, unknown, or sessions is 0), or -1 with "host memory: the work
 * queue's 4 workers need 4 x 192 MiB + 12.00 GiB for one worker's
 * compute-sanitizer sessions = ..., but MemAvailable is ...; ..." in err. */
int kc_plan_check_sessions(int workers, size_t per_worker, size_t sessions, size_t mem_available, char *err,
                           size_t errcap);

/* Checks --devices (or --device) ordinals against the visible device count.
 * Returns 0, or -1 with "--devices 0,5: device 5 does not exist: 2 visible
 * devices (0..1)" in err. what names the switch and its value. */
int kc_plan_devices_exist(const int *ords, int n, int visible, const char *what, char *err, size_t errcap);

/* The MemAvailable line of /proc/meminfo text, in bytes. 0 or -1. */
int kc_meminfo_available(const char *text, size_t *bytes);
/* Reads /proc/meminfo. 0 or -1. */
int kc_read_mem_available(size_t *bytes);

/* "1.25 GiB", "600 MiB", "12 KiB", "17 bytes". */
void kc_bytes_str(size_t b, char *buf, size_t cap);
/* "host 961 MiB (192 MiB overhead + 769 MiB for rmsnorm.f16 shape large.x), GPU
 * 3418 MiB (2624 MiB overhead + 794 MiB for ...)": whole MiB, rounded up, so
 * each total is the sum of its parts as printed ("+ 6144 MiB for
 * compute-sanitizer sessions" among the host's when counted); "host 192 MiB
 * (overhead only, no GPU item will run), GPU 0 MiB" when p->gpu is 0. */
void kc_plan_describe(const kc_plan *p, char *buf, size_t cap);
/* The --help paragraph: the plan over every registered item. */
void kc_plan_help(FILE *out, const kc_item *items, int n);
#endif
