/* fake_nvml.c — a stand-in for libnvidia-ml.so.1 (built as
 * build/libfake_nvml.so, loaded through KC_LIBNVML) so the NVML code runs on
 * a machine without a GPU: one device at PCI bus id 0000:3B:00.0 whose
 * compute processes are read, at every query, from the file named by
 * $KC_FAKE_NVML_PROCS: "pid bytes" per line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} info_t;

static int the_device;

int nvmlInit_v2(void) { return 0; }
const char *nvmlErrorString(int r) { return r == 6 ? "Not Found" : r == 7 ? "Insufficient Size" : "Unknown Error"; }

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
    if (strcasecmp(bus, "0000:3B:00.0") != 0 && strcasecmp(bus, "3B:00.0") != 0) return 6;
    *dev = &the_device;
    return 0;
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *count, info_t *infos)
{
    if (dev != &the_device || !count) return 2;
    const char *path = getenv("KC_FAKE_NVML_PROCS");
    FILE *f = path ? fopen(path, "r") : NULL;
    unsigned int n = 0;
    unsigned long long pid, bytes;
    while (f && fscanf(f, "%llu %llu", &pid, &bytes) == 2) {
        if (n < *count && infos) infos[n] = (info_t){ (unsigned)pid, bytes, 0, 0 };
        n++;
    }
    if (f) fclose(f);
    int rc = n > *count ? 7 : 0;
    *count = n;
    return rc;
}
