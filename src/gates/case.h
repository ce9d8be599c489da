/* case.h — one (shape, distribution) case of a contract as the gates run
 * it (case.c). Its figures (the first four declarations: what a case needs
 * in memory, its shape's description, which references it runs) are for
 * every layer above, through gates.h; the rest is what the files of the
 * gates layer share about a case, not for other layers. */
#ifndef KC_CASE_H
#define KC_CASE_H
#include <stddef.h>
#include <stdint.h>
#include "gpu.h"
#include "item.h"
#include "kcontract.h"

/* "edge.33 (rows=1, cols=33)" */
void kc_shape_describe(const kc_contract *c, const kc_shape *s, char *buf, size_t cap);
/* Bytes of device and host memory one case of shape s needs under --reference
 * mode, for memory plans: on the device its pristine inputs, two guarded
 * buffer sets (gate 4's relaunch) and the float64 reference(s); on the host
 * what a contract's generator fills, and for a host reference its inputs
 * and outputs. */
void kc_case_memory(const kc_contract *c, const kc_shape *s, kc_ref_mode mode, size_t *host_bytes, size_t *gpu_bytes);
/* Whether gate 3 runs the contract's host reference under mode (it has no
 * device reference, or --reference host or both), and its device reference. */
int kc_uses_host_reference(const kc_contract *c, kc_ref_mode mode);
int kc_uses_device_reference(const kc_contract *c, kc_ref_mode mode);

typedef struct kc_case {
    const kc_contract *c;
    const kc_shape *s;
    kc_dist dist;
    uint64_t seed;
    kc_ref_mode mode;
    int nargs;
    size_t count[KC_MAX_ARGS], bytes[KC_MAX_ARGS];
    size_t front[KC_MAX_ARGS];      /* bytes of a set's allocation before element 0: the guard band (none in
                                     * exact mode) and the buffer's offset (kc_arg.offset) */
    int owner[KC_MAX_ARGS];         /* the buffer an argument passes: itself, the buffer `of` names (alias,
                                     * tensor map, pointer array), or -1 (scalars and structs) */
    double scalar[KC_MAX_ARGS];
    CUdeviceptr in[KC_MAX_ARGS];    /* pristine inputs (IN, INOUT), the input cache's */
    CUdeviceptr ref[KC_MAX_ARGS];   /* the float64 reference gate 3 compares with (OUT, INOUT) */
    CUdeviceptr dref[KC_MAX_ARGS];  /* --reference both: the device's, checked against the host's in ref */
    CUdeviceptr mag[KC_MAX_ARGS];   /* outputs whose derived bound scales with a magnitude (kc_arith
                                     * KC_MAG_REFERENCE): the reference's magnitude per element, else 0 */
    CUdeviceptr dmag[KC_MAX_ARGS];  /* --reference both: the device reference's, checked against mag */
    CUdeviceptr dev[2][KC_MAX_ARGS];/* guarded buffer sets: the first launch's and the relaunch's */
    CUfunction ref_fn;              /* the device reference, NULL when the host's is used */
    kc_time_split *time;            /* accumulates where the case's time went */
    kc_host_entry entry;            /* a library kernel's entry (then no CUfunction) */
    char why[1536];                 /* the failure, when a gate fails */
    size_t body;                    /* offset of the text after "gate N (name): " */
    int sticky;                     /* the failure left the context unusable */
    unsigned block_size;            /* the launch variant (kc_contract.block_sizes) this case runs; 0 none */
    int exact;                      /* the sanitizer's target: buffers of their exact size, no guard bands,
                                     * outputs not poisoned, no shared-memory poison (kc_run_exact_launches) */
} kc_case;

/* Whether ar is a buffer the case allocates, generates and checks (a
 * BUFFER that is no alias): the gates' checks run over these. */
int kc_arg_owns_buffer(const kc_arg *ar);
/* The index of the argument called name, or -1. */
int kc_arg_index(const kc_contract *c, const char *name);
/* The device address of element 0 of the buffer argument a passes (its
 * owner's, past the guard band and offset; an alias's own offset added) in
 * buffer set `set`; 0 when that set is not allocated. */
CUdeviceptr kc_case_data(const kc_case *k, int set, int a);
/* Entry i (0 .. k->count[a] - 1) of the table of pointer array argument a in
 * set `set`: the address of slice i of the buffer it points into. */
CUdeviceptr kc_case_ptr_entry(const kc_case *k, int set, int a, size_t i);

/* The gates' names, by number: 0 "internal", 1 "launch and fit", ..., 5 "sanitizer". */
extern const char *kc_gate_name[];
int kc_nargs_of(const kc_contract *c);
/* a*b + c, saturating at SIZE_MAX: a memory plan over-counts, never wraps. */
size_t kc_mul_add_sat(size_t a, size_t b, size_t c);

/* Records a failure of `gate` (1-4) in k->why and returns the gate; gate
 * KC_INTERNAL (the harness could not run the case, e.g. memory ran out) is
 * recorded as such and returned as -1, so no caller can read it as a pass. */
#define KC_INTERNAL 0
int kc_case_fail(kc_case *k, int gate, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A CUDA error met while running case k: k->sticky says whether it is
 * sticky, and a sticky one marks the session lost (kc_gpu_lost_if_sticky).
 * Returns what a failure line adds for it: " (the CUDA context is now
 * unusable)", or "". */
const char *kc_case_lost_if_sticky(kc_gpu *gpu, kc_case *k, CUresult r);
/* A CUDA call of the harness failed while checking: gate 1 when the error is
 * sticky (the context is lost), else internal. Returns what kc_case_fail does. */
int kc_case_cuda_failed(kc_gpu *gpu, kc_case *k, CUresult r, const char *what, const char *name);
/* Frees buffer set `set` (0 or 1), or every buffer of the case with its references. */
void kc_case_free_set(kc_gpu *gpu, kc_case *k, int set);
void kc_case_free(kc_gpu *gpu, kc_case *k);
/* Sizes, scalars and the pristine device inputs of the case: 0, or the failure. */
int kc_case_prepare(kc_gpu *gpu, kc_case *k);
/* The byte argument ar's guard bands hold. */
uint8_t kc_case_guard_byte(const kc_arg *ar);
/* Allocates buffer set `set`, poisons its outputs with `poison`, copies the inputs in. */
CUresult kc_case_upload(kc_gpu *gpu, kc_case *k, int set, uint8_t poison);

/* Element i of buffer a of set `set` (-1: the pristine input) as a double, and as text. */
double kc_case_value_at(kc_gpu *gpu, kc_case *k, int set, int a, size_t i);
void kc_value_str(kc_dtype t, double v, char *buf, size_t cap);
/* The contract's distributions into out (default uniform, normal); how many. */
int kc_dists_of(const kc_contract *c, kc_dist *out);
#endif
