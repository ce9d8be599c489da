/* params.h — the parameters a launch of a case gets (params.c). */
#ifndef KC_PARAMS_H
#define KC_PARAMS_H
#include "case.h"

/* What cuLaunchKernel gets: params[a] points to buffer a's device pointer (past
 * its guard band) or to scalar a, stored as its dtype. */
typedef struct kc_params {
    union { float f; int i; long long ll; unsigned u; } sc[KC_MAX_ARGS];
    CUdeviceptr ptr[KC_MAX_ARGS];
    void *params[KC_MAX_ARGS];
} kc_params;
void kc_make_params(kc_case *k, int set, kc_params *p);
#endif
