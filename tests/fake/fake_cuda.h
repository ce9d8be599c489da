/* fake_cuda.h — what the fake driver's files share (fake_cuda*.c, fake_kernels.c,
 * fake_args.c, fake_acc.c): a launch of an emulated kernel as its host
 * function sees it, the readers of its parameters, the table of emulated
 * kernels and the context's fault state. */
#ifndef KC_FAKE_CUDA_H
#define KC_FAKE_CUDA_H
#include <cuda.h>
#include <stdatomic.h>
#include <stdint.h>

/* A launch: threads in the grid, parameters, and the module's control. */
typedef struct launch {
    unsigned long long threads;
    unsigned blocks;                /* gx * gy * gz */
    void **p;
    const char *control;            /* "" for the clean build */
    unsigned cluster[3];            /* cluster dims; 1x1x1 without a cluster */
    int cooperative;
    int programmatic;               /* launched with programmatic stream serialization */
} launch;
#define PTR(T, i) ((T *)(uintptr_t)*(const CUdeviceptr *)l->p[i])
#define I64(i) (*(const long long *)l->p[i])
#define F32(i) (*(const float *)l->p[i])

/* An emulated kernel as the driver reports it: its module and symbol, its
 * registers a thread, static shared memory, local memory (bytes) and most
 * threads a block; the host function that runs a launch of it. */
struct kernel {
    const char *module, *symbol;
    int regs, static_smem, local, max_threads;
    CUresult (*run)(const launch *l);
    int grown_regs;                 /* its control reg_growth's registers per thread (0: the same) */
    const char *params;             /* its parameters' sizes, "8,8,4,8" (cuFuncGetParamInfo); NULL: not known */
};
#define NKERNELS 35
/* Every emulated kernel: those under test, the harness's and the device
 * references (fake_kernels.c). */
extern const struct kernel fake_kernels[NKERNELS];

/* The one context's fault state, shared by the kernels that fault and the
 * driver calls that report it (atomic: threads of a process share the
 * context). fake_sticky: set by a faulting kernel, returned by every
 * context call from then on; fake_late: a fault the host sees at its next
 * cuCtxSynchronize or cuFuncSetAttribute; fake_launches: launches of the
 * kernels under test (not the harness's or the references'). */
extern _Atomic(CUresult) fake_sticky, fake_late;
extern _Atomic unsigned long long fake_launches;

/* The emulated kernels of fake_args.c (tensor maps, structs, scalars of
 * every dtype, aliases at offsets, pointer arrays). */
CUresult fake_tmap_copy(const launch *l);
CUresult fake_struct_axpy(const launch *l);
CUresult fake_scalars(const launch *l);
CUresult fake_inplace_scale(const launch *l);
CUresult fake_grouped_copy(const launch *l);
/* The emulated float32 accumulations of fake_acc.c. */
CUresult fake_dot_f32(const launch *l);
CUresult fake_dot_bf16(const launch *l);
CUresult fake_sumsq_f32(const launch *l);
#endif
