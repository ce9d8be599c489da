/* params.h — the parameters a launch of a case gets (params.c): each
 * argument as the kernel's parameter of its place (buffers' device pointers,
 * scalars of every dtype, tensor maps encoded over their buffers, parameter
 * structs, pointer arrays), and the check of their sizes against the
 * kernel's own parameters. */
#ifndef KC_PARAMS_H
#define KC_PARAMS_H
#include "case.h"

/* Bytes of all by-value arguments together (scalars, tensor maps, structs,
 * each at its alignment): twice the 4096 bytes of kernel parameters every
 * CUDA version allows. */
#define KC_PARAM_BYTES 8192

/* What a launch gets. arg[a] points to argument a's value (its device
 * pointer, scalar, tensor map or struct; NULL for a carried buffer), size[a]
 * its bytes; params[0 .. nparams) are the kernel's parameters in order (the
 * arguments that are not carried), index[j] the argument behind params[j]. */
typedef struct kc_params {
    _Alignas(128) unsigned char by_value[KC_PARAM_BYTES];
    size_t used;
    CUdeviceptr ptr[KC_MAX_ARGS];
    void *arg[KC_MAX_ARGS];
    size_t size[KC_MAX_ARGS];
    void *params[KC_MAX_ARGS];
    int index[KC_MAX_ARGS];
    int nparams;
} kc_params;

/* Builds the parameters of case k on buffer set `set` (allocated). 0; or
 * the gate (1, `gate` for a launch) with the failure in k->why: a tensor map
 * whose layout breaks the encoder's rules or reaches past its buffer
 * (tensor_map.h), a driver without cuTensorMapEncodeTiled, the encoder's
 * refusal. */
int kc_make_params(kc_gpu *gpu, kc_case *k, int set, int gate, kc_params *p);

/* The parameters of a kernel that takes the contract c's arguments args[0 ..
 * n) in that order (a step of a sequence, or every argument): their values
 * from p into out, the carried buffers skipped (they are no parameters),
 * and the argument behind each into index. Returns how many. */
int kc_params_pick(const kc_params *p, const kc_contract *c, const int *args, int n, void **out, int *index);

/* Gate 1's check of the parameters index[0 .. n) of p (kc_params_pick's)
 * against function f's own, where the driver has cuFuncGetParamInfo (CUDA
 * 12.4 and later; else nothing is checked): their number, and each one's
 * size against its argument's (a pointer 8 bytes, a scalar its dtype's, a
 * tensor map 128, a struct its layout's size). 0; or `gate` with the
 * failure, after who (a step's label or ""), naming the argument, both
 * sizes and what the contract passes. */
int kc_check_param_sizes(kc_gpu *gpu, CUfunction f, kc_case *k, const kc_params *p, const int *index, int n, int gate,
                         const char *who);
#endif
