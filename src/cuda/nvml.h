/* nvml.h — GPU memory per process, from NVML loaded at run time (dlopen of
 * libnvidia-ml.so.1, or $KC_LIBNVML; no symbol of NVML is linked), and a
 * sampler thread that keeps each watched process's peak.
 *
 * NVML numbers devices its own way (by PCI order, ignoring
 * CUDA_VISIBLE_DEVICES), so a CUDA ordinal is never used as an NVML index:
 * devices are found by PCI bus id (cuDeviceGetPCIBusId on the CUDA side,
 * nvmlDeviceGetHandleByPciBusId_v2 on the NVML side).
 *
 * Without NVML (no driver, a machine with no GPU) every figure is -1
 * ("unknown") and the reason is printed once to stderr
 * ("kcontract: no GPU memory figures: libnvidia-ml.so.1 not found (...)").
 *
 * Usage, per worker process and item (the serial runner watches its own pid):
 *     kc_gpu_sampler_start(0);                    // once per run; 0: default period
 *     kc_gpu_sampler_watch(pid, cuda_ordinal);    // or _watch_bus(pid, "0000:3B:00.0")
 *     kc_gpu_sampler_take_peak(pid);              // before the item: drop the old peak
 *     ... the item runs ...
 *     long mib = kc_gpu_sampler_take_peak(pid);   // after: the item's peak, -1 unknown
 *     kc_gpu_sampler_unwatch(pid);                // the worker is gone
 *     kc_gpu_sampler_stop();                      // end of run
 * All sampler functions are thread-safe and cheap when NVML is absent. */
#ifndef KC_NVML_H
#define KC_NVML_H
#include <stddef.h>

#define KC_GPU_SAMPLE_MS 150        /* default sampling period */

/* Loads NVML (once per process; later calls return the first result).
 * Returns 0, or -1 with the reason in why (when why is not NULL). */
int kc_nvml_init(char *why, size_t whycap);
/* Memory used on the device with PCI bus id `bus_id` by process `pid`, in
 * MiB (rounded up); 0 when the device lists processes but not this one; -1
 * when NVML is absent, the device is not found or the figure is not
 * available (why says which, when not NULL). */
long kc_nvml_pid_mib(const char *bus_id, long pid, char *why, size_t whycap);
/* The same, and *listed says whether NVML listed pid (0 with a result of 0:
 * the device's list does not hold it). */
long kc_nvml_pid_mib_listed(const char *bus_id, long pid, int *listed, char *why, size_t whycap);
/* The PCI bus id ("0000:3B:00.0") of CUDA device `ordinal` as this process
 * sees it (CUDA_VISIBLE_DEVICES applies). Loads libcuda and calls cuInit in
 * the calling process (harmless before fork+exec, not before a fork that does
 * not exec). Returns 0, or -1 with the reason in buf. */
int kc_cuda_ordinal_bus_id(int ordinal, char *buf, size_t cap);

/* Starts the sampler thread (period_ms 0: KC_GPU_SAMPLE_MS, clamped to
 * 100..250). Returns 0; -1 when NVML is absent (the reason is printed once;
 * the other calls then return -1 / do nothing). A second start is a no-op. */
int kc_gpu_sampler_start(int period_ms);
/* Keeps the reason NVML is absent unsaid in this process: a serial run's
 * re-exec (runner.c), whose first process said it already. */
void kc_gpu_sampler_said(void);
/* Stops the thread and forgets every pid. */
void kc_gpu_sampler_stop(void);
/* Samples pid on CUDA device `device` (ordinal, mapped to a PCI bus id with
 * kc_cuda_ordinal_bus_id) or on the device with PCI bus id `bus_id`. Watching
 * a pid again replaces its device and drops its peak. Returns 0 or -1. */
int kc_gpu_sampler_watch(long pid, int device);
int kc_gpu_sampler_watch_bus(long pid, const char *bus_id);
void kc_gpu_sampler_unwatch(long pid);
/* Takes one sample of pid now, returns its peak in MiB since the last take
 * (or the watch), and starts a new peak. -1: unknown (no NVML, pid not
 * watched, or pid never seen in the device's process list, e.g. before it
 * creates a context, or from inside another PID namespace). */
long kc_gpu_sampler_take_peak(long pid);
#endif
