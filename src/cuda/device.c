/* device.c — reads a device's identity and limits into a kc_device. */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int attr(const kc_cuda *cu, CUdevice d, CUdevice_attribute a)
{
    int v = 0;
    if (cu->DeviceGetAttribute(&v, a, d) != CUDA_SUCCESS) return 0;
    return v;
}

int kc_device_query(const kc_cuda *cu, int ordinal, kc_device *dev, char *err, size_t errcap)
{
    int n = 0;
    memset(dev, 0, sizeof *dev);
    CUresult r = cu->DeviceGetCount(&n);
    if (r != CUDA_SUCCESS) {
        snprintf(err, errcap, "cuDeviceGetCount failed: %s", kc_cuda_error_name(cu, r));
        return -1;
    }
    if (ordinal < 0 || ordinal >= n) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        snprintf(err, errcap, "device %d does not exist: %d visible device%s (valid: 0..%d)%s%s%s", ordinal, n,
                 n == 1 ? "" : "s", n - 1, vis ? ", CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "", "");
        return -1;
    }
    CUdevice d;
    if ((r = cu->DeviceGet(&d, ordinal)) != CUDA_SUCCESS) {
        snprintf(err, errcap, "cuDeviceGet(%d) failed: %s", ordinal, kc_cuda_error_name(cu, r));
        return -1;
    }
    dev->ordinal = ordinal;
    cu->DeviceGetName(dev->name, (int)sizeof dev->name, d);
    dev->cc_major = attr(cu, d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    dev->cc_minor = attr(cu, d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    dev->sm_count = attr(cu, d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    dev->max_threads_per_block = attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    dev->warp_size = attr(cu, d, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    dev->smem_per_block = (size_t)attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    dev->smem_per_block_optin = (size_t)attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    dev->smem_per_sm = (size_t)attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    dev->regs_per_sm = attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    dev->max_blocks_per_sm = attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    dev->integrated = attr(cu, d, CU_DEVICE_ATTRIBUTE_INTEGRATED);
    cu->DeviceTotalMem(&dev->total_mem, d);
    return 0;
}

int kc_device_print_all(const kc_cuda *cu, FILE *out)
{
    int n = 0;
    if (cu->DeviceGetCount(&n) != CUDA_SUCCESS) return -1;
    for (int i = 0; i < n; i++) {
        kc_device dv;
        char err[256];
        if (kc_device_query(cu, i, &dv, err, sizeof err)) {
            fprintf(out, "device %d: %s\n", i, err);
            continue;
        }
        fprintf(out, "device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB, %zu KiB shared memory per block (opt-in), %s\n",
                i, dv.name, dv.cc_major, dv.cc_minor, dv.sm_count, dv.total_mem / 1073741824.0,
                dv.smem_per_block_optin / 1024, dv.integrated ? "integrated (shares host memory)" : "discrete");
    }
    return n;
}
