/* fake_cuda.h — what the fake driver's files share (fake_cuda.c): a launch
 * of an emulated kernel as its host function sees it, and the readers of
 * its parameters. */
#ifndef KC_FAKE_CUDA_H
#define KC_FAKE_CUDA_H
#include <cuda.h>
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
