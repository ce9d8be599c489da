/* item.h — the unit of work: one kernel's gates, one control, one kernel's
 * limit checks, one kernel's sanitizer runs, or one suite. Item names:
 * "<contract>" for gates 1-4, "<contract>:limits", "<contract>:control.<name>",
 * "<contract>:sanitize" (sanitize.h), and a suite's own name;
 * with --records, "<contract>@<label>" for each launch record (kind kernel). */
#ifndef KC_ITEM_H
#define KC_ITEM_H
#include <stddef.h>
#include "kcontract.h"
#include "state.h"

typedef enum kc_kind {
    KC_KIND_KERNEL = 0, KC_KIND_CONTROL, KC_KIND_LIMIT, KC_KIND_SUITE, KC_KIND_SANITIZE, KC_KIND_COUNT
} kc_kind;

typedef struct kc_item {
    char name[192];
    kc_kind kind;
    const kc_contract *contract;     /* kernel, control, limit */
    const kc_control *control;       /* control */
    const kc_suite *suite;           /* suite */
    const char *record;              /* launch-record items (records.h): "FILE:LINE"; else NULL */
} kc_item;

/* Where an item's time went, in seconds: generating inputs, GPU work (buffer
 * set-up, launches, synchronization), the float64 reference, and the checks
 * of gates 2-4 (on the device). The rest is harness overhead. And how its
 * input buffers came to be: made by the GPU's built-in stream, made by a
 * contract's generator on the host, or reused from an earlier item of the
 * same process (inputs.h). */
typedef struct kc_time_split {
    double inputs_s, gpu_s, reference_s, checks_s;
    int inputs_made_gpu, inputs_made_host, inputs_reused;
} kc_time_split;

/* Which float64 reference gate 3 compares with (--reference): the contract's
 * device reference where it has one, else its host reference (DEVICE, the
 * default); always the host reference (HOST); or both on every case, failing
 * the case when they disagree beyond the contract's bound, gate 3 then
 * comparing with the host's (BOTH). */
typedef enum kc_ref_mode { KC_REF_DEVICE = 0, KC_REF_HOST, KC_REF_BOTH } kc_ref_mode;

/* "device", "host", "both": the --reference value. */
const char *kc_ref_mode_name(kc_ref_mode m);

const char *kc_kind_name(kc_kind k);     /* "kernel", "control", "limit", "suite", "sanitize" */
/* The family of an item or contract name: its first dotted component
 * ("rmsnorm" of "rmsnorm.f16:control.half_accum" or "rmsnorm.f16@decode"; a
 * suite's, "host" of "host.contracts.lint"), into buf[0..cap): JUnit's
 * classname and list --format json's family. */
void kc_family_of(const char *name, char *buf, size_t cap);
#endif
