/* limits_item.h — a kernel's :limits item (limits_item.c). */
#ifndef KC_LIMITS_ITEM_H
#define KC_LIMITS_ITEM_H
#include "gpu.h"
#include "item.h"
#include "result.h"

/* The limit checks of item it into *res (reset by the caller). */
void kc_run_limits(kc_gpu *gpu, const kc_item *it, kc_item_result *res);
#endif
