/* fuzz_records.c — libFuzzer target: launch-record files (--records FILE,
 * kc_launch_records_parse), recorded from workloads and shared between
 * hosts, against every registered contract. No crash, no undefined
 * behaviour; records that parse become items, and each one's digest, cost
 * estimate and case memory are computed (the contracts' count functions on
 * the recorded dims), as a run does before anything starts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"
#include "gates.h"
#include "launch_records.h"
#include "tally.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char err[16384];
    kc_launch_records *r = kc_launch_records_parse("fuzz.records", (const char *)data, size, err, sizeof err);
    if (!r) {
        if (!err[0]) abort();                               /* a refusal always says why */
        return 0;
    }
    kc_item *items = NULL;
    int n = kc_launch_records_add_items(r, &items, 0, 1, err, sizeof err);
    if (n != r->n) abort();
    for (int i = 0; i < n; i++) {
        const kc_item *it = &items[i];
        if (!strchr(it->name, '@') || !it->contract || !it->contract->shapes) abort();
        (void)kc_item_set_digest(it);
        (void)kc_cost_estimate(it);
        size_t host, gpu;
        kc_case_memory(it->contract, &it->contract->shapes[0], KC_REF_DEVICE, &host, &gpu);   /* the default --reference */
    }
    free(items);
    kc_launch_records_free(r);
    return 0;
}
