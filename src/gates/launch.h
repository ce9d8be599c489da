/* launch.h — the launch path of an item's kernel (launch.c): loading its
 * function, the one launch of a kernel (cuLaunchKernel, or cuLaunchKernelEx
 * with a cluster, a cooperative grid or programmatic stream serialization),
 * and gate 1 for one launch of a case. */
#ifndef KC_LAUNCH_H
#define KC_LAUNCH_H
#include <stddef.h>
#include "case.h"
#include "steps.h"

/* An item's kernels, loaded: the contract's steps (steps.h; a contract
 * without steps is one step, its symbol taking every argument), each with
 * its function from the contract's module (a control's build), or a
 * library's entry (then no step). */
typedef struct kc_kernels {
    CUmodule mod;                       /* NULL for a library */
    kc_host_entry entry;                /* a library kernel's, else NULL */
    kc_host_release_fn release;         /* its library's KC_HOST_RELEASE, if it exports one */
    int n;                              /* steps; 0 for a library */
    kc_step_plan step[KC_MAX_STEPS];
    CUfunction fn[KC_MAX_STEPS];
    int harness_control;                /* KC_HARNESS_* planted in its launches (kc_control.harness); 0 none */
    unsigned block_size;                /* the launch variant its launches get (kc_launch.block_size): the
                                         * contract's first block size after loading; gates.c sets each */
} kc_kernels;

/* Loads the contract's kernels (control: its build) into *K: the module and
 * every step's function, or a library's entry. 0; or 1 with a gate 1 line in
 * why naming the module, or the step's symbol that is not in it (nothing
 * stays loaded); a sticky error there marks gpu lost (kc_gpu_lost_if_sticky)
 * and the line says the context is unusable. */
int kc_load_kernels(kc_gpu *gpu, const kc_contract *c, const char *control, kc_kernels *K, char *why, size_t cap);
/* Raises the hang watchdog bound of K's module (its variable
 * KC_WATCHDOG_SYMBOL, kcontract_watchdog.cuh) to ns nanoseconds where it is
 * lower, for c's kernels (control: its build; for the messages). 1 when
 * raised, the module's value before in *was; 0 when the module has no such
 * variable (a library, or a kernel without a watchdog) or already at least
 * ns (*was); -1 with why: a variable of another size than 8 bytes, a module
 * copy kept across items (module_cache.h: the value would outlive the item),
 * or a failed read or copy (a sticky error marks gpu lost, as above). */
int kc_kernels_set_watchdog(kc_gpu *gpu, const kc_kernels *K, const kc_contract *c, const char *control,
                            unsigned long long ns, unsigned long long *was, char *why, size_t cap);
/* Unloads K's module (not in a lost context, where nothing can be). */
void kc_unload_kernels(kc_gpu *gpu, kc_kernels *K);
/* For a library kernel whose library exports KC_HOST_RELEASE: calls it, at
 * the end of every item that loaded the library, whether a case reached the
 * entry or not (not in a lost context, which its process leaves anyway). 0
 * (also without one); or -1 with why naming the library (control: its
 * build) and the error, a sticky one marking gpu lost; what the library
 * keeps is then unknown and the caller replaces the process. */
int kc_release_library(kc_gpu *gpu, const kc_contract *c, const char *control, const kc_kernels *K, char *why,
                       size_t cap);

/* The cluster of l into dims (a dim of 0 counts as 1 once another is
 * given): 1; or 0 when l has none (cluster {0,0,0}: dims 1x1x1). */
int kc_launch_cluster(const kc_launch *l, unsigned dims[3]);
/* "grid 16x1x1 block 256x1x1 smem 0", then " cluster 8x1x1" (with
 * " non-portable" when l allows it) and " cooperative" when l has them. */
void kc_launch_describe(const kc_launch *l, char *buf, size_t cap);

/* Options of kc_launch_kernel beyond what l says. */
#define KC_LAUNCH_PROGRAMMATIC 1u   /* CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: the kernel may
                                     * start before the one before it on its stream ends (it waits for that
                                     * kernel's trigger with griddepcontrol.wait): the dependent launch of a
                                     * producer and its dependent on one stream (issue 22) */

/* The one launch of a kernel of an item (gates 1-4, the sanitizer's exact
 * launches, a device reference): l's geometry on stream with params. A
 * plain launch goes through cuLaunchKernel; one with a cluster, a
 * cooperative grid or KC_LAUNCH_PROGRAMMATIC through cuLaunchKernelEx with
 * CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, _COOPERATIVE and
 * _PROGRAMMATIC_STREAM_SERIALIZATION as asked, after setting
 * CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED when l asks for it.
 * Checks nothing (gate 1 checks before it): returns the driver's result. */
CUresult kc_launch_kernel(const kc_cuda *cu, CUfunction f, const kc_launch *l, CUstream stream, void **params,
                          unsigned flags);
/* How many clusters of l (which has one) can be active at once on the
 * device: cuOccupancyMaxActiveClusters with l's launch config, after
 * setting the non-portable attribute when l asks for it. */
CUresult kc_launch_max_clusters(const kc_cuda *cu, CUfunction f, const kc_launch *l, int *clusters);

/* Gate 1 for one launch of case k on buffer set `set`: checks every step,
 * then launches the steps in order on stream, each with its own parameters
 * (the contract's arguments it names) and a programmatic step with
 * KC_LAUNCH_PROGRAMMATIC, and, with sync, synchronizes once after the last
 * (the default stream serves: on an H200 a dependent overlaps its producer
 * there as on a created stream, docs/receipts/2026-12-02-h200-pdl). 0, or the gate
 * (failure in k->why, naming the step in a sequence of more than one).
 * The checks: a non-empty grid; threads a block within what the function
 * allows; shared memory within the device's (the function's dynamic limit
 * raised where it must be); with a cluster, each grid dim a multiple of
 * the cluster's and one cluster that fits (cuOccupancyMaxActiveClusters >
 * 0); a cooperative grid whose blocks can all be resident at once (blocks
 * per SM x SMs, and its clusters within the active clusters). */
int kc_case_launch_on(kc_gpu *gpu, const kc_kernels *K, kc_case *k, int set, int gate, CUstream stream, int sync);
/* kc_case_launch_on the default stream, synchronized. */
int kc_case_launch(kc_gpu *gpu, const kc_kernels *K, kc_case *k, int set, int gate);
/* The launch of step i of K for shape s into *l (grid and block 1x1x1, the
 * rest zero but block_size, K's launch variant, before the step's launch
 * function fills it). */
void kc_step_launch(const kc_kernels *K, int i, const kc_shape *s, const kc_device *dev, kc_launch *l);
#endif
