/* device.h — what a CUDA device is: name, compute capability, SM count and the
 * limits launches depend on, read through the driver (cuDeviceGetAttribute). */
#ifndef KC_DEVICE_H
#define KC_DEVICE_H
#include <stddef.h>
#include <stdio.h>
#include "kcontract.h"
#include "cuda_driver.h"

/* Fills dev for device `ordinal`. Returns 0, or -1 with the reason in err
 * ("device 3 does not exist: 1 visible device (CUDA_VISIBLE_DEVICES=...)"). */
int kc_device_query(const kc_cuda *cu, int ordinal, kc_device *dev, char *err, size_t errcap);
/* Prints one line per visible device (kcontract info). Returns the count or -1. */
int kc_device_print_all(const kc_cuda *cu, FILE *out);
#endif
